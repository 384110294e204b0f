#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "zlbench/batch.h"
#include "zlbench/batch_costs.h"
#include "zlbench/batch_estimate.h"
#include "zlbench/history.h"
#include "zlbench/fsutil.h"
#include "zlbench/runload.h"
#include "zlbench/shapes.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"

static char *tmpdir(void)
{
	struct strbuf err = STRBUF_INIT;
	char *dir = NULL;

	assert_int_equal(zl_mkdtemp_in("/tmp", "zl-test-batch-", &dir, &err), 0);
	strbuf_release(&err);
	return dir;
}

static void rmtree(char *dir)
{
	struct strbuf err = STRBUF_INIT;

	zl_remove_tree(dir, &err);
	strbuf_release(&err);
	free(dir);
}

static void write_text(const char *path, const char *text)
{
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(zl_write_file_atomic(path, text, strlen(text), &err), 0);
	strbuf_release(&err);
}

static char *fixture_path(const char *rel)
{
	const char *fixtures = getenv("ZL_FIXTURES_DIR");

	return xstrfmt("%s/%s", fixtures ? fixtures : ZL_SOURCE_DIR "/tests/fixtures", rel);
}

/* ---- CSV ------------------------------------------------------------------------ */

static void test_row_roundtrip(void **state)
{
	struct zl_batch_row r;
	struct zl_batch_rows rows = ZL_BATCH_ROWS_INIT;
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	size_t complete = 0, i;
	(void)state;

	zl_batch_row_init(&r);
	zl_batch_row_set(&r, ZL_BCOL_OP, "mm");
	zl_batch_row_set(&r, ZL_BCOL_STATUS, "failed");
	zl_batch_row_set(&r, ZL_BCOL_REASON, "AssertionError: a, \"b\"\nand more");
	zl_batch_row_set(&r, ZL_BCOL_RUN_DIR, " runs/mm ");
	zl_batch_row_render(NULL, &text);
	zl_batch_row_render(&r, &text);
	assert_int_equal(zl_batch_rows_parse(text.buf, text.len, &rows, &complete, &err), 0);
	assert_int_equal(complete, text.len);
	assert_int_equal(rows.nr, 1);
	for (i = 0; i < ZL_BCOL__COUNT; i++) {
		if (r.v[i])
			assert_string_equal(rows.v[0].v[i], r.v[i]);
		else
			assert_null(rows.v[0].v[i]);
	}
	zl_batch_rows_release(&rows);
	zl_batch_row_release(&r);
	strbuf_release(&text);
	strbuf_release(&err);
}

static void test_rows_cut_off_and_columns(void **state)
{
	/* columns by name, an unknown one ignored, a row cut off mid-write not counted */
	const char *text = "status,extra,op\r\npassed,x,mm\r\nfailed,y,\"bmm\r\n\"\r\ninterrupted,z,add";
	struct zl_batch_rows rows = ZL_BATCH_ROWS_INIT;
	struct strbuf err = STRBUF_INIT;
	size_t complete = 0;
	(void)state;

	assert_int_equal(zl_batch_rows_parse(text, strlen(text), &rows, &complete, &err), 0);
	assert_int_equal(rows.nr, 2);
	assert_string_equal(rows.v[0].v[ZL_BCOL_OP], "mm");
	assert_string_equal(rows.v[1].v[ZL_BCOL_OP], "bmm\r\n");
	assert_string_equal(rows.v[1].v[ZL_BCOL_STATUS], "failed");
	assert_int_equal(complete, strlen(text) - strlen("interrupted,z,add"));
	assert_ptr_equal(zl_batch_rows_last(&rows, "mm"), &rows.v[0]);
	assert_null(zl_batch_rows_last(&rows, "add"));
	zl_batch_rows_release(&rows);

	assert_int_equal(zl_batch_rows_parse("op,exit_code\r\nmm,1\r\n", 20, &rows, &complete, &err), -1);
	assert_non_null(strstr(err.buf, "'status'"));
	zl_batch_rows_release(&rows);
	strbuf_release(&err);
}

static void test_status_file(void **state)
{
	char *dir = tmpdir();
	char *path = zl_path_join(dir, ZL_BATCH_STATUS_FILE);
	struct zl_batch_status st;
	struct zl_batch_rows rows = ZL_BATCH_ROWS_INIT;
	struct zl_batch_row r;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	FILE *f;
	size_t complete;
	(void)state;

	zl_batch_row_init(&r);
	assert_int_equal(zl_batch_status_open(&st, dir, &rows, &err), 0);
	assert_int_equal(rows.nr, 0);
	zl_batch_row_set(&r, ZL_BCOL_OP, "mm");
	zl_batch_row_set(&r, ZL_BCOL_STATUS, "passed");
	assert_int_equal(zl_batch_status_append(&st, &r, &err), 0);
	zl_batch_row_set(&r, ZL_BCOL_OP, "bmm");
	assert_int_equal(zl_batch_status_append(&st, &r, &err), 0);
	zl_batch_status_close(&st);

	/* a batch killed in the middle of a row */
	f = fopen(path, "a");
	assert_non_null(f);
	fputs("addmm,pass", f);
	fclose(f);
	assert_int_equal(zl_batch_status_open(&st, dir, &rows, &err), 0);
	assert_int_equal(rows.nr, 2);
	zl_batch_row_set(&r, ZL_BCOL_OP, "addmm");
	zl_batch_row_set(&r, ZL_BCOL_STATUS, "interrupted");
	assert_int_equal(zl_batch_status_append(&st, &r, &err), 0);
	zl_batch_status_close(&st);
	zl_batch_rows_release(&rows);

	assert_true(strbuf_read_file(&text, path) > 0);
	assert_int_equal(zl_batch_rows_parse(text.buf, text.len, &rows, &complete, &err), 0);
	assert_int_equal(rows.nr, 3);
	assert_int_equal(complete, text.len);
	assert_string_equal(rows.v[2].v[ZL_BCOL_OP], "addmm");
	assert_string_equal(rows.v[2].v[ZL_BCOL_STATUS], "interrupted");
	assert_true(zl_starts_with(text.buf, "op,status,exit_code,"));

	zl_batch_rows_release(&rows);
	zl_batch_row_release(&r);
	strbuf_release(&err);
	strbuf_release(&text);
	free(path);
	rmtree(dir);
}

/* mkdir -p dir/rel (a run directory or a log's folder) */
static void make_dir(const char *dir, const char *rel)
{
	struct strbuf err = STRBUF_INIT;
	char *path = zl_path_join(dir, rel);

	assert_int_equal(zl_mkdir_p(path, &err), 0);
	free(path);
	strbuf_release(&err);
}

static int exists(const char *dir, const char *rel)
{
	char *path = zl_path_join(dir, rel);
	int r = access(path, F_OK) == 0;

	free(path);
	return r;
}

static void test_attempts(void **state)
{
	char *dir = tmpdir();
	char *log = zl_path_join(dir, "logs/mm.log");
	struct zl_batch_status st;
	struct zl_batch_rows rows = ZL_BATCH_ROWS_INIT, again = ZL_BATCH_ROWS_INIT;
	struct zl_batch_row r;
	struct zl_batch_attempts a;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	zl_batch_row_init(&r);
	assert_int_equal(zl_batch_status_open(&st, dir, &rows, &err), 0);
	/* nothing yet: attempt 1 */
	zl_batch_attempts_find(dir, "mm", &rows, &a);
	assert_int_equal(a.canonical, 0);
	assert_int_equal(a.next, 1);

	/* attempt 1 ran and was interrupted: it has a row naming the canonical paths */
	make_dir(dir, "runs/mm");
	make_dir(dir, "logs");
	write_text(log, "attempt 1\n");
	zl_batch_row_set(&r, ZL_BCOL_OP, "mm");
	zl_batch_row_set(&r, ZL_BCOL_STATUS, "interrupted");
	zl_batch_row_set(&r, ZL_BCOL_ATTEMPT, "1");
	zl_batch_row_set(&r, ZL_BCOL_RUN_DIR, "runs/mm");
	zl_batch_row_set(&r, ZL_BCOL_LOG, "logs/mm.log");
	assert_int_equal(zl_batch_status_append(&st, &r, &err), 0);
	zl_batch_rows_add(&rows, &r);
	zl_batch_attempts_find(dir, "mm", &rows, &a);
	assert_int_equal(a.canonical, 1);
	assert_int_equal(a.canonical_has_row, 1);
	assert_int_equal(a.next, 2);

	/* it moves aside, and the row follows it; appends still reach the file */
	assert_int_equal(zl_batch_archive_canonical(dir, "mm", a.canonical, &st, &rows, &err), 0);
	assert_false(exists(dir, "runs/mm"));
	assert_true(exists(dir, "runs/mm.attempt1"));
	assert_true(exists(dir, "logs/mm.attempt1.log"));
	assert_string_equal(rows.v[0].v[ZL_BCOL_RUN_DIR], "runs/mm.attempt1");
	zl_batch_row_set(&r, ZL_BCOL_STATUS, "passed");
	zl_batch_row_set(&r, ZL_BCOL_ATTEMPT, "2");
	assert_int_equal(zl_batch_status_append(&st, &r, &err), 0);
	zl_batch_status_close(&st);
	assert_int_equal(zl_batch_status_open(&st, dir, &again, &err), 0);
	assert_int_equal(again.nr, 2);
	assert_string_equal(again.v[0].v[ZL_BCOL_RUN_DIR], "runs/mm.attempt1");
	assert_string_equal(again.v[0].v[ZL_BCOL_LOG], "logs/mm.attempt1.log");
	assert_string_equal(again.v[1].v[ZL_BCOL_STATUS], "passed");
	zl_batch_attempts_find(dir, "mm", &again, &a);
	assert_int_equal(a.next, 3);

	/* canonical paths without a row (a batch killed while it ran): one past every other attempt */
	make_dir(dir, "runs/sum");
	make_dir(dir, "runs/sum.attempt1");
	zl_batch_attempts_find(dir, "sum", &again, &a);
	assert_int_equal(a.canonical, 2);
	assert_int_equal(a.canonical_has_row, 0);
	assert_int_equal(a.next, 3);
	/* an earlier zlbench's layout: runs/<op> was attempt 1, runs/<op>.2 attempt 2 */
	make_dir(dir, "runs/add");
	make_dir(dir, "runs/add.2");
	zl_batch_row_set(&r, ZL_BCOL_OP, "add");
	zl_batch_row_set(&r, ZL_BCOL_STATUS, "interrupted");
	zl_batch_row_set(&r, ZL_BCOL_ATTEMPT, "1");
	zl_batch_row_set(&r, ZL_BCOL_RUN_DIR, "runs/add");
	zl_batch_rows_add(&again, &r);
	zl_batch_row_set(&r, ZL_BCOL_ATTEMPT, "2");
	zl_batch_row_set(&r, ZL_BCOL_RUN_DIR, "runs/add.2");
	zl_batch_rows_add(&again, &r);
	zl_batch_attempts_find(dir, "add", &again, &a);
	assert_int_equal(a.canonical, 1);
	assert_int_equal(a.next, 3);
	/* a batch killed between rewriting the rows and moving the paths: the move is done again */
	make_dir(dir, "runs/cut");
	zl_batch_row_set(&r, ZL_BCOL_OP, "cut");
	zl_batch_row_set(&r, ZL_BCOL_ATTEMPT, "1");
	zl_batch_row_set(&r, ZL_BCOL_RUN_DIR, "runs/cut.attempt1");
	zl_batch_rows_add(&again, &r);
	zl_batch_attempts_find(dir, "cut", &again, &a);
	assert_int_equal(a.canonical, 1);
	assert_int_equal(a.next, 2);
	assert_int_equal(zl_batch_archive_canonical(dir, "cut", a.canonical, &st, &again, &err), 0);
	assert_true(exists(dir, "runs/cut.attempt1"));
	/* an attempt that never started (no row, no paths) gives its number again */
	zl_batch_attempts_find(dir, "bmm", &again, &a);
	assert_int_equal(a.canonical, 0);
	assert_int_equal(a.next, 1);

	zl_batch_status_close(&st);
	zl_batch_rows_release(&rows);
	zl_batch_rows_release(&again);
	zl_batch_row_release(&r);
	strbuf_release(&err);
	free(log);
	rmtree(dir);
}

static void test_status_words(void **state)
{
	(void)state;
	assert_true(zl_batch_status_final("passed", 0));
	assert_true(zl_batch_status_final("failed", 0));
	/* a broken environment: --resume runs the op again once it is fixed */
	assert_false(zl_batch_status_final("preflight_failed", 0));
	assert_false(zl_batch_status_final("preflight_failed", 1));
	assert_true(zl_batch_status_final("timeout", 0));
	assert_true(zl_batch_status_final("crashed", 0));
	assert_false(zl_batch_status_final("interrupted", 0));
	assert_false(zl_batch_status_final("running", 0));
	assert_false(zl_batch_status_final(NULL, 0));
	assert_true(zl_batch_status_final("passed", 1));
	assert_false(zl_batch_status_final("failed", 1));

	assert_string_equal(zl_batch_status_from_exit(0, 0), "passed");
	assert_string_equal(zl_batch_status_from_exit(1, 0), "failed");
	assert_string_equal(zl_batch_status_from_exit(2, 0), "failed");
	assert_string_equal(zl_batch_status_from_exit(3, 0), "preflight_failed");
	assert_string_equal(zl_batch_status_from_exit(124, 0), "timeout");
	assert_string_equal(zl_batch_status_from_exit(137, 0), "crashed");
	assert_string_equal(zl_batch_status_from_exit(130, 1), "interrupted");
	assert_string_equal(zl_batch_status_from_exit(1, 1), "interrupted");
}

static void test_identity_row(void **state)
{
	char *dir = tmpdir();
	char *path = zl_path_join(dir, "run_identity.json");
	struct zl_batch_row r;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	zl_batch_row_init(&r);
	assert_int_equal(zl_batch_row_from_identity(&r, dir, &err), -1);
	assert_non_null(strstr(err.buf, "run_identity.json"));
	write_text(path, "{\"status\":\"failed\",\"exit_code\":1,\"backend\":\"musa\",\"level\":\"core\","
		   "\"timer\":{\"plan\":\"graph\",\"used\":\"direct\"},\"tuner_cache\":{\"mode\":\"isolated\"},"
		   "\"autotune\":{\"mode\":\"replay\"},\"duration_s\":12.5,\"started_at\":\"2026-01-01T00:00:00Z\","
		   "\"finished_at\":null,\"reason\":\"E   AssertionError\\nsecond line\"}");
	assert_int_equal(zl_batch_row_from_identity(&r, dir, &err), 0);
	assert_string_equal(r.v[ZL_BCOL_STATUS], "failed");
	assert_string_equal(r.v[ZL_BCOL_EXIT_CODE], "1");
	assert_string_equal(r.v[ZL_BCOL_BACKEND], "musa");
	assert_string_equal(r.v[ZL_BCOL_TIMER], "direct");
	assert_string_equal(r.v[ZL_BCOL_TUNER_CACHE], "isolated");
	assert_string_equal(r.v[ZL_BCOL_AUTOTUNE], "replay");
	assert_string_equal(r.v[ZL_BCOL_DURATION_S], "12.500");
	assert_null(r.v[ZL_BCOL_FINISHED_AT]);
	assert_string_equal(r.v[ZL_BCOL_REASON], "E   AssertionError");
	zl_batch_row_release(&r);
	strbuf_release(&err);
	free(path);
	rmtree(dir);
}

/* ---- operators and order --------------------------------------------------------- */

static void test_ops(void **state)
{
	struct strvec ops = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	char *dir = tmpdir();
	char *path = zl_path_join(dir, "ops.txt");
	(void)state;

	assert_int_equal(zl_batch_ops_check(&ops, &err), -1);
	assert_non_null(strstr(err.buf, "no operators"));
	zl_batch_ops_add_list(&ops, " mm, bmm ,,addmm");
	write_text(path, "# nightly\nsoftmax   # the slow one\n\n  sum\n");
	assert_int_equal(zl_batch_ops_read_file(&ops, path, &err), 0);
	assert_int_equal(ops.nr, 5);
	assert_string_equal(ops.v[3], "softmax");
	assert_string_equal(ops.v[4], "sum");
	assert_int_equal(zl_batch_ops_check(&ops, &err), 0);
	strvec_push(&ops, "mm");
	strbuf_reset(&err);
	assert_int_equal(zl_batch_ops_check(&ops, &err), -1);
	assert_non_null(strstr(err.buf, "'mm' is listed twice"));
	strvec_pop(&ops);
	strvec_push(&ops, "mm;rm");
	strbuf_reset(&err);
	assert_int_equal(zl_batch_ops_check(&ops, &err), -1);
	assert_non_null(strstr(err.buf, "'mm;rm'"));
	strbuf_reset(&err);
	assert_int_equal(zl_batch_ops_read_file(&ops, "/nonexistent/ops.txt", &err), -1);
	assert_non_null(strstr(err.buf, "/nonexistent/ops.txt"));
	strvec_clear(&ops);
	strbuf_release(&err);
	free(path);
	rmtree(dir);
}

static void test_order(void **state)
{
	double e[5] = { -1, 5, 2, -1, 5 };
	double none[3] = { -1, -1, -1 };
	size_t order[5];
	char *name;
	(void)state;

	/* unknowns take the mean of the known (4 s); ties keep the list order */
	zl_batch_order(e, 5, order);
	assert_int_equal(order[0], 1);
	assert_int_equal(order[1], 4);
	assert_int_equal(order[2], 0);
	assert_int_equal(order[3], 3);
	assert_int_equal(order[4], 2);
	assert_true(e[0] == 4.0 && e[3] == 4.0);
	/* no history: the list order */
	zl_batch_order(none, 3, order);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 1);
	assert_int_equal(order[2], 2);

	name = zl_batch_attempt_name("mm", 1);
	assert_string_equal(name, "mm");
	free(name);
	/* the attempt that runs has the op's own name; an earlier one is kept as mm.attempt<K> */
	name = zl_batch_attempt_name("mm", 3);
	assert_string_equal(name, "mm");
	free(name);
	name = zl_batch_archived_name("mm", 3);
	assert_string_equal(name, "mm.attempt3");
	free(name);
}

static void test_child_argv(void **state)
{
	struct zl_batch_config c;
	struct strvec extra = STRVEC_INIT, argv = STRVEC_INIT;
	(void)state;

	zl_batch_config_init(&c);
	c.backend = xstrdup("musa");
	strvec_push(&c.run_args, "--level=comprehensive");
	strvec_push(&c.run_args, "--shared-tuner-cache");
	strvec_push(&c.passthrough, "--dtypes");
	strvec_push(&c.passthrough, "float16");
	strvec_push(&extra, "--isolate-tuner-cache");
	zl_batch_child_argv(&c, "/bin/zlbench", "mm", "2", "/b/runs/mm", &extra, &argv);
	assert_int_equal(argv.nr, 12);
	assert_string_equal(argv.v[0], "/bin/zlbench");
	assert_string_equal(argv.v[1], "run");
	assert_string_equal(argv.v[2], "--level=comprehensive");
	assert_string_equal(argv.v[4], "--backend=musa");
	assert_string_equal(argv.v[5], "--devices=2");
	assert_string_equal(argv.v[6], "--op=mm");
	assert_string_equal(argv.v[7], "--out=/b/runs/mm");
	/* the shard's flag comes after the batch's, so it wins */
	assert_string_equal(argv.v[8], "--isolate-tuner-cache");
	assert_string_equal(argv.v[9], "--");
	assert_string_equal(argv.v[10], "--dtypes");
	strvec_clear(&argv);
	strvec_clear(&extra);
	zl_batch_config_release(&c);
}

static void test_config_roundtrip(void **state)
{
	char *dir = tmpdir();
	struct zl_batch_config c, back;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	const char *argv[] = { "batch", "--ops", "mm", NULL };
	char *path = zl_path_join(dir, ZL_BATCH_CONFIG_FILE);
	cJSON *doc;
	(void)state;

	zl_batch_config_init(&c);
	zl_batch_config_init(&back);
	c.dir = xstrdup(dir);
	c.created_at = xstrdup("2026-01-01T00:00:00Z");
	c.backend = xstrdup("cuda");
	c.flaggems_dir = xstrdup("/opt/FlagGems");
	c.level = xstrdup("core");
	c.timeout_s = 90;
	c.warmup_devices = 2;
	strvec_split(&c.devices, "0,3", ',');
	strvec_split(&c.ops, "mm,bmm", ',');
	strvec_push(&c.run_args, "--flaggems-dir=/opt/FlagGems");
	strvec_push(&c.warmup_ops, "mm");
	c.ops_all = 1;
	strvec_push(&c.exclude, "addmm");
	assert_int_equal(zl_batch_config_save(&c, &err), 0);
	assert_int_equal(zl_batch_config_add_session(&c, argv, 0, &err), 0);
	assert_int_equal(zl_batch_config_add_session(&c, argv, 1, &err), 0);
	assert_int_equal(zl_batch_config_load(&back, dir, &err), 0);
	assert_string_equal(back.backend, "cuda");
	assert_int_equal(back.devices.nr, 2);
	assert_string_equal(back.devices.v[1], "3");
	assert_int_equal(back.ops.nr, 2);
	assert_string_equal(back.run_args.v[0], "--flaggems-dir=/opt/FlagGems");
	assert_true(back.timeout_s == 90);
	assert_int_equal(back.warmup_devices, 2);
	assert_string_equal(back.warmup_ops.v[0], "mm");
	assert_int_equal(back.ops_all, 1);
	assert_int_equal(back.exclude.nr, 1);
	assert_string_equal(back.exclude.v[0], "addmm");
	assert_null(back.shape_file);
	assert_true(strbuf_read_file(&text, path) > 0);
	doc = cJSON_Parse(text.buf);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "sessions")), 2);
	cJSON_Delete(doc);

	zl_batch_config_release(&back);
	zl_batch_config_init(&back);
	write_text(path, "{\"schema\":\"something else\"}");
	assert_int_equal(zl_batch_config_load(&back, dir, &err), -1);
	assert_non_null(strstr(err.buf, "zlbench.batch/1"));
	zl_batch_config_release(&back);
	zl_batch_config_release(&c);
	strbuf_release(&err);
	strbuf_release(&text);
	free(path);
	rmtree(dir);
}

/* ---- warm-up: shape split ---------------------------------------------------------- */

static void test_split_model_shapes(void **state)
{
	char *dir = tmpdir();
	char *file = fixture_path("flaggems-data/models_shapes_qwen25.yaml");
	struct strvec paths = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT, all = STRBUF_INIT, again = STRBUF_INIT;
	struct zl_shapes_doc *orig = NULL;
	long counts[3] = { 0, 0, 0 };
	char *key = NULL;
	const struct zl_yaml *shapes;
	size_t i;
	int k;
	(void)state;

	k = zl_batch_split_shapes(file, "mm", NULL, 3, dir, &paths, counts, &key, &err);
	assert_int_equal(k, 3);
	assert_string_equal(key, "mm");
	assert_int_equal(counts[0] + counts[1] + counts[2], 20);
	assert_int_equal(counts[0], 7);
	assert_int_equal(counts[2], 6);
	assert_int_equal(zl_shapes_load(file, &orig, &err), 0);
	shapes = zl_yaml_get(zl_yaml_get(orig->root, "mm"), "shapes");
	assert_non_null(shapes);
	/* shape j sits in shard j mod 3, in order: shards re-read give back every shape once */
	for (i = 0; i < 3; i++) {
		struct zl_shapes_doc *d = NULL;
		const struct zl_yaml *s;
		size_t j;

		assert_int_equal(zl_shapes_load(paths.v[i], &d, &err), 0);
		assert_int_equal(zl_shapes_count(d, "mm"), counts[i]);
		s = zl_yaml_get(zl_yaml_get(d->root, "mm"), "shapes");
		for (j = 0; j < s->nr; j++) {
			strbuf_reset(&all);
			strbuf_reset(&again);
			zl_yaml_flow(&all, shapes->items[i + 3 * j]);
			zl_yaml_flow(&again, s->items[j]);
			assert_string_equal(all.buf, again.buf);
		}
		assert_non_null(zl_yaml_get(zl_yaml_get(d->root, "mm"), "shape_desc"));
		zl_shapes_free(d);
	}
	zl_shapes_free(orig);
	strvec_clear(&paths);
	free(key);
	key = NULL;

	/* more shards than shapes: one shape each */
	{
		long many[40];
		char *sub = zl_path_join(dir, "many");

		k = zl_batch_split_shapes(file, "fill_", NULL, 40, sub, &paths, many, &key, &err);
		assert_int_equal(k, 6);
		assert_int_equal(paths.nr, 6);
		assert_int_equal(many[5], 1);
		free(sub);
		strvec_clear(&paths);
		free(key);
		key = NULL;
	}
	assert_int_equal(zl_batch_split_shapes(file, "no_such_op", NULL, 2, dir, &paths, counts, &key, &err), -1);
	assert_non_null(strstr(err.buf, "'no_such_op'"));
	strbuf_release(&err);
	strbuf_release(&all);
	strbuf_release(&again);
	free(file);
	rmtree(dir);
}

static void test_split_by_class(void **state)
{
	char *dir = tmpdir();
	char *file = fixture_path("flaggems-data/core_shapes.yaml");
	const char *const mro[] = { "BlasBenchmark", "Benchmark", NULL };
	struct strvec paths = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	struct zl_shapes_doc *orig = NULL, *d = NULL;
	struct zl_shapes_entry e;
	long counts[2];
	char *key = NULL;
	int k;
	(void)state;

	/* mm has no key of its own in FlagGems' file: the class entry is what FlagGems uses */
	assert_int_equal(zl_shapes_load(file, &orig, &err), 0);
	assert_int_equal(zl_shapes_find(orig, "mm", mro, &e), 0);
	k = zl_batch_split_shapes(file, "mm", mro, 2, dir, &paths, counts, &key, &err);
	assert_int_equal(k, 2);
	assert_string_equal(key, e.key);
	assert_int_equal(counts[0] + counts[1], (long)e.shapes->nr);
	assert_int_equal(zl_shapes_load(paths.v[1], &d, &err), 0);
	assert_int_equal(zl_shapes_find(d, "mm", mro, &e), 0);
	assert_string_equal(e.key, key);
	assert_int_equal((long)e.shapes->nr, counts[1]);
	zl_shapes_free(d);
	zl_shapes_free(orig);
	strvec_clear(&paths);
	free(key);
	strbuf_release(&err);
	free(file);
	rmtree(dir);
}

/* ---- warm-up: record merge ----------------------------------------------------------- */

static void record(const char *run, const char *file, const char *kernel, const char *entries)
{
	char *dir = xstrfmt("%s/autotune_records", run);
	char *path = zl_path_join(dir, file);
	char *text = xstrfmt("{\"format\":\"zlbench-autotune-record\",\"version\":1,\"kernel\":\"%s\","
			     "\"name\":\"k\",\"tuner\":\"libtuner\",\"key_names\":[\"M\"],\"entries\":[%s]}",
			     kernel, entries);
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(zl_mkdir_p(dir, &err), 0);
	write_text(path, text);
	strbuf_release(&err);
	free(text);
	free(path);
	free(dir);
}

#define ENTRY(key, block) "{\"key\":\"" key "\",\"config\":{\"all_kwargs\":{\"BLOCK\":" #block "}}}"

static long entries_of(const char *path)
{
	struct strbuf text = STRBUF_INIT;
	cJSON *doc;
	long n;

	assert_true(strbuf_read_file(&text, path) > 0);
	doc = cJSON_Parse(text.buf);
	assert_non_null(doc);
	n = cJSON_GetArraySize(cJSON_GetObjectItem(doc, "entries"));
	cJSON_Delete(doc);
	strbuf_release(&text);
	return n;
}

static void test_merge(void **state)
{
	char *dir = tmpdir();
	char *s1 = zl_path_join(dir, "shard-1"), *s2 = zl_path_join(dir, "shard-2");
	char *s3 = zl_path_join(dir, "shard-3"), *merged = zl_path_join(dir, "merged");
	char *a = zl_path_join(merged, "autotune_records/a.json");
	char *b = zl_path_join(merged, "autotune_records/b.json");
	char *summary = zl_path_join(merged, "merge.json");
	struct strvec runs = STRVEC_INIT;
	struct zl_merge_stats st;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	record(s1, "a.json", "ops.a", ENTRY("[1]", 16) "," ENTRY("[2]", 32));
	record(s2, "a.json", "ops.a", ENTRY("[2]", 32) "," ENTRY("[3]", 64) "," ENTRY("[1]", 128));
	record(s2, "b.json", "ops.b", ENTRY("[9]", 8));
	assert_int_equal(zl_mkdir_p(s3, &err), 0); /* a shard whose op tuned nothing */
	strvec_push(&runs, s1);
	strvec_push(&runs, s2);
	strvec_push(&runs, s3);
	zl_merge_stats_init(&st);
	assert_int_equal(zl_batch_merge_records(&runs, merged, &st, &err), 0);
	assert_int_equal(st.shards_with_records, 2);
	assert_int_equal(st.files, 3);
	assert_int_equal(st.kernels, 2);
	assert_int_equal(st.entries, 4);     /* [1] [2] [3] of a, [9] of b */
	assert_int_equal(st.duplicates, 1);  /* [2] twice, same config */
	assert_int_equal(st.conflicts, 1);   /* [1] tuned 16 and 128: the first is kept */
	assert_string_equal(st.conflict_keys.v[0], "ops.a [1]");
	assert_int_equal(entries_of(a), 3);
	assert_int_equal(entries_of(b), 1);
	assert_true(zl_is_file(summary));
	zl_merge_stats_release(&st);

	/* a foreign file among the records is an error naming it */
	{
		char *s4 = zl_path_join(dir, "shard-4");
		char *bad_dir = zl_path_join(s4, "autotune_records");
		char *bad = zl_path_join(bad_dir, "x.json");

		assert_int_equal(zl_mkdir_p(bad_dir, &err), 0);
		write_text(bad, "{\"format\":\"other\"}");
		strvec_push(&runs, s4);
		free(s4);
		zl_merge_stats_init(&st);
		strbuf_reset(&err);
		assert_int_equal(zl_batch_merge_records(&runs, merged, &st, &err), -1);
		assert_non_null(strstr(err.buf, "x.json"));
		zl_merge_stats_release(&st);
		free(bad);
		free(bad_dir);
	}
	strvec_clear(&runs);
	strbuf_release(&err);
	free(s1);
	free(s2);
	free(s3);
	free(merged);
	free(a);
	free(b);
	free(summary);
	rmtree(dir);
}

/* ---- --ops all, --exclude ------------------------------------------------------------ */

static void write_mark_file(const char *dir, const char *rel, const char *text)
{
	struct strbuf err = STRBUF_INIT;
	char *path = zl_path_join(dir, rel);
	char *slash = strrchr(path, '/');

	*slash = '\0';
	assert_int_equal(zl_mkdir_p(path, &err), 0);
	*slash = '/';
	write_text(path, text);
	strbuf_release(&err);
	free(path);
}

static void test_ops_all(void **state)
{
	char *dir = tmpdir();
	struct strvec args = STRVEC_INIT, ops = STRVEC_INIT, ex = STRVEC_INIT, exclude = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	struct zl_batch_ops_request r = { .flaggems_dir = dir, .ops = &args, .exclude = &exclude };
	(void)state;

	/* "all" alone is the suite; in a list, twice or beside a file it is the operator all */
	strvec_push(&args, " all ");
	assert_int_equal(zl_batch_ops_is_all(&args, NULL), 1);
	assert_int_equal(zl_batch_ops_is_all(&args, "ops.txt"), 0);
	strvec_push(&args, "any");
	assert_int_equal(zl_batch_ops_is_all(&args, NULL), 0);
	strvec_clear(&args);
	strvec_push(&args, "all,any");
	assert_int_equal(zl_batch_ops_is_all(&args, NULL), 0);
	strvec_clear(&args);

	write_mark_file(dir, "benchmark/test_a.py",
			"import pytest\n@pytest.mark.parametrize('x', [1])\n@pytest.mark.abs\ndef test_a(x):\n    pass\n"
			"# @pytest.mark.commented\n@pytest.mark.abs_\ndef test_b():\n    pass\n");
	write_mark_file(dir, "benchmark/sub/test_b.py", "import pytest\n@pytest.mark.bmm\ndef test_b():\n    pass\n");
	r.all = 1;
	assert_int_equal(zl_batch_ops_choose(&r, &ops, &ex, &err), 0);
	assert_int_equal(ops.nr, 3);
	assert_string_equal(ops.v[0], "abs");
	assert_string_equal(ops.v[1], "abs_");
	assert_string_equal(ops.v[2], "bmm");
	strvec_clear(&ops);
	strvec_push(&exclude, "bmm, abs_");
	assert_int_equal(zl_batch_ops_choose(&r, &ops, &ex, &err), 0);
	assert_int_equal(ops.nr, 1);
	assert_string_equal(ops.v[0], "abs");
	assert_int_equal(ex.nr, 2);
	strvec_clear(&ops);
	strvec_clear(&ex);
	/* a name that is no mark: refused, with the closest marks */
	strvec_push(&exclude, "bm");
	assert_int_equal(zl_batch_ops_choose(&r, &ops, &ex, &err), -1);
	assert_non_null(strstr(err.buf, "--exclude names 'bm', which is no operator mark of"));
	assert_non_null(strstr(err.buf, "did you mean 'bmm'"));
	strvec_clear(&ops);
	strvec_clear(&exclude);
	/* an explicit list: an op of the list may be excluded though no file carries its mark */
	r.all = 0;
	strvec_push(&args, "abs,mystery");
	strvec_push(&exclude, "mystery");
	strbuf_reset(&err);
	assert_int_equal(zl_batch_ops_choose(&r, &ops, &ex, &err), 0);
	assert_int_equal(ops.nr, 1);
	assert_string_equal(ops.v[0], "abs");
	strvec_clear(&ops);
	strvec_clear(&ex);
	strvec_clear(&exclude);
	strvec_push(&exclude, "abs");
	strvec_clear(&args);
	strvec_push(&args, "abs");
	assert_int_equal(zl_batch_ops_choose(&r, &ops, &ex, &err), -1);
	assert_non_null(strstr(err.buf, "leaves no operator"));
	strvec_clear(&ops);
	strvec_clear(&ex);
	/* a tree without marks */
	strvec_clear(&exclude);
	r.all = 1;
	r.flaggems_dir = "/nonexistent";
	strbuf_reset(&err);
	assert_int_equal(zl_batch_ops_choose(&r, &ops, &ex, &err), -1);
	assert_non_null(strstr(err.buf, "--ops all: no operator mark"));
	strvec_clear(&args);
	strvec_clear(&ops);
	strvec_clear(&ex);
	strvec_clear(&exclude);
	strbuf_release(&err);
	rmtree(dir);
}

/* ---- the estimate ------------------------------------------------------------------ */

static void test_lpt(void **state)
{
	double jobs[] = { 2, 7, 3, 5, 4 };
	double load[3] = { 0, 0, 1 };
	double one[1] = { 10 };
	(void)state;

	/* 7 | 5 | 1+4 -> 7 | 5+3 | 5+2: 8 */
	assert_true(zl_batch_lpt(jobs, 5, load, 3) == 8.0);
	assert_true(load[0] == 7.0 && load[1] == 8.0 && load[2] == 7.0);
	assert_true(zl_batch_lpt(jobs, 5, one, 1) == 31.0);
	assert_true(isnan(zl_batch_lpt(jobs, 5, load, 0)));
}

static void test_estimate(void **state)
{
	struct zl_batch_estimate e;
	struct zl_op_duration hv[] = {
		{ .op = "a1", .mean_s = 10, .runs = 1 }, { .op = "a2", .mean_s = 30, .runs = 2 },
		{ .op = "b1", .mean_s = 50, .runs = 1 }, { .op = "elsewhere", .mean_s = 2, .runs = 1 },
	};
	struct zl_op_durations hist = { hv, 4, 4 };
	struct strvec fa = STRVEC_INIT, fb = STRVEC_INIT;
	(void)state;

	strvec_push(&fa, "benchmark/test_a.py");
	strvec_push(&fb, "benchmark/test_b.py");
	zl_batch_estimate_init(&e);
	zl_batch_estimate_add(&e, "a1", &fa);
	zl_batch_estimate_add(&e, "a3", &fa);
	zl_batch_estimate_add(&e, "c1", NULL);
	zl_batch_estimate_add(&e, "a2", &fa);
	zl_batch_estimate_add(&e, "b1", &fb);
	e.workers = 1;
	e.startup_s = 11;
	e.devices = 2;
	zl_batch_estimate_compute(&e, &hist);
	assert_int_equal(e.v[0].from, ZL_EST_HISTORY);
	/* a3: the median of its file's known ops (10, 30) */
	assert_int_equal(e.v[1].from, ZL_EST_FILE);
	assert_true(e.v[1].expect_s == 20.0 && e.v[1].peers == 2);
	/* c1: no file: the median of every op the history knows (2, 10, 30, 50) */
	assert_int_equal(e.v[2].from, ZL_EST_KNOWN);
	assert_true(e.v[2].expect_s == 20.0 && e.v[2].peers == 4);
	assert_int_equal(e.guesses, 2);
	assert_int_equal(e.by_from[ZL_EST_HISTORY], 3);
	assert_true(e.sum_s == 130.0);
	/* longest first, ties in list order: b1, a2, a3, c1, a1 */
	assert_int_equal(e.order[0], 4);
	assert_int_equal(e.order[1], 3);
	assert_int_equal(e.order[2], 1);
	assert_int_equal(e.order[3], 2);
	assert_int_equal(e.order[4], 0);
	/* 11+50 | 11+30 -> +20 -> 61 | 61 -> +20 -> 81 | 61 -> +10 -> 81 | 71 */
	assert_true(e.makespan_s == 81.0);
	assert_true(e.goal_makespan_s == 61.0);
	/* no history: the default for every op, the list order */
	zl_batch_estimate_compute(&e, NULL);
	assert_int_equal(e.by_from[ZL_EST_DEFAULT], 5);
	assert_true(e.v[0].expect_s == ZL_BATCH_OP_DEFAULT_S);
	assert_int_equal(e.order[0], 0);
	assert_int_equal(e.order[4], 4);
	/* fresh interpreters: no start-up */
	e.workers = 0;
	e.devices = 5;
	zl_batch_estimate_compute(&e, NULL);
	assert_true(e.makespan_s == ZL_BATCH_OP_DEFAULT_S);
	zl_batch_estimate_release(&e);
	strvec_clear(&fa);
	strvec_clear(&fb);
}

/* ---- the cost table ------------------------------------------------------------------ */

static void test_cost_parse(void **state)
{
	double v[ZL_COST__COUNT];
	const char *full = "{\"plan\":\"profiler\",\"cost\":{\"session_s\":9.5,\"collection_s\":0.5,\"inputs_s\":4,"
			   "\"first_call_s\":2,\"timer_s\":1.5,\"use_gems_s\":0.25,\"other_s\":1.25}}";
	const char *partial = "{\"cost\":{\"session_s\":3,\"collection_s\":-1,\"inputs_s\":\"2\",\"timer_s\":null}}";
	struct zl_batch_startups s;
	const char *events = "{\"event\":\"started\",\"device\":\"0\"}\n"
			     "{\"event\":\"ready\",\"wall_s\":11.25}\n"
			     "not json\n"
			     "{\"event\":\"ready\",\"wall_s\":-3}\n"
			     "{\"event\":\"started\"}\n"
			     "{\"event\":\"ready\",\"wall_s\":10.75}";
	(void)state;

	assert_int_equal(zl_cost_parse(full, strlen(full), v), 1);
	assert_true(v[ZL_COST_SESSION] == 9.5 && v[ZL_COST_INPUTS] == 4.0 && v[ZL_COST_USE_GEMS] == 0.25 &&
		    v[ZL_COST_OTHER] == 1.25);
	/* a value that is no number >= 0 is unknown, never 0 */
	assert_int_equal(zl_cost_parse(partial, strlen(partial), v), 1);
	assert_true(v[ZL_COST_SESSION] == 3.0);
	assert_true(isnan(v[ZL_COST_COLLECTION]) && isnan(v[ZL_COST_INPUTS]) && isnan(v[ZL_COST_FIRST_CALL]) &&
		    isnan(v[ZL_COST_TIMER]) && isnan(v[ZL_COST_USE_GEMS]));
	assert_string_equal(zl_cost_key(ZL_COST_USE_GEMS), "use_gems_s");
	assert_int_equal(zl_cost_parse("{\"plan\":\"direct\"}", 17, v), 0);
	assert_true(isnan(v[ZL_COST_SESSION]));
	assert_int_equal(zl_cost_parse("[1]", 3, v), -1);
	assert_int_equal(zl_cost_parse("{\"cost\":", 8, v), -1);
	assert_string_equal(zl_cost_key(ZL_COST_FIRST_CALL), "first_call_s");

	zl_batch_startups_init(&s);
	zl_batch_startups_parse(events, strlen(events), &s);
	assert_int_equal(s.started, 2);
	assert_int_equal(s.nr, 2);
	assert_true(s.wall[0] == 11.25 && s.wall[1] == 10.75);
	zl_batch_startups_release(&s);
}

static void test_costs_load(void **state)
{
	char *dir = tmpdir();
	struct zl_batch_config c;
	struct zl_batch_costs k;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	char *path;
	(void)state;

	zl_batch_config_init(&c);
	c.dir = xstrdup(dir);
	strvec_split(&c.ops, "mm,bmm,relu,never", ',');
	path = zl_path_join(dir, ZL_BATCH_STATUS_FILE);
	write_text(path, "op,status,wall_s,run_dir,attempt\r\n"
			 "mm,passed,5.0,runs/mm,1\r\n"
			 "bmm,failed,12.5,runs/bmm,1\r\n"
			 "relu,crashed,,runs/relu,2\r\n");
	free(path);
	write_mark_file(dir, "runs/mm/plugins/timer_summary.json",
			"{\"cost\":{\"session_s\":4,\"collection_s\":1,\"inputs_s\":1,\"first_call_s\":1,\"timer_s\":0.5,"
			"\"other_s\":0.5}}");
	write_mark_file(dir, "runs/bmm/plugins/timer_summary.json", "{\"plan\":\"profiler\"}");
	write_mark_file(dir, "workers/events.jsonl", "{\"event\":\"started\"}\n{\"event\":\"ready\",\"wall_s\":2}\n");
	zl_batch_costs_init(&k);
	zl_batch_costs_load(&c, &k);
	assert_int_equal(k.nr, 3);
	assert_int_equal(k.not_run, 1);
	/* longest first; an unknown wall last */
	assert_string_equal(k.v[0].op, "bmm");
	assert_string_equal(k.v[1].op, "mm");
	assert_string_equal(k.v[2].op, "relu");
	assert_true(isnan(k.v[0].v[ZL_COST_TIMER]) && isnan(k.v[0].outside_s));
	assert_true(k.v[1].outside_s == 1.0 && k.v[1].v[ZL_COST_TIMER] == 0.5);
	assert_true(isnan(k.v[2].wall_s));
	assert_true(k.wall_s == 17.5 && k.wall_unknown == 1);
	assert_true(k.total[ZL_COST_COLLECTION] == 1.0 && k.unknown[ZL_COST_COLLECTION] == 2);
	assert_true(k.startup_s == 2.0 && k.device_s == 19.5);
	assert_int_equal(zl_batch_costs_write(dir, &k, &err), 0);
	path = zl_path_join(dir, ZL_BATCH_COSTS_CSV);
	assert_int_equal(zl_read_file(&text, path, NULL, ZL_CAP_DOC, &err), 0);
	assert_non_null(strstr(text.buf, "bmm,failed,1,12.500,,,,,,,,,runs/bmm\r\n"));
	assert_non_null(strstr(text.buf, "relu,crashed,2,,,,,,,,,,runs/relu\r\n"));
	free(path);
	zl_batch_costs_release(&k);
	zl_batch_config_release(&c);
	strbuf_release(&err);
	strbuf_release(&text);
	rmtree(dir);
}

static void test_costs_print(void **state)
{
	struct zl_batch_costs k;
	struct strbuf text = STRBUF_INIT;
	FILE *f = tmpfile();
	size_t i;
	int p;
	(void)state;

	assert_non_null(f);
	zl_batch_costs_init(&k);
	/* more ops than the terminal shows: the longest 30, and where the rest are */
	for (i = 0; i < ZL_BATCH_COSTS_SHOWN + 10; i++) {
		struct zl_op_cost *o;

		ALLOC_GROW(k.v, k.nr + 1, k.alloc);
		o = &k.v[k.nr++];
		memset(o, 0, sizeof(*o));
		o->op = xstrfmt("op%02zu", i);
		o->status = xstrdup("passed");
		o->wall_s = (double)(100 - i);
		for (p = 0; p < ZL_COST__COUNT; p++)
			o->v[p] = p == ZL_COST_SESSION ? o->wall_s - 1 : (o->wall_s - 1) / 5;
		o->outside_s = 1;
		k.wall_s += o->wall_s;
		k.outside_s += 1;
		for (p = 0; p < ZL_COST__COUNT; p++)
			k.total[p] += o->v[p];
	}
	zl_batch_costs_print(&k, "/b", f, 0);
	rewind(f);
	assert_true(strbuf_read_fd(&text, fileno(f)) > 0);
	assert_non_null(strstr(text.buf, "op29 "));
	assert_null(strstr(text.buf, "op30 "));
	assert_non_null(strstr(text.buf, "... and 10 more operators (/b/costs.csv has every one)"));
	/* every op knows its split: each part's share of the wall */
	assert_non_null(strstr(text.buf, "share of wall"));
	assert_non_null(strstr(text.buf, "100%"));
	assert_null(strstr(text.buf, "unknown"));
	fclose(f);
	zl_batch_costs_release(&k);
	strbuf_release(&text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_row_roundtrip),
		cmocka_unit_test(test_rows_cut_off_and_columns),
		cmocka_unit_test(test_status_file),
		cmocka_unit_test(test_attempts),
		cmocka_unit_test(test_status_words),
		cmocka_unit_test(test_identity_row),
		cmocka_unit_test(test_ops),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_child_argv),
		cmocka_unit_test(test_config_roundtrip),
		cmocka_unit_test(test_split_model_shapes),
		cmocka_unit_test(test_split_by_class),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_ops_all),
		cmocka_unit_test(test_lpt),
		cmocka_unit_test(test_estimate),
		cmocka_unit_test(test_cost_parse),
		cmocka_unit_test(test_costs_load),
		cmocka_unit_test(test_costs_print),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
