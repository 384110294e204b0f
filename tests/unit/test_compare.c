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
#include "zlbench/history.h"
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

	/*
	 * Both started in the same second (two quick runs of the demo's mm did): the one that
	 * found more winners in the shared cache is the later, whichever is called A
	 */
	fx_set_str(p->aid, "started_at", "2026-11-29T10:00:00Z");
	fx_set_str(p->bid, "started_at", "2026-11-29T10:00:00Z");
	fx_set_num(p->aid, "tuner_cache.winners_before", 21);
	fx_set_num(p->bid, "tuner_cache.winners_before", 12);
	write_and_load(p, 1.0, NULL, -1);
	zl_caliber_init(&cal);
	zl_caliber_check(&p->a, &p->b, &cal);
	assert_true(cal.cache_inheritance);
	assert_non_null(strstr(cal.flags.v[1], "A started with 21"));
	zl_caliber_release(&cal);
	fx_set_num(p->aid, "tuner_cache.winners_before", 12);
	fx_set_num(p->bid, "tuner_cache.winners_before", 21);
	write_and_load(p, 1.0, NULL, -1);
	zl_caliber_init(&cal);
	zl_caliber_check(&p->a, &p->b, &cal);
	assert_true(cal.cache_inheritance);
	assert_non_null(strstr(cal.flags.v[1], "B started with 21"));
	zl_caliber_release(&cal);
	fx_set_str(p->bid, "started_at", "2026-11-29T11:00:00Z");

	/* B's count unknown (null): may have inherited, and the flag says unknown */
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

/*
 * Without samples ("medians: no samples_ms"): a 3 % change inside wide noise is
 * "same", and under the 5 % floor too however tight the IQRs; --threshold cannot
 * go below the floor (it could before issue 14), a calibrated floor can.
 */
static void test_noise_aware(void **state)
{
	struct pair *p = *state;
	struct zl_compare_opts opts = ZL_COMPARE_OPTS_INIT;
	struct zl_calibration cal;
	struct zl_compare c;
	size_t i;

	write_and_load(p, 1.03, NULL, 0.05);
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_int_equal(c.rows_iqr, 30);
	assert_int_equal(c.rows_samples, 0);
	for (i = 0; i < c.nr_rows; i++) {
		assert_int_equal(c.rows[i].verdict, ZL_VERDICT_SAME);
		assert_int_equal(c.rows[i].method, ZL_METHOD_MEDIANS);
		assert_true(isnan(c.rows[i].ci_low) && isnan(c.rows[i].p_value));
		assert_true(c.rows[i].floor_pct == ZL_FIXED_FLOOR_PCT && !c.rows[i].floor_calibrated);
	}
	zl_compare_release(&c);

	/* tight noise, but 3 % is under the 5 % floor: same; a 1 % threshold is raised to the floor */
	write_and_load(p, 1.03, NULL, 0.005);
	opts.threshold_pct = 1;
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	for (i = 0; i < c.nr_rows; i++) {
		assert_int_equal(c.rows[i].verdict, ZL_VERDICT_SAME);
		assert_true(c.rows[i].threshold_pct == 5);
	}
	zl_compare_release(&c);

	/* a calibration with a 1 % floor makes the same tight 3 % a slowdown */
	zl_calibration_init(&cal);
	cal.id = 7;
	for (i = 0; i < ZL_SIZE__COUNT; i++) {
		cal.cls[i].present = 1;
		cal.cls[i].floor_pct = 1;
	}
	opts.calibration = &cal;
	opts.fail_pct = 2;
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	for (i = 0; i < c.nr_rows; i++) {
		assert_int_equal(c.rows[i].verdict,
				 c.rows[i].side == ZL_SIDE_GEMS ? ZL_VERDICT_SLOWER : ZL_VERDICT_SAME);
		assert_true(c.rows[i].floor_calibrated && c.rows[i].floor_pct == 1);
	}
	assert_true(c.gate_failed);
	assert_int_equal(c.gate_rows, 15);
	zl_compare_release(&c);
	opts.calibration = NULL;

	/* the same 3 % with no timer data is within the 5 % threshold */
	opts.threshold_pct = 0;
	write_and_load(p, 1.03, NULL, -1);
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_int_equal(c.rows_threshold, 30);
	for (i = 0; i < c.nr_rows; i++)
		assert_int_equal(c.rows[i].verdict, ZL_VERDICT_SAME);
	/* geomean 1.03 > 1.02 fails the gate; the rows, "same", do not (they did before issue 14) */
	assert_true(c.gate_failed);
	assert_int_equal(c.gate_reasons.nr, 1);
	assert_int_equal(c.gate_rows, 0);
	assert_non_null(strstr(c.gate_reasons.v[0], "overall geomean"));
	zl_compare_release(&c);
	zl_calibration_release(&cal);
}

/*
 * The gate judges verdicts: 4 % slower on float16 under tight IQRs is "same" under the
 * 5 % floor, so --fail-on-regression 3 passes (before issue 14 the gate lowered the
 * floor to pct and failed these rows; now a pct below the floor cannot be decided).
 */
static void test_gate_below_threshold(void **state)
{
	struct pair *p = *state;
	struct zl_compare_opts opts = ZL_COMPARE_OPTS_INIT;
	struct zl_compare c;
	size_t i;

	/* float16 only: the overall geomean 1.04^(1/3) = 1.013 stays under every limit below */
	write_and_load(p, 1.04, "torch.float16", 0.002);
	opts.fail_pct = 3;
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_int_equal(c.rows_iqr, 30);
	for (i = 0; i < c.nr_rows; i++) {
		assert_int_equal(c.rows[i].verdict, ZL_VERDICT_SAME);
		assert_false(c.rows[i].gate_failed);
	}
	assert_false(c.gate_failed);
	assert_int_equal(c.gate_reasons.nr, 0);
	zl_compare_release(&c);

	/* --fail-on-unsure changes nothing without samples: medians rows are never unsure */
	opts.fail_on_unsure = 1;
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_false(c.gate_failed);
	assert_int_equal(c.rows_unsure, 0);
	zl_compare_release(&c);
}

/* ---- the verdict engine ---------------------------------------------------------- */

/* n samples around center with relative noise cv (lognormal), seeded. */
static double *draw(size_t n, double center, double cv, uint64_t seed)
{
	double *v = xcalloc(n, sizeof(*v));
	uint64_t st = seed;
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = center * exp(cv * fx_gauss(&st));
	return v;
}

static void engine(const double *a, size_t na, const double *b, size_t nb, double floor_pct,
		   double threshold_pct, struct zl_row_verdict *v)
{
	struct zl_verdict_opts o = ZL_VERDICT_OPTS_INIT;

	o.floor_pct = floor_pct;
	o.threshold_pct = threshold_pct;
	zl_verdict_samples(a, na, b, nb, &o, v);
}

static void test_engine_samples(void **state)
{
	double *a = draw(500, 0.1, 0.01, 1), *b = draw(500, 0.1, 0.01, 2);
	double *b3 = draw(500, 0.103, 0.01, 3), *b10 = draw(500, 0.09, 0.01, 4);
	double *b5 = draw(500, 0.105, 0.01, 5);
	struct zl_row_verdict v;
	struct strbuf sb = STRBUF_INIT;
	double t;
	(void)state;

	/* A/A under the fixed floor: same; the interval carries the run-to-run sd 5 % / 3 */
	engine(a, 500, b, 500, 5, 0, &v);
	assert_int_equal(v.verdict, ZL_VERDICT_SAME);
	assert_int_equal(v.method, ZL_METHOD_SAMPLES);
	assert_true(fabs(v.run_sd - log1p(0.05) / 3) < 1e-15);
	assert_true(v.se_log > v.run_sd && v.within_se_log < 0.002);
	assert_true(v.ci_low > 0.95 && v.ci_high < 1.05 && v.ci_high - v.ci_low > 2 * 1.95 * v.run_sd);
	assert_true(v.p_value > 1e-4);
	assert_true(v.a_n == 500 && v.b_n == 500);
	/* 3 % slower under a 1 % floor: slower, significant, the interval clear of 1 */
	engine(a, 500, b3, 500, 1, 0, &v);
	assert_int_equal(v.verdict, ZL_VERDICT_SLOWER);
	assert_true(v.p_value < 1e-10 && v.ci_low > 1.01 && fabs(v.ratio - 1.03) < 0.003);
	/* the same 3 % under the fixed 5 % floor: unsure, the interval crosses +5 % */
	engine(a, 500, b3, 500, 5, 0, &v);
	assert_int_equal(v.verdict, ZL_VERDICT_UNSURE);
	assert_int_equal(v.unsure, ZL_UNSURE_OVERLAP);
	zl_verdict_reason(&v, &sb);
	assert_non_null(strstr(sb.buf, "interval overlaps the threshold: 95% CI ["));
	assert_non_null(strstr(sb.buf, "crosses +5%"));
	strbuf_reset(&sb);
	zl_verdict_advice(&v, "mm", 0, &sb);
	assert_non_null(strstr(sb.buf, "zlbench ab --op mm --rounds 4"));
	assert_non_null(strstr(sb.buf, "zlbench calibrate --op mm"));
	strbuf_reset(&sb);
	/* a calibrated floor is not told to calibrate */
	zl_verdict_advice(&v, "mm", 1, &sb);
	assert_null(strstr(sb.buf, "calibrate"));
	strbuf_reset(&sb);
	/* 10 % faster under 5 %: faster, the whole interval below 0.95 */
	engine(a, 500, b10, 500, 5, 0, &v);
	assert_int_equal(v.verdict, ZL_VERDICT_FASTER);
	assert_true(v.ci_high < 0.95);
	/*
	 * 6 % slower under the 5 % floor: beyond the threshold, p tiny, the interval clear of
	 * 1, but not clear of 1.05 (the run-to-run sd of 1.6 % puts it near [1.03, 1.09]):
	 * unsure, not slower; slower needs about 8.4 % under the fixed floor
	 */
	{
		double *b6 = draw(500, 0.106, 0.01, 8), *b9 = draw(500, 0.109, 0.01, 9);

		engine(a, 500, b6, 500, 5, 0, &v);
		assert_true(v.ratio > 1.05 && v.ci_low > 1 && v.p_value < 1e-10);
		assert_int_equal(v.verdict, ZL_VERDICT_UNSURE);
		assert_int_equal(v.unsure, ZL_UNSURE_OVERLAP);
		engine(a, 500, b9, 500, 5, 0, &v);
		assert_int_equal(v.verdict, ZL_VERDICT_SLOWER);
		assert_true(v.ci_low > 1.05);
		free(b6);
		free(b9);
	}
	/* --threshold above the floor: 5 % inside a 10 % threshold is same */
	engine(a, 500, b5, 500, 5, 10, &v);
	assert_int_equal(v.verdict, ZL_VERDICT_SAME);
	assert_true(v.threshold_pct == 10);
	/* ... and a threshold below the floor is raised to it */
	engine(a, 500, b10, 500, 5, 1, &v);
	assert_true(v.threshold_pct == 5);
	/* a calibrated spread above floor / 3 widens the interval */
	{
		struct zl_verdict_opts o = ZL_VERDICT_OPTS_INIT;

		o.floor_pct = 1;
		o.spread_rel = 0.02;
		zl_verdict_samples(a, 500, b3, 500, &o, &v);
		assert_true(v.run_sd == 0.02);
		assert_int_equal(v.verdict, ZL_VERDICT_UNSURE);
	}
	/* three samples a side cannot reach p < 1e-4 (exact p_min = 2 / C(6, 3) = 0.1) */
	engine(a, 3, b10, 3, 5, 0, &v);
	assert_int_equal(v.verdict, ZL_VERDICT_UNSURE);
	assert_int_equal(v.unsure, ZL_UNSURE_FEW_SAMPLES);
	assert_true(fabs(v.p_min - 0.1) < 1e-15);
	zl_verdict_reason(&v, &sb);
	assert_non_null(strstr(sb.buf, "too few samples: 3 in A, 3 in B"));
	strbuf_reset(&sb);
	zl_verdict_advice(&v, "mm", 0, &sb);
	assert_non_null(strstr(sb.buf, "--noise-target"));
	strbuf_reset(&sb);
	/* one sample, or none */
	engine(a, 1, b, 500, 5, 0, &v);
	assert_int_equal(v.unsure, ZL_UNSURE_FEW_SAMPLES);
	engine(a, 0, b, 500, 5, 0, &v);
	assert_int_equal(v.unsure, ZL_UNSURE_FEW_SAMPLES);
	assert_true(isnan(v.ratio));
	free(b10);
	free(b5);

	/* 30 % of B's samples 20 % slower: two modes, unsure rather than a forced verdict */
	{
		double *bi = draw(500, 0.1, 0.01, 6);
		size_t i;

		for (i = 0; i < 150; i++)
			bi[i] *= 1.2;
		engine(a, 500, bi, 500, 5, 0, &v);
		assert_int_equal(v.verdict, ZL_VERDICT_UNSURE);
		assert_int_equal(v.unsure, ZL_UNSURE_BIMODAL);
		assert_true(v.b_modes.bimodal && !v.a_modes.bimodal);
		zl_verdict_reason(&v, &sb);
		assert_non_null(strstr(sb.buf, "bimodal samples in B: 30% of them near"));
		strbuf_reset(&sb);
		/* modes 2 % apart matter little against a 5 % threshold: judged as usual */
		for (i = 0; i < 150; i++)
			bi[i] = bi[i] / 1.2 * 1.02;
		engine(a, 500, bi, 500, 5, 0, &v);
		assert_true(v.unsure != ZL_UNSURE_BIMODAL);
		free(bi);
	}

	/*
	 * A bimodal A (24 % of its calls 4.4 % up) against a B five times slower (FlagGems' prod
	 * before and after PR #4618 on an H200): no mix of modes 4.4 % apart explains 5x, so
	 * the change is called, not left unsure.
	 */
	{
		double *ba = draw(500, 0.024, 0.005, 10), *bb = draw(500, 0.12, 0.005, 11);
		size_t i;

		for (i = 0; i < 120; i++)
			ba[i] *= 1.044;
		engine(ba, 500, bb, 500, 5, 0, &v);
		assert_true(v.a_modes.bimodal);
		assert_int_equal(v.verdict, ZL_VERDICT_SLOWER);
		free(ba);
		free(bb);
	}

	/*
	 * Both sides bimodal alike (20 % of the calls 8 % up, as 4096x4096 pointwise kernels
	 * on an H200): the interval lies inside the threshold, so same whatever the modes.
	 */
	{
		double *ba = draw(500, 0.1, 0.005, 8), *bb = draw(500, 0.1, 0.005, 9);
		size_t i;

		for (i = 0; i < 100; i++) {
			ba[i] *= 1.08;
			bb[i] *= 1.08;
		}
		engine(ba, 500, bb, 500, 5, 0, &v);
		assert_true(v.a_modes.bimodal && v.b_modes.bimodal);
		assert_int_equal(v.verdict, ZL_VERDICT_SAME);
		assert_int_equal(v.unsure, ZL_UNSURE_NONE);
		free(ba);
		free(bb);
	}

	/* large noise: 8 % beyond a 5 % threshold, but p is far from 1e-4: not significant */
	{
		double *na = draw(30, 0.1, 0.3, 7), *nb = draw(30, 0.108, 0.3, 7);

		engine(na, 30, nb, 30, 5, 0, &v);
		t = v.ratio;
		assert_true(t > 1.05);
		assert_int_equal(v.verdict, ZL_VERDICT_UNSURE);
		assert_int_equal(v.unsure, ZL_UNSURE_NOT_SIGNIFICANT);
		zl_verdict_reason(&v, &sb);
		assert_non_null(strstr(sb.buf, "not significant: B/A"));
		strbuf_reset(&sb);
		free(na);
		free(nb);
	}
	free(a);
	free(b);
	free(b3);
	strbuf_release(&sb);
}

/* A/A from one distribution over 2,000 rows of 200 samples: no faster/slower, by design. */
static void test_engine_aa_rows(void **state)
{
	struct zl_row_verdict v;
	size_t row, flagged = 0, same = 0;
	(void)state;

	for (row = 0; row < 2000; row++) {
		double cv = 0.002 + 0.05 * (double)(row % 10) / 10;
		double *a = draw(200, 0.01, cv, 1000 + 2 * row), *b = draw(200, 0.01, cv, 1001 + 2 * row);

		engine(a, 200, b, 200, 1, 0, &v);
		flagged += v.verdict == ZL_VERDICT_FASTER || v.verdict == ZL_VERDICT_SLOWER;
		same += v.verdict == ZL_VERDICT_SAME;
		free(a);
		free(b);
	}
	assert_int_equal(flagged, 0);
	assert_true(same > 1000);
}

static void test_engine_pairs(void **state)
{
	struct zl_sample_set a[4], b[4];
	double *buf[8];
	struct zl_row_verdict v;
	struct zl_verdict_opts o = ZL_VERDICT_OPTS_INIT;
	size_t i;
	(void)state;

	/* four interleaved rounds, B 10 % slower, each round shifted by up to 2 % (run-to-run) */
	for (i = 0; i < 4; i++) {
		double run = 1 + 0.02 * ((double)i - 1.5) / 1.5;

		buf[2 * i] = draw(300, 0.1 * run, 0.01, 10 + i);
		buf[2 * i + 1] = draw(300, 0.11 * run * (1 + 0.002 * (double)i), 0.01, 20 + i);
		a[i].v = buf[2 * i];
		a[i].n = 300;
		b[i].v = buf[2 * i + 1];
		b[i].n = 300;
	}
	zl_verdict_pairs(a, b, 4, &o, &v);
	assert_int_equal(v.method, ZL_METHOD_PAIRS);
	assert_int_equal(v.pairs, 4);
	assert_true(v.run_sd == 0);
	assert_true(fabs(v.ratio - 1.103) < 0.01);
	assert_int_equal(v.verdict, ZL_VERDICT_SLOWER);
	assert_true(v.ci_low > 1.05);
	assert_int_equal(v.a_n, 1200);
	/* one pair is the single-run rule (the floor enters the interval) */
	zl_verdict_pairs(a, b, 1, &o, &v);
	assert_int_equal(v.method, ZL_METHOD_SAMPLES);
	assert_true(v.run_sd > 0);
	/* a round without samples: too few */
	a[2].n = 0;
	zl_verdict_pairs(a, b, 4, &o, &v);
	assert_int_equal(v.verdict, ZL_VERDICT_UNSURE);
	assert_int_equal(v.unsure, ZL_UNSURE_FEW_SAMPLES);
	for (i = 0; i < 8; i++)
		free(buf[i]);
}

/* Both runs with raw samples: B's float16 gems 3 % slower. */
static void write_samples_and_load(struct pair *p, double scale, const char *scale_dtype,
				   const char *bimodal_dtype)
{
	struct strbuf err = STRBUF_INIT;

	zl_run_release(&p->a);
	zl_run_release(&p->b);
	fx_write_run(p->adir, p->aid, FX_MM, 1.0, NULL, -1, 0);
	fx_write_run(p->bdir, p->bid, FX_MM, scale, scale_dtype, -1, 0);
	fx_write_samples(p->adir, 400, 0.01, 11, NULL, 0, 1);
	fx_write_samples(p->bdir, 400, 0.01, 12, bimodal_dtype, 0.3, 1.25);
	assert_int_equal(zl_run_load(p->adir, &p->a, &err), 0);
	assert_int_equal(zl_run_load(p->bdir, &p->b, &err), 0);
	strbuf_release(&err);
}

static void test_compare_on_samples(void **state)
{
	struct pair *p = *state;
	struct zl_compare_opts opts = ZL_COMPARE_OPTS_INIT;
	struct zl_calibration cal;
	struct zl_compare c;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	cJSON *doc;
	size_t i, k;

	write_samples_and_load(p, 1.03, "torch.float16", NULL);
	assert_int_equal(p->a.rows_with_samples, 30);
	/* fixed 5 % floor: the 3 % rows are unsure; the gate at 2 % passes (geomean 1.0099) */
	opts.fail_pct = 2;
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_int_equal(c.rows_samples, 30);
	assert_int_equal(c.rows_unsure, 5);
	assert_false(c.gate_failed);
	for (i = 0; i < c.nr_rows; i++) {
		const struct zl_compare_row *r = &c.rows[i];
		int hit = r->side == ZL_SIDE_GEMS && !strcmp(r->dtype, "torch.float16");

		assert_int_equal(r->method, ZL_METHOD_SAMPLES);
		assert_int_equal(r->verdict, hit ? ZL_VERDICT_UNSURE : ZL_VERDICT_SAME);
		assert_true(hit == (r->unsure_reason != NULL) && hit == (r->advice != NULL));
		assert_true(r->ci_low < r->ratio && r->ratio < r->ci_high && isfinite(r->p_value));
	}
	zl_compare_release(&c);
	/* --fail-on-unsure: those five may be more than 2 % slower, so they fail it */
	opts.fail_on_unsure = 1;
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_true(c.gate_failed);
	assert_int_equal(c.gate_rows, 5);
	assert_non_null(strstr(c.gate_reasons.v[0], "unsure (interval overlaps the threshold) and --fail-on-unsure"));
	zl_compare_release(&c);
	opts.fail_on_unsure = 0;

	/* a calibration with a 1 % floor for every class: slower, and the 2 % gate fails on them */
	zl_calibration_init(&cal);
	cal.id = 7;
	for (k = 0; k < ZL_SIZE__COUNT; k++) {
		cal.cls[k].present = 1;
		cal.cls[k].floor_pct = 1;
		cal.cls[k].spread_rel = 0.002;
	}
	opts.calibration = &cal;
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_true(c.gate_failed);
	assert_int_equal(c.gate_rows, 5);
	for (i = 0; i < c.nr_rows; i++) {
		const struct zl_compare_row *r = &c.rows[i];
		int hit = r->side == ZL_SIDE_GEMS && !strcmp(r->dtype, "torch.float16");

		assert_int_equal(r->verdict, hit ? ZL_VERDICT_SLOWER : ZL_VERDICT_SAME);
		assert_true(r->floor_calibrated && r->threshold_pct == 1);
	}
	assert_non_null(strstr(c.gate_reasons.v[0], "slower beyond its 1% threshold, Mann-Whitney p"));
	/* every format carries verdict, ratio, CI, p, method and floor */
	assert_int_equal(zl_compare_render_json(&c, &sb, &err), 0);
	doc = cJSON_Parse(sb.buf);
	assert_non_null(doc);
	{
		const cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "rows"), 1);

		assert_string_equal(zl_json_path_string(row, "verdict"), "slower");
		assert_string_equal(zl_json_path_string(row, "method"), "samples");
		assert_string_equal(zl_json_path_string(row, "floor.source"), "calibration 7");
		assert_true(zl_json_path(row, "floor.pct")->valuedouble == 1);
		assert_true(cJSON_IsNumber(zl_json_path(row, "ci_low")) && cJSON_IsNumber(zl_json_path(row, "p_value")));
		assert_true(cJSON_IsNumber(zl_json_path(doc, "floor.calibration.id")));
	}
	cJSON_Delete(doc);
	strbuf_reset(&sb);
	zl_compare_render_csv(&c, &sb);
	assert_non_null(strstr(sb.buf, "ci_low,ci_high,p_value,verdict,method,floor_pct,floor_source"));
	assert_non_null(strstr(sb.buf, ",slower,samples,1,calibration 7,"));
	strbuf_reset(&sb);
	zl_compare_render_markdown(&c, NULL, &sb);
	assert_non_null(strstr(sb.buf, "**Floor:** calibration 7 ("));
	assert_non_null(strstr(sb.buf, "| **slower**, **gate failed** | samples 400/400 | 1% calibration 7 |"));
	zl_compare_release(&c);
	zl_calibration_release(&cal);

	/* B's bfloat16 gems samples have a second mode 25 % up: unsure (bimodal), not forced */
	write_samples_and_load(p, 1.0, NULL, "torch.bfloat16");
	opts.calibration = NULL;
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	for (i = 0; i < c.nr_rows; i++) {
		const struct zl_compare_row *r = &c.rows[i];
		int hit = r->side == ZL_SIDE_GEMS && !strcmp(r->dtype, "torch.bfloat16");

		assert_int_equal(r->verdict, hit ? ZL_VERDICT_UNSURE : ZL_VERDICT_SAME);
		if (hit)
			assert_int_equal(r->detail.unsure, ZL_UNSURE_BIMODAL);
	}
	zl_compare_release(&c);

	/* samples on one side only: the medians rule, and it says which side lacks them */
	zl_run_release(&p->b);
	fx_write_run(p->bdir, p->bid, FX_MM, 1.0, NULL, -1, 0);
	assert_int_equal(zl_run_load(p->bdir, &p->b, &err), 0);
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_int_equal(c.rows_samples, 0);
	assert_int_equal(c.rows_threshold, 30);
	assert_int_equal(c.b_without_samples, 30);
	assert_int_equal(c.a_without_samples, 0);
	strbuf_reset(&sb);
	zl_compare_render_csv(&c, &sb);
	assert_non_null(strstr(sb.buf, ",medians: no samples_ms,"));
	zl_compare_release(&c);
	strbuf_release(&sb);
	strbuf_release(&err);
}

/* The torch side as a control: a machine 7 % faster on both sides is drift, not a win. */
static void test_drift(void **state)
{
	struct pair *p = *state;
	struct zl_compare_opts opts = ZL_COMPARE_OPTS_INIT;
	struct zl_compare c;
	struct strbuf err = STRBUF_INIT;
	char *path;
	cJSON *doc, *op_entry, *detail, *row;

	write_samples_and_load(p, 0.93, NULL, NULL);
	/* scale B's torch side too, then draw its samples again */
	path = zl_path_join(p->bdir, "results.json");
	doc = fx_read_json(path);
	cJSON_ArrayForEach(op_entry, doc)
		cJSON_ArrayForEach(detail, cJSON_GetObjectItem(op_entry, "details"))
			cJSON_ArrayForEach(row, cJSON_GetObjectItem(detail, "result")) {
				cJSON *base = cJSON_GetObjectItem(row, "latency_base");
				cJSON_SetNumberValue(base, base->valuedouble * 0.93);
			}
	fx_write_json(path, doc);
	cJSON_Delete(doc);
	free(path);
	fx_write_samples(p->bdir, 400, 0.01, 12, NULL, 0, 1);
	zl_run_release(&p->b);
	assert_int_equal(zl_run_load(p->bdir, &p->b, &err), 0);
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_true(c.drift.control && c.drift.moved);
	assert_true(fabs(c.drift.torch.geomean - 0.93) < 0.003);
	assert_true(fabs(c.overall.geomean - 0.93) < 0.003);
	assert_int_equal(c.overall.norm_n, 15);
	assert_true(fabs(c.overall.norm - 1) < 0.003);
	assert_true(fabs(c.ops[0].norm - 1) < 0.003);
	zl_compare_release(&c);
	/* a different torch version: no control, no drift verdict */
	fx_set_str(p->bid, "vendor_guard.torch_version", "2.12.0");
	path = zl_path_join(p->bdir, "run_identity.json");
	fx_write_json(path, p->bid);
	free(path);
	zl_run_release(&p->b);
	assert_int_equal(zl_run_load(p->bdir, &p->b, &err), 0);
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_false(c.drift.control);
	assert_false(c.drift.moved);
	assert_int_equal(c.overall.norm_n, 0);
	zl_compare_release(&c);
	fx_set_str(p->bid, "vendor_guard.torch_version", "2.11.0");
	/* unchanged machine: a control, no drift */
	write_samples_and_load(p, 1.0, NULL, NULL);
	zl_compare_init(&c);
	zl_compare_runs(&p->a, &p->b, &opts, &c);
	assert_true(c.drift.control);
	assert_false(c.drift.moved);
	zl_compare_release(&c);
	strbuf_release(&err);
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
	zl_compare_render_markdown(&c, NULL, &sb);
	assert_non_null(strstr(sb.buf, "caliber mismatch allowed"));

	out = open_memstream(&text, &len);
	assert_non_null(out);
	zl_compare_print_text(&c, NULL, out);
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
		cmocka_unit_test(test_engine_samples),
		cmocka_unit_test(test_engine_aa_rows),
		cmocka_unit_test(test_engine_pairs),
		cmocka_unit_test_setup_teardown(test_compare_on_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drift, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
