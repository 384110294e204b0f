/*
 * The compare page: the verdict line first (counts, geomean with its interval, the gate
 * when asked), per row B/A with its interval as a forest plot coloured by verdict, how
 * close A and B are to the hardware, the caliber of A and B and what differs, the
 * samples of the rows that moved, and every row in a table. It draws from struct
 * zl_report_cmp, which zl_report_cmp_from_compare() fills from compare.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/report.h"
#include "zlbench/report/html.h"
#include "zlbench/report/parts.h"
#include "zlbench/report/svg.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* How many moved rows get their samples drawn (the largest moves first). */
#define MAX_SAMPLE_ROWS 12

static const struct {
	const char *name;
	const char *mark;      /* chart class */
	const char *note;      /* chart note class */
	int order;             /* sort: the rows that need attention first */
} verdicts[] = {
	[ZL_RV_FASTER] = { "faster", "w", "nw", 2 },
	[ZL_RV_SLOWER] = { "slower", "l", "nl", 0 },
	[ZL_RV_SAME] = { "same", "s", "ns", 3 },
	[ZL_RV_UNSURE] = { "unsure", "u", "nu", 1 },
	[ZL_RV_MISSING] = { "missing", "m", "nu", 4 },
};

const char *zl_report_verdict_name(enum zl_report_verdict v)
{
	return (size_t)v < ZL_ARRAY_SIZE(verdicts) ? verdicts[v].name : "?";
}

void zl_report_cmp_init(struct zl_report_cmp *c)
{
	memset(c, 0, sizeof(*c));
	c->gate = -1;
	c->geomean = c->geo_lo = c->geo_hi = NAN;
	strvec_init(&c->gate_lines);
	strvec_init(&c->mismatches);
	strvec_init(&c->caliber);
	strvec_init(&c->warnings);
}

void zl_report_cmp_release(struct zl_report_cmp *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		free(c->rows[i].op);
		free(c->rows[i].dtype);
		free(c->rows[i].shape);
		free(c->rows[i].note);
	}
	free(c->rows);
	strvec_clear(&c->gate_lines);
	strvec_clear(&c->mismatches);
	strvec_clear(&c->caliber);
	strvec_clear(&c->warnings);
	free(c->interval);
	free(c->method);
	zl_report_cmp_init(c);
}

struct zl_report_row *zl_report_cmp_add(struct zl_report_cmp *c, const char *op, const char *dtype,
					const char *shape, int occurrence, enum zl_side side)
{
	struct zl_report_row *r;

	ALLOC_GROW(c->rows, c->nr + 1, c->alloc);
	r = &c->rows[c->nr++];
	memset(r, 0, sizeof(*r));
	r->op = xstrdup(op ? op : "");
	r->dtype = xstrdup(dtype ? dtype : "");
	r->shape = xstrdup(shape ? shape : "");
	r->occurrence = occurrence;
	r->side = side;
	r->a_ms = r->b_ms = r->ratio = r->ci_low = r->ci_high = NAN;
	r->verdict = ZL_RV_MISSING;
	return r;
}

/* A compare row's note: how it was judged, and why it is unsure, lost or failing the gate (NULL: none). */
static char *compare_row_note(const struct zl_compare_row *cr)
{
	struct strbuf note = STRBUF_INIT;

	if (cr->verdict != ZL_VERDICT_MISSING) {
		if (cr->method == ZL_METHOD_MEDIANS)
			strbuf_addf(&note, "medians, band by %s", zl_noise_basis_name(cr->basis));
		else
			strbuf_addf(&note, "%s, p %.2g, threshold %.3g %%", zl_method_name(cr->method),
				    cr->p_value, cr->threshold_pct);
	}
	if (cr->unsure_reason)
		strbuf_addf(&note, "%sunsure: %s", note.len ? "; " : "", cr->unsure_reason);
	if (cr->lost_in_b)
		strbuf_addf(&note, "%slost in B", note.len ? "; " : "");
	if (cr->gate_failed)
		strbuf_addf(&note, "%sfails the gate", note.len ? "; " : "");
	if (!note.len) {
		strbuf_release(&note);
		return NULL;
	}
	return strbuf_detach(&note, NULL);
}

/*
 * A row judged on raw samples (or on ab's pairs) draws compare's 95 % interval of B/A
 * (ci_low, ci_high). A row of a run without samples keeps the old rule: "same" when
 * |B - A| <= band, that is when B/A +- band/A holds 1, so that whisker is drawn for it
 * and its note says so.
 */
static void add_compare_row(struct zl_report_cmp *out, const struct zl_compare_row *cr)
{
	static const enum zl_report_verdict map[] = {
		[ZL_VERDICT_SAME] = ZL_RV_SAME,
		[ZL_VERDICT_FASTER] = ZL_RV_FASTER,
		[ZL_VERDICT_SLOWER] = ZL_RV_SLOWER,
		[ZL_VERDICT_MISSING] = ZL_RV_MISSING,
		[ZL_VERDICT_UNSURE] = ZL_RV_UNSURE,
	};
	struct zl_report_row *r = zl_report_cmp_add(out, cr->op, cr->dtype, cr->shape, cr->occurrence, cr->side);

	r->a_ms = cr->a_ms;
	r->b_ms = cr->b_ms;
	r->ratio = cr->ratio;
	if (isfinite(cr->ci_low) && isfinite(cr->ci_high)) {
		r->ci_low = cr->ci_low;
		r->ci_high = cr->ci_high;
	} else if (isfinite(cr->band_ms) && cr->a_ms > 0) {
		r->ci_low = fmax((cr->b_ms - cr->band_ms) / cr->a_ms, 1e-6);
		r->ci_high = (cr->b_ms + cr->band_ms) / cr->a_ms;
	}
	r->verdict = (size_t)cr->verdict < ZL_ARRAY_SIZE(map) ? map[cr->verdict] : ZL_RV_UNSURE;
	r->gate_failed = cr->gate_failed;
	r->note = compare_row_note(cr);
}

/* The gate's lines, the caliber mismatches, the A/B variables (with the floor) and the warnings. */
static void blocks_from_compare(const struct zl_compare *c, struct zl_report_cmp *out)
{
	struct strbuf floor = STRBUF_INIT;
	size_t i;

	out->gate = c->opts.fail_pct < 0 ? -1 : c->gate_failed ? 1 : 0;
	if (out->gate >= 0)
		strvec_pushf(&out->gate_lines, "--fail-on-regression %g %%: %zu of %zu FlagGems rows fail it",
			     c->opts.fail_pct, c->gate_rows, c->gems_rows);
	for (i = 0; i < c->gate_reasons.nr; i++)
		strvec_push(&out->gate_lines, c->gate_reasons.v[i]);
	for (i = 0; i < c->caliber.mismatches.nr; i++)
		strvec_pushf(&out->mismatches, "%s: %s vs %s", c->caliber.mismatches.v[i].field,
			     c->caliber.mismatches.v[i].a, c->caliber.mismatches.v[i].b);
	if (c->caliber.autotune)
		strvec_pushf(&out->caliber, "autotune: %s", c->caliber.autotune);
	zl_compare_floor_summary(c, &floor);
	strvec_pushf(&out->caliber, "floor: %s", floor.buf);
	strbuf_release(&floor);
	for (i = 0; i < c->caliber.variables.nr; i++)
		strvec_pushf(&out->caliber, "%s: %s \xe2\x86\x92 %s", c->caliber.variables.v[i].field,
			     c->caliber.variables.v[i].a, c->caliber.variables.v[i].b);
	for (i = 0; i < c->caliber.flags.nr; i++)
		strvec_push(&out->warnings, c->caliber.flags.v[i]);
	for (i = 0; i < c->warnings.nr; i++)
		strvec_push(&out->warnings, c->warnings.v[i]);
}

/* The adapter: compare's rows, blocks, method and overall geomean into the page's struct. */
void zl_report_cmp_from_compare(const struct zl_compare *c, struct zl_report_cmp *out)
{
	size_t i;

	for (i = 0; i < c->nr_rows; i++)
		add_compare_row(out, &c->rows[i]);
	blocks_from_compare(c, out);
	out->interval = xstrfmt("rows with raw samples: compare's 95 %% interval of B/A (trimmed means, "
				"run-to-run term included, docs/verdicts.md); rows without: B/A \xc2\xb1 band/A, "
				"the old rule's band (\"same\" exactly when that whisker holds 1)");
	out->method = xstrfmt("compare's rule: %zu rows on raw samples, %zu by the timer's IQRs, %zu by the "
			      "%g %% threshold", c->rows_samples, c->rows_iqr, c->rows_threshold,
			      c->opts.threshold_pct);
	out->geomean = c->overall.geomean;
	out->geo_lo = c->overall.lo;
	out->geo_hi = c->overall.hi;
	out->geo_n = c->overall.n;
}

/* ---- the page ------------------------------------------------------------------------------ */

static void row_label(struct strbuf *sb, const struct zl_report_row *r, int with_op)
{
	if (with_op)
		strbuf_addf(sb, "%s ", r->op);
	zl_report_dtype(sb, r->dtype);
	strbuf_addch(sb, ' ');
	zl_report_shape(sb, r->shape);
	if (r->occurrence > 1)
		strbuf_addf(sb, " #%d", r->occurrence);
	strbuf_addf(sb, " %s", zl_side_name(r->side));
}

struct order {
	const struct zl_report_row *r;
	size_t idx;
};

/* Slower rows first, then unsure, faster, same, missing; within a verdict the largest B/A first. */
static int by_attention(const void *x, const void *y)
{
	const struct zl_report_row *a = ((const struct order *)x)->r, *b = ((const struct order *)y)->r;
	int oa = verdicts[a->verdict].order, ob = verdicts[b->verdict].order;

	if (oa != ob)
		return oa - ob;
	if (isfinite(a->ratio) && isfinite(b->ratio) && a->ratio != b->ratio)
		return a->ratio > b->ratio ? -1 : 1;
	return ((const struct order *)x)->idx < ((const struct order *)y)->idx ? -1 : 1;
}

/* The mismatch and, when the gate failed, its reasons: under the verdict, never an empty box. */
static void gate_block(struct strbuf *out, const struct zl_report_cmp *cmp)
{
	if (cmp->mismatches.nr)
		zl_html_notes(out, "bad", "Caliber mismatch: A and B were not measured alike (drawn anyway)",
			      &cmp->mismatches);
	if (cmp->gate == 1)
		zl_html_notes(out, "bad", "Gate: FAILED", &cmp->gate_lines);
}

/* The answer: each side's verdict counts, the geomean B/A with its interval, the gate when asked. */
static void verdict(struct strbuf *out, const struct zl_report_cmp *cmp)
{
	size_t counts[2][ZL_ARRAY_SIZE(verdicts)] = { { 0 } }, i, v;
	struct strbuf t = STRBUF_INIT;

	for (i = 0; i < cmp->nr; i++)
		counts[cmp->rows[i].side == ZL_SIDE_GEMS][cmp->rows[i].verdict]++;
	zl_report_verdict_begin(out);
	if (!cmp->nr)
		strbuf_addstr(out, "No rows: neither run has results. ");
	for (v = 0; v < 2 && cmp->nr; v++) {
		size_t side = 1 - v, k, o, any = 0;

		zl_html_textf(out, "%s rows:", side ? "FlagGems" : "torch");
		/* in the order of attention: slower, unsure, faster, same, missing */
		for (o = 0; o < ZL_ARRAY_SIZE(verdicts); o++)
			for (k = 0; k < ZL_ARRAY_SIZE(verdicts); k++)
				if (verdicts[k].order == (int)o && counts[side][k]) {
					strbuf_addf(out, "%s <span class=\"v-%s\">%zu %s</span>", any ? "," : "",
						    verdicts[k].name, counts[side][k], verdicts[k].name);
					any = 1;
				}
		strbuf_addstr(out, any ? (v ? ". " : "; ") : (v ? " none. " : " none; "));
	}
	if (isfinite(cmp->geomean)) {
		const char *cls = cmp->geo_lo > 1 ? "v-slower" : cmp->geo_hi < 1 ? "v-faster" : "v-same";

		zl_report_ratio_ci(&t, cmp->geomean, cmp->geo_lo, cmp->geo_hi);
		strbuf_addstr(out, "Geomean B/A of the FlagGems rows ");
		strbuf_addf(out, "<strong class=\"%s\">", cls);
		zl_html_escape(out, t.buf);
		strbuf_addstr(out, "</strong>");
		zl_html_textf(out, " over %zu %s", cmp->geo_n, zl_plural(cmp->geo_n, "shape", "shapes"));
		if (cmp->geo_lo > 1 || cmp->geo_hi < 1)
			zl_html_textf(out, ": B is %s overall", cmp->geo_lo > 1 ? "slower" : "faster");
		strbuf_addstr(out, ". ");
	}
	if (cmp->gate >= 0) {
		strbuf_addf(out, "<strong class=\"%s\">", cmp->gate ? "v-fail" : "v-pass");
		zl_html_textf(out, "Gate %s", cmp->gate ? "FAILED" : "passed");
		strbuf_addstr(out, "</strong>");
		if (cmp->gate_lines.nr)
			zl_html_textf(out, " (%s)", cmp->gate_lines.v[0]);
		strbuf_addch(out, '.');
	}
	if (cmp->mismatches.nr)
		strbuf_addstr(out, " <strong class=\"v-fail\">A and B were not measured alike.</strong>");
	zl_report_verdict_end(out);
	strbuf_release(&t);
}

static void caliber_section(struct strbuf *out, const struct zl_report_cmp *cmp, const struct zl_run *a,
			    const struct zl_run *b)
{
	const struct zl_run *runs[2] = { a, b };
	const char *names[2] = { "A", "B" };
	struct strvec w = STRVEC_INIT;
	int s;

	strbuf_addstr(out, "<h2>Caliber</h2>\n");
	if (cmp->caliber.nr)
		zl_html_notes(out, "ok", "What differs between A and B (the A/B variables)", &cmp->caliber);
	for (s = 0; s < 2; s++) {
		struct strvec rw = STRVEC_INIT;
		size_t i;

		if (!runs[s])
			continue;
		zl_report_run_warnings(runs[s], &rw);
		for (i = 0; i < rw.nr; i++)
			strvec_pushf(&w, "%s: %s", names[s], rw.v[i]);
		strvec_clear(&rw);
	}
	for (s = 0; s < (int)cmp->warnings.nr; s++)
		strvec_push(&w, cmp->warnings.v[s]);
	zl_html_notes(out, "warn", "Warnings", &w);
	strvec_clear(&w);
	if (a && b)
		zl_report_caliber_table(out, runs, names, 2);
}

/* ord[0..n) are the rows of op, in the order of attention. */
static void forest(struct strbuf *out, const struct zl_report_cmp *cmp, const struct order *ord, size_t n,
		   const char *op, size_t ops)
{
	struct zl_rowchart c;
	struct strbuf label = STRBUF_INIT, tip = STRBUF_INIT, title = STRBUF_INIT, cap = STRBUF_INIT,
		      id = STRBUF_INIT;
	size_t i, drawn = 0;

	strbuf_addf(&title, "%s: B/A per row with its interval, coloured by verdict", op);
	zl_rowchart_init(&c, title.buf);
	zl_rowchart_panel(&c, 0, "B/A (log): left of 1 B is faster, right slower", 1, 1.0, 1);
	for (i = 0; i < n; i++) {
		const struct zl_report_row *r = ord[i].r;
		char ratio[32], am[32], bm[32], note[48];
		struct zl_chart_row *row;

		strbuf_reset(&label);
		strbuf_reset(&tip);
		row_label(&label, r, 0);
		zl_report_ratio(ratio, r->ratio);
		zl_fmt_ms(am, r->a_ms);
		zl_fmt_ms(bm, r->b_ms);
		strbuf_addf(&tip, "%s %s %s %s: A %s ms, B %s ms, B/A %s", r->op, r->dtype, r->shape,
			    zl_side_name(r->side), am, bm, ratio);
		if (isfinite(r->ci_low))
			strbuf_addf(&tip, " [%.4g, %.4g]", r->ci_low, r->ci_high);
		strbuf_addf(&tip, ", %s", verdicts[r->verdict].name);
		if (r->note)
			strbuf_addf(&tip, " (%s)", r->note);
		snprintf(note, sizeof(note), "%s %s", ratio, verdicts[r->verdict].name);
		row = zl_rowchart_add(&c, label.buf, note, verdicts[r->verdict].note, tip.buf);
		if (isfinite(r->ci_low) && isfinite(r->ci_high))
			zl_row_mark(row, 0, ZL_MARK_WHISKER, r->ci_low, r->ci_high, verdicts[r->verdict].mark);
		zl_row_mark(row, 0, r->side == ZL_SIDE_GEMS ? ZL_MARK_DOT : ZL_MARK_RING, r->ratio, NAN,
			    verdicts[r->verdict].mark);
		drawn++;
	}
	if (ops > 1) {
		strbuf_addstr(out, "<h3>");
		zl_html_escape(out, op);
		strbuf_addstr(out, "</h3>\n");
	}
	zl_report_id(&id, "forest-", op);
	zl_html_figure_begin(out, id.buf);
	zl_rowchart_svg(&c, out);
	strbuf_addf(&cap, "Forest plot of %s: %zu rows, slower first, then unsure, faster, same, missing. Each row is "
		    "B/A on a log scale (dot: FlagGems row, ring: torch row, the baseline whose drift is the "
		    "machine's); the whisker is %s. Red slower, green faster, grey same, amber unsure or missing.",
		    op, drawn, cmp->interval ? cmp->interval : "the interval of the ratio");
	zl_html_figure_end(out, cap.buf);
	zl_rowchart_release(&c);
	strbuf_release(&label);
	strbuf_release(&tip);
	strbuf_release(&title);
	strbuf_release(&cap);
	strbuf_release(&id);
}

static int moved(const struct zl_report_row *r)
{
	return r->verdict == ZL_RV_FASTER || r->verdict == ZL_RV_SLOWER;
}

static int by_move(const void *x, const void *y)
{
	const struct zl_report_row *a = ((const struct order *)x)->r, *b = ((const struct order *)y)->r;
	double ma = fabs(log(a->ratio)), mb = fabs(log(b->ratio));

	if (ma != mb)
		return ma > mb ? -1 : 1;
	return ((const struct order *)x)->idx < ((const struct order *)y)->idx ? -1 : 1;
}

/* The rows that moved (faster or slower, with a ratio > 0), the largest move first; returns how many. */
static size_t moved_rows(const struct zl_report_cmp *cmp, struct order *mv)
{
	size_t n = 0, i;

	for (i = 0; i < cmp->nr; i++)
		if (moved(&cmp->rows[i]) && isfinite(cmp->rows[i].ratio) && cmp->rows[i].ratio > 0) {
			mv[n].r = &cmp->rows[i];
			mv[n].idx = i;
			n++;
		}
	if (n)
		qsort(mv, n, sizeof(*mv), by_move);
	return n;
}

/*
 * A strip pair (A, then B) for each of the first MAX_SAMPLE_ROWS moved rows with samples
 * on both sides; the labels of those without go to lacking. Returns the pairs added.
 */
static size_t add_strip_pairs(struct zl_strips *st, const struct order *mv, size_t n, const struct zl_samples *sa,
			      const struct zl_samples *sb, struct strvec *lacking)
{
	struct strbuf label = STRBUF_INIT;
	size_t i, drawn = 0;

	for (i = 0; i < n && drawn < MAX_SAMPLE_ROWS; i++) {
		const struct zl_report_row *r = mv[i].r;
		const struct zl_samples_entry *ea = sa ? zl_samples_find(sa, r->op, r->dtype, r->shape, r->occurrence,
									 r->side) : NULL;
		const struct zl_samples_entry *eb = sb ? zl_samples_find(sb, r->op, r->dtype, r->shape, r->occurrence,
									 r->side) : NULL;

		strbuf_reset(&label);
		row_label(&label, r, 1);
		if (!ea || !eb) {
			strvec_push(lacking, label.buf);
			continue;
		}
		strbuf_addstr(&label, " A");
		zl_strips_add(st, label.buf, "s", ea->v, ea->n);
		label.buf[label.len - 1] = 'B';
		zl_strips_add(st, label.buf, verdicts[r->verdict].mark, eb->v, eb->n);
		drawn++;
	}
	strbuf_release(&label);
	return drawn;
}

static void samples_section(struct strbuf *out, const struct zl_report_cmp *cmp, const struct zl_samples *sa,
			    const struct zl_samples *sb)
{
	struct order *mv = xcalloc(cmp->nr ? cmp->nr : 1, sizeof(*mv));
	struct strvec lacking = STRVEC_INIT;
	struct strbuf cap = STRBUF_INIT;
	struct zl_strips st;
	size_t n, drawn;

	strbuf_addstr(out, "<h2>Samples of the rows that moved</h2>\n");
	n = moved_rows(cmp, mv);
	if (!n) {
		zl_html_elem(out, "p", NULL, "No row moved: no row is faster or slower.");
		free(mv);
		return;
	}
	zl_strips_init(&st, "Per-call samples of A and B for the rows that moved the most");
	st.gap_after_pairs = 1;
	drawn = add_strip_pairs(&st, mv, n, sa, sb, &lacking);
	if (drawn) {
		zl_html_figure_begin(out, "samples");
		zl_strips_svg(&st, out);
		strbuf_addf(&cap, "The raw per-call samples (plugins/timer.jsonl samples_ms) of the %zu rows that moved the "
			    "most, A in grey above B in its verdict's colour: one dot per sample (at most %d drawn per "
			    "row), the box from the first to the third quartile, the bar at the median.", drawn,
			    ZL_STRIP_MAX_DOTS);
		if (n > drawn + lacking.nr)
			strbuf_addf(&cap, " %zu more rows moved (the table lists them).", n - drawn - lacking.nr);
		zl_html_figure_end(out, cap.buf);
	}
	if (lacking.nr)
		zl_html_notes(out, "warn", "No samples_ms recorded in A or B for these rows (older runs keep only summaries)",
			      &lacking);
	zl_strips_release(&st);
	strvec_clear(&lacking);
	strbuf_release(&cap);
	free(mv);
}

static void rows_table(struct strbuf *out, const struct zl_report_cmp *cmp, const struct order *ord)
{
	static const char *const heads[] = { "op", "dtype", "shape", "side", "A ms", "B ms", "B/A", "interval",
					     "verdict", "note" };
	struct strbuf t = STRBUF_INIT;
	size_t i;

	strbuf_addstr(out, "<h2>All rows</h2>\n<details><summary>");
	zl_html_textf(out, "%zu rows, in the order of the forest plots", cmp->nr);
	strbuf_addstr(out, "</summary>\n");
	zl_html_table_begin(out, NULL, heads, ZL_ARRAY_SIZE(heads));
	for (i = 0; i < cmp->nr; i++) {
		const struct zl_report_row *r = ord[i].r;
		char buf[64], cls[32];

		if (i)
			zl_html_tr(out);
		zl_html_td(out, r->op, NULL);
		zl_html_td(out, r->dtype, NULL);
		strbuf_reset(&t);
		zl_report_shape(&t, r->shape);
		if (r->occurrence > 1)
			strbuf_addf(&t, " #%d", r->occurrence);
		zl_html_td(out, t.buf, "mono");
		zl_html_td(out, zl_side_name(r->side), NULL);
		zl_fmt_ms(buf, r->a_ms);
		zl_html_td(out, buf, "n");
		zl_fmt_ms(buf, r->b_ms);
		zl_html_td(out, buf, "n");
		zl_report_ratio(buf, r->ratio);
		zl_html_td(out, buf, "n");
		if (isfinite(r->ci_low))
			snprintf(buf, sizeof(buf), "%.4g \xe2\x80\x93 %.4g", r->ci_low, r->ci_high);
		else
			snprintf(buf, sizeof(buf), "-");
		zl_html_td(out, buf, "n");
		snprintf(cls, sizeof(cls), "v-%s", verdicts[r->verdict].name);
		zl_html_td(out, verdicts[r->verdict].name, cls);
		zl_html_td(out, r->note ? r->note : "", "wrap");
	}
	zl_html_table_end(out);
	strbuf_addstr(out, "</details>\n");
	strbuf_release(&t);
}

/*
 * Per op, how close A's and B's times are to the hardware (the forest plot's row order):
 * op k's rows are by_op[start[k] .. start[k + 1]).
 */
static void efficiency_section(struct strbuf *out, const struct order *by_op, const size_t *start,
			       const struct strvec *ops, const struct zl_run *a, const struct zl_run *b)
{
	struct strbuf label = STRBUF_INIT, id = STRBUF_INIT;
	size_t i, k;

	strbuf_addstr(out, "<h2>How close to the hardware</h2>\n");
	for (k = 0; k < ops->nr; k++) {
		struct zl_report_eff e;

		zl_report_eff_init(&e, "A", "B", a ? a->device_name : NULL, b ? b->device_name : NULL);
		e.legend = "grey: torch rows, blue: FlagGems rows";
		for (i = start[k]; i < start[k + 1]; i++) {
			const struct zl_report_row *r = by_op[i].r;
			const struct zl_result *x = NULL;
			struct zl_report_eff_row *er;

			if (a)
				x = zl_run_find(a, r->op, r->dtype, r->shape, r->occurrence, r->side);
			if (!x && b)
				x = zl_run_find(b, r->op, r->dtype, r->shape, r->occurrence, r->side);
			strbuf_reset(&label);
			row_label(&label, r, 0);
			er = zl_report_eff_add(&e, label.buf, r->op, r->dtype, r->shape, x ? x->fg_bytes : NAN,
					       x ? x->fg_flops : NAN);
			er->ms[0] = r->a_ms > 0 ? r->a_ms : NAN;
			er->ms[1] = r->b_ms > 0 ? r->b_ms : NAN;
			er->cls[0] = er->cls[1] = r->side == ZL_SIDE_GEMS ? "g" : "t";
		}
		if (ops->nr > 1) {
			strbuf_addstr(out, "<h3>");
			zl_html_escape(out, ops->v[k]);
			strbuf_addstr(out, "</h3>\n");
		}
		strbuf_reset(&id);
		zl_report_id(&id, "eff-", ops->v[k]);
		zl_report_eff_section(out, &e, ops->v[k], id.buf);
		zl_report_eff_release(&e);
	}
	strbuf_release(&label);
	strbuf_release(&id);
}

void zl_report_compare_body(const struct zl_report_cmp *cmp, const struct zl_run *a, const struct zl_run *b,
			    const struct zl_samples *sa, const struct zl_samples *sb, const char *subtitle,
			    const char *extra_html, struct strbuf *out)
{
	struct order *ord = xcalloc(cmp->nr ? cmp->nr : 1, sizeof(*ord));
	struct order *by_op = xcalloc(cmp->nr ? cmp->nr : 1, sizeof(*by_op));
	struct zl_strmap op_index = ZL_STRMAP_INIT;
	struct strvec ops = STRVEC_INIT;
	size_t *start, *fill, i;

	/* the ops in first-seen order (hashed: a scan per row was quadratic in rows) */
	for (i = 0; i < cmp->nr; i++) {
		int added;

		ord[i].r = &cmp->rows[i];
		ord[i].idx = i;
		zl_strmap_put(&op_index, cmp->rows[i].op, ops.nr, &added);
		if (added)
			strvec_push(&ops, cmp->rows[i].op);
	}
	if (cmp->nr)
		qsort(ord, cmp->nr, sizeof(*ord), by_attention);
	verdict(out, cmp);
	if (subtitle)
		zl_html_elem(out, "p", "class=\"sub\"", subtitle);
	/* each op's rows together, in the order of attention: one forest each, without a scan of all rows */
	start = xcalloc(ops.nr + 1, sizeof(*start));
	fill = xcalloc(ops.nr + 1, sizeof(*fill));
	for (i = 0; i < cmp->nr; i++)
		start[*zl_strmap_get(&op_index, ord[i].r->op) + 1]++;
	for (i = 0; i < ops.nr; i++)
		start[i + 1] += start[i];
	for (i = 0; i < cmp->nr; i++) {
		size_t o = *zl_strmap_get(&op_index, ord[i].r->op);

		by_op[start[o] + fill[o]++] = ord[i];
	}
	gate_block(out, cmp);
	strbuf_addstr(out, "<h2>B/A per row</h2>\n");
	if (cmp->method)
		zl_html_elem(out, "p", "class=\"sub\"", cmp->method);
	for (i = 0; i < ops.nr; i++)
		forest(out, cmp, by_op + start[i], start[i + 1] - start[i], ops.v[i], ops.nr);
	if (extra_html)
		strbuf_addstr(out, extra_html);
	if (cmp->nr)
		efficiency_section(out, by_op, start, &ops, a, b);
	caliber_section(out, cmp, a, b);
	samples_section(out, cmp, sa, sb);
	rows_table(out, cmp, ord);
	strvec_clear(&ops);
	zl_strmap_clear(&op_index);
	free(start);
	free(fill);
	free(by_op);
	free(ord);
}

void zl_report_compare_page(const struct zl_report_cmp *cmp, const struct zl_run *a, const struct zl_run *b,
			    const char *title, const char *subtitle, const char *now, struct strbuf *out)
{
	struct zl_samples sa, sb;

	zl_samples_init(&sa);
	zl_samples_init(&sb);
	if (a)
		zl_samples_load(a->dir, &sa);
	if (b)
		zl_samples_load(b->dir, &sb);
	zl_html_page_begin(out, title, NULL);
	zl_report_compare_body(cmp, a, b, &sa, &sb, subtitle, NULL, out);
	zl_html_page_end(out, now);
	zl_samples_release(&sa);
	zl_samples_release(&sb);
}
