/*
 * zlbench(1) from the help texts (see include/zlbench/man.h). A thin layer: it knows
 * nothing of any command, only how help text is laid out (a usage block, headings
 * ending in ':', paragraphs, "  --option ARG   what it does" rows, indented examples),
 * so whatever produces `zlbench help CMD` produces the page too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/man.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* Characters roff would not print as themselves (or would print as typographic ones). */
static const struct {
	char c;
	const char *roff;
} escapes[] = {
	{ '\\', "\\e" },
	{ '-', "\\-" },      /* a minus: an option copied from the page must still work */
	{ '\'', "\\(aq" },
	{ '`', "\\(ga" },
};

/* A word this long in filled text may not fit a line: it may break after ',', '/' or '|'. */
#define LONG_WORD 32

/*
 * Text for one roff input line; a leading '.' would be read as a request. In filled text
 * (fill), a long word gets break points (\:), or troff could not break the line.
 */
static void add_roff_text(struct strbuf *sb, const char *s, size_t len, int fill)
{
	size_t i, j, word = 0;

	if (len && s[0] == '.')
		strbuf_addstr(sb, "\\&");
	for (i = 0; i < len; i++) {
		if (s[i] == ' ')
			word = i + 1;
		for (j = 0; j < sizeof(escapes) / sizeof(escapes[0]) && escapes[j].c != s[i]; j++)
			;
		if (j < sizeof(escapes) / sizeof(escapes[0]))
			strbuf_addstr(sb, escapes[j].roff);
		else
			strbuf_addch(sb, s[i]);
		if (fill && strchr(",/|", s[i]) && i + 1 < len && s[i + 1] != ' ' &&
		    i + strcspn(s + i, " ") - word >= LONG_WORD)
			strbuf_addstr(sb, "\\:");
	}
}

static void add_roff(struct strbuf *sb, const char *s, size_t len)
{
	add_roff_text(sb, s, len, 0);
}

static void add_roff_line(struct strbuf *sb, const char *s, size_t len)
{
	add_roff(sb, s, len);
	strbuf_addch(sb, '\n');
}

/* A line of filled text (a paragraph, an item's description). */
static void add_fill_line(struct strbuf *sb, const char *s, size_t len)
{
	add_roff_text(sb, s, len, 1);
	strbuf_addch(sb, '\n');
}

enum line_kind {
	LINE_BLANK,
	LINE_USAGE,     /* "usage: ..." (its indented continuation lines follow) */
	LINE_HEADING,   /* "Options:", "Run settings (flag > environment > default):" */
	LINE_PARA,      /* prose at column 0 */
	LINE_NUMBERED,  /* "2. Per op, ...": prose that starts a paragraph of its own */
	LINE_ITEM,      /* "  --out DIR      what it is", "  ZL_HOME   what it is", "  2   what it means" */
	LINE_INDENTED,  /* any other indented line: examples, small tables */
};

struct line {
	const char *s;
	size_t len, indent;
	size_t tag_len;     /* LINE_ITEM: the option words */
	const char *desc;   /* LINE_ITEM: what follows the gap, up to the end of the line */
	enum line_kind kind;
};

/* What may start an item's tag: an option, a variable, a path, an exit code. */
static int item_tag(const char *s)
{
	return *s == '-' || *s == '$' || *s == '~' || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9');
}

static void classify(struct line *l)
{
	const char *gap;

	l->indent = strspn(l->s, " ");
	l->tag_len = 0;
	l->desc = NULL;
	if (l->indent == l->len) {
		l->kind = LINE_BLANK;
	} else if (l->indent == 0) {
		if (!strncmp(l->s, "usage:", 6))
			l->kind = LINE_USAGE;
		else if (l->s[l->len - 1] == ':')
			l->kind = LINE_HEADING;
		else if (l->len > 2 && l->s[0] >= '1' && l->s[0] <= '9' && l->s[1] == '.' && l->s[2] == ' ')
			l->kind = LINE_NUMBERED;
		else
			l->kind = LINE_PARA;
	} else {
		l->kind = LINE_INDENTED;
		gap = item_tag(l->s + l->indent) ? strstr(l->s + l->indent, "  ") : NULL;
		/* an option's tag may hold a blank ("-o, --out DIR"); a variable's, a file's or a code's not */
		if (gap && l->s[l->indent] != '-' && memchr(l->s + l->indent, ' ', (size_t)(gap - l->s - l->indent)))
			gap = NULL;
		if (gap && gap < l->s + l->len) {
			l->kind = LINE_ITEM;
			l->tag_len = (size_t)(gap - (l->s + l->indent));
			l->desc = gap + strspn(gap, " ");
		}
	}
}

static void add_stripped(struct strbuf *page, const struct line *l)
{
	add_fill_line(page, l->s + l->indent, l->len - l->indent);
}

/* text cut into classified lines; the caller frees the array (the lines point into text). */
static struct line *split_lines(const char *text, size_t *nr)
{
	struct line *lines = NULL;
	size_t n = 0, alloc = 0;
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');

		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			lines = xrealloc(lines, alloc * sizeof(*lines));
		}
		lines[n].s = p;
		lines[n].len = nl ? (size_t)(nl - p) : strlen(p);
		classify(&lines[n]);
		n++;
		if (!nl)
			break;
		p = nl + 1;
	}
	*nr = n;
	return lines;
}

/* The block that starts at lines[i] as roff; returns the index after it. */
static size_t add_block(struct strbuf *page, const struct line *lines, size_t n, size_t i)
{
	const struct line *l = &lines[i];

	switch (l->kind) {
	case LINE_BLANK:
		return i + 1;
	case LINE_USAGE:
	case LINE_INDENTED:
		/* kept as laid out: the synopsis' alignment, the examples' commands */
		strbuf_addstr(page, ".PP\n.nf\n");
		do
			add_roff_line(page, lines[i].s, lines[i].len);
		while (++i < n && (lines[i].kind == LINE_INDENTED ||
				   (l->kind == LINE_USAGE && lines[i].kind == LINE_ITEM)));
		strbuf_addstr(page, ".fi\n");
		return i;
	case LINE_HEADING:
		strbuf_addstr(page, ".PP\n\\fB");
		add_roff(page, l->s, l->len);
		strbuf_addstr(page, "\\fR\n");
		return i + 1;
	case LINE_PARA:
	case LINE_NUMBERED:
		strbuf_addstr(page, ".PP\n");
		add_stripped(page, l);
		while (++i < n && (lines[i].kind == LINE_PARA || lines[i].kind == LINE_INDENTED))
			add_stripped(page, &lines[i]);
		return i;
	case LINE_ITEM:
		strbuf_addstr(page, ".TP\n\\fB");
		add_roff(page, l->s + l->indent, l->tag_len);
		strbuf_addstr(page, "\\fR\n");
		add_fill_line(page, l->desc, l->len - (size_t)(l->desc - l->s));
		/* deeper-indented lines continue the description */
		while (++i < n && lines[i].kind == LINE_INDENTED && lines[i].indent > l->indent)
			add_stripped(page, &lines[i]);
		return i;
	}
	return i + 1;
}

void zl_man_add_text(struct strbuf *page, const char *text)
{
	size_t n, i;
	struct line *lines = split_lines(text, &n);

	for (i = 0; i < n; )
		i = add_block(page, lines, n, i);
	free(lines);
}

/* What a help printer prints, as a string. */
static char *capture(void (*print)(FILE *out), const struct zl_command *c, struct strbuf *err)
{
	char *text = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&text, &size);

	if (!mem) {
		zl_error(err, "cannot render the man page: out of memory");
		return NULL;
	}
	if (c)
		zl_print_command_help(c, mem);
	else
		print(mem);
	if (fclose(mem)) {
		free(text);
		zl_error(err, "cannot render the man page: out of memory");
		return NULL;
	}
	return text;
}

/*
 * The main help's first paragraph after the usage block is the page's NAME line,
 * its usage block the SYNOPSIS, the rest (global options, the command list) the
 * DESCRIPTION.
 */
static void add_main(struct strbuf *page, const char *text)
{
	const char *usage_end = strstr(text, "\n\n"), *tag, *tag_end;
	char *part, *q;

	if (!usage_end)
		usage_end = text + strlen(text);
	tag = usage_end + strspn(usage_end, "\n");
	tag_end = strstr(tag, "\n\n");
	if (!tag_end)
		tag_end = tag + strlen(tag);

	strbuf_addstr(page, ".SH NAME\nzlbench \\- ");
	part = xstrndup(tag, (size_t)(tag_end - tag));
	for (q = part; *q; q++)
		if (*q == '\n')
			*q = ' ';
	add_roff_line(page, part, strlen(part));
	free(part);

	strbuf_addstr(page, ".SH SYNOPSIS\n");
	if (!strncmp(text, "usage: ", 7))
		text += 7;
	part = xstrndup(text, (size_t)(usage_end - text));
	zl_man_add_text(page, part);
	free(part);

	strbuf_addstr(page, ".SH DESCRIPTION\n");
	zl_man_add_text(page, tag_end);
}

int zl_man_render(FILE *out, void (*main_usage)(FILE *out), struct strbuf *err)
{
	struct strbuf page = STRBUF_INIT;
	const struct zl_command *const *c;
	const struct zl_help_topic *t;
	char *text;
	int rc = 0;

	strbuf_addstr(&page, ".\\\" zlbench(1), generated by `zlbench help --man` from the text of\n"
		      ".\\\" `zlbench --help` and `zlbench help CMD`: edit those, not this page.\n");
	strbuf_addstr(&page, ".TH ZLBENCH 1 \"\" \"zlbench " ZL_VERSION_STRING "\" \"User Commands\"\n");
	/* no hyphenation and no justification: option names and paths stay whole */
	strbuf_addstr(&page, ".nh\n.ad l\n");
	text = capture(main_usage, NULL, err);
	if (!text)
		goto fail;
	add_main(&page, text);
	free(text);
	strbuf_addstr(&page, ".SH COMMANDS\n");
	for (c = zl_commands(); *c; c++) {
		if ((*c)->flags & ZL_CMD_HIDDEN)
			continue;
		text = capture(NULL, *c, err);
		if (!text)
			goto fail;
		strbuf_addf(&page, ".SS \"zlbench %s\"\n", (*c)->name);
		zl_man_add_text(&page, text);
		free(text);
	}
	for (t = zl_help_topics(); t->name; t++) {
		text = capture(t->print, NULL, err);
		if (!text)
			goto fail;
		strbuf_addf(&page, ".SH \"%s\"\n", t->section);
		zl_man_add_text(&page, text);
		free(text);
	}
	strbuf_addstr(&page, ".SH SEE ALSO\n"
		      "The user manual: README.md and docs/ in zlbench\\(aqs source tree "
		      "(README.md is installed in share/doc/zlbench/).\n");
	if (fwrite(page.buf, 1, page.len, out) != page.len || fflush(out)) {
		zl_error(err, "cannot write the man page: write error");
		rc = -1;
	}
	strbuf_release(&page);
	return rc;
fail:
	strbuf_release(&page);
	return -1;
}
