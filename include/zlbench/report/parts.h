/*
 * Pieces the report pages share (src/report/): the caliber block and warnings of
 * a run, the per-op latency/speedup charts of a run, the raw samples of
 * plugins/timer.jsonl, and short labels.
 *
 * Owner: the caller owns every struct it declares; _release frees what they hold.
 */
#ifndef ZLBENCH_REPORT_PARTS_H
#define ZLBENCH_REPORT_PARTS_H

#include <stddef.h>

#include "../efficiency.h"
#include "../report.h"
#include "../runload.h"
#include "../strbuf.h"
#include "../strmap.h"
#include "../strvec.h"

/* ---- caliber -------------------------------------------------------------------- */

/* The caliber grid of one run (html.h's zl_html_cal*), every field named; absent ones "not recorded". */
void zl_report_caliber(struct strbuf *sb, const struct zl_run *run);
/*
 * The caliber of n runs side by side: one column per run (headed by names[i]),
 * rows whose values differ between the runs marked (class "diff", a leading "≠").
 */
void zl_report_caliber_table(struct strbuf *sb, const struct zl_run *const *runs, const char *const *names,
			     size_t n);
/*
 * The caliber fields whose values differ among the n runs of a batch, one line
 * each: "timer: plan graph, used graph (mm, bmm); plan direct, used direct (sum)".
 * What differs from op to op by design (run id, status, device index, test node,
 * tuner counts, clocks) is left out; device names, timer plan and use, tuner and
 * autotune modes, commits and versions are compared.
 */
void zl_report_caliber_spread(const struct zl_run *const *runs, const char *const *names, size_t n,
			      struct strvec *out);
/* One line of the fields that tell runs of one batch apart (device, timer, status, commit). */
void zl_report_caliber_line(struct strbuf *sb, const struct zl_run *run);
/*
 * The warnings that apply to a run, one line each: status, timer fallbacks,
 * dropped throttled samples and unread clocks, foreign vendor modules, vendor
 * mismatch, inherited tuner winners, a reused interpreter, unverified devices,
 * a dirty FlagGems, and the loader's notes.
 */
void zl_report_run_warnings(const struct zl_run *run, struct strvec *out);

/* ---- a run's charts ------------------------------------------------------------------ */

/* The distinct ops of a run's results, in first-seen order. */
void zl_report_run_ops(const struct zl_run *run, struct strvec *ops);
/*
 * The latency (torch and FlagGems, log) and speedup chart of op in run, rows sorted
 * by speedup (losses first), in a <figure> with its caption. Nothing when op has no rows.
 * Returns the shapes drawn.
 */
size_t zl_report_op_chart(struct strbuf *sb, const struct zl_run *run, const char *op, const char *fig_id);
/*
 * Geomean of FlagGems' speedup over op's shapes that have one; NAN when none.
 * *n gets the number of shapes used, *losses those with speedup < 1.
 */
double zl_report_op_speedup(const struct zl_run *run, const char *op, size_t *n, size_t *losses);
/* The numbers behind an op's chart as a table (collapsed <details>). */
void zl_report_op_table(struct strbuf *sb, const struct zl_run *run, const char *op);

/* ---- hardware efficiency (efficiency.h) on a page ------------------------------------------ */

/*
 * An op's rows, each timed twice (torch and FlagGems on the run page, A and B on the
 * compare page), against the devices' peaks: a roofline when the rows' FLOPs are
 * known, else achieved GB/s against the HBM peak, with the sentence of the row that
 * moves the most, the rules in the caption and the numbers in a table.
 * Owner: zl_report_eff_release() frees the rows; the peaks are the static table's.
 */
struct zl_report_eff_row {
	char *label;                 /* the row on the chart: "f16 [4096,4096] ..." */
	char *dtype;
	struct zl_eff_counts counts;
	double ms[2];                /* the two times (NAN: none) */
	const char *cls[2];          /* each mark's class: "t" torch, "g" FlagGems */
};

struct zl_report_eff {
	const char *names[2];        /* what the two times are: "torch", "FlagGems" or "A", "B" */
	const char *legend;          /* more for the legend (static; NULL: none) */
	const struct zl_device_peak *peak[2];   /* each time's device (NULL: no peaks) */
	char *peak_why[2];           /* why not, when NULL */
	struct zl_report_eff_row *rows;
	size_t nr, alloc;
};

void zl_report_eff_init(struct zl_report_eff *e, const char *name0, const char *name1,
			const char *device0, const char *device1);
void zl_report_eff_release(struct zl_report_eff *e);
/* A row (label and dtype copied), counted from op, dtype, shape and FlagGems' figures. */
struct zl_report_eff_row *zl_report_eff_add(struct zl_report_eff *e, const char *label, const char *op,
					    const char *dtype, const char *shape, double fg_bytes, double fg_flops);
/* The section of one op: headline, chart, caption, table. Nothing when e has no rows. */
void zl_report_eff_section(struct strbuf *out, const struct zl_report_eff *e, const char *op, const char *fig_id);

/* ---- raw samples (plugins/timer.jsonl samples_ms) ---------------------------------------- */

struct zl_samples_entry {
	char *key;               /* zl_samples_key() */
	double *v;
	size_t n;
	int subset;              /* samples_stored "subset": every k-th sample */
};

struct zl_samples {
	struct zl_samples_entry *v;
	size_t nr, alloc;
	size_t lines;            /* measurements read */
	struct zl_strmap index;  /* key -> its entry in v */
};

void zl_samples_init(struct zl_samples *s);
void zl_samples_release(struct zl_samples *s);
/* Read <run_dir>/plugins/timer.jsonl's samples_ms; a missing file or field leaves s empty. */
void zl_samples_load(const char *run_dir, struct zl_samples *s);
/* The key of a row: op, dtype without "torch.", canonical shape, occurrence, side. Caller frees. */
char *zl_samples_key(const char *op, const char *dtype, const char *shape, int occurrence, enum zl_side side);
/* The entry of key, added (empty) when there is none. */
struct zl_samples_entry *zl_samples_add(struct zl_samples *s, const char *key);
const struct zl_samples_entry *zl_samples_find(const struct zl_samples *s, const char *op, const char *dtype,
					       const char *shape, int occurrence, enum zl_side side);

/* ---- the compare page's body ------------------------------------------------------------- */

/*
 * Everything of the compare page between its title and its footer: the verdict first
 * (then the subtitle, may be NULL), the forest plots, extra_html (may be NULL: the A/B
 * page's rounds), how close to the hardware, the caliber, the samples, every row.
 * sa/sb: the samples of A and B (NULL: none).
 */
void zl_report_compare_body(const struct zl_report_cmp *cmp, const struct zl_run *a, const struct zl_run *b,
			    const struct zl_samples *sa, const struct zl_samples *sb, const char *subtitle,
			    const char *extra_html, struct strbuf *out);

/* ---- the verdict line (report/verdict.c) ------------------------------------------------------ */

/* <p class="verdict" id="verdict"> ... </p>: the answer, directly under a page's title. */
void zl_report_verdict_begin(struct strbuf *out);
void zl_report_verdict_end(struct strbuf *out);
/* "3 shapes" with the plural right, in a <span class=cls> when cls is not NULL. */
void zl_report_count(struct strbuf *out, size_t n, const char *one, const char *many, const char *cls);
/*
 * "FlagGems is faster on 3 shapes and slower on 12 shapes of 15; geomean speedup 0.31x (95 %
 * interval 0.17x-0.55x) over shapes": the speedups (torch / FlagGems; NAN ones skipped) with
 * the bootstrap interval of their geomean (compare.h's zl_geomean_ci), as HTML.
 */
void zl_report_speedups(struct strbuf *out, const double *speedups, size_t n, const char *unit_one,
			const char *unit_many);

/* ---- labels -------------------------------------------------------------------------------- */

/* "torch.bfloat16" -> "bf16", "torch.float32" -> "f32"; unknown dtypes lose "torch." only. */
void zl_report_dtype(struct strbuf *sb, const char *dtype);
/* A canonical shape without its blanks: "[[384, 384]]" -> "[[384,384]]". */
void zl_report_shape(struct strbuf *sb, const char *shape);
/* A ratio with 3 significant digits, trailing zeros kept: "1.00x", "0.0445x", "123x"; "-" when not finite. */
void zl_report_ratio(char buf[32], double r);
/*
 * The decimals an interval supports: the fewest from floor(-log10(hi - lo)) on that still
 * print lo and hi apart (1.0001-1.0007: 3, "1.000" and "1.001"), with at least two
 * significant digits of lo (0.2-0.66: 2); -1 without an interval.
 */
int zl_report_ci_decimals(double lo, double hi);
/*
 * "1.000x (95 % interval 1.0001x-1.0007x)": the value at the decimals its interval supports,
 * the bounds one decimal finer (so that "1.06x (1.02x-1.10x)" reads as such, not "1.1x
 * (1.0x-1.1x)"); without an interval, zl_report_ratio's text.
 */
void zl_report_ratio_ci(struct strbuf *sb, double v, double lo, double hi);
/*
 * The class of a run status: "v-passed", "v-failed", ... for the statuses zlbench writes,
 * "v-other" for anything else (a status read from a file never becomes markup).
 */
const char *zl_report_status_class(const char *status);
/* one when n is 1, else many: "1 op", "0 ops". */
const char *zl_plural(size_t n, const char *one, const char *many);
/* An HTML id from text: letters, digits, '-' and '_' kept, others '-'. */
void zl_report_id(struct strbuf *sb, const char *prefix, const char *text);
/* Seconds as "42 s", "3.1 min", "1.2 h". */
void zl_report_duration(char buf[32], double s);
/* ISO 8601 UTC "YYYY-MM-DDTHH:MM:SS[.fff]Z" to epoch seconds; NAN when not such a time. */
double zl_report_parse_time(const char *iso);

#endif
