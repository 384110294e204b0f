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

static int is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static const char *skip_ident(const char *p)
{
	while (is_ident((unsigned char)*p))
		p++;
	return p;
}

/* Past the string literal whose opening quote is at p (an unterminated one-line string ends at its line). */
static const char *skip_string(const char *p)
{
	char q = *p;
	int triple = p[1] == q && p[2] == q;

	p += triple ? 3 : 1;
	while (*p) {
		if (*p == '\\' && p[1]) {
			p += 2;
			continue;
		}
		if (*p == q && (!triple || (p[1] == q && p[2] == q)))
			return p + (triple ? 3 : 1);
		if (*p == '\n' && !triple)
			return p;
		p++;
	}
	return p;
}

static int builtin_mark(const char *name, size_t len)
{
	const char *const *b;

	for (b = builtin_marks; *b; b++)
		if (strlen(*b) == len && !strncmp(*b, name, len))
			return 1;
	return 0;
}

/* Is the len bytes of name among marks[first..]? */
static int added(const struct strvec *marks, size_t first, const char *name, size_t len)
{
	size_t i;

	for (i = first; i < marks->nr; i++)
		if (!strncmp(marks->v[i], name, len) && !marks->v[i][len])
			return 1;
	return 0;
}

static void strvec_push_n(struct strvec *sv, const char *s, size_t len)
{
	char *word = xstrndup(s, len);

	strvec_push(sv, word);
	free(word);
}

/*
 * The one reader of marks. Python code, not text: comments and string literals are
 * skipped (FlagGems' test__reshape_alias.py names @pytest.mark._reshape_alias in a
 * comment), and "pytest" must be a name of its own ("from _pytest.mark.structures"
 * is no mark "structures").
 */
void zl_marks_in_source(const char *text, struct strvec *marks)
{
	static const char needle[] = "pytest.mark.";
	const char *p = text, *hit = strstr(text, needle);
	size_t first = marks->nr;   /* each once among what this call adds */

	/* strstr finds the candidates; only comments and strings between them need walking */
	while (hit) {
		const char *q = p + strcspn(p, "#\"'");

		if (hit < q) {
			const char *name = hit + sizeof(needle) - 1, *end = skip_ident(name);

			p = end;
			if ((hit == text || (!is_ident((unsigned char)hit[-1]) && hit[-1] != '.')) &&
			    is_ident_start((unsigned char)*name) && !builtin_mark(name, (size_t)(end - name)) &&
			    !added(marks, first, name, (size_t)(end - name)))
				strvec_push_n(marks, name, (size_t)(end - name));
			hit = strstr(p, needle);
			continue;
		}
		if (!*q)
			break;
		p = *q == '#' ? strchrnul(q, '\n') : skip_string(q);
		if (hit < p)
			hit = strstr(p, needle);
	}
}

/* The marks of one file, in order; none when it cannot be read. */
static void file_marks(const char *path, struct strbuf *buf, struct strvec *marks)
{
	strbuf_reset(buf);
	if (!zl_read_file(buf, path, NULL, ZL_CAP_DOC, NULL))
		zl_marks_in_source(buf->buf, marks);
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

/* ---- the mark index --------------------------------------------------------------- */

struct mark_hit {
	const char *name, *file;
};

struct marks_walk {
	struct strvec names;          /* every mark of every file, in walk order */
	struct strvec files;          /* every file read, in walk order */
	size_t *file_of;              /* file_of[i]: the index in files of names[i]'s file */
	size_t alloc;
	struct strbuf buf;
};

static void marks_one(const char *path, const char *rel, void *data)
{
	struct marks_walk *w = data;
	size_t first = w->names.nr;

	strvec_push(&w->files, rel);
	file_marks(path, &w->buf, &w->names);
	if (w->names.nr > w->alloc) {
		w->alloc = w->names.nr * 2;
		w->file_of = xrealloc(w->file_of, w->alloc * sizeof(*w->file_of));
	}
	while (first < w->names.nr)
		w->file_of[first++] = w->files.nr - 1;
}

static int by_name_then_file(const void *a, const void *b)
{
	const struct mark_hit *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->file, y->file);
}

/* The walk's hits as the index: of every mark, or only of the mark named only. */
static void build_index(const struct marks_walk *w, const char *only, struct zl_marks *out)
{
	struct mark_hit *hits = xcalloc(w->names.nr + 1, sizeof(*hits));
	size_t i, n = 0;

	for (i = 0; i < w->names.nr; i++)
		if (!only || !strcmp(w->names.v[i], only))
			hits[n++] = (struct mark_hit){ w->names.v[i], w->files.v[w->file_of[i]] };
	qsort(hits, n, sizeof(*hits), by_name_then_file);
	for (i = 0; i < n; i++) {
		struct zl_mark *m = out->nr ? &out->v[out->nr - 1] : NULL;

		if (!m || strcmp(m->name, hits[i].name)) {
			if (out->nr == out->alloc) {
				out->alloc = out->alloc ? out->alloc * 2 : 256;
				out->v = xrealloc(out->v, out->alloc * sizeof(*out->v));
			}
			m = &out->v[out->nr++];
			m->name = xstrdup(hits[i].name);
			strvec_init(&m->files);
		}
		/* a file lists a mark once (zl_marks_in_source), and the walk visits a file once */
		strvec_push(&m->files, hits[i].file);
	}
	out->files_scanned = w->files.nr;
	free(hits);
}

/*
 * One walk. With only, the index holds that mark alone when a file carries it (resolving
 * one op needs no more: nothing to sort or copy), else every mark, for the refusal's
 * suggestions, from the same walk.
 */
static void marks_scan(const char *flaggems_dir, const char *only, struct zl_marks *out)
{
	struct marks_walk w = { STRVEC_INIT, STRVEC_INIT, NULL, 0, STRBUF_INIT };
	char *bench = zl_path_join(flaggems_dir, "benchmark");

	zl_marks_release(out);
	walk_tests(bench, "benchmark", marks_one, &w);
	free(bench);
	if (only)
		build_index(&w, only, out);
	if (!out->nr)
		build_index(&w, NULL, out);
	free(w.file_of);
	strvec_clear(&w.names);
	strvec_clear(&w.files);
	strbuf_release(&w.buf);
}

void zl_marks_scan(const char *flaggems_dir, struct zl_marks *out)
{
	marks_scan(flaggems_dir, NULL, out);
}

static int mark_by_name(const void *key, const void *elem)
{
	return strcmp(key, ((const struct zl_mark *)elem)->name);
}

const struct zl_mark *zl_marks_find(const struct zl_marks *m, const char *name)
{
	if (!m->nr)
		return NULL;
	return bsearch(name, m->v, m->nr, sizeof(*m->v), mark_by_name);
}

void zl_marks_release(struct zl_marks *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		free(m->v[i].name);
		strvec_clear(&m->v[i].files);
	}
	free(m->v);
	m->v = NULL;
	m->nr = m->alloc = m->files_scanned = 0;
}

void zl_list_ops(const char *flaggems_dir, struct strvec *ops)
{
	struct zl_marks marks = ZL_MARKS_INIT;
	size_t i;

	zl_marks_scan(flaggems_dir, &marks);
	for (i = 0; i < marks.nr; i++)
		if (strvec_find(ops, marks.v[i].name) < 0)
			strvec_push(ops, marks.v[i].name);
	zl_marks_release(&marks);
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

/* The file's name without "test_" and ".py". */
static char *file_stem(const char *rel)
{
	const char *base = strrchr(rel, '/');

	base = base ? base + 1 : rel;
	if (zl_starts_with(base, "test_"))
		base += 5;
	return xstrndup(base, strlen(base) - (zl_ends_with(base, ".py") ? 3 : 0));
}

/* The benchmark file whose name is closest to op (zl_suggest's rule), or NULL. */
static const char *nearest_by_name(const struct zl_marks *idx, const char *op)
{
	struct strvec stems = STRVEC_INIT, near = STRVEC_INIT;
	const char *best = NULL;
	size_t i, j;

	for (i = 0; i < idx->nr; i++)
		for (j = 0; j < idx->v[i].files.nr; j++) {
			char *stem = file_stem(idx->v[i].files.v[j]);

			if (strvec_find(&stems, stem) < 0)
				strvec_push(&stems, stem);
			free(stem);
		}
	zl_suggest(op, &stems, 1, &near);
	for (i = 0; near.nr && !best && i < idx->nr; i++)
		for (j = 0; !best && j < idx->v[i].files.nr; j++) {
			char *stem = file_stem(idx->v[i].files.v[j]);

			if (!strcmp(stem, near.v[0]))
				best = idx->v[i].files.v[j];
			free(stem);
		}
	strvec_clear(&stems);
	strvec_clear(&near);
	return best;
}

/*
 * The file to show for an op no benchmark carries: the first file of the closest mark
 * (div_tensr -> div_tensor's benchmark/test_div.py), else the file whose name is closest.
 */
static const char *nearest_file(const struct zl_marks *idx, const char *op, const struct strvec *suggestions)
{
	const struct zl_mark *m = suggestions->nr ? zl_marks_find(idx, suggestions->v[0]) : NULL;

	return m && m->files.nr ? m->files.v[0] : nearest_by_name(idx, op);
}

static int by_length_then_name(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t lx = strlen(x), ly = strlen(y);

	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

/*
 * Did you mean: the marks that extend op by a word ("div" -> div_out, div_tensor), shorter
 * first, then the closest by edit distance (zl_suggest); at most max.
 */
static void suggest_marks(const struct zl_marks *idx, const char *op, size_t max, struct strvec *out)
{
	struct strvec names = STRVEC_INIT, typos = STRVEC_INIT;
	const char **longer = xcalloc(idx->nr + 1, sizeof(*longer));
	size_t i, n = 0, len = strlen(op);

	for (i = 0; i < idx->nr; i++) {
		const char *name = idx->v[i].name;

		strvec_push(&names, name);
		if (!strncmp(name, op, len) && name[len] == '_')
			longer[n++] = name;
	}
	qsort(longer, n, sizeof(*longer), by_length_then_name);
	for (i = 0; i < n && out->nr < max; i++)
		strvec_push(out, longer[i]);
	zl_suggest(op, &names, max, &typos);
	for (i = 0; i < typos.nr && out->nr < max; i++)
		if (strvec_find(out, typos.v[i]) < 0)
			strvec_push(out, typos.v[i]);
	free(longer);
	strvec_clear(&names);
	strvec_clear(&typos);
}

/* At most this many of a file's marks are listed in a refusal. */
#define MAX_FILE_MARKS 12

static void add_list(struct strbuf *sb, const struct strvec *names, size_t max)
{
	size_t i;

	for (i = 0; i < names->nr && i < max; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", names->v[i]);
	if (names->nr > max)
		strbuf_addf(sb, " and %zu more", names->nr - max);
}

/*
 * No benchmark carries op: the refusal names the nearest file (benchmark/test_<op>.py when
 * it exists) with its marks and how to run it whole, and the marks whose names are close.
 */
static enum zl_resolve_fail no_match(const char *flaggems_dir, const struct zl_marks *idx, const char *op,
				     const char *from, struct strbuf *note, struct zl_nodes *out, struct strbuf *err)
{
	char *own = xstrfmt("benchmark/test_%s.py", op), *own_path = zl_path_join(flaggems_dir, own);
	const char *near;
	struct strvec near_marks = STRVEC_INIT;
	struct strbuf buf = STRBUF_INIT;

	suggest_marks(idx, op, 5, &out->suggestions);
	near = zl_is_file(own_path) ? own : nearest_file(idx, op, &out->suggestions);
	if (near) {
		char *path = zl_path_join(flaggems_dir, near);

		file_marks(path, &buf, &near_marks);
		free(path);
	}
	zl_error(err, "no benchmark for operator '%s'%s: ", op, from_note(note, from));
	if (near == own) {
		strbuf_addf(err, "%s has no mark '%s' (its marks: ", own, op);
		if (near_marks.nr)
			add_list(err, &near_marks, MAX_FILE_MARKS);
		else
			strbuf_addstr(err, "none");
		strbuf_addstr(err, ")");
	} else {
		strbuf_addf(err, "no %s", own);
	}
	strbuf_addf(err, " and no file carries @pytest.mark.%s (%zu files scanned)", op, idx->files_scanned);
	if (out->suggestions.nr) {
		strbuf_addstr(err, "; did you mean: ");
		add_list(err, &out->suggestions, out->suggestions.nr);
	}
	if (near && near != own && near_marks.nr) {
		strbuf_addf(err, "; the nearest file, %s, has marks ", near);
		add_list(err, &near_marks, MAX_FILE_MARKS);
	}
	if (near)
		strbuf_addf(err, "; to run the whole file: --op-file %s", near);
	strvec_clear(&near_marks);
	strbuf_release(&buf);
	free(own);
	free(own_path);
	return ZL_RESOLVE_NO_MATCH;
}

/* OP in the index: its own file when that carries it, else every file that does. */
static enum zl_resolve_fail resolve_in(const char *flaggems_dir, const struct zl_marks *idx, const char *op,
				       const char *from, struct strbuf *note, struct zl_nodes *out, struct strbuf *err)
{
	const struct zl_mark *m = zl_marks_find(idx, op);
	char *own = xstrfmt("benchmark/test_%s.py", op);
	size_t i;

	out->scanned = idx->files_scanned;
	if (!m) {
		out->how = "marker scan";
		free(own);
		return no_match(flaggems_dir, idx, op, from, note, out, err);
	}
	if (strvec_find(&m->files, own) >= 0) {
		out->how = "file";
		strvec_push(&out->nodes, own);
	} else {
		out->how = "marker scan";
		for (i = 0; i < m->files.nr; i++)
			strvec_push(&out->nodes, m->files.v[i]);
	}
	out->marker = xstrdup(op);
	free(own);
	return ZL_RESOLVE_OK;
}

enum zl_resolve_fail zl_resolve_op_in(const char *flaggems_dir, const struct zl_marks *idx, const char *op,
				      struct zl_nodes *out, struct strbuf *err)
{
	struct strbuf note = STRBUF_INIT;
	enum zl_resolve_fail rc;

	if (!zl_op_name_valid(op)) {
		zl_error(err, "invalid operator name '%s': use letters, digits and '_' only", op);
		return ZL_RESOLVE_BAD_NAME;
	}
	free(out->op);
	out->op = xstrdup(op);
	rc = resolve_in(flaggems_dir, idx, op, NULL, &note, out, err);
	strbuf_release(&note);
	return rc;
}

/*
 * OP: benchmark/test_<op>.py when it carries the mark (one file read), else the whole
 * index, the same rule as zl_resolve_op_in.
 */
static enum zl_resolve_fail resolve_op(const char *flaggems_dir, const char *op, const char *from,
				       struct strbuf *note, struct zl_nodes *out, struct strbuf *err)
{
	char *rel = xstrfmt("benchmark/test_%s.py", op);
	char *path = zl_path_join(flaggems_dir, rel);
	struct zl_marks idx = ZL_MARKS_INIT;
	struct strvec marks = STRVEC_INIT;
	struct strbuf buf = STRBUF_INIT;
	enum zl_resolve_fail rc;

	if (zl_is_file(path))
		file_marks(path, &buf, &marks);
	strbuf_release(&buf);
	free(path);
	if (strvec_find(&marks, op) >= 0) {
		out->how = "file";
		strvec_push(&out->nodes, rel);
		out->marker = xstrdup(op);
		rc = ZL_RESOLVE_OK;
	} else {
		/* the files of this mark; every mark when none carries it, to refuse it with suggestions */
		marks_scan(flaggems_dir, op, &idx);
		rc = resolve_in(flaggems_dir, &idx, op, from, note, out, err);
		zl_marks_release(&idx);
	}
	strvec_clear(&marks);
	free(rel);
	return rc;
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
