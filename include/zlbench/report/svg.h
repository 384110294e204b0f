/*
 * The SVG charts of `zlbench report`, drawn by zlbench itself: axes with nice
 * ticks on a linear or log scale, and five charts.
 *
 *   row chart   one row per item (a shape, an op, a compare row), a label on the
 *               left, up to two panels of marks (dots, rings, links, whiskers, bars,
 *               bands) on their own axes, a note on the right. The run page's
 *               latency + speedup chart, the batch overview and the forest plot.
 *   timeline    intervals per lane (what ran on which device, when, how it ended).
 *   trend       series over an ordinal x (runs in time order), with breaks between
 *               two points (a caliber change: the lines stop there), shift markers
 *               on points and marks on the axis for runs that did not pass.
 *   strips      the samples of a few rows as dots with their quartile box.
 *   roofline    achieved FLOP/s against arithmetic intensity under the device's roofs.
 *
 * Every chart is one <svg class="chart" viewBox=...> that scales to its box
 * (responsive), with a <title> for screen readers and <title> tooltips on its
 * marks; colours come from CSS classes (html.c) so dark mode and print apply.
 * Non-finite values, and values <= 0 on a log axis, are not drawn.
 *
 * Owner: each chart struct has _init/_release; it owns the strings and arrays it
 * holds (copied when added). A mark's `cls` must be a static string.
 */
#ifndef ZLBENCH_REPORT_SVG_H
#define ZLBENCH_REPORT_SVG_H

#include <stddef.h>

#include "../strbuf.h"
#include "../strvec.h"

/* ---- axes ------------------------------------------------------------------- */

#define ZL_AXIS_MAX_TICKS 24

struct zl_axis {
	int log;
	double lo, hi;                    /* the domain drawn */
	double ticks[ZL_AXIS_MAX_TICKS];  /* inside [lo, hi], ascending */
	size_t nticks;
};

/*
 * A linear axis over [lo, hi] widened to nice bounds (Heckbert's nice numbers:
 * steps of 1, 2 or 5 times a power of ten) with about `target` ticks.
 */
void zl_axis_linear(struct zl_axis *ax, double lo, double hi, int target);
/*
 * A log axis over [lo, hi] (both > 0), padded by 4 % of its span on each side.
 * Ticks: powers of ten (every k-th when there are many decades) over 3 decades or
 * more; 1, 2 and 5 times powers of ten over 1 to 3; nice linear steps under one
 * decade, so that a narrow range (ratios near 1) still gets ticks.
 */
void zl_axis_log(struct zl_axis *ax, double lo, double hi, int target);
/* Position of v between p0 (at lo) and p1 (at hi), clamped to the ends. */
double zl_axis_pos(const struct zl_axis *ax, double v, double p0, double p1);
/* A short tick label: "0.01", "2.5", "1k", "20k", "1M". */
void zl_axis_label(char buf[32], double v);

/* ---- row chart ---------------------------------------------------------------- */

enum zl_mark_kind {
	ZL_MARK_DOT,      /* filled circle at v0 */
	ZL_MARK_RING,     /* hollow circle at v0 */
	ZL_MARK_LINK,     /* thin line v0..v1 */
	ZL_MARK_WHISKER,  /* line v0..v1 with end caps (an interval) */
	ZL_MARK_BAR,      /* bar from the panel's reference (or its axis start) to v0 */
	ZL_MARK_BAND,     /* shaded band v0..v1 over the row's height */
};

#define ZL_ROW_MARKS 6

struct zl_mark {
	enum zl_mark_kind kind;
	int panel;
	double v0, v1;
	const char *cls;
};

struct zl_chart_row {
	char *label;      /* left; cut with an ellipsis when long (the tooltip has it whole) */
	char *note;       /* right-aligned text, or NULL */
	const char *note_cls;
	char *tip;        /* tooltip of the row, or NULL (then the label) */
	struct zl_mark mark[ZL_ROW_MARKS];
	int nmarks;
};

struct zl_panel {
	const char *title;
	int log;
	double ref;       /* a dashed reference line (1 for ratios); NAN: none */
	double weight;    /* share of the width among panels (0: 1) */
};

struct zl_rowchart {
	char *title;
	struct zl_panel panel[2];
	int npanels;
	struct zl_chart_row *rows;
	size_t nr, alloc;
};

void zl_rowchart_init(struct zl_rowchart *c, const char *title);
void zl_rowchart_release(struct zl_rowchart *c);
/* Set panel i (0 or 1); npanels grows to i + 1. */
void zl_rowchart_panel(struct zl_rowchart *c, int i, const char *title, int log, double ref, double weight);
/* A new row (label copied; note and tip copied when not NULL); add marks to it. */
struct zl_chart_row *zl_rowchart_add(struct zl_rowchart *c, const char *label, const char *note,
				     const char *note_cls, const char *tip);
/* Add a mark; beyond ZL_ROW_MARKS marks are dropped. */
void zl_row_mark(struct zl_chart_row *r, int panel, enum zl_mark_kind kind, double v0, double v1,
		 const char *cls);
void zl_rowchart_svg(const struct zl_rowchart *c, struct strbuf *sb);

/* ---- timeline ------------------------------------------------------------------ */

struct zl_span {
	size_t lane;      /* index into the timeline's lanes */
	char *label;      /* drawn inside the bar when it fits */
	char *tip;
	const char *cls;  /* e.g. "st-passed"; add " shard" for a lighter bar */
	double t0, t1;    /* seconds (any origin; the axis starts at the earliest t0) */
};

struct zl_timeline {
	char *title;
	struct strvec lanes;
	struct zl_span *v;
	size_t nr, alloc;
};

void zl_timeline_init(struct zl_timeline *t, const char *title);
void zl_timeline_release(struct zl_timeline *t);
/* The index of a lane, added when new (lanes are drawn in the order first added). */
size_t zl_timeline_lane(struct zl_timeline *t, const char *name);
void zl_timeline_add(struct zl_timeline *t, size_t lane, double t0, double t1, const char *label,
		     const char *tip, const char *cls);
void zl_timeline_svg(const struct zl_timeline *t, struct strbuf *sb);

/* ---- trend ---------------------------------------------------------------------- */

#define ZL_TREND_SERIES 8

struct zl_trend_series {
	char *name;
	const char *cls;
	double *y;        /* n values; NAN: no point */
	signed char *shift; /* n entries: +1 a step up at this point, -1 down, 0 none */
	unsigned char *cut; /* n entries: 1 = the line does not join point i to the point drawn before it */
	int up_good;        /* a step up is an improvement (speedup), drawn green; else red */
};

/* A run drawn as a mark on the x axis rather than a point (a run that did not pass). */
struct zl_trend_mark {
	size_t at;
	char *tip;
};

struct zl_trend_break {
	size_t at;        /* between point at-1 and point at */
	char *label;      /* short, drawn at the top */
	char *tip;
};

struct zl_trend {
	char *title;
	const char *ylabel;
	int log;
	int width;        /* viewBox width (0: 720) */
	size_t n;
	struct strvec xlabels;   /* n labels (e.g. dates); a few are drawn */
	struct zl_trend_series s[ZL_TREND_SERIES];
	int ns;
	struct zl_trend_break *breaks;
	size_t nbreaks, alloc_breaks;
	struct zl_trend_mark *marks;
	size_t nmarks, alloc_marks;
};

void zl_trend_init(struct zl_trend *t, const char *title, size_t n, int log, int width);
void zl_trend_release(struct zl_trend *t);
/* A series of n values (copied); NULL when ZL_TREND_SERIES are there already. */
struct zl_trend_series *zl_trend_series(struct zl_trend *t, const char *name, const char *cls,
					const double *y);
/*
 * A caliber change between point at-1 and point at: a dashed line with its label at the
 * top and a mark on the x axis. Series whose line must not run across it set their cut[at].
 */
void zl_trend_break(struct zl_trend *t, size_t at, const char *label, const char *tip);
/* A run that did not pass: an x on the axis at point at, with its tooltip. */
void zl_trend_mark(struct zl_trend *t, size_t at, const char *tip);
void zl_trend_svg(const struct zl_trend *t, struct strbuf *sb);

/* ---- roofline ---------------------------------------------------------------------- */

#define ZL_ROOF_CEILINGS 6

struct zl_roof_point {
	double x, y;          /* arithmetic intensity (FLOP/byte) and achieved TFLOP/s */
	const char *cls;      /* a mark class: "t" torch, "g" FlagGems */
	int ring;             /* drawn hollow */
	char *tip;
	long from;            /* a thin line from point `from` to this one (-1: none) */
};

struct zl_roof_ceiling {
	char *label;          /* e.g. "fp16 989.5 TFLOP/s" */
	double tflops;
};

/*
 * Points on log-log axes under the device's roofs: the memory roof y = x * bw (TB/s)
 * up to the ridge of the highest ceiling, and a flat ceiling per compute peak from its
 * ridge on. bw_gbps NAN (an unknown device): no roof, the points alone.
 */
struct zl_roofline {
	char *title;
	double bw_gbps;
	char *bw_label;
	struct zl_roof_ceiling ceil[ZL_ROOF_CEILINGS];
	int nceil;
	struct zl_roof_point *v;
	size_t nr, alloc;
};

void zl_roofline_init(struct zl_roofline *r, const char *title, double bw_gbps, const char *bw_label);
void zl_roofline_release(struct zl_roofline *r);
/* A compute ceiling (a label once; beyond ZL_ROOF_CEILINGS dropped). */
void zl_roofline_ceiling(struct zl_roofline *r, const char *label, double tflops);
/* A point (tip copied); returns its index for a later point's `from`. Non-positive x or y are not drawn. */
size_t zl_roofline_add(struct zl_roofline *r, double x, double y, const char *cls, int ring, const char *tip,
		       long from);
void zl_roofline_svg(const struct zl_roofline *r, struct strbuf *sb);

/* ---- strips (sample distributions) ------------------------------------------------ */

/* At most this many dots per strip are drawn (every k-th sample); the box uses them all. */
#define ZL_STRIP_MAX_DOTS 240

struct zl_strip {
	char *label;
	const char *cls;
	double *v;
	size_t n;
};

struct zl_strips {
	char *title;
	struct zl_strip *v;
	size_t nr, alloc;
	int gap_after_pairs;     /* 1: a small gap after every second strip (A/B pairs) */
};

void zl_strips_init(struct zl_strips *s, const char *title);
void zl_strips_release(struct zl_strips *s);
void zl_strips_add(struct zl_strips *s, const char *label, const char *cls, const double *v, size_t n);
void zl_strips_svg(const struct zl_strips *s, struct strbuf *sb);

/* The q-quantile (0..1, linear interpolation) of sorted[0..n). */
double zl_quantile_sorted(const double *sorted, size_t n, double q);

#endif
