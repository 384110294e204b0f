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

#include "../report.h"
#include "../runload.h"
#include "../strbuf.h"
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
};

void zl_samples_init(struct zl_samples *s);
void zl_samples_release(struct zl_samples *s);
/* Read <run_dir>/plugins/timer.jsonl's samples_ms; a missing file or field leaves s empty. */
void zl_samples_load(const char *run_dir, struct zl_samples *s);
/* The key of a row: op, dtype without "torch.", canonical shape, occurrence, side. Caller frees. */
char *zl_samples_key(const char *op, const char *dtype, const char *shape, int occurrence, enum zl_side side);
const struct zl_samples_entry *zl_samples_find(const struct zl_samples *s, const char *op, const char *dtype,
					       const char *shape, int occurrence, enum zl_side side);

/* ---- the compare page's body ------------------------------------------------------------- */

/*
 * Everything of the compare page between its title and its footer. sa/sb: the
 * samples of A and B (NULL: none); names: how A and B are called ("A", "B");
 * extra_html (may be NULL) goes after the summary (the A/B page's rounds).
 */
void zl_report_compare_body(const struct zl_report_cmp *cmp, const struct zl_run *a, const struct zl_run *b,
			    const struct zl_samples *sa, const struct zl_samples *sb, const char *extra_html,
			    struct strbuf *out);

/* ---- labels -------------------------------------------------------------------------------- */

/* "torch.bfloat16" -> "bf16", "torch.float32" -> "f32"; unknown dtypes lose "torch." only. */
void zl_report_dtype(struct strbuf *sb, const char *dtype);
/* A canonical shape without its blanks: "[[384, 384]]" -> "[[384,384]]". */
void zl_report_shape(struct strbuf *sb, const char *shape);
/* "x1.23" style ratio text: "1.23x" with 3 significant digits; "-" when not finite. */
void zl_report_ratio(char buf[32], double r);
/* An HTML id from text: letters, digits, '-' and '_' kept, others '-'. */
void zl_report_id(struct strbuf *sb, const char *prefix, const char *text);
/* Seconds as "42 s", "3.1 min", "1.2 h". */
void zl_report_duration(char buf[32], double s);
/* ISO 8601 UTC "YYYY-MM-DDTHH:MM:SS[.fff]Z" to epoch seconds; NAN when not such a time. */
double zl_report_parse_time(const char *iso);

#endif
