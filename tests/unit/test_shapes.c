#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "zlbench/child.h"
#include "zlbench/fsutil.h"
#include "zlbench/sha256.h"
#include "zlbench/shapes.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"

static char *fixture_path(const char *rel)
{
	const char *fixtures = getenv("ZL_FIXTURES_DIR");

	assert_non_null(fixtures);
	return xstrfmt("%s/%s", fixtures, rel);
}

static struct zl_shapes_doc *parse_ok(const char *text)
{
	struct zl_shapes_doc *doc = NULL;
	struct strbuf err = STRBUF_INIT;

	if (zl_shapes_parse(text, strlen(text), "test.yaml", &doc, &err))
		fail_msg("parse failed: %s", err.buf);
	strbuf_release(&err);
	return doc;
}

static void parse_fails(const char *text, const char *want)
{
	struct zl_shapes_doc *doc = NULL;
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(zl_shapes_parse(text, strlen(text), "bad.yaml", &doc, &err), -1);
	assert_null(doc);
	if (!strstr(err.buf, want) || !strstr(err.buf, "bad.yaml"))
		fail_msg("error '%s' lacks '%s' or the file name", err.buf, want);
	strbuf_release(&err);
}

static char *flow(const struct zl_yaml *n)
{
	struct strbuf sb = STRBUF_INIT;

	zl_yaml_flow(&sb, n);
	return strbuf_detach(&sb, NULL);
}

static void assert_flow(const struct zl_yaml *n, const char *want)
{
	char *got = flow(n);

	assert_string_equal(got, want);
	free(got);
}

/* ---- a canonical rendering shared with PyYAML, to compare whole files ---- */

static const char *const yaml11_true[] = { "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", NULL };
static const char *const yaml11_false[] = { "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", NULL };
static const char *const yaml11_null[] = { "", "~", "null", "Null", "NULL", NULL };

static int in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return 1;
	return 0;
}

static void canon_str(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '"');
}

/* JSON as Python's json.dumps(separators=(",", ":")) writes the value PyYAML resolves. */
static void canon(struct strbuf *sb, const struct zl_yaml *n)
{
	long v;
	size_t i;

	switch (n->kind) {
	case ZL_YAML_SCALAR:
		if (!zl_yaml_to_long(n, &v))
			strbuf_addf(sb, "%ld", v);
		else if (n->style == ZL_YAML_PLAIN && in_list(n->scalar, yaml11_true))
			strbuf_addstr(sb, "true");
		else if (n->style == ZL_YAML_PLAIN && in_list(n->scalar, yaml11_false))
			strbuf_addstr(sb, "false");
		else if (n->style == ZL_YAML_PLAIN && in_list(n->scalar, yaml11_null))
			strbuf_addstr(sb, "null");
		else
			canon_str(sb, n->scalar);
		return;
	case ZL_YAML_SEQ:
		strbuf_addch(sb, '[');
		for (i = 0; i < n->nr; i++) {
			if (i)
				strbuf_addch(sb, ',');
			canon(sb, n->items[i]);
		}
		strbuf_addch(sb, ']');
		return;
	case ZL_YAML_MAP:
		strbuf_addch(sb, '{');
		for (i = 0; i < n->nr; i++) {
			if (i)
				strbuf_addch(sb, ',');
			canon_str(sb, n->keys[i]);
			strbuf_addch(sb, ':');
			canon(sb, n->items[i]);
		}
		strbuf_addch(sb, '}');
		return;
	}
}

static void canon_doc(struct strbuf *sb, const struct zl_shapes_doc *doc)
{
	size_t i;

	for (i = 0; i < doc->root->nr; i++) {
		strbuf_addstr(sb, doc->root->keys[i]);
		strbuf_addch(sb, '=');
		canon(sb, doc->root->items[i]);
		strbuf_addch(sb, '\n');
	}
}

static const char *test_python(void)
{
	const char *py = getenv("ZL_TEST_PYTHON");

	return py && *py ? py : "/usr/bin/python3";
}

/* The same rendering from PyYAML's yaml.safe_load, which is what FlagGems uses. 0, or -1 to skip. */
static int pyyaml_canon(const char *path, struct strbuf *out)
{
	static const char script[] =
		"import json, sys, yaml\n"
		"d = yaml.safe_load(open(sys.argv[1]))\n"
		"for k, v in d.items():\n"
		"    sys.stdout.write('%s=%s\\n' % (k, json.dumps(v, separators=(',', ':'), ensure_ascii=False)))\n";
	const char *argv[] = { test_python(), "-c", script, path, NULL };
	struct strbuf err = STRBUF_INIT;
	int code = -1;

	if (access(argv[0], X_OK))
		return -1;
	if (zl_capture(argv, NULL, 60, out, &code, &err))
		fail_msg("cannot run %s: %s", argv[0], err.buf);
	if (code)
		fail_msg("pyyaml failed on %s: %s", path, out->buf);
	strbuf_release(&err);
	return 0;
}

static void assert_same_as_pyyaml(const char *path)
{
	struct zl_shapes_doc *doc = NULL;
	struct strbuf err = STRBUF_INIT, mine = STRBUF_INIT, theirs = STRBUF_INIT;

	if (zl_shapes_load(path, &doc, &err))
		fail_msg("load failed: %s", err.buf);
	canon_doc(&mine, doc);
	if (pyyaml_canon(path, &theirs)) {
		zl_shapes_free(doc);
		skip();
	}
	assert_true(mine.len > 100);
	assert_string_equal(mine.buf, theirs.buf);
	zl_shapes_free(doc);
	strbuf_release(&err);
	strbuf_release(&mine);
	strbuf_release(&theirs);
}

/* ---- the real files ---- */

static void test_core_shapes_facts(void **state)
{
	char *path = fixture_path("flaggems-data/core_shapes.yaml");
	struct zl_shapes_doc *doc = NULL;
	struct strbuf err = STRBUF_INIT;
	struct zl_shapes_entry e;
	const char *const blas_mro[] = { "BlasBenchmark", "Benchmark", NULL };
	const char *const unknown_mro[] = { "NoSuchBenchmark", "Benchmark", NULL };
	long v;
	(void)state;

	assert_int_equal(zl_shapes_load(path, &doc, &err), 0);
	assert_string_equal(doc->path, path);
	assert_int_equal(doc->root->kind, ZL_YAML_MAP);
	assert_int_equal(doc->root->nr, 97);

	/* vdot: <<: *single_dim_shapes inherits 5 shapes and the description. */
	assert_true(zl_shapes_has_op(doc, "vdot"));
	assert_int_equal(zl_shapes_count(doc, "vdot"), 5);
	assert_int_equal(zl_shapes_find(doc, "vdot", NULL, &e), 0);
	assert_string_equal(e.key, "vdot");
	assert_int_equal(e.by_class, 0);
	assert_string_equal(e.shape_desc, "M");
	assert_flow(e.shapes, "[[64], [1024], [2048], [4096], [65536]]");
	assert_int_equal(zl_yaml_to_long(e.shapes->items[4]->items[0], &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(e.shapes->items[0]->line, 17); /* where the anchored list was written */
	assert_int_equal(zl_shapes_count(doc, "segment_reduce_backward_out"), 5);

	/* Nested values and booleans survive. */
	assert_int_equal(zl_shapes_find(doc, "median_dim", NULL, &e), 0);
	assert_int_equal(e.shapes->nr, 7);
	assert_flow(e.shapes->items[5], "[[640, 1536], 0, false]");

	/* mm is not a key: FlagGems uses BlasBenchmark's entry through the class MRO. */
	assert_false(zl_shapes_has_op(doc, "mm"));
	assert_int_equal(zl_shapes_count(doc, "mm"), -1);
	assert_int_equal(zl_shapes_find(doc, "mm", NULL, &e), -1);
	assert_null(e.node);
	assert_int_equal(zl_shapes_find(doc, "mm", blas_mro, &e), 0);
	assert_string_equal(e.key, "BlasBenchmark");
	assert_int_equal(e.by_class, 1);
	assert_int_equal(e.shapes->nr, 5);
	assert_string_equal(e.shape_desc, "B, M, N, K");
	assert_flow(e.shapes->items[0], "[2, 384, 384, 384]");
	assert_int_equal(zl_shapes_find(doc, "mm", unknown_mro, &e), 0);
	assert_string_equal(e.key, "Benchmark");
	assert_null(e.shape_desc);
	assert_int_equal(e.shapes->nr, 5);

	zl_shapes_free(doc);
	strbuf_release(&err);
	free(path);
}

static void test_models_shapes(void **state)
{
	char *path = fixture_path("flaggems-data/models_shapes_qwen25.yaml");
	struct zl_shapes_doc *doc = NULL;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(zl_shapes_load(path, &doc, &err), 0);
	assert_int_equal(doc->root->nr, 5);
	assert_int_equal(zl_shapes_count(doc, "mm"), 20);
	assert_int_equal(zl_shapes_count(doc, "fill_"), 6);
	assert_int_equal(zl_shapes_count(doc, "sort"), 1);
	assert_int_equal(zl_shapes_count(doc, "vdot"), -1);
	zl_shapes_free(doc);
	strbuf_release(&err);
	free(path);
}

static void test_real_files_match_pyyaml(void **state)
{
	char *core = fixture_path("flaggems-data/core_shapes.yaml");
	char *qwen = fixture_path("flaggems-data/models_shapes_qwen25.yaml");
	(void)state;

	assert_same_as_pyyaml(core);
	assert_same_as_pyyaml(qwen);
	free(core);
	free(qwen);
}

/* ---- merge keys ---- */

static const char merge_yaml[] =
	"base: &base\n"
	"  shapes: [[1, 2], [3, 4]]\n"
	"  shape_desc: \"M, N\"\n"
	"  extra: 1\n"
	"other: &other\n"
	"  shapes: [[9]]\n"
	"  note: other\n"
	"  extra: 2\n"
	"seq_merge:\n"
	"  <<: [*base, *other]\n"
	"local_override:\n"
	"  <<: *base\n"
	"  shape_desc: B\n"
	"  shapes:\n"
	"    - [7, 8]\n"
	"before_merge:\n"
	"  shapes: [[5]]\n"
	"  <<: *base\n"
	"nested: &nested\n"
	"  <<: *base\n"
	"  level2: true\n"
	"nested_user:\n"
	"  <<: *nested\n"
	"  extra: 3\n"
	"two_merges:\n"
	"  <<: *base\n"
	"  <<: *other\n"
	"quoted_key:\n"
	"  \"<<\": not a merge\n"
	"dup:\n"
	"  shapes: [[1]]\n"
	"  shapes: [[2], [3]]\n"
	"shared_list: &common [[64, 64], [128, 128]]\n"
	"uses_list:\n"
	"  shapes: *common\n"
	"typed: [0x10, 1_000, 012, -5, '7', \"8\", ~, Yes, off, 09, 1.5]\n";

static void test_merge_semantics(void **state)
{
	struct zl_shapes_doc *doc = parse_ok(merge_yaml);
	const struct zl_yaml *n;
	(void)state;

	/*
	 * A list of mappings: the earlier mapping wins, keys only in the later one
	 * come through; in PyYAML's key order (the later mapping's keys first).
	 */
	assert_flow(zl_yaml_get(doc->root, "seq_merge"),
		    "{shapes: [[1, 2], [3, 4]], note: other, extra: 1, shape_desc: \"M, N\"}");
	/* Local keys win over merged ones, before or after the merge key. */
	assert_flow(zl_yaml_get(doc->root, "local_override"),
		    "{shapes: [[7, 8]], shape_desc: B, extra: 1}");
	assert_flow(zl_yaml_get(doc->root, "before_merge"),
		    "{shapes: [[5]], shape_desc: \"M, N\", extra: 1}");
	/* A merged mapping that itself merges. */
	assert_flow(zl_yaml_get(doc->root, "nested_user"),
		    "{shapes: [[1, 2], [3, 4]], shape_desc: \"M, N\", extra: 3, level2: true}");
	/* Two merge keys: the later one overrides (PyYAML's behaviour). */
	assert_flow(zl_yaml_get(doc->root, "two_merges"),
		    "{shapes: [[9]], shape_desc: \"M, N\", extra: 2, note: other}");
	/* A quoted "<<" is an ordinary key. */
	assert_flow(zl_yaml_get(doc->root, "quoted_key"), "{<<: not a merge}");
	/* Duplicate keys: the last one wins. */
	assert_int_equal(zl_shapes_count(doc, "dup"), 2);
	/* An alias of a list. */
	assert_int_equal(zl_shapes_count(doc, "uses_list"), 2);
	/* Entries that are not mappings have no shapes. */
	assert_int_equal(zl_shapes_count(doc, "shared_list"), -1);

	n = zl_yaml_get(doc->root, "typed");
	{
		long v;
		assert_int_equal(zl_yaml_to_long(n->items[0], &v), 0);
		assert_int_equal(v, 16);
		assert_int_equal(zl_yaml_to_long(n->items[1], &v), 0);
		assert_int_equal(v, 1000);
		assert_int_equal(zl_yaml_to_long(n->items[2], &v), 0);
		assert_int_equal(v, 10); /* YAML 1.1 octal */
		assert_int_equal(zl_yaml_to_long(n->items[3], &v), 0);
		assert_int_equal(v, -5);
		assert_int_equal(zl_yaml_to_long(n->items[4], &v), -1); /* quoted: a string */
		assert_int_equal(zl_yaml_to_long(n->items[5], &v), -1);
		assert_int_equal(n->items[5]->style, ZL_YAML_DOUBLE_QUOTED);
		assert_int_equal(zl_yaml_to_long(n->items[6], &v), -1);
		assert_int_equal(zl_yaml_to_long(n->items[9], &v), -1); /* 09: a string in YAML 1.1 */
		assert_int_equal(zl_yaml_to_long(n->items[10], &v), -1);
	}
	zl_shapes_free(doc);
}

static void test_merge_matches_pyyaml(void **state)
{
	char tmpl[] = "/tmp/zl-shapes-XXXXXX";
	struct strbuf err = STRBUF_INIT;
	char *path;
	/* Leave out the float, which the canonical form does not cover. */
	char *text = xstrndup(merge_yaml, strstr(merge_yaml, "typed:") - merge_yaml);
	(void)state;

	assert_non_null(mkdtemp(tmpl));
	path = zl_path_join(tmpl, "merge.yaml");
	assert_int_equal(zl_write_file_atomic(path, text, strlen(text), &err), 0);
	assert_same_as_pyyaml(path);
	assert_int_equal(zl_remove_tree(tmpl, &err), 0);
	free(path);
	free(text);
	strbuf_release(&err);
}

/* ---- errors ---- */

static void test_errors(void **state)
{
	struct zl_shapes_doc *doc = (void *)1;
	struct strbuf err = STRBUF_INIT, laughs = STRBUF_INIT, doubling = STRBUF_INIT;
	int i;
	(void)state;

	/* A YAML error names the file, line and column. */
	parse_fails("a:\n  shapes: [1, 2\nb: 3\n", "at line 3, column 2 (while parsing a flow sequence started at line 2, column 11)");
	parse_fails("- [1, 2]\n- [3]\n", "expected a mapping");
	parse_fails("", "is empty");
	parse_fails("# only a comment\n", "is empty");
	parse_fails("a: 1\n---\nb: 2\n", "more than one document");
	parse_fails("a: *nowhere\n", "line 1");
	parse_fails("a: &x [1, *x]\n", "recursive alias");
	parse_fails("a: &x\n  <<: *x\n", "recursive alias");
	parse_fails("a: {<<: 1}\n", "expected a mapping or list of mappings for merging");
	parse_fails("a: {<<: [1]}\n", "expected a mapping for merging");
	parse_fails("a: {[1]: 2}\n", "not a scalar");

	/* Alias bombs stop at the node budget instead of eating memory. */
	strbuf_addstr(&laughs, "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
	for (i = 1; i <= 7; i++)
		strbuf_addf(&laughs, "l%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n",
			    i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
	parse_fails(laughs.buf, "nodes after expanding aliases");
	strbuf_addstr(&doubling, "m0: &m0 {a: 1}\n");
	for (i = 1; i <= 24; i++)
		strbuf_addf(&doubling, "m%d: &m%d {<<: [*m%d, *m%d]}\n", i, i, i - 1, i - 1);
	parse_fails(doubling.buf, "nodes after expanding aliases");

	/* Deep nesting is refused rather than recursed into. */
	{
		struct strbuf deep = STRBUF_INIT, chain = STRBUF_INIT;
		strbuf_addstr(&deep, "a: ");
		for (i = 0; i < 5000; i++)
			strbuf_addch(&deep, '[');
		for (i = 0; i < 5000; i++)
			strbuf_addch(&deep, ']');
		strbuf_addch(&deep, '\n');
		/* the top-level mapping is level 1: the 200th '[' (column 203) is level 201 */
		parse_fails(deep.buf, "lists and mappings nested more than 200 levels deep at line 1, column 203");
		strbuf_addstr(&chain, "m0: &m0 {a: 1}\n");
		for (i = 1; i <= 300; i++)
			strbuf_addf(&chain, "m%d: &m%d {<<: *m%d}\n", i, i, i - 1);
		parse_fails(chain.buf, "merge keys ('<<') nested more than 200 levels deep");
		strbuf_release(&deep);
		strbuf_release(&chain);
	}

	assert_int_equal(zl_shapes_load("/nonexistent/shapes.yaml", &doc, &err), -1);
	assert_null(doc);
	assert_non_null(strstr(err.buf, "cannot read shape file '/nonexistent/shapes.yaml'"));
	zl_shapes_free(NULL);
	strbuf_release(&err);
	strbuf_release(&laughs);
	strbuf_release(&doubling);
}

static void nested_maps(struct strbuf *sb, int levels)
{
	int i;

	for (i = 0; i < levels; i++)
		strbuf_addstr(sb, "{a: ");
	strbuf_addch(sb, '1');
	for (i = 0; i < levels; i++)
		strbuf_addch(sb, '}');
	strbuf_addch(sb, '\n');
}

/*
 * Depth is checked while parsing (100,000 levels took libyaml's loader 27 s before it was
 * refused), and each limit says what is too deep: plain mappings are not "merges".
 */
static void test_depth_limits(void **state)
{
	struct zl_shapes_doc *doc = NULL;
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	const struct zl_yaml *n;
	int i;
	(void)state;

	/* 100,000 levels in 200 KB */
	for (i = 0; i < 100000; i++)
		strbuf_addch(&text, '[');
	for (i = 0; i < 100000; i++)
		strbuf_addch(&text, ']');
	{
		struct strbuf file = STRBUF_INIT;

		strbuf_addstr(&file, "a: ");
		strbuf_addbuf(&file, &text);
		parse_fails(file.buf, "lists and mappings nested more than 200 levels deep at line 1, column 203");
		strbuf_release(&file);
	}

	/* 50,000 nested mappings are nesting, not merges */
	strbuf_reset(&text);
	nested_maps(&text, 50000);
	/* the first node at level 201: the key of the 200th mapping */
	parse_fails(text.buf, "lists and mappings nested more than 200 levels deep at line 1, column 798");

	/* exactly the limit loads: 199 mappings and the scalar in the innermost, 200 levels */
	strbuf_reset(&text);
	nested_maps(&text, 199);
	assert_int_equal(zl_shapes_parse(text.buf, text.len, "bad.yaml", &doc, &err), 0);
	for (n = doc->root, i = 1; n->kind == ZL_YAML_MAP; n = zl_yaml_get(n, "a"))
		i++;
	assert_int_equal(i, 200);
	assert_string_equal(n->scalar, "1");
	zl_shapes_free(doc);
	/* one more: the 200th mapping's key (column 798) is level 201 */
	strbuf_reset(&text);
	nested_maps(&text, 200);
	parse_fails(text.buf, "nested more than 200 levels deep at line 1, column 798");

	/* aliases can nest deeper than the text: the conversion counts them */
	strbuf_reset(&text);
	strbuf_addstr(&text, "x: &x ");
	for (i = 0; i < 150; i++)
		strbuf_addch(&text, '[');
	for (i = 0; i < 150; i++)
		strbuf_addch(&text, ']');
	strbuf_addstr(&text, "\ny: ");
	for (i = 0; i < 150; i++)
		strbuf_addch(&text, '[');
	strbuf_addstr(&text, "*x");
	for (i = 0; i < 150; i++)
		strbuf_addch(&text, ']');
	strbuf_addch(&text, '\n');
	parse_fails(text.buf, "nested more than 200 levels deep (aliases expanded)");

	/* more nodes than the budget, before libyaml composes them */
	strbuf_reset(&text);
	strbuf_addstr(&text, "a: [");
	for (i = 0; i < 1000000; i++)
		strbuf_addstr(&text, "1,");
	strbuf_addstr(&text, "1]\n");
	parse_fails(text.buf, "more than 1000000 nodes (at line 1)");

	strbuf_release(&text);
	strbuf_release(&err);
}

/* ---- the archive ---- */

static struct zl_shapes_doc *render_and_reparse(const struct zl_shapes_doc *doc,
						const struct zl_shapes_archive *a, struct strbuf *text)
{
	struct strbuf err = STRBUF_INIT;
	struct zl_shapes_doc *back = NULL;

	if (zl_shapes_archive_render(doc, a, text, &err))
		fail_msg("render failed: %s", err.buf);
	if (zl_shapes_parse(text->buf, text->len, "archive", &back, &err))
		fail_msg("archive does not parse: %s\n%s", err.buf, text->buf);
	strbuf_release(&err);
	return back;
}

static const char *scalar_at(const struct zl_yaml *map, const char *k1, const char *k2)
{
	const struct zl_yaml *n = zl_yaml_get(map, k1);

	if (k2)
		n = zl_yaml_get(n, k2);
	assert_non_null(n);
	assert_int_equal(n->kind, ZL_YAML_SCALAR);
	return n->scalar;
}

static int notes_mention(const struct zl_yaml *root, const char *what)
{
	const struct zl_yaml *notes = zl_yaml_get(root, "notes");
	size_t i;

	assert_non_null(notes);
	assert_int_equal(notes->kind, ZL_YAML_SEQ);
	for (i = 0; i < notes->nr; i++)
		if (strstr(notes->items[i]->scalar, what))
			return 1;
	return 0;
}

static void test_archive_vdot_core(void **state)
{
	char *path = fixture_path("flaggems-data/core_shapes.yaml");
	struct zl_shapes_doc *doc = NULL, *back;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	struct zl_shapes_archive a = { "vdot", "core", "file", NULL, NULL, NULL };
	struct zl_shapes_entry src;
	char sha[65];
	char *got, *want;
	(void)state;

	a.source_path = path;
	assert_int_equal(zl_shapes_load(path, &doc, &err), 0);
	assert_int_equal(zl_sha256_file_hex(path, sha, &err), 0);
	back = render_and_reparse(doc, &a, &text);

	assert_string_equal(scalar_at(back->root, "schema_version", NULL), "1");
	assert_string_equal(scalar_at(back->root, "level", NULL), "core");
	assert_string_equal(scalar_at(back->root, "shape_mode", NULL), "file");
	assert_string_equal(scalar_at(back->root, "source", "path"), path);
	assert_string_equal(scalar_at(back->root, "source", "sha256"), sha); /* computed when not given */
	assert_string_equal(scalar_at(back->root, "op", NULL), "vdot");
	assert_string_equal(scalar_at(back->root, "entry", "key"), "vdot");
	assert_string_equal(scalar_at(back->root, "entry", "matched_by"), "op");
	assert_string_equal(scalar_at(back->root, "entry", "line"), "24");
	assert_string_equal(scalar_at(back->root, "shape_desc", NULL), "M");
	assert_string_equal(scalar_at(back->root, "count", NULL), "5");
	assert_string_equal(scalar_at(back->root, "level_adds_shapes", NULL), "false");
	assert_null(zl_yaml_get(back->root, "other_keys"));
	/* The shapes as resolved from the merge, each written in flow style. */
	assert_int_equal(zl_shapes_find(doc, "vdot", NULL, &src), 0);
	got = flow(zl_yaml_get(back->root, "shapes"));
	want = flow(src.shapes);
	assert_string_equal(got, want);
	assert_non_null(strstr(text.buf, "- [65536]\n"));
	assert_false(notes_mention(back->root, "not a key"));
	assert_false(notes_mention(back->root, "comprehensive"));

	free(got);
	free(want);
	zl_shapes_free(back);
	zl_shapes_free(doc);
	strbuf_release(&text);
	strbuf_release(&err);
	free(path);
}

static void test_archive_missing_and_class(void **state)
{
	char *path = fixture_path("flaggems-data/core_shapes.yaml");
	struct zl_shapes_doc *doc = NULL, *back;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	const char *const mro[] = { "BlasBenchmark", "Benchmark", NULL };
	const char *const none[] = { "NoSuchBenchmark", NULL };
	struct zl_shapes_archive a = { "mm", "core", "upstream", NULL, "abc", NULL };
	(void)state;

	a.source_path = path;
	assert_int_equal(zl_shapes_load(path, &doc, &err), 0);

	/* Missing op, class unknown: no invented shapes, and a note saying why. */
	back = render_and_reparse(doc, &a, &text);
	assert_string_equal(scalar_at(back->root, "entry", "matched_by"), "none");
	assert_string_equal(scalar_at(back->root, "entry", "key"), "null");
	assert_string_equal(scalar_at(back->root, "shapes", NULL), "null");
	assert_string_equal(scalar_at(back->root, "count", NULL), "null");
	assert_string_equal(scalar_at(back->root, "source", "sha256"), "abc"); /* given: used as is */
	assert_true(notes_mention(back->root, "op 'mm' is not a key"));
	zl_shapes_free(back);

	/* With the benchmark's class names: BlasBenchmark's 5 shapes. */
	strbuf_reset(&text);
	a.fallbacks = mro;
	back = render_and_reparse(doc, &a, &text);
	assert_string_equal(scalar_at(back->root, "entry", "matched_by"), "class");
	assert_string_equal(scalar_at(back->root, "entry", "key"), "BlasBenchmark");
	assert_string_equal(scalar_at(back->root, "entry", "line"), "284");
	assert_string_equal(scalar_at(back->root, "count", NULL), "5");
	assert_string_equal(scalar_at(back->root, "shape_desc", NULL), "B, M, N, K");
	assert_true(notes_mention(back->root, "benchmark class 'BlasBenchmark'"));
	zl_shapes_free(back);

	/* Comprehensive: the Python-made shapes are not invented, and the archive says so. */
	strbuf_reset(&text);
	a.level = "comprehensive";
	back = render_and_reparse(doc, &a, &text);
	assert_string_equal(scalar_at(back->root, "count", NULL), "5");
	assert_string_equal(scalar_at(back->root, "level_adds_shapes", NULL), "true");
	assert_true(notes_mention(back->root, "set_more_shapes()"));
	zl_shapes_free(back);

	/* Classes given but none is a key. */
	strbuf_reset(&text);
	a.fallbacks = none;
	back = render_and_reparse(doc, &a, &text);
	assert_string_equal(scalar_at(back->root, "entry", "matched_by"), "none");
	assert_true(notes_mention(back->root, "NoSuchBenchmark"));
	zl_shapes_free(back);

	zl_shapes_free(doc);
	strbuf_release(&text);
	strbuf_release(&err);
	free(path);
}

static void test_archive_odd_entries(void **state)
{
	struct zl_shapes_doc *doc = parse_ok(
		"noshapes: {shape_desc: M}\n"
		"notalist: {shapes: 3}\n"
		"scalar: 5\n"
		"extra:\n"
		"  shapes: [[1, 2]]\n"
		"  dtypes: [float16, bfloat16]\n"
		"  tol: {rtol: 0.001}\n"
		"typed:\n"
		"  shapes: [['64', 1], [\"true\", yes]]\n");
	struct zl_shapes_doc *back;
	struct strbuf text = STRBUF_INIT;
	struct zl_shapes_archive a = { "noshapes", "core", "file", "/tmp/none.yaml", "1234", NULL };
	const struct zl_yaml *shapes, *sha;
	(void)state;

	back = render_and_reparse(doc, &a, &text);
	assert_string_equal(scalar_at(back->root, "shapes", NULL), "null");
	assert_true(notes_mention(back->root, "DEFAULT_SHAPES"));
	/* An all-digit digest is still a string. */
	sha = zl_yaml_get(zl_yaml_get(back->root, "source"), "sha256");
	assert_int_not_equal(sha->style, ZL_YAML_PLAIN);
	assert_string_equal(sha->scalar, "1234");
	zl_shapes_free(back);

	strbuf_reset(&text);
	a.op = "notalist";
	back = render_and_reparse(doc, &a, &text);
	assert_true(notes_mention(back->root, "not a list"));
	zl_shapes_free(back);

	strbuf_reset(&text);
	a.op = "scalar";
	back = render_and_reparse(doc, &a, &text);
	assert_true(notes_mention(back->root, "not a mapping"));
	zl_shapes_free(back);

	/* Keys besides shapes/shape_desc are kept under other_keys. */
	strbuf_reset(&text);
	a.op = "extra";
	back = render_and_reparse(doc, &a, &text);
	assert_flow(zl_yaml_get(back->root, "other_keys"),
		    "{dtypes: [float16, bfloat16], tol: {rtol: 0.001}}");
	zl_shapes_free(back);

	/* Quoted scalars stay quoted, so their types survive the round trip. */
	strbuf_reset(&text);
	a.op = "typed";
	back = render_and_reparse(doc, &a, &text);
	shapes = zl_yaml_get(back->root, "shapes");
	assert_int_not_equal(shapes->items[0]->items[0]->style, ZL_YAML_PLAIN);
	assert_int_equal(shapes->items[0]->items[1]->style, ZL_YAML_PLAIN);
	assert_int_not_equal(shapes->items[1]->items[0]->style, ZL_YAML_PLAIN);
	assert_string_equal(shapes->items[1]->items[1]->scalar, "yes");
	assert_int_equal(shapes->items[1]->items[1]->style, ZL_YAML_PLAIN);
	zl_shapes_free(back);

	/* No document at all. */
	strbuf_reset(&text);
	a.op = "mm";
	back = render_and_reparse(NULL, &a, &text);
	assert_string_equal(scalar_at(back->root, "shapes", NULL), "null");
	assert_true(notes_mention(back->root, "no shape file was read"));
	zl_shapes_free(back);

	zl_shapes_free(doc);
	strbuf_release(&text);
}

static void test_archive_write(void **state)
{
	char tmpl[] = "/tmp/zl-archive-XXXXXX";
	char *path = fixture_path("flaggems-data/core_shapes.yaml");
	struct zl_shapes_doc *doc = NULL;
	struct strbuf err = STRBUF_INIT, written = STRBUF_INIT, rendered = STRBUF_INIT;
	struct zl_shapes_archive a = { "vdot", "core", "file", NULL, NULL, NULL };
	char *out, *bad;
	(void)state;

	a.source_path = path;
	assert_non_null(mkdtemp(tmpl));
	out = zl_path_join(tmpl, "shapes.yaml");
	bad = xstrfmt("%s/missing-dir/shapes.yaml", tmpl);
	assert_int_equal(zl_shapes_load(path, &doc, &err), 0);
	assert_int_equal(zl_shapes_write_archive(out, doc, "vdot", "core", "file", path, NULL, &err), 0);
	assert_true(strbuf_read_file(&written, out) > 0);
	assert_int_equal(zl_shapes_archive_render(doc, &a, &rendered, &err), 0);
	assert_string_equal(written.buf, rendered.buf);
	/* The written archive is what PyYAML reads, too. */
	{
		struct strbuf py = STRBUF_INIT;
		if (!pyyaml_canon(out, &py)) {
			assert_non_null(strstr(py.buf, "shapes=[[64],[1024],[2048],[4096],[65536]]\n"));
			assert_non_null(strstr(py.buf, "count=5\n"));
		}
		strbuf_release(&py);
	}
	assert_int_equal(zl_shapes_write_archive(bad, doc, "vdot", "core", "file", path, NULL, &err), -1);
	assert_non_null(strstr(err.buf, "missing-dir"));
	assert_int_equal(zl_remove_tree(tmpl, &err), 0);
	zl_shapes_free(doc);
	strbuf_release(&err);
	strbuf_release(&written);
	strbuf_release(&rendered);
	free(out);
	free(bad);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_core_shapes_facts),
		cmocka_unit_test(test_models_shapes),
		cmocka_unit_test(test_real_files_match_pyyaml),
		cmocka_unit_test(test_merge_semantics),
		cmocka_unit_test(test_merge_matches_pyyaml),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_depth_limits),
		cmocka_unit_test(test_archive_vdot_core),
		cmocka_unit_test(test_archive_missing_and_class),
		cmocka_unit_test(test_archive_odd_entries),
		cmocka_unit_test(test_archive_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
