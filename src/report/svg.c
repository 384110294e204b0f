#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/report/html.h"
#include "zlbench/report/svg.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* Every chart's text is 12 px monospace: 7.2 px per character is close enough to lay out. */
#define CHAR_W 7.2
#define ROW_H 18.0
#define DEFAULT_W 720

/* ---- axes ------------------------------------------------------------------------ */

/* Heckbert's nice number: 1, 2, 5 or 10 times a power of ten near x (rounded or ceiled). */
static double nice_number(double x, int round)
{
	double e = floor(log10(x)), f = x / pow(10, e), nf;

	if (round)
		nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
	else
		nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
	return nf * pow(10, e);
}

static void add_tick(struct zl_axis *ax, double v)
{
	if (ax->nticks < ZL_AXIS_MAX_TICKS)
		ax->ticks[ax->nticks++] = v;
}

/* Ticks every d from the first multiple of d at or above lo up to hi. */
static void linear_ticks(struct zl_axis *ax, double lo, double hi, double d)
{
	double k, first = ceil(lo / d - 1e-9);

	for (k = first; k * d <= hi * (1 + 1e-12) + 1e-12 * d; k++) {
		double v = k * d;
		add_tick(ax, fabs(v) < d * 1e-9 ? 0.0 : v);
		if (ax->nticks == ZL_AXIS_MAX_TICKS)
			break;
	}
}

void zl_axis_linear(struct zl_axis *ax, double lo, double hi, int target)
{
	double range, d;

	memset(ax, 0, sizeof(*ax));
	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	if (hi < lo) {
		double t = lo;
		lo = hi;
		hi = t;
	}
	if (hi == lo) {
		double pad = lo ? fabs(lo) * 0.5 : 1;
		lo -= pad;
		hi += pad;
	}
	if (target < 2)
		target = 2;
	range = nice_number(hi - lo, 0);
	d = nice_number(range / (target - 1), 1);
	ax->lo = floor(lo / d) * d;
	ax->hi = ceil(hi / d) * d;
	linear_ticks(ax, ax->lo, ax->hi, d);
}

/*
 * Ticks at m x 10^e inside [lo, hi] for one set of mantissas: the densest of 1-2-5,
 * 1-2-3-5, 1-1.5-2-3-5-7 and 1..9 that stays within target ticks (1-2-5 at least), so
 * that one to three decades still get enough ticks to read a ratio off.
 */
static void log_mantissa_ticks(struct zl_axis *ax, int target)
{
	static const double sets[][9] = {
		{ 1, 2, 5 }, { 1, 2, 3, 5 }, { 1, 1.5, 2, 3, 5, 7 }, { 1, 2, 3, 4, 5, 6, 7, 8, 9 },
	};
	static const size_t lens[] = { 3, 4, 6, 9 };
	size_t s, m, pick = 0;
	double e;

	for (s = 0; s < ZL_ARRAY_SIZE(sets); s++) {
		size_t n = 0;

		for (e = floor(log10(ax->lo)); e <= ceil(log10(ax->hi)); e++)
			for (m = 0; m < lens[s]; m++) {
				double v = sets[s][m] * pow(10, e);
				n += v >= ax->lo * (1 - 1e-9) && v <= ax->hi * (1 + 1e-9);
			}
		if ((int)n <= target)
			pick = s;
	}
	for (e = floor(log10(ax->lo)); e <= ceil(log10(ax->hi)); e++)
		for (m = 0; m < lens[pick]; m++) {
			double v = sets[pick][m] * pow(10, e);
			if (v >= ax->lo * (1 - 1e-9) && v <= ax->hi * (1 + 1e-9))
				add_tick(ax, v);
		}
}

void zl_axis_log(struct zl_axis *ax, double lo, double hi, int target)
{
	double llo, lhi, pad, decades, e;

	memset(ax, 0, sizeof(*ax));
	ax->log = 1;
	if (!(hi > 0) || !isfinite(hi))
		hi = lo > 0 && isfinite(lo) ? lo : 1;
	if (!(lo > 0) || !isfinite(lo))
		lo = hi / 10;
	if (hi < lo) {
		double t = lo;
		lo = hi;
		hi = t;
	}
	if (hi / lo < 1.02) {
		/* one value (or nearly): a band of +-10 % around it */
		double mid = sqrt(lo * hi);
		lo = mid / 1.1;
		hi = mid * 1.1;
	}
	if (target < 2)
		target = 2;
	llo = log10(lo);
	lhi = log10(hi);
	pad = 0.04 * (lhi - llo);
	ax->lo = pow(10, llo - pad);
	ax->hi = pow(10, lhi + pad);
	decades = log10(ax->hi / ax->lo);
	if (decades >= 3) {
		int k = (int)ceil(decades / target);
		if (k < 1)
			k = 1;
		for (e = ceil(log10(ax->lo) - 1e-9); e <= floor(log10(ax->hi) + 1e-9); e++)
			if (fmod(fabs(e), (double)k) == 0)
				add_tick(ax, pow(10, e));
	} else if (decades >= 1) {
		log_mantissa_ticks(ax, target);
	} else {
		double d = nice_number((ax->hi - ax->lo) / (target - 1), 1);

		/* a finer nice step (1 -> 0.5 -> 0.2 -> 0.1) while it leaves fewer than target - 1 ticks */
		while (floor(ax->hi / d + 1e-9) - ceil(ax->lo / d - 1e-9) + 1 < target - 1) {
			double p10 = pow(10, floor(log10(d) + 1e-9)), m = d / p10;
			d = m > 4.99 ? 2 * p10 : m > 1.99 ? p10 : 0.5 * p10;
		}
		linear_ticks(ax, ax->lo, ax->hi, d);
	}
}

double zl_axis_pos(const struct zl_axis *ax, double v, double p0, double p1)
{
	double f;

	if (ax->log)
		f = v > 0 ? (log(v) - log(ax->lo)) / (log(ax->hi) - log(ax->lo)) : 0;
	else
		f = (v - ax->lo) / (ax->hi - ax->lo);
	if (!isfinite(f) || f < 0)
		f = 0;
	if (f > 1)
		f = 1;
	return p0 + f * (p1 - p0);
}

void zl_axis_label(char buf[32], double v)
{
	double a = fabs(v);

	if (a >= 1e6)
		snprintf(buf, 32, "%.4gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(buf, 32, "%.4gk", v / 1e3);
	else
		snprintf(buf, 32, "%.4g", v);
}

/* ---- shared drawing helpers -------------------------------------------------------- */

/* Characters of a UTF-8 string (code points, not bytes). */
static size_t text_chars(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

/* Append s escaped, cut to max characters with an ellipsis. */
static void text_cut(struct strbuf *sb, const char *s, size_t max)
{
	size_t i = 0, chars = 0;

	if (!s)
		return;
	if (text_chars(s) <= max) {
		zl_html_escape(sb, s);
		return;
	}
	while (s[i] && chars + 1 < max) {
		i++;
		while (((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
		chars++;
	}
	zl_html_escape_len(sb, s, i);
	strbuf_addstr(sb, "\xe2\x80\xa6");
}

static void svg_begin(struct strbuf *sb, double w, double h, const char *title)
{
	strbuf_addf(sb, "<svg class=\"chart\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"", w, h);
	zl_html_escape(sb, title);
	strbuf_addstr(sb, "\"><title>");
	zl_html_escape(sb, title);
	strbuf_addstr(sb, "</title>\n");
}

static void svg_text(struct strbuf *sb, double x, double y, const char *cls, const char *text)
{
	strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\"%s%s%s>", x, y, cls ? " class=\"" : "", cls ? cls : "",
		    cls ? "\"" : "");
	zl_html_escape(sb, text);
	strbuf_addstr(sb, "</text>");
}

static void svg_tip(struct strbuf *sb, const char *tip)
{
	if (!tip)
		return;
	strbuf_addstr(sb, "<title>");
	zl_html_escape(sb, tip);
	strbuf_addstr(sb, "</title>");
}

/* A power of ten (the tick a log axis labels first). */
static int major_tick(const struct zl_axis *ax, double v)
{
	double e = log10(v);

	return !ax->log || (v > 0 && fabs(e - floor(e + 0.5)) < 1e-9);
}

/*
 * Vertical grid lines at the axis' ticks from y0 to y1, and their labels at label_y
 * (< 0: none). Labels that would touch a neighbour are left out, powers of ten
 * placed first on a log axis.
 */
static void x_grid(struct strbuf *sb, const struct zl_axis *ax, double p0, double p1, double y0, double y1,
		   double label_y)
{
	double placed[ZL_AXIS_MAX_TICKS][2];
	size_t nplaced = 0, i, k;
	int pass;
	char lab[32];

	strbuf_addstr(sb, "<path class=\"gr\" d=\"");
	for (i = 0; i < ax->nticks; i++)
		strbuf_addf(sb, "M%.1f %.1fV%.1f", zl_axis_pos(ax, ax->ticks[i], p0, p1), y0, y1);
	strbuf_addstr(sb, "\"/>");
	if (label_y < 0)
		return;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < ax->nticks; i++) {
			double x = zl_axis_pos(ax, ax->ticks[i], p0, p1), half;
			int clash = 0;

			if (major_tick(ax, ax->ticks[i]) != !pass)
				continue;
			zl_axis_label(lab, ax->ticks[i]);
			half = strlen(lab) * CHAR_W / 2 + 3;
			for (k = 0; k < nplaced; k++)
				clash |= x + half > placed[k][0] && x - half < placed[k][1];
			if (clash)
				continue;
			placed[nplaced][0] = x - half;
			placed[nplaced][1] = x + half;
			nplaced++;
			svg_text(sb, x, label_y, "tl c", lab);
		}
	strbuf_addch(sb, '\n');
}

/* Horizontal grid lines at the axis' ticks (y axis from p0 at the bottom to p1 at the top), labels at x. */
static void y_grid(struct strbuf *sb, const struct zl_axis *ax, double p0, double p1, double x0, double x1,
		   double label_x)
{
	char lab[32];
	size_t i;

	strbuf_addstr(sb, "<path class=\"gr\" d=\"");
	for (i = 0; i < ax->nticks; i++)
		strbuf_addf(sb, "M%.1f %.1fH%.1f", x0, zl_axis_pos(ax, ax->ticks[i], p0, p1), x1);
	strbuf_addstr(sb, "\"/>");
	for (i = 0; i < ax->nticks; i++) {
		zl_axis_label(lab, ax->ticks[i]);
		svg_text(sb, label_x, zl_axis_pos(ax, ax->ticks[i], p0, p1) + 4, "tl e", lab);
	}
	strbuf_addch(sb, '\n');
}

static int drawable(int log, double v)
{
	return isfinite(v) && (!log || v > 0);
}

/* ---- row chart ---------------------------------------------------------------------- */

void zl_rowchart_init(struct zl_rowchart *c, const char *title)
{
	memset(c, 0, sizeof(*c));
	c->title = xstrdup(title ? title : "");
}

void zl_rowchart_release(struct zl_rowchart *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		free(c->rows[i].label);
		free(c->rows[i].note);
		free(c->rows[i].tip);
	}
	free(c->rows);
	free(c->title);
	memset(c, 0, sizeof(*c));
}

void zl_rowchart_panel(struct zl_rowchart *c, int i, const char *title, int log, double ref, double weight)
{
	if (i < 0 || i > 1)
		return;
	c->panel[i].title = title;
	c->panel[i].log = log;
	c->panel[i].ref = ref;
	c->panel[i].weight = weight > 0 ? weight : 1;
	if (c->npanels < i + 1)
		c->npanels = i + 1;
}

struct zl_chart_row *zl_rowchart_add(struct zl_rowchart *c, const char *label, const char *note,
				     const char *note_cls, const char *tip)
{
	struct zl_chart_row *r;

	ALLOC_GROW(c->rows, c->nr + 1, c->alloc);
	r = &c->rows[c->nr++];
	memset(r, 0, sizeof(*r));
	r->label = xstrdup(label ? label : "");
	r->note = note ? xstrdup(note) : NULL;
	r->note_cls = note_cls;
	r->tip = tip ? xstrdup(tip) : NULL;
	return r;
}

void zl_row_mark(struct zl_chart_row *r, int panel, enum zl_mark_kind kind, double v0, double v1,
		 const char *cls)
{
	struct zl_mark *m;

	if (r->nmarks >= ZL_ROW_MARKS || panel < 0 || panel > 1)
		return;
	m = &r->mark[r->nmarks++];
	m->kind = kind;
	m->panel = panel;
	m->v0 = v0;
	m->v1 = v1;
	m->cls = cls;
}

/* The domain of panel p: every drawable mark value and the reference. */
static void panel_axis(const struct zl_rowchart *c, int p, double width, struct zl_axis *ax)
{
	const struct zl_panel *pn = &c->panel[p];
	double lo = INFINITY, hi = -INFINITY;
	/* a tick every 55 px or so, and at least 4: a narrow ratio panel still reads */
	int target = (int)(width / 55) < 4 ? 4 : (int)(width / 55);
	size_t i;
	int k;

	for (i = 0; i < c->nr; i++)
		for (k = 0; k < c->rows[i].nmarks; k++) {
			const struct zl_mark *m = &c->rows[i].mark[k];
			double v[2] = { m->v0, m->v1 };
			int j, nv = m->kind == ZL_MARK_LINK || m->kind == ZL_MARK_WHISKER ||
				    m->kind == ZL_MARK_BAND ? 2 : 1;

			if (m->panel != p)
				continue;
			for (j = 0; j < nv; j++)
				if (drawable(pn->log, v[j])) {
					lo = fmin(lo, v[j]);
					hi = fmax(hi, v[j]);
				}
		}
	if (drawable(pn->log, pn->ref)) {
		lo = fmin(lo, pn->ref);
		hi = fmax(hi, pn->ref);
	}
	if (target < 3)
		target = 3;
	if (!isfinite(lo)) {
		lo = pn->log ? 0.1 : 0;
		hi = pn->log ? 10 : 1;
	}
	if (pn->log)
		zl_axis_log(ax, lo, hi, target);
	else
		zl_axis_linear(ax, fmin(lo, 0), hi, target);
}

static void draw_mark(struct strbuf *sb, const struct zl_mark *m, const struct zl_axis *ax, int log,
		      double ref, double p0, double p1, double y)
{
	double x0, x1;

	if (!drawable(log, m->v0))
		return;
	x0 = zl_axis_pos(ax, m->v0, p0, p1);
	switch (m->kind) {
	case ZL_MARK_DOT:
		strbuf_addf(sb, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.6\"/>", m->cls, x0, y);
		break;
	case ZL_MARK_RING:
		strbuf_addf(sb, "<circle class=\"%s ring\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.6\"/>", m->cls, x0, y);
		break;
	case ZL_MARK_LINK:
	case ZL_MARK_WHISKER:
	case ZL_MARK_BAND:
		if (!drawable(log, m->v1))
			return;
		x1 = zl_axis_pos(ax, m->v1, p0, p1);
		if (m->kind == ZL_MARK_LINK)
			strbuf_addf(sb, "<path class=\"%s\" d=\"M%.1f %.1fH%.1f\"/>", m->cls, x0, y, x1);
		else if (m->kind == ZL_MARK_WHISKER)
			strbuf_addf(sb, "<path class=\"%s\" d=\"M%.1f %.1fv8M%.1f %.1fH%.1fM%.1f %.1fv8\"/>",
				    m->cls, x0, y - 4, x0, y, x1, x1, y - 4);
		else
			strbuf_addf(sb, "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
				    fmin(x0, x1), y - ROW_H / 2, fmax(fabs(x1 - x0), 1.0), ROW_H);
		break;
	case ZL_MARK_BAR:
		x1 = drawable(log, ref) ? zl_axis_pos(ax, ref, p0, p1) : p0;
		strbuf_addf(sb, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"10\"/>", m->cls,
			    fmin(x0, x1), y - 5, fmax(fabs(x1 - x0), 1.0));
		break;
	}
}

/* Where a row chart's parts go: the label column, then each panel's x range and axis. */
struct rowchart_layout {
	double w, label_w;
	double px[2][2];          /* each panel's left and right */
	struct zl_axis ax[2];
	size_t max_label;         /* characters of a label before it is cut */
	int npanels;
};

/*
 * The label column fits the longest label (at most 42 % of the width), the note column the
 * longest note; the panels share the rest by weight.
 */
static void rowchart_layout(const struct zl_rowchart *c, struct rowchart_layout *l)
{
	const double gap = 20;
	size_t label_chars = 4, note_chars = 0, i;
	double note_w, x0, x1, weights = 0;
	int p;

	l->w = DEFAULT_W;
	l->npanels = c->npanels ? c->npanels : 1;
	for (i = 0; i < c->nr; i++) {
		size_t lc = text_chars(c->rows[i].label), nc = text_chars(c->rows[i].note);
		label_chars = lc > label_chars ? lc : label_chars;
		note_chars = nc > note_chars ? nc : note_chars;
	}
	l->label_w = fmin(label_chars * CHAR_W + 12, 0.42 * l->w);
	l->max_label = (size_t)((l->label_w - 12) / CHAR_W + 0.5);
	note_w = note_chars ? note_chars * CHAR_W + 14 : 0;
	x0 = l->label_w;
	x1 = l->w - note_w - 10;
	for (p = 0; p < l->npanels; p++)
		weights += c->panel[p].weight > 0 ? c->panel[p].weight : 1;
	for (p = 0; p < l->npanels; p++) {
		double share = (c->panel[p].weight > 0 ? c->panel[p].weight : 1) / weights;
		double span = (x1 - x0 - gap * (l->npanels - 1)) * share;
		l->px[p][0] = p ? l->px[p - 1][1] + gap : x0;
		l->px[p][1] = l->px[p][0] + span;
		panel_axis(c, p, span, &l->ax[p]);
	}
}

/* Each panel's title, grid, axis line and reference line; tick labels repeated at the bottom of a tall chart. */
static void rowchart_panels(struct strbuf *sb, const struct zl_rowchart *c, const struct rowchart_layout *l,
			    double top, double bottom)
{
	int p;

	for (p = 0; p < l->npanels; p++) {
		const struct zl_panel *pn = &c->panel[p];
		const struct zl_axis *ax = &l->ax[p];

		if (pn->title)
			svg_text(sb, l->px[p][0], 13, "hd", pn->title);
		x_grid(sb, ax, l->px[p][0], l->px[p][1], top - 6, bottom, 29);
		if (c->nr > 28) {
			size_t t;
			char lab[32];

			for (t = 0; t < ax->nticks; t++) {
				zl_axis_label(lab, ax->ticks[t]);
				svg_text(sb, zl_axis_pos(ax, ax->ticks[t], l->px[p][0], l->px[p][1]), bottom + 17,
					 "tl c", lab);
			}
		}
		strbuf_addf(sb, "<path class=\"ax\" d=\"M%.1f %.1fH%.1f\"/>", l->px[p][0], top - 6, l->px[p][1]);
		if (drawable(pn->log, pn->ref)) {
			double xr = zl_axis_pos(ax, pn->ref, l->px[p][0], l->px[p][1]);
			strbuf_addf(sb, "<path class=\"ref\" d=\"M%.1f %.1fV%.1f\"/>", xr, top - 6, bottom);
		}
		strbuf_addch(sb, '\n');
	}
}

/* One row at height y: its tooltip, its label (cut), its marks on their panels, its note. */
static void rowchart_row(struct strbuf *sb, const struct zl_rowchart *c, const struct rowchart_layout *l,
			 const struct zl_chart_row *r, double y)
{
	int k;

	strbuf_addstr(sb, "<g>");
	svg_tip(sb, r->tip ? r->tip : r->label);
	strbuf_addf(sb, "<text class=\"e\" x=\"%.1f\" y=\"%.1f\">", l->label_w - 8, y + 4);
	text_cut(sb, r->label, l->max_label);
	strbuf_addstr(sb, "</text>");
	for (k = 0; k < r->nmarks; k++) {
		int pi = r->mark[k].panel < l->npanels ? r->mark[k].panel : 0;
		draw_mark(sb, &r->mark[k], &l->ax[pi], c->panel[pi].log, c->panel[pi].ref, l->px[pi][0],
			  l->px[pi][1], y);
	}
	if (r->note) {
		struct strbuf cls = STRBUF_INIT;

		strbuf_addstr(&cls, "e");
		if (r->note_cls)
			strbuf_addf(&cls, " %s", r->note_cls);
		svg_text(sb, l->w - 6, y + 4, cls.buf, r->note);
		strbuf_release(&cls);
	}
	strbuf_addstr(sb, "</g>\n");
}

void zl_rowchart_svg(const struct zl_rowchart *c, struct strbuf *sb)
{
	const double top = 40;
	struct rowchart_layout l;
	double bottom, h;
	size_t i;

	rowchart_layout(c, &l);
	bottom = top + c->nr * ROW_H;
	h = bottom + (c->nr > 28 ? 24 : 8);
	svg_begin(sb, l.w, h, c->title);
	rowchart_panels(sb, c, &l, top, bottom);
	for (i = 0; i < c->nr; i++)
		rowchart_row(sb, c, &l, &c->rows[i], top + i * ROW_H + ROW_H / 2);
	strbuf_addstr(sb, "</svg>\n");
}

/* ---- timeline ------------------------------------------------------------------------- */

void zl_timeline_init(struct zl_timeline *t, const char *title)
{
	memset(t, 0, sizeof(*t));
	t->title = xstrdup(title ? title : "");
	strvec_init(&t->lanes);
}

void zl_timeline_release(struct zl_timeline *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++) {
		free(t->v[i].label);
		free(t->v[i].tip);
	}
	free(t->v);
	free(t->title);
	strvec_clear(&t->lanes);
	memset(t, 0, sizeof(*t));
}

size_t zl_timeline_lane(struct zl_timeline *t, const char *name)
{
	long i = strvec_find(&t->lanes, name);

	if (i >= 0)
		return (size_t)i;
	strvec_push(&t->lanes, name);
	return t->lanes.nr - 1;
}

void zl_timeline_add(struct zl_timeline *t, size_t lane, double t0, double t1, const char *label,
		     const char *tip, const char *cls)
{
	struct zl_span *s;

	if (!isfinite(t0) || !isfinite(t1) || lane >= t->lanes.nr)
		return;
	ALLOC_GROW(t->v, t->nr + 1, t->alloc);
	s = &t->v[t->nr++];
	s->lane = lane;
	s->t0 = t0;
	s->t1 = t1 < t0 ? t0 : t1;
	s->label = xstrdup(label ? label : "");
	s->tip = tip ? xstrdup(tip) : NULL;
	s->cls = cls ? cls : "st-other";
}

/* Where a timeline's parts go: the lane column, the bars' x range and axis, the time unit. */
struct timeline_layout {
	double lane_w, lane_h, top, x0, x1;
	double origin, unit;      /* seconds: the earliest start, and one unit of the axis */
	const char *unit_name;
	struct zl_axis ax;
};

/* Hours over two hours, minutes over three minutes, else seconds. */
static void timeline_unit(double span, struct timeline_layout *l)
{
	if (span >= 2 * 3600) {
		l->unit = 3600;
		l->unit_name = "h";
	} else if (span >= 180) {
		l->unit = 60;
		l->unit_name = "min";
	} else {
		l->unit = 1;
		l->unit_name = "s";
	}
}

static void timeline_layout(const struct zl_timeline *t, struct timeline_layout *l)
{
	const double w = DEFAULT_W;
	double end = -INFINITY;
	size_t i, lane_chars = 6;

	l->lane_h = 24;
	l->top = 34;
	l->origin = INFINITY;
	for (i = 0; i < t->nr; i++) {
		l->origin = fmin(l->origin, t->v[i].t0);
		end = fmax(end, t->v[i].t1);
	}
	if (!t->nr) {
		l->origin = 0;
		end = 1;
	}
	for (i = 0; i < t->lanes.nr; i++)
		if (text_chars(t->lanes.v[i]) > lane_chars)
			lane_chars = text_chars(t->lanes.v[i]);
	l->lane_w = fmin(lane_chars * CHAR_W + 14, 180);
	timeline_unit(end - l->origin, l);
	zl_axis_linear(&l->ax, 0, fmax((end - l->origin) / l->unit, 1e-3), 8);
	l->x0 = l->lane_w;
	l->x1 = w - 12;
}

/* The lines between lanes and each lane's name (cut to the lane column). */
static void timeline_lanes(struct strbuf *sb, const struct zl_timeline *t, const struct timeline_layout *l)
{
	size_t i;

	strbuf_addstr(sb, "<path class=\"gr\" d=\"");
	for (i = 0; i <= t->lanes.nr; i++)
		strbuf_addf(sb, "M%.1f %.1fH%.1f", 0.0, l->top + i * l->lane_h, l->x1);
	strbuf_addstr(sb, "\"/>\n");
	for (i = 0; i < t->lanes.nr; i++) {
		strbuf_addf(sb, "<text class=\"e\" x=\"%.1f\" y=\"%.1f\">", l->lane_w - 8,
			    l->top + i * l->lane_h + l->lane_h / 2 + 4);
		text_cut(sb, t->lanes.v[i], (size_t)((l->lane_w - 14) / CHAR_W + 0.5));
		strbuf_addstr(sb, "</text>");
	}
	strbuf_addch(sb, '\n');
}

/* One span's bar with its tooltip, its label inside when at least half of it fits. */
static void timeline_span(struct strbuf *sb, const struct zl_span *s, const struct timeline_layout *l)
{
	double a = zl_axis_pos(&l->ax, (s->t0 - l->origin) / l->unit, l->x0, l->x1);
	double b = zl_axis_pos(&l->ax, (s->t1 - l->origin) / l->unit, l->x0, l->x1);
	double y = l->top + s->lane * l->lane_h + 3, bw = fmax(b - a, 1.0);
	size_t fit = (size_t)((bw - 6) / (CHAR_W * 11 / 12));

	strbuf_addstr(sb, "<g>");
	svg_tip(sb, s->tip ? s->tip : s->label);
	strbuf_addf(sb, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"2\"/>",
		    s->cls, a, y, bw, l->lane_h - 6);
	if (*s->label && fit >= 3 && fit >= text_chars(s->label) / 2 + 1) {
		strbuf_addf(sb, "<text class=\"in\" x=\"%.1f\" y=\"%.1f\">", a + 3, y + l->lane_h / 2 + 1);
		text_cut(sb, s->label, fit);
		strbuf_addstr(sb, "</text>");
	}
	strbuf_addstr(sb, "</g>\n");
}

void zl_timeline_svg(const struct zl_timeline *t, struct strbuf *sb)
{
	struct timeline_layout l;
	double bottom;
	size_t i;
	char head[48];

	timeline_layout(t, &l);
	bottom = l.top + t->lanes.nr * l.lane_h;
	svg_begin(sb, DEFAULT_W, bottom + 8, t->title);
	snprintf(head, sizeof(head), "elapsed (%s)", l.unit_name);
	svg_text(sb, 4, 13, "hd", head);
	x_grid(sb, &l.ax, l.x0, l.x1, l.top - 6, bottom, 27);
	timeline_lanes(sb, t, &l);
	for (i = 0; i < t->nr; i++)
		timeline_span(sb, &t->v[i], &l);
	strbuf_addstr(sb, "</svg>\n");
}

/* ---- trend ------------------------------------------------------------------------------ */

void zl_trend_init(struct zl_trend *t, const char *title, size_t n, int log, int width)
{
	memset(t, 0, sizeof(*t));
	t->title = xstrdup(title ? title : "");
	t->n = n;
	t->log = log;
	t->width = width > 0 ? width : DEFAULT_W;
	strvec_init(&t->xlabels);
}

void zl_trend_release(struct zl_trend *t)
{
	size_t i;
	int s;

	for (s = 0; s < t->ns; s++) {
		free(t->s[s].name);
		free(t->s[s].y);
		free(t->s[s].shift);
		free(t->s[s].cut);
	}
	for (i = 0; i < t->nbreaks; i++) {
		free(t->breaks[i].label);
		free(t->breaks[i].tip);
	}
	for (i = 0; i < t->nmarks; i++)
		free(t->marks[i].tip);
	free(t->breaks);
	free(t->marks);
	free(t->title);
	strvec_clear(&t->xlabels);
	memset(t, 0, sizeof(*t));
}

struct zl_trend_series *zl_trend_series(struct zl_trend *t, const char *name, const char *cls,
					const double *y)
{
	struct zl_trend_series *s;

	if (t->ns >= ZL_TREND_SERIES)
		return NULL;
	s = &t->s[t->ns++];
	s->name = xstrdup(name ? name : "");
	s->cls = cls;
	s->y = xcalloc(t->n ? t->n : 1, sizeof(*s->y));
	s->shift = xcalloc(t->n ? t->n : 1, sizeof(*s->shift));
	s->cut = xcalloc(t->n ? t->n : 1, sizeof(*s->cut));
	if (t->n)
		memcpy(s->y, y, t->n * sizeof(*s->y));
	return s;
}

void zl_trend_break(struct zl_trend *t, size_t at, const char *label, const char *tip)
{
	struct zl_trend_break *b;

	ALLOC_GROW(t->breaks, t->nbreaks + 1, t->alloc_breaks);
	b = &t->breaks[t->nbreaks++];
	b->at = at;
	b->label = xstrdup(label ? label : "");
	b->tip = tip ? xstrdup(tip) : NULL;
}

void zl_trend_mark(struct zl_trend *t, size_t at, const char *tip)
{
	struct zl_trend_mark *m;

	if (at >= t->n)
		return;
	ALLOC_GROW(t->marks, t->nmarks + 1, t->alloc_marks);
	m = &t->marks[t->nmarks++];
	m->at = at;
	m->tip = tip ? xstrdup(tip) : NULL;
}

/* Where a trend's parts go: the plot box and its y axis; point i sits at left + (i + 0.5) * step. */
struct trend_layout {
	double w, left, right, top, h, bottom, step;
	int legend_lines;
	struct zl_axis ay;
};

/* The legend's lines in width w (each series a circle and its name); line[s] gets the line of series s. */
static int trend_legend_lines(const struct zl_trend *t, double w, int *line)
{
	double x = 0;
	int s, lines = 1;

	for (s = 0; s < t->ns; s++) {
		double item = text_chars(t->s[s].name) * CHAR_W + 22;

		if (x > 0 && x + item > w) {
			lines++;
			x = 0;
		}
		x += item;
		if (line)
			line[s] = lines - 1;
	}
	return lines;
}

static void trend_layout(const struct zl_trend *t, struct trend_layout *l)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t i;
	int s;

	l->w = t->width;
	l->left = 52;
	l->right = 10;
	l->top = 24;
	/* the legend takes as many lines under the axis as its names need */
	l->legend_lines = trend_legend_lines(t, l->w - 8, NULL);
	l->h = fmin(fmax(l->w * 0.48, 180), 260) + 16 * (l->legend_lines - 1);
	l->bottom = l->h - 38 - 16 * (l->legend_lines - 1);
	for (s = 0; s < t->ns; s++)
		for (i = 0; i < t->n; i++)
			if (drawable(t->log, t->s[s].y[i])) {
				lo = fmin(lo, t->s[s].y[i]);
				hi = fmax(hi, t->s[s].y[i]);
			}
	if (t->log)
		zl_axis_log(&l->ay, lo, hi, 5);
	else
		zl_axis_linear(&l->ay, isfinite(lo) ? lo : 0, isfinite(hi) ? hi : 1, 5);
	l->step = (l->w - l->left - l->right) / (double)(t->n ? t->n : 1);
}

/* A few x labels: the first, the last and evenly between, never overlapping. */
static void trend_xlabels(struct strbuf *sb, const struct zl_trend *t, const struct trend_layout *l)
{
	double last_label = -1e9;
	const char *last_text = NULL;
	size_t i, nlab = t->n < 4 ? t->n : 4;

	for (i = 0; i < nlab && t->xlabels.nr == t->n; i++) {
		size_t at = nlab > 1 ? i * (t->n - 1) / (nlab - 1) : 0;
		double x = l->left + (at + 0.5) * l->step;
		const char *lab = t->xlabels.v[at];
		double half = text_chars(lab) * CHAR_W / 2;

		/* kept inside the chart: the first and last labels sit at its edges */
		x = fmin(fmax(x, l->left + half), l->w - l->right - half);
		if (x - last_label < 2 * half + 6 || (last_text && !strcmp(lab, last_text)))
			continue;
		svg_text(sb, x, l->bottom + 15, "tl c", lab);
		last_label = x;
		last_text = lab;
	}
}

/* A dashed line at each break, labelled where the label does not touch the previous one. */
static void trend_breaks(struct strbuf *sb, const struct zl_trend *t, const struct trend_layout *l)
{
	double last_label = -1e9;
	size_t i;

	for (i = 0; i < t->nbreaks; i++) {
		const struct zl_trend_break *b = &t->breaks[i];
		double x = l->left + b->at * l->step;

		strbuf_addstr(sb, "<g>");
		svg_tip(sb, b->tip ? b->tip : b->label);
		strbuf_addf(sb, "<path class=\"brk\" d=\"M%.1f %.1fV%.1f\"/>", x, l->top - 4, l->bottom);
		/* and on the axis: a diamond where the caliber changed */
		strbuf_addf(sb, "<path class=\"u\" d=\"M%.1f %.1fl4 4l-4 4l-4 -4z\"/>", x, l->bottom - 4);
		if (x - last_label > text_chars(b->label) * CHAR_W + 4 && x + 2 + text_chars(b->label) * 6 < l->w) {
			strbuf_addf(sb, "<text class=\"brk\" x=\"%.1f\" y=\"%.1f\">", x + 2, l->top - 8);
			zl_html_escape(sb, b->label);
			strbuf_addstr(sb, "</text>");
			last_label = x;
		}
		strbuf_addstr(sb, "</g>\n");
	}
}

/* The runs that did not pass: an x on the axis with the run's tooltip. */
static void trend_marks(struct strbuf *sb, const struct zl_trend *t, const struct trend_layout *l)
{
	size_t i;

	for (i = 0; i < t->nmarks; i++) {
		double x = l->left + (t->marks[i].at + 0.5) * l->step, y = l->bottom - 6;

		strbuf_addf(sb, "<path class=\"l fx\" d=\"M%.1f %.1fl8 8M%.1f %.1fl-8 8\">", x - 4, y - 4, x + 4, y - 4);
		svg_tip(sb, t->marks[i].tip);
		strbuf_addstr(sb, "</path>\n");
	}
}

/* Point i of a series: a dot with its tooltip, and a triangle where the series shifted. */
static void trend_point(struct strbuf *sb, const struct zl_trend *t, const struct zl_trend_series *se, size_t i,
			const struct trend_layout *l)
{
	double x = l->left + (i + 0.5) * l->step, y = zl_axis_pos(&l->ay, se->y[i], l->bottom, l->top);
	char val[32];

	zl_fmt_ms(val, se->y[i]);
	strbuf_addf(sb, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.4\">", se->cls, x, y);
	strbuf_addstr(sb, "<title>");
	zl_html_textf(sb, "%s, %s: %s", se->name, t->xlabels.nr == t->n ? t->xlabels.v[i] : "", val);
	strbuf_addstr(sb, "</title></circle>");
	if (se->shift[i]) {
		/* a step up points up above the point; a step down points down below it */
		int up = se->shift[i] > 0;
		strbuf_addf(sb, "<path class=\"%s\" d=\"M%.1f %.1fl-5 %d h10z\"><title>",
			    up != !!se->up_good ? "l" : "w", x, up ? y - 13 : y + 13, up ? 8 : -8);
		zl_html_textf(sb, "%s shifted %s here (beyond its noise)", se->name, up ? "up" : "down");
		strbuf_addstr(sb, "</title></path>");
	}
}

/* A series: its line (joining its points across runs without one, cut where cut[] says), then its points. */
static void trend_series(struct strbuf *sb, const struct zl_trend *t, const struct zl_trend_series *se,
			 const struct trend_layout *l)
{
	size_t i;
	int pen = 0;

	strbuf_addf(sb, "<path class=\"%s ln\" d=\"", se->cls);
	for (i = 0; i < t->n; i++) {
		/* a cut between the point drawn last and this one lifts the pen; points without a value are skipped */
		if (se->cut[i])
			pen = 0;
		if (!drawable(t->log, se->y[i]))
			continue;
		strbuf_addf(sb, "%c%.1f %.1f", pen ? 'L' : 'M', l->left + (i + 0.5) * l->step,
			    zl_axis_pos(&l->ay, se->y[i], l->bottom, l->top));
		pen = 1;
	}
	strbuf_addstr(sb, "\"/>\n");
	for (i = 0; i < t->n; i++)
		if (drawable(t->log, se->y[i]))
			trend_point(sb, t, se, i, l);
	strbuf_addch(sb, '\n');
}

/* The legend under the axis, right-aligned. */
static void trend_legend(struct strbuf *sb, const struct zl_trend *t, const struct trend_layout *l)
{
	int line[ZL_TREND_SERIES], s;
	double legend_x = l->w - l->right;

	trend_legend_lines(t, l->w - 8, line);
	for (s = t->ns - 1; s >= 0; s--) {
		double tw = text_chars(t->s[s].name) * CHAR_W;
		double y = l->h - 6 - 16 * (l->legend_lines - 1 - line[s]);

		if (s < t->ns - 1 && line[s] != line[s + 1])
			legend_x = l->w - l->right;
		legend_x -= tw;
		svg_text(sb, legend_x, y, "tl", t->s[s].name);
		strbuf_addf(sb, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>", t->s[s].cls, legend_x - 8,
			    y - 4);
		legend_x -= 22;
	}
}

void zl_trend_svg(const struct zl_trend *t, struct strbuf *sb)
{
	struct trend_layout l;
	int s;

	trend_layout(t, &l);
	svg_begin(sb, l.w, l.h, t->title);
	if (t->ylabel)
		svg_text(sb, 4, 12, "hd", t->ylabel);
	y_grid(sb, &l.ay, l.bottom, l.top, l.left, l.w - l.right, l.left - 5);
	strbuf_addf(sb, "<path class=\"ax\" d=\"M%.1f %.1fV%.1fH%.1f\"/>\n", l.left, l.top, l.bottom, l.w - l.right);
	trend_xlabels(sb, t, &l);
	trend_breaks(sb, t, &l);
	trend_marks(sb, t, &l);
	for (s = 0; s < t->ns; s++)
		trend_series(sb, t, &t->s[s], &l);
	trend_legend(sb, t, &l);
	strbuf_addstr(sb, "</svg>\n");
}

/* ---- strips ------------------------------------------------------------------------------ */

void zl_strips_init(struct zl_strips *s, const char *title)
{
	memset(s, 0, sizeof(*s));
	s->title = xstrdup(title ? title : "");
}

void zl_strips_release(struct zl_strips *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		free(s->v[i].label);
		free(s->v[i].v);
	}
	free(s->v);
	free(s->title);
	memset(s, 0, sizeof(*s));
}

void zl_strips_add(struct zl_strips *s, const char *label, const char *cls, const double *v, size_t n)
{
	struct zl_strip *st;

	ALLOC_GROW(s->v, s->nr + 1, s->alloc);
	st = &s->v[s->nr++];
	st->label = xstrdup(label ? label : "");
	st->cls = cls;
	st->n = n;
	st->v = xcalloc(n ? n : 1, sizeof(*st->v));
	if (n)
		memcpy(st->v, v, n * sizeof(*v));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double zl_quantile_sorted(const double *sorted, size_t n, double q)
{
	double pos, frac;
	size_t i;

	if (!n)
		return NAN;
	pos = q * (double)(n - 1);
	i = (size_t)floor(pos);
	frac = pos - (double)i;
	if (i + 1 >= n)
		return sorted[n - 1];
	return sorted[i] + frac * (sorted[i + 1] - sorted[i]);
}

/* Where strips go: the label column, the samples' x range and axis (log when they span over 4x). */
struct strips_layout {
	double w, label_w, x0, x1;
	size_t max_label;
	struct zl_axis ax;
};

static void strips_layout(const struct zl_strips *s, struct strips_layout *l)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t i, j, label_chars = 4;

	for (i = 0; i < s->nr; i++) {
		for (j = 0; j < s->v[i].n; j++)
			if (s->v[i].v[j] > 0 && isfinite(s->v[i].v[j])) {
				lo = fmin(lo, s->v[i].v[j]);
				hi = fmax(hi, s->v[i].v[j]);
			}
		if (text_chars(s->v[i].label) > label_chars)
			label_chars = text_chars(s->v[i].label);
	}
	if (isfinite(lo) && hi / lo > 4)
		zl_axis_log(&l->ax, lo, hi, 8);
	else
		zl_axis_linear(&l->ax, isfinite(lo) ? lo : 0, isfinite(hi) ? hi : 1, 8);
	l->w = DEFAULT_W;
	l->label_w = fmin(label_chars * CHAR_W + 12, 0.45 * l->w);
	l->max_label = (size_t)((l->label_w - 12) / CHAR_W + 0.5);
	l->x0 = l->label_w;
	l->x1 = l->w - 120;
}

/* The dots of a strip (every stride-th sample), each at a fixed jitter from its index: the same page every time. */
static void strip_dots(struct strbuf *sb, const struct zl_strip *st, size_t stride, double mid,
		       const struct strips_layout *l)
{
	size_t j;

	for (j = 0; j < st->n; j += stride) {
		unsigned int hsh = (unsigned int)(j * 2654435761u);
		double jit = ((hsh >> 16) & 0xff) / 255.0 * 14 - 7;

		if (!drawable(l->ax.log, st->v[j]))
			continue;
		strbuf_addf(sb, "<circle class=\"%s pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"1.8\"/>", st->cls,
			    zl_axis_pos(&l->ax, st->v[j], l->x0, l->x1), mid + jit);
	}
}

/* One strip centred at mid: tooltip, label, the quartile box, the dots, the median bar and the note. */
static void strip_row(struct strbuf *sb, const struct zl_strip *st, double mid, const struct strips_layout *l)
{
	double *sorted = xcalloc(st->n ? st->n : 1, sizeof(*sorted));
	double q1, q2, q3;
	size_t stride = st->n > ZL_STRIP_MAX_DOTS ? (st->n + ZL_STRIP_MAX_DOTS - 1) / ZL_STRIP_MAX_DOTS : 1;
	char note[64], med[32];

	if (st->n)
		memcpy(sorted, st->v, st->n * sizeof(*sorted));
	qsort(sorted, st->n, sizeof(*sorted), cmp_double);
	q1 = zl_quantile_sorted(sorted, st->n, 0.25);
	q2 = zl_quantile_sorted(sorted, st->n, 0.5);
	q3 = zl_quantile_sorted(sorted, st->n, 0.75);
	free(sorted);
	zl_fmt_ms(med, q2);
	snprintf(note, sizeof(note), "n=%zu med %s", st->n, med);
	strbuf_addstr(sb, "<g>");
	strbuf_addstr(sb, "<title>");
	zl_html_textf(sb, "%s: %zu samples%s, quartiles %.4g / %.4g / %.4g ms", st->label, st->n,
		      stride > 1 ? " (every k-th drawn)" : "", q1, q2, q3);
	strbuf_addstr(sb, "</title>");
	strbuf_addf(sb, "<text class=\"e\" x=\"%.1f\" y=\"%.1f\">", l->label_w - 8, mid + 4);
	text_cut(sb, st->label, l->max_label);
	strbuf_addstr(sb, "</text>");
	if (st->n) {
		double a = zl_axis_pos(&l->ax, q1, l->x0, l->x1), b = zl_axis_pos(&l->ax, q3, l->x0, l->x1);

		strbuf_addf(sb, "<rect class=\"box\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"16\"/>", a,
			    mid - 8, fmax(b - a, 1.0));
	}
	strip_dots(sb, st, stride, mid, l);
	if (st->n)
		strbuf_addf(sb, "<path class=\"%s\" d=\"M%.1f %.1fv18\" style=\"stroke-width:2.5\"/>", st->cls,
			    zl_axis_pos(&l->ax, q2, l->x0, l->x1), mid - 9);
	svg_text(sb, l->w - 6, mid + 4, "e tl", note);
	strbuf_addstr(sb, "</g>\n");
}

void zl_strips_svg(const struct zl_strips *s, struct strbuf *sb)
{
	const double row = 28, top = 36, pair_gap = 10;
	struct strips_layout l;
	double h, y;
	size_t i;

	strips_layout(s, &l);
	h = top + s->nr * row + (s->gap_after_pairs ? (double)(s->nr / 2) * pair_gap : 0) + 8;
	svg_begin(sb, l.w, h, s->title);
	svg_text(sb, l.x0, 13, "hd", l.ax.log ? "ms per call (log scale)" : "ms per call");
	x_grid(sb, &l.ax, l.x0, l.x1, top - 6, h - 8, 29);
	y = top;
	for (i = 0; i < s->nr; i++) {
		strip_row(sb, &s->v[i], y + row / 2, &l);
		y += row;
		if (s->gap_after_pairs && i % 2 == 1)
			y += pair_gap;
	}
	strbuf_addstr(sb, "</svg>\n");
}

/* ---- roofline ---------------------------------------------------------------------------- */

void zl_roofline_init(struct zl_roofline *r, const char *title, double bw_gbps, const char *bw_label)
{
	memset(r, 0, sizeof(*r));
	r->title = xstrdup(title ? title : "");
	r->bw_gbps = bw_gbps > 0 ? bw_gbps : NAN;
	r->bw_label = xstrdup(bw_label ? bw_label : "");
}

void zl_roofline_release(struct zl_roofline *r)
{
	size_t i;
	int k;

	for (i = 0; i < r->nr; i++)
		free(r->v[i].tip);
	for (k = 0; k < r->nceil; k++)
		free(r->ceil[k].label);
	free(r->v);
	free(r->title);
	free(r->bw_label);
	memset(r, 0, sizeof(*r));
}

void zl_roofline_ceiling(struct zl_roofline *r, const char *label, double tflops)
{
	int k;

	if (!(tflops > 0) || r->nceil >= ZL_ROOF_CEILINGS)
		return;
	for (k = 0; k < r->nceil; k++)
		if (!strcmp(r->ceil[k].label, label))
			return;
	r->ceil[r->nceil].label = xstrdup(label);
	r->ceil[r->nceil++].tflops = tflops;
}

size_t zl_roofline_add(struct zl_roofline *r, double x, double y, const char *cls, int ring, const char *tip,
		       long from)
{
	struct zl_roof_point *p;

	ALLOC_GROW(r->v, r->nr + 1, r->alloc);
	p = &r->v[r->nr];
	p->x = x;
	p->y = y;
	p->cls = cls;
	p->ring = ring;
	p->tip = tip ? xstrdup(tip) : NULL;
	p->from = from;
	return r->nr++;
}

/* The plot box and both log axes: every point, every ceiling and its ridge in view. */
struct roof_layout {
	double w, h, left, right, top, bottom;
	struct zl_axis ax, ay;
};

static void roofline_layout(const struct zl_roofline *r, struct roof_layout *l)
{
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	size_t i;
	int k;

	l->w = DEFAULT_W;
	l->h = 340;
	l->left = 58;
	l->right = l->w - 12;
	l->top = 22;
	l->bottom = l->h - 40;
	for (i = 0; i < r->nr; i++)
		if (r->v[i].x > 0 && r->v[i].y > 0 && isfinite(r->v[i].x) && isfinite(r->v[i].y)) {
			xlo = fmin(xlo, r->v[i].x);
			xhi = fmax(xhi, r->v[i].x);
			ylo = fmin(ylo, r->v[i].y);
			yhi = fmax(yhi, r->v[i].y);
		}
	for (k = 0; k < r->nceil; k++) {
		yhi = fmax(yhi, r->ceil[k].tflops);
		if (isfinite(r->bw_gbps)) {
			double ridge = r->ceil[k].tflops * 1000 / r->bw_gbps;
			xlo = fmin(xlo, ridge);
			xhi = fmax(xhi, ridge);
		}
	}
	if (!isfinite(xlo)) {
		xlo = 1;
		xhi = 100;
	}
	if (!isfinite(ylo)) {
		ylo = 1;
		yhi = 100;
	}
	zl_axis_log(&l->ax, xlo / 2, xhi * 2, 8);
	zl_axis_log(&l->ay, ylo / 2, yhi * 1.6, 6);
}

/* The memory roof up to the highest ridge, then each ceiling from its ridge to the right edge, labelled. */
static void roofline_roofs(struct strbuf *sb, const struct zl_roofline *r, const struct roof_layout *l)
{
	double top = 0, x0, x1;
	int k;

	for (k = 0; k < r->nceil; k++)
		top = fmax(top, r->ceil[k].tflops);
	if (isfinite(r->bw_gbps)) {
		/* y = x * bw / 1000 in TFLOP/s; from where it enters the plot to the highest ridge */
		x0 = fmax(l->ax.lo, l->ay.lo * 1000 / r->bw_gbps);
		x1 = top > 0 ? fmin(l->ax.hi, top * 1000 / r->bw_gbps) : l->ax.hi;
		x1 = fmin(x1, l->ay.hi * 1000 / r->bw_gbps);
		if (x0 < x1) {
			double px0 = zl_axis_pos(&l->ax, x0, l->left, l->right), px1 = zl_axis_pos(&l->ax, x1, l->left, l->right);
			double py0 = zl_axis_pos(&l->ay, x0 * r->bw_gbps / 1000, l->bottom, l->top);
			double py1 = zl_axis_pos(&l->ay, x1 * r->bw_gbps / 1000, l->bottom, l->top);

			strbuf_addstr(sb, "<g><title>");
			zl_html_textf(sb, "memory roof: %s", r->bw_label);
			strbuf_addf(sb, "</title><path class=\"roof\" d=\"M%.1f %.1fL%.1f %.1f\"/>", px0, py0, px1, py1);
			svg_text(sb, px0 + 6, py0 - 8, "tl", r->bw_label);
			strbuf_addstr(sb, "</g>\n");
		}
	}
	for (k = 0; k < r->nceil; k++) {
		double ridge = isfinite(r->bw_gbps) ? r->ceil[k].tflops * 1000 / r->bw_gbps : l->ax.lo;
		double px0 = zl_axis_pos(&l->ax, fmax(ridge, l->ax.lo), l->left, l->right);
		double py = zl_axis_pos(&l->ay, r->ceil[k].tflops, l->bottom, l->top);

		strbuf_addstr(sb, "<g><title>");
		zl_html_textf(sb, "compute roof: %s", r->ceil[k].label);
		strbuf_addf(sb, "</title><path class=\"roof\" d=\"M%.1f %.1fH%.1f\"/>", px0, py, l->right);
		svg_text(sb, l->right - 4, py - 5, "tl e", r->ceil[k].label);
		strbuf_addstr(sb, "</g>\n");
	}
}

void zl_roofline_svg(const struct zl_roofline *r, struct strbuf *sb)
{
	struct roof_layout l;
	size_t i;

	roofline_layout(r, &l);
	svg_begin(sb, l.w, l.h, r->title);
	svg_text(sb, 4, 12, "hd", "achieved TFLOP/s (log)");
	x_grid(sb, &l.ax, l.left, l.right, l.top, l.bottom, l.bottom + 16);
	y_grid(sb, &l.ay, l.bottom, l.top, l.left, l.right, l.left - 5);
	strbuf_addf(sb, "<path class=\"ax\" d=\"M%.1f %.1fV%.1fH%.1f\"/>\n", l.left, l.top, l.bottom, l.right);
	svg_text(sb, (l.left + l.right) / 2, l.h - 6, "hd c", "arithmetic intensity: FLOP per byte moved (log)");
	roofline_roofs(sb, r, &l);
	for (i = 0; i < r->nr; i++) {
		const struct zl_roof_point *p = &r->v[i], *q;

		if (p->from < 0 || (size_t)p->from >= r->nr || !(p->x > 0 && p->y > 0))
			continue;
		q = &r->v[p->from];
		if (!(q->x > 0 && q->y > 0))
			continue;
		strbuf_addf(sb, "<path class=\"%s lnk\" d=\"M%.1f %.1fL%.1f %.1f\"/>", p->cls,
			    zl_axis_pos(&l.ax, q->x, l.left, l.right), zl_axis_pos(&l.ay, q->y, l.bottom, l.top),
			    zl_axis_pos(&l.ax, p->x, l.left, l.right), zl_axis_pos(&l.ay, p->y, l.bottom, l.top));
	}
	for (i = 0; i < r->nr; i++) {
		const struct zl_roof_point *p = &r->v[i];

		if (!(p->x > 0 && p->y > 0 && isfinite(p->x) && isfinite(p->y)))
			continue;
		strbuf_addf(sb, "<circle class=\"%s%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.8\">", p->cls, p->ring ? " ring" : "",
			    zl_axis_pos(&l.ax, p->x, l.left, l.right), zl_axis_pos(&l.ay, p->y, l.bottom, l.top));
		svg_tip(sb, p->tip);
		strbuf_addstr(sb, "</circle>");
	}
	strbuf_addstr(sb, "\n</svg>\n");
}
