/* Aligned text tables and CSV fields (include/zlbench/table.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/table.h"
#include "zlbench/term.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* A plain decimal number ("-1.5", "+2e-3"): a spreadsheet reads it as the number, never a formula. */
static int plain_number(const char *s)
{
	int digits = 0;

	if (*s == '-' || *s == '+')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		digits++;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits++;
	if (digits && (*s == 'e' || *s == 'E')) {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return digits && !*s;
}

/*
 * OWASP's CSV injection rule: a cell a spreadsheet would take for a formula (it starts
 * with = + - @ TAB or CR) is written with a ' before it. A cell that starts with ' and
 * would need one after it gets one too, so that the reader can take exactly one off.
 */
static int needs_formula_guard(const char *s)
{
	while (*s == '\'')
		s++;
	return *s && strchr("=+-@\t\r", *s) && !plain_number(s);
}

void zl_csv_field(struct strbuf *sb, const char *field, int first_in_row)
{
	const char *s = field ? field : "";
	size_t len = strlen(s);
	int guard = needs_formula_guard(s);
	int quote = guard || strpbrk(s, ",\"\r\n") != NULL ||
		    (len && (s[0] == ' ' || s[len - 1] == ' '));

	if (!first_in_row)
		strbuf_addch(sb, ',');
	if (!quote) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '"');
	if (guard)
		strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '"')
			strbuf_addch(sb, '"');
		strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '"');
}

void zl_csv_end_row(struct strbuf *sb)
{
	strbuf_addstr(sb, "\r\n");
}

/* A field as it was before zl_csv_field guarded it: a quoted one loses the ' it was given. */
static void push_field(struct strvec *fields, const struct strbuf *field, int quoted)
{
	const char *f = field->buf;

	if (quoted && f[0] == '\'' && needs_formula_guard(f + 1))
		f++;
	strvec_push(fields, f);
}

int zl_csv_read_record(const char *text, size_t len, size_t *pos, struct strvec *fields)
{
	struct strbuf field = STRBUF_INIT;
	size_t p = *pos;
	int quoted = 0, in_quotes = 0;

	strvec_clear(fields);
	if (p >= len)
		return 0;
	for (;;) {
		char c;

		if (p >= len) {
			/* no line end after the last field: a row cut off mid-write */
			strbuf_release(&field);
			strvec_clear(fields);
			return -1;
		}
		c = text[p++];
		if (in_quotes) {
			if (c == '"') {
				if (p < len && text[p] == '"') {
					strbuf_addch(&field, '"');
					p++;
				} else {
					in_quotes = 0;
				}
			} else {
				strbuf_addch(&field, c);
			}
			continue;
		}
		if (c == '"' && !field.len && !quoted) {
			in_quotes = quoted = 1;
		} else if (c == ',') {
			push_field(fields, &field, quoted);
			strbuf_reset(&field);
			quoted = 0;
		} else if (c == '\r' || c == '\n') {
			if (c == '\r' && p < len && text[p] == '\n')
				p++;
			else if (c == '\r' && p >= len) {
				strbuf_release(&field);
				strvec_clear(fields);
				return -1;
			}
			push_field(fields, &field, quoted);
			break;
		} else {
			strbuf_addch(&field, c);
		}
	}
	strbuf_release(&field);
	*pos = p;
	return 1;
}

void zl_table_init(struct zl_table *t, size_t ncols, unsigned long right_mask)
{
	t->ncols = ncols;
	t->right = right_mask;
	t->hidden = 0;
	strvec_init(&t->cells);
	t->colors = NULL;
	t->alloc_colors = 0;
}

void zl_table_add(struct zl_table *t, const char *cell, enum zl_color color)
{
	struct strbuf shown = STRBUF_INIT;

	ALLOC_GROW(t->colors, t->cells.nr + 1, t->alloc_colors);
	t->colors[t->cells.nr] = color;
	/* the terminal's edge: kept as it may be shown (strbuf_add_printable), a cell sends no control sequence */
	strbuf_add_printable(&shown, cell ? cell : "");
	strvec_push(&t->cells, shown.buf);
	strbuf_release(&shown);
}

void zl_table_addf(struct zl_table *t, enum zl_color color, const char *fmt, ...)
{
	va_list ap;
	char *cell;

	va_start(ap, fmt);
	cell = xstrvfmt(fmt, ap);
	va_end(ap);
	zl_table_add(t, cell, color);
	free(cell);
}

/* Display width: count UTF-8 lead bytes, so "±" or "×" take one column. */
static size_t text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

static int hidden_col(const struct zl_table *t, size_t col)
{
	return col < 8 * sizeof(t->hidden) && (t->hidden >> col) & 1;
}

/* Each column's width (0 for a hidden one); the caller frees. */
static size_t *col_widths(const struct zl_table *t)
{
	size_t *width = xcalloc(t->ncols ? t->ncols : 1, sizeof(*width));
	size_t i;

	for (i = 0; i < t->cells.nr; i++) {
		size_t w = text_width(t->cells.v[i]);

		if (!hidden_col(t, i % t->ncols) && w > width[i % t->ncols])
			width[i % t->ncols] = w;
	}
	return width;
}

size_t zl_table_width(const struct zl_table *t)
{
	size_t *width = col_widths(t), col, total = 0, shown = 0;

	for (col = 0; col < t->ncols; col++)
		if (!hidden_col(t, col)) {
			total += width[col];
			shown++;
		}
	free(width);
	return total + (shown ? 2 * (shown - 1) : 0);
}

size_t zl_table_fit(struct zl_table *t, size_t width, const size_t *drop, size_t ndrop)
{
	size_t i, n = 0;

	for (i = 0; i < ndrop && zl_table_width(t) > width; i++) {
		if (drop[i] >= t->ncols || drop[i] >= 8 * sizeof(t->hidden) || hidden_col(t, drop[i]))
			continue;
		t->hidden |= 1UL << drop[i];
		n++;
	}
	return n;
}

void zl_table_print(const struct zl_table *t, FILE *out, int use_color)
{
	size_t *width = col_widths(t);
	struct strbuf line = STRBUF_INIT;
	size_t i, last = 0;

	for (i = 0; i < t->ncols; i++)
		if (!hidden_col(t, i))
			last = i;
	for (i = 0; i < t->cells.nr; i++) {
		size_t col = i % t->ncols;
		size_t pad = width[col] - text_width(t->cells.v[i]);
		int right = col < 8 * sizeof(t->right) && (t->right >> col) & 1;
		int colored = use_color && t->colors[i] != ZL_COLOR_NONE && *t->cells.v[i];

		if (hidden_col(t, col))
			continue;
		if (right)
			strbuf_addf(&line, "%*s", (int)pad, "");
		strbuf_addf(&line, "%s%s%s", colored ? zl_color_start(t->colors[i]) : "", t->cells.v[i],
			    colored ? ZL_COLOR_RESET : "");
		if (col != last) {
			strbuf_addf(&line, "%*s", right ? 2 : (int)pad + 2, "");
			continue;
		}
		strbuf_rtrim(&line);
		fprintf(out, "%s\n", line.buf);
		strbuf_reset(&line);
	}
	strbuf_release(&line);
	free(width);
}

void zl_table_release(struct zl_table *t)
{
	strvec_clear(&t->cells);
	free(t->colors);
	t->colors = NULL;
	t->alloc_colors = 0;
}
