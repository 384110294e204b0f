/*
 * `zlbench ab`'s analysis (docs/ab.md): R interleaved rounds of A and B, paired row by
 * row, with verdicts by compare's decision rule (compare.h, docs/verdicts.md) on an
 * interval built from the pairs. Pure: loaded runs in, figures out; cmd_ab.c runs the
 * rounds and writes ab.json.
 *
 * Order: 2R runs, round r (1-based) runs A then B when r is odd, B then A when r is
 * even: A1 B1 B2 A2 A3 B3 B4 A4 ... (ABBA: a drift that is linear in time adds as much
 * to A as to B over every two rounds). Pair i is (A_i, B_i).
 *
 * A row (op, dtype, shape, occurrence, side) has a complete pair i when both A_i and
 * B_i have its latency. Per complete pair: l_i = log(B_i / A_i) of the round's
 * estimates (the 10 % trimmed means of samples_ms when every round of the row has
 * samples, else the runs' latencies) and w_i, the squared relative standard errors of
 * both estimates (the trimmed means' (Yuen), or without samples the medians'
 * 1.2533 * (IQR / 1.349) / sqrt(n) from the timer's IQR and sample count; 0 when
 * unknown). With few pairs the pairs' own variance is a poor estimate (two pairs give a
 * t interval with 1 degree of freedom: +-12.7 standard errors), so it is pooled with
 * a prior variance that compare would use for one pair (a moderated t, as limma's):
 *   prior   s0^2 = sigma_run^2 + mean(w_i), sigma_run = max(calibrated spread,
 *           log(1 + floor) / ZL_FLOOR_SIGMAS) of the row's size class (compare.h)
 *   pooled  s^2 = (nu0 * s0^2 + (n - 1) * var(l)) / (nu0 + n - 1), nu0 = ZL_AB_PRIOR_DF
 *   ratio   exp(mean(l)), its interval exp(mean(l) +- t(0.975, nu0 + n - 1) * s / sqrt(n))
 *   p       two-sided t test of mean(l) = 0 with the same s and df; with samples the
 *           larger of it and Mann-Whitney's on all rounds' samples pooled
 * so the pairs dominate as they accumulate (n - 1 against nu0 degrees of freedom),
 * and then the verdict is compare's: same inside +-T, faster/slower beyond T with
 * p < ZL_VERDICT_ALPHA, unsure otherwise (T = max(threshold, floor)). Method "pairs"
 * (samples) or "pairs: no samples_ms".
 *
 * Geomean B/A over the gems rows: exp(mean of the rows' log ratios), with the same
 * moderated interval over the pairs' geomeans G_i (the rows complete in every pair),
 * the prior being the median of those rows' s0^2. The torch side gets the same figure
 * (the baseline moves only when the machine does, or when the variable changed torch).
 *
 * Gate (fail_pct >= 0): failed when the gems geomean is above 1 + pct/100, a gems row
 * is slower by more than pct %, (fail_on_unsure) an unsure gems row's interval reaches
 * above 1 + pct/100 or it has none, or a gems row of A has no latency in any B round.
 * Rounds that did not pass fail it too (the caller says so: zl_ab_gate_add).
 *
 * Owner: struct zl_ab is the caller's (_init/_release); the runs are borrowed during
 * zl_ab_analyse only, opts.calibration during the call too.
 */
#ifndef ZLBENCH_AB_H
#define ZLBENCH_AB_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "compare.h"
#include "runload.h"
#include "schema.h"
#include "strbuf.h"
#include "strvec.h"

#define ZL_AB_SCHEMA ZL_SCHEMA_AB
/* The prior's weight in pairs' degrees of freedom (see above). */
#define ZL_AB_PRIOR_DF 4.0
#define ZL_AB_MAX_ROUNDS 50

/* Run k (0-based) of the ABBA order: its arm (0 A, 1 B) and round (1-based). */
void zl_ab_position(size_t k, int *arm, size_t *round);

/* One pair of one row: each side's latency, IQR and sample count, and raw samples (NULL: none). */
struct zl_ab_pair {
	double a_ms, b_ms;
	double a_iqr, b_iqr;           /* NAN when unknown */
	long a_count, b_count;         /* the timer's sample counts; -1 when unknown */
	const double *a_s, *b_s;
	size_t a_n, b_n;
};

/*
 * The verdict of one row from its n complete pairs (see above) into out. Returns 1
 * when it was judged on samples, 0 on the latencies. n == 1 with samples is compare's
 * own rule (zl_verdict_samples).
 */
int zl_ab_row_verdict(const struct zl_ab_pair *p, size_t n, const struct zl_verdict_opts *o,
		      struct zl_row_verdict *out);

/* The moderated interval of n log ratios with a prior variance (see above); out's n..p set. */
void zl_ab_moderated(const double *logs, size_t n, double prior_var, double conf, struct zl_paired *out);

struct zl_ab_row {
	char *op, *dtype, *shape;
	int occurrence;
	enum zl_side side;
	size_t pairs;                  /* complete pairs */
	double *pair_ratio;            /* B_i / A_i of the complete pairs, in round order */
	struct zl_row_verdict v;       /* verdict, estimates, ratio, interval, p */
	int samples;                   /* judged on samples */
	double floor_pct;
	int floor_calibrated;
	int floor_class;                /* enum zl_size_class of the A time the floor was chosen by */
	char *unsure_reason, *advice;  /* NULL unless unsure */
	int in_a, in_b;                /* the row has a latency in some A / B round */
	int lost_in_b;                 /* a gems row of A without a latency in any B round */
	int gate_failed;
};

struct zl_ab_geomean {
	size_t rows;                   /* rows in the geomean */
	size_t pairs;                  /* pairs in the interval (rows complete in every pair) */
	double geomean, lo, hi, p;     /* NAN when unknown */
	double *pair;                  /* G_i per pair (NAN: none) */
};

struct zl_ab {
	size_t pairs;                  /* rounds */
	struct zl_compare_opts opts;   /* calibration and floor_note borrowed: NULLed after analyse */
	struct zl_ab_row *rows;
	size_t nr_rows, alloc_rows;
	struct zl_ab_geomean gems, torch;
	size_t counts[ZL_VERDICT_MISSING + 1];
	size_t rows_samples;
	char *floor_summary;           /* "calibration 3 (...)" or "fixed 5% (<why>)" */
	long calibration_id;           /* 0: none */
	int gate_failed;
	struct strvec gate_reasons;
};
void zl_ab_init(struct zl_ab *ab);
void zl_ab_release(struct zl_ab *ab);

/* Pair a[i] with b[i] (i < pairs) row by row and judge every row (see above). */
void zl_ab_analyse(const struct zl_run *const *a, const struct zl_run *const *b, size_t pairs,
		   const struct zl_compare_opts *opts, struct zl_ab *out);

/* A failure the caller found (a round that did not pass): the gate fails with this reason when set. */
void zl_ab_gate_add(struct zl_ab *ab, const char *reason);

/*
 * What the caliber check of a against b found that the named variables do not explain:
 * every must-match mismatch, and every listed variable whose label is not in allowed,
 * one line each in refusals ("level: core vs comprehensive"). Returns their number.
 */
size_t zl_ab_caliber(const struct zl_run *a, const struct zl_run *b, const struct strvec *allowed,
		     struct strvec *refusals);

/*
 * Renderers of the analysis (rows, geomeans, gate). Text to out, in two parts so that a
 * caller can put its own between them: the answer (the verdict line, then rowview.h's
 * sections laid out by the view; NULL: ZL_VIEW_OPTS_INIT) and the details (floor, verdict
 * counts, both geomeans per round, the gate). The others append to sb; JSON and CSV carry
 * every row in order whatever the view.
 */
struct zl_view_opts;
void zl_ab_print_answer(const struct zl_ab *ab, const struct zl_view_opts *o, FILE *out);
void zl_ab_print_details(const struct zl_ab *ab, FILE *out);
/* rows, verdicts, geomean and gate into the JSON object doc; -1 out of memory. */
int zl_ab_json(const struct zl_ab *ab, cJSON *doc);
void zl_ab_render_csv(const struct zl_ab *ab, struct strbuf *sb);
void zl_ab_render_markdown(const struct zl_ab *ab, const struct zl_view_opts *o, struct strbuf *sb);

#endif
