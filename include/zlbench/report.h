/*
 * zlbench report: one self-contained HTML page (inline CSS and SVG, no script,
 * nothing fetched) for a run, a batch, an A/B directory, a comparison of two runs
 * or a history query. docs/report.md is the user's view.
 *
 * Each page starts with the caliber (what was measured how) and the warnings that
 * apply, then its charts (report/svg.h), then its tables. Every page function
 * appends one whole HTML document to `out`; `now` is the time printed in the
 * footer (NULL: none).
 *
 * The compare and A/B pages draw from a small struct of their own
 * (zl_report_cmp), filled from compare.h's results by one adapter,
 * zl_report_cmp_from_compare(): the one function that knows compare's fields.
 *
 * Owner: the caller owns every struct it declares; _release frees what they hold.
 * Runs passed in are borrowed.
 */
#ifndef ZLBENCH_REPORT_H
#define ZLBENCH_REPORT_H

#include <stddef.h>

#include "compare.h"
#include "history.h"
#include "runload.h"
#include "strbuf.h"
#include "strvec.h"

/* ---- the compare page's view of a comparison ------------------------------------- */

enum zl_report_verdict { ZL_RV_FASTER, ZL_RV_SLOWER, ZL_RV_SAME, ZL_RV_UNSURE, ZL_RV_MISSING };
/* "faster", "slower", "same", "unsure", "missing". */
const char *zl_report_verdict_name(enum zl_report_verdict v);

struct zl_report_row {
	char *op, *dtype, *shape;    /* the row's key (runload.h), to find its samples */
	int occurrence;
	enum zl_side side;
	double a_ms, b_ms;           /* NAN when missing */
	double ratio;                /* B/A; NAN when missing */
	double ci_low, ci_high;      /* the interval of the ratio (see zl_report_cmp.interval); NAN: none */
	enum zl_report_verdict verdict;
	char *note;                  /* why (an unsure reason, the gate), or NULL */
	int gate_failed;
};

struct zl_report_cmp {
	struct zl_report_row *rows;
	size_t nr, alloc;
	int gate;                    /* -1 no gate asked, 0 passed, 1 failed */
	struct strvec gate_lines;    /* why it failed */
	struct strvec mismatches;    /* must-match caliber fields that differ ("field: a vs b") */
	struct strvec caliber;       /* the listed A/B variables, the autotune set-up, its flags */
	struct strvec warnings;
	char *interval;              /* what [ci_low, ci_high] is, one sentence for the caption */
	char *method;                /* how the verdicts were reached, one sentence */
	double geomean, geo_lo, geo_hi; /* gems-side B/A over the shapes; NAN when none */
	size_t geo_n;
};

void zl_report_cmp_init(struct zl_report_cmp *c);
void zl_report_cmp_release(struct zl_report_cmp *c);
/* Append a row (strings copied); returns it for the caller to fill. */
struct zl_report_row *zl_report_cmp_add(struct zl_report_cmp *c, const char *op, const char *dtype,
					const char *shape, int occurrence, enum zl_side side);
/* The adapter: fill out (freshly initialised) from a finished comparison. */
void zl_report_cmp_from_compare(const struct zl_compare *c, struct zl_report_cmp *out);

/* ---- pages ----------------------------------------------------------------------------- */

void zl_report_run_page(const struct zl_run *run, const char *now, struct strbuf *out);
/* A batch directory (batch.json, ops_status.csv, runs/, schedule.jsonl). -1 with err when it is none. */
int zl_report_batch_page(const char *batch_dir, const char *now, struct strbuf *out, struct strbuf *err);
/*
 * Two runs compared. A and B may be NULL (then no caliber blocks and no samples);
 * their samples come from their directories' plugins/timer.jsonl.
 */
void zl_report_compare_page(const struct zl_report_cmp *cmp, const struct zl_run *a, const struct zl_run *b,
			    const char *title, const char *subtitle, const char *now, struct strbuf *out);
/* An A/B directory (ab.json and its rounds' run directories). -1 with err when it is none. */
int zl_report_ab_page(const char *ab_dir, const struct zl_compare_opts *opts, const char *now,
		      struct strbuf *out, struct strbuf *err);
/* The runs of a history query, oldest first, as trends per op and shape. */
int zl_report_history_page(struct zl_history *h, const struct zl_history_filter *f, const char *now,
			   struct strbuf *out, struct strbuf *err);

/* ---- step detection (the history page's "shifted beyond its noise") -------------------- */

#define ZL_STEP_WINDOW 3
#define ZL_STEP_FLOOR 0.05
#define ZL_STEP_SIGMAS 4.0

/*
 * Mark the points where the series y[0..n) (latencies; NAN: no point) shifted:
 * shift[i] = +1 when the level went up at point i, -1 when it went down, else 0.
 * Returns the number of shifts. The rule, on the logs x of the present points:
 *   noise s = 1.4826 * median(|x[i] - x[i-1]|) / sqrt(2): one point's spread, from
 *   the point-to-point differences (a step moves only one of them; for normal noise
 *   of sd sigma this is sigma);
 *   at each point i with w = min(ZL_STEP_WINDOW, points before i, points from i on)
 *   >= 1, the jump d = median(the w points from i) - median(the w points before i);
 *   a candidate when |d| > max(ZL_STEP_SIGMAS * s * sqrt(2 / w), log(1 + floor_rel))
 *   (s * sqrt(2 / w): about the spread of a difference of two means of w points);
 *   of a run of adjacent candidates (a clean step makes its neighbours candidates
 *   too), the one where the means of the w points on each side differ most is kept.
 *   Fewer than 3 points: no shift.
 */
size_t zl_step_detect(const double *y, size_t n, double floor_rel, signed char *shift);

#endif
