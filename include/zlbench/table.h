/* Tabular output and input: aligned text tables for people, CSV fields and records for spreadsheets. */
#ifndef ZLBENCH_TABLE_H
#define ZLBENCH_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "strbuf.h"
#include "strvec.h"
#include "term.h"

/*
 * CSV (RFC 4180): a field is quoted when it holds a comma, quote, CR, LF or
 * leading/trailing blank, quotes doubled; rows end with CRLF.
 */
void zl_csv_field(struct strbuf *sb, const char *field, int first_in_row);
void zl_csv_end_row(struct strbuf *sb);

/*
 * Read one RFC 4180 record from text[*pos..len) into fields (cleared first).
 * Returns 1 and advances *pos past the record's line end; 0 at the end of the
 * text; -1 when the record is cut off (no line end after it, or an open quote):
 * a batch killed while writing leaves at most that, and it is not a row.
 */
int zl_csv_read_record(const char *text, size_t len, size_t *pos, struct strvec *fields);

/*
 * An aligned text table: add cells row by row (the first row is the header),
 * then print. Colour codes surround a cell's text only when printing in colour,
 * so alignment never depends on them. Owner: the caller; zl_table_release().
 */
struct zl_table {
	size_t ncols;
	unsigned long right;      /* bit i: column i right-aligned (numbers) */
	unsigned long hidden;     /* bit i: column i not printed (zl_table_fit) */
	struct strvec cells;      /* row-major */
	enum zl_color *colors;    /* one per cell */
	size_t alloc_colors;
};
void zl_table_init(struct zl_table *t, size_t ncols, unsigned long right_mask);
void zl_table_add(struct zl_table *t, const char *cell, enum zl_color color);
void zl_table_addf(struct zl_table *t, enum zl_color color, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Print the columns not hidden; a line never ends in blanks. */
void zl_table_print(const struct zl_table *t, FILE *out, int use_color);
/* The width of the printed lines: the widest row of the columns not hidden. */
size_t zl_table_width(const struct zl_table *t);
/*
 * Fit a terminal of width columns: hide the columns drop lists (indexes, the first to go
 * first) one by one until the table fits or the list ends. Returns how many were hidden.
 */
size_t zl_table_fit(struct zl_table *t, size_t width, const size_t *drop, size_t ndrop);
void zl_table_release(struct zl_table *t);

#endif
