/* zlbench doctor: reading the FlagGems sources (defs, modules) and comparing shapes. */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "zlbench/doctor.h"
#include "zlbench/resolve.h"
#include "zlbench/fsutil.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

static int is_ident(int c)
{
	return isalnum(c) || c == '_';
}

void zl_doctor_shape_key(const char *shape, struct strbuf *out)
{
	struct strbuf t = STRBUF_INIT;
	size_t i;

	for (; *shape; shape++) {
		unsigned char c = (unsigned char)*shape;

		if (isspace(c))
			continue;
		if (c == '(')
			c = '[';
		else if (c == ')')
			c = ']';
		strbuf_addch(&t, tolower(c));
	}
	/* 4096x4096: an 'x' between digits separates dimensions (never inside 0x1f) */
	for (i = 1; i + 1 < t.len; i++)
		if (t.buf[i] == 'x' && isdigit((unsigned char)t.buf[i - 1]) &&
		    isdigit((unsigned char)t.buf[i + 1]) && !(t.buf[i - 1] == '0' && (i < 2 || !isdigit((unsigned char)t.buf[i - 2]))))
			t.buf[i] = ',';
	/* one outer pair, only when it encloses the whole text: "[1],[2]" keeps its brackets */
	if (t.len >= 2 && t.buf[0] == '[' && t.buf[t.len - 1] == ']') {
		int depth = 0, whole = 1;

		for (i = 0; i < t.len; i++) {
			depth += t.buf[i] == '[' ? 1 : t.buf[i] == ']' ? -1 : 0;
			if (!depth && i + 1 < t.len)
				whole = 0;
		}
		if (whole) {
			strbuf_add(out, t.buf + 1, t.len - 2);
			strbuf_release(&t);
			return;
		}
	}
	strbuf_addbuf(out, &t);
	strbuf_release(&t);
}

/* "def name(" at the start of a (possibly indented) line: the name, else NULL. */
static const char *def_name(const char *line, size_t *len)
{
	const char *p = line, *end;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!strncmp(p, "async ", 6))
		p += 6;
	if (strncmp(p, "def ", 4))
		return NULL;
	p += 4;
	while (*p == ' ')
		p++;
	for (end = p; is_ident((unsigned char)*end); end++)
		;
	if (end == p)
		return NULL;
	*len = (size_t)(end - p);
	return p;
}

/* Call fn for each "def" line of text: (name, len, 1-based line). */
static void each_def(const char *text, void (*fn)(const char *, size_t, size_t, void *), void *data)
{
	const char *line = text;
	size_t lineno = 1;

	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len;
		const char *name = def_name(line, &len);

		if (name)
			fn(name, len, lineno, data);
		if (!nl)
			break;
		line = nl + 1;
		lineno++;
	}
}

static void push_name_once(const char *name, size_t len, size_t lineno, void *data)
{
	struct strvec *names = data;
	char *n = xstrndup(name, len);

	(void)lineno;
	if (strvec_find(names, n) < 0)
		strvec_push(names, n);
	free(n);
}

void zl_doctor_defs_in_file(const char *path, struct strvec *names)
{
	struct strbuf text = STRBUF_INIT;

	if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL))
		each_def(text.buf, push_name_once, names);
	strbuf_release(&text);
}

struct def_hit {
	const char *want;
	const char *rel;
	struct strvec *hits;
};

static void push_hit(const char *name, size_t len, size_t lineno, void *data)
{
	struct def_hit *h = data;

	if (strlen(h->want) == len && !strncmp(name, h->want, len))
		strvec_pushf(h->hits, "%s:%zu", h->rel, lineno);
}

struct find_ctx {
	const char *name;
	struct strvec *hits;
};

static void find_one(const char *path, const char *rel, void *data)
{
	struct find_ctx *c = data;

	if (c->name) {
		struct strbuf text = STRBUF_INIT;
		struct def_hit h = { c->name, rel, c->hits };

		if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL))
			each_def(text.buf, push_hit, &h);
		strbuf_release(&text);
	} else {
		zl_doctor_defs_in_file(path, c->hits);
	}
}

static void find_in(const char *dir, const char *rel, const char *name, struct strvec *hits)
{
	struct find_ctx c = { name, hits };

	zl_walk_python(dir, rel, 0, find_one, &c);
}

void zl_doctor_find_defs(const char *base, const char *dir, const char *name, struct strvec *hits)
{
	size_t blen = strlen(base);
	const char *rel = "";

	/* paths are shown relative to base (the FlagGems root) when dir lies inside it */
	if (!strncmp(dir, base, blen) && (dir[blen] == '/' || !dir[blen]))
		rel = dir[blen] ? dir + blen + 1 : "";
	find_in(dir, rel, name, hits);
}

char *zl_doctor_module_of(const char *relpath)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = relpath;
	size_t i;

	if (zl_starts_with(p, "src/"))
		p += 4;
	strbuf_addstr(&sb, p);
	if (zl_ends_with(sb.buf, "/__init__.py"))
		strbuf_setlen(&sb, sb.len - 12);
	else if (zl_ends_with(sb.buf, ".py"))
		strbuf_setlen(&sb, sb.len - 3);
	for (i = 0; i < sb.len; i++)
		if (sb.buf[i] == '/')
			sb.buf[i] = '.';
	return strbuf_detach(&sb, NULL);
}

int zl_doctor_kernel_of_op(const char *kernel, const char *op, const struct strvec *defs)
{
	size_t n = strlen(op);

	if (!strcmp(kernel, op))
		return 1;
	if (!strncmp(kernel, op, n) && kernel[n] == '_')
		return 1;
	return defs && strvec_find(defs, kernel) >= 0;
}

struct near {
	const char *name;
	size_t len;
};

static int by_length(const void *a, const void *b)
{
	const struct near *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Push the names for which keep(name) holds, shorter first, while out has room. */
static void push_ranked(const char *name, const struct strvec *names, int prefix, size_t max, struct strvec *out)
{
	struct near *c = xcalloc(names->nr + 1, sizeof(*c));
	size_t i, n = 0, len = strlen(name);

	for (i = 0; i < names->nr; i++) {
		const char *cand = names->v[i];
		int hit = prefix ? !strncmp(cand, name, len) : strstr(cand, name) != NULL;

		if (hit && strcmp(cand, name))
			c[n++] = (struct near){ cand, strlen(cand) };
	}
	qsort(c, n, sizeof(*c), by_length);
	for (i = 0; i < n && out->nr < max; i++)
		if (strvec_find(out, c[i].name) < 0)
			strvec_push(out, c[i].name);
	free(c);
}

void zl_doctor_near_names(const char *name, const struct strvec *names, size_t max, struct strvec *out)
{
	struct strvec typos = STRVEC_INIT;
	size_t i;

	/* "mm" is in half of FlagGems' names: a part that short says nothing */
	if (strlen(name) >= 3) {
		push_ranked(name, names, 1, max, out);
		push_ranked(name, names, 0, max, out);
	}
	zl_suggest(name, names, max, &typos);
	for (i = 0; i < typos.nr && out->nr < max; i++)
		if (strvec_find(out, typos.v[i]) < 0)
			strvec_push(out, typos.v[i]);
	strvec_clear(&typos);
}

static void push_test_once(const char *name, size_t len, size_t lineno, void *data)
{
	if (len >= 4 && !strncmp(name, "test", 4))
		push_name_once(name, len, lineno, data);
}

void zl_doctor_tests_in_file(const char *path, struct strvec *names)
{
	struct strbuf text = STRBUF_INIT;

	if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL))
		each_def(text.buf, push_test_once, names);
	strbuf_release(&text);
}
