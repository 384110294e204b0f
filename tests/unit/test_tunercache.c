#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>
#include <cmocka.h>

#include "zlbench/fsutil.h"
#include "zlbench/strbuf.h"
#include "zlbench/tunercache.h"
#include "zlbench/util.h"

/* Busy timeout for tests that hit a lock: short, and nothing asserts on time. */
#define TEST_BUSY_MS 50

static char *fixture_db(const char *name)
{
	const char *fixtures = getenv("ZL_FIXTURES_DIR");

	assert_non_null(fixtures);
	return xstrfmt("%s/flaggems-runs/tuner-db/%s", fixtures, name);
}

/* A fresh cache dir with config_cache/ inside. Caller frees. */
static char *make_cache_dir(void)
{
	char tmpl[] = "/tmp/zl-tuner-XXXXXX";
	struct strbuf err = STRBUF_INIT;
	char *dir, *cfg;

	assert_non_null(mkdtemp(tmpl));
	dir = xstrdup(tmpl);
	cfg = zl_tuner_config_dir(dir);
	assert_int_equal(zl_mkdir_p(cfg, &err), 0);
	free(cfg);
	strbuf_release(&err);
	return dir;
}

/* Copy a fixture into <cache>/config_cache/<as> (a temp dir, never the repository). */
static char *install_db(const char *cache, const char *fixture, const char *as)
{
	struct strbuf data = STRBUF_INIT, err = STRBUF_INIT;
	char *src = fixture_db(fixture);
	char *path = xstrfmt("%s/config_cache/%s", cache, as);

	assert_true(strbuf_read_file(&data, src) > 0);
	assert_int_equal(zl_write_file_atomic(path, data.buf, data.len, &err), 0);
	strbuf_release(&data);
	strbuf_release(&err);
	free(src);
	return path;
}

static void remove_dir(char *dir)
{
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(zl_remove_tree(dir, &err), 0);
	strbuf_release(&err);
	free(dir);
}

static int notes_mention(const struct zl_tuner_stats *st, const char *what)
{
	size_t i;

	for (i = 0; i < st->notes.nr; i++)
		if (strstr(st->notes.v[i], what))
			return 1;
	return 0;
}

static void test_kind_of_name(void **state)
{
	(void)state;
	/* Names as libentry.py builds them. */
	assert_int_equal(zl_tuner_kind_of_name(
		"mm_kernel_general_host_tma_3a8fc47ebbf242501671e30d30f2540a3e3f122bc71d8bfdb2270135ac3b0100"
		"_benchmark_v2-03ada2110a90b7cc7f7ea6a5ab40df8d"), ZL_TUNER_BENCHMARKS);
	assert_int_equal(zl_tuner_kind_of_name("k_abc_benchmark_v10"), ZL_TUNER_BENCHMARKS);
	assert_int_equal(zl_tuner_kind_of_name(
		"mm_kernel_general_host_tma_5c4d1a5307873292ae26ebac32ca425c_flagtune_default"
		"_benchmark_b9dfe9fa1f34-89756365090932836bb7aa9f4fa7ad14"), ZL_TUNER_WINNERS);
	assert_int_equal(zl_tuner_kind_of_name("softmax_5c4d1a5307873292ae26ebac32ca425c-89756365090932836bb7aa9f4fa7ad14"),
			 ZL_TUNER_WINNERS);
	assert_int_equal(zl_tuner_kind_of_name("k_benchmark_vx-1"), ZL_TUNER_WINNERS);
	assert_int_equal(zl_tuner_kind_of_name("k_benchmark_v2x-1"), ZL_TUNER_WINNERS);
}

static void test_real_mm_db(void **state)
{
	char *path = fixture_db("mm_TunedConfig_nvidia_triton_3_6.db");
	struct zl_tuner_stats st = ZL_TUNER_STATS_INIT;
	size_t i;
	(void)state;

	/* Straight from the fixture directory (read-only in a package): counting never writes. */
	zl_tuner_count_db(path, -1, &st);
	assert_int_equal(st.notes.nr, 0);
	assert_int_equal(st.dbs, 1);
	assert_int_equal(st.winners, 12);
	assert_int_equal(st.benchmarked, 1944);
	assert_int_equal(st.nr, 2);
	for (i = 0; i < st.nr; i++) {
		assert_string_equal(st.tables[i].db, "mm_TunedConfig_nvidia_triton_3_6.db");
		assert_string_equal(st.tables[i].kernel, "mm_kernel_general_host_tma");
		assert_int_equal(st.tables[i].rows, st.tables[i].kind == ZL_TUNER_WINNERS ? 12 : 1944);
	}
	assert_int_not_equal(st.tables[0].kind, st.tables[1].kind);
	zl_tuner_stats_release(&st);
	assert_int_equal(st.nr, 0);
	assert_null(st.tables);
	free(path);
}

static void test_cache_dir_and_vendor(void **state)
{
	char *cache = make_cache_dir();
	char *a = install_db(cache, "mm_TunedConfig_nvidia_triton_3_6.db", "TunedConfig_nvidia_triton_3_6.db");
	char *b = install_db(cache, "router_gemm_TunedConfig_nvidia_triton_3_6.db",
			     "TunedConfig_othervendor_triton_3_6.db");
	char *stray = xstrfmt("%s/config_cache/TunedConfig_nvidia_triton_3_6.db-journal", cache);
	struct strbuf err = STRBUF_INIT;
	struct zl_tuner_stats st = ZL_TUNER_STATS_INIT;
	size_t i;
	long splitk = 0;
	(void)state;

	/* Not a .db: must be ignored (an empty journal is harmless to readers too). */
	assert_int_equal(zl_write_file_atomic(stray, "", 0, &err), 0);

	zl_tuner_count_dir(cache, NULL, -1, &st);
	assert_int_equal(st.notes.nr, 0);
	assert_int_equal(st.dbs, 2);
	/* mm: 12 + 1944; router_gemm: (2 + 8) winners, (324 + 40) benchmarked. */
	assert_int_equal(st.winners, 12 + 10);
	assert_int_equal(st.benchmarked, 1944 + 364);
	assert_int_equal(st.nr, 6);
	assert_string_equal(st.tables[0].db, "TunedConfig_nvidia_triton_3_6.db");
	assert_string_equal(st.tables[5].db, "TunedConfig_othervendor_triton_3_6.db");
	for (i = 0; i < st.nr; i++)
		if (!strcmp(st.tables[i].kernel, "mm_kernel_splitk"))
			splitk += st.tables[i].rows;
	assert_int_equal(splitk, 48);
	zl_tuner_stats_release(&st);

	zl_tuner_count_dir(cache, "othervendor", -1, &st);
	assert_int_equal(st.dbs, 1);
	assert_int_equal(st.winners, 10);
	assert_int_equal(st.benchmarked, 364);
	zl_tuner_stats_release(&st);

	/* A vendor with nothing stored: zero and a note. */
	zl_tuner_count_dir(cache, "novendor", -1, &st);
	assert_int_equal(st.dbs, 0);
	assert_int_equal(st.winners, 0);
	assert_true(notes_mention(&st, "TunedConfig_novendor_triton_"));
	zl_tuner_stats_release(&st);

	strbuf_release(&err);
	free(a);
	free(b);
	free(stray);
	remove_dir(cache);
}

static void test_missing(void **state)
{
	char *cache = make_cache_dir();
	char *gone = xstrfmt("%s/nope", cache);
	char *db = xstrfmt("%s/config_cache/TunedConfig_x_triton_3_6.db", cache);
	struct zl_tuner_stats st = ZL_TUNER_STATS_INIT;
	(void)state;

	zl_tuner_count_dir(gone, NULL, -1, &st);
	assert_int_equal(st.winners, 0);
	assert_int_equal(st.benchmarked, 0);
	assert_int_equal(st.dbs, 0);
	assert_int_equal(st.notes.nr, 1);
	assert_true(notes_mention(&st, gone));
	/* nothing there holds nothing: a true 0, not an unknown */
	assert_false(zl_tuner_stats_incomplete(&st));
	zl_tuner_stats_release(&st);

	zl_tuner_count_db(db, -1, &st);
	assert_int_equal(st.dbs, 0);
	assert_true(notes_mention(&st, "No such file"));
	assert_false(zl_tuner_stats_incomplete(&st));
	zl_tuner_stats_release(&st);

	zl_tuner_count_dir(NULL, NULL, -1, &st);
	assert_int_equal(st.notes.nr, 1);
	assert_true(zl_tuner_stats_incomplete(&st));
	zl_tuner_stats_release(&st);

	free(gone);
	free(db);
	remove_dir(cache);
}

static void test_corrupt_is_a_note(void **state)
{
	char *cache = make_cache_dir();
	char *good = install_db(cache, "mm_TunedConfig_nvidia_triton_3_6.db", "TunedConfig_a_triton_3_6.db");
	char *bad = xstrfmt("%s/config_cache/TunedConfig_b_triton_3_6.db", cache);
	struct strbuf junk = STRBUF_INIT, err = STRBUF_INIT;
	struct zl_tuner_stats st = ZL_TUNER_STATS_INIT;
	int i;
	(void)state;

	for (i = 0; i < 200; i++)
		strbuf_addstr(&junk, "this is not an sqlite database. ");
	assert_int_equal(zl_write_file_atomic(bad, junk.buf, junk.len, &err), 0);
	zl_tuner_count_dir(cache, NULL, -1, &st);
	/* The good DB still counts; the bad one is named in a note. */
	assert_int_equal(st.dbs, 1);
	assert_int_equal(st.winners, 12);
	assert_int_equal(st.notes.nr, 1);
	assert_true(notes_mention(&st, "TunedConfig_b_triton_3_6.db"));
	assert_true(notes_mention(&st, "not a database"));
	/* 12 is only what could be read: the bad file is named as not counted */
	assert_true(zl_tuner_stats_incomplete(&st));
	assert_int_equal(st.unread_dbs.nr, 1);
	assert_string_equal(st.unread_dbs.v[0], "TunedConfig_b_triton_3_6.db");
	zl_tuner_stats_release(&st);

	strbuf_release(&junk);
	strbuf_release(&err);
	free(good);
	free(bad);
	remove_dir(cache);
}

static void exec_ok(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

static void test_locked_is_a_note(void **state)
{
	char *cache = make_cache_dir();
	char *path = install_db(cache, "mm_TunedConfig_nvidia_triton_3_6.db", "TunedConfig_a_triton_3_6.db");
	struct zl_tuner_stats st = ZL_TUNER_STATS_INIT;
	sqlite3 *writer = NULL;
	(void)state;

	/* Another connection holds an exclusive lock, as a writer in the middle of a commit would. */
	assert_int_equal(sqlite3_open_v2(path, &writer, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	exec_ok(writer, "BEGIN EXCLUSIVE");
	zl_tuner_count_dir(cache, NULL, TEST_BUSY_MS, &st);
	assert_int_equal(st.dbs, 0);
	assert_int_equal(st.winners, 0);
	assert_int_equal(st.nr, 0);
	assert_true(notes_mention(&st, "locked"));
	assert_true(notes_mention(&st, "TunedConfig_a_triton_3_6.db"));
	assert_true(zl_tuner_stats_incomplete(&st));
	assert_int_equal(st.unread_dbs.nr, 1);
	assert_string_equal(st.unread_dbs.v[0], "TunedConfig_a_triton_3_6.db");
	zl_tuner_stats_release(&st);
	assert_int_equal(st.unread_dbs.nr, 0);

	/* Lock released: the same DB counts. */
	exec_ok(writer, "COMMIT");
	zl_tuner_count_dir(cache, NULL, TEST_BUSY_MS, &st);
	assert_int_equal(st.notes.nr, 0);
	assert_false(zl_tuner_stats_incomplete(&st));
	assert_int_equal(st.winners, 12);
	zl_tuner_stats_release(&st);

	/* A reader is never blocked by a shared lock, and never takes a write lock itself. */
	exec_ok(writer, "BEGIN; SELECT count(*) FROM sqlite_master;");
	zl_tuner_count_dir(cache, NULL, TEST_BUSY_MS, &st);
	assert_int_equal(st.winners, 12);
	exec_ok(writer, "CREATE TABLE extra_5c4d1a5307873292ae26ebac32ca425c (key_0 INT, p50 FLOAT, p20 FLOAT, p80 FLOAT); "
			"INSERT INTO extra_5c4d1a5307873292ae26ebac32ca425c VALUES (1, 0.1, 0.1, 0.1); COMMIT");
	zl_tuner_stats_release(&st);

	/* A table with timings but an unfamiliar name is still a benchmark table (p50 column). */
	zl_tuner_count_dir(cache, NULL, TEST_BUSY_MS, &st);
	assert_int_equal(st.winners, 12);
	assert_int_equal(st.benchmarked, 1945);
	zl_tuner_stats_release(&st);

	assert_int_equal(sqlite3_close(writer), SQLITE_OK);
	free(path);
	remove_dir(cache);
}

static void test_odd_paths(void **state)
{
	char tmpl[] = "/tmp/zl-tuner odd?#%-XXXXXX";
	char *path;
	struct zl_tuner_stats st = ZL_TUNER_STATS_INIT;
	(void)state;

	/* URI-special characters in the directory name must not change which file is opened. */
	assert_non_null(mkdtemp(tmpl));
	{
		char *cfg = zl_tuner_config_dir(tmpl);
		struct strbuf err = STRBUF_INIT;
		assert_int_equal(zl_mkdir_p(cfg, &err), 0);
		free(cfg);
		strbuf_release(&err);
	}
	path = install_db(tmpl, "mm_TunedConfig_nvidia_triton_3_6.db", "TunedConfig_a_triton_3_6.db");
	zl_tuner_count_dir(tmpl, "a", -1, &st);
	assert_int_equal(st.notes.nr, 0);
	assert_int_equal(st.winners, 12);
	zl_tuner_stats_release(&st);

	/* A directory where a DB is expected. */
	zl_tuner_count_db(tmpl, -1, &st);
	assert_true(notes_mention(&st, "not a regular file"));
	assert_true(zl_tuner_stats_incomplete(&st));
	zl_tuner_stats_release(&st);
	free(path);
	remove_dir(xstrdup(tmpl));
}

static void test_default_dir(void **state)
{
	char *saved = getenv("FLAGGEMS_CACHE_DIR") ? xstrdup(getenv("FLAGGEMS_CACHE_DIR")) : NULL;
	char *home = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;
	char *dir, *want;
	(void)state;

	assert_int_equal(setenv("FLAGGEMS_CACHE_DIR", "/x/fg", 1), 0);
	dir = zl_tuner_default_cache_dir();
	assert_string_equal(dir, "/x/fg");
	free(dir);
	/* relative: against the cwd, as the run's child is given it; empty: unset */
	assert_int_equal(setenv("FLAGGEMS_CACHE_DIR", "rel/fg", 1), 0);
	dir = zl_tuner_default_cache_dir();
	want = zl_absolute_path("rel/fg");
	assert_true(dir[0] == '/');
	assert_string_equal(dir, want);
	free(want);
	free(dir);
	assert_int_equal(setenv("FLAGGEMS_CACHE_DIR", "", 1), 0);
	assert_int_equal(setenv("HOME", "/home/someone", 1), 0);
	dir = zl_tuner_default_cache_dir();
	assert_string_equal(dir, "/home/someone/.flaggems");
	free(dir);
	assert_int_equal(unsetenv("FLAGGEMS_CACHE_DIR"), 0);
	assert_int_equal(setenv("HOME", "/home/someone", 1), 0);
	dir = zl_tuner_default_cache_dir();
	assert_string_equal(dir, "/home/someone/.flaggems");
	want = zl_tuner_config_dir(dir);
	assert_string_equal(want, "/home/someone/.flaggems/config_cache");
	free(want);
	free(dir);
	assert_int_equal(unsetenv("HOME"), 0);
	assert_null(zl_tuner_default_cache_dir());

	if (saved)
		assert_int_equal(setenv("FLAGGEMS_CACHE_DIR", saved, 1), 0);
	if (home)
		assert_int_equal(setenv("HOME", home, 1), 0);
	free(saved);
	free(home);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_of_name),
		cmocka_unit_test(test_real_mm_db),
		cmocka_unit_test(test_cache_dir_and_vendor),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_corrupt_is_a_note),
		cmocka_unit_test(test_locked_is_a_note),
		cmocka_unit_test(test_odd_paths),
		cmocka_unit_test(test_default_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
