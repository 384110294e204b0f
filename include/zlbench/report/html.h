/*
 * The HTML writer of `zlbench report`: escaping, the page skeleton with its one
 * inline stylesheet (light and dark through prefers-color-scheme, print rules, no
 * script, nothing fetched), and the few building blocks the pages share.
 *
 * The HTML edge (docs/architecture.md, "Edges"): every string that came from a file
 * (an op, a status, a reason, a run id, a path) reaches the page through
 * zl_html_escape (text and quoted attribute values), or zl_report_status_class
 * (parts.h: a known status's class, else v-other) when it names a class; nothing
 * formats one into markup with %s. Text arguments are escaped
 * here, and so are the `cls` arguments; `attrs` is markup the caller writes (never a
 * file's string). Owner: the caller owns the strbuf; nothing here allocates beyond it.
 */
#ifndef ZLBENCH_REPORT_HTML_H
#define ZLBENCH_REPORT_HTML_H

#include <stddef.h>

#include "../strbuf.h"
#include "../strvec.h"

/* Append s with & < > " ' replaced by entities (fit for text and quoted attributes). */
void zl_html_escape(struct strbuf *sb, const char *s);
void zl_html_escape_len(struct strbuf *sb, const char *s, size_t len);
/* Format, then append the result escaped. */
void zl_html_textf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* <tag attrs>text</tag>, text escaped; attrs may be NULL. */
void zl_html_elem(struct strbuf *sb, const char *tag, const char *attrs, const char *text);

/* The document up to <main>: doctype, charset, viewport, title, stylesheet, h1 and a subtitle line. */
void zl_html_page_begin(struct strbuf *sb, const char *title, const char *subtitle);
/* The footer (generator and time) and the closing tags. */
void zl_html_page_end(struct strbuf *sb, const char *generated_at);

/* The caliber grid: open it, add "name: value" cells (NULL value: "not recorded"), close it. */
void zl_html_cal_begin(struct strbuf *sb);
void zl_html_cal(struct strbuf *sb, const char *name, const char *value);
void zl_html_cal_end(struct strbuf *sb);
/* The text every page prints for a field the run did not record. */
#define ZL_HTML_NOT_RECORDED "not recorded"

/* A box of lines, class "warn", "bad" or "ok"; nothing when lines is empty. */
void zl_html_notes(struct strbuf *sb, const char *cls, const char *heading, const struct strvec *lines);

/*
 * A table that scrolls inside its box: begin with the header cells, then cells
 * row by row (zl_html_tr between rows), then end. cls may be NULL; "n" right-aligns.
 */
void zl_html_table_begin(struct strbuf *sb, const char *caption, const char *const *heads, size_t n);
void zl_html_tr(struct strbuf *sb);
void zl_html_td(struct strbuf *sb, const char *text, const char *cls);
void zl_html_table_end(struct strbuf *sb);

/* <figure> around a chart, with its caption (escaped) after it; the chart goes in between. */
void zl_html_figure_begin(struct strbuf *sb, const char *id);
void zl_html_figure_end(struct strbuf *sb, const char *caption);

/* A latency in ms with 3 significant digits ("0.0123", "12.3", "1230"); "-" when not finite. */
void zl_fmt_ms(char buf[32], double ms);

#endif
