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
 *    The later is the later started_at; of two started in the same second (its
 *    resolution) the one that found more winners.
 *    When both runs name their tuned kernels (autotune.kernels in the identity, else
 *    plugins/autotune_summary.json), they must share one. An unknown count (null,
 *    autotune off, or a winners_before of 0 whose tuner_cache.note says a database
 *    was not counted) counts as "may have". A timer that fell back on one side only
 *    is flagged.
 *    The usual A/B variables (FlagGems commit, Triton/torch version, TRITON_* /
 *    ZL_* environment, ...) are listed, never refused.
 *
 * 2. Rows: per (op, dtype, shape, occurrence, side) A, B, ratio B/A and a verdict:
 *    "faster", "slower", "same", "unsure" (with a reason and advice) or "missing"
 *    (no latency on a side). The full rule and why: docs/verdicts.md. In short:
 *    the threshold of a row is T = max(--threshold, floor), the floor being that
 *    of a matching calibration for the row's size class (history.h), else the
 *    fixed ZL_FIXED_FLOOR_PCT.
 *    - method "samples" (both sides have >= 2 samples_ms in plugins/timer.jsonl):
 *      the estimate of a side is its 10 % trimmed mean; ratio = B/A of the
 *      estimates with a 95 % interval on log(B/A) from the trimmed means' standard
 *      errors (Yuen) plus a run-to-run standard deviation of
 *      max(calibrated spread, floor / ZL_FLOOR_SIGMAS), which one run's samples
 *      cannot show; p = two-sided Mann-Whitney U on the raw samples.
 *        unsure (bimodal)  either side has two modes (stats.h) set apart by >= T/2
 *        same              the interval lies inside [1 - T, 1 + T]
 *        slower / faster   the interval lies above 1 + T / below 1 - T, and
 *                          p < ZL_VERDICT_ALPHA
 *        unsure            otherwise: too few samples (p < alpha unreachable),
 *                          not significant, or the interval overlaps the threshold
 *    - method "medians: no samples_ms" (older runs, runs from the history): the
 *      rule before samples existed, with T as above: same when |B - A| <=
 *      max((IQR_A + IQR_B) / 2, T * A) where both sides have timer IQRs from >= 2
 *      samples, else when |B/A - 1| <= T. No interval, no p.
 *
 * 3. Geomean of the gems-side ratios, per op and overall, with a 95 % bootstrap
 *    confidence interval over the shapes: splitmix64 seeded with
 *    ZL_BOOTSTRAP_SEED (restarted for each op and for the overall figure),
 *    ZL_BOOTSTRAP_RESAMPLES resamples; resample k draws n indices
 *    idx = next() % n, its geomean is exp(mean(log r[idx])); the resample
 *    geomeans are sorted and the bounds are the nearest-rank percentiles
 *    g[ceil(0.025 R) - 1] and g[ceil(0.975 R) - 1]. Ratios enter in row order.
 *    Drift control: when A and B name the same torch version, the torch side of a
 *    shape is the same library call in both, so its B/A measures the machine. The
 *    torch-side geomean gets the same interval, and each op's and the overall
 *    figure also get the geomean of (gems B/A) / (torch B/A) per shape. "machine
 *    drift" is reported when the torch interval excludes 1 and the torch geomean
 *    is at least ZL_DRIFT_MIN_PCT away from 1.
 *
 * 4. Gate (fail_pct >= 0): failed when the overall gems geomean exceeds
 *    1 + pct/100, or a gems row is "slower" with B/A > 1 + pct/100 (with
 *    fail_on_unsure also an "unsure" gems row whose interval reaches above
 *    1 + pct/100, or has none). It also fails, whatever the figures, when A's or B's
 *    status is not "passed", when no gems row has a latency on both sides, and when
 *    a gems row of A has no latency in B (a shape B lost: failed, crashed or
 *    dropped) unless allow_missing. Torch rows are never gated.
 *
 * Owner: the caller owns struct zl_compare and the two runs; the compare
 * borrows the runs and opts.calibration (keep them alive while using it) and
 * copies everything it stores; zl_compare_release() frees it. The verdict
 * engine's functions allocate nothing the caller must free.
 */
#ifndef ZLBENCH_COMPARE_H
#define ZLBENCH_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "runload.h"
#include "stats.h"
#include "strbuf.h"
#include "strvec.h"
#include "term.h"

#define ZL_BOOTSTRAP_RESAMPLES 2000
#define ZL_BOOTSTRAP_SEED UINT64_C(0x7a6c62656e6368) /* "zlbench" */
/* The floor without a matching calibration: the H200 A/A of docs/validation.md section 4. */
#define ZL_FIXED_FLOOR_PCT 5.0
/* A floor F implies a run-to-run standard deviation of log(B/A) of F / ZL_FLOOR_SIGMAS. */
#define ZL_FLOOR_SIGMAS 3.0
/* Mann-Whitney p must be below this for faster/slower: <= 1 in 10,000 A/A rows. */
#define ZL_VERDICT_ALPHA 1e-4
#define ZL_VERDICT_TRIM 0.1
#define ZL_VERDICT_CONF 0.95
#define ZL_DRIFT_MIN_PCT 1.0

enum zl_verdict {
	ZL_VERDICT_SAME,
	ZL_VERDICT_FASTER,
	ZL_VERDICT_SLOWER,
	ZL_VERDICT_UNSURE,
	ZL_VERDICT_MISSING
};
const char *zl_verdict_name(enum zl_verdict v);
/* The colour a verdict is printed in (compare's and ab's tables). */
enum zl_color zl_verdict_color(enum zl_verdict v);

enum zl_noise_basis { ZL_BASIS_IQR, ZL_BASIS_THRESHOLD, ZL_BASIS_NONE, ZL_BASIS_SAMPLES };
const char *zl_noise_basis_name(enum zl_noise_basis b);

/* How a row was judged; the names are the contract's "method" strings. */
enum zl_method { ZL_METHOD_SAMPLES, ZL_METHOD_MEDIANS, ZL_METHOD_PAIRS, ZL_METHOD_NONE };
/* "samples", "medians: no samples_ms", "pairs", "none" */
const char *zl_method_name(enum zl_method m);

enum zl_unsure {
	ZL_UNSURE_NONE,
	ZL_UNSURE_FEW_SAMPLES,
	ZL_UNSURE_BIMODAL,
	ZL_UNSURE_NOT_SIGNIFICANT,
	ZL_UNSURE_OVERLAP
};
/* "too few samples", "bimodal samples", "not significant", "interval overlaps the threshold" */
const char *zl_unsure_name(enum zl_unsure u);

/* ---- the verdict engine (also for `zlbench ab` and `zlbench calibrate`) ------ */

struct zl_verdict_opts {
	double threshold_pct;    /* the user's smallest change that counts; 0: the floor alone */
	double floor_pct;        /* the run-to-run floor for this row (> 0) */
	double spread_rel;       /* calibrated run-to-run sd of log(B/A); NAN or 0 when none */
	double alpha;            /* ZL_VERDICT_ALPHA */
	double trim;             /* ZL_VERDICT_TRIM */
	double conf;             /* ZL_VERDICT_CONF */
};
#define ZL_VERDICT_OPTS_INIT \
	{ 0, ZL_FIXED_FLOOR_PCT, NAN, ZL_VERDICT_ALPHA, ZL_VERDICT_TRIM, ZL_VERDICT_CONF }

struct zl_row_verdict {
	enum zl_verdict verdict;
	enum zl_method method;
	enum zl_unsure unsure;       /* ZL_UNSURE_NONE unless verdict is unsure */
	double threshold_pct;        /* T = max(threshold, floor) */
	double run_sd;               /* run-to-run sd of log(B/A) put into the interval */
	size_t a_n, b_n;             /* samples per side (pairs: all rounds together) */
	double a_ms, b_ms;           /* the estimates (trimmed means; pairs: of all rounds) */
	double ratio, ci_low, ci_high, p_value, p_min;   /* NAN when unknown */
	double se_log;               /* of log(ratio), run-to-run part included */
	double within_se_log;        /* the samples' part alone */
	struct zl_bimodal a_modes, b_modes;
	size_t pairs;                /* pairs: interleaved rounds; else 0 */
};

/*
 * The verdict of one row from its raw samples (positive and finite, any order;
 * copied, not changed). Always fills out; fewer than 2 samples on a side make it
 * "unsure" (too few).
 */
void zl_verdict_samples(const double *a, size_t na, const double *b, size_t nb,
			const struct zl_verdict_opts *o, struct zl_row_verdict *out);

/*
 * The verdict of one row from interleaved rounds (`zlbench ab`): pair i is a[i]
 * (A's samples in round i) against b[i]. With one pair it is zl_verdict_samples.
 * With more, the ratio is the geomean of the pairs' trimmed-mean ratios and its
 * interval a t interval with pairs - 1 degrees of freedom over the pairs' log
 * ratios: the pairs show the run-to-run variation themselves, so no floor enters
 * the interval (the threshold is still max(threshold, floor)). p is the larger of
 * the paired t test's and Mann-Whitney's on all of A's against all of B's samples.
 */
struct zl_sample_set {
	const double *v;
	size_t n;
};
void zl_verdict_pairs(const struct zl_sample_set *a, const struct zl_sample_set *b, size_t pairs,
		      const struct zl_verdict_opts *o, struct zl_row_verdict *out);

/*
 * The decision rule above on figures a caller computed itself (`zlbench ab`'s
 * interval from few pairs): v's threshold_pct, ci_low, ci_high, p_value, p_min,
 * ratio and both sides' modes are read; verdict and unsure are set.
 */
void zl_verdict_decide(struct zl_row_verdict *v, double alpha);

/* Why a row is unsure, one line ("interval overlaps the threshold: ..."); nothing otherwise. */
void zl_verdict_reason(const struct zl_row_verdict *v, struct strbuf *sb);
/* What to run to decide an unsure row of op, one line; nothing otherwise. */
/* "fixed 5% (why)" or "calibration <id> (...)": the floor a comparison used, for people. */
struct zl_compare;
void zl_compare_floor_summary(const struct zl_compare *c, struct strbuf *sb);
void zl_verdict_advice(const struct zl_row_verdict *v, const char *op, int floor_calibrated,
		       struct strbuf *sb);

/* ---- comparing two runs ------------------------------------------------------ */

struct zl_calibration;

struct zl_compare_opts {
	double threshold_pct;   /* --threshold: the smallest change that counts; 0: the floor */
	double fail_pct;        /* gate; < 0: no gate */
	int allow_mismatch;     /* caliber mismatches reported, not refused */
	int resamples;
	uint64_t seed;
	int allow_missing;      /* gate: shapes of A without a latency in B are warned, not failed */
	int fail_on_unsure;     /* gate: unsure gems rows that may be beyond pct fail it too */
	const struct zl_calibration *calibration;  /* borrowed; NULL: the fixed floor */
	const char *floor_note; /* borrowed: why there is no calibration (NULL: not looked up) */
};
#define ZL_COMPARE_OPTS_INIT \
	{ 0, -1.0, 0, ZL_BOOTSTRAP_RESAMPLES, ZL_BOOTSTRAP_SEED, 0, 0, NULL, NULL }

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
	/* the key, borrowed from the row of A (else B) it stands for: valid while the runs are */
	const char *op;
	const char *dtype;
	const char *shape;
	int occurrence;
	enum zl_side side;
	double a_ms, b_ms, ratio;    /* NAN when missing; samples: the trimmed means */
	double a_iqr, b_iqr;         /* NAN when unknown */
	long a_samples, b_samples;   /* the timer's sample counts; -1 when unknown */
	double a_clock_mhz, b_clock_mhz; /* the measurements' median SM clocks; NAN when unknown */
	char *a_kernels, *b_kernels; /* the kernels a call ran on each side, only when both are known and differ */
	int a_host_bound, b_host_bound; /* the side's samples hold host issue time: 1, 0, -1 unknown or missing */
	int a_no_device_work, b_no_device_work; /* the profiler saw no kernel on that side: 1, 0, -1 unknown */
	enum zl_noise_basis basis;
	double band_ms;              /* medians: |B - A| up to this is "same"; NAN otherwise */
	enum zl_verdict verdict;
	enum zl_method method;
	double ci_low, ci_high;      /* 95 % interval of the ratio; NAN without samples */
	double p_value;              /* NAN without samples */
	double floor_pct;            /* the floor of this row */
	int floor_calibrated;        /* the floor is the calibration's (else fixed) */
	int floor_class;             /* enum zl_size_class of the time that chose the floor */
	double threshold_pct;        /* max(threshold, floor) */
	struct zl_row_verdict detail;/* the engine's figures (samples rows) */
	char *unsure_reason;         /* NULL unless unsure */
	char *advice;                /* NULL unless unsure */
	double norm_ratio;           /* gems rows: (gems B/A) / (torch B/A) of the shape; NAN otherwise */
	int gate_failed;             /* a gems row that fails the gate */
	int lost_in_b;               /* a gems row with a latency in A and none in B */
	int in_a, in_b;              /* the row is in A's results / in B's */
};

struct zl_geomean {
	char *op;                    /* NULL for the overall figure */
	size_t n;                    /* ratios used; 0: no figure (geomean NAN) */
	double geomean, lo, hi;
	size_t norm_n;               /* gems/torch ratios (drift control); 0: none */
	double norm, norm_lo, norm_hi;
};

struct zl_drift {
	int control;                 /* same, known torch version in A and B */
	char *torch_a, *torch_b;     /* the versions (NULL when unknown) */
	struct zl_geomean torch;     /* torch-side B/A over shapes */
	int moved;                   /* machine drift (see 3.) */
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
	struct zl_drift drift;
	size_t rows_iqr, rows_threshold; /* medians rows by IQR band / by threshold */
	size_t rows_samples;         /* rows judged on samples */
	size_t rows_unsure;
	size_t a_without_samples, b_without_samples; /* rows with a latency but no samples_ms */
	int gate_failed;
	size_t gate_rows;            /* gems rows that failed the gate (lost shapes included) */
	size_t gems_rows;            /* gems rows in A or B */
	struct strvec gate_reasons;  /* one line per failure: runs and lost shapes, the geomean, rows */
	struct strvec warnings;      /* notes of both runs, missing shapes, baseline drift */
	/* what is compared with what, said before anything else (zl_compare_alerts) */
	int same_run;                /* A and B are one run: the same directory, or the same run id */
	struct strvec ops_only_a;    /* operators with rows in A and none in B (both have rows) */
	struct strvec ops_only_b;    /* and the other way round */
};

void zl_caliber_init(struct zl_caliber *c);
void zl_caliber_release(struct zl_caliber *c);
/* Fill cal from a and b; returns the number of mismatches. */
size_t zl_caliber_check(const struct zl_run *a, const struct zl_run *b, struct zl_caliber *cal);
/*
 * Append "/<value>" to sb for each caliber field of how the profiler timer measured
 * (timer.profiler_*: the call mode, the settling), in the table's order; an absent
 * field gives the value compare assumes for it ("/synced/batches", "/queued/unrecorded").
 */
void zl_profiler_method(const struct zl_run *run, struct strbuf *sb);

void zl_compare_init(struct zl_compare *c);
void zl_compare_release(struct zl_compare *c);

/* What compare prints for an identity field that has no value. */
#define ZL_COMPARE_NONE_TEXT "(none)"

/*
 * The lines that say A and B are no proper pair, one each, for the top of every output:
 * the same run on both sides, operators on one side only. Appended to lines.
 */
void zl_compare_alerts(const struct zl_compare *c, struct strvec *lines);
/* 1 when A and B have rows and no operator in common: nothing to pair. */
int zl_compare_disjoint_ops(const struct zl_compare *c);

/* "op dtype shape [#k] (side)": a row as the gate's reasons and the renderers name it. */
void zl_compare_row_label(struct strbuf *sb, const struct zl_compare_row *r);
/* Compare a and b (caliber, rows, geomeans, drift, gate); the caller decides on mismatches. */
void zl_compare_runs(const struct zl_run *a, const struct zl_run *b,
		     const struct zl_compare_opts *opts, struct zl_compare *out);

/*
 * The medians rule's band of one row: max((IQR_A + IQR_B) / 2, floor_pct * A) when
 * both sides have IQRs from >= 2 samples, else floor_pct * A; *basis says which.
 * The latencies must be positive.
 */
double zl_compare_band(double a_ms, double a_iqr, long a_samples, double b_iqr, long b_samples,
		       double floor_pct, enum zl_noise_basis *basis);

/* The medians rule of one row (see above). *band_ms and *basis describe it. */
enum zl_verdict zl_compare_verdict(double a_ms, double b_ms, double a_iqr, long a_samples,
				   double b_iqr, long b_samples, double threshold_pct,
				   double *band_ms, enum zl_noise_basis *basis);

/*
 * The floor of a row whose A estimate is a_ms: the calibration's for its size
 * class (*calibrated = 1, *spread_rel its spread), else ZL_FIXED_FLOOR_PCT.
 */
double zl_compare_floor(const struct zl_compare_opts *opts, double a_ms, double *spread_rel,
			int *calibrated);

/* The PRNG of the bootstrap. */
uint64_t zl_splitmix64(uint64_t *state);
/* Geomean of n ratios (all > 0) with its bootstrap interval (see above); g->op untouched. */
void zl_geomean_ci(const double *ratios, size_t n, int resamples, uint64_t seed,
		   struct zl_geomean *g);

/*
 * Renderers. Text goes to out, the answer first (the verdict line, what qualifies it,
 * then rowview.h's sections, then how A and B were measured and judged); the others
 * append to sb. JSON and CSV carry every row in the runs' order whatever the view; the
 * view (NULL: ZL_VIEW_OPTS_INIT) lays out the text and the Markdown.
 */
struct zl_view_opts;
void zl_compare_print_text(const struct zl_compare *c, const struct zl_view_opts *o, FILE *out);
int zl_compare_render_json(const struct zl_compare *c, struct strbuf *sb, struct strbuf *err);
void zl_compare_render_csv(const struct zl_compare *c, struct strbuf *sb);
/*
 * The JSON and CSV written to out as they are made (a million rows are never held as one
 * text); the JSON's "rows" come last. 0, or -1 (JSON: with err) when out refused them.
 */
int zl_compare_write_json(const struct zl_compare *c, FILE *out, struct strbuf *err);
int zl_compare_write_csv(const struct zl_compare *c, FILE *out);
void zl_compare_render_markdown(const struct zl_compare *c, const struct zl_view_opts *o, struct strbuf *sb);

#endif
