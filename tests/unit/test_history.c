#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "zlbench/history.h"
#include "zlbench/runload.h"
#include "zlbench/strbuf.h"
#include "zlbench/table.h"
#include "../fixtures/runs/runfixture.h"

struct fx {
	char *tmp;
	char *db;
};

static int setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));

	f->tmp = fx_tmpdir();
	f->db = zl_path_join(f->tmp, "history.db");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	fx_rmtree(f->tmp);
	free(f->db);
	free(f);
	return 0;
}

/* Write run <tmp>/<run_id> and return its directory (caller frees). */
static char *make_run(struct fx *f, const char *run_id, const char *op, const char *results,
		      const char *backend, const char *started, double duration, const char *status)
{
	char *dir = zl_path_join(f->tmp, run_id);
	cJSON *id = fx_identity(run_id, op);

	fx_set_str(id, "backend", backend);
	fx_set_str(id, "started_at", started);
	fx_set_num(id, "duration_s", duration);
	fx_set_str(id, "status", status);
	fx_write_run(dir, id, results, 1.0, NULL, 0.01, 20);
	cJSON_Delete(id);
	return dir;
}

static long count_rows(const char *db_path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	long n = -1;

	assert_int_equal(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

static void copy_file(const char *from, const char *to)
{
	struct strbuf text = STRBUF_INIT;
	FILE *out;

	assert_true(strbuf_read_file(&text, from) >= 0);
	out = fopen(to, "wb");
	assert_non_null(out);
	assert_int_equal(fwrite(text.buf, 1, text.len, out), text.len);
	assert_int_equal(fclose(out), 0);
	strbuf_release(&text);
}

/* history.db alone holds every committed run: a copy of that one file is a backup. */
static void test_db_file_alone_holds_runs(void **state)
{
	struct fx *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct zl_history *h, *other;
	char *a = make_run(f, "20261129-100000-cuda-mm-aaaaaa", "mm", FX_MM, "cuda",
			   "2026-11-29T10:00:00Z", 236.8, "passed");
	char *b = make_run(f, "20261130-100000-cuda-mm-bbbbbb", "mm", FX_MM, "cuda",
			   "2026-11-30T10:00:00Z", 100, "passed");
	char *copy = zl_path_join(f->tmp, "copy.db"), *copy_wal = xstrfmt("%s-wal", copy);
	char *copy_shm = xstrfmt("%s-shm", copy);

	/* another connection stays open (a batch's other children): no last close to fold */
	assert_int_equal(zl_history_open(f->db, &other, &err), 0);
	assert_int_equal(zl_history_open(f->db, &h, &err), 0);
	assert_int_equal(zl_history_ingest_run(h, a, &err), 0);
	assert_int_equal(zl_history_ingest_run(h, b, &err), 0);
	copy_file(f->db, copy);
	assert_int_equal(count_rows(copy, "SELECT count(*) FROM runs"), 2);
	assert_int_equal(count_rows(copy, "SELECT count(*) FROM results"), 60);
	zl_history_close(h);
	zl_history_close(other);
	assert_int_equal(unlink(copy), 0);
	(void)unlink(copy_wal);
	(void)unlink(copy_shm);
	/* all closed, and opened and closed again without a write: still all there */
	assert_int_equal(zl_history_open(f->db, &h, &err), 0);
	zl_history_close(h);
	copy_file(f->db, copy);
	assert_int_equal(count_rows(copy, "SELECT count(*) FROM runs"), 2);
	free(copy_shm);
	free(copy_wal);
	free(copy);
	free(a);
	free(b);
	strbuf_release(&err);
}

static void test_open_schema(void **state)
{
	struct fx *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct zl_history *h;
	char *wal;

	assert_int_equal(zl_history_open(f->db, &h, &err), 0);
	assert_int_equal(zl_history_schema_version(h), ZL_HISTORY_SCHEMA_VERSION);
	assert_string_equal(zl_history_path(h), f->db);
	zl_history_close(h);
	/* reopening an up-to-date database changes nothing */
	assert_int_equal(zl_history_open(f->db, &h, &err), 0);
	assert_int_equal(zl_history_schema_version(h), ZL_HISTORY_SCHEMA_VERSION);
	wal = xstrfmt("%s-wal", f->db);
	assert_true(zl_is_file(wal));
	free(wal);
	zl_history_close(h);
	assert_int_equal(count_rows(f->db, "SELECT count(*) FROM pragma_table_info('runs')"
				    " WHERE name = 'host'"), 1);
	/* an unopenable path is an error naming it */
	assert_int_equal(zl_history_open("/nonexistent/dir/h.db", &h, &err), -1);
	assert_non_null(strstr(err.buf, "/nonexistent/dir/h.db"));
	assert_null(h);
	strbuf_release(&err);
}

static void test_default_path_uses_zl_home(void **state)
{
	struct fx *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct zl_history *h;
	char *home = zl_path_join(f->tmp, "home/zl");
	char *expect = zl_path_join(home, "history.db");
	char *path;

	assert_int_equal(setenv("ZL_HOME", home, 1), 0);
	path = zl_history_default_path();
	assert_string_equal(path, expect);
	assert_int_equal(zl_history_open(NULL, &h, &err), 0);
	assert_string_equal(zl_history_path(h), expect);
	assert_true(zl_is_file(expect));
	zl_history_close(h);
	free(path);
	/* ZL_HISTORY_DB wins over ZL_HOME for every caller that gives no path */
	free(expect);
	expect = zl_path_join(f->tmp, "elsewhere.db");
	assert_int_equal(setenv("ZL_HISTORY_DB", expect, 1), 0);
	path = zl_history_default_path();
	assert_string_equal(path, expect);
	assert_int_equal(zl_history_open(NULL, &h, &err), 0);
	assert_string_equal(zl_history_path(h), expect);
	assert_true(zl_is_file(expect));
	zl_history_close(h);
	free(path);
	/* ... and an explicit path (--db) wins over ZL_HISTORY_DB */
	path = zl_path_join(f->tmp, "explicit.db");
	assert_int_equal(zl_history_open(path, &h, &err), 0);
	assert_string_equal(zl_history_path(h), path);
	zl_history_close(h);
	free(path);
	/* empty counts as unset */
	assert_int_equal(setenv("ZL_HISTORY_DB", "", 1), 0);
	path = zl_history_default_path();
	assert_non_null(strstr(path, "home/zl/history.db"));
	unsetenv("ZL_HISTORY_DB");
	unsetenv("ZL_HOME");
	free(path);
	free(expect);
	free(home);
	strbuf_release(&err);
}

/* The speedup geomean over the gems rows, computed from the file itself. */
static double file_speedup_geomean(const char *name)
{
	char *path = fx_real(name);
	cJSON *doc = fx_read_json(path), *op_entry, *detail, *row;
	double sum = 0;
	long n = 0;

	cJSON_ArrayForEach(op_entry, doc)
		cJSON_ArrayForEach(detail, cJSON_GetObjectItemCaseSensitive(op_entry, "details"))
			cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(detail, "result")) {
				sum += log(cJSON_GetObjectItemCaseSensitive(row, "speedup")->valuedouble);
				n++;
			}
	cJSON_Delete(doc);
	free(path);
	return exp(sum / (double)n);
}

static void test_ingest_query_idempotent(void **state)
{
	struct fx *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct zl_history_filter filter = ZL_HISTORY_FILTER_INIT;
	struct zl_history_list list = ZL_HISTORY_LIST_INIT;
	struct zl_history *h;
	char *a = make_run(f, "20261129-100000-cuda-mm-aaaaaa", "mm", FX_MM, "cuda",
			   "2026-11-29T10:00:00Z", 236.8, "passed");
	char *b = make_run(f, "20261130-100000-musa-router_gemm-bbbbbb", "router_gemm", FX_ROUTER,
			   "musa", "2026-11-30T10:00:00Z", 107, "passed");
	char *c = make_run(f, "20261201-100000-cuda-mm-cccccc", "mm", NULL, "cuda",
			   "2026-12-01T10:00:00Z", 3, "crashed");
	double expect;

	assert_int_equal(zl_history_open(f->db, &h, &err), 0);
	assert_int_equal(zl_history_ingest_run(h, a, &err), 0);
	assert_int_equal(zl_history_ingest_run(h, b, &err), 0);
	assert_int_equal(zl_history_ingest_run(h, c, &err), 0);
	/* again: replaced, not duplicated */
	assert_int_equal(zl_history_ingest_run(h, a, &err), 0);
	assert_int_equal(zl_history_ingest_run(h, a, &err), 0);
	assert_int_equal(zl_history_query(h, &filter, &list, &err), 0);
	assert_int_equal(list.nr, 3);
	/* newest first */
	assert_string_equal(list.v[0].v[ZL_HCOL_RUN_ID], "20261201-100000-cuda-mm-cccccc");
	assert_string_equal(list.v[2].v[ZL_HCOL_RUN_ID], "20261129-100000-cuda-mm-aaaaaa");
	assert_int_equal(list.v[0].results, 0);
	assert_true(isnan(list.v[0].speedup_geomean));
	assert_string_equal(list.v[0].v[ZL_HCOL_STATUS], "crashed");
	assert_int_equal(list.v[2].results, 30);
	assert_int_equal(list.v[1].results, 20);
	expect = file_speedup_geomean(FX_MM);
	assert_true(fabs(list.v[2].speedup_geomean - expect) < 1e-12 * expect);
	assert_string_equal(list.v[2].v[ZL_HCOL_RUN_DIR], a);
	assert_string_equal(list.v[2].v[ZL_HCOL_DEVICE_NAME], "NVIDIA H200");
	assert_string_equal(list.v[2].v[ZL_HCOL_HOST], "h200-node1");
	assert_true(strtod(list.v[2].v[ZL_HCOL_DURATION_S], NULL) == 236.8);
	assert_int_equal(count_rows(f->db, "SELECT count(*) FROM results"), 50);
	assert_int_equal(count_rows(f->db, "SELECT count(*) FROM results WHERE iqr IS NOT NULL"), 50);
	zl_history_list_release(&list);

	/* filters */
	filter.op = "mm";
	assert_int_equal(zl_history_query(h, &filter, &list, &err), 0);
	assert_int_equal(list.nr, 2);
	zl_history_list_release(&list);
	filter.op = NULL;
	filter.backend = "musa";
	assert_int_equal(zl_history_query(h, &filter, &list, &err), 0);
	assert_int_equal(list.nr, 1);
	assert_string_equal(list.v[0].v[ZL_HCOL_OP], "router_gemm");
	zl_history_list_release(&list);
	filter.backend = NULL;
	filter.since = "2026-11-30";
	assert_int_equal(zl_history_query(h, &filter, &list, &err), 0);
	assert_int_equal(list.nr, 2);
	zl_history_list_release(&list);
	filter.since = NULL;
	filter.limit = 1;
	assert_int_equal(zl_history_query(h, &filter, &list, &err), 0);
	assert_int_equal(list.nr, 1);
	zl_history_list_release(&list);

	zl_history_close(h);
	free(a);
	free(b);
	free(c);
	strbuf_release(&err);
}

static void test_find_run(void **state)
{
	struct fx *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct zl_history *h;
	char *a = make_run(f, "20261129-100000-cuda-mm-aaaaaa", "mm", FX_MM, "cuda",
			   "2026-11-29T10:00:00Z", 236.8, "passed");
	char *b = make_run(f, "20261129-100000-cuda-mm-abbbbb", "mm", FX_MM, "cuda",
			   "2026-11-29T11:00:00Z", 230, "passed");
	char *dir;

	assert_int_equal(zl_history_open(f->db, &h, &err), 0);
	assert_int_equal(zl_history_ingest_run(h, a, &err), 0);
	assert_int_equal(zl_history_ingest_run(h, b, &err), 0);
	assert_int_equal(zl_history_find_run(h, "20261129-100000-cuda-mm-aaaaaa", &dir, &err), 0);
	assert_string_equal(dir, a);
	free(dir);
	assert_int_equal(zl_history_find_run(h, "20261129-100000-cuda-mm-ab", &dir, &err), 0);
	assert_string_equal(dir, b);
	free(dir);
	assert_int_equal(zl_history_find_run(h, "20261129-100000-cuda-mm-a", &dir, &err), -1);
	assert_non_null(strstr(err.buf, "ambiguous"));
	assert_null(dir);
	assert_int_equal(zl_history_find_run(h, "nosuchrun", &dir, &err), -1);
	assert_non_null(strstr(err.buf, "'nosuchrun'"));
	zl_history_close(h);
	free(a);
	free(b);
	strbuf_release(&err);
}

static void test_op_durations(void **state)
{
	struct fx *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct zl_op_durations d = ZL_OP_DURATIONS_INIT;
	struct zl_history *h;
	char *dirs[7];
	size_t i;

	dirs[0] = make_run(f, "r1-mm", "mm", NULL, "cuda", "2026-11-29T10:00:00Z", 200, "passed");
	dirs[1] = make_run(f, "r2-mm", "mm", NULL, "cuda", "2026-11-29T11:00:00Z", 100, "failed");
	dirs[2] = make_run(f, "r3-mm", "mm", NULL, "cuda", "2026-11-29T12:00:00Z", 1, "preflight_failed");
	dirs[3] = make_run(f, "r4-add", "add", NULL, "cuda", "2026-11-29T13:00:00Z", 20, "passed");
	dirs[4] = make_run(f, "r5-softmax", "softmax", NULL, "musa", "2026-11-29T14:00:00Z", 500, "passed");
	{
		/* a comprehensive run of add: ten times the shapes, not a core run's duration */
		cJSON *id = fx_identity("r6-add-comprehensive", "add");

		dirs[5] = zl_path_join(f->tmp, "r6-add-comprehensive");
		fx_set_str(id, "backend", "cuda");
		fx_set_str(id, "level", "comprehensive");
		fx_set_str(id, "started_at", "2026-11-29T15:00:00Z");
		fx_set_num(id, "duration_s", 400);
		fx_set_str(id, "status", "passed");
		fx_write_run(dirs[5], id, NULL, 1.0, NULL, 0.01, 20);
		cJSON_Delete(id);
	}
	{
		/* the timed run of a sharded op: 30 s of its own plus 300 s its shards took */
		cJSON *id = fx_identity("r7-bmm-timed", "bmm"), *w = cJSON_CreateObject();

		dirs[6] = zl_path_join(f->tmp, "r7-bmm-timed");
		fx_set_str(id, "backend", "cuda");
		fx_set_str(id, "level", "core");
		fx_set_str(id, "started_at", "2026-11-29T16:00:00Z");
		fx_set_num(id, "duration_s", 30);
		fx_set_str(id, "status", "passed");
		assert_non_null(w);
		assert_non_null(cJSON_AddStringToObject(w, "role", "timed"));
		assert_non_null(cJSON_AddNumberToObject(w, "shards_duration_s", 300));
		assert_true(cJSON_AddItemToObject(id, "warmup", w));
		fx_write_run(dirs[6], id, NULL, 1.0, NULL, 0.01, 20);
		cJSON_Delete(id);
	}
	assert_int_equal(zl_history_open(f->db, &h, &err), 0);
	for (i = 0; i < 7; i++)
		assert_int_equal(zl_history_ingest_run(h, dirs[i], &err), 0);
	assert_int_equal(zl_history_op_durations(h, "cuda", "core", &d, &err), 0);
	assert_int_equal(d.nr, 3);
	/* longest first: the sharded op counts its shards' time (30 s alone would be last but add) */
	assert_string_equal(d.v[0].op, "bmm");
	assert_true(d.v[0].mean_s == 330);
	assert_string_equal(d.v[1].op, "mm");
	assert_true(d.v[1].mean_s == 150);
	assert_int_equal(d.v[1].runs, 2);
	assert_true(zl_op_durations_get(&d, "add") == 20);
	assert_true(zl_op_durations_get(&d, "softmax") == -1);
	zl_op_durations_release(&d);
	assert_int_equal(zl_history_op_durations(h, "cuda", "comprehensive", &d, &err), 0);
	assert_int_equal(d.nr, 1);
	assert_true(zl_op_durations_get(&d, "add") == 400);
	zl_op_durations_release(&d);
	assert_int_equal(zl_history_op_durations(h, NULL, NULL, &d, &err), 0);
	assert_int_equal(d.nr, 4);
	assert_string_equal(d.v[0].op, "softmax");
	assert_true(zl_op_durations_get(&d, "add") == 210);
	zl_op_durations_release(&d);
	zl_history_close(h);
	for (i = 0; i < 7; i++)
		free(dirs[i]);
	strbuf_release(&err);
}

/* A version-1 database (no host column) is migrated, its rows kept and host filled in. */
static void test_migration_v1_to_v2(void **state)
{
	struct fx *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct zl_history_filter filter = ZL_HISTORY_FILTER_INIT;
	struct zl_history_list list = ZL_HISTORY_LIST_INIT;
	struct zl_history *h;
	sqlite3 *db;

	assert_int_equal(zl_history_open_version(f->db, 1, &h, &err), 0);
	assert_int_equal(zl_history_schema_version(h), 1);
	zl_history_close(h);
	assert_int_equal(count_rows(f->db, "SELECT count(*) FROM pragma_table_info('runs')"
				    " WHERE name = 'host'"), 0);
	assert_int_equal(sqlite3_open(f->db, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "INSERT INTO runs (run_id, started_at, op, status, identity,"
				      " ingested_at) VALUES ('old-run', '2026-01-01T00:00:00Z', 'mm',"
				      " 'passed', '{\"run_id\": \"old-run\", \"host\": \"oldhost\"}',"
				      " '2026-01-01T00:00:00Z');"
				      "INSERT INTO results (run, op, side, latency_ms) VALUES"
				      " (1, 'mm', 'gems', 0.5);", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);

	assert_int_equal(zl_history_open(f->db, &h, &err), 0);
	assert_int_equal(zl_history_schema_version(h), ZL_HISTORY_SCHEMA_VERSION);
	assert_int_equal(zl_history_query(h, &filter, &list, &err), 0);
	assert_int_equal(list.nr, 1);
	assert_string_equal(list.v[0].v[ZL_HCOL_RUN_ID], "old-run");
	assert_string_equal(list.v[0].v[ZL_HCOL_HOST], "oldhost");
	assert_int_equal(list.v[0].results, 1);
	zl_history_list_release(&list);
	zl_history_close(h);
	assert_int_equal(count_rows(f->db, "SELECT count(*) FROM sqlite_master WHERE type = 'index'"
				    " AND name = 'runs_op_started'"), 1);

	/* a database from a newer zlbench is refused, not rewritten */
	assert_int_equal(sqlite3_open(f->db, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(zl_history_open(f->db, &h, &err), -1);
	assert_non_null(strstr(err.buf, "schema version 99"));
	assert_int_equal(count_rows(f->db, "PRAGMA user_version"), 99);
	strbuf_release(&err);
}

static void fill_calibration(struct zl_calibration *cal, const char *commit, const char *created)
{
	zl_calibration_init(cal);
	cal->backend = xstrdup("cuda");
	cal->device_name = xstrdup("NVIDIA H200");
	cal->timer = xstrdup("graph");
	cal->flaggems_commit = xstrdup(commit);
	cal->created_at = created ? xstrdup(created) : NULL;
	cal->runs = 3;
	strvec_push(&cal->ops, "mm");
	strvec_push(&cal->ops, "softmax");
	strvec_push(&cal->run_ids, "r1");
	cal->cls[ZL_SIZE_UNDER_5US].present = 1;
	cal->cls[ZL_SIZE_UNDER_5US].rows = 40;
	cal->cls[ZL_SIZE_UNDER_5US].spread_rel = 0.012;
	cal->cls[ZL_SIZE_UNDER_5US].false_flag[0] = 0.3;
	cal->cls[ZL_SIZE_UNDER_5US].false_flag[1] = 0.05;
	cal->cls[ZL_SIZE_UNDER_5US].false_flag[2] = 0;
	cal->cls[ZL_SIZE_UNDER_5US].floor_pct = 4;
	cal->cls[ZL_SIZE_50_500US].present = 1;
	cal->cls[ZL_SIZE_50_500US].rows = 12;
	cal->cls[ZL_SIZE_50_500US].spread_rel = 0.002;
	cal->cls[ZL_SIZE_50_500US].floor_pct = 1;
}

/* Calibrations: stored per key, the newest found, classes round-trip, bad ones refused. */
static void test_calibrations(void **state)
{
	struct fx *f = *state;
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
	struct zl_calibration cal, got;
	struct zl_history *h;
	long first;

	assert_int_equal(zl_history_open(f->db, &h, &err), 0);
	zl_calibration_init(&got);
	assert_int_equal(zl_history_find_calibration(h, "cuda", "NVIDIA H200", "graph", "ed2508bc", &got, &err), 0);
	fill_calibration(&cal, "ed2508bc", "2026-11-30T10:00:00Z");
	assert_int_equal(zl_history_store_calibration(h, &cal, &err), 0);
	first = cal.id;
	assert_true(first > 0);
	zl_calibration_release(&cal);
	/* a newer one for the same key, and one for another commit */
	fill_calibration(&cal, "ed2508bc", NULL);
	cal.cls[ZL_SIZE_UNDER_5US].floor_pct = 3;
	assert_int_equal(zl_history_store_calibration(h, &cal, &err), 0);
	assert_non_null(cal.created_at);
	assert_true(cal.id > first);
	zl_calibration_release(&cal);
	fill_calibration(&cal, "0badc0de", "2027-01-01T00:00:00Z");
	assert_int_equal(zl_history_store_calibration(h, &cal, &err), 0);
	zl_calibration_release(&cal);

	assert_int_equal(zl_history_find_calibration(h, "cuda", "NVIDIA H200", "graph", "ed2508bc", &got, &err), 1);
	assert_true(got.id == first + 1);
	assert_string_equal(got.flaggems_commit, "ed2508bc");
	assert_int_equal(got.runs, 3);
	assert_int_equal(got.ops.nr, 2);
	assert_string_equal(got.ops.v[1], "softmax");
	assert_string_equal(got.run_ids.v[0], "r1");
	assert_true(got.cls[ZL_SIZE_UNDER_5US].present && got.cls[ZL_SIZE_UNDER_5US].floor_pct == 3);
	assert_int_equal(got.cls[ZL_SIZE_UNDER_5US].rows, 40);
	assert_true(got.cls[ZL_SIZE_UNDER_5US].spread_rel == 0.012);
	assert_true(got.cls[ZL_SIZE_UNDER_5US].false_flag[1] == 0.05);
	assert_false(got.cls[ZL_SIZE_5_50US].present);
	assert_true(got.cls[ZL_SIZE_50_500US].present && got.cls[ZL_SIZE_50_500US].floor_pct == 1);
	assert_true(isnan(got.cls[ZL_SIZE_50_500US].false_flag[0]));
	zl_calibration_describe(&got, &sb);
	assert_non_null(strstr(sb.buf, "(cuda, NVIDIA H200, graph timer, flaggems ed2508bc, "));
	zl_calibration_release(&got);
	/* another device or timer: none */
	assert_int_equal(zl_history_find_calibration(h, "cuda", "NVIDIA H100", "graph", "ed2508bc", &got, &err), 0);
	assert_int_equal(zl_history_find_calibration(h, "cuda", "NVIDIA H200", "direct", "ed2508bc", &got, &err), 0);
	assert_int_equal(zl_history_find_calibration(h, "cuda", "NVIDIA H200", "graph", NULL, &got, &err), 0);

	/* refused, naming the culprit, and nothing stored */
	fill_calibration(&cal, "ed2508bc", NULL);
	cal.cls[ZL_SIZE_50_500US].floor_pct = 0;
	assert_int_equal(zl_history_store_calibration(h, &cal, &err), -1);
	assert_non_null(strstr(err.buf, "calibration class '50-500us': floor 0 is not a positive percentage"));
	strbuf_reset(&err);
	cal.cls[ZL_SIZE_50_500US].floor_pct = 1;
	cal.cls[ZL_SIZE_UNDER_5US].false_flag[0] = 1.5;
	assert_int_equal(zl_history_store_calibration(h, &cal, &err), -1);
	assert_non_null(strstr(err.buf, "'<5us'"));
	strbuf_reset(&err);
	free(cal.timer);
	cal.timer = NULL;
	assert_int_equal(zl_history_store_calibration(h, &cal, &err), -1);
	assert_non_null(strstr(err.buf, "calibration: no timer"));
	zl_calibration_release(&cal);
	zl_history_close(h);
	assert_int_equal(count_rows(f->db, "SELECT count(*) FROM calibrations"), 3);
	assert_int_equal(count_rows(f->db, "SELECT count(*) FROM calibration_classes"), 6);
	strbuf_release(&err);
	strbuf_release(&sb);
}

static void test_size_classes(void **state)
{
	enum zl_size_class c;
	(void)state;

	assert_int_equal(zl_size_class_of(0.0049), ZL_SIZE_UNDER_5US);
	assert_int_equal(zl_size_class_of(0.005), ZL_SIZE_5_50US);
	assert_int_equal(zl_size_class_of(0.0499), ZL_SIZE_5_50US);
	assert_int_equal(zl_size_class_of(0.05), ZL_SIZE_50_500US);
	assert_int_equal(zl_size_class_of(0.5), ZL_SIZE_OVER_500US);
	assert_int_equal(zl_size_class_of(120.0), ZL_SIZE_OVER_500US);
	assert_int_equal(zl_size_class_of(0), ZL_SIZE__COUNT);
	assert_int_equal(zl_size_class_of(NAN), ZL_SIZE__COUNT);
	assert_int_equal(zl_size_class_parse(">=500us", &c), 0);
	assert_int_equal(c, ZL_SIZE_OVER_500US);
	assert_string_equal(zl_size_class_name(ZL_SIZE_5_50US), "5-50us");
	assert_int_equal(zl_size_class_parse("1us", &c), -1);
}

static void test_ingest_not_a_run(void **state)
{
	struct fx *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct zl_history *h;

	assert_int_equal(zl_history_open(f->db, &h, &err), 0);
	assert_int_equal(zl_history_ingest_run(h, f->tmp, &err), -1);
	assert_non_null(strstr(err.buf, "run_identity.json"));
	zl_history_close(h);
	assert_int_equal(count_rows(f->db, "SELECT count(*) FROM runs"), 0);
	strbuf_release(&err);
}

/* N processes ingest different runs into one new database at once: every row arrives. */
#define WRITERS 8
#define RUNS_PER_WRITER 3
static void test_concurrent_ingest(void **state)
{
	struct fx *f = *state;
	char *dirs[WRITERS * RUNS_PER_WRITER];
	pid_t pids[WRITERS];
	int i, j, status;

	for (i = 0; i < WRITERS * RUNS_PER_WRITER; i++) {
		char id[64];
		snprintf(id, sizeof(id), "20261129-1000%02d-cuda-mm-%06d", i, i);
		dirs[i] = make_run(f, id, "mm", FX_MM, "cuda", "2026-11-29T10:00:00Z", 10 + i, "passed");
	}
	for (i = 0; i < WRITERS; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			struct strbuf err = STRBUF_INIT;
			struct zl_history *h;
			int bad = zl_history_open(f->db, &h, &err);

			for (j = 0; !bad && j < RUNS_PER_WRITER; j++)
				bad = zl_history_ingest_run(h, dirs[i * RUNS_PER_WRITER + j], &err);
			if (bad)
				fprintf(stderr, "writer %d: %s\n", i, err.buf);
			zl_history_close(h);
			_exit(bad ? 1 : 0);
		}
	}
	for (i = 0; i < WRITERS; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_int_equal(count_rows(f->db, "SELECT count(*) FROM runs"), WRITERS * RUNS_PER_WRITER);
	assert_int_equal(count_rows(f->db, "SELECT count(*) FROM results"),
			 WRITERS * RUNS_PER_WRITER * 30);
	assert_int_equal(count_rows(f->db, "SELECT count(DISTINCT run) FROM results"),
			 WRITERS * RUNS_PER_WRITER);
	for (i = 0; i < WRITERS * RUNS_PER_WRITER; i++)
		free(dirs[i]);
}

static void test_csv_and_table(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct zl_table t;
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	(void)state;

	zl_csv_field(&sb, "plain", 1);
	zl_csv_field(&sb, "a,b", 0);
	zl_csv_field(&sb, "say \"hi\"", 0);
	zl_csv_field(&sb, "two\nlines", 0);
	zl_csv_field(&sb, NULL, 0);
	zl_csv_field(&sb, " pad", 0);
	zl_csv_end_row(&sb);
	assert_string_equal(sb.buf, "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",,\" pad\"\r\n");
	strbuf_release(&sb);

	zl_table_init(&t, 2, 1ul << 1);
	zl_table_add(&t, "name", ZL_COLOR_NONE);
	zl_table_add(&t, "ms", ZL_COLOR_NONE);
	zl_table_add(&t, "a-long-name", ZL_COLOR_RED);
	zl_table_add(&t, "1.5", ZL_COLOR_GREEN);
	out = open_memstream(&text, &len);
	assert_non_null(out);
	zl_table_print(&t, out, 0);
	fclose(out);
	assert_string_equal(text, "name          ms\na-long-name  1.5\n");
	free(text);
	out = open_memstream(&text, &len);
	zl_table_print(&t, out, 1);
	fclose(out);
	assert_non_null(strstr(text, "\033[31ma-long-name" ZL_COLOR_RESET));
	free(text);
	zl_table_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_path_uses_zl_home, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_query_idempotent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_find_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_op_durations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migration_v1_to_v2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingest_not_a_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_ingest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_db_file_alone_holds_runs, setup, teardown),
		cmocka_unit_test(test_csv_and_table),
		cmocka_unit_test_setup_teardown(test_calibrations, setup, teardown),
		cmocka_unit_test(test_size_classes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
