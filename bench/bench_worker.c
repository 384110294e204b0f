/*
 * Batch start-up figures, fresh against worker, side by side:
 *   a batch of fixture ops whose conftest imports a module that sleeps HEAVY_S seconds
 *   (a stand-in for torch + flag_gems) on 2 stand-in devices, once with --start fresh
 *   and once with --start worker; goal (issue 15): makespan <= one import per device
 *   + the ops' own time x 1.15 + 0.3 s per op, per device (the ops a device ran, from
 *   ops_status.csv), the largest device's bound being the batch's.
 * The ops live in a generated FlagGems-shaped tree in /tmp whose tests sleep a seeded
 * duration; base, consts, shapes and src/ are the bundled demo's (symlinks), the conftest
 * is the demo's with the heavy import put in front.
 * usage: bench_worker ZLBENCH [OPS] [HEAVY_S]   (use a build without sanitizers)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "zlbench/batch.h"
#include "zlbench/child.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"

#define DEVICES 2
#define SEED 20261201u

static double next_duration(unsigned long long *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return 0.2 + 0.8 * (double)(*x >> 11) / 9007199254740992.0;
}

static int write_file(const char *dir, const char *name, const char *text, struct strbuf *err)
{
	char *path = zl_path_join(dir, name);
	int rc = zl_write_file_atomic(path, text, strlen(text), err);

	free(path);
	return rc;
}

static int make_tree(const char *root, int nops, double heavy_s, double *dur, struct strbuf *ops,
		     struct strbuf *err)
{
	struct strbuf conftest = STRBUF_INIT, text = STRBUF_INIT;
	unsigned long long x = SEED;
	char *bench = zl_path_join(root, "benchmark"), *demo_conftest;
	int i, rc = -1;

	/* the demo's conftest, behind an import that costs what torch and flag_gems do (a sleep) */
	if (bench_link_demo(root, 0, err))
		goto out;
	strbuf_addf(&text, "import time\n\ntime.sleep(%.3f)\n", heavy_s);
	if (write_file(root, "zl_bench_heavy.py", text.buf, err))
		goto out;
	demo_conftest = xstrfmt("%s/examples/demo/benchmark/conftest.py", ZL_SOURCE_DIR);
	if (strbuf_read_file(&conftest, demo_conftest) < 0) {
		zl_error(err, "cannot read '%s': %s", demo_conftest, strerror(errno));
		free(demo_conftest);
		goto out;
	}
	free(demo_conftest);
	strbuf_reset(&text);
	strbuf_addf(&text, "import zl_bench_heavy  # noqa: F401\n%s", conftest.buf);
	if (write_file(bench, "conftest.py", text.buf, err))
		goto out;
	for (i = 0; i < nops; i++)
		dur[i] = (double)(long)(next_duration(&x) * 100) / 100;
	rc = bench_write_sleep_ops(root, "wop", nops, dur, ops, err);
out:
	free(bench);
	strbuf_release(&conftest);
	strbuf_release(&text);
	return rc;
}

struct pass {
	double makespan_s;
	int exit_code;
	size_t rows;
	double sleep_s[DEVICES];   /* seeded sleeps of the ops each device ran */
	int ops[DEVICES];
	double wall_s[DEVICES];    /* the ops' wall times (the `zlbench run` children) */
	double duration_s;         /* the ops' duration_s: from handing pytest over to its end */
	long reused;               /* ops that ran in a worker */
};

static int run_batch(const char *const *argv, const char *const *env, struct pass *p)
{
	struct bench_sample s;

	if (bench_run(argv, env, &s))
		return -1;
	p->makespan_s = s.wall_ms / 1000.0;
	p->exit_code = s.exit_code;
	return 0;
}

static int read_rows(const char *batch_dir, const double *dur, int nops, struct pass *p)
{
	char *path = zl_path_join(batch_dir, ZL_BATCH_STATUS_FILE);
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct zl_batch_rows rows = ZL_BATCH_ROWS_INIT;
	size_t i, complete;
	int rc = -1;

	if (strbuf_read_file(&text, path) > 0 && !zl_batch_rows_parse(text.buf, text.len, &rows, &complete, &err)) {
		for (i = 0; i < rows.nr; i++) {
			const struct zl_batch_row *r = &rows.v[i];
			long k, d;

			if (!r->v[ZL_BCOL_OP] || !zl_starts_with(r->v[ZL_BCOL_OP], "wop") ||
			    zl_parse_long(r->v[ZL_BCOL_OP] + 3, &k) || k < 0 || k >= nops || !r->v[ZL_BCOL_DEVICE] ||
			    zl_parse_long(r->v[ZL_BCOL_DEVICE], &d) || d < 0 || d >= DEVICES)
				continue;
			p->sleep_s[d] += dur[k];
			p->ops[d]++;
			p->wall_s[d] += r->v[ZL_BCOL_WALL_S] ? strtod(r->v[ZL_BCOL_WALL_S], NULL) : 0;
			p->duration_s += r->v[ZL_BCOL_DURATION_S] ? strtod(r->v[ZL_BCOL_DURATION_S], NULL) : 0;
			p->reused += r->v[ZL_BCOL_START] && !strcmp(r->v[ZL_BCOL_START], "reused");
		}
		p->rows = rows.nr;
		rc = 0;
	}
	zl_batch_rows_release(&rows);
	strbuf_release(&text);
	strbuf_release(&err);
	free(path);
	return rc;
}

/* The bound: the device whose import + 1.15 x its ops' sleeps + 0.3 s per op is largest. */
static double goal_s(const struct pass *p, double heavy_s)
{
	double worst = 0;
	int d;

	for (d = 0; d < DEVICES; d++) {
		double b = heavy_s + 1.15 * p->sleep_s[d] + 0.3 * p->ops[d];

		if (b > worst)
			worst = b;
	}
	return worst;
}

int main(int argc, char **argv)
{
	int nops = argc > 2 ? atoi(argv[2]) : 16, i;
	double heavy_s = argc > 3 ? atof(argv[3]) : 3.0, sum = 0;
	struct strbuf err = STRBUF_INIT, ops = STRBUF_INIT;
	struct pass pass[2];
	struct bench_sandbox sb;
	double *dur;
	static const char *const modes[2] = { "fresh", "worker" };

	if (argc < 2 || nops < 2 || heavy_s < 0) {
		fprintf(stderr, "usage: bench_worker ZLBENCH [OPS] [HEAVY_S]\n");
		return 2;
	}
	dur = xcalloc((size_t)nops, sizeof(*dur));
	memset(pass, 0, sizeof(pass));
	if (bench_sandbox_init(&sb, "zl-bench-worker-", &err)) {
		fprintf(stderr, "bench: %s\n", err.buf);
		return 1;
	}
	if (make_tree(sb.tree, nops, heavy_s, dur, &ops, &err)) {
		fprintf(stderr, "bench: cannot build the tree: %s\n", err.buf);
		return 1;
	}
	for (i = 0; i < nops; i++)
		sum += dur[i];
	for (i = 0; i < 2; i++) {
		char *out = xstrfmt("%s/batch-%s", sb.root, modes[i]);
		/* the list order on both passes: no history */
		/* bytecode caches on, as users have them: both modes import the plugins every op or session */
		const char *env[] = { sb.env[0], sb.env[1], sb.env[2], sb.env[3], "PATH=/usr/bin:/bin", "NO_COLOR=1", "ZL_NO_HISTORY=1",
				      "ZL_RUNS_DIR", "ZL_START", "CUDA_VISIBLE_DEVICES", "PYTHONDONTWRITEBYTECODE", NULL };
		const char *args[] = { argv[1], "batch", "--backend", "cuda", "--devices", "0,1", "--start", modes[i],
				       "--flaggems-dir", sb.tree, "--python", "/usr/bin/python3", "--ops", ops.buf,
				       "--out", out, "--progress", "none", NULL };

		if (run_batch(args, env, &pass[i]) || read_rows(out, dur, nops, &pass[i]) || pass[i].exit_code ||
		    pass[i].rows != (size_t)nops) {
			fprintf(stderr, "bench: the %s batch failed (exit %d, %zu rows); see %s\n", modes[i],
				pass[i].exit_code, pass[i].rows, out);
			return 1;
		}
		free(out);
	}
	printf("zlbench batch start-up benchmark: %d fixture ops, seeded sleeps 0.2..1.0 s (sum %.1f s), "
	       "a %.1f s import, %d stand-in devices\n", nops, sum, heavy_s, DEVICES);
	printf("goal per device: one import + 1.15 x its ops' sleeps + 0.3 s per op; the batch's is the largest\n");
	printf("%-44s %15s %15s %7s\n", "metric", "goal", "measured", "ratio");
	for (i = 0; i < 2; i++) {
		char label[80];
		double walls = pass[i].wall_s[0] + pass[i].wall_s[1];

		snprintf(label, sizeof(label), "makespan, --start %s", modes[i]);
		bench_row(label, goal_s(&pass[i], heavy_s), pass[i].makespan_s, "s");
		printf("%-44s %15s %10.2f s    (wall - seeded sleep, %ld of %d ops in a worker)\n",
		       "  op overhead per op (mean)", "-", (walls - sum) / nops, pass[i].reused, nops);
		printf("%-44s %15s %10.2f s    (wall - duration_s: preflight, identity, summary)\n",
		       "    of which zlbench run's own", "-", (walls - pass[i].duration_s) / nops);
		printf("%-44s %15s %10.2f s    (duration_s - seeded sleep: interpreter or session)\n",
		       "    of which pytest's start and end", "-", (pass[i].duration_s - sum) / nops);
	}
	printf("%-44s %15s %10.2f x\n", "makespan fresh / worker", "-", pass[0].makespan_s / pass[1].makespan_s);
	{
		/* a loaded host stretches every figure above: say how loaded it was */
		double load[3];

		if (getloadavg(load, 3) == 3)
			printf("load average at the end: %.1f %.1f %.1f on %ld CPUs\n", load[0], load[1], load[2],
			       sysconf(_SC_NPROCESSORS_ONLN));
	}
	bench_sandbox_release(&sb);
	free(dur);
	strbuf_release(&ops);
	strbuf_release(&err);
	return 0;
}
