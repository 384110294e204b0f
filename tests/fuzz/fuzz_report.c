/*
 * The HTML renderers fed from hostile directories (issue 27): the input is split at each
 * byte 0x1e (ASCII's record separator) into run_identity.json, results.json,
 * plugins/timer.jsonl, batch.json, ops_status.csv, schedule.jsonl and ab.json (a missing
 * part: no such file). From them a run directory, a batch directory (whose runs/mm,
 * runs/add and runs/x are that run) and an A/B directory (rounds A1 and B1, that run) are
 * written, and every page is rendered: the run, the batch, the A/B directory, the run
 * compared with itself, and the history of that run (a fresh database each input).
 *
 * The oracle: each page parses as the writer's HTML (a strict tokenizer: a doctype, tags
 * and attributes in double quotes, text with & < > escaped, every tag closed in order) and
 * holds no element or attribute that the input made: every tag and attribute name is one
 * of the renderer's own (below), every attribute value has its attribute's fixed form
 * (numbers, path data, class and id names of letters, digits, '-' and '_', links to an id
 * in the page, the one style),
 * so no <script>, no on*=, no javascript: can appear, whatever the files held.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "zlbench/compare.h"
#include "zlbench/fsutil.h"
#include "zlbench/history.h"
#include "zlbench/report.h"
#include "zlbench/runload.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"

#define SEP 0x1e

static const char *const parts[] = {
	"run_identity.json", "results.json", "plugins/timer.jsonl", "batch.json", "ops_status.csv", "schedule.jsonl",
	"ab.json",
};

/* The renderer's elements (html.c, svg.c, the pages); void: no end tag; svg: may close itself. */
static const struct {
	const char *name;
	int is_void, self_close;
} tags[] = {
	{ "html", 0, 0 }, { "head", 0, 0 }, { "meta", 1, 0 }, { "title", 0, 0 }, { "style", 0, 0 }, { "body", 0, 0 },
	{ "main", 0, 0 }, { "h1", 0, 0 }, { "h2", 0, 0 }, { "h3", 0, 0 }, { "p", 0, 0 }, { "div", 0, 0 },
	{ "span", 0, 0 }, { "b", 0, 0 }, { "strong", 0, 0 }, { "ul", 0, 0 }, { "li", 0, 0 }, { "table", 0, 0 },
	{ "caption", 0, 0 }, { "thead", 0, 0 }, { "tbody", 0, 0 }, { "tr", 0, 0 }, { "th", 0, 0 }, { "td", 0, 0 },
	{ "figure", 0, 0 }, { "figcaption", 0, 0 }, { "details", 0, 0 }, { "summary", 0, 0 }, { "footer", 0, 0 },
	{ "svg", 0, 0 }, { "g", 0, 0 }, { "text", 0, 0 }, { "path", 0, 1 }, { "rect", 0, 1 }, { "circle", 0, 1 },
	{ "a", 0, 0 }, { "pre", 0, 0 },
};

/* What an attribute's value may be: the writer's own forms; TEXT is escaped text (aria-label). */
enum form { NUMBER, NUMBERS, PATH, NAMES, FRAGMENT, FIXED, TEXT };

static const struct {
	const char *name;
	enum form form;
	const char *fixed;       /* FIXED: the values allowed, '|' between them */
} attrs[] = {
	{ "lang", FIXED, "en" }, { "charset", FIXED, "utf-8" }, { "name", FIXED, "viewport|generator" },
	{ "content", FIXED, "width=device-width, initial-scale=1|zlbench " ZL_VERSION_STRING },
	{ "role", FIXED, "img" }, { "style", FIXED, "stroke-width:2.5" }, { "class", NAMES, NULL },
	{ "id", NAMES, NULL }, { "viewBox", NUMBERS, NULL }, { "aria-label", TEXT, NULL }, { "x", NUMBER, NULL },
	{ "y", NUMBER, NULL }, { "cx", NUMBER, NULL }, { "cy", NUMBER, NULL }, { "r", NUMBER, NULL },
	{ "href", FRAGMENT, NULL },
	{ "width", NUMBER, NULL }, { "height", NUMBER, NULL }, { "rx", NUMBER, NULL }, { "d", PATH, NULL },
};

static const char *const entities[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&#39;" };

struct page {
	const char *what, *s, *end;
	const char *stack[64];
	size_t depth;
};

static void bad(const struct page *pg, const char *p, const char *why)
{
	fuzz_fail("%s page, byte %ld: %s: \"%.60s\"", pg->what, (long)(p - pg->s), why, p);
}

/* Escaped text up to the next '<': no raw '>', every '&' one of the writer's entities. */
static const char *text(struct page *pg, const char *p)
{
	size_t i;

	for (; p < pg->end && *p != '<'; p++) {
		if (*p == '>')
			bad(pg, p, "a raw '>' in text");
		if (*p != '&')
			continue;
		for (i = 0; i < ZL_ARRAY_SIZE(entities); i++)
			if (!strncmp(p, entities[i], strlen(entities[i])))
				break;
		if (i == ZL_ARRAY_SIZE(entities))
			bad(pg, p, "an '&' that starts none of the writer's entities");
	}
	return p;
}

static int in_set(const char *v, size_t n, const char *set)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strchr(set, v[i]))
			return 0;
	return 1;
}

static int fixed_value(const char *v, size_t n, const char *allowed)
{
	while (*allowed) {
		size_t len = strcspn(allowed, "|");

		if (len == n && !strncmp(v, allowed, n))
			return 1;
		allowed += len + (allowed[len] == '|');
	}
	return 0;
}

static void attr_value(struct page *pg, size_t a, const char *v, size_t n)
{
	static const char digits[] = "0123456789.-";
	static const char names[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_- ";
	int ok = 1;

	switch (attrs[a].form) {
	case NUMBER:
		ok = n && in_set(v, n, digits);
		break;
	case NUMBERS:
		ok = n && in_set(v, n, "0123456789.- ");
		break;
	case PATH:
		ok = in_set(v, n, "0123456789.- MHVLlvhz");
		break;
	case NAMES:
		ok = n && in_set(v, n, names);
		break;
	case FRAGMENT:
		/* a link within the page only: "#" and an id */
		ok = n > 1 && v[0] == '#' && in_set(v + 1, n - 1, names) && !memchr(v, ' ', n);
		break;
	case FIXED:
		ok = fixed_value(v, n, attrs[a].fixed);
		break;
	case TEXT: {
		const char *end = pg->end;

		pg->end = v + n;
		text(pg, v);
		pg->end = end;
		break;
	}
	}
	if (!ok)
		bad(pg, v, "an attribute value not of its attribute's form");
}

/* At '<': one tag; returns past its '>'. */
static const char *tag(struct page *pg, const char *p)
{
	int closing = p[1] == '/', self = 0;
	const char *name = p + 1 + closing;
	size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789"), t, a;

	for (t = 0; t < ZL_ARRAY_SIZE(tags); t++)
		if (strlen(tags[t].name) == n && !strncmp(name, tags[t].name, n))
			break;
	if (!n || t == ZL_ARRAY_SIZE(tags))
		bad(pg, p, "an element the renderer does not write");
	p = name + n;
	while (!closing && *p == ' ') {
		const char *an = p + 1, *v;
		size_t len = strspn(an, "abcdefghijklmnopqrstuvwxyzB-");

		for (a = 0; a < ZL_ARRAY_SIZE(attrs); a++)
			if (strlen(attrs[a].name) == len && !strncmp(an, attrs[a].name, len))
				break;
		if (!len || a == ZL_ARRAY_SIZE(attrs))
			bad(pg, an, "an attribute the renderer does not write");
		if (strncmp(an + len, "=\"", 2))
			bad(pg, an, "an attribute without a double-quoted value");
		v = an + len + 2;
		p = memchr(v, '"', (size_t)(pg->end - v));
		if (!p)
			bad(pg, v, "an attribute value that never ends");
		if (memchr(v, '<', (size_t)(p - v)) || memchr(v, '>', (size_t)(p - v)))
			bad(pg, v, "a raw '<' or '>' in an attribute value");
		attr_value(pg, a, v, (size_t)(p - v));
		p++;
	}
	if (*p == '/' && !closing) {
		if (!tags[t].self_close)
			bad(pg, p, "an element that may not close itself");
		self = 1;
		p++;
	}
	if (*p != '>')
		bad(pg, p, "a tag that does not end where its attributes do");
	if (closing) {
		if (!pg->depth || strcmp(pg->stack[pg->depth - 1], tags[t].name))
			bad(pg, name, "an end tag that closes nothing open");
		pg->depth--;
	} else if (!self && !tags[t].is_void) {
		if (pg->depth == ZL_ARRAY_SIZE(pg->stack))
			bad(pg, name, "elements nested deeper than the writer nests them");
		pg->stack[pg->depth++] = tags[t].name;
		if (!strcmp(tags[t].name, "style")) {
			/* the stylesheet is html.c's constant: it holds no '<' */
			const char *close = strstr(p, "</style>");

			if (!close || memchr(p, '<', (size_t)(close - p)))
				bad(pg, p, "a style element that is not the writer's stylesheet");
			return close;
		}
	}
	return p + 1;
}

static void check_page(const char *what, const struct strbuf *html)
{
	static const char head[] = "<!DOCTYPE html>\n";
	struct page pg = { what, html->buf, html->buf + html->len, { NULL }, 0 };
	const char *p = html->buf;

	if (strlen(html->buf) != html->len)
		bad(&pg, p + strlen(html->buf), "a NUL byte in the page");
	if (strncmp(p, head, strlen(head)))
		bad(&pg, p, "no doctype");
	p += strlen(head);
	while (p < pg.end) {
		p = text(&pg, p);
		if (p < pg.end)
			p = tag(&pg, p);
	}
	if (pg.depth)
		bad(&pg, pg.end, "elements left open");
}

static void write_run(const char *dir, const char *const *part, const size_t *len)
{
	size_t i;

	for (i = 0; i < 3; i++)
		if (part[i]) {
			char *rel = xstrfmt("%s/%s", dir, parts[i]);

			fuzz_write(rel, part[i], len[i]);
			free(rel);
		}
}

static void history_page(const char *run_dir, const char *now)
{
	struct zl_history_filter f = ZL_HISTORY_FILTER_INIT;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct zl_history *h = NULL;

	/* in memory: a fresh database each input, without a file's syncs */
	if (zl_history_open(":memory:", &h, &err))
		fuzz_fail("cannot open a fresh history: %s", err.buf);
	if (!zl_history_ingest_run(h, run_dir, &err) && !zl_report_history_page(h, &f, now, &out, &err))
		check_page("history", &out);
	zl_history_close(h);
	strbuf_release(&err);
	strbuf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char now[] = "2026-12-01T00:00:00Z";
	static const char *const runs[] = { "b/runs/mm", "b/runs/add", "b/runs/x", "ab/A1", "ab/B1", "r" };
	const char *part[ZL_ARRAY_SIZE(parts)] = { NULL };
	size_t len[ZL_ARRAY_SIZE(parts)] = { 0 }, i, k = 0;
	struct zl_compare_opts opts = ZL_COMPARE_OPTS_INIT;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	const char *p = (const char *)data, *end = p + size;
	char *dir = fuzz_path(""), *r = fuzz_path("r"), *b = fuzz_path("b"), *ab = fuzz_path("ab");
	struct zl_run run;

	/* a fresh tree each input: what one input left must not show in the next one's pages */
	if (zl_remove_tree(r, &err) || zl_remove_tree(b, &err) || zl_remove_tree(ab, &err))
		fuzz_fail("%s", err.buf);
	for (; k < ZL_ARRAY_SIZE(parts) && p <= end; k++) {
		const char *sep = memchr(p, SEP, (size_t)(end - p));

		part[k] = p;
		len[k] = (size_t)((sep ? sep : end) - p);
		p += len[k] + 1;
	}
	for (i = 0; i < ZL_ARRAY_SIZE(runs); i++)
		write_run(runs[i], part, len);
	for (i = 3; i < 6; i++)
		if (part[i]) {
			char *rel = xstrfmt("b/%s", parts[i]);

			fuzz_write(rel, part[i], len[i]);
			free(rel);
		}
	if (part[6])
		fuzz_write("ab/ab.json", part[6], len[6]);

	zl_run_init(&run);
	if (!zl_run_load(r, &run, &err)) {
		struct zl_compare c;
		struct zl_report_cmp rc;

		zl_report_run_page(&run, now, &out);
		check_page("run", &out);
		strbuf_reset(&out);
		opts.resamples = 20;
		zl_compare_init(&c);
		zl_compare_runs(&run, &run, &opts, &c);
		zl_report_cmp_init(&rc);
		zl_report_cmp_from_compare(&c, &rc);
		zl_report_compare_page(&rc, &run, &run, run.run_id, run.dir, now, &out);
		check_page("compare", &out);
		strbuf_reset(&out);
		zl_report_cmp_release(&rc);
		zl_compare_release(&c);
		zl_run_release(&run);
		history_page(r, now);
	}
	strbuf_reset(&err);
	if (!zl_report_batch_page(b, now, &out, &err))
		check_page("batch", &out);
	strbuf_reset(&out);
	strbuf_reset(&err);
	opts = (struct zl_compare_opts)ZL_COMPARE_OPTS_INIT;
	opts.resamples = 20;
	if (!zl_report_ab_page(ab, &opts, now, &out, &err))
		check_page("ab", &out);
	strbuf_release(&out);
	strbuf_release(&err);
	free(dir);
	free(r);
	free(b);
	free(ab);
	return 0;
}
