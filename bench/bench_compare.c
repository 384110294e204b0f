/*
 * Verdicts on raw samples (issue 14), side by side in one run. Times are CPU
 * seconds (this process's, or the child's from getrusage): helpers share the
 * 2-core machine, and wall time there measures the neighbours; wall is printed too.
 *   the verdict engine over 10,000 rows x 2,000 samples a side    (goal <= 5 s)
 *   A/A rows called faster/slower, per 10,000, over the rows above  (goal <= 1: the
 *     Mann-Whitney alpha of 1e-4 bounds it; the threshold makes it smaller still)
 *   the same over 100,000 small, noisy A/A rows (9-60 samples, cv 0.2-20 %, 1 % floor)
 *   `zlbench compare --json` on two run directories of 10,000 rows with 2,000 samples
 *     each (about 170 MB of plugins/timer.jsonl each): wall time (goal <= 30 s) and
 *     peak RSS (goal <= 2 GiB; the samples alone are 320 MB as doubles)
 * usage: bench_compare ZLBENCH [ROWS]   (use a build without sanitizers)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_util.h"
#include "zlbench/compare.h"
#include "zlbench/fsutil.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double children_cpu_s(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru))
		return NAN;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static double gauss(uint64_t *st)
{
	double u[2];
	int i;

	for (i = 0; i < 2; i++)
		u[i] = ((double)(zl_splitmix64(st) >> 11) + 0.5) / 9007199254740992.0;
	return sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

static void draw(double *v, size_t n, double center, double cv, uint64_t *st)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = center * exp(cv * gauss(st));
}

/* The engine alone: rows A/A rows of n samples a side; the CPU (and wall) seconds spent in it. */
static double engine_rows(size_t rows, size_t n, double floor_pct, int small, size_t *flagged,
			  double *wall)
{
	size_t cap = small ? 64 : n;
	double *a = xcalloc(cap, sizeof(*a)), *b = xcalloc(cap, sizeof(*b)), spent = 0;
	struct zl_verdict_opts o = ZL_VERDICT_OPTS_INIT;
	struct zl_row_verdict v;
	uint64_t st = 42;
	size_t r;

	o.floor_pct = floor_pct;
	*flagged = 0;
	*wall = 0;
	for (r = 0; r < rows; r++) {
		size_t m = small ? 9 + r % 52 : n;
		double cv = small ? 0.002 + 0.198 * (double)(r % 17) / 16 : 0.002 + 0.05 * (double)(r % 11) / 10;
		double center = 0.001 * (1 + (double)(r % 1000)), t0, w0;

		draw(a, m, center, cv, &st);
		draw(b, m, center, cv, &st);
		t0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		w0 = clock_s(CLOCK_MONOTONIC);
		zl_verdict_samples(a, m, b, m, &o, &v);
		spent += clock_s(CLOCK_PROCESS_CPUTIME_ID) - t0;
		*wall += clock_s(CLOCK_MONOTONIC) - w0;
		*flagged += v.verdict == ZL_VERDICT_FASTER || v.verdict == ZL_VERDICT_SLOWER;
	}
	free(a);
	free(b);
	return spent;
}

static int write_text(const char *path, const struct strbuf *sb)
{
	struct strbuf err = STRBUF_INIT;
	int rc = zl_write_file_atomic(path, sb->buf, sb->len, &err);

	if (rc)
		fprintf(stderr, "bench_compare: %s\n", err.buf);
	strbuf_release(&err);
	return rc;
}

/* A run directory with shapes x 2 rows (torch, gems) of n samples each. */
static int write_run(const char *dir, const char *run_id, size_t shapes, size_t n, uint64_t seed)
{
	struct strbuf res = STRBUF_INIT, tim = STRBUF_INIT, id = STRBUF_INIT, err = STRBUF_INIT;
	double *v = xcalloc(n, sizeof(*v));
	uint64_t st = seed;
	size_t s, i;
	int side, rc = -1;
	char *path = zl_path_join(dir, "plugins");

	if (zl_mkdir_p(path, &err)) {
		fprintf(stderr, "bench_compare: %s\n", err.buf);
		goto out;
	}
	strbuf_addf(&id, "{\"schema_version\": 1, \"run_id\": \"%s\", \"backend\": \"cuda\", \"vendor\": "
		    "\"nvidia\", \"devices\": [{\"name\": \"NVIDIA H200\"}], \"level\": \"core\", \"op\": \"mm\", "
		    "\"timer\": {\"plan\": \"direct\", \"used\": \"direct\"}, \"status\": \"passed\", "
		    "\"flaggems\": {\"commit\": \"bench\"}, \"vendor_guard\": {\"torch_version\": \"2.11.0\"}}",
		    run_id);
	strbuf_addstr(&res, "{\"mm\": {\"details\": [{\"op_name\": \"mm\", \"dtype\": \"torch.float16\", "
		      "\"result\": [");
	for (s = 0; s < shapes; s++) {
		double lat[2] = { 0.002 * (1 + (double)(s % 500)), 0.0021 * (1 + (double)(s % 500)) };

		strbuf_addf(&res, "%s{\"shape_detail\": [[%zu, 64]], \"latency_base\": %.9g, \"latency\": %.9g}",
			    s ? ", " : "", s, lat[0], lat[1]);
		for (side = 0; side < 2; side++) {
			draw(v, n, lat[side], 0.01, &st);
			strbuf_addf(&tim, "{\"op\": \"mm\", \"dtype\": \"torch.float16\", \"shape\": [[%zu, 64]], "
				    "\"side\": \"%s\", \"timer\": \"direct\", \"n_samples\": %zu, \"samples_ms\": [",
				    s, side ? "gems" : "torch", n);
			for (i = 0; i < n; i++)
				strbuf_addf(&tim, "%s%.6g", i ? "," : "", v[i]);
			strbuf_addstr(&tim, "]}\n");
		}
	}
	strbuf_addstr(&res, "]}]}}");
	free(path);
	path = zl_path_join(dir, "run_identity.json");
	if (write_text(path, &id))
		goto out;
	free(path);
	path = zl_path_join(dir, "results.json");
	if (write_text(path, &res))
		goto out;
	free(path);
	path = zl_path_join(dir, "plugins/timer.jsonl");
	if (write_text(path, &tim))
		goto out;
	rc = 0;
out:
	free(path);
	free(v);
	strbuf_release(&res);
	strbuf_release(&tim);
	strbuf_release(&id);
	strbuf_release(&err);
	return rc;
}

int main(int argc, char **argv)
{
	size_t rows = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 10000, flagged, small_flagged;
	struct strbuf err = STRBUF_INIT;
	struct bench_sample sample;
	char *tmp = NULL, *a, *b;
	double spent, wall, cpu0, load[3];
	int rc = 1;

	if (argc < 2 || !rows) {
		fprintf(stderr, "usage: bench_compare ZLBENCH [ROWS]\n");
		return 2;
	}
	spent = engine_rows(rows, 2000, ZL_FIXED_FLOOR_PCT, 0, &flagged, &wall);
	printf("verdicts on raw samples (%zu rows)", rows);
	if (getloadavg(load, 3) == 3)
		printf("; load average %.1f on this machine", load[0]);
	printf("\n%-44s %15s %15s %7s\n", "metric", "goal", "measured", "ratio");
	bench_row("engine, rows x 2,000 samples a side (CPU)", 5, spent, "s");
	printf("  (wall %.2f s)\n", wall);
	/* ten times as many small rows: the rate is near the bound, one row more or less matters */
	engine_rows(10 * rows, 0, 1, 1, &small_flagged, &wall);
	bench_row("A/A flagged per 10,000 rows (2,000 samples)", 1, (double)flagged * 1e4 / (double)rows, "");
	bench_row("A/A flagged per 10,000 rows (9-60, noisy)", 1,
		  (double)small_flagged * 1e4 / (double)(10 * rows), "");

	if (zl_mkdtemp_in(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", "zl-bench-compare-", &tmp, &err)) {
		fprintf(stderr, "bench_compare: %s\n", err.buf);
		goto out;
	}
	a = zl_path_join(tmp, "a");
	b = zl_path_join(tmp, "b");
	if (!write_run(a, "20261129-100000-cuda-mm-aaaaaa", rows / 2, 2000, 1) &&
	    !write_run(b, "20261129-110000-cuda-mm-bbbbbb", rows / 2, 2000, 2)) {
		const char *argv_c[] = { argv[1], "compare", a, b, "--json", NULL };
		const char *env[] = { "ZL_HISTORY_DB=/nonexistent/history.db", NULL };

		cpu0 = children_cpu_s();
		if (!bench_run(argv_c, env, &sample) && sample.exit_code == 0) {
			bench_row("zlbench compare --json, rows x 2,000 (CPU)", 30, children_cpu_s() - cpu0, "s");
			printf("  (wall %.2f s)\n", sample.wall_ms / 1000);
			bench_row("  its peak RSS", 2048, (double)sample.maxrss_kib / 1024, "MiB");
			rc = 0;
		} else {
			fprintf(stderr, "bench_compare: zlbench compare failed (exit %d)\n", sample.exit_code);
		}
	}
	if (zl_remove_tree(tmp, &err))
		fprintf(stderr, "bench_compare: %s\n", err.buf);
	free(a);
	free(b);
out:
	free(tmp);
	strbuf_release(&err);
	return rc;
}
