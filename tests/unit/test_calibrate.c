#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "zlbench/calibrate.h"
#include "zlbench/compare.h"
#include "zlbench/history.h"
#include "zlbench/runload.h"
#include "zlbench/stats.h"
#include "zlbench/strbuf.h"
#include "../fixtures/runs/runfixture.h"

#define K 3

struct fixture {
	char *tmp;
	struct zl_run runs[K];
	const struct zl_run *ptrs[K];
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	size_t i;

	f->tmp = fx_tmpdir();
	for (i = 0; i < K; i++) {
		zl_run_init(&f->runs[i]);
		f->ptrs[i] = &f->runs[i];
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	size_t i;

	for (i = 0; i < K; i++)
		zl_run_release(&f->runs[i]);
	fx_rmtree(f->tmp);
	free(f);
	return 0;
}

/* K runs of mm from the real H200 results: run i's gems latencies times scale[i]; samples when n > 0. */
static void write_runs(struct fixture *f, const double *scale, long n)
{
	struct strbuf err = STRBUF_INIT;
	size_t i;

	for (i = 0; i < K; i++) {
		char *name = xstrfmt("20261129-10000%zu-cuda-mm-aaaaa%zu", i, i);
		char *dir = zl_path_join(f->tmp, name);
		cJSON *id = fx_identity(name, "mm");

		zl_run_release(&f->runs[i]);
		zl_run_init(&f->runs[i]);
		fx_write_run(dir, id, FX_MM, scale[i], NULL, n ? -1 : 0.01, n ? 0 : 50);
		if (n)
			fx_write_samples(dir, n, 0.01, 100 + i, NULL, 0, 1);
		assert_int_equal(zl_run_load(dir, &f->runs[i], &err), 0);
		cJSON_Delete(id);
		free(dir);
		free(name);
	}
	strbuf_release(&err);
}

static void test_identical_runs(void **state)
{
	struct fixture *f = *state;
	const double one[K] = { 1, 1, 1 };
	struct zl_calib_op op = { "mm", f->ptrs, K };
	struct zl_calib_result r;
	size_t c, k, rows = 0;

	write_runs(f, one, 0);
	zl_calib_result_init(&r);
	zl_calib_compute(&op, 1, &r);
	assert_int_equal(r.ops, 1);
	assert_int_equal(r.pairs, 3);
	/* 15 shapes x 2 sides x 3 pairs, every latency known */
	assert_int_equal(r.rows, 90);
	for (c = 0; c < ZL_SIZE__COUNT; c++) {
		const struct zl_calib_class *cl = &r.cls[c];

		rows += (size_t)cl->rows;
		if (!cl->rows) {
			assert_true(isnan(cl->floor_pct));
			continue;
		}
		/* identical latencies: no spread, nothing flagged, the smallest floor */
		assert_true(cl->spread_rel == 0 && cl->max_rel == 0);
		for (k = 0; k < ZL_CALIBRATION_LEVELS; k++)
			assert_int_equal(cl->flags[k], 0);
		assert_true(cl->floor_pct == ZL_CALIB_MIN_FLOOR_PCT);
		assert_int_equal(cl->floor_flags, 0);
		assert_int_equal(cl->rows_samples, 0);
		/* K runs give K - 1 independent differences per row */
		assert_true(fabs(cl->dof - (double)cl->rows * 2 / K) < 1e-9);
	}
	assert_int_equal(rows, 90);
	/* mm's H200 latencies: 5-50us, 50-500us and >=500us rows, no kernel under 5 us */
	assert_int_equal(r.cls[ZL_SIZE_UNDER_5US].rows, 0);
	assert_true(r.cls[ZL_SIZE_5_50US].rows > 0 && r.cls[ZL_SIZE_OVER_500US].rows > 0);
	zl_calib_result_release(&r);
}

static void test_one_run_shifted(void **state)
{
	struct fixture *f = *state;
	const double scale[K] = { 1, 1.10, 1 };
	struct zl_calib_op op = { "mm", f->ptrs, K };
	struct zl_calib_result r;
	struct zl_calibration cal;
	size_t c, flagged5 = 0;
	double max_rel = 0;

	/* run 2's gems side 10 % slower, 400 samples a row with 1 % noise */
	write_runs(f, scale, 400);
	zl_calib_result_init(&r);
	zl_calib_compute(&op, 1, &r);
	assert_int_equal(r.rows, 90);
	for (c = 0; c < ZL_SIZE__COUNT; c++) {
		const struct zl_calib_class *cl = &r.cls[c];
		double rms_upper;

		if (!cl->rows)
			continue;
		assert_int_equal(cl->rows_samples, cl->rows);
		/* the spread's upper bound is the chi-square bound of its dof */
		rms_upper = cl->spread_rel * sqrt(cl->dof / zl_stats_chi2_quantile(0.05, cl->dof));
		assert_true(fabs(cl->spread_upper - rms_upper) < 1e-12);
		assert_true(cl->spread_upper > cl->spread_rel);
		/* the floor covers 3 upper spreads, flags nothing, is a tenth of a percent */
		assert_true(cl->floor_pct >= 3 * cl->spread_upper * 100 - 1e-9);
		assert_int_equal(cl->floor_flags, 0);
		assert_true(fabs(cl->floor_pct * 10 - round(cl->floor_pct * 10)) < 1e-9);
		/* the 10 % shift is larger than every fixed level: rows are flagged there */
		assert_true(cl->flags[0] >= cl->flags[2]);
		flagged5 += (size_t)cl->flags[2];
		max_rel = fmax(max_rel, cl->max_rel);
	}
	/* flagged at 5 %: the gems rows of pairs (1,2) and (2,3), 15 + 15; no torch row */
	assert_int_equal(flagged5, 30);
	assert_true(max_rel > 0.09 && max_rel < 0.11);
	/* the figures as history stores them */
	zl_calibration_init(&cal);
	zl_calib_fill(&r, &cal);
	for (c = 0; c < ZL_SIZE__COUNT; c++) {
		assert_int_equal(cal.cls[c].present, r.cls[c].rows > 0);
		if (!cal.cls[c].present)
			continue;
		assert_true(cal.cls[c].floor_pct == r.cls[c].floor_pct);
		assert_true(fabs(cal.cls[c].false_flag[2] - (double)r.cls[c].flags[2] / (double)r.cls[c].rows) < 1e-15);
	}
	zl_calibration_release(&cal);
	zl_calib_result_release(&r);
}

static void test_too_few_runs(void **state)
{
	struct fixture *f = *state;
	const double one[K] = { 1, 1, 1 };
	struct zl_calib_op ops[2] = { { "mm", f->ptrs, 1 }, { "bmm", f->ptrs, 0 } };
	struct zl_calib_result r;

	write_runs(f, one, 0);
	zl_calib_result_init(&r);
	zl_calib_compute(ops, 2, &r);
	assert_int_equal(r.ops, 0);
	assert_int_equal(r.rows, 0);
	assert_int_equal(r.notes.nr, 2);
	assert_non_null(strstr(r.notes.v[0], "mm: 1 run that passed"));
	zl_calib_result_release(&r);
}

static void test_key_and_store(void **state)
{
	struct fixture *f = *state;
	const double scale[K] = { 1, 1.02, 0.99 };
	struct zl_calib_op op = { "mm", f->ptrs, K };
	struct zl_calib_result r;
	struct zl_calibration cal, found;
	struct zl_history *h = NULL;
	struct strbuf why = STRBUF_INIT, note = STRBUF_INIT;
	char *db = zl_path_join(f->tmp, "history.db");

	write_runs(f, scale, 0);
	zl_calib_result_init(&r);
	zl_calib_compute(&op, 1, &r);
	zl_calibration_init(&cal);
	assert_int_equal(zl_calib_key(&f->runs[0], &cal, &why), 0);
	assert_string_equal(cal.backend, "cuda");
	assert_string_equal(cal.device_name, "NVIDIA H200");
	assert_string_equal(cal.timer, "direct");
	assert_string_equal(cal.flaggems_commit, "ed2508bc");
	assert_true(zl_calib_key_matches(&f->runs[1], &cal));
	zl_calib_fill(&r, &cal);
	cal.runs = K;
	assert_int_equal(zl_history_open(db, &h, &why), 0);
	assert_int_equal(zl_history_store_calibration(h, &cal, &why), 0);
	assert_true(cal.id > 0);
	zl_history_close(h);
	h = NULL;
	/* compare's lookup finds it for these runs */
	zl_calibration_init(&found);
	assert_int_equal(zl_calibration_lookup(db, &h, &f->runs[0], &f->runs[1], &found, &note), 1);
	assert_int_equal(found.id, cal.id);
	assert_true(found.cls[ZL_SIZE_OVER_500US].floor_pct == cal.cls[ZL_SIZE_OVER_500US].floor_pct);
	zl_calibration_release(&found);
	zl_history_close(h);
	h = NULL;
	/* without a database: the fixed floor, and why */
	zl_calibration_init(&found);
	strbuf_reset(&note);
	assert_int_equal(zl_calibration_lookup("/nonexistent/x.db", &h, &f->runs[0], &f->runs[1], &found, &note), 0);
	assert_non_null(strstr(note.buf, "no history database at '/nonexistent/x.db'"));
	zl_calibration_release(&found);
	/* a run without a device name or commit cannot key one */
	free(f->runs[2].device_name);
	f->runs[2].device_name = NULL;
	free(f->runs[2].flaggems_commit);
	f->runs[2].flaggems_commit = NULL;
	strbuf_reset(&why);
	assert_int_equal(zl_calib_key(&f->runs[2], &cal, &why), -1);
	assert_non_null(strstr(why.buf, "no device name"));
	assert_non_null(strstr(why.buf, "no FlagGems commit"));
	assert_false(zl_calib_key_matches(&f->runs[2], &found));
	zl_calibration_release(&cal);
	zl_calib_result_release(&r);
	strbuf_release(&why);
	strbuf_release(&note);
	free(db);
}

static void test_timer_key(void **state)
{
	struct fixture *f = *state;
	const double one[K] = { 1, 1, 1 };

	cJSON *timer;
	char *key;

	(void)state;
	write_runs(f, one, 0);
	timer = cJSON_GetObjectItemCaseSensitive(f->runs[0].identity, "timer");
	key = zl_run_timer_key(&f->runs[0]);
	assert_string_equal(key, "direct");
	free(key);
	/* "mixed" (several timers in one run) keys by the plan, as compare looks it up */
	cJSON_ReplaceItemInObjectCaseSensitive(timer, "used", cJSON_CreateString("mixed"));
	free(f->runs[0].timer_plan);
	f->runs[0].timer_plan = xstrdup("graph");
	key = zl_run_timer_key(&f->runs[0]);
	assert_string_equal(key, "graph");
	free(key);
	/* the profiler timer: with how it measured, absent fields as compare reads them, so a
	 * calibration of an older way of measuring is not used for a newer one */
	cJSON_ReplaceItemInObjectCaseSensitive(timer, "used", cJSON_CreateString("profiler"));
	key = zl_run_timer_key(&f->runs[0]);
	assert_string_equal(key, "profiler/queued/unrecorded");
	free(key);
	assert_non_null(cJSON_AddStringToObject(timer, "profiler_call_mode", "synced"));
	assert_non_null(cJSON_AddStringToObject(timer, "profiler_settle", "batches"));
	key = zl_run_timer_key(&f->runs[0]);
	assert_string_equal(key, "profiler/synced/batches");
	free(key);
	/* no timer at all: no key */
	cJSON_DeleteItemFromObjectCaseSensitive(f->runs[0].identity, "timer");
	free(f->runs[0].timer_plan);
	f->runs[0].timer_plan = NULL;
	assert_null(zl_run_timer_key(&f->runs[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_identical_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_run_shifted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_few_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_and_store, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timer_key, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
