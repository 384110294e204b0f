/* The people's view of compared rows: changed, unsure by reason, the rest (include/zlbench/rowview.h). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/error.h"
#include "zlbench/rowview.h"
#include "zlbench/table.h"
#include "zlbench/term.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* Unsure rows listed one by one without --all; --json and --csv carry them all. */
#define UNSURE_LISTED 20

static const char *const sort_names[] = {
	[ZL_SORT_CHANGE] = "change",
	[ZL_SORT_NAME] = "name",
	[ZL_SORT_TIME] = "time",
};

/* How each sort orders a side's rows, for the section headings. */
static const char *const sort_words[] = {
	[ZL_SORT_CHANGE] = "largest change first",
	[ZL_SORT_NAME] = "by op, dtype and shape",
	[ZL_SORT_TIME] = "longest time first",
};

const char *zl_row_sort_name(enum zl_row_sort s)
{
	return (size_t)s < ZL_ARRAY_SIZE(sort_names) ? sort_names[s] : "?";
}

int zl_row_sort_parse(const char *s, enum zl_row_sort *out, struct strbuf *err)
{
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(sort_names); i++)
		if (!strcmp(s, sort_names[i])) {
			*out = (enum zl_row_sort)i;
			return 0;
		}
	return zl_error(err, "invalid value '%s' for --sort: choose change, name or time", s);
}

int zl_view_opts_read(const struct zl_view_args *a, int fd, struct zl_view_opts *o, struct strbuf *err)
{
	if (a->sort && zl_row_sort_parse(a->sort, &o->sort, err))
		return -1;
	if (a->unit && zl_time_unit_parse(a->unit, &o->unit, err))
		return -1;
	if (a->only_changed && a->all)
		return zl_error(err, "--only-changed and --all cannot be combined");
	o->only_changed = a->only_changed;
	o->all = a->all;
	o->width = zl_term_width(fd);
	o->use_color = zl_use_color(fd);
	return 0;
}

void zl_view_init(struct zl_view *v)
{
	memset(v, 0, sizeof(*v));
	v->unit = ZL_UNIT_MS;
}

void zl_view_release(struct zl_view *v)
{
	size_t i;

	for (i = 0; i < v->nr; i++) {
		free(v->rows[i].method);
		free(v->rows[i].extra);
	}
	free(v->rows);
	zl_view_init(v);
}

struct zl_view_row *zl_view_add(struct zl_view *v)
{
	struct zl_view_row *r;

	ALLOC_GROW(v->rows, v->nr + 1, v->alloc);
	r = &v->rows[v->nr++];
	memset(r, 0, sizeof(*r));
	r->a_ms = r->b_ms = r->ratio = r->ci_low = r->ci_high = r->p_value = NAN;
	return r;
}

void zl_view_settle(struct zl_view *v, const struct zl_view_opts *o)
{
	double *ms;
	size_t i;

	if (o->unit != ZL_UNIT_AUTO) {
		v->unit = o->unit;
		return;
	}
	ms = xcalloc(2 * v->nr + 1, sizeof(*ms));
	for (i = 0; i < v->nr; i++) {
		ms[2 * i] = v->rows[i].a_ms;
		ms[2 * i + 1] = v->rows[i].b_ms;
	}
	v->unit = zl_time_unit_pick(ms, 2 * v->nr);
	free(ms);
}

int zl_view_changed(enum zl_verdict v)
{
	return v == ZL_VERDICT_FASTER || v == ZL_VERDICT_SLOWER || v == ZL_VERDICT_MISSING;
}

void zl_view_counts(const struct zl_view *v, enum zl_side side, struct strbuf *sb)
{
	static const enum zl_verdict order[] = { ZL_VERDICT_SLOWER, ZL_VERDICT_FASTER, ZL_VERDICT_UNSURE,
						 ZL_VERDICT_SAME, ZL_VERDICT_MISSING };
	size_t n[ZL_VERDICT_MISSING + 1] = { 0 }, i;
	const char *sep = "";

	for (i = 0; i < v->nr; i++)
		if (v->rows[i].side == side && (size_t)v->rows[i].verdict < ZL_ARRAY_SIZE(n))
			n[v->rows[i].verdict]++;
	for (i = 0; i < ZL_ARRAY_SIZE(order); i++)
		if (n[order[i]]) {
			strbuf_addf(sb, "%s%zu %s", sep, n[order[i]], zl_verdict_name(order[i]));
			sep = ", ";
		}
	if (!*sep)
		strbuf_addstr(sb, "no rows");
}

/* ---- order ---------------------------------------------------------------------- */

/* Text with its runs of digits compared as numbers: [[384, 384]] before [[1024, 1024]]. */
static int natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			size_t la, lb;
			int c;

			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			la = strspn(a, "0123456789");
			lb = strspn(b, "0123456789");
			if (la != lb)
				return la < lb ? -1 : 1;
			c = strncmp(a, b, la);
			if (c)
				return c;
			a += la;
			b += lb;
		} else if (*a != *b) {
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		} else {
			a++;
			b++;
		}
	}
	return (unsigned char)*a - (unsigned char)*b;
}

struct keyed {
	const struct zl_view_row *r;
	size_t order;              /* in the source: the last tie-break */
	double key;                /* smaller first; NAN last */
	enum zl_row_sort sort;
};

static int str_cmp(const char *a, const char *b)
{
	return natural_cmp(a ? a : "", b ? b : "");
}

static int by_view_order(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	int c;

	if (a->r->side != b->r->side)
		return a->r->side == ZL_SIDE_GEMS ? -1 : 1;
	if (a->sort != ZL_SORT_NAME && isnan(a->key) != isnan(b->key))
		return isnan(a->key) ? 1 : -1;
	if (a->sort != ZL_SORT_NAME && a->key != b->key && !isnan(a->key))
		return a->key < b->key ? -1 : 1;
	if (a->sort == ZL_SORT_NAME) {
		if ((c = str_cmp(a->r->op, b->r->op)) || (c = str_cmp(a->r->dtype, b->r->dtype)) ||
		    (c = str_cmp(a->r->shape, b->r->shape)))
			return c;
		if (a->r->occurrence != b->r->occurrence)
			return a->r->occurrence < b->r->occurrence ? -1 : 1;
	}
	return (a->order > b->order) - (a->order < b->order);
}

static double sort_key(const struct zl_view_row *r, enum zl_row_sort sort)
{
	double t;

	switch (sort) {
	case ZL_SORT_CHANGE:
		return isfinite(r->ratio) && r->ratio > 0 ? -fabs(log(r->ratio)) : NAN;
	case ZL_SORT_TIME:
		t = isfinite(r->a_ms) ? r->a_ms : r->b_ms;
		return isfinite(t) ? -t : NAN;
	case ZL_SORT_NAME:
		break;
	}
	return 0;
}

/* The rows select() keeps, in the view's order; *n their number. The caller frees. */
static struct keyed *select_rows(const struct zl_view *v, const struct zl_view_opts *o,
				 int (*keep)(const struct zl_view_row *), size_t *n)
{
	struct keyed *k = xcalloc(v->nr + 1, sizeof(*k));
	size_t i;

	*n = 0;
	for (i = 0; i < v->nr; i++) {
		if (!keep(&v->rows[i]))
			continue;
		k[*n].r = &v->rows[i];
		k[*n].order = i;
		k[*n].sort = o->sort;
		k[*n].key = sort_key(&v->rows[i], o->sort);
		(*n)++;
	}
	qsort(k, *n, sizeof(*k), by_view_order);
	return k;
}

static int keep_changed(const struct zl_view_row *r)
{
	return zl_view_changed(r->verdict);
}

static int keep_unsure(const struct zl_view_row *r)
{
	return r->verdict == ZL_VERDICT_UNSURE;
}

static int keep_rest(const struct zl_view_row *r)
{
	return !zl_view_changed(r->verdict) && r->verdict != ZL_VERDICT_UNSURE;
}

static int keep_all(const struct zl_view_row *r)
{
	(void)r;
	return 1;
}

/* ---- tables ----------------------------------------------------------------------- */

enum col { COL_OP, COL_DTYPE, COL_SHAPE, COL_SIDE, COL_A, COL_B, COL_CHANGE, COL_CI, COL_P, COL_VERDICT,
	   COL_METHOD, COL_EXTRA, COL_GATE, COL__COUNT };

/* The columns a narrow terminal drops, the first first (the gate's lines name the failed rows too). */
static const size_t drop_order[] = { COL_CI, COL_P, COL_EXTRA, COL_METHOD, COL_GATE };

static void ci_cell(struct strbuf *sb, double lo, double hi)
{
	if (!isfinite(lo) || !isfinite(hi)) {
		strbuf_addch(sb, '-');
		return;
	}
	strbuf_addch(sb, '[');
	zl_fmt_change(sb, lo);
	strbuf_addstr(sb, ", ");
	zl_fmt_change(sb, hi);
	strbuf_addch(sb, ']');
}

/* The cells of column col for row r (the header row when r is NULL). */
static void cell(const struct zl_view *v, const struct zl_view_row *r, enum col col, struct strbuf *sb,
		 enum zl_color *color)
{
	static const char *const heads[] = {
		[COL_OP] = "op", [COL_DTYPE] = "dtype", [COL_SHAPE] = "shape", [COL_SIDE] = "side",
		[COL_CHANGE] = "change", [COL_CI] = "95% CI", [COL_P] = "p", [COL_VERDICT] = "verdict",
		[COL_METHOD] = "method", [COL_GATE] = "gate",
	};

	*color = ZL_COLOR_NONE;
	if (!r) {
		*color = ZL_COLOR_BOLD;
		if (col == COL_A || col == COL_B)
			strbuf_addf(sb, "%c %s", col == COL_A ? 'A' : 'B', zl_time_unit_name(v->unit));
		else if (col == COL_EXTRA)
			strbuf_addstr(sb, v->extra_head ? v->extra_head : "");
		else
			strbuf_addstr(sb, heads[col]);
		return;
	}
	switch (col) {
	case COL_OP:
		strbuf_addstr(sb, r->op ? r->op : "-");
		break;
	case COL_DTYPE:
		/* every dtype is torch's: "float16" says as much as "torch.float16" in less room */
		strbuf_addstr(sb, !r->dtype ? "-" : zl_starts_with(r->dtype, "torch.") ? r->dtype + 6 : r->dtype);
		break;
	case COL_SHAPE:
		strbuf_addstr(sb, r->shape ? r->shape : "-");
		if (r->occurrence > 1)
			strbuf_addf(sb, " #%d", r->occurrence);
		break;
	case COL_SIDE:
		strbuf_addstr(sb, zl_side_name(r->side));
		break;
	case COL_A:
	case COL_B:
		zl_fmt_time(sb, col == COL_A ? r->a_ms : r->b_ms, v->unit);
		break;
	case COL_CHANGE:
		zl_fmt_change(sb, r->ratio);
		*color = zl_verdict_color(r->verdict);
		break;
	case COL_CI:
		ci_cell(sb, r->ci_low, r->ci_high);
		break;
	case COL_P:
		if (isfinite(r->p_value))
			strbuf_addf(sb, "%.2g", r->p_value);
		else
			strbuf_addch(sb, '-');
		break;
	case COL_VERDICT:
		strbuf_addstr(sb, zl_verdict_name(r->verdict));
		*color = zl_verdict_color(r->verdict);
		break;
	case COL_METHOD:
		strbuf_addstr(sb, r->method ? r->method : "-");
		break;
	case COL_EXTRA:
		strbuf_addstr(sb, r->extra ? r->extra : "-");
		break;
	case COL_GATE:
		strbuf_addstr(sb, r->gate_failed ? "FAILED" : "");
		*color = ZL_COLOR_RED;
		break;
	case COL__COUNT:
		break;
	}
}

/* Whether the view shows column col in a table with (or without) its verdict column. */
static int shows(const struct zl_view *v, enum col col, int verdict)
{
	switch (col) {
	case COL_VERDICT:
		return verdict;
	case COL_METHOD:
		return v->method;
	case COL_EXTRA:
		return v->extra_head != NULL;
	case COL_GATE:
		return v->gate;
	default:
		return 1;
	}
}

/* A table of rows k[0..n): a header row, then one row each; hidden columns dropped to fit. */
static void build_table(const struct zl_view *v, const struct keyed *k, size_t n, int verdict, size_t width,
			struct zl_table *t)
{
	unsigned long right = (1UL << COL_A) | (1UL << COL_B) | (1UL << COL_CHANGE) | (1UL << COL_CI) | (1UL << COL_P);
	struct strbuf sb = STRBUF_INIT;
	enum zl_color color;
	size_t i;
	int col;

	zl_table_init(t, COL__COUNT, right);
	for (i = 0; i <= n; i++)
		for (col = 0; col < COL__COUNT; col++) {
			strbuf_reset(&sb);
			cell(v, i ? k[i - 1].r : NULL, (enum col)col, &sb, &color);
			zl_table_add(t, sb.buf, color);
		}
	for (col = 0; col < COL__COUNT; col++)
		if (!shows(v, (enum col)col, verdict))
			t->hidden |= 1UL << col;
	/* a gate column with nothing in it says nothing */
	for (i = 0; i < n && !k[i].r->gate_failed; i++)
		;
	if (i == n)
		t->hidden |= 1UL << COL_GATE;
	if (width)
		zl_table_fit(t, width, drop_order, ZL_ARRAY_SIZE(drop_order));
	strbuf_release(&sb);
}

static void print_table(const struct zl_view *v, const struct zl_view_opts *o, const struct keyed *k, size_t n,
			int verdict, FILE *out)
{
	struct zl_table t;

	build_table(v, k, n, verdict, o->width, &t);
	zl_table_print(&t, out, o->use_color);
	zl_table_release(&t);
}

/* ---- text sections ------------------------------------------------------------------ */

void zl_view_print_changed(const struct zl_view *v, const struct zl_view_opts *o, FILE *out)
{
	size_t n, i, slower = 0, faster = 0, missing = 0;
	struct keyed *k = select_rows(v, o, keep_changed, &n);

	for (i = 0; i < n; i++) {
		slower += k[i].r->verdict == ZL_VERDICT_SLOWER;
		faster += k[i].r->verdict == ZL_VERDICT_FASTER;
		missing += k[i].r->verdict == ZL_VERDICT_MISSING;
	}
	if (!n) {
		fprintf(out, "changed: none of %zu rows\n\n", v->nr);
		free(k);
		return;
	}
	fprintf(out, "changed: %zu of %zu rows (%zu slower, %zu faster", n, v->nr, slower, faster);
	if (missing)
		fprintf(out, ", %zu missing on a side", missing);
	fprintf(out, "), gems first, %s:\n", sort_words[o->sort]);
	print_table(v, o, k, n, 1, out);
	fputc('\n', out);
	free(k);
}

/* Rows whose unsure kind and advice are those of row r (a group). */
static int same_group(const struct zl_view_row *a, const struct zl_view_row *b)
{
	return a->unsure == b->unsure && !strcmp(a->advice ? a->advice : "", b->advice ? b->advice : "");
}

/*
 * The unsure rows k[0..n) in groups: by kind (enum zl_unsure's order), then by advice in
 * the order the rows come. Fills group (n entries) and starts (the index in group where
 * each group starts, ngroups + 1 entries); returns the number of groups.
 */
static size_t unsure_groups(const struct keyed *k, size_t n, struct keyed *group, size_t *starts)
{
	char *done = xcalloc(n + 1, 1);
	size_t i, j, g = 0, ng = 0;
	int kind;

	for (kind = ZL_UNSURE_NONE; kind <= ZL_UNSURE_OVERLAP; kind++)
		for (i = 0; i < n; i++) {
			if (done[i] || (int)k[i].r->unsure != kind)
				continue;
			starts[ng++] = g;
			for (j = i; j < n; j++)
				if (!done[j] && same_group(k[i].r, k[j].r)) {
					group[g++] = k[j];
					done[j] = 1;
				}
		}
	/* a kind outside the enum's range still gets its group */
	for (i = 0; i < n; i++) {
		if (done[i])
			continue;
		starts[ng++] = g;
		for (j = i; j < n; j++)
			if (!done[j] && same_group(k[i].r, k[j].r)) {
				group[g++] = k[j];
				done[j] = 1;
			}
	}
	starts[ng] = g;
	free(done);
	return ng;
}

void zl_view_print_unsure(const struct zl_view *v, const struct zl_view_opts *o, FILE *out)
{
	size_t n, i, ng, listed = 0, limit = o->all ? (size_t)-1 : UNSURE_LISTED, *starts;
	struct keyed *k, *group;

	if (o->only_changed)
		return;
	k = select_rows(v, o, keep_unsure, &n);
	if (!n) {
		free(k);
		return;
	}
	fprintf(out, "unsure: %zu row%s, by reason (neither faster, slower nor same: what would decide them):\n", n,
		n == 1 ? "" : "s");
	group = xcalloc(n, sizeof(*group));
	starts = xcalloc(n + 1, sizeof(*starts));
	ng = unsure_groups(k, n, group, starts);
	for (i = 0; i < ng; i++) {
		const struct keyed *first = &group[starts[i]];
		size_t g = starts[i + 1] - starts[i];
		size_t show = listed >= limit ? 0 : g < limit - listed ? g : limit - listed;

		fprintf(out, "  %s: %zu row%s\n  advice: %s\n", zl_unsure_name(first->r->unsure), g, g == 1 ? "" : "s",
			zl_term_str(first->r->advice ? first->r->advice : "-"));
		if (show)
			print_table(v, o, first, show, 0, out);
		if (show < g)
			fprintf(out, "  ... and %zu more (--all lists them; --json and --csv give each row's reason)\n",
				g - show);
		listed += show;
		fputc('\n', out);
	}
	free(starts);
	free(group);
	free(k);
}

void zl_view_print_rest(const struct zl_view *v, const struct zl_view_opts *o, FILE *out)
{
	size_t n;
	struct keyed *k;

	if (o->only_changed)
		return;
	k = select_rows(v, o, keep_rest, &n);
	if (n && o->all) {
		fprintf(out, "same: %zu row%s, gems first, %s:\n", n, n == 1 ? "" : "s", sort_words[o->sort]);
		print_table(v, o, k, n, 0, out);
		fputc('\n', out);
	} else if (n) {
		fprintf(out, "same: %zu row%s, not listed (--all lists them)\n\n", n, n == 1 ? "" : "s");
	}
	free(k);
}

/* ---- Markdown ------------------------------------------------------------------------ */

void zl_view_md_cell(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, ' ');
	for (; *s; s++) {
		if (*s == '|')
			strbuf_addstr(sb, "\\|");
		else if (*s == '\n' || *s == '\r')
			strbuf_addch(sb, ' ');
		/* Markdown is rendered as HTML (a PR comment): a file's markup is shown, never made */
		else if (*s == '<')
			strbuf_addstr(sb, "&lt;");
		else if (*s == '>')
			strbuf_addstr(sb, "&gt;");
		else if (*s == '&')
			strbuf_addstr(sb, "&amp;");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addstr(sb, " |");
}

/* A Markdown table of rows k[0..n) with the view's columns (no width); a failed gate is said in the verdict cell. */
static void md_table(const struct zl_view *v, const struct keyed *k, size_t n, int verdict, struct strbuf *sb)
{
	struct strbuf c = STRBUF_INIT;
	enum zl_color color;
	size_t i;
	int col;

	for (i = 0; i < n + 2; i++) {
		const struct zl_view_row *r = i > 1 ? k[i - 2].r : NULL;

		strbuf_addch(sb, '|');
		for (col = 0; col < COL__COUNT; col++) {
			if (col == COL_GATE || !shows(v, (enum col)col, verdict))
				continue;
			if (i == 1) {
				strbuf_addstr(sb, col == COL_A || col == COL_B || col == COL_CHANGE || col == COL_P ?
						  "---:|" : "---|");
				continue;
			}
			strbuf_reset(&c);
			cell(v, r, (enum col)col, &c, &color);
			if (r && col == COL_VERDICT && r->verdict == ZL_VERDICT_SLOWER) {
				strbuf_reset(&c);
				strbuf_addstr(&c, "**slower**");
			}
			if (r && col == COL_VERDICT && r->gate_failed)
				strbuf_addstr(&c, ", **gate failed**");
			zl_view_md_cell(sb, c.buf);
		}
		strbuf_addch(sb, '\n');
	}
	strbuf_release(&c);
}

static void md_unsure(const struct zl_view *v, const struct zl_view_opts *o, struct strbuf *sb)
{
	size_t n, i, ng;
	struct keyed *k = select_rows(v, o, keep_unsure, &n), *group = xcalloc(n + 1, sizeof(*group));
	size_t *starts = xcalloc(n + 1, sizeof(*starts));

	ng = unsure_groups(k, n, group, starts);
	if (n)
		strbuf_addf(sb, "**Unsure: %zu row%s**, by reason\n\n", n, n == 1 ? "" : "s");
	for (i = 0; i < ng; i++) {
		const struct keyed *first = &group[starts[i]];
		size_t g = starts[i + 1] - starts[i];

		strbuf_addf(sb, "*%s*: %zu row%s. Advice: %s\n\n", zl_unsure_name(first->r->unsure), g, g == 1 ? "" : "s",
			    first->r->advice ? first->r->advice : "-");
		md_table(v, first, g, 0, sb);
		strbuf_addch(sb, '\n');
	}
	free(starts);
	free(group);
	free(k);
}

void zl_view_markdown(const struct zl_view *v, const struct zl_view_opts *o, struct strbuf *sb)
{
	size_t n, i, slower = 0, faster = 0;
	struct keyed *k = select_rows(v, o, keep_changed, &n);

	for (i = 0; i < n; i++) {
		slower += k[i].r->verdict == ZL_VERDICT_SLOWER;
		faster += k[i].r->verdict == ZL_VERDICT_FASTER;
	}
	if (!n) {
		strbuf_addf(sb, "**Changed:** none of %zu rows\n\n", v->nr);
	} else {
		strbuf_addf(sb, "**Changed: %zu of %zu rows** (%zu slower, %zu faster), gems first, %s\n\n", n, v->nr,
			    slower, faster, sort_words[o->sort]);
		md_table(v, k, n, 1, sb);
		strbuf_addch(sb, '\n');
	}
	free(k);
	if (o->only_changed)
		return;
	md_unsure(v, o, sb);
	k = select_rows(v, o, keep_all, &n);
	strbuf_addf(sb, "<details><summary>All %zu rows</summary>\n\n", n);
	md_table(v, k, n, 1, sb);
	strbuf_addstr(sb, "\n</details>\n\n");
	free(k);
}
