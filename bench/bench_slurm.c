/*
 * Slurm launcher figures, side by side in one run: 16 fixture ops of a known
 * duration on 4 GPUs, once through the local launcher (`zlbench batch --devices
 * 0,1,2,3`) and once through a real one-node Slurm cluster with 4 fake GPUs
 * (`zlbench batch --launcher slurm`, scripts/slurm-up.sh brings it up and leaves
 * it running). Printed: both makespans, and the scheduling overhead per op:
 * (Slurm makespan - local makespan) / (ops per GPU), the time Slurm adds to each
 * op's turn on its GPU (submission, task start, the task wrapper, polling);
 * goal <= 1 s on the local cluster.
 * The ops live in a generated FlagGems-shaped tree in /tmp whose tests sleep
 * DURATION_S; conftest, base and src/ are the bundled demo's (symlinks).
 * Each launcher runs REPS times (default 2), alternating; medians are printed.
 * usage: bench_slurm ZLBENCH [DURATION_S [REPS]]   (use a build without sanitizers)
 * Prints "skipped: ..." and exits 0 when Slurm's packages are absent.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "zlbench/backend.h"
#include "zlbench/batch.h"
#include "zlbench/child.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"

#define GPUS 4
#define OPS 16

static int make_tree(const char *root, double duration, struct strbuf *ops, struct strbuf *err)
{
	double dur[OPS];
	int i;

	for (i = 0; i < OPS; i++)
		dur[i] = duration;
	return bench_link_demo(root, 1, err) || bench_write_sleep_ops(root, "sop", OPS, dur, ops, err) ? -1 : 0;
}

/* Bring the cluster up; its environment lines ("export NAME=value") go to env. 0, 1 skip, -1 error. */
static int slurm_up(struct strvec *env, struct strbuf *why)
{
	const char *argv[] = { ZL_SOURCE_DIR "/scripts/slurm-up.sh", NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct strvec lines = STRVEC_INIT;
	size_t i;
	int code = 0, rc = -1;

	if (zl_capture(argv, NULL, 120, &out, &code, &err)) {
		strbuf_addf(why, "cannot run %s: %s", argv[0], err.buf);
		goto out;
	}
	if (code == 77) {
		strbuf_addstr(why, "slurm-wlm/munge are not installed (apt-get install -y slurm-wlm munge)");
		rc = 1;
		goto out;
	}
	if (code) {
		strbuf_addf(why, "%s exited %d: %s", argv[0], code, out.buf);
		goto out;
	}
	strvec_split(&lines, out.buf, '\n');
	for (i = 0; i < lines.nr; i++)
		if (zl_starts_with(lines.v[i], "export "))
			strvec_push(env, lines.v[i] + strlen("export "));
	rc = 0;
out:
	strbuf_release(&out);
	strbuf_release(&err);
	strvec_clear(&lines);
	return rc;
}

struct pass {
	double makespan_s;
	double wall_sum_s;   /* of the ops, as ops_status.csv records them */
	size_t rows, passed;
	int exit_code;
};

static int run_pass(const char *const *argv, const char *const *env, const char *batch_dir, struct pass *p)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT, text = STRBUF_INIT;
	struct zl_batch_rows rows = ZL_BATCH_ROWS_INIT;
	char *path = zl_path_join(batch_dir, ZL_BATCH_STATUS_FILE);
	double t0 = zl_now_monotonic();
	size_t i, complete;
	int rc = -1;

	if (zl_capture(argv, env, 900, &out, &p->exit_code, &err)) {
		fprintf(stderr, "bench: %s\n", err.buf);
		goto out;
	}
	p->makespan_s = zl_now_monotonic() - t0;
	if (strbuf_read_file(&text, path) < 0 || zl_batch_rows_parse(text.buf, text.len, &rows, &complete, &err)) {
		fprintf(stderr, "bench: no %s (exit %d): %s\n", path, p->exit_code, out.buf);
		goto out;
	}
	for (i = 0; i < rows.nr; i++) {
		p->wall_sum_s += rows.v[i].v[ZL_BCOL_WALL_S] ? strtod(rows.v[i].v[ZL_BCOL_WALL_S], NULL) : 0;
		p->passed += rows.v[i].v[ZL_BCOL_STATUS] && !strcmp(rows.v[i].v[ZL_BCOL_STATUS], "passed");
	}
	p->rows = rows.nr;
	rc = 0;
out:
	zl_batch_rows_release(&rows);
	strbuf_release(&out);
	strbuf_release(&err);
	strbuf_release(&text);
	free(path);
	return rc;
}

int main(int argc, char **argv)
{
	double duration = argc > 2 ? atof(argv[2]) : 1.5;
	int reps = argc > 3 ? atoi(argv[3]) : 2, r;
	struct strbuf err = STRBUF_INIT, ops = STRBUF_INIT, why = STRBUF_INIT;
	struct strvec env = STRVEC_INIT;
	const struct zl_backend *b;
	double *m_local, *m_slurm, *w_local, *w_slurm, per_op, ml, ms;
	struct bench_sandbox sb;
	size_t k;
	int up;

	if (argc < 2 || duration <= 0 || reps < 1) {
		fprintf(stderr, "usage: bench_slurm ZLBENCH [DURATION_S [REPS]]\n");
		return 2;
	}
	up = slurm_up(&env, &why);
	if (up) {
		printf("zlbench slurm benchmark: %s: %s\n", up > 0 ? "skipped" : "FAILED", why.buf);
		return up > 0 ? 0 : 1;
	}
	if (bench_sandbox_init(&sb, "zl-bench-slurm-", &err)) {
		fprintf(stderr, "bench: %s\n", err.buf);
		return 1;
	}
	if (make_tree(sb.tree, duration, &ops, &err)) {
		fprintf(stderr, "bench: cannot build the tree: %s\n", err.buf);
		return 1;
	}
	for (k = 0; k < BENCH_SANDBOX_ENV; k++)
		strvec_push(&env, sb.env[k]);
	strvec_push(&env, "NO_COLOR=1");
	strvec_push(&env, "ZL_RUNS_DIR");
	for (b = zl_backend_table; b->name; b++)
		strvec_push(&env, b->visibility_var); /* the runs pin their own */
	m_local = xcalloc((size_t)reps, sizeof(double));
	m_slurm = xcalloc((size_t)reps, sizeof(double));
	w_local = xcalloc((size_t)reps, sizeof(double));
	w_slurm = xcalloc((size_t)reps, sizeof(double));
	/* alternate the launchers so that a busy spell of the machine hits both alike */
	for (r = 0; r < reps; r++) {
		char *out_local = xstrfmt("%s/local-%d", sb.root, r + 1), *out_slurm = xstrfmt("%s/slurm-%d", sb.root, r + 1);
		/* fresh interpreters, as Slurm tasks have: the launchers' own cost is compared */
		const char *a_local[] = { argv[1], "batch", "--backend", "cuda", "--devices", "0,1,2,3", "--start", "fresh",
					  "--flaggems-dir", sb.tree, "--python", "/usr/bin/python3", "--ops", ops.buf,
					  "--out", out_local, "--progress", "none", NULL };
		const char *a_slurm[] = { argv[1], "batch", "--launcher", "slurm", "--backend", "cuda",
					  "--flaggems-dir", sb.tree, "--python", "/usr/bin/python3", "--ops", ops.buf,
					  "--out", out_slurm, "--progress", "none", NULL };
		struct pass local, slurm;

		memset(&local, 0, sizeof(local));
		memset(&slurm, 0, sizeof(slurm));
		if (run_pass(a_local, env.v, out_local, &local) || run_pass(a_slurm, env.v, out_slurm, &slurm))
			return 1;
		if (local.passed != OPS || slurm.passed != OPS) {
			fprintf(stderr, "bench: not every op passed (local %zu/%d, slurm %zu/%d); see %s\n", local.passed,
				OPS, slurm.passed, OPS, sb.root);
			return 1;
		}
		m_local[r] = local.makespan_s;
		m_slurm[r] = slurm.makespan_s;
		w_local[r] = local.wall_sum_s / OPS;
		w_slurm[r] = slurm.wall_sum_s / OPS;
		free(out_local);
		free(out_slurm);
	}
	ml = bench_median(m_local, (size_t)reps);
	ms = bench_median(m_slurm, (size_t)reps);
	per_op = (ms - ml) / ((double)OPS / GPUS);
	printf("zlbench slurm benchmark: %d fixture ops sleeping %.2f s each on %d GPUs (fake; one-node Slurm of\n"
	       "scripts/slurm-up.sh), median of %d alternating passes per launcher\n", OPS, duration, GPUS, reps);
	printf("op = one `zlbench run` (sleep + interpreter, plugins, preflight); every run shares this machine's CPUs\n");
	printf("%-44s %15s %15s\n", "launcher", "makespan", "mean op wall");
	printf("%-44s %13.2f s %13.2f s\n", "local (--devices 0,1,2,3)", ml, bench_median(w_local, (size_t)reps));
	printf("%-44s %13.2f s %13.2f s\n", "slurm (--launcher slurm, one job array)", ms,
	       bench_median(w_slurm, (size_t)reps));
	printf("%-44s %15s %15s %7s\n", "metric", "goal", "measured", "ratio");
	/* negative: Slurm was faster this time (the machine's noise is larger than Slurm's cost) */
	bench_row("scheduling overhead per op (slurm - local)", 1.0, per_op, "s");
	bench_sandbox_release(&sb);
	free(m_local);
	free(m_slurm);
	free(w_local);
	free(w_slurm);
	strvec_clear(&env);
	strbuf_release(&ops);
	strbuf_release(&err);
	strbuf_release(&why);
	return 0;
}
