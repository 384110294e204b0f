#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "zlbench/ab.h"
#include "zlbench/compare.h"
#include "zlbench/history.h"
#include "zlbench/runload.h"
#include "zlbench/stats.h"
#include "zlbench/strbuf.h"
#include "../fixtures/runs/runfixture.h"

#define close_to(x, want, tol) assert_true(fabs((x) - (want)) <= (tol))

static void test_order(void **state)
{
	static const char *const want[] = { "A1", "B1", "B2", "A2", "A3", "B3", "B4", "A4" };
	size_t k, round;
	int arm;
	(void)state;

	for (k = 0; k < 8; k++) {
		char name[8];

		zl_ab_position(k, &arm, &round);
		snprintf(name, sizeof(name), "%c%zu", arm ? 'B' : 'A', round);
		assert_string_equal(name, want[k]);
	}
}

/* Student t with 5 degrees of freedom in closed form (odd df): an independent check of p. */
static double t5_cdf(double t)
{
	double th = atan(t / sqrt(5.0)), c = cos(th);

	return 0.5 + (th + sin(th) * c * (1 + 2.0 / 3.0 * c * c)) / M_PI;
}

static void test_moderated(void **state)
{
	const double two[] = { 0.1, 0.1 }, spread[] = { 0.05, 0.15 };
	struct zl_paired p;
	double se;
	(void)state;

	/* two equal pairs: the pooled variance is the prior's 4/5, df 4 + 1 */
	zl_ab_moderated(two, 2, 0.01, 0.95, &p);
	se = sqrt(0.008 / 2);
	close_to(p.df, 5, 0);
	close_to(p.se_log, se, 1e-15);
	close_to(p.ratio, exp(0.1), 1e-15);
	/* t(0.975, 5) = 2.570581835636314 (tables: 2.571) */
	close_to(p.lo, exp(0.1 - 2.570581835636314 * se), 1e-12);
	close_to(p.hi, exp(0.1 + 2.570581835636314 * se), 1e-12);
	close_to(p.p, 2 * t5_cdf(-0.1 / se), 1e-12);
	/* the pairs' own variance enters with n - 1 degrees of freedom */
	zl_ab_moderated(spread, 2, 0.01, 0.95, &p);
	close_to(p.sd_log * p.sd_log, (4 * 0.01 + 1 * 0.005) / 5, 1e-15);
	/* one pair: the prior alone; none: nothing */
	zl_ab_moderated(two, 1, 0.01, 0.95, &p);
	close_to(p.se_log, 0.1, 1e-15);
	close_to(p.df, 4, 0);
	zl_ab_moderated(two, 0, 0.01, 0.95, &p);
	assert_true(isnan(p.ratio) && isnan(p.p));
}

static double *noisy(double center, double cv, size_t n, uint64_t seed)
{
	double *v = xcalloc(n, sizeof(*v));
	uint64_t s = seed;
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = center * exp(cv * fx_gauss(&s));
	return v;
}

static void test_row_verdicts(void **state)
{
	struct zl_verdict_opts o = ZL_VERDICT_OPTS_INIT;
	struct zl_ab_pair p[4];
	struct zl_row_verdict v, one;
	double *s[8];
	size_t i;
	(void)state;

	/* samples, A/A: 2 pairs of 200 samples, 1 % noise; each run a little shifted */
	for (i = 0; i < 4; i++)
		s[i] = noisy(i % 2 ? 1.004 : 0.998, 0.01, 200, 40 + i);
	p[0] = (struct zl_ab_pair){ 1, 1, NAN, NAN, -1, -1, s[0], s[1], 200, 200 };
	p[1] = (struct zl_ab_pair){ 1, 1, NAN, NAN, -1, -1, s[2], s[3], 200, 200 };
	assert_int_equal(zl_ab_row_verdict(p, 2, &o, &v), 1);
	assert_int_equal(v.verdict, ZL_VERDICT_SAME);
	assert_int_equal(v.method, ZL_METHOD_PAIRS);
	assert_int_equal(v.pairs, 2);
	assert_int_equal(v.a_n, 400);
	assert_true(v.ci_low < 1 && v.ci_high > 1);
	/* the interval is the moderated one: 5 degrees of freedom, not the pairs' 1 */
	assert_true(v.ci_high / v.ci_low < 1.1);
	for (i = 0; i < 4; i++)
		free(s[i]);

	/* samples, B 30 % slower: slower, p far below the level */
	for (i = 0; i < 4; i++)
		s[i] = noisy(i % 2 ? 1.3 : 1.0, 0.01, 200, 50 + i);
	p[0].a_s = s[0], p[0].b_s = s[1], p[1].a_s = s[2], p[1].b_s = s[3];
	zl_ab_row_verdict(p, 2, &o, &v);
	assert_int_equal(v.verdict, ZL_VERDICT_SLOWER);
	assert_true(v.p_value < ZL_VERDICT_ALPHA);
	close_to(v.ratio, 1.3, 0.01);
	/* one pair with samples is compare's own rule */
	zl_ab_row_verdict(p, 1, &o, &v);
	zl_verdict_samples(s[0], 200, s[1], 200, &o, &one);
	assert_int_equal(v.method, ZL_METHOD_SAMPLES);
	assert_true(v.ratio == one.ratio && v.ci_low == one.ci_low && v.verdict == one.verdict);
	for (i = 0; i < 4; i++)
		free(s[i]);

	/* samples: one round's B has two modes 20 % apart: unsure, not forced */
	for (i = 0; i < 4; i++)
		s[i] = noisy(1.0, 0.005, 200, 60 + i);
	for (i = 0; i < 60; i++)
		s[3][i] *= 1.2;
	p[0].a_s = s[0], p[0].b_s = s[1], p[1].a_s = s[2], p[1].b_s = s[3];
	zl_ab_row_verdict(p, 2, &o, &v);
	assert_int_equal(v.verdict, ZL_VERDICT_UNSURE);
	assert_int_equal(v.unsure, ZL_UNSURE_BIMODAL);
	assert_true(v.b_modes.bimodal && !v.a_modes.bimodal);
	for (i = 0; i < 4; i++)
		free(s[i]);

	/* no samples: the runs' latencies; B about twice as slow in both pairs */
	p[0] = (struct zl_ab_pair){ 1.0, 2.0, NAN, NAN, -1, -1, NULL, NULL, 0, 0 };
	p[1] = (struct zl_ab_pair){ 1.0, 2.1, NAN, NAN, -1, -1, NULL, NULL, 0, 0 };
	assert_int_equal(zl_ab_row_verdict(p, 2, &o, &v), 0);
	assert_int_equal(v.verdict, ZL_VERDICT_SLOWER);
	close_to(v.ratio, sqrt(2.0 * 2.1), 1e-12);
	close_to(v.a_ms, 1.0, 1e-15);
	close_to(v.b_ms, sqrt(2.0 * 2.1), 1e-12);
	/* noisy pairs that disagree: never faster or slower */
	p[0].b_ms = 1.3;
	p[1].b_ms = 0.8;
	zl_ab_row_verdict(p, 2, &o, &v);
	assert_int_equal(v.verdict, ZL_VERDICT_UNSURE);
	/* a 20 % change in both pairs against the fixed 5 % floor: slower */
	p[0].b_ms = 1.2;
	p[1].b_ms = 1.2;
	zl_ab_row_verdict(p, 2, &o, &v);
	assert_int_equal(v.verdict, ZL_VERDICT_SLOWER);
	/* +1 % and 0 %: inside the floor with the prior's 1.6 % run-to-run noise: same; +3 % and +2 % not */
	p[0].b_ms = 1.01;
	p[1].b_ms = 1.00;
	zl_ab_row_verdict(p, 2, &o, &v);
	assert_int_equal(v.verdict, ZL_VERDICT_SAME);
	p[0].b_ms = 1.03;
	p[1].b_ms = 1.02;
	zl_ab_row_verdict(p, 2, &o, &v);
	assert_int_equal(v.verdict, ZL_VERDICT_UNSURE);
	assert_int_equal(v.unsure, ZL_UNSURE_OVERLAP);
	/* the timer's IQR widens a latency-only interval */
	p[0] = (struct zl_ab_pair){ 1.0, 1.2, 0.6, 0.6, 5, 5, NULL, NULL, 0, 0 };
	p[1] = (struct zl_ab_pair){ 1.0, 1.2, 0.6, 0.6, 5, 5, NULL, NULL, 0, 0 };
	zl_ab_row_verdict(p, 2, &o, &v);
	assert_int_equal(v.verdict, ZL_VERDICT_UNSURE);
	assert_true(v.within_se_log > 0.2);
	/* a calibrated floor of 50 % makes the doubling unsure-or-same, never faster */
	o.floor_pct = 50;
	o.spread_rel = 0.2;
	p[0] = (struct zl_ab_pair){ 1.0, 1.4, NAN, NAN, -1, -1, NULL, NULL, 0, 0 };
	p[1] = (struct zl_ab_pair){ 1.0, 1.3, NAN, NAN, -1, -1, NULL, NULL, 0, 0 };
	zl_ab_row_verdict(p, 2, &o, &v);
	assert_true(v.verdict == ZL_VERDICT_SAME || v.verdict == ZL_VERDICT_UNSURE);
	close_to(v.threshold_pct, 50, 0);
	close_to(v.run_sd, 0.2, 1e-15);
}

struct runs {
	char *tmp;
	struct zl_run a[2], b[2];
	const struct zl_run *pa[2], *pb[2];
};

static int setup(void **state)
{
	struct runs *r = xcalloc(1, sizeof(*r));
	size_t i;

	r->tmp = fx_tmpdir();
	for (i = 0; i < 2; i++) {
		zl_run_init(&r->a[i]);
		zl_run_init(&r->b[i]);
		r->pa[i] = &r->a[i];
		r->pb[i] = &r->b[i];
	}
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct runs *r = *state;
	size_t i;

	for (i = 0; i < 2; i++) {
		zl_run_release(&r->a[i]);
		zl_run_release(&r->b[i]);
	}
	fx_rmtree(r->tmp);
	free(r);
	return 0;
}

/* A1 B1 B2 A2 of mm: B's gems latencies times b_scale; with n > 0 raw samples. */
static void write_rounds(struct runs *r, double b_scale, long n)
{
	static const char *const names[] = { "A1", "B1", "B2", "A2" };
	struct strbuf err = STRBUF_INIT;
	size_t k;

	for (k = 0; k < 4; k++) {
		int arm = names[k][0] == 'B';
		struct zl_run *run = arm ? &r->b[names[k][1] - '1'] : &r->a[names[k][1] - '1'];
		char *dir = zl_path_join(r->tmp, names[k]);
		cJSON *id = fx_identity(names[k], "mm");

		fx_write_run(dir, id, FX_MM, arm ? b_scale : 1.0, NULL, n ? -1 : 0.01, n ? 0 : 50);
		if (n)
			fx_write_samples(dir, n, 0.01, 70 + k, NULL, 0, 1);
		zl_run_release(run);
		zl_run_init(run);
		assert_int_equal(zl_run_load(dir, run, &err), 0);
		cJSON_Delete(id);
		free(dir);
	}
	strbuf_release(&err);
}

static const struct zl_ab_row *find_row(const struct zl_ab *ab, const char *dtype, enum zl_side side, size_t nth)
{
	size_t i;

	for (i = 0; i < ab->nr_rows; i++)
		if (ab->rows[i].side == side && !strcmp(ab->rows[i].dtype, dtype) && !nth--)
			return &ab->rows[i];
	return NULL;
}

static void test_analyse_samples(void **state)
{
	struct runs *r = *state;
	struct zl_compare_opts opts = ZL_COMPARE_OPTS_INIT;
	struct zl_ab ab;
	struct strbuf sb = STRBUF_INIT;
	cJSON *doc;
	size_t i;

	write_rounds(r, 1.2, 300);
	opts.fail_pct = 3;
	zl_ab_init(&ab);
	zl_ab_analyse(r->pa, r->pb, 2, &opts, &ab);
	assert_int_equal(ab.nr_rows, 30);
	assert_int_equal(ab.rows_samples, 30);
	/* every gems row 20 % slower, every torch row the same */
	assert_int_equal(ab.counts[ZL_VERDICT_SLOWER], 15);
	assert_int_equal(ab.counts[ZL_VERDICT_SAME], 15);
	for (i = 0; i < ab.nr_rows; i++) {
		const struct zl_ab_row *row = &ab.rows[i];

		assert_int_equal(row->pairs, 2);
		assert_int_equal(row->v.verdict, row->side == ZL_SIDE_GEMS ? ZL_VERDICT_SLOWER : ZL_VERDICT_SAME);
		assert_int_equal(row->gate_failed, row->side == ZL_SIDE_GEMS);
		close_to(row->pair_ratio[0], row->side == ZL_SIDE_GEMS ? 1.2 : 1.0, 0.01);
	}
	close_to(ab.gems.geomean, 1.2, 0.005);
	assert_true(ab.gems.lo < ab.gems.geomean && ab.gems.hi > ab.gems.geomean);
	assert_int_equal(ab.gems.rows, 15);
	close_to(ab.torch.geomean, 1.0, 0.005);
	assert_true(ab.gate_failed);
	assert_non_null(strstr(ab.floor_summary, "fixed 5%"));
	/* the JSON rows carry the contract's fields */
	doc = cJSON_CreateObject();
	assert_int_equal(zl_ab_json(&ab, doc), 0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "rows")), 30);
	assert_string_equal(zl_json_path_string(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "rows"), 1), "method"), "pairs");
	assert_string_equal(zl_json_path_string(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "rows"), 1), "floor.source"),
			    "fixed");
	assert_true(cJSON_IsTrue(zl_json_path(doc, "gate.failed")));
	cJSON_Delete(doc);
	zl_ab_render_csv(&ab, &sb);
	assert_non_null(strstr(sb.buf, "op,dtype,shape,occurrence,side,a_ms,b_ms,ratio,ci_low,ci_high,p_value,verdict"));
	strbuf_reset(&sb);
	zl_ab_render_markdown(&ab, NULL, &sb);
	assert_non_null(strstr(sb.buf, "**slower**"));
	strbuf_release(&sb);
	zl_ab_release(&ab);
}

static void test_analyse_latencies(void **state)
{
	struct runs *r = *state;
	struct zl_compare_opts opts = ZL_COMPARE_OPTS_INIT;
	struct zl_calibration cal;
	struct zl_ab ab;
	const struct zl_ab_row *row;
	size_t c;

	/* A/A without samples: identical latencies in every round */
	write_rounds(r, 1.0, 0);
	zl_ab_init(&ab);
	zl_ab_analyse(r->pa, r->pb, 2, &opts, &ab);
	assert_int_equal(ab.rows_samples, 0);
	assert_int_equal(ab.counts[ZL_VERDICT_SLOWER] + ab.counts[ZL_VERDICT_FASTER], 0);
	assert_int_equal(ab.counts[ZL_VERDICT_SAME], 30);
	assert_false(ab.gate_failed);
	zl_ab_release(&ab);

	/* a calibration's floor and name reach the rows */
	zl_calibration_init(&cal);
	cal.id = 7;
	cal.backend = xstrdup("cuda");
	for (c = 0; c < ZL_SIZE__COUNT; c++) {
		cal.cls[c].present = c != ZL_SIZE_5_50US;
		cal.cls[c].floor_pct = 2;
		cal.cls[c].spread_rel = 0.004;
	}
	opts.calibration = &cal;
	write_rounds(r, 1.5, 0);
	zl_ab_init(&ab);
	zl_ab_analyse(r->pa, r->pb, 2, &opts, &ab);
	assert_int_equal(ab.calibration_id, 7);
	assert_non_null(strstr(ab.floor_summary, "calibration 7"));
	assert_non_null(strstr(ab.floor_summary, "other classes: fixed 5%"));
	assert_null(ab.opts.calibration);
	row = find_row(&ab, "torch.float16", ZL_SIDE_GEMS, 0);
	assert_non_null(row);
	assert_true(row->floor_calibrated && row->floor_pct == 2);
	assert_int_equal(row->v.verdict, ZL_VERDICT_SLOWER);
	close_to(ab.gems.geomean, 1.5, 1e-9);
	zl_ab_release(&ab);
	zl_calibration_release(&cal);
}

static void test_lost_shape(void **state)
{
	struct runs *r = *state;
	struct zl_compare_opts opts = ZL_COMPARE_OPTS_INIT;
	struct zl_ab ab;
	size_t i, lost = 0;

	write_rounds(r, 1.0, 0);
	/* B lost its gems rows of float32 in both rounds (a crash after float16) */
	for (i = 0; i < 2; i++) {
		size_t k;

		for (k = 0; k < r->b[i].nr_results; k++)
			if (r->b[i].results[k].side == ZL_SIDE_GEMS && !strcmp(r->b[i].results[k].dtype, "torch.float32"))
				r->b[i].results[k].latency_ms = NAN;
	}
	opts.fail_pct = 5;
	zl_ab_init(&ab);
	zl_ab_analyse(r->pa, r->pb, 2, &opts, &ab);
	for (i = 0; i < ab.nr_rows; i++)
		lost += ab.rows[i].lost_in_b;
	assert_int_equal(lost, 5);
	assert_int_equal(ab.counts[ZL_VERDICT_MISSING], 5);
	assert_true(ab.gate_failed);
	zl_ab_gate_add(&ab, "B2 did not pass");
	assert_string_equal(ab.gate_reasons.v[ab.gate_reasons.nr - 1], "B2 did not pass");
	zl_ab_release(&ab);
}

static void test_caliber(void **state)
{
	struct runs *r = *state;
	struct strvec allowed = STRVEC_INIT, refusals = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	char *adir = zl_path_join(r->tmp, "A"), *bdir = zl_path_join(r->tmp, "B");
	cJSON *ida = fx_identity("A", "mm"), *idb = fx_identity("B", "mm");

	fx_set_str(idb, "env.FLAGGEMS_DEMO_SLOWDOWN", "mm=2");
	fx_write_run(adir, ida, FX_MM, 1, NULL, -1, 0);
	fx_write_run(bdir, idb, FX_MM, 1, NULL, -1, 0);
	assert_int_equal(zl_run_load(adir, &r->a[0], &err), 0);
	assert_int_equal(zl_run_load(bdir, &r->b[0], &err), 0);
	/* an env variable nobody named is refused; named, it is the A/B variable */
	assert_int_equal(zl_ab_caliber(&r->a[0], &r->b[0], &allowed, &refusals), 1);
	assert_string_equal(refusals.v[0], "env FLAGGEMS_DEMO_SLOWDOWN: (unset) vs mm=2");
	strvec_clear(&refusals);
	strvec_push(&allowed, "env FLAGGEMS_DEMO_SLOWDOWN");
	assert_int_equal(zl_ab_caliber(&r->a[0], &r->b[0], &allowed, &refusals), 0);
	/* a must-match field always is */
	fx_set_str(idb, "level", "comprehensive");
	fx_write_run(bdir, idb, FX_MM, 1, NULL, -1, 0);
	zl_run_release(&r->b[0]);
	zl_run_init(&r->b[0]);
	assert_int_equal(zl_run_load(bdir, &r->b[0], &err), 0);
	assert_int_equal(zl_ab_caliber(&r->a[0], &r->b[0], &allowed, &refusals), 1);
	assert_string_equal(refusals.v[0], "level: core vs comprehensive");
	cJSON_Delete(ida);
	cJSON_Delete(idb);
	strvec_clear(&allowed);
	strvec_clear(&refusals);
	strbuf_release(&err);
	free(adir);
	free(bdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_moderated),
		cmocka_unit_test(test_row_verdicts),
		cmocka_unit_test_setup_teardown(test_analyse_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_analyse_latencies, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_shape, setup, teardown),
		cmocka_unit_test_setup_teardown(test_caliber, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
