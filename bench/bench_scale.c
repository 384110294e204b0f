/*
 * Hostile sizes (issue 27): what a large or crafted run costs, goal next to measurement.
 * Times are the child's CPU seconds (the 2-core machine is shared: wall time measures the
 * neighbours; it is printed too).
 *   report --compare of two runs of 100,000 plugins/timer.jsonl lines (50,000 shapes, 20
 *     samples each) against compare --json of the same runs: within 1.5 times (it was
 *     quadratic: a scan per line and per row)
 *   compare --json of two runs whose results.json weighs 177 MB each (FlagGems' own
 *     layout, indent 2): peak RSS at most 3 times the input it reads (A's and B's
 *     results.json together; the ratio to one file is printed beside it)
 *   report --history of 4 runs of S shapes, then of 2S: the time at most 2.5 times as
 *     long (linear doubles it; it was quadratic in shapes)
 * The inputs are generated in a temporary directory and removed.
 * usage: bench_scale ZLBENCH [SHAPES] [RESULTS_MB]   (use a build without sanitizers)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_util.h"
#include "zlbench/compare.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"

static int write_text(const char *dir, const char *name, const struct strbuf *sb)
{
	struct strbuf err = STRBUF_INIT;
	char *path = zl_path_join(dir, name);
	char *parent = xstrdup(path);
	int rc;

	*strrchr(parent, '/') = '\0';
	rc = zl_mkdir_p(parent, &err) || zl_write_file_atomic(path, sb->buf, sb->len, &err);
	if (rc)
		fprintf(stderr, "bench_scale: %s\n", err.buf);
	strbuf_release(&err);
	free(parent);
	free(path);
	return rc;
}

static int write_identity(const char *dir, const char *run_id, const char *started)
{
	struct strbuf id = STRBUF_INIT;
	int rc;

	strbuf_addf(&id, "{\"schema_version\": 1, \"run_id\": \"%s\", \"started_at\": \"%s\", \"backend\": \"cuda\", "
		    "\"vendor\": \"nvidia\", \"devices\": [{\"name\": \"NVIDIA H200\"}], \"level\": \"core\", "
		    "\"op\": \"mm\", \"timer\": {\"plan\": \"direct\", \"used\": \"direct\"}, \"status\": \"passed\", "
		    "\"flaggems\": {\"commit\": \"bench\"}}",
		    run_id, started);
	rc = write_text(dir, "run_identity.json", &id);
	strbuf_release(&id);
	return rc;
}

/*
 * A run of shapes x 2 rows; with samples, a timer.jsonl line per row holding them. The
 * results.json is FlagGems' own layout (json.dump with indent 2, every field of a row).
 */
static int write_run(const char *dir, const char *run_id, const char *started, size_t shapes, size_t samples,
		     double scale, uint64_t seed)
{
	struct strbuf res = STRBUF_INIT, tim = STRBUF_INIT;
	uint64_t st = seed;
	size_t s, i;
	int side, rc = -1;

	strbuf_addstr(&res, "{\n  \"mm\": {\n    \"details\": [\n      {\n        \"op_name\": \"mm\",\n"
		      "        \"dtype\": \"torch.float16\",\n        \"mode\": \"kernel\",\n"
		      "        \"level\": \"core\",\n        \"result\": [");
	for (s = 0; s < shapes; s++) {
		double lat[2] = { 0.002 * (1 + (double)(s % 500)), 0.0021 * scale * (1 + (double)(s % 500)) };

		strbuf_addf(&res, "%s\n          {\n            \"legacy_shape\": null,\n"
			    "            \"shape_detail\": [\n              [\n                %zu,\n"
			    "                384\n              ],\n              [\n                384,\n"
			    "                %zu\n              ]\n            ],\n"
			    "            \"latency_base\": %.17g,\n            \"latency\": %.17g,\n"
			    "            \"gbps_base\": null,\n            \"gbps\": null,\n"
			    "            \"speedup\": %.17g,\n            \"accuracy\": null,\n"
			    "            \"tflops\": %.17g,\n            \"utilization\": null,\n"
			    "            \"compared_speedup\": null,\n            \"error_msg\": null\n          }",
			    s ? "," : "", s, s % 7 + 1, lat[0], lat[1], lat[0] / lat[1], 0.8096417317728881 * scale);
		for (side = 0; samples && side < 2; side++) {
			strbuf_addf(&tim, "{\"op\": \"mm\", \"dtype\": \"torch.float16\", \"shape\": [[%zu, 384], [384, %zu]], "
				    "\"side\": \"%s\", \"timer\": \"direct\", \"n_samples\": %zu, \"samples_ms\": [",
				    s, s % 7 + 1, side ? "gems" : "torch", samples);
			for (i = 0; i < samples; i++) {
				double u = (double)(zl_splitmix64(&st) >> 11) / 9007199254740992.0;

				strbuf_addf(&tim, "%s%.6g", i ? ", " : "", lat[side] * (0.99 + 0.02 * u));
			}
			strbuf_addstr(&tim, "]}\n");
		}
	}
	strbuf_addstr(&res, "\n        ]\n      }\n    ]\n  }\n}\n");
	if (write_identity(dir, run_id, started) || write_text(dir, "results.json", &res) ||
	    (samples && write_text(dir, "plugins/timer.jsonl", &tim)))
		goto out;
	rc = 0;
out:
	strbuf_release(&res);
	strbuf_release(&tim);
	return rc;
}

static off_t file_size(const char *dir, const char *name)
{
	char *path = zl_path_join(dir, name);
	struct stat st;
	off_t n = stat(path, &st) ? 0 : st.st_size;

	free(path);
	return n;
}

/* One command's sample; -1 (said) when it failed. */
static int run(const char *const *argv, const char *const *env, struct bench_sample *s)
{
	if (bench_run(argv, env, s) || s->exit_code) {
		fprintf(stderr, "bench_scale: '%s %s' failed (exit %d)\n", argv[0], argv[1], s->exit_code);
		return -1;
	}
	return 0;
}

static int report_compare(const char *exe, const char *tmp, const char *const *env, size_t shapes)
{
	char *a = zl_path_join(tmp, "t/a"), *b = zl_path_join(tmp, "t/b"), *html = zl_path_join(tmp, "t/r.html");
	const char *cmp[] = { exe, "compare", a, b, "--json", NULL };
	const char *rep[] = { exe, "report", "--compare", a, b, "-o", html, NULL };
	struct bench_sample sc, sr;
	int rc = -1;

	if (write_run(a, "20261129-100000-cuda-mm-aaaaaa", "2026-11-29T10:00:00Z", shapes, 20, 1, 1) ||
	    write_run(b, "20261129-110000-cuda-mm-bbbbbb", "2026-11-29T11:00:00Z", shapes, 20, 1.05, 2) ||
	    run(cmp, env, &sc) || run(rep, env, &sr))
		goto out;
	printf("\nreport --compare at %zu plugins/timer.jsonl lines a run (%zu shapes, 20 samples each)\n",
	       2 * shapes, shapes);
	printf("  compare --json: %.2f s CPU (wall %.2f s, peak %.0f MiB); report --compare: %.2f s CPU "
	       "(wall %.2f s, peak %.0f MiB)\n", sc.cpu_ms / 1000, sc.wall_ms / 1000, (double)sc.maxrss_kib / 1024,
	       sr.cpu_ms / 1000, sr.wall_ms / 1000, (double)sr.maxrss_kib / 1024);
	bench_row("report --compare / compare --json (CPU)", 1.5, sr.cpu_ms / sc.cpu_ms, "x");
	rc = 0;
out:
	free(a);
	free(b);
	free(html);
	return rc;
}

static int compare_memory(const char *exe, const char *tmp, const char *const *env, double mb)
{
	/* 2 rows and about 620 bytes of results.json a shape, as FlagGems writes them */
	size_t shapes = (size_t)(mb * 1e6 / 620);
	char *a = zl_path_join(tmp, "m/a"), *b = zl_path_join(tmp, "m/b");
	const char *cmp[] = { exe, "compare", a, b, "--json", NULL };
	const char *txt[] = { exe, "compare", a, b, NULL };
	struct bench_sample sj, st;
	double in_a, in_b;
	int rc = -1;

	if (write_run(a, "20261129-100000-cuda-mm-aaaaaa", "2026-11-29T10:00:00Z", shapes, 0, 1, 1) ||
	    write_run(b, "20261129-110000-cuda-mm-bbbbbb", "2026-11-29T11:00:00Z", shapes, 0, 1.05, 2) ||
	    run(cmp, env, &sj) || run(txt, env, &st))
		goto out;
	in_a = (double)file_size(a, "results.json") / (1024 * 1024);
	in_b = (double)file_size(b, "results.json") / (1024 * 1024);
	printf("\ncompare of two runs whose results.json weigh %.0f MiB and %.0f MiB (%zu shapes each)\n", in_a, in_b,
	       shapes);
	printf("  --json: %.2f s CPU (wall %.2f s), peak %.0f MiB = %.2f x the input, %.2f x one file\n",
	       sj.cpu_ms / 1000, sj.wall_ms / 1000, (double)sj.maxrss_kib / 1024,
	       (double)sj.maxrss_kib / 1024 / (in_a + in_b), (double)sj.maxrss_kib / 1024 / in_a);
	printf("  text:   %.2f s CPU (wall %.2f s), peak %.0f MiB = %.2f x the input, %.2f x one file\n",
	       st.cpu_ms / 1000, st.wall_ms / 1000, (double)st.maxrss_kib / 1024,
	       (double)st.maxrss_kib / 1024 / (in_a + in_b), (double)st.maxrss_kib / 1024 / in_a);
	bench_row("compare --json peak RSS / input", 3, (double)sj.maxrss_kib / 1024 / (in_a + in_b), "x");
	bench_row("compare (text) peak RSS / input", 3, (double)st.maxrss_kib / 1024 / (in_a + in_b), "x");
	rc = 0;
out:
	free(a);
	free(b);
	return rc;
}

/* report --history of 4 runs of shapes each, in its own history database; its sample. */
static int history_once(const char *exe, const char *tmp, size_t shapes, struct bench_sample *s)
{
	char *dir = xstrfmt("%s/h%zu", tmp, shapes), *db = xstrfmt("ZL_HISTORY_DB=%s/history.db", dir);
	char *html = xstrfmt("%s/h.html", dir);
	const char *env[] = { db, NULL };
	const char *rep[] = { exe, "report", "--history", "--op", "mm", "-o", html, NULL };
	int i, rc = -1;

	for (i = 0; i < 4; i++) {
		char *run_dir = xstrfmt("%s/r%d", dir, i), *id = xstrfmt("2026110%d-100000-cuda-mm-00000%d", i + 1, i);
		char *when = xstrfmt("2026-11-0%dT10:00:00Z", i + 1);
		const char *ing[] = { exe, "history", "--ingest", run_dir, NULL };
		struct bench_sample si;
		int bad = write_run(run_dir, id, when, shapes, 0, 1 + 0.01 * i, (uint64_t)i) || run(ing, env, &si);

		free(run_dir);
		free(id);
		free(when);
		if (bad)
			goto out;
	}
	rc = run(rep, env, s);
out:
	free(dir);
	free(db);
	free(html);
	return rc;
}

static int report_history(const char *exe, const char *tmp, size_t shapes)
{
	struct bench_sample s1, s2;

	if (history_once(exe, tmp, shapes, &s1) || history_once(exe, tmp, 2 * shapes, &s2))
		return -1;
	printf("\nreport --history of 4 runs: %zu shapes %.2f s CPU (wall %.2f s), %zu shapes %.2f s CPU (wall %.2f s)\n",
	       shapes, s1.cpu_ms / 1000, s1.wall_ms / 1000, 2 * shapes, s2.cpu_ms / 1000, s2.wall_ms / 1000);
	bench_row("report --history, 2x shapes / 1x (CPU)", 2.5, s2.cpu_ms / s1.cpu_ms, "x");
	return 0;
}

int main(int argc, char **argv)
{
	size_t shapes = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 50000;
	double mb = argc > 3 ? strtod(argv[3], NULL) : 177;
	const char *env[] = { "ZL_HISTORY_DB=/nonexistent/history.db", NULL };
	struct strbuf err = STRBUF_INIT;
	char *tmp = NULL;
	double load[3];
	int rc = 1;

	if (argc < 2 || !shapes || !(mb > 0)) {
		fprintf(stderr, "usage: bench_scale ZLBENCH [SHAPES] [RESULTS_MB]\n");
		return 2;
	}
	if (zl_mkdtemp_in(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", "zl-bench-scale-", &tmp, &err)) {
		fprintf(stderr, "bench_scale: %s\n", err.buf);
		strbuf_release(&err);
		return 1;
	}
	printf("hostile sizes (issue 27)");
	if (getloadavg(load, 3) == 3)
		printf("; load average %.1f on this machine", load[0]);
	printf("\n%-44s %15s %15s %7s\n", "metric", "goal", "measured", "ratio");
	if (!report_compare(argv[1], tmp, env, shapes) && !compare_memory(argv[1], tmp, env, mb) &&
	    !report_history(argv[1], tmp, shapes / 10))
		rc = 0;
	if (zl_remove_tree(tmp, &err))
		fprintf(stderr, "bench_scale: %s\n", err.buf);
	free(tmp);
	strbuf_release(&err);
	return rc;
}
