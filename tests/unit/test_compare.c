#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "zlbench/compare.h"
#include "zlbench/runload.h"
#include "zlbench/strbuf.h"
#include "../fixtures/runs/runfixture.h"

/* ---- statistics -------------------------------------------------------------- */

static void test_splitmix64_reference(void **state)
{
	/* reference outputs of Vigna's splitmix64.c for seed 0 */
	uint64_t s = 0;
	(void)state;

	assert_true(zl_splitmix64(&s) == UINT64_C(0xe220a8397b1dcdaf));
	assert_true(zl_splitmix64(&s) == UINT64_C(0x6e789e6aa1b965f4));
	assert_true(zl_splitmix64(&s) == UINT64_C(0x06c45d188009454f));
}

static void test_geomean_by_hand(void **state)
{
	const double r4[] = { 0.5, 2.0, 1.0, 4.0 };
	const double same[] = { 1.1, 1.1, 1.1 };
	const double two[] = { 1.0, 4.0 };
	struct zl_geomean g, g2;
	(void)state;

	/* (0.5 * 2 * 1 * 4)^(1/4) = 4^(1/4) = sqrt(2) */
	zl_geomean_ci(r4, 4, 2000, ZL_BOOTSTRAP_SEED, &g);
	assert_int_equal(g.n, 4);
	assert_true(fabs(g.geomean - sqrt(2.0)) < 1e-12);
	assert_true(g.lo <= g.geomean && g.geomean <= g.hi);
	assert_true(g.lo >= 0.5 && g.hi <= 4.0);
	zl_geomean_ci(r4, 4, 2000, ZL_BOOTSTRAP_SEED, &g2);
	assert_true(g.lo == g2.lo && g.hi == g2.hi);

	/* identical ratios: every resample is that ratio */
	zl_geomean_ci(same, 3, 2000, ZL_BOOTSTRAP_SEED, &g);
	assert_true(fabs(g.geomean - 1.1) < 1e-12 && fabs(g.lo - 1.1) < 1e-12 && fabs(g.hi - 1.1) < 1e-12);

	/*
	 * Two ratios 1 and 4: a resample is {1,1} (geomean 1), {1,4} (2) or {4,4} (4) with
	 * probabilities 1/4, 1/2, 1/4, so about 500 of 2000 resamples sit at each end and
	 * the 2.5th and 97.5th percentiles are exactly 1 and 4; the geomean is 2.
	 */
	zl_geomean_ci(two, 2, 2000, ZL_BOOTSTRAP_SEED, &g);
	assert_true(fabs(g.geomean - 2.0) < 1e-12);
	assert_true(fabs(g.lo - 1.0) < 1e-12);
	assert_true(fabs(g.hi - 4.0) < 1e-12);

	zl_geomean_ci(two, 1, 2000, ZL_BOOTSTRAP_SEED, &g);
	assert_true(g.geomean == 1.0 && g.lo == 1.0 && g.hi == 1.0);
	zl_geomean_ci(two, 0, 2000, ZL_BOOTSTRAP_SEED, &g);
	assert_int_equal(g.n, 0);
	assert_true(isnan(g.geomean) && isnan(g.lo));
}

static void test_verdicts(void **state)
{
	enum zl_noise_basis basis;
	double band;
	(void)state;

	/* IQR rule: same when |B-A| <= max((IQR_A + IQR_B) / 2, threshold * A) */
	assert_int_equal(zl_compare_verdict(1.0, 1.08, 0.1, 50, 0.1, 50, 5, &band, &basis), ZL_VERDICT_SAME);
	assert_int_equal(basis, ZL_BASIS_IQR);
	assert_true(fabs(band - 0.1) < 1e-15);
	assert_int_equal(zl_compare_verdict(1.0, 1.08, 0.02, 50, 0.04, 50, 5, &band, &basis), ZL_VERDICT_SLOWER);
	assert_int_equal(zl_compare_verdict(1.0, 0.92, 0.02, 50, 0.04, 50, 5, &band, &basis), ZL_VERDICT_FASTER);
	/* 2 % change, tight noise: the run-to-run floor (the threshold) keeps it "same"... */
	assert_int_equal(zl_compare_verdict(1.0, 1.02, 0.001, 50, 0.001, 50, 5, &band, &basis), ZL_VERDICT_SAME);
	assert_int_equal(basis, ZL_BASIS_IQR);
	assert_true(fabs(band - 0.05) < 1e-15);
	/* ...and with a 1 % floor it is beyond noise */
	assert_int_equal(zl_compare_verdict(1.0, 1.02, 0.001, 50, 0.001, 50, 1, &band, &basis), ZL_VERDICT_SLOWER);
	assert_true(fabs(band - 0.01) < 1e-15);
	/* no statistics (or one sample) on a side: the threshold decides */
	assert_int_equal(zl_compare_verdict(1.0, 1.02, NAN, -1, 0.001, 50, 5, &band, &basis), ZL_VERDICT_SAME);
	assert_int_equal(basis, ZL_BASIS_THRESHOLD);
	assert_int_equal(zl_compare_verdict(1.0, 1.02, 0.0, 1, 0.0, 1, 5, &band, &basis), ZL_VERDICT_SAME);
	assert_int_equal(basis, ZL_BASIS_THRESHOLD);
	assert_int_equal(zl_compare_verdict(1.0, 1.06, NAN, -1, NAN, -1, 5, &band, &basis), ZL_VERDICT_SLOWER);
	assert_int_equal(zl_compare_verdict(1.0, 1.06, NAN, -1, NAN, -1, 10, &band, &basis), ZL_VERDICT_SAME);
	/* the band alone, as the gate uses it with its own floor */
	assert_true(fabs(zl_compare_band(1.0, 0.001, 50, 0.001, 50, 3, &basis) - 0.03) < 1e-15);
	assert_int_equal(basis, ZL_BASIS_IQR);
	assert_true(fabs(zl_compare_band(1.0, 0.1, 50, 0.06, 50, 3, &basis) - 0.08) < 1e-15);
	assert_true(fabs(zl_compare_band(2.0, NAN, -1, 0.1, 50, 3, &basis) - 0.06) < 1e-15);
	assert_int_equal(basis, ZL_BASIS_THRESHOLD);
	/* missing or non-positive latencies */
	assert_int_equal(zl_compare_verdict(NAN, 1.0, 0.1, 5, 0.1, 5, 5, &band, &basis), ZL_VERDICT_MISSING);
	assert_int_equal(basis, ZL_BASIS_NONE);
	assert_int_equal(zl_compare_verdict(1.0, 0.0, 0.1, 5, 0.1, 5, 5, &band, &basis), ZL_VERDICT_MISSING);
}

/* ---- runs ------------------------------------------------------------------------ */

struct pair {
	char *tmp, *adir, *bdir;
	cJSON *aid, *bid;
	struct zl_run a, b;
};

static int setup(void **state)
{
	struct pair *p = xcalloc(1, sizeof(*p));

	p->tmp = fx_tmpdir();
	p->adir = zl_path_join(p->tmp, "20261129-100000-cuda-mm-aaaaaa");
	p->bdir = zl_path_join(p->tmp, "20261129-110000-cuda-mm-bbbbbb");
	p->aid = fx_identity("20261129-100000-cuda-mm-aaaaaa", "mm");
	p->bid = fx_identity("20261129-110000-cuda-mm-bbbbbb", "mm");
	fx_set_str(p->bid, "started_at", "2026-11-29T11:00:00Z");
	zl_run_init(&p->a);
	zl_run_init(&p->b);
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	struct pair *p = *state;

	zl_run_release(&p->a);
	zl_run_release(&p->b);
	cJSON_Delete(p->aid);
	cJSON_Delete(p->bid);
	free(p->adir);
	free(p->bdir);
	fx_rmtree(p->tmp);
	free(p);
	return 0;
}

/* Write both runs (B's gems latencies of scale_dtype scaled) and load them. */
static void write_and_load(struct pair *p, double scale, const char *scale_dtype, double iqr)
{
	struct strbuf err = STRBUF_INIT;

	zl_run_release(&p->a);
	zl_run_release(&p->b);
	fx_write_run(p->adir, p->aid, FX_MM, 1.0, NULL, iqr, 50);
	fx_write_run(p->bdir, p->bid, FX_MM, scale, scale_dtype, iqr, 50);
	assert_int_equal(zl_run_load(p->adir, &p->a, &err), 0);
	assert_int_equal(zl_run_load(p->bdir, &p->b, &err), 0);
	strbuf_release(&err);
}

static void test_caliber_match_and_variables(void **state)
{
	struct pair *p = *state;
	struct zl_caliber cal;
	size_t i;
	int saw_commit = 0, saw_env = 0;

	fx_set_str(p->bid, "flaggems.commit", "1234abcd");
	fx_set_str(p->bid, "env.TRITON_ALWAYS_COMPILE", "1");
	fx_set_str(p->aid, "env.ZL_ONLY_IN_A", "x");
	/* set by zlbench for every run: compared through the caliber, not listed */
	fx_set_str(p->aid, "env.ZL_RUN_DIR", p->adir);
	fx_set_str(p->bid, "env.ZL_RUN_DIR", p->bdir);
	fx_set_str(p->bid, "env.ZL_AUTOTUNE_MODE", "record");
	write_and_load(p, 1.0, NULL, -1);
	zl_caliber_init(&cal);
	assert_int_equal(zl_caliber_check(&p->a, &p->b, &cal), 0);
	for (i = 0; i < cal.variables.nr; i++) {
		const struct zl_diff *d = &cal.variables.v[i];
		if (!strcmp(d->field, "flaggems commit")) {
			saw_commit = 1;
			assert_string_equal(d->a, "ed2508bc");
			assert_string_equal(d->b, "1234abcd");
		} else if (!strcmp(d->field, "env TRITON_ALWAYS_COMPILE")) {
			saw_env++;
			assert_string_equal(d->a, "(unset)");
			assert_string_equal(d->b, "1");
		} else if (!strcmp(d->field, "env ZL_ONLY_IN_A")) {
			saw_env++;
			assert_string_equal(d->b, "(unset)");
		}
	}
	assert_true(saw_commit);
	assert_int_equal(saw_env, 2);
	assert_int_equal(cal.variables.nr, 3);
	zl_caliber_release(&cal);
}

static void test_timer_fallback_flagged(void **state)
{
	struct pair *p = *state;
	struct zl_caliber cal;

	fx_set_str(p->aid, "timer.plan", "graph");
	fx_set_str(p->bid, "timer.plan", "graph");
	fx_set_str(p->aid, "timer.used", "graph");
	fx_set_str(p->bid, "timer.used", "direct");
	fx_set_str(p->bid, "autotune.mode", "replay");
	fx_set_str(p->bid, "autotune.replay_from", p->adir);
	write_and_load(p, 1.0, NULL, -1);
	zl_caliber_init(&cal);
	assert_int_equal(zl_caliber_check(&p->a, &p->b, &cal), 0);
	assert_int_equal(cal.flags.nr, 1);
	assert_non_null(strstr(cal.flags.v[0], "A was measured with the graph timer and B with the direct"));
	zl_caliber_release(&cal);
}

static void test_caliber_mismatch(void **state)
{
	struct pair *p = *state;
	struct zl_caliber cal;

	fx_set_str(p->bid, "level", "comprehensive");
	fx_set_str(p->bid, "timer.plan", "graph");
	fx_set(p->bid, "devices", cJSON_Parse("[{\"index\": 0, \"name\": \"NVIDIA H100\"}]"));
	write_and_load(p, 1.0, NULL, -1);
	zl_caliber_init(&cal);
	assert_int_equal(zl_caliber_check(&p->a, &p->b, &cal), 3);
	assert_string_equal(cal.mismatches.v[0].field, "device name");
	assert_string_equal(cal.mismatches.v[0].b, "NVIDIA H100");
	assert_string_equal(cal.mismatches.v[1].field, "level");
	assert_string_equal(cal.mismatches.v[1].a, "core");
	assert_string_equal(cal.mismatches.v[1].b, "comprehensive");
	assert_string_equal(cal.mismatches.v[2].field, "timer plan");
	zl_caliber_release(&cal);

	/* a field absent on one side is a mismatch too */
	cJSON_DeleteItemFromObjectCaseSensitive(p->bid, "devices");
	fx_set_str(p->bid, "level", "core");
	fx_set_str(p->bid, "timer.plan", "direct");
	fx_set(p->bid, "shape_file.sha256", cJSON_CreateNull());
	write_and_load(p, 1.0, NULL, -1);
	zl_caliber_init(&cal);
	assert_int_equal(zl_caliber_check(&p->a, &p->b, &cal), 2);
	assert_string_equal(cal.mismatches.v[0].b, "(none)");
	assert_string_equal(cal.mismatches.v[1].field, "shape sha256");
	zl_caliber_release(&cal);
}

static void test_autotune_replay_is_proper(void **state)
{
	struct pair *p = *state;
	struct zl_caliber cal;
	char *moved;

	fx_set_str(p->bid, "autotune.mode", "replay");
	fx_set_str(p->bid, "autotune.replay_from", p->adir);
	fx_set_num(p->bid, "tuner_cache.winners_before", 12);
	write_and_load(p, 1.0, NULL, -1);
	zl_caliber_init(&cal);
	zl_caliber_check(&p->a, &p->b, &cal);
	assert_true(cal.autotune_proper);
	assert_non_null(strstr(cal.autotune, "B replays A's"));
	assert_false(cal.cache_inheritance);
	assert_int_equal(cal.flags.nr, 0);
	zl_caliber_release(&cal);

	/* the records were replayed from a path that no longer exists, named by A's run id */
	moved = xstrfmt("/elsewhere/runs/%s", p->a.run_id);
	fx_set_str(p->bid, "autotune.replay_from", moved);
	write_and_load(p, 1.0, NULL, -1);
	zl_caliber_init(&cal);
	zl_caliber_check(&p->a, &p->b, &cal);
	assert_true(cal.autotune_proper);
	zl_caliber_release(&cal);
	free(moved);

	/* replaying someone else's records is flagged */
	fx_set_str(p->bid, "autotune.replay_from", "/elsewhere/runs/20260101-000000-cuda-mm-ffffff");
	write_and_load(p, 1.0, NULL, -1);
	zl_caliber_init(&cal);
	zl_caliber_check(&p->a, &p->b, &cal);
	assert_false(cal.autotune_proper);
	assert_int_equal(cal.flags.nr, 1);
	assert_non_null(strstr(cal.flags.v[0], "not A's"));
	zl_caliber_release(&cal);
}

static void test_cache_inheritance(void **state)
{
	struct pair *p = *state;
	struct zl_caliber cal;

	/* record vs record on a shared cache: B (later) found 12 winners stored */
	fx_set_num(p->bid, "tuner_cache.winners_before", 12);
	write_and_load(p, 1.0, NULL, -1);
	zl_caliber_init(&cal);
	zl_caliber_check(&p->a, &p->b, &cal);
	assert_false(cal.autotune_proper);
	assert_true(cal.cache_inheritance);
	assert_int_equal(cal.flags.nr, 2);
	assert_non_null(strstr(cal.flags.v[1], "cache inheritance: B started with 12 tuner winners"));
	zl_caliber_release(&cal);

	/* the same with an isolated cache is only the record-vs-record flag */
	fx_set_str(p->aid, "tuner_cache.mode", "isolated");
	fx_set_str(p->bid, "tuner_cache.mode", "isolated");
	write_and_load(p, 1.0, NULL, -1);
	zl_caliber_init(&cal);
	zl_caliber_check(&p->a, &p->b, &cal);
	assert_false(cal.cache_inheritance);
	assert_int_equal(cal.flags.nr, 1);
	zl_caliber_release(&cal);

	/* the later run is the one that inherits, whichever is called A */
	fx_set_str(p->aid, "tuner_cache.mode", "shared");
	fx_set_str(p->bid, "tuner_cache.mode", "shared");
	fx_set_str(p->aid, "started_at", "2026-11-29T12:00:00Z");
	fx_set_num(p->aid, "tuner_cache.winners_before", 12);
	fx_set_num(p->bid, "tuner_cache.winners_before", 0);
	write_and_load(p, 1.0, NULL, -1);
	zl_caliber_init(&cal);
	zl_caliber_check(&p->a, &p->b, &cal);
	assert_true(cal.cache_inheritance);
	assert_non_null(strstr(cal.flags.v[1], "A started with 12"));
	zl_caliber_release(&cal);

	/* B's count unknown (null): may have inherited, and the flag says unknown */
	fx_set_str(p->aid, "started_at", "2026-11-29T10:00:00Z");
	fx_set_num(p->aid, "tuner_cache.winners_before", 0);
	fx_set(p->bid, "tuner_cache.winners_before", cJSON_CreateNull());
	write_and_load(p, 1.0, NULL, -1);
	zl_caliber_init(&cal);
	zl_caliber_check(&p->a, &p->b, &cal);
	assert_true(cal.cache_inheritance);
	assert_non_null(strstr(cal.flags.v[1], "B started with an unknown number of tuner winners (not counted)"));
	zl_caliber_release(&cal);
	/* an old identity's 0 from a database that could not be read is unknown too */
	fx_set_num(p->bid, "tuner_cache.winners_before", 0);
	fx_set_str(p->bid, "tuner_cache.note",
		   "tuner db '/home/u/.flaggems/config_cache/TunedConfig_nvidia_triton_3_6.db' not counted: database is locked");
	write_and_load(p, 1.0, NULL, -1);
	zl_caliber_init(&cal);
	zl_caliber_check(&p->a, &p->b, &cal);
	assert_true(cal.cache_inheritance);
	assert_non_null(strstr(cal.flags.v[1], "an unknown number of tuner winners"));
	zl_caliber_release(&cal);
	/* ... but a cache with nothing in it is a real 0 */
	fx_set_str(p->bid, "tuner_cache.note", "no tuner cache at '/home/u/.flaggems' (nothing tuned there yet)");
	write_and_load(p, 1.0, NULL, -1);
	zl_caliber_init(&cal);
	zl_caliber_check(&p->a, &p->b, &cal);
	assert_false(cal.cache_inheritance);
	zl_caliber_release(&cal);
	fx_set_str(p->bid, "tuner_cache.note", NULL);
	fx_set_str(p->aid, "started_at", "2026-11-29T12:00:00Z");
	fx_set_num(p->aid, "tuner_cache.winners_before", 12);

	/* no records on either side: the tuner cache is just as inheritable */
	fx_set_str(p->aid, "autotune.mode", "off");
	fx_set_str(p->bid, "autotune.mode", "off");
	write_and_load(p, 1.0, NULL, -1);
	zl_caliber_init(&cal);
	zl_caliber_check(&p->a, &p->b, &cal);
	assert_string_equal(cal.autotune, "off vs off: each side autotuned on its own");
	assert_true(cal.cache_inheritance);
	zl_caliber_release(&cal);
}

/* Write the autotune plugin's summary of a run, naming its tuned kernels. */
static void write_summary(const char *dir, const char *kernels_json)
{
	char *plugins = zl_path_join(dir, "plugins"), *path = zl_path_join(plugins, "autotune_summary.json");
	char *text = xstrfmt("{\"mode\": \"record\", \"kernels\": %s}", kernels_json);
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(zl_mkdir_p(plugins, &err), 0);
	fx_write_text(path, text);
	strbuf_release(&err);
	free(text);
	free(path);
	free(plugins);
}

static int inherits(struct pair *p)
{
	struct zl_caliber cal;
	int flagged;

	zl_caliber_init(&cal);
	zl_caliber_check(&p->a, &p->b, &cal);
	flagged = cal.cache_inheritance;
	/* record vs record is flagged either way; inheritance adds its own line */
	assert_int_equal(cal.flags.nr, flagged ? 2 : 1);
	zl_caliber_release(&cal);
	return flagged;
}

/*
 * Winners in the cache matter only to a run that asks a tuner, and only when the
 * earlier run stored some; kernel names, when both runs give them, must overlap.
 */
static void test_inheritance_needs_a_tuner(void **state)
{
	struct pair *p = *state;
	struct zl_caliber cal;

	/* two `add` runs (no tuner: recorded 0, no_tuner 1) after mm runs left 9 winners */
	fx_set_num(p->aid, "autotune.recorded", 0);
	fx_set_num(p->bid, "autotune.recorded", 0);
	fx_set_num(p->aid, "autotune.no_tuner", 1);
	fx_set_num(p->bid, "autotune.no_tuner", 1);
	fx_set_num(p->aid, "tuner_cache.winners_before", 9);
	fx_set_num(p->aid, "tuner_cache.winners_after", 9);
	fx_set_num(p->bid, "tuner_cache.winners_before", 9);
	fx_set_num(p->bid, "tuner_cache.winners_after", 9);
	write_and_load(p, 1.0, NULL, -1);
	assert_false(inherits(p));

	/* B tuned, but A stored nothing it could inherit */
	fx_set_num(p->bid, "autotune.recorded", 9);
	write_and_load(p, 1.0, NULL, -1);
	assert_false(inherits(p));

	/* A stored winners (9 -> 18) and B used a tuner: the trap */
	fx_set_num(p->aid, "tuner_cache.winners_after", 18);
	fx_set_num(p->bid, "tuner_cache.winners_before", 18);
	write_and_load(p, 1.0, NULL, -1);
	assert_true(inherits(p));

	/* ...and not when B's kernels have no tuner */
	fx_set_num(p->bid, "autotune.recorded", 0);
	write_and_load(p, 1.0, NULL, -1);
	assert_false(inherits(p));

	/* A's records alone say it stored winners (the counts unknown) */
	fx_set_num(p->bid, "autotune.recorded", 4);
	fx_set_num(p->aid, "autotune.recorded", 9);
	fx_set(p->aid, "tuner_cache.winners_after", cJSON_CreateNull());
	write_and_load(p, 1.0, NULL, -1);
	assert_true(inherits(p));

	/* kernel names from the plugin's summaries: disjoint kernels inherit nothing */
	write_summary(p->adir, "[\"flag_gems.ops.mm.mm_kernel_general_host_tma\"]");
	write_summary(p->bdir, "[\"flag_gems.ops.softmax.softmax_kernel\"]");
	assert_false(inherits(p));
	/* a shared kernel is named in the flag */
	write_summary(p->bdir, "[\"flag_gems.ops.softmax.softmax_kernel\", "
		      "\"flag_gems.ops.mm.mm_kernel_general_host_tma\"]");
	zl_caliber_init(&cal);
	zl_caliber_check(&p->a, &p->b, &cal);
	assert_true(cal.cache_inheritance);
	assert_non_null(strstr(cal.flags.v[1], "cache inheritance: B started with 18 tuner winners already in "
			       "the shared tuner cache and tuned kernels that A tuned too "
			       "(mm_kernel_general_host_tma)"));
	zl_caliber_release(&cal);
	/* the identity's own list wins over the files */
	fx_set(p->bid, "autotune.kernels", cJSON_Parse("[\"flag_gems.ops.add.other\"]"));
	write_and_load(p, 1.0, NULL, -1);
	assert_false(inherits(p));
	/* one side without names: the counts decide */
	fx_set(p->bid, "autotune.kernels", cJSON_CreateNull());
	cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(p->bid, "autotune"), "kernels");
	write_and_load(p, 1.0, NULL, -1);
	assert_true(inherits(p));
}

/* B's float16 gems side 20 % slower, the rest unchanged, no timer data: threshold rule. */
static void test_compare_rows_geomean_gate(void **state)
{
	struct pair *p = *state;
	struct zl_compare_opts opts = ZL_COMPARE_OPTS_INIT;
	struct zl_compare c;
	size_t i, slower = 0, same = 0;
	double expect;

	write_and_load(p, 1.2, "torch.float16", -1);
	opts.fail_pct = 5;
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_int_equal(c.nr_rows, 30);
	assert_int_equal(c.rows_threshold, 30);
	for (i = 0; i < c.nr_rows; i++) {
		const struct zl_compare_row *r = &c.rows[i];
		int f16 = !strcmp(r->dtype, "torch.float16");
		if (r->side == ZL_SIDE_GEMS && f16) {
			assert_int_equal(r->verdict, ZL_VERDICT_SLOWER);
			assert_true(fabs(r->ratio - 1.2) < 1e-12);
			slower++;
		} else {
			assert_int_equal(r->verdict, ZL_VERDICT_SAME);
			same++;
		}
	}
	assert_int_equal(slower, 5);
	assert_int_equal(same, 25);
	/* 5 shapes at 1.2 and 10 at 1.0: geomean = 1.2^(5/15) */
	expect = pow(1.2, 1.0 / 3.0);
	assert_int_equal(c.overall.n, 15);
	assert_true(fabs(c.overall.geomean - expect) < 1e-12);
	assert_true(c.overall.lo <= c.overall.geomean && c.overall.geomean <= c.overall.hi);
	assert_true(c.overall.lo >= 1.0 && c.overall.hi <= 1.2 + 1e-12);
	assert_int_equal(c.nr_ops, 1);
	assert_true(c.ops[0].geomean == c.overall.geomean && c.ops[0].lo == c.overall.lo);
	/* gate at 5 %: geomean is 6.3 % slower and 5 shapes 20 % slower */
	assert_true(c.gate_failed);
	assert_int_equal(c.gate_reasons.nr, 6);
	assert_non_null(strstr(c.gate_reasons.v[0], "overall geomean"));
	zl_compare_release(&c);

	opts.fail_pct = 25;
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_false(c.gate_failed);
	zl_compare_release(&c);

	opts.fail_pct = 10;
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_true(c.gate_failed);
	assert_int_equal(c.gate_reasons.nr, 5);
	zl_compare_release(&c);
}

/* With timer statistics, a 3 % change inside wide noise is "same", outside tight noise "slower". */
static void test_noise_aware(void **state)
{
	struct pair *p = *state;
	struct zl_compare_opts opts = ZL_COMPARE_OPTS_INIT;
	struct zl_compare c;
	size_t i;

	write_and_load(p, 1.03, NULL, 0.05);
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_int_equal(c.rows_iqr, 30);
	for (i = 0; i < c.nr_rows; i++)
		assert_int_equal(c.rows[i].verdict, ZL_VERDICT_SAME);
	zl_compare_release(&c);

	/* tight noise, but 3 % is under the default 5 % run-to-run floor: same */
	write_and_load(p, 1.03, NULL, 0.005);
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	for (i = 0; i < c.nr_rows; i++)
		assert_int_equal(c.rows[i].verdict, ZL_VERDICT_SAME);
	zl_compare_release(&c);

	/* with a 1 % floor the same tight noise makes 3 % a slowdown */
	opts.threshold_pct = 1;
	opts.fail_pct = 2;
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	for (i = 0; i < c.nr_rows; i++)
		assert_int_equal(c.rows[i].verdict,
				 c.rows[i].side == ZL_SIDE_GEMS ? ZL_VERDICT_SLOWER : ZL_VERDICT_SAME);
	assert_true(c.gate_failed);
	zl_compare_release(&c);

	/* the same 3 % with no timer data is within the 5 % threshold */
	opts.threshold_pct = 5;
	write_and_load(p, 1.03, NULL, -1);
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_int_equal(c.rows_threshold, 30);
	for (i = 0; i < c.nr_rows; i++)
		assert_int_equal(c.rows[i].verdict, ZL_VERDICT_SAME);
	/*
	 * geomean 1.03 > 1.02 fails the gate, and so does every gems shape: without timer
	 * data the gate's floor is min(threshold 5, pct 2) = 2 %, and 3 % is beyond it
	 */
	assert_true(c.gate_failed);
	assert_int_equal(c.gate_reasons.nr, 16);
	assert_int_equal(c.gate_rows, 15);
	assert_non_null(strstr(c.gate_reasons.v[0], "overall geomean"));
	assert_non_null(strstr(c.gate_reasons.v[1], "verdict same: within the 5% run-to-run floor"));
	zl_compare_release(&c);
}

/*
 * The gate honours a pct below the threshold: 4 % slower under a tight IQR is "same"
 * (the 5 % run-to-run floor) yet fails --fail-on-regression 3; wide noise still passes.
 */
static void test_gate_below_threshold(void **state)
{
	struct pair *p = *state;
	struct zl_compare_opts opts = ZL_COMPARE_OPTS_INIT;
	struct zl_compare c;
	size_t i, failed = 0;

	/* float16 only: the overall geomean 1.04^(1/3) = 1.013 stays under every limit below */
	write_and_load(p, 1.04, "torch.float16", 0.002);
	opts.fail_pct = 3;
	assert_true(zl_compare_gate_floor(&opts) == 3);
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_int_equal(c.rows_iqr, 30);
	for (i = 0; i < c.nr_rows; i++) {
		const struct zl_compare_row *r = &c.rows[i];
		int hit = r->side == ZL_SIDE_GEMS && !strcmp(r->dtype, "torch.float16");

		assert_int_equal(r->verdict, ZL_VERDICT_SAME);
		assert_int_equal(r->gate_failed, hit);
		/* the gate's band is the 3 % floor over a 0.2 % IQR */
		assert_true(fabs(r->gate_band_ms - 0.03 * r->a_ms) < 1e-12);
		failed += r->gate_failed;
	}
	assert_int_equal(failed, 5);
	assert_true(c.gate_failed);
	assert_int_equal(c.gate_rows, 5);
	assert_int_equal(c.gate_reasons.nr, 5);
	assert_non_null(strstr(c.gate_reasons.v[0], "(gems): B/A 1.0400, 4.0% slower beyond noise (limit 3%)"));
	assert_non_null(strstr(c.gate_reasons.v[0], "the 3% gate floor over tighter timer IQRs"));
	zl_compare_release(&c);

	/* 4 % is within a 5 % limit, and within 4.5 % */
	opts.fail_pct = 5;
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_false(c.gate_failed);
	assert_int_equal(c.gate_reasons.nr, 0);
	zl_compare_release(&c);
	opts.fail_pct = 4.5;
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_false(c.gate_failed);
	zl_compare_release(&c);

	/* a 5 % IQR on both sides covers 4 %: not beyond noise, whatever pct says */
	write_and_load(p, 1.04, "torch.float16", 0.05);
	opts.fail_pct = 3;
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_false(c.gate_failed);
	for (i = 0; i < c.nr_rows; i++)
		assert_true(c.rows[i].gate_band_ms >= 0.05 * c.rows[i].a_ms - 1e-15);
	zl_compare_release(&c);

	/* no gate: no gate band */
	opts.fail_pct = -1;
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_true(isnan(c.rows[0].gate_band_ms));
	zl_compare_release(&c);
}

static void test_missing_rows_and_renderers(void **state)
{
	struct pair *p = *state;
	struct zl_compare_opts opts = ZL_COMPARE_OPTS_INIT;
	struct zl_compare c;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	cJSON *doc;
	size_t lines = 0;
	char *s, *text = NULL;
	size_t len;
	FILE *out;

	fx_set_str(p->bid, "level", "comprehensive");
	write_and_load(p, 1.0, NULL, -1);
	/* B failed before results: every row is missing on B's side */
	zl_run_release(&p->b);
	s = zl_path_join(p->bdir, "results.json");
	assert_int_equal(unlink(s), 0);
	free(s);
	assert_int_equal(zl_run_load(p->bdir, &p->b, &err), 0);
	opts.allow_mismatch = 1;
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_int_equal(c.caliber.mismatches.nr, 1);
	assert_int_equal(c.nr_rows, 30);
	assert_int_equal(c.rows[0].verdict, ZL_VERDICT_MISSING);
	assert_int_equal(c.overall.n, 0);

	assert_int_equal(zl_compare_render_json(&c, &sb, &err), 0);
	doc = cJSON_Parse(sb.buf);
	assert_non_null(doc);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "rows")), 30);
	assert_true(cJSON_IsTrue(zl_json_path(doc, "caliber.mismatch_allowed")));
	assert_non_null(strstr(zl_json_path_string(doc, "warning"), "level: core vs comprehensive"));
	assert_true(cJSON_IsNull(zl_json_path(doc, "geomean.overall.geomean")));
	cJSON_Delete(doc);

	strbuf_reset(&sb);
	zl_compare_render_csv(&c, &sb);
	for (s = sb.buf; (s = strstr(s, "\r\n")); s += 2)
		lines++;
	assert_int_equal(lines, 31);
	assert_non_null(strstr(sb.buf, "mismatch allowed: level: core vs comprehensive"));

	strbuf_reset(&sb);
	zl_compare_render_markdown(&c, &sb);
	assert_non_null(strstr(sb.buf, "caliber mismatch allowed"));

	out = open_memstream(&text, &len);
	assert_non_null(out);
	zl_compare_print_text(&c, out, 0);
	fclose(out);
	assert_non_null(strstr(text, "WARNING: caliber mismatch allowed"));
	assert_non_null(strstr(text, "15 shapes are only in A"));
	assert_null(strchr(text, '\033'));
	free(text);
	zl_compare_release(&c);
	strbuf_release(&sb);
	strbuf_release(&err);
}

static int has_reason(const struct zl_compare *c, const char *text)
{
	size_t i;

	for (i = 0; i < c->gate_reasons.nr; i++)
		if (strstr(c->gate_reasons.v[i], text))
			return 1;
	return 0;
}

/* The gate passes only on evidence: passed runs, comparable shapes, no shape lost in B. */
static void test_gate_needs_evidence(void **state)
{
	struct pair *p = *state;
	struct zl_compare_opts opts = ZL_COMPARE_OPTS_INIT;
	struct zl_compare c;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	cJSON *results;
	char *path;

	opts.fail_pct = 5;
	/* B crashed with identical figures: the figures alone would pass */
	fx_set_str(p->bid, "status", "crashed");
	fx_set_str(p->bid, "reason", "killed by signal 11");
	write_and_load(p, 1.0, NULL, -1);
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_true(c.gate_failed);
	assert_true(has_reason(&c, "B's status is 'crashed' (killed by signal 11), not passed"));
	zl_compare_render_csv(&c, &sb);
	assert_non_null(strstr(sb.buf, "failed: B's status is 'crashed'"));
	zl_compare_release(&c);
	/* a baseline that did not pass is no baseline */
	fx_set_str(p->bid, "status", "passed");
	fx_set_str(p->aid, "status", "failed");
	write_and_load(p, 1.0, NULL, -1);
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_true(c.gate_failed);
	assert_true(has_reason(&c, "A's status is 'failed'"));
	zl_compare_release(&c);

	/* B lost the float16 shapes: failed, unless --allow-missing-shapes */
	fx_set_str(p->aid, "status", "passed");
	write_and_load(p, 1.0, NULL, -1);
	zl_run_release(&p->b);
	path = zl_path_join(p->bdir, "results.json");
	results = fx_read_json(path);
	cJSON_DeleteItemFromArray(cJSON_GetObjectItem(cJSON_GetObjectItem(results, "mm"), "details"), 0);
	fx_write_json(path, results);
	cJSON_Delete(results);
	free(path);
	assert_int_equal(zl_run_load(p->bdir, &p->b, &err), 0);
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_true(c.gate_failed);
	assert_int_equal(c.gate_rows, 5);
	assert_int_equal(c.overall.n, 10);
	assert_true(has_reason(&c, "5 gems shapes of A have no latency in B"));
	zl_compare_release(&c);
	opts.allow_missing = 1;
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_false(c.gate_failed);
	assert_int_equal(c.gate_rows, 0);
	zl_compare_release(&c);

	/* nothing comparable at all fails even with --allow-missing-shapes */
	zl_run_release(&p->b);
	path = zl_path_join(p->bdir, "results.json");
	assert_int_equal(unlink(path), 0);
	free(path);
	assert_int_equal(zl_run_load(p->bdir, &p->b, &err), 0);
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_true(c.gate_failed);
	assert_true(has_reason(&c, "no gems shape has a latency in both A and B"));
	zl_compare_release(&c);
	strbuf_release(&sb);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_splitmix64_reference),
		cmocka_unit_test(test_geomean_by_hand),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test_setup_teardown(test_caliber_match_and_variables, setup, teardown),
		cmocka_unit_test_setup_teardown(test_caliber_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timer_fallback_flagged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_autotune_replay_is_proper, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_inheritance, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_rows_geomean_gate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_noise_aware, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gate_below_threshold, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inheritance_needs_a_tuner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_rows_and_renderers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gate_needs_evidence, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
