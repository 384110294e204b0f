/*
 * Report figures, goal next to measurement: `zlbench report` of a 200-op batch (8
 * devices) is written in under 1 s and weighs under 3 MiB.
 *
 * The batch is generated in /tmp: batch.json and ops_status.csv through batch.h,
 * schedule.jsonl through batch_schedule.h, and per op a run directory whose
 * results.json is a real H200 FlagGems result (mm: 15 shapes, router_gemm: 10,
 * alternating) renamed to the op and scaled by a seeded factor, with a
 * plugins/timer.jsonl of this wave's shape (CONTRACTS.md section 1: 200 samples_ms
 * per measurement), so the page has what a real sweep gives it.
 * usage: bench_report ZLBENCH [OPS]   (use a build without sanitizers)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "bench_util.h"
#include "zlbench/batch.h"
#include "zlbench/batch_schedule.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/runload.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"

#define DEVICES 8
#define SAMPLES 200
#define REPEATS 5
#define SEED 20261201u

static double next_unit(unsigned long long *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(*x >> 11) / 9007199254740992.0;
}

static cJSON *read_json(const char *path, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	cJSON *doc = NULL;

	if (strbuf_read_file(&text, path) < 0)
		zl_error(err, "cannot read '%s'", path);
	else if (!(doc = cJSON_ParseWithLength(text.buf, text.len)))
		zl_error(err, "cannot parse '%s'", path);
	strbuf_release(&text);
	return doc;
}

static int write_text(const char *path, const char *text, struct strbuf *err)
{
	return zl_write_file_atomic(path, text, strlen(text), err);
}

/* The op's results.json (the real file renamed and scaled) and its timer.jsonl lines. */
static int write_results(const cJSON *real, const char *real_op, const char *op, const char *dir, double factor,
			 unsigned long long *x, struct strbuf *err)
{
	cJSON *doc = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(real, real_op), 1), *root = cJSON_CreateObject();
	const cJSON *det, *row;
	struct strbuf timer = STRBUF_INIT;
	char *path, *text;
	int rc;

	cJSON_ArrayForEach(det, cJSON_GetObjectItemCaseSensitive(doc, "details")) {
		cJSON_ReplaceItemInObject((cJSON *)det, "op_name", cJSON_CreateString(op));
		cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(det, "result")) {
			const cJSON *lat = cJSON_GetObjectItemCaseSensitive(row, "latency");
			const cJSON *base = cJSON_GetObjectItemCaseSensitive(row, "latency_base");
			double g = cJSON_IsNumber(lat) ? lat->valuedouble * factor : NAN;
			double t = cJSON_IsNumber(base) ? base->valuedouble : NAN;
			struct strbuf shape = STRBUF_INIT;
			int side, k;

			if (isfinite(g)) {
				cJSON_ReplaceItemInObject((cJSON *)row, "latency", cJSON_CreateNumber(g));
				cJSON_ReplaceItemInObject((cJSON *)row, "speedup", cJSON_CreateNumber(t / g));
			}
			zl_json_canonical(&shape, cJSON_GetObjectItemCaseSensitive(row, "shape_detail"));
			for (side = 0; side < 2; side++) {
				double mid = side ? g : t;

				if (!isfinite(mid))
					continue;
				strbuf_addf(&timer, "{\"op\": \"%s\", \"dtype\": \"%s\", \"shape\": %s, \"side\": \"%s\", "
					    "\"plan\": \"profiler\", \"timer\": \"profiler\", \"fallback_reason\": null, "
					    "\"n_samples\": %d, \"median_ms\": %.6g, \"iqr_ms\": %.6g, \"estimate_ms\": %.6g, "
					    "\"estimator\": \"trimmed_mean_0.1\", \"noise_rel\": 0.004, \"noise_target\": 0.005, "
					    "\"stop_reason\": \"noise_target\", \"samples_total\": %d, \"samples_stored\": \"all\", "
					    "\"dropped_throttled\": 0, \"clock_mhz\": {\"min\": 1980, \"median\": 1980, \"max\": 1980, "
					    "\"max_supported\": 1980}, \"clock_source\": \"nvml\", \"samples_ms\": [",
					    op, zl_json_path_string(det, "dtype"), shape.buf, side ? "gems" : "torch", SAMPLES,
					    mid, mid * 0.01, mid, SAMPLES);
				for (k = 0; k < SAMPLES; k++)
					strbuf_addf(&timer, "%s%.6g", k ? ", " : "", mid * (1 + 0.02 * (next_unit(x) - 0.5)));
				strbuf_addstr(&timer, "]}\n");
			}
			strbuf_release(&shape);
		}
	}
	cJSON_AddItemToObject(root, op, doc);
	text = cJSON_PrintUnformatted(root);
	path = zl_path_join(dir, "results.json");
	rc = write_text(path, text, err);
	free(path);
	cJSON_free(text);
	cJSON_Delete(root);
	if (!rc) {
		path = zl_path_join(dir, "plugins/timer.jsonl");
		rc = write_text(path, timer.buf, err);
		free(path);
	}
	strbuf_release(&timer);
	return rc;
}

static int write_identity(const char *dir, const char *op, int device, const char *status, double start,
			  double dur, struct strbuf *err)
{
	char started[32], finished[32];
	char *text, *path = zl_path_join(dir, "run_identity.json");
	int rc;

	zl_utc_iso8601(started, start);
	zl_utc_iso8601(finished, start + dur);
	text = xstrfmt(
		"{\"schema_version\": 1, \"run_id\": \"20261201-000000-cuda-%s-b0b0b0\", \"zlbench_version\": \"0.1.0\", "
		"\"started_at\": \"%s\", \"finished_at\": \"%s\", \"duration_s\": %.3f, \"host\": \"h200-node1\", "
		"\"backend\": \"cuda\", \"vendor\": \"nvidia\", \"devices\": [{\"index\": %d, \"name\": \"NVIDIA H200\", "
		"\"uuid\": \"GPU-%d\", \"memory_mib\": 143771, \"driver\": \"580.65\"}], \"devices_verified\": true, "
		"\"level\": \"core\", \"shape_mode\": \"upstream\", \"shape_file\": {\"path\": \"benchmark/core_shapes.yaml\", "
		"\"sha256\": \"5f5f5f5f5f5f5f5f\", \"shapes_for_op\": 5}, \"test_node\": [\"benchmark/test_%s.py\"], "
		"\"op\": \"%s\", \"flaggems_mode\": \"kernel\", \"flaggems\": {\"dir\": \"/opt/FlagGems\", "
		"\"commit\": \"ed2508bc\", \"dirty\": false}, \"python\": {\"version\": \"3.12.3\"}, "
		"\"timer\": {\"plan\": \"profiler\", \"used\": \"profiler\", \"profiler\": 30, \"graph\": 0, \"direct\": 0, "
		"\"fallbacks\": 0, \"noise_target\": 0.005, \"max_time_per_shape_s\": 2, \"clock_mhz\": {\"min\": 1980, "
		"\"median\": 1980, \"max\": 1980, \"max_supported\": 1980}, \"clock_source\": \"nvml\", "
		"\"dropped_throttled\": 0}, \"start\": {\"mode\": \"fresh\", \"ops_before\": 0, \"worker_pid\": null}, "
		"\"autotune\": {\"mode\": \"record\", \"recorded\": 3, \"pinned\": 0, \"missed\": 0}, "
		"\"tuner_cache\": {\"mode\": \"isolated\", \"winners_before\": 0, \"winners_after\": 12}, "
		"\"vendor_guard\": {\"expected\": \"nvidia\", \"detected\": \"nvidia\", \"match\": true, "
		"\"triton_version\": \"3.6.0\", \"torch_version\": \"2.11.0+cu130\"}, \"foreign_vendor\": null, "
		"\"status\": \"%s\", \"exit_code\": %d, \"reason\": null}",
		op, started, finished, dur, device, device, op, op, status, strcmp(status, "passed") ? 1 : 0);
	rc = write_text(path, text, err);
	free(text);
	free(path);
	return rc;
}

static int make_batch(const char *root, int nops, struct strbuf *err)
{
	static const char *const real_names[] = { "mm_core_kernel_h200.results.json",
						  "router_gemm_core_kernel_h200.results.json" };
	static const char *const real_ops[] = { "mm", "router_gemm" };
	struct zl_batch_config c;
	struct zl_batch_status st = { -1, NULL };
	struct zl_batch_rows rows = ZL_BATCH_ROWS_INIT;
	cJSON *real[2] = { NULL, NULL };
	unsigned long long x = SEED;
	double t0 = 1796169600.0, lane_end[DEVICES] = { 0 };
	int i, rc = -1;

	zl_batch_config_init(&c);
	c.dir = xstrdup(root);
	c.created_at = xstrdup("2026-12-01T00:00:00Z");
	c.backend = xstrdup("cuda");
	c.level = xstrdup("core");
	c.flaggems_dir = xstrdup("/opt/FlagGems");
	for (i = 0; i < DEVICES; i++)
		strvec_pushf(&c.devices, "%d", i);
	for (i = 0; i < nops; i++)
		strvec_pushf(&c.ops, "bop%03d", i);
	strvec_push(&c.argv, "batch");
	for (i = 0; i < 2; i++) {
		char *p = xstrfmt("%s/tests/fixtures/flaggems-runs/%s", ZL_SOURCE_DIR, real_names[i]);
		real[i] = read_json(p, err);
		free(p);
		if (!real[i])
			goto out;
	}
	if (zl_mkdir_p(root, err) || zl_batch_config_save(&c, err) || zl_batch_status_open(&st, root, &rows, err))
		goto out;
	for (i = 0; i < nops; i++) {
		struct zl_batch_row r;
		const char *op = c.ops.v[i];
		const char *status = i % 37 == 5 ? "failed" : "passed";
		char *dir = xstrfmt("%s/runs/%s", root, op), *plugins = xstrfmt("%s/plugins", dir), *rel;
		int dev = 0, d;
		double dur = 20 + 160 * next_unit(&x), start;
		struct zl_sched_line l;

		for (d = 1; d < DEVICES; d++)
			if (lane_end[d] < lane_end[dev])
				dev = d;
		start = t0 + lane_end[dev] + 0.2;
		lane_end[dev] += dur + 0.4;
		rc = zl_mkdir_p(plugins, err) || write_identity(dir, op, dev, status, start, dur, err) ||
		     write_results(real[i % 2], real_ops[i % 2], op, dir, 0.6 + next_unit(&x), &x, err);
		free(plugins);
		if (rc) {
			free(dir);
			goto out;
		}
		zl_batch_row_init(&r);
		if (zl_batch_row_from_identity(&r, dir, err)) {
			zl_batch_row_release(&r);
			free(dir);
			rc = -1;
			goto out;
		}
		rel = xstrfmt("runs/%s", op);
		zl_batch_row_set(&r, ZL_BCOL_OP, op);
		zl_batch_row_setf(&r, ZL_BCOL_DEVICE, "%d", dev);
		zl_batch_row_set(&r, ZL_BCOL_RUN_DIR, rel);
		zl_batch_row_set(&r, ZL_BCOL_ATTEMPT, "1");
		zl_batch_row_setf(&r, ZL_BCOL_WALL_S, "%.3f", dur + 0.3);
		l = (struct zl_sched_line){ .op = op, .attempt = 1, .role = "run", .device = c.devices.v[dev],
					    .start_epoch = start, .end_epoch = start + dur + 0.3, .status = status,
					    .exit_code = strcmp(status, "passed") ? 1 : 0, .run_dir = rel, .log = NULL };
		rc = zl_batch_status_append(&st, &r, err) || zl_schedule_append(root, &l, err);
		zl_batch_row_release(&r);
		free(rel);
		free(dir);
		if (rc)
			goto out;
	}
	rc = 0;
out:
	zl_batch_status_close(&st);
	zl_batch_rows_release(&rows);
	zl_batch_config_release(&c);
	cJSON_Delete(real[0]);
	cJSON_Delete(real[1]);
	return rc ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	int nops = argc > 2 ? atoi(argv[2]) : 200, i;
	double wall[REPEATS], cpu[REPEATS], load[3] = { NAN, NAN, NAN };
	char *root = NULL, *batch, *out;
	struct stat sb;
	long rss = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_report ZLBENCH [OPS]\n");
		return 2;
	}
	if (zl_mkdtemp_in("/tmp", "zl-bench-report-", &root, &err)) {
		fprintf(stderr, "bench_report: %s\n", err.buf);
		return 1;
	}
	batch = zl_path_join(root, "batch");
	out = zl_path_join(root, "report.html");
	if (make_batch(batch, nops, &err)) {
		fprintf(stderr, "bench_report: %s\n", err.buf);
		return 1;
	}
	for (i = 0; i < REPEATS; i++) {
		const char *args[] = { argv[1], "-q", "report", batch, "-o", out, NULL };
		struct bench_sample s;

		if (bench_run(args, NULL, &s) || s.exit_code) {
			fprintf(stderr, "bench_report: zlbench report %s failed (exit %d)\n", batch, s.exit_code);
			return 1;
		}
		wall[i] = s.wall_ms;
		cpu[i] = s.cpu_ms;
		if (s.maxrss_kib > rss)
			rss = s.maxrss_kib;
	}
	if (stat(out, &sb)) {
		fprintf(stderr, "bench_report: no page at %s\n", out);
		return 1;
	}
	printf("\nzlbench report of a %d-op batch on %d devices (%d runs, median of %d)\n", nops, DEVICES, nops,
	       REPEATS);
	printf("%-44s %15s %15s %7s\n", "metric", "goal", "measured", "ratio");
	bench_row("report written (wall)", 1000, bench_median(wall, REPEATS), "ms");
	bench_row("report written (CPU: user + system)", 1000, bench_median(cpu, REPEATS), "ms");
	bench_row("page size", 3.0, (double)sb.st_size / (1024.0 * 1024.0), "MiB");
	printf("%-44s %15s %10.1f MiB\n", "peak RSS of zlbench report", "-", (double)rss / 1024.0);
	if (getloadavg(load, 3) == 3)
		printf("load average during the bench: %.1f (wall time on a busy machine includes waiting for a CPU)\n",
		       load[0]);
	if (!getenv("ZL_BENCH_KEEP") && zl_remove_tree(root, &err))
		fprintf(stderr, "bench_report: %s\n", err.buf);
	else if (getenv("ZL_BENCH_KEEP"))
		printf("kept %s\n", root);
	free(root);
	free(batch);
	free(out);
	strbuf_release(&err);
	return 0;
}
