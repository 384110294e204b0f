/*
 * How close an op's rows are to the hardware, on a page (parts.h's zl_report_eff): the
 * sentence of the row that moves the most, a roofline (or, without FLOPs, achieved GB/s
 * against the HBM peak), the rules that counted and the numbers. The counting is
 * results/efficiency.c's; this file only draws it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/efficiency.h"
#include "zlbench/report/html.h"
#include "zlbench/report/parts.h"
#include "zlbench/report/svg.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

void zl_report_eff_init(struct zl_report_eff *e, const char *name0, const char *name1,
			const char *device0, const char *device1)
{
	const char *dev[2] = { device0, device1 };
	int s;

	memset(e, 0, sizeof(*e));
	e->names[0] = name0;
	e->names[1] = name1;
	for (s = 0; s < 2; s++) {
		struct strbuf why = STRBUF_INIT;

		e->peak[s] = zl_eff_peak_of(dev[s], &why);
		e->peak_why[s] = e->peak[s] ? NULL : strbuf_detach(&why, NULL);
		strbuf_release(&why);
	}
}

void zl_report_eff_release(struct zl_report_eff *e)
{
	size_t i;

	for (i = 0; i < e->nr; i++) {
		free(e->rows[i].label);
		free(e->rows[i].dtype);
		zl_eff_counts_release(&e->rows[i].counts);
	}
	free(e->rows);
	free(e->peak_why[0]);
	free(e->peak_why[1]);
	memset(e, 0, sizeof(*e));
}

struct zl_report_eff_row *zl_report_eff_add(struct zl_report_eff *e, const char *label, const char *op,
					    const char *dtype, const char *shape, double fg_bytes, double fg_flops)
{
	struct zl_report_eff_row *r;

	ALLOC_GROW(e->rows, e->nr + 1, e->alloc);
	r = &e->rows[e->nr++];
	memset(r, 0, sizeof(*r));
	r->label = xstrdup(label ? label : "");
	r->dtype = xstrdup(dtype ? dtype : "");
	r->ms[0] = r->ms[1] = NAN;
	r->cls[0] = "t";
	r->cls[1] = "g";
	zl_eff_counts_init(&r->counts);
	zl_eff_count(op, dtype, shape, fg_bytes, fg_flops, &r->counts);
	return r;
}

static void rate_of(const struct zl_report_eff *e, const struct zl_report_eff_row *r, int s, struct zl_eff_rate *out)
{
	zl_eff_rate(&r->counts, r->ms[s], e->peak[s], r->dtype, out);
}

/* "torch at 1.119 ms moves 4 GiB: ...; FlagGems at 1.515 ms moves ..." for one row. */
static void row_sentence(struct strbuf *sb, const struct zl_report_eff *e, const struct zl_report_eff_row *r)
{
	int s, said = 0;

	for (s = 0; s < 2; s++) {
		struct zl_eff_rate rate;

		if (!isfinite(r->ms[s]))
			continue;
		rate_of(e, r, s, &rate);
		strbuf_addf(sb, "%s%s ", said ? "; " : "", e->names[s]);
		zl_eff_sentence(sb, &r->counts, &rate);
		said = 1;
	}
	if (!said)
		strbuf_addstr(sb, "no time measured");
}

/* The row that moves the most bytes (else does the most FLOPs); NULL when none has a count. */
static const struct zl_report_eff_row *largest(const struct zl_report_eff *e)
{
	const struct zl_report_eff_row *best = NULL;
	size_t i;

	for (i = 0; i < e->nr; i++) {
		const struct zl_report_eff_row *r = &e->rows[i];
		double k = isfinite(r->counts.bytes) ? r->counts.bytes : r->counts.flops;
		double kb = best ? (isfinite(best->counts.bytes) ? best->counts.bytes : best->counts.flops) : NAN;

		if (isfinite(k) && (isfinite(r->ms[0]) || isfinite(r->ms[1])) && (!best || k > kb))
			best = r;
	}
	return best;
}

/* The device whose roofs the chart draws: the second time's, else the first's. */
static const struct zl_device_peak *chart_peak(const struct zl_report_eff *e)
{
	return e->peak[1] ? e->peak[1] : e->peak[0];
}

/* A ceiling per distinct peak of the rows' dtypes: "fp16, bf16 989.5 TFLOP/s" when they share one. */
static void ceilings(struct zl_roofline *rl, const struct zl_report_eff *e, const struct zl_device_peak *p)
{
	int used[ZL_PEAK__COUNT] = { 0 }, k, j;
	size_t i;

	if (!p)
		return;
	for (i = 0; i < e->nr; i++) {
		int kind = zl_eff_dtype_peak(e->rows[i].dtype);
		if (kind >= 0 && p->tflops[kind] > 0 && e->rows[i].counts.flops > 0)
			used[kind] = 1;
	}
	for (k = 0; k < ZL_PEAK__COUNT; k++) {
		struct strbuf lab = STRBUF_INIT;

		if (!used[k])
			continue;
		for (j = k; j < ZL_PEAK__COUNT; j++)
			if (used[j] && p->tflops[j] == p->tflops[k]) {
				strbuf_addf(&lab, "%s%s", lab.len ? ", " : "", zl_peak_kind_name(j));
				if (j > k)
					used[j] = 0;
			}
		strbuf_addf(&lab, " %g TFLOP/s", p->tflops[k]);
		zl_roofline_ceiling(rl, lab.buf, p->tflops[k]);
		strbuf_release(&lab);
	}
}

static void roofline_chart(struct strbuf *out, const struct zl_report_eff *e, const char *op, size_t *drawn)
{
	const struct zl_device_peak *p = chart_peak(e);
	struct zl_roofline rl;
	struct strbuf title = STRBUF_INIT, tip = STRBUF_INIT, bw = STRBUF_INIT;
	size_t i;
	int s;

	strbuf_addf(&title, "%s: achieved TFLOP/s against arithmetic intensity under the device's roofs", op);
	if (p) {
		strbuf_addstr(&bw, "HBM ");
		zl_eff_fmt_gbps(&bw, p->hbm_gbps);
	}
	zl_roofline_init(&rl, title.buf, p ? p->hbm_gbps : NAN, bw.buf);
	ceilings(&rl, e, p);
	for (i = 0; i < e->nr; i++) {
		const struct zl_report_eff_row *r = &e->rows[i];
		long prev = -1;

		if (!(r->counts.bytes > 0 && r->counts.flops > 0))
			continue;
		for (s = 0; s < 2; s++) {
			struct zl_eff_rate rate;

			if (!isfinite(r->ms[s]))
				continue;
			rate_of(e, r, s, &rate);
			strbuf_reset(&tip);
			strbuf_addf(&tip, "%s, %s ", r->label, e->names[s]);
			zl_eff_sentence(&tip, &r->counts, &rate);
			prev = (long)zl_roofline_add(&rl, r->counts.flops / r->counts.bytes, rate.tflops, r->cls[s], !s,
						     tip.buf, prev);
			(*drawn)++;
		}
	}
	zl_roofline_svg(&rl, out);
	zl_roofline_release(&rl);
	strbuf_release(&title);
	strbuf_release(&tip);
	strbuf_release(&bw);
}

static void bandwidth_chart(struct strbuf *out, const struct zl_report_eff *e, const char *op, size_t *drawn)
{
	const struct zl_device_peak *p = chart_peak(e);
	struct zl_rowchart c;
	struct strbuf title = STRBUF_INIT, tip = STRBUF_INIT, note = STRBUF_INIT, head = STRBUF_INIT;
	size_t i;

	strbuf_addf(&title, "%s: achieved bandwidth per shape against the device's HBM peak", op);
	strbuf_addstr(&head, "achieved GB/s (log)");
	if (p) {
		strbuf_addstr(&head, "; dashed: the HBM peak, ");
		zl_eff_fmt_gbps(&head, p->hbm_gbps);
	}
	zl_rowchart_init(&c, title.buf);
	zl_rowchart_panel(&c, 0, head.buf, 1, p ? p->hbm_gbps : NAN, 1);
	for (i = 0; i < e->nr; i++) {
		const struct zl_report_eff_row *r = &e->rows[i];
		struct zl_eff_rate rate[2];
		struct zl_chart_row *row;
		int s;

		if (!(r->counts.bytes > 0) || (!isfinite(r->ms[0]) && !isfinite(r->ms[1])))
			continue;
		for (s = 0; s < 2; s++)
			rate_of(e, r, s, &rate[s]);
		strbuf_reset(&tip);
		strbuf_addf(&tip, "%s: ", r->label);
		row_sentence(&tip, e, r);
		strbuf_reset(&note);
		/* the note is the second time's share of the peak, else its GB/s */
		if (isfinite(rate[1].bw_frac))
			zl_eff_fmt_pct(&note, rate[1].bw_frac);
		else
			zl_eff_fmt_gbps(&note, rate[1].gbps);
		row = zl_rowchart_add(&c, r->label, note.buf, NULL, tip.buf);
		if (isfinite(rate[0].gbps) && isfinite(rate[1].gbps))
			zl_row_mark(row, 0, ZL_MARK_LINK, rate[0].gbps, rate[1].gbps, r->cls[1]);
		zl_row_mark(row, 0, ZL_MARK_RING, rate[0].gbps, NAN, r->cls[0]);
		zl_row_mark(row, 0, ZL_MARK_DOT, rate[1].gbps, NAN, r->cls[1]);
		(*drawn)++;
	}
	zl_rowchart_svg(&c, out);
	zl_rowchart_release(&c);
	strbuf_release(&title);
	strbuf_release(&tip);
	strbuf_release(&note);
	strbuf_release(&head);
}

/* The distinct rules and notes of the rows, "; "-joined into sb. */
static void rules_text(struct strbuf *sb, const struct zl_report_eff *e)
{
	struct strvec seen = STRVEC_INIT;
	size_t i;

	for (i = 0; i < e->nr; i++) {
		const struct zl_eff_counts *c = &e->rows[i].counts;
		const char *parts[3] = { c->bytes_rule, c->flops_rule, c->note };
		const char *what[3] = { "bytes", "FLOPs", "note" };
		int k;

		for (k = 0; k < 3; k++) {
			char *line;

			if (!parts[k])
				continue;
			line = xstrfmt("%s: %s", what[k], parts[k]);
			if (strvec_find(&seen, line) < 0) {
				strbuf_addf(sb, "%s%s", seen.nr ? "; " : "", line);
				strvec_push(&seen, line);
			}
			free(line);
		}
	}
	strvec_clear(&seen);
}

static void peaks_text(struct strbuf *sb, const struct zl_report_eff *e)
{
	int s;

	if (e->peak[0] == e->peak[1] && e->peak[0]) {
		strbuf_addf(sb, "Peaks: %s, from the %s.", e->peak[0]->model, e->peak[0]->source);
		return;
	}
	for (s = 0; s < 2; s++) {
		if (e->peak[s])
			strbuf_addf(sb, "%s's peaks: %s, from the %s. ", e->names[s], e->peak[s]->model,
				    e->peak[s]->source);
		else
			strbuf_addf(sb, "%s: no peaks (%s). ", e->names[s], e->peak_why[s] ? e->peak_why[s] : "unknown");
	}
	if (sb->len && sb->buf[sb->len - 1] == ' ')
		strbuf_setlen(sb, sb->len - 1);
}

static void rate_cells(struct strbuf *out, struct strbuf *t, const struct zl_eff_rate *r)
{
	char ms[32];

	zl_fmt_ms(ms, r->ms);
	zl_html_td(out, ms, "n");
	strbuf_reset(t);
	zl_eff_fmt_gbps(t, r->gbps);
	zl_html_td(out, isfinite(r->gbps) ? t->buf : "-", "n");
	strbuf_reset(t);
	zl_eff_fmt_pct(t, r->bw_frac);
	zl_html_td(out, isfinite(r->bw_frac) ? t->buf : "-", "n");
	strbuf_reset(t);
	zl_eff_fmt_tflops(t, r->tflops);
	zl_html_td(out, isfinite(r->tflops) ? t->buf : "-", "n");
	strbuf_reset(t);
	zl_eff_fmt_pct(t, r->flop_frac);
	zl_html_td(out, isfinite(r->flop_frac) ? t->buf : "-", "n");
}

static void numbers_table(struct strbuf *out, const struct zl_report_eff *e)
{
	char heads[13][40];
	const char *hp[13];
	static const char *const per[5] = { "ms", "GB/s", "% HBM", "TFLOP/s", "% peak" };
	struct strbuf t = STRBUF_INIT;
	size_t i, k;
	int s;

	snprintf(heads[0], sizeof(heads[0]), "row");
	snprintf(heads[1], sizeof(heads[1]), "moves");
	snprintf(heads[2], sizeof(heads[2]), "does");
	for (s = 0; s < 2; s++)
		for (k = 0; k < 5; k++)
			snprintf(heads[3 + s * 5 + k], sizeof(heads[0]), "%s %s", e->names[s], per[k]);
	for (k = 0; k < 13; k++)
		hp[k] = heads[k];
	strbuf_addstr(out, "<details><summary>the efficiency numbers</summary>\n");
	zl_html_table_begin(out, NULL, hp, 13);
	for (i = 0; i < e->nr; i++) {
		const struct zl_report_eff_row *r = &e->rows[i];
		struct zl_eff_rate rate;

		if (i)
			zl_html_tr(out);
		zl_html_td(out, r->label, "mono");
		strbuf_reset(&t);
		zl_eff_fmt_bytes(&t, r->counts.bytes);
		zl_html_td(out, isfinite(r->counts.bytes) ? t.buf : "-", "n");
		strbuf_reset(&t);
		zl_eff_fmt_flops(&t, r->counts.flops);
		zl_html_td(out, isfinite(r->counts.flops) ? t.buf : "-", "n");
		for (s = 0; s < 2; s++) {
			rate_of(e, r, s, &rate);
			rate_cells(out, &t, &rate);
		}
	}
	zl_html_table_end(out);
	strbuf_addstr(out, "</details>\n");
	strbuf_release(&t);
}

void zl_report_eff_section(struct strbuf *out, const struct zl_report_eff *e, const char *op, const char *fig_id)
{
	const struct zl_report_eff_row *big = largest(e);
	struct strbuf sb = STRBUF_INIT, cap = STRBUF_INIT;
	size_t i, with_flops = 0, with_bytes = 0, drawn = 0;

	if (!e->nr)
		return;
	for (i = 0; i < e->nr; i++) {
		with_flops += e->rows[i].counts.bytes > 0 && e->rows[i].counts.flops > 0;
		with_bytes += e->rows[i].counts.bytes > 0;
	}
	strbuf_addstr(out, "<p class=\"eff\">");
	if (big) {
		strbuf_addf(&sb, "The largest, %s: ", big->label);
		row_sentence(&sb, e, big);
		strbuf_addch(&sb, '.');
	} else {
		strbuf_addf(&sb, "How close to the hardware: unknown (%s).", e->rows[0].counts.bytes_rule);
	}
	zl_html_escape(out, sb.buf);
	strbuf_addstr(out, "</p>\n");
	if (with_bytes) {
		zl_html_figure_begin(out, fig_id);
		strbuf_addstr(out, "<div class=\"legend\">");
		zl_html_textf(out, "\xe2\x97\x8b %s, \xe2\x97\x8f %s%s%s", e->names[0], e->names[1], e->legend ? "; " : "",
			      e->legend ? e->legend : "");
		strbuf_addstr(out, "</div>\n");
		if (with_flops)
			roofline_chart(out, e, op, &drawn);
		else
			bandwidth_chart(out, e, op, &drawn);
		if (with_flops)
			strbuf_addf(&cap, "Roofline of %s: each row at its arithmetic intensity (the FLOPs it must do per "
				    "byte it must move), up by the TFLOP/s it achieved, %s as a ring and %s as a dot; the "
				    "red lines are the device's roofs (the HBM bandwidth, then the dense peak of each "
				    "dtype shown). ", op, e->names[0], e->names[1]);
		else
			strbuf_addf(&cap, "Bandwidth of %s: the bytes each row must move over its time, %s as a ring "
				    "and %s as a dot on a log scale; the note is %s's share of the HBM peak. ", op,
				    e->names[0], e->names[1], e->names[1]);
		if (with_flops && with_flops < with_bytes)
			strbuf_addf(&cap, "%zu rows without a FLOP count are in the table only. ", with_bytes - with_flops);
		strbuf_addstr(&cap, "Counted by ");
		rules_text(&cap, e);
		strbuf_addstr(&cap, ". ");
		peaks_text(&cap, e);
		zl_html_figure_end(out, cap.buf);
	}
	numbers_table(out, e);
	strbuf_release(&sb);
	strbuf_release(&cap);
}
