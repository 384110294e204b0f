/*
 * The people's view of compared rows (compare's and ab's text and Markdown): the
 * answer first. A view holds one entry per row, borrowed from the comparison, and
 * prints it in sections, each its own function so that a renderer can put its own
 * between them:
 *   changed   rows called faster or slower, and rows missing on a side
 *   unsure    grouped by why they are unsure, one piece of advice per group
 *   rest      with --all every other row (same); else one line saying how many
 * Each section's rows are grouped by side (gems first, torch, the baseline, after
 * them) and sorted within a side: by the size of the change (|log B/A|, largest
 * first), by name (op, dtype, then shape with its numbers compared as numbers) or by
 * time (A's, longest first; B's when A has none); ties keep the source's order.
 * Times are shown in one unit for A and B of every table (picked from all the rows'
 * times so that their median lies in [1, 1000), or fixed by --time-unit), three
 * significant digits; a change and its 95% interval as percentages; a dtype without
 * its "torch." prefix. A table wider than the width asked for loses its 95% CI column
 * first, then p, then the extra column (compare's floor, ab's B/A per round), method
 * and gate (the gate's own lines name its failed rows); what is left may overflow.
 *
 * Owner: struct zl_view is the caller's (_init/_release); the strings of its rows are
 * borrowed except method and extra, which it frees.
 */
#ifndef ZLBENCH_ROWVIEW_H
#define ZLBENCH_ROWVIEW_H

#include <stddef.h>
#include <stdio.h>

#include "compare.h"
#include "options.h"
#include "runload.h"
#include "strbuf.h"
#include "units.h"

enum zl_row_sort { ZL_SORT_CHANGE, ZL_SORT_NAME, ZL_SORT_TIME };
/* "change", "name", "time". */
const char *zl_row_sort_name(enum zl_row_sort s);
/* A --sort value: 0, or -1 with err naming the choices. */
int zl_row_sort_parse(const char *s, enum zl_row_sort *out, struct strbuf *err);

struct zl_view_opts {
	enum zl_row_sort sort;     /* --sort */
	int only_changed;          /* --only-changed: the changed rows, no unsure and no rest */
	int all;                   /* --all: the rest listed too */
	enum zl_time_unit unit;    /* --time-unit; AUTO: picked from the rows */
	size_t width;              /* fit tables to this many columns; 0: no limit */
	int use_color;
};
#define ZL_VIEW_OPTS_INIT { ZL_SORT_CHANGE, 0, 0, ZL_UNIT_AUTO, 0, 0 }

/* The view's options as given (compare's and ab's rows point at one of these). */
struct zl_view_args {
	const char *sort, *unit;
	int only_changed, all;
};
#define ZL_VIEW_OPTION_ROWS(a) \
	{ .type = ZL_OPT_STRING, .long_name = "sort", .value = &(a)->sort, .argh = "KEY", \
	  .help = "order within each side: change (largest first), name (op, dtype, shape)\n" \
		  "or time (A's, longest first)", .default_doc = "change", .choices = "change name time" }, \
	{ .type = ZL_OPT_FLAG, .long_name = "only-changed", .value = &(a)->only_changed, .defval = 1, \
	  .help = "list the rows called faster, slower or missing, nothing else" }, \
	{ .type = ZL_OPT_FLAG, .long_name = "all", .value = &(a)->all, .defval = 1, \
	  .help = "list every row: the unsure ones all, and those called same" }, \
	{ .type = ZL_OPT_STRING, .long_name = "time-unit", .value = &(a)->unit, .argh = "UNIT", \
	  .help = "show times in ns, us, ms or s", .default_doc = "auto: the median time's", \
	  .choices = "auto ns us ms s" }
/*
 * The view from its options, for a table printed on fd: its width (term.h's
 * zl_term_width) and colour. 0, or -1 with err naming the bad value.
 */
int zl_view_opts_read(const struct zl_view_args *a, int fd, struct zl_view_opts *o, struct strbuf *err);

struct zl_view_row {
	const char *op, *dtype, *shape;
	int occurrence;
	enum zl_side side;
	double a_ms, b_ms, ratio, ci_low, ci_high, p_value;   /* NAN when unknown */
	enum zl_verdict verdict;
	enum zl_unsure unsure;     /* the group of an unsure row */
	const char *advice;        /* an unsure row's, or NULL */
	char *method;              /* the method cell when the view has one (owned) */
	char *extra;               /* the extra column's cell (owned), or NULL */
	int gate_failed;
};

struct zl_view {
	struct zl_view_row *rows;
	size_t nr, alloc;
	int method;                /* a method column */
	const char *extra_head;    /* the extra column's heading, or NULL for none */
	int gate;                  /* a gate column (a gate was asked for) */
	enum zl_time_unit unit;    /* the unit the tables use (zl_view_settle) */
};
void zl_view_init(struct zl_view *v);
void zl_view_release(struct zl_view *v);
/* A new row, zeroed but for NAN figures; the caller fills it. */
struct zl_view_row *zl_view_add(struct zl_view *v);
/* Pick the unit once all rows are in (--time-unit's, or from the rows). */
void zl_view_settle(struct zl_view *v, const struct zl_view_opts *o);

/* 1 for faster, slower and missing: the rows of the changed section. */
int zl_view_changed(enum zl_verdict v);
/* One side's counts that are not 0, "5 slower, 2 unsure, 3 same" (or "no rows"). */
void zl_view_counts(const struct zl_view *v, enum zl_side side, struct strbuf *sb);

/* The text sections (see above); each prints nothing when it has nothing to say. */
void zl_view_print_changed(const struct zl_view *v, const struct zl_view_opts *o, FILE *out);
void zl_view_print_unsure(const struct zl_view *v, const struct zl_view_opts *o, FILE *out);
void zl_view_print_rest(const struct zl_view *v, const struct zl_view_opts *o, FILE *out);

/* The same sections in Markdown (no width); the rest inside <details> with --all. */
void zl_view_markdown(const struct zl_view *v, const struct zl_view_opts *o, struct strbuf *sb);
/* A Markdown table cell: " text |" with bars escaped and line breaks made blanks. */
void zl_view_md_cell(struct strbuf *sb, const char *s);

#endif
