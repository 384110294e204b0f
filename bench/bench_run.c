/*
 * Driver overhead of `zlbench run`, side by side with the same pytest command run
 * directly (same interpreter, plugins, PYTHONPATH and arguments) on the fixture tree.
 * Goal: overhead <= 30 ms median, or <= 2 % of the run's wall time.
 * usage: bench_run ZLBENCH [RUNS]   (use a build without sanitizers)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "zlbench/fsutil.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"

int main(int argc, char **argv)
{
	const char *zl;
	int runs = argc > 2 ? atoi(argv[2]) : 15, i;
	const char *py = "/usr/bin/python3";
	char *fx = zl_path_join(ZL_SOURCE_DIR, "tests/fixtures/flaggems");
	char *plugins = zl_path_join(ZL_SOURCE_DIR, "plugins");
	char *tmp = NULL;
	struct strbuf err = STRBUF_INIT;
	double *direct, *driven;
	char *pp, *home;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_run ZLBENCH [RUNS]\n");
		return 2;
	}
	zl = argv[1];
	if (runs < 3)
		runs = 3;
	if (zl_mkdtemp_in("/tmp", "zl-bench-run-", &tmp, &err)) {
		fprintf(stderr, "bench: %s\n", err.buf);
		return 1;
	}
	direct = xcalloc((size_t)runs, sizeof(*direct));
	driven = xcalloc((size_t)runs, sizeof(*driven));
	pp = xstrfmt("PYTHONPATH=%s:%s/src", plugins, fx);
	home = xstrfmt("ZL_HOME=%s/home", tmp);
	for (i = 0; i < runs; i++) {
		char *out_dir = xstrfmt("%s/run%d", tmp, i);
		char *out_json = xstrfmt("%s/direct%d", tmp, i);
		char *rundir_env = xstrfmt("ZL_RUN_DIR=%s", out_json);
		char *results = xstrfmt("%s/results.json", out_json);
		const char *zargv[] = { zl, "run", "--backend", "cuda", "--flaggems-dir", fx, "--op", "sleepy",
					"--python", py, "--out", out_dir, NULL };
		/* the child argv and environment zlbench builds (see `zlbench run --dry-run`) */
		const char *dargv[] = { py, "-m", "pytest", "benchmark/test_sleepy.py", "-m", "sleepy",
			"-p", "zl_vendor_guard", "-p", "zl_timer", "-p", "zl_graph_timer", "-p", "zl_foreign_vendor",
			"-p", "zl_autotune", "-p", "zl_skips", "--level", "core", "--mode", "kernel", "--record", "json",
			"--output", results, "-s", NULL };
		const char *zenv[] = { "ZL_DEV_ROOT=/nonexistent-dev", "ZL_FIXTURE_SLEEP=0.2", home,
				       "FLAGGEMS_CACHE_DIR=/tmp/zl-bench-run-fg", "TRITON_CACHE_DIR=/tmp/zl-bench-run-tr", NULL };
		const char *denv[] = { "ZL_FIXTURE_SLEEP=0.2", pp, "PYTHONUNBUFFERED=1", "CUDA_VISIBLE_DEVICES=0",
			"CUDA_DEVICE_ORDER=PCI_BUS_ID", rundir_env, "ZL_BACKEND=cuda", "ZL_EXPECTED_VENDOR=nvidia",
			"ZL_VENDOR_MODULE=_nvidia", "ZL_TIMER_PLAN=graph", "ZL_DIRECT_REPEAT=1", "ZL_AUTOTUNE_MODE=record",
			"FLAGGEMS_CACHE_DIR=/tmp/zl-bench-run-fg", "TRITON_CACHE_DIR=/tmp/zl-bench-run-tr", NULL };
		struct bench_sample a, b;

		if (zl_mkdir_p(out_json, &err) || chdir(fx)) {
			fprintf(stderr, "bench: %s\n", err.buf);
			return 1;
		}
		/* alternate the order so that drift hits both sides alike */
		if (i % 2 ? bench_run(dargv, denv, &a) || bench_run(zargv, zenv, &b)
			  : bench_run(zargv, zenv, &b) || bench_run(dargv, denv, &a))
			return 1;
		if (a.exit_code || b.exit_code) {
			fprintf(stderr, "bench: exit codes direct %d, zlbench %d (want 0)\n", a.exit_code, b.exit_code);
			return 1;
		}
		direct[i] = a.wall_ms;
		driven[i] = b.wall_ms;
		free(out_dir);
		free(out_json);
		free(rundir_env);
		free(results);
	}
	{
		double d = bench_median(direct, (size_t)runs), z = bench_median(driven, (size_t)runs), pd;
		double *diff = xcalloc((size_t)runs, sizeof(*diff));

		/*
		 * The goal is read off the median of the paired differences: each pair ran
		 * back to back, so a host whose speed drifts between pairs (a shared 2-core
		 * machine swings a 0.6 s run by 100 ms) moves both sides of a pair alike.
		 */
		for (i = 0; i < runs; i++)
			diff[i] = driven[i] - direct[i];
		pd = bench_median(diff, (size_t)runs);
		printf("zlbench run vs the same pytest command, %d pairs (fixture op sleepy, 0.2 s)\n", runs);
		printf("%-44s %15s %15s %7s\n", "metric", "goal", "measured", "ratio");
		printf("%-44s %15s %10.2f ms\n", "pytest directly (median)", "-", d);
		printf("%-44s %15s %10.2f ms\n", "zlbench run (median)", "-", z);
		printf("%-44s %15s %10.2f ms\n", "  difference of the medians", "-", z - d);
		bench_row("driver overhead (median of paired differences)", 30, pd, "ms");
		bench_row("driver overhead, share of the run's wall", 2, 100.0 * pd / d, "%");
		free(diff);
	}
	zl_remove_tree(tmp, &err);
	zl_remove_tree("/tmp/zl-bench-run-fg", &err);
	zl_remove_tree("/tmp/zl-bench-run-tr", &err);
	free(tmp);
	free(direct);
	free(driven);
	free(pp);
	free(home);
	free(fx);
	free(plugins);
	strbuf_release(&err);
	return 0;
}
