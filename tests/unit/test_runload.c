#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "zlbench/json.h"
#include "zlbench/runload.h"
#include "zlbench/strbuf.h"
#include "../fixtures/runs/runfixture.h"

/* The expected rows are read from the same real file, independently of runload. */
struct expect {
	size_t shapes;
	double first_gems, first_torch;
	char *first_dtype;
};

static void expect_from(const char *name, struct expect *e)
{
	char *path = fx_real(name);
	cJSON *doc = fx_read_json(path), *op_entry, *detail, *row;

	memset(e, 0, sizeof(*e));
	cJSON_ArrayForEach(op_entry, doc)
		cJSON_ArrayForEach(detail, cJSON_GetObjectItemCaseSensitive(op_entry, "details"))
			cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(detail, "result")) {
				if (!e->shapes) {
					e->first_gems = cJSON_GetObjectItemCaseSensitive(row, "latency")->valuedouble;
					e->first_torch = cJSON_GetObjectItemCaseSensitive(row, "latency_base")->valuedouble;
					e->first_dtype = xstrdup(cJSON_GetObjectItemCaseSensitive(detail, "dtype")->valuestring);
				}
				e->shapes++;
			}
	cJSON_Delete(doc);
	free(path);
}

static void load_real(const char *name, const char *op)
{
	char *tmp = fx_tmpdir();
	char *dir = zl_path_join(tmp, "run");
	cJSON *id = fx_identity("20261129-100000-cuda-x-aaaaaa", op);
	struct strbuf err = STRBUF_INIT;
	struct zl_run run;
	struct expect e;
	size_t i;

	expect_from(name, &e);
	fx_write_run(dir, id, name, 1.0, NULL, -1, 0);
	zl_run_init(&run);
	assert_int_equal(zl_run_load(dir, &run, &err), 0);
	assert_true(run.has_results);
	assert_false(run.has_timer);
	assert_true(e.shapes > 0);
	assert_int_equal(run.nr_results, 2 * e.shapes);
	assert_int_equal(run.results[0].side, ZL_SIDE_TORCH);
	assert_int_equal(run.results[1].side, ZL_SIDE_GEMS);
	assert_string_equal(run.results[0].op, op);
	assert_string_equal(run.results[0].dtype, e.first_dtype);
	assert_true(run.results[0].latency_ms == e.first_torch);
	assert_true(run.results[1].latency_ms == e.first_gems);
	assert_true(run.results[1].latency_base_ms == e.first_torch);
	for (i = 0; i < run.nr_results; i++) {
		assert_true(run.results[i].shape[0] == '[');
		assert_true(run.results[i].occurrence >= 1);
		assert_true(run.results[i].samples == -1 && isnan(run.results[i].iqr_ms));
	}
	assert_string_equal(run.device_name, "NVIDIA H200");
	assert_string_equal(run.tuner_cache_mode, "shared");
	assert_int_equal(run.exit_code, 0);
	assert_int_equal(run.winners_before, 0);
	zl_run_release(&run);
	cJSON_Delete(id);
	free(e.first_dtype);
	free(dir);
	fx_rmtree(tmp);
	strbuf_release(&err);
}

static void test_real_results(void **state)
{
	(void)state;
	load_real(FX_MM, "mm");
	load_real(FX_MM_GRAPH, "mm");
	load_real(FX_ROUTER, "router_gemm");
}

/* mm lists 4096x4096 twice per dtype: the repeat is occurrence 2, and the shape is canonical. */
static void test_shape_and_occurrence(void **state)
{
	char *tmp = fx_tmpdir();
	cJSON *id = fx_identity("20261129-100000-cuda-mm-aaaaaa", "mm");
	struct strbuf err = STRBUF_INIT;
	struct zl_run run;
	const struct zl_result *r1, *r2;
	(void)state;

	fx_write_run(tmp, id, FX_MM, 1.0, NULL, -1, 0);
	zl_run_init(&run);
	assert_int_equal(zl_run_load(tmp, &run, &err), 0);
	assert_string_equal(run.results[0].shape, "[[384, 384], [384, 384]]");
	r1 = zl_run_find(&run, "mm", "torch.float16", "[[4096, 4096], [4096, 4096]]", 1, ZL_SIDE_GEMS);
	r2 = zl_run_find(&run, "mm", "float16", "[[4096, 4096], [4096, 4096]]", 2, ZL_SIDE_GEMS);
	assert_non_null(r1);
	assert_non_null(r2);
	assert_true(r1 != r2);
	assert_int_equal(r2->occurrence, 2);
	assert_null(zl_run_find(&run, "mm", "float16", "[[4096, 4096], [4096, 4096]]", 3, ZL_SIDE_GEMS));
	zl_run_release(&run);
	cJSON_Delete(id);
	fx_rmtree(tmp);
	strbuf_release(&err);
}

static void test_failed_run_without_results(void **state)
{
	char *tmp = fx_tmpdir();
	cJSON *id = fx_identity("20261129-100000-cuda-mm-bbbbbb", "mm");
	struct strbuf err = STRBUF_INIT;
	struct zl_run run;
	(void)state;

	fx_set_str(id, "status", "crashed");
	fx_set(id, "exit_code", cJSON_CreateNull());
	fx_set(id, "duration_s", cJSON_CreateNull());
	fx_set(id, "devices", cJSON_CreateArray());
	fx_write_run(tmp, id, NULL, 1.0, NULL, -1, 0);
	zl_run_init(&run);
	assert_int_equal(zl_run_load(tmp, &run, &err), 0);
	assert_false(run.has_results);
	assert_int_equal(run.nr_results, 0);
	assert_string_equal(run.status, "crashed");
	assert_int_equal(run.exit_code, -1);
	assert_true(isnan(run.duration_s));
	assert_null(run.device_name);
	assert_int_equal(run.notes.nr, 1);
	assert_non_null(strstr(run.notes.v[0], "results.json"));
	zl_run_release(&run);
	cJSON_Delete(id);
	fx_rmtree(tmp);
	strbuf_release(&err);
}

static void test_odd_rows(void **state)
{
	static const char odd[] =
		"{\"mm\": {\"details\": [{\"op_name\": \"mm\", \"dtype\": \"torch.float16\", \"result\": ["
		" {\"legacy_shape\": [7, 7], \"shape_detail\": null, \"latency_base\": 0.5, \"latency\": null,"
		"  \"speedup\": null, \"error_msg\": \"CUDA out of memory\"},"
		" {\"shape_detail\": [[2, 3.5], {\"dim\": -1, \"name\": \"x\"}], \"latency_base\": 1,"
		"  \"latency\": 2, \"speedup\": 0.5, \"error_msg\": null},"
		" 42]}, \"not a detail\"]},"
		" \"abs\": {\"details\": 3}}";
	char *tmp = fx_tmpdir();
	char *path = zl_path_join(tmp, "results.json");
	cJSON *id = fx_identity("20261129-100000-cuda-mm-cccccc", "mm");
	struct strbuf err = STRBUF_INIT, all = STRBUF_INIT;
	struct zl_run run;
	size_t i;
	(void)state;

	fx_write_run(tmp, id, NULL, 1.0, NULL, -1, 0);
	fx_write_text(path, odd);
	zl_run_init(&run);
	assert_int_equal(zl_run_load(tmp, &run, &err), 0);
	assert_int_equal(run.nr_results, 4);
	assert_string_equal(run.results[1].shape, "[7, 7]");
	assert_string_equal(run.results[1].error_msg, "CUDA out of memory");
	assert_true(isnan(run.results[1].latency_ms));
	assert_true(run.results[0].latency_ms == 0.5);
	assert_string_equal(run.results[3].shape, "[[2, 3.5], {\"dim\": -1, \"name\": \"x\"}]");
	for (i = 0; i < run.notes.nr; i++)
		strbuf_addf(&all, "%s\n", run.notes.v[i]);
	assert_non_null(strstr(all.buf, "error_msg"));
	assert_non_null(strstr(all.buf, "no latency"));
	assert_non_null(strstr(all.buf, "skipped"));
	zl_run_release(&run);

	/* a corrupt results.json is a note, not a failure */
	fx_write_text(path, "{\"mm\": [");
	zl_run_init(&run);
	assert_int_equal(zl_run_load(tmp, &run, &err), 0);
	assert_false(run.has_results);
	assert_non_null(strstr(run.notes.v[0], "results.json"));
	zl_run_release(&run);
	cJSON_Delete(id);
	free(path);
	fx_rmtree(tmp);
	strbuf_release(&err);
	strbuf_release(&all);
}

static void test_not_a_run(void **state)
{
	char *tmp = fx_tmpdir();
	char *path = zl_path_join(tmp, "run_identity.json");
	struct strbuf err = STRBUF_INIT;
	struct zl_run run;
	(void)state;

	zl_run_init(&run);
	assert_int_equal(zl_run_load(tmp, &run, &err), -1);
	assert_non_null(strstr(err.buf, "run_identity.json"));
	assert_null(run.identity);
	fx_write_text(path, "[1, 2]");
	assert_int_equal(zl_run_load(tmp, &run, &err), -1);
	assert_non_null(strstr(err.buf, "not a json object"));
	fx_write_text(path, "{\"status\": \"passed\"}");
	assert_int_equal(zl_run_load(tmp, &run, &err), -1);
	assert_non_null(strstr(err.buf, "run_id"));
	assert_int_equal(zl_run_load("/nonexistent/zl-run", &run, &err), -1);
	assert_non_null(strstr(err.buf, "/nonexistent/zl-run"));
	zl_run_release(&run);
	free(path);
	fx_rmtree(tmp);
	strbuf_release(&err);
}

static void test_timer_statistics(void **state)
{
	char *tmp = fx_tmpdir();
	char *path = zl_path_join(tmp, "plugins/timer.jsonl");
	cJSON *id = fx_identity("20261129-100000-cuda-mm-dddddd", "mm");
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	struct zl_run run;
	const struct zl_result *r;
	size_t i;
	(void)state;

	fx_write_run(tmp, id, FX_MM, 1.0, NULL, 0.02, 50);
	zl_run_init(&run);
	assert_int_equal(zl_run_load(tmp, &run, &err), 0);
	assert_true(run.has_timer);
	for (i = 0; i < run.nr_results; i++) {
		r = &run.results[i];
		assert_int_equal(r->samples, 50);
		assert_string_equal(r->timer, "direct");
		assert_true(fabs(r->iqr_ms - 0.02 * r->latency_ms) <= 1e-12 * r->latency_ms);
		/* cJSON may print results.json one ulp off, so not == */
		assert_true(fabs(r->median_ms - r->latency_ms) <= 1e-15 * r->latency_ms);
	}
	zl_run_release(&run);

	/* other spellings the plugin may use: dtype without "torch.", shape as text, bad lines */
	strbuf_addstr(&text, "{\"op\": \"mm\", \"dtype\": \"float32\", \"shape\": \"[[384,384],[384,384]]\","
		      " \"side\": \"gems\", \"used\": \"graph\", \"samples\": [1, 2, 3], \"median\": 9,"
		      " \"min\": 8, \"max\": 10, \"iqr\": 0.5}\n"
		      "not json\n\n"
		      "{\"op\": \"mm\", \"dtype\": \"float32\", \"shape\": [[1, 1]], \"side\": \"gems\"}\n"
		      "{\"op\": \"mm\", \"side\": \"sideways\"}\n");
	fx_write_text(path, text.buf);
	zl_run_init(&run);
	assert_int_equal(zl_run_load(tmp, &run, &err), 0);
	r = zl_run_find(&run, "mm", "torch.float32", "[[384, 384], [384, 384]]", 1, ZL_SIDE_GEMS);
	assert_non_null(r);
	assert_string_equal(r->timer, "graph");
	assert_int_equal(r->samples, 3);
	assert_true(r->iqr_ms == 0.5 && r->min_ms == 8 && r->max_ms == 10 && r->median_ms == 9);
	r = zl_run_find(&run, "mm", "torch.float32", "[[384, 384], [384, 384]]", 1, ZL_SIDE_TORCH);
	assert_true(isnan(r->iqr_ms));
	strbuf_reset(&text);
	for (i = 0; i < run.notes.nr; i++)
		strbuf_addf(&text, "%s\n", run.notes.v[i]);
	assert_non_null(strstr(text.buf, "1 of 5 lines are not json"));
	assert_non_null(strstr(text.buf, "2 measurements match no results row"));
	zl_run_release(&run);
	cJSON_Delete(id);
	free(path);
	fx_rmtree(tmp);
	strbuf_release(&err);
	strbuf_release(&text);
}

/* samples_ms and the fields around it (issue 13's contract); bad entries skipped and counted. */
static void test_raw_samples(void **state)
{
	char *tmp = fx_tmpdir();
	char *path = zl_path_join(tmp, "plugins/timer.jsonl");
	cJSON *id = fx_identity("20261129-100000-cuda-mm-eeeeee", "mm");
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	struct zl_run run;
	const struct zl_result *r;
	size_t i;
	(void)state;

	fx_write_run(tmp, id, FX_MM, 1.0, NULL, -1, 0);
	fx_write_samples(tmp, 64, 0.01, 5, NULL, 0, 1);
	zl_run_init(&run);
	assert_int_equal(zl_run_load(tmp, &run, &err), 0);
	assert_int_equal(run.rows_with_samples, 30);
	for (i = 0; i < run.nr_results; i++) {
		r = &run.results[i];
		assert_int_equal(r->nr_samples_ms, 64);
		assert_int_equal(r->samples_total, 64);
		assert_false(r->samples_subset);
		assert_string_equal(r->estimator, "trimmed_mean_0.1");
		assert_true(fabs(r->estimate_ms - r->latency_ms) <= 1e-15 * r->latency_ms);
		assert_true(fabs(r->samples_ms[0] / r->latency_ms - 1) < 0.1);
	}
	zl_run_release(&run);

	strbuf_addstr(&text, "{\"op\": \"mm\", \"dtype\": \"torch.float32\", \"shape\": [[384, 384], [384, 384]],"
		      " \"side\": \"gems\", \"samples_ms\": [0.1, -1, null, \"x\", 0, 0.2, 0.3],"
		      " \"samples_stored\": \"subset\", \"samples_total\": 700, \"noise_rel\": 0.004}\n"
		      "{\"op\": \"mm\", \"dtype\": \"torch.float32\", \"shape\": [[384, 384], [384, 384]],"
		      " \"side\": \"torch\", \"samples_ms\": []}\n");
	fx_write_text(path, text.buf);
	zl_run_init(&run);
	assert_int_equal(zl_run_load(tmp, &run, &err), 0);
	r = zl_run_find(&run, "mm", "torch.float32", "[[384, 384], [384, 384]]", 1, ZL_SIDE_GEMS);
	assert_int_equal(r->nr_samples_ms, 3);
	assert_true(r->samples_ms[0] == 0.1 && r->samples_ms[2] == 0.3);
	assert_true(r->samples_subset);
	assert_int_equal(r->samples_total, 700);
	assert_true(r->noise_rel == 0.004 && isnan(r->estimate_ms) && !r->estimator);
	r = zl_run_find(&run, "mm", "torch.float32", "[[384, 384], [384, 384]]", 1, ZL_SIDE_TORCH);
	assert_null(r->samples_ms);
	assert_int_equal(run.rows_with_samples, 1);
	strbuf_reset(&text);
	for (i = 0; i < run.notes.nr; i++)
		strbuf_addf(&text, "%s\n", run.notes.v[i]);
	assert_non_null(strstr(text.buf, "4 entries of samples_ms are not positive numbers"));
	zl_run_release(&run);
	cJSON_Delete(id);
	free(path);
	fx_rmtree(tmp);
	strbuf_release(&err);
	strbuf_release(&text);
}

/*
 * Many repeats of one key and many distinct keys: every row gets its occurrence and is
 * found by its key (the rows are indexed); timer records pair with the repeats in order;
 * the first of two rows with one whole key is the one found; rows filled by hand are found
 * by a scan until they are indexed.
 */
static void test_repeats_and_index(void **state)
{
	char *tmp = fx_tmpdir();
	char *results = zl_path_join(tmp, "results.json");
	char *timer = zl_path_join(tmp, "plugins/timer.jsonl");
	char *timer_dir = zl_path_join(tmp, "plugins");
	cJSON *id = fx_identity("20261129-100000-cuda-mm-eeeeee", "mm");
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT, shape = STRBUF_INIT;
	struct zl_run run, hand;
	const struct zl_result *r;
	int i;
	(void)state;

	fx_write_run(tmp, id, NULL, 1.0, NULL, -1, 0);
	strbuf_addstr(&text, "{\"mm\": {\"details\": [{\"op_name\": \"mm\", \"dtype\": \"torch.float16\", \"result\": [");
	for (i = 0; i < 3000; i++)
		strbuf_addf(&text, "%s{\"shape_detail\": [[%d]], \"latency\": %d, \"latency_base\": 1}", i ? ", " : "",
			    i < 1000 ? 7 : i, i + 1);
	strbuf_addstr(&text, "]}]}}\n");
	fx_write_text(results, text.buf);
	assert_int_equal(zl_mkdir_p(timer_dir, &err), 0);
	strbuf_reset(&text);
	for (i = 0; i < 1001; i++)
		strbuf_addf(&text, "{\"op\": \"mm\", \"dtype\": \"float16\", \"shape\": [[7]], \"side\": \"gems\","
			    " \"median_ms\": %d, \"samples\": 5}\n", i + 1);
	fx_write_text(timer, text.buf);

	zl_run_init(&run);
	assert_int_equal(zl_run_load(tmp, &run, &err), 0);
	assert_int_equal(run.nr_results, 6000);
	for (i = 0; i < 3000; i++) {
		int occ = i < 1000 ? i + 1 : 1;

		strbuf_reset(&shape);
		strbuf_addf(&shape, "[[%d]]", i < 1000 ? 7 : i);
		r = zl_run_find(&run, "mm", i % 2 ? "float16" : "torch.float16", shape.buf, occ, ZL_SIDE_GEMS);
		assert_non_null(r);
		assert_int_equal(r->occurrence, occ);
		assert_true(r->latency_ms == i + 1);
		/* the torch row of the same shape, right before it */
		assert_true(zl_run_find(&run, "mm", "float16", shape.buf, occ, ZL_SIDE_TORCH) == r - 1);
		/* the timer's 1000 records of [[7]] pair in order; the 1001st matches nothing */
		if (i < 1000)
			assert_true(r->median_ms == i + 1 && r->samples == 5);
	}
	assert_null(zl_run_find(&run, "mm", "float16", "[[7]]", 1001, ZL_SIDE_GEMS));
	assert_null(zl_run_find(&run, "mm", "float16", "[[7]]", 0, ZL_SIDE_GEMS));
	assert_null(zl_run_find(&run, "mm", "float32", "[[7]]", 1, ZL_SIDE_GEMS));
	assert_null(zl_run_find(&run, "add", "float16", "[[7]]", 1, ZL_SIDE_GEMS));
	strbuf_reset(&text);
	for (i = 0; i < (int)run.notes.nr; i++)
		strbuf_addf(&text, "%s\n", run.notes.v[i]);
	assert_non_null(strstr(text.buf, "1 measurements match no results row"));

	/* rows filled by hand (as history does): found by a scan, then through the index */
	zl_run_init(&hand);
	for (i = 0; i < 3; i++) {
		struct zl_result *h;

		ALLOC_GROW(hand.results, hand.nr_results + 1, hand.alloc_results);
		h = &hand.results[hand.nr_results++];
		memset(h, 0, sizeof(*h));
		h->op = xstrdup("mm");
		h->dtype = xstrdup("torch.float16");
		h->shape = xstrdup("[[1]]");
		h->occurrence = 1;  /* the same whole key three times */
		h->side = ZL_SIDE_GEMS;
		h->latency_ms = i;
	}
	r = zl_run_find(&hand, "mm", "float16", "[[1]]", 1, ZL_SIDE_GEMS);
	assert_true(r == &hand.results[0]);
	zl_run_index_rows(&hand);
	assert_true(zl_run_find(&hand, "mm", "float16", "[[1]]", 1, ZL_SIDE_GEMS) == &hand.results[0]);
	assert_null(zl_run_find(&hand, "mm", "float16", "[[1]]", 1, ZL_SIDE_TORCH));
	zl_run_release(&hand);

	zl_run_release(&run);
	cJSON_Delete(id);
	free(results);
	free(timer);
	free(timer_dir);
	fx_rmtree(tmp);
	strbuf_release(&err);
	strbuf_release(&text);
	strbuf_release(&shape);
}

static void test_canonical_json(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "[[384,384],[384,384]]", "[[384, 384], [384, 384]]" },
		{ "[0.1, 1e-05, -2, 1.5e300]", "[0.1, 1e-05, -2, 1.5e+300]" },
		{ "{\"a\":[true,false,null],\"b\":\"q\\\"\"}", "{\"a\": [true, false, null], \"b\": \"q\\\"\"}" },
		{ "[]", "[]" },
	};
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		cJSON *doc = cJSON_Parse(cases[i].in);
		assert_non_null(doc);
		zl_json_canonical(&sb, doc);
		assert_string_equal(sb.buf, cases[i].out);
		cJSON_Delete(doc);
		strbuf_release(&sb);
	}
}

/* Counts read from files: a number that no long (or int) holds falls back, never casts. */
static void test_json_whole_numbers(void **state)
{
	static const struct {
		const char *in;
		long l;
		int i;
	} cases[] = {
		{ "100", 100, 100 },
		{ "99.9", 99, 99 },
		{ "-3", -3, -3 },
		{ "1e64", -7, -7 },
		{ "-1e64", -7, -7 },
		{ "9223372036854775808", -7, -7 },	/* 2^63: one past LONG_MAX */
		{ "-9223372036854775808", LONG_MIN, -7 },
		{ "4294967296", 4294967296L, -7 },
		{ "\"12\"", -7, -7 },
		{ "null", -7, -7 },
	};
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *doc = cJSON_Parse(cases[i].in);
		assert_non_null(doc);
		assert_int_equal(zl_json_long(doc, -7), cases[i].l);
		assert_int_equal(zl_json_int(doc, -7), cases[i].i);
		cJSON_Delete(doc);
	}
	assert_int_equal(zl_json_long(NULL, 5), 5);
}

static void test_side_names(void **state)
{
	enum zl_side s;
	(void)state;

	assert_int_equal(zl_side_parse("GEMS", &s), 0);
	assert_int_equal(s, ZL_SIDE_GEMS);
	assert_int_equal(zl_side_parse("baseline", &s), 0);
	assert_int_equal(s, ZL_SIDE_TORCH);
	assert_int_equal(zl_side_parse("other", &s), -1);
	assert_int_equal(zl_side_parse(NULL, &s), -1);
	assert_string_equal(zl_side_name(ZL_SIDE_TORCH), "torch");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_results),
		cmocka_unit_test(test_shape_and_occurrence),
		cmocka_unit_test(test_failed_run_without_results),
		cmocka_unit_test(test_odd_rows),
		cmocka_unit_test(test_not_a_run),
		cmocka_unit_test(test_timer_statistics),
		cmocka_unit_test(test_raw_samples),
		cmocka_unit_test(test_repeats_and_index),
		cmocka_unit_test(test_canonical_json),
		cmocka_unit_test(test_json_whole_numbers),
		cmocka_unit_test(test_side_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
