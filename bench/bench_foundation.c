/*
 * Foundation figures, side by side in one run:
 *   preflight failure time on a missing FlagGems dir   (goal <= 5 ms median)
 *     the same with a slow vendor query tool on PATH  (goal <= 5 ms: device enumeration
 *     comes after the cheap checks, so the tool is never started)
 *   marker-scan resolution over a generated 722-file tree (goal <= 20 ms median)
 *   an unknown operator refused over that tree: every file read for the marks, the
 *     nearest file's marks and the did-you-mean (goal <= 50 ms median; issue 26)
 *   peak RSS of zlbench over those runs                (goal <= 8 MiB)
 * usage: bench_foundation ZLBENCH [RUNS]   (use a build without sanitizers)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_util.h"
#include "zlbench/child.h"
#include "zlbench/fsutil.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"

#define NFILES 722
/* the files that carry @pytest.mark.target_op, which the marker scan must find, and only them */
static const int targets[] = { 100, 400, 700 };

/* benchmark/[subN/]test_op<i>.py, relative to the tree's root; caller frees */
static char *file_rel(int i)
{
	return i % 4 ? xstrfmt("benchmark/test_op%d.py", i) : xstrfmt("benchmark/sub%d/test_op%d.py", i % 16, i);
}

static int is_target(int i)
{
	size_t k;

	for (k = 0; k < ZL_ARRAY_SIZE(targets); k++)
		if (targets[k] == i)
			return 1;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The dry-run's "nodes (marker scan):" list must be exactly the target files: a fast
 * scan that finds the wrong files (or the same file twice) is no result.
 */
static int check_scan(const char *const *argv, const char *const *env, size_t *found)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct strvec got = STRVEC_INIT, want = STRVEC_INIT, lines = STRVEC_INIT;
	size_t i;
	int code = 0, in = 0, ok;

	if (zl_capture(argv, env, 60, &out, &code, &err) || code) {
		fprintf(stderr, "bench: the marker-scan dry-run failed (exit %d): %s%s\n", code, err.buf, out.buf);
		strbuf_release(&out);
		strbuf_release(&err);
		return -1;
	}
	strvec_split(&lines, out.buf, '\n');
	for (i = 0; i < lines.nr; i++) {
		if (!strcmp(lines.v[i], "nodes (marker scan):"))
			in = 1;
		else if (in && zl_starts_with(lines.v[i], "benchmark/"))
			strvec_push(&got, lines.v[i]);
		else if (in)
			in = 0;
	}
	for (i = 0; i < ZL_ARRAY_SIZE(targets); i++) {
		char *rel = file_rel(targets[i]);
		strvec_push(&want, rel);
		free(rel);
	}
	qsort(got.v, got.nr, sizeof(*got.v), cmp_str);
	qsort(want.v, want.nr, sizeof(*want.v), cmp_str);
	*found = got.nr;
	ok = got.nr == want.nr;
	for (i = 0; ok && i < got.nr; i++)
		ok = !strcmp(got.v[i], want.v[i]);
	if (!ok) {
		fprintf(stderr, "bench: the marker scan found %zu file(s), not the %zu targets:\n%s", got.nr, want.nr,
			out.buf);
	}
	strvec_clear(&got);
	strvec_clear(&want);
	strvec_clear(&lines);
	strbuf_release(&out);
	strbuf_release(&err);
	return ok ? 0 : -1;
}

/* The refusal timed must be the whole one: the own file's marks and the --op-file that runs it. */
static int check_refusal(const char *const *argv, const char *const *env)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	int code = 0, ok;

	ok = !zl_capture(argv, env, 60, &out, &code, &err) && code == 3 &&
	     strstr(out.buf, "benchmark/test_op5.py has no mark 'op5' (its marks: op5_v0, op5_v1,") &&
	     strstr(out.buf, "did you mean: op5_v0") && strstr(out.buf, "--op-file benchmark/test_op5.py");
	if (!ok)
		fprintf(stderr, "bench: the unknown op's refusal (exit %d) is not the whole one: %s%s\n", code,
			err.buf, out.buf);
	strbuf_release(&out);
	strbuf_release(&err);
	return ok ? 0 : -1;
}

static int make_tree(const char *root)
{
	struct strbuf err = STRBUF_INIT, body = STRBUF_INIT;
	char *bench = zl_path_join(root, "benchmark");
	int i;

	if (zl_mkdir_p(bench, &err))
		goto fail;
	{
		char *conf = zl_path_join(bench, "conftest.py");
		const char *text = "def pytest_addoption(parser):\n    parser.addoption('--level')\n";
		if (zl_write_file_atomic(conf, text, strlen(text), &err)) {
			free(conf);
			goto fail;
		}
		free(conf);
	}
	for (i = 0; i < NFILES; i++) {
		char *rel = file_rel(i);
		char *path = zl_path_join(root, rel);
		char *dir = xstrndup(path, (size_t)(strrchr(path, '/') - path));
		int j;

		free(rel);

		strbuf_reset(&body);
		strbuf_addstr(&body, "import pytest\nimport torch\n\nfrom .performance_utils import GenericBenchmark\n\n");
		/* real FlagGems files run 2-6 KiB with several marked tests */
		for (j = 0; j < 6; j++)
			strbuf_addf(&body,
				    "@pytest.mark.op%d_v%d\ndef test_op%d_v%d():\n    bench = GenericBenchmark(op_name=\"op%d\", torch_op=torch.abs,\n"
				    "                             dtypes=[torch.float16, torch.float32, torch.bfloat16])\n    bench.run()\n\n",
				    i, j, i, j, i);
		if (is_target(i))
			strbuf_addstr(&body, "@pytest.mark.target_op\ndef test_target():\n    pass\n");
		if (zl_mkdir_p(dir, &err) || zl_write_file_atomic(path, body.buf, body.len, &err)) {
			free(dir);
			free(path);
			goto fail;
		}
		free(dir);
		free(path);
	}
	free(bench);
	strbuf_release(&body);
	return 0;
fail:
	fprintf(stderr, "bench: %s\n", err.buf);
	free(bench);
	strbuf_release(&err);
	strbuf_release(&body);
	return -1;
}

int main(int argc, char **argv)
{
	const char *zl;
	int runs = argc > 2 ? atoi(argv[2]) : 41, i;
	double *miss, *miss_tool, *scan, *floor_ms, *refuse;
	long maxrss = 0;
	size_t found = 0;
	char *root = NULL, *tool_dir, *tool, *tool_path;
	struct strbuf err = STRBUF_INIT;
	const char *env[] = { "ZL_DEV_ROOT=/nonexistent-dev", "PATH=/usr/bin:/bin", NULL };
	const char *tool_env[] = { "ZL_DEV_ROOT=/nonexistent-dev", NULL, NULL };
	/* a vendor tool that would cost 2 s (and say so) if preflight started it */
	const char tool_text[] = "#!/bin/sh\necho ran >\"$0.ran\"\nsleep 2\n";

	if (argc < 2) {
		fprintf(stderr, "usage: bench_foundation ZLBENCH [RUNS]\n");
		return 2;
	}
	zl = argv[1];
	if (runs < 1)
		runs = 1;
	miss = xcalloc((size_t)runs, sizeof(*miss));
	miss_tool = xcalloc((size_t)runs, sizeof(*miss_tool));
	scan = xcalloc((size_t)runs, sizeof(*scan));
	floor_ms = xcalloc((size_t)runs, sizeof(*floor_ms));
	refuse = xcalloc((size_t)runs, sizeof(*refuse));
	if (zl_mkdtemp_in("/tmp", "zl-bench-tree-", &root, &err) || make_tree(root)) {
		fprintf(stderr, "bench: cannot build the tree: %s\n", err.buf);
		return 1;
	}
	tool_dir = zl_path_join(root, "bin");
	tool = zl_path_join(tool_dir, "nvidia-smi");
	tool_path = xstrfmt("PATH=%s:/usr/bin:/bin", tool_dir);
	tool_env[1] = tool_path;
	if (zl_mkdir_p(tool_dir, &err) || zl_write_file_atomic(tool, tool_text, strlen(tool_text), &err) ||
	    chmod(tool, 0755)) {
		fprintf(stderr, "bench: cannot make the fake query tool: %s\n", err.len ? err.buf : strerror(errno));
		return 1;
	}
	{
		const char *a2[] = { zl, "run", "--backend", "cuda", "--flaggems-dir", root, "--op", "target_op",
				     "--dry-run", "--python", "/bin/sh", NULL };

		const char *a4[] = { zl, "run", "--backend", "cuda", "--flaggems-dir", root, "--op", "op5",
				     "--dry-run", "--python", "/bin/sh", NULL };

		if (check_scan(a2, env, &found) || check_refusal(a4, env))
			return 1;
	}
	for (i = 0; i < runs; i++) {
		const char *a1[] = { zl, "run", "--backend", "cuda", "--flaggems-dir", "/nonexistent/FlagGems",
				     "--op", "mm", NULL };
		const char *a2[] = { zl, "run", "--backend", "cuda", "--flaggems-dir", root, "--op", "target_op",
				     "--dry-run", "--python", "/bin/sh", NULL };
		/* benchmark/test_op5.py carries op5_v0..op5_v5, not op5: refused with its marks */
		const char *a4[] = { zl, "run", "--backend", "cuda", "--flaggems-dir", root, "--op", "op5",
				     "--dry-run", "--python", "/bin/sh", NULL };
		const char *a0[] = { "/bin/true", NULL };
		struct bench_sample s0, s1, s2, s3, s4;

		if (bench_run(a0, env, &s0) || bench_run(a1, env, &s1) || bench_run(a2, env, &s2) ||
		    bench_run(a1, tool_env, &s3) || bench_run(a4, env, &s4))
			return 1;
		floor_ms[i] = s0.wall_ms;
		if (s1.exit_code != 3 || s2.exit_code != 0 || s3.exit_code != 3 || s4.exit_code != 3) {
			fprintf(stderr, "bench: unexpected exit codes %d (want 3), %d (want 0), %d and %d (want 3)\n",
				s1.exit_code, s2.exit_code, s3.exit_code, s4.exit_code);
			return 1;
		}
		refuse[i] = s4.wall_ms;
		if (s4.maxrss_kib > maxrss)
			maxrss = s4.maxrss_kib;
		miss[i] = s1.wall_ms;
		miss_tool[i] = s3.wall_ms;
		if (s3.maxrss_kib > maxrss)
			maxrss = s3.maxrss_kib;
		scan[i] = s2.wall_ms;
		if (s1.maxrss_kib > maxrss)
			maxrss = s1.maxrss_kib;
		if (s2.maxrss_kib > maxrss)
			maxrss = s2.maxrss_kib;
	}
	printf("zlbench foundation benchmark: %d runs each, %d generated benchmark files\n", runs, NFILES);
	/* the columns of bench_row(): metric, goal and measured as "%10.2f %-4s", ratio, verdict */
	printf("%-44s %10s %-4s %10s %-4s %7s\n", "metric", "goal", "", "measured", "", "ratio");
	{
		/* this machine's fork+exec of a trivial program, measured the same way, for scale */
		double fl = bench_median(floor_ms, (size_t)runs);
		double m = bench_median(miss, (size_t)runs), sc = bench_median(scan, (size_t)runs);
		double mt = bench_median(miss_tool, (size_t)runs);

		printf("%-44s %10s %-4s %10.2f ms\n", "spawn floor: /bin/true (median)", "-", "", fl);
		bench_row("preflight fail, no FlagGems dir (median)", 5, m, "ms");
		bench_row("  the same, above the spawn floor", 5, m - fl, "ms");
		bench_row("  with a slow vendor tool on PATH (median)", 5, mt, "ms");
		bench_row("    and above the spawn floor", 5, mt - fl, "ms");
		bench_row("marker scan, 722 files (median)", 20, sc, "ms");
		bench_row("  the same, above the spawn floor", 20, sc - fl, "ms");
		bench_row("unknown op refused, 722 files (median)", 50, bench_median(refuse, (size_t)runs), "ms");
		bench_row("  the same, above the spawn floor", 50, bench_median(refuse, (size_t)runs) - fl, "ms");
	}
	bench_row("peak RSS of zlbench", 8, (double)maxrss / 1024.0, "MiB");
	{
		/* proof that the tool was never started, not only that it was quick */
		char *ran = xstrfmt("%s.ran", tool);
		printf("%-44s %10s %-4s %10s\n", "  vendor tool started by the failing check", "no", "",
		       zl_is_file(ran) ? "YES" : "no");
		printf("%-44s %10zu %-4s %10zu\n", "marker scan: target files found (exactly)", ZL_ARRAY_SIZE(targets),
		       "", found);
		free(ran);
	}
	zl_remove_tree(root, &err);
	free(root);
	free(tool_dir);
	free(tool);
	free(tool_path);
	free(miss);
	free(miss_tool);
	free(scan);
	free(floor_ms);
	free(refuse);
	strbuf_release(&err);
	return 0;
}
