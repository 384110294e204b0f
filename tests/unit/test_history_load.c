/* zl_history_load_run(): a run rebuilt from the history database equals the run loaded from disk. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "zlbench/history.h"
#include "zlbench/runload.h"
#include "zlbench/strbuf.h"
#include "../fixtures/runs/runfixture.h"

#define RUN_ID "20261129-100000-cuda-mm-aaaaaa"

struct fx {
	char *tmp, *db, *dir;
	struct zl_history *h;
	struct zl_run disk;
};

static int setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));
	struct strbuf err = STRBUF_INIT;
	cJSON *id = fx_identity(RUN_ID, "mm");

	f->tmp = fx_tmpdir();
	f->db = zl_path_join(f->tmp, "history.db");
	f->dir = zl_path_join(f->tmp, RUN_ID);
	fx_set_str(id, "autotune.mode", "replay");
	fx_set_str(id, "autotune.replay_from", "/runs/20261129-090000-cuda-mm-ffffff");
	fx_set_num(id, "tuner_cache.winners_before", 12);
	fx_write_run(f->dir, id, FX_MM, 1.1, "torch.float16", 0.01, 20);
	cJSON_Delete(id);
	zl_run_init(&f->disk);
	assert_int_equal(zl_run_load(f->dir, &f->disk, &err), 0);
	assert_int_equal(zl_history_open(f->db, &f->h, &err), 0);
	assert_int_equal(zl_history_ingest_loaded(f->h, &f->disk, &err), 0);
	strbuf_release(&err);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	zl_history_close(f->h);
	zl_run_release(&f->disk);
	fx_rmtree(f->tmp);
	free(f->db);
	free(f->dir);
	free(f);
	return 0;
}

static void same_str(const char *a, const char *b)
{
	if (!a || !b)
		assert_true(!a && !b);
	else
		assert_string_equal(a, b);
}

static void same_num(double a, double b)
{
	assert_true((isnan(a) && isnan(b)) || a == b);
}

/* Every field compare reads, and every row, as zl_run_load gave them. */
static void assert_same_run(const struct zl_run *d, const struct zl_run *h)
{
	size_t i;

#define SAME(field) same_str(d->field, h->field)
	SAME(run_id); SAME(started_at); SAME(finished_at); SAME(backend); SAME(vendor);
	SAME(device_name); SAME(level); SAME(shape_mode); SAME(shape_sha256); SAME(test_node);
	SAME(op); SAME(flaggems_mode); SAME(flaggems_commit); SAME(timer_plan);
	SAME(tuner_cache_mode); SAME(autotune_mode); SAME(replay_from); SAME(status); SAME(host);
#undef SAME
	same_str(d->dir, h->dir);
	same_num(d->duration_s, h->duration_s);
	assert_int_equal(d->exit_code, h->exit_code);
	assert_int_equal(d->winners_before, h->winners_before);
	assert_int_equal(d->has_results, h->has_results);
	assert_int_equal(d->has_timer, h->has_timer);
	assert_non_null(h->identity);
	assert_int_equal(d->nr_results, h->nr_results);
	for (i = 0; i < d->nr_results; i++) {
		const struct zl_result *x = &d->results[i], *y = &h->results[i];

		same_str(x->op, y->op);
		same_str(x->dtype, y->dtype);
		same_str(x->shape, y->shape);
		assert_int_equal(x->occurrence, y->occurrence);
		assert_int_equal(x->side, y->side);
		same_num(x->latency_ms, y->latency_ms);
		same_num(x->latency_base_ms, y->latency_base_ms);
		same_num(x->speedup, y->speedup);
		same_str(x->timer, y->timer);
		assert_int_equal(x->samples, y->samples);
		same_num(x->median_ms, y->median_ms);
		same_num(x->iqr_ms, y->iqr_ms);
		same_str(x->error_msg, y->error_msg);
	}
}

static void test_round_trip(void **state)
{
	struct fx *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct zl_run h;
	const char *note;

	assert_null(zl_history_loaded_note(&f->disk));
	/* the directory still there: the run is the same, the note says only where it came from */
	zl_run_init(&h);
	assert_int_equal(zl_history_load_run(f->h, RUN_ID, &h, &err), 0);
	assert_same_run(&f->disk, &h);
	note = zl_history_loaded_note(&h);
	assert_non_null(note);
	assert_null(strstr(note, "directory gone"));
	zl_run_release(&h);

	/* gone: by id, by prefix and by the directory it had */
	fx_rmtree(xstrdup(f->dir));
	zl_run_init(&h);
	assert_int_equal(zl_history_load_run(f->h, "20261129-1000", &h, &err), 0);
	assert_same_run(&f->disk, &h);
	note = zl_history_loaded_note(&h);
	assert_non_null(strstr(note, "loaded from history: directory gone ("));
	assert_non_null(strstr(note, f->dir));
	assert_non_null(strstr(note, "30 result rows"));
	zl_run_release(&h);
	zl_run_init(&h);
	assert_int_equal(zl_history_load_run(f->h, f->dir, &h, &err), 0);
	assert_string_equal(h.run_id, RUN_ID);
	zl_run_release(&h);
	strbuf_release(&err);
}

static void test_not_found_and_ambiguous(void **state)
{
	struct fx *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct zl_run h, other;

	zl_run_init(&h);
	assert_int_equal(zl_history_load_run(f->h, "20261129-999999", &h, &err), -1);
	assert_non_null(strstr(err.buf, "no run '20261129-999999'"));
	assert_null(h.identity);

	/* a second run under another id: a shared prefix names both */
	zl_run_init(&other);
	assert_int_equal(zl_run_load(f->dir, &other, &err), 0);
	free(other.run_id);
	other.run_id = xstrdup("20261129-100000-cuda-mm-bbbbbb");
	assert_int_equal(zl_history_ingest_loaded(f->h, &other, &err), 0);
	zl_run_release(&other);
	strbuf_reset(&err);
	assert_int_equal(zl_history_load_run(f->h, "20261129-100000", &h, &err), -1);
	assert_non_null(strstr(err.buf, "ambiguous"));
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_found_and_ambiguous, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
