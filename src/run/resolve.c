#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/resolve.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* pytest's own marks are not operators */
static const char *const builtin_marks[] = {
	"parametrize", "skip", "skipif", "xfail", "usefixtures", "filterwarnings", "timeout",
	"tryfirst", "trylast", NULL
};

void zl_nodes_release(struct zl_nodes *n)
{
	strvec_clear(&n->nodes);
	strvec_clear(&n->suggestions);
	free(n->marker);
	free(n->op);
	n->marker = n->op = NULL;
	n->how = NULL;
	n->scanned = 0;
}

int zl_op_name_valid(const char *op)
{
	const char *p;

	if (!op || !*op)
		return 0;
	for (p = op; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return 0;
	return 1;
}

static int is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/* Does text carry the marker pytest.mark.<op> with a word boundary after it? */
static int has_marker(const char *text, const char *op)
{
	static const char needle[] = "pytest.mark.";
	size_t oplen = strlen(op);
	const char *p = text;

	while ((p = strstr(p, needle))) {
		const char *name = p + sizeof(needle) - 1;

		if (!strncmp(name, op, oplen) && !is_ident((unsigned char)name[oplen]))
			return 1;
		p = name;
	}
	return 0;
}

/* Collect the op names a file's markers declare. */
static void collect_markers(const char *text, struct strvec *ops)
{
	static const char needle[] = "pytest.mark.";
	const char *p = text;

	while ((p = strstr(p, needle))) {
		const char *name = p + sizeof(needle) - 1, *end = name;
		const char *const *b;
		char *word;
		int builtin = 0;

		while (is_ident((unsigned char)*end))
			end++;
		p = end;
		if (end == name)
			continue;
		word = xstrndup(name, (size_t)(end - name));
		for (b = builtin_marks; *b; b++)
			if (!strcmp(*b, word))
				builtin = 1;
		if (!builtin && strvec_find(ops, word) < 0)
			strvec_push(ops, word);
		free(word);
	}
}

/* Walk dir recursively (sorted, so results are stable), calling fn for test_*.py files. */
static void walk_tests(const char *dir, const char *rel, zl_walk_fn fn, void *data)
{
	zl_walk_python(dir, rel, 1, fn, data);
}

/* Where a walk has been: directories and files by (st_dev, st_ino), the identity of their real path. */
struct walk_seen {
	struct walk_id { dev_t dev; ino_t ino; } *ids;
	size_t nr, alloc;
	int links;                /* a symlink was followed: from now on a path may repeat */
};

static int walk_seen_add(struct walk_seen *w, const struct stat *st)
{
	size_t i;

	if (w->links)
		for (i = 0; i < w->nr; i++)
			if (w->ids[i].dev == st->st_dev && w->ids[i].ino == st->st_ino)
				return 0;
	if (w->nr == w->alloc) {
		w->alloc = w->alloc ? w->alloc * 2 : 64;
		w->ids = xrealloc(w->ids, w->alloc * sizeof(*w->ids));
	}
	w->ids[w->nr++] = (struct walk_id){ st->st_dev, st->st_ino };
	return 1;
}

/*
 * Like pytest, symlinked directories are followed; unlike it, each directory and file is
 * visited once (a link to an ancestor is a loop that would repeat every file ~40 times).
 * Within a directory, plain entries come before symlinks, so a file reachable both ways
 * is reported under its own path.
 */
static void walk_dir(const char *dir, const char *rel, int tests_only, zl_walk_fn fn, void *data,
		     struct walk_seen *seen)
{
	struct dirent **names;
	int n, i, pass;

	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++) {
			const char *name = names[i]->d_name;
			char *path, *relpath;
			struct stat lst, st;
			int link;

			if (name[0] == '.' || !strcmp(name, "__pycache__"))
				continue;
			path = zl_path_join(dir, name);
			if (lstat(path, &lst)) {
				free(path);
				continue;
			}
			link = S_ISLNK(lst.st_mode);
			st = lst;
			if (link != pass || (link && stat(path, &st))) {
				free(path);
				continue;
			}
			if (link)
				seen->links = 1;
			relpath = *rel ? zl_path_join(rel, name) : xstrdup(name);
			if (S_ISDIR(st.st_mode)) {
				if (walk_seen_add(seen, &st))
					walk_dir(path, relpath, tests_only, fn, data, seen);
			} else if (S_ISREG(st.st_mode) && zl_ends_with(name, ".py") &&
				   (!tests_only || zl_starts_with(name, "test_")) && walk_seen_add(seen, &st)) {
				fn(path, relpath, data);
			}
			free(path);
			free(relpath);
		}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

void zl_walk_python(const char *dir, const char *rel, int tests_only, zl_walk_fn fn, void *data)
{
	struct walk_seen seen = { NULL, 0, 0, 0 };
	struct stat st;

	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return;
	walk_seen_add(&seen, &st);
	walk_dir(dir, rel, tests_only, fn, data, &seen);
	free(seen.ids);
}

struct scan_ctx {
	const char *op;
	struct strvec *hits;
	size_t scanned;
	struct strbuf buf;
};

static void scan_one(const char *path, const char *rel, void *data)
{
	struct scan_ctx *c = data;

	strbuf_reset(&c->buf);
	c->scanned++;
	if (zl_read_file(&c->buf, path, NULL, ZL_CAP_DOC, NULL))
		return;
	if (has_marker(c->buf.buf, c->op))
		strvec_push(c->hits, rel);
}

struct list_ctx {
	struct strvec *ops;
	struct strbuf buf;
};

static void list_one(const char *path, const char *rel, void *data)
{
	struct list_ctx *c = data;
	const char *base = strrchr(rel, '/');
	char *name;

	base = base ? base + 1 : rel;
	name = xstrndup(base + 5, strlen(base) - 5 - 3); /* test_<name>.py */
	if (*name && strvec_find(c->ops, name) < 0)
		strvec_push(c->ops, name);
	free(name);
	strbuf_reset(&c->buf);
	if (!zl_read_file(&c->buf, path, NULL, ZL_CAP_DOC, NULL))
		collect_markers(c->buf.buf, c->ops);
}

void zl_list_ops(const char *flaggems_dir, struct strvec *ops)
{
	struct list_ctx c = { ops, STRBUF_INIT };
	char *bench = zl_path_join(flaggems_dir, "benchmark");

	walk_tests(bench, "benchmark", list_one, &c);
	strbuf_release(&c.buf);
	free(bench);
}

/* The file half of a node "path/file.py::Class::test" */
static char *node_file(const char *node)
{
	const char *sep = strstr(node, "::");
	return sep ? xstrndup(node, (size_t)(sep - node)) : xstrdup(node);
}

/* " (from TEST_NODE)", or "" when the source is not known; the text lives in sb */
static const char *from_note(struct strbuf *sb, const char *from)
{
	strbuf_reset(sb);
	if (from)
		strbuf_addf(sb, " (from %s)", from);
	return sb->buf;
}

/* TEST_NODE: its file (or directory) must be under the FlagGems root. */
static enum zl_resolve_fail resolve_test_node(const char *flaggems_dir, const char *test_node, const char *from,
					      struct strbuf *note, struct zl_nodes *out, struct strbuf *err)
{
	char *file = node_file(test_node);
	char *path = zl_path_join(flaggems_dir, file);
	enum zl_resolve_fail rc = ZL_RESOLVE_OK;

	out->how = "test node";
	if (zl_is_file(path) || zl_is_dir(path)) {
		strvec_push(&out->nodes, test_node);
	} else {
		zl_error(err, "test node file '%s'%s not found under '%s'", file, from_note(note, from), flaggems_dir);
		rc = ZL_RESOLVE_BAD_FILE;
	}
	free(file);
	free(path);
	return rc;
}

/* OP_FILE: the file, narrowed to the operator's marker when one is named. */
static enum zl_resolve_fail resolve_op_file(const char *flaggems_dir, const char *op_file, const char *op,
					    const char *from, struct strbuf *note, struct zl_nodes *out,
					    struct strbuf *err)
{
	char *path = zl_path_join(flaggems_dir, op_file);
	int found = zl_is_file(path);

	free(path);
	out->how = "op file";
	if (!found) {
		zl_error(err, "operator file '%s'%s not found under '%s'", op_file, from_note(note, from), flaggems_dir);
		return ZL_RESOLVE_BAD_FILE;
	}
	strvec_push(&out->nodes, op_file);
	if (op)
		out->marker = xstrdup(op);
	return ZL_RESOLVE_OK;
}

/* No benchmark for op: the error, with the operators whose names are close. */
static enum zl_resolve_fail no_match(const char *flaggems_dir, const char *op, const char *from, size_t scanned,
				     struct strbuf *note, struct zl_nodes *out, struct strbuf *err)
{
	struct strvec ops = STRVEC_INIT;
	size_t i;

	zl_list_ops(flaggems_dir, &ops);
	zl_suggest(op, &ops, 5, &out->suggestions);
	strvec_clear(&ops);
	zl_error(err, "no benchmark for operator '%s'%s: no benchmark/test_%s.py and no file with @pytest.mark.%s (%zu files scanned)",
		 op, from_note(note, from), op, op, scanned);
	if (out->suggestions.nr) {
		strbuf_addstr(err, "; did you mean: ");
		for (i = 0; i < out->suggestions.nr; i++)
			strbuf_addf(err, "%s%s", i ? ", " : "", out->suggestions.v[i]);
	}
	return ZL_RESOLVE_NO_MATCH;
}

/* OP: benchmark/test_<op>.py, else every benchmark file that marks a test with it. */
static enum zl_resolve_fail resolve_op(const char *flaggems_dir, const char *op, const char *from,
				       struct strbuf *note, struct zl_nodes *out, struct strbuf *err)
{
	char *rel = xstrfmt("benchmark/test_%s.py", op);
	char *path = zl_path_join(flaggems_dir, rel);
	struct scan_ctx c = { op, &out->nodes, 0, STRBUF_INIT };
	char *bench;
	int own_file = zl_is_file(path);

	free(path);
	if (own_file) {
		out->how = "file";
		strvec_push(&out->nodes, rel);
		out->marker = xstrdup(op);
		free(rel);
		return ZL_RESOLVE_OK;
	}
	free(rel);
	bench = zl_path_join(flaggems_dir, "benchmark");
	walk_tests(bench, "benchmark", scan_one, &c);
	free(bench);
	strbuf_release(&c.buf);
	out->how = "marker scan";
	out->scanned = c.scanned;
	if (!out->nodes.nr)
		return no_match(flaggems_dir, op, from, c.scanned, note, out, err);
	out->marker = xstrdup(op);
	return ZL_RESOLVE_OK;
}

/* TEST_NODE wins over OP_FILE, which wins over OP alone. */
static enum zl_resolve_fail resolve(const char *flaggems_dir, const char *test_node,
				    const char *op, const char *op_file,
				    const struct zl_node_sources *from, struct strbuf *note,
				    struct zl_nodes *out, struct strbuf *err)
{
	if (op && !zl_op_name_valid(op)) {
		zl_error(err, "invalid operator name '%s'%s: use letters, digits and '_' only", op,
			 from_note(note, from ? from->op : NULL));
		return ZL_RESOLVE_BAD_NAME;
	}
	if (op)
		out->op = xstrdup(op);
	if (test_node)
		return resolve_test_node(flaggems_dir, test_node, from ? from->test_node : NULL, note, out, err);
	if (op_file)
		return resolve_op_file(flaggems_dir, op_file, op, from ? from->op_file : NULL, note, out, err);
	if (!op) {
		zl_error(err, "nothing to run: give --op, --op-file or --test-node (or OP, OP_FILE, TEST_NODE)");
		return ZL_RESOLVE_NOTHING;
	}
	return resolve_op(flaggems_dir, op, from ? from->op : NULL, note, out, err);
}

enum zl_resolve_fail zl_resolve_nodes(const char *flaggems_dir, const char *test_node,
				      const char *op, const char *op_file,
				      struct zl_nodes *out, struct strbuf *err)
{
	return zl_resolve_nodes_from(flaggems_dir, test_node, op, op_file, NULL, out, err);
}

enum zl_resolve_fail zl_resolve_nodes_from(const char *flaggems_dir, const char *test_node,
					   const char *op, const char *op_file,
					   const struct zl_node_sources *from,
					   struct zl_nodes *out, struct strbuf *err)
{
	struct strbuf note = STRBUF_INIT;
	enum zl_resolve_fail rc = resolve(flaggems_dir, test_node, op, op_file, from, &note, out, err);

	strbuf_release(&note);
	return rc;
}

/* Append the last dotted component of [p, end) as a new string. */
static void push_range(struct strvec *sv, const char *p, const char *end)
{
	char *w = xstrndup(p, (size_t)(end - p));
	strvec_push(sv, w);
	free(w);
}

static const char *skip_ident(const char *p)
{
	while (is_ident((unsigned char)*p))
		p++;
	return p;
}

/* benchmark/base.py and the nodes' files, one after the other (a file that cannot be read is left out). */
static void read_benchmark_sources(const char *flaggems_dir, const struct zl_nodes *nodes, struct strbuf *text)
{
	char *base = zl_path_join(flaggems_dir, "benchmark/base.py");
	size_t i;

	if (zl_read_file(text, base, NULL, ZL_CAP_DOC, NULL))
		strbuf_reset(text);
	free(base);
	for (i = 0; i < nodes->nodes.nr; i++) {
		char *rel = node_file(nodes->nodes.v[i]);
		char *path = zl_path_join(flaggems_dir, rel);

		strbuf_addch(text, '\n');
		if (zl_read_file(text, path, NULL, ZL_CAP_DOC, NULL))
			strbuf_addch(text, '\n');
		free(rel);
		free(path);
	}
}

/* Every "class A(mod.B" of text as the pair A, B. */
static void class_parents(const char *text, struct strvec *pairs)
{
	const char *p;

	for (p = text; (p = strstr(p, "class ")); ) {
		const char *name = p + 6, *name_end = skip_ident(name), *par, *par_end, *last;

		p = name_end;
		if (name_end == name || *name_end != '(')
			continue;
		par = last = name_end + 1;
		for (par_end = par; is_ident((unsigned char)*par_end) || *par_end == '.'; par_end++)
			if (*par_end == '.')
				last = par_end + 1;
		push_range(pairs, name, name_end);
		push_range(pairs, last, par_end);
	}
}

void zl_benchmark_classes(const char *flaggems_dir, const struct zl_nodes *nodes, struct strvec *out)
{
	struct strbuf text = STRBUF_INIT;
	struct strvec pairs = STRVEC_INIT; /* child, parent, child, parent, ... */
	const char *p;
	size_t j;

	read_benchmark_sources(flaggems_dir, nodes, &text);
	class_parents(text.buf, &pairs);
	/* "XxxBenchmark(" calls, in order, each followed by its parents */
	for (p = text.buf; (p = strstr(p, "Benchmark(")); p += 10) {
		const char *s = p;
		char *name;

		while (s > text.buf && is_ident((unsigned char)s[-1]))
			s--;
		if (s - text.buf >= 6 && !strncmp(s - 6, "class ", 6))
			continue;
		name = xstrndup(s, (size_t)(p - s) + 9);
		while (name && strvec_find(out, name) < 0) {
			const char *parent = NULL;

			strvec_push(out, name);
			for (j = 0; j + 1 < pairs.nr; j += 2)
				if (!strcmp(pairs.v[j], name))
					parent = pairs.v[j + 1];
			free(name);
			name = parent && *parent ? xstrdup(parent) : NULL;
		}
		free(name);
	}
	strvec_clear(&pairs);
	strbuf_release(&text);
}
