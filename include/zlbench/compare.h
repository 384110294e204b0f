/*
 * Comparing two runs, A (before) and B (after).
 *
 * 1. Caliber: the fields that must match for the numbers to be comparable
 *    (backend, vendor, device name, level, shape mode and sha256, test node,
 *    FlagGems mode, timer plan, tuner-cache mode) are checked; differences are
 *    returned as mismatches and the command refuses them unless allowed. The
 *    autotune set-up is classified: "B replays A's records" is the proper A/B;
 *    other mixes are flagged. Two runs without replay (record or off) on a shared
 *    tuner cache are flagged as cache inheritance when it can matter: the earlier
 *    run stored winners (winners_after > winners_before, or autotune recorded > 0),
 *    the later one started with winners stored (winners_before > 0) and used a
 *    tuner (autotune recorded > 0; a run whose kernels have no tuner cannot inherit).
 *    When both runs name their tuned kernels (autotune.kernels in the identity, else
 *    plugins/autotune_summary.json), they must share one. An unknown count (null,
 *    autotune off, or a winners_before of 0 whose tuner_cache.note says a database
 *    was not counted) counts as "may have". A timer that fell back on one side only
 *    is flagged.
 *    The usual A/B variables (FlagGems commit, Triton/torch version, TRITON_* /
 *    ZL_* environment, ...) are listed, never refused.
 *
 * 2. Rows: per (op, dtype, shape, occurrence, side) A ms, B ms, ratio B/A and a
 *    verdict. Noise rule: when both sides have timer statistics (plugins/timer.jsonl:
 *    an interquartile range from at least 2 samples), the result is "same" when
 *        |B - A| <= band(threshold) = max((IQR_A + IQR_B) / 2, threshold * A),
 *    i.e. when the bands median +- IQR/2 of the two sides overlap, with the
 *    run-to-run floor under the band (the IQR is within one run; an H200 A/A
 *    differed by up to 6.4 %, see docs/validation.md). Otherwise the stated
 *    threshold applies: band(threshold) = threshold * A, "same" when
 *    |B/A - 1| <= threshold (default 5 %).
 *    A row whose latency is missing or not positive on either side is "missing".
 *
 * 3. Geomean of the gems-side ratios, per op and overall, with a 95 % bootstrap
 *    confidence interval over the shapes: splitmix64 seeded with
 *    ZL_BOOTSTRAP_SEED (restarted for each op and for the overall figure),
 *    ZL_BOOTSTRAP_RESAMPLES resamples; resample k draws n indices
 *    idx = next() % n, its geomean is exp(mean(log r[idx])); the resample
 *    geomeans are sorted and the bounds are the nearest-rank percentiles
 *    g[ceil(0.025 R) - 1] and g[ceil(0.975 R) - 1]. Ratios enter in row order.
 *
 * 4. Gate (fail_pct >= 0): failed when the overall geomean exceeds 1 + pct/100,
 *    or a gems-side row has B/A > 1 + pct/100 and B - A > band(min(threshold, pct)).
 *    It also fails, whatever the figures, when A's or B's status is not "passed"
 *    (a run that failed or crashed is neither a baseline nor a pass), when no gems
 *    row has a latency on both sides, and when a gems row of A has no latency in B
 *    (a shape B lost: failed, crashed or dropped) unless allow_missing.
 *    The gate's floor follows pct when pct is below the threshold, so a 4 %
 *    slowdown under a tight IQR fails --fail-on-regression 3 even though its
 *    verdict, under the 5 % run-to-run floor, is "same". Torch-side slowdowns that
 *    pass the same test are warnings (the machine or baseline drifted).
 *
 * Owner: the caller owns struct zl_compare and the two runs; the compare
 * borrows the runs (keep them alive while using it) and copies everything it
 * stores; zl_compare_release() frees it.
 */
#ifndef ZLBENCH_COMPARE_H
#define ZLBENCH_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "runload.h"
#include "strbuf.h"
#include "strvec.h"

#define ZL_BOOTSTRAP_RESAMPLES 2000
#define ZL_BOOTSTRAP_SEED UINT64_C(0x7a6c62656e6368) /* "zlbench" */
#define ZL_DEFAULT_THRESHOLD_PCT 5.0

enum zl_verdict { ZL_VERDICT_SAME, ZL_VERDICT_FASTER, ZL_VERDICT_SLOWER, ZL_VERDICT_MISSING };
const char *zl_verdict_name(enum zl_verdict v);

enum zl_noise_basis { ZL_BASIS_IQR, ZL_BASIS_THRESHOLD, ZL_BASIS_NONE };
const char *zl_noise_basis_name(enum zl_noise_basis b);

struct zl_compare_opts {
	double threshold_pct;   /* "same" band when noise data is missing */
	double fail_pct;        /* gate; < 0: no gate */
	int allow_mismatch;     /* caliber mismatches reported, not refused */
	int resamples;
	uint64_t seed;
	int allow_missing;      /* gate: shapes of A without a latency in B are warned, not failed */
};
#define ZL_COMPARE_OPTS_INIT \
	{ ZL_DEFAULT_THRESHOLD_PCT, -1.0, 0, ZL_BOOTSTRAP_RESAMPLES, ZL_BOOTSTRAP_SEED, 0 }

/* One field that differs; a and b are "(none)" when absent. */
struct zl_diff {
	char *field;
	char *a;
	char *b;
};
struct zl_diffs {
	struct zl_diff *v;
	size_t nr, alloc;
};

struct zl_caliber {
	struct zl_diffs mismatches;  /* must-match fields that differ */
	struct zl_diffs variables;   /* listed A/B variables */
	char *autotune;              /* one line naming the autotune set-up */
	int autotune_proper;         /* both sides ran the same pinned configs */
	int cache_inheritance;
	struct strvec flags;         /* warnings about the set-up, one line each */
};

struct zl_compare_row {
	char *op;
	char *dtype;
	char *shape;
	int occurrence;
	enum zl_side side;
	double a_ms, b_ms, ratio;    /* NAN when missing */
	double a_iqr, b_iqr;         /* NAN when unknown */
	long a_samples, b_samples;   /* -1 when unknown */
	enum zl_noise_basis basis;
	double band_ms;              /* |B - A| up to this is "same"; NAN when missing */
	enum zl_verdict verdict;
	double gate_band_ms;         /* band(min(threshold, pct)); NAN without a gate or latency */
	int gate_failed;             /* a gems row that fails the gate (torch rows: warned only) */
	int lost_in_b;               /* a gems row with a latency in A and none in B */
};

struct zl_geomean {
	char *op;                    /* NULL for the overall figure */
	size_t n;                    /* ratios used; 0: no figure (geomean NAN) */
	double geomean, lo, hi;
};

struct zl_compare {
	const struct zl_run *a, *b;  /* borrowed */
	struct zl_compare_opts opts;
	struct zl_caliber caliber;
	struct zl_compare_row *rows;
	size_t nr_rows, alloc_rows;
	struct zl_geomean *ops;
	size_t nr_ops, alloc_ops;
	struct zl_geomean overall;
	size_t rows_iqr, rows_threshold; /* how many verdicts used each rule */
	int gate_failed;
	size_t gate_rows;            /* gems rows that failed the gate (lost shapes included) */
	size_t gems_rows;            /* gems rows in A or B */
	struct strvec gate_reasons;  /* one line per failure: runs and lost shapes, the geomean, rows */
	struct strvec warnings;      /* notes of both runs, missing shapes, baseline drift */
};

void zl_caliber_init(struct zl_caliber *c);
void zl_caliber_release(struct zl_caliber *c);
/* Fill cal from a and b; returns the number of mismatches. */
size_t zl_caliber_check(const struct zl_run *a, const struct zl_run *b, struct zl_caliber *cal);

void zl_compare_init(struct zl_compare *c);
void zl_compare_release(struct zl_compare *c);
/* Compare a and b (caliber, rows, geomeans, gate); the caller decides on mismatches. */
void zl_compare_runs(const struct zl_run *a, const struct zl_run *b,
		     const struct zl_compare_opts *opts, struct zl_compare *out);

/*
 * band(floor_pct) of one row (see above); *basis says whether timer IQRs entered it.
 * The latencies must be positive.
 */
double zl_compare_band(double a_ms, double a_iqr, long a_samples, double b_iqr, long b_samples,
		       double floor_pct, enum zl_noise_basis *basis);
/* The gate's floor: min(threshold, pct). */
double zl_compare_gate_floor(const struct zl_compare_opts *opts);

/* The verdict rule of one row (see above). *band_ms and *basis describe it. */
enum zl_verdict zl_compare_verdict(double a_ms, double b_ms, double a_iqr, long a_samples,
				   double b_iqr, long b_samples, double threshold_pct,
				   double *band_ms, enum zl_noise_basis *basis);

/* The PRNG of the bootstrap. */
uint64_t zl_splitmix64(uint64_t *state);
/* Geomean of n ratios (all > 0) with its bootstrap interval (see above); g->op untouched. */
void zl_geomean_ci(const double *ratios, size_t n, int resamples, uint64_t seed,
		   struct zl_geomean *g);

/* Renderers. Text goes to out (colour only when use_color); the others append to sb. */
void zl_compare_print_text(const struct zl_compare *c, FILE *out, int use_color);
int zl_compare_render_json(const struct zl_compare *c, struct strbuf *sb, struct strbuf *err);
void zl_compare_render_csv(const struct zl_compare *c, struct strbuf *sb);
void zl_compare_render_markdown(const struct zl_compare *c, struct strbuf *sb);

#endif
