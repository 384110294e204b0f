/*
 * Node resolution against the real suite: every operator mark of FlagGems ed2508bc
 * (tests/fixtures/flaggems-marks/ed2508bc.tsv) resolves to the files that carry it, and
 * each kind of near miss is refused with what to type instead. The reader of marks on the
 * forms the suite uses.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "zlbench/fsutil.h"
#include "zlbench/resolve.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"

/* The marks of the suite, from the fixture: each mark with the files carrying it. */
struct expected {
	struct strvec marks;       /* distinct, in first-seen order */
	struct strvec *files;      /* files[i]: the files of marks[i], sorted */
	struct strvec all_files;   /* every file with a mark */
};

/* The stub suite built from the fixture, shared by the tests. */
static char tree[] = "/tmp/zl-resolve-XXXXXX";
static struct expected ex;

static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void expected_add(struct expected *e, const char *mark, const char *file)
{
	long i = strvec_find(&e->marks, mark);

	if (i < 0) {
		strvec_push(&e->marks, mark);
		e->files = xrealloc(e->files, e->marks.nr * sizeof(*e->files));
		strvec_init(&e->files[e->marks.nr - 1]);
		i = (long)e->marks.nr - 1;
	}
	if (strvec_find(&e->files[i], file) < 0)
		strvec_push(&e->files[i], file);
}

/* The file's text, one stub test per fixture row: its marks as decorators, in order. */
static void stub_add(struct strvec *paths, struct strbuf *texts, size_t *n, const char *file, const char *fn,
		     const struct strvec *marks)
{
	long i = strvec_find(paths, file);
	size_t j;

	if (i < 0) {
		strvec_push(paths, file);
		i = (long)*n;
		strbuf_init(&texts[(*n)++], 0);
		strbuf_addstr(&texts[i], "import pytest\n");
	}
	strbuf_addch(&texts[i], '\n');
	for (j = 0; j < marks->nr; j++)
		strbuf_addf(&texts[i], "@pytest.mark.%s\n", marks->v[j]);
	strbuf_addf(&texts[i], "def %s():\n    pass\n", fn);
}

static int setup(void **state)
{
	const char *fixtures = getenv("ZL_FIXTURES_DIR");
	char *tsv = xstrfmt("%s/flaggems-marks/ed2508bc.tsv", fixtures ? fixtures : "tests/fixtures");
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct strvec lines = STRVEC_INIT, paths = STRVEC_INIT;
	struct strbuf *texts;
	size_t i, j, n = 0;

	(void)state;
	if (zl_read_file(&text, tsv, "marks fixture", ZL_CAP_DOC, &err)) {
		fprintf(stderr, "%s\n", err.buf);
		return -1;
	}
	if (!mkdtemp(tree))
		return -1;
	strvec_split(&lines, text.buf, '\n');
	texts = xcalloc(lines.nr + 1, sizeof(*texts));
	for (i = 0; i < lines.nr; i++) {
		struct strvec f = STRVEC_INIT, marks = STRVEC_INIT;

		strvec_split(&f, lines.v[i], '\t');
		if (f.nr != 3)
			return -1;
		strvec_split(&marks, f.v[2], ',');
		for (j = 0; j < marks.nr; j++)
			expected_add(&ex, marks.v[j], f.v[0]);
		if (strvec_find(&ex.all_files, f.v[0]) < 0)
			strvec_push(&ex.all_files, f.v[0]);
		stub_add(&paths, texts, &n, f.v[0], f.v[1], &marks);
		strvec_clear(&f);
		strvec_clear(&marks);
	}
	for (i = 0; i < ex.marks.nr; i++)
		qsort(ex.files[i].v, ex.files[i].nr, sizeof(*ex.files[i].v), by_str);
	for (i = 0; i < n; i++) {
		char *path = zl_path_join(tree, paths.v[i]), *slash = strrchr(path, '/');

		*slash = '\0';
		if (zl_mkdir_p(path, &err))
			return -1;
		*slash = '/';
		if (zl_write_file_atomic(path, texts[i].buf, texts[i].len, &err))
			return -1;
		free(path);
		strbuf_release(&texts[i]);
	}
	{
		char *conftest = zl_path_join(tree, "benchmark/conftest.py");

		if (zl_write_file_atomic(conftest, "", 0, &err))
			return -1;
		free(conftest);
	}
	free(texts);
	strvec_clear(&lines);
	strvec_clear(&paths);
	strbuf_release(&text);
	strbuf_release(&err);
	free(tsv);
	return 0;
}

static int teardown(void **state)
{
	struct strbuf err = STRBUF_INIT;
	size_t i;

	(void)state;
	zl_remove_tree(tree, &err);
	strbuf_release(&err);
	for (i = 0; i < ex.marks.nr; i++)
		strvec_clear(&ex.files[i]);
	free(ex.files);
	strvec_clear(&ex.marks);
	strvec_clear(&ex.all_files);
	return 0;
}

/* What --op mark must resolve to: its own file when that carries it, else every file that does. */
static int nodes_right(const char *mark, const struct strvec *files, const struct zl_nodes *n, struct strbuf *why)
{
	char *own = xstrfmt("benchmark/test_%s.py", mark);
	int own_carries = strvec_find(files, own) >= 0, ok = 1;
	size_t i;

	if (!n->marker || strcmp(n->marker, mark))
		ok = 0;
	else if (own_carries)
		ok = n->nodes.nr == 1 && !strcmp(n->nodes.v[0], own);
	else if (n->nodes.nr != files->nr)
		ok = 0;
	else
		for (i = 0; i < files->nr; i++)
			ok &= !strcmp(n->nodes.v[i], files->v[i]);
	if (!ok) {
		strbuf_addf(why, "  %s -> marker %s, nodes", mark, n->marker ? n->marker : "-");
		for (i = 0; i < n->nodes.nr; i++)
			strbuf_addf(why, " %s", n->nodes.v[i]);
		strbuf_addch(why, '\n');
	}
	free(own);
	return ok;
}

static void test_the_fixture_is_the_suite(void **state)
{
	(void)state;
	/* FlagGems ed2508bc: 1058 operator marks on 700 of its 703 benchmark files */
	assert_int_equal(ex.marks.nr, 1058);
	assert_int_equal(ex.all_files.nr, 700);
}

static void test_every_mark_resolves(void **state)
{
	struct strbuf why = STRBUF_INIT;
	size_t i, failures = 0;

	(void)state;
	for (i = 0; i < ex.marks.nr; i++) {
		struct zl_nodes n = ZL_NODES_INIT;
		struct strbuf err = STRBUF_INIT;

		if (zl_resolve_nodes(tree, NULL, ex.marks.v[i], NULL, &n, &err) != ZL_RESOLVE_OK) {
			strbuf_addf(&why, "  %s: %s\n", ex.marks.v[i], err.buf);
			failures++;
		} else if (!nodes_right(ex.marks.v[i], &ex.files[i], &n, &why)) {
			failures++;
		}
		zl_nodes_release(&n);
		strbuf_release(&err);
	}
	if (failures)
		fail_msg("%zu of %zu marks did not resolve:\n%s", failures, ex.marks.nr, why.buf);
	strbuf_release(&why);
}

/* The index a batch resolves with: every mark, its files, and the same nodes as one run's. */
static void test_index_and_batch_path(void **state)
{
	struct zl_marks idx = ZL_MARKS_INIT;
	struct strbuf why = STRBUF_INIT;
	size_t i, j, failures = 0;

	(void)state;
	zl_marks_scan(tree, &idx);
	assert_int_equal(idx.nr, ex.marks.nr);
	assert_int_equal(idx.files_scanned, ex.all_files.nr);
	for (i = 1; i < idx.nr; i++)
		assert_true(strcmp(idx.v[i - 1].name, idx.v[i].name) < 0);
	for (i = 0; i < ex.marks.nr; i++) {
		const struct zl_mark *m = zl_marks_find(&idx, ex.marks.v[i]);
		struct zl_nodes n = ZL_NODES_INIT;
		struct strbuf err = STRBUF_INIT;

		assert_non_null(m);
		assert_int_equal(m->files.nr, ex.files[i].nr);
		for (j = 0; j < m->files.nr; j++)
			assert_string_equal(m->files.v[j], ex.files[i].v[j]);
		if (zl_resolve_op_in(tree, &idx, ex.marks.v[i], &n, &err) != ZL_RESOLVE_OK ||
		    !nodes_right(ex.marks.v[i], &ex.files[i], &n, &why))
			failures++;
		zl_nodes_release(&n);
		strbuf_release(&err);
	}
	assert_null(zl_marks_find(&idx, "div"));
	assert_null(zl_marks_find(&idx, "parametrize"));
	if (failures)
		fail_msg("%zu marks resolved differently through the index:\n%s", failures, why.buf);
	zl_marks_release(&idx);
	strbuf_release(&why);
}

static enum zl_resolve_fail resolve(const char *op, struct zl_nodes *n, struct strbuf *err)
{
	return zl_resolve_nodes(tree, NULL, op, NULL, n, err);
}

static void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("'%s' lacks '%s'", hay, needle);
}

/* Each kind of near miss of the real suite. */
static void test_near_misses(void **state)
{
	struct zl_nodes n = ZL_NODES_INIT;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	/* a file named after no mark of its own: test_div.py carries div_tensor, ..., not div */
	assert_int_equal(resolve("div", &n, &err), ZL_RESOLVE_NO_MATCH);
	assert_contains(err.buf, "benchmark/test_div.py has no mark 'div' (its marks: div_tensor, div_tensor_, "
			"div_tensor_mode, div_tensor_mode_, div_scalar_mode, div_scalar_mode_, div_scalar_, div_out)");
	assert_contains(err.buf, "did you mean: div_out, ");
	assert_contains(err.buf, "to run the whole file: --op-file benchmark/test_div.py");
	assert_int_equal(n.nodes.nr, 0);
	assert_true(strvec_find(&n.suggestions, "div_tensor") >= 0);
	zl_nodes_release(&n);
	strbuf_reset(&err);

	/* a typo: the closest marks, and the file of the closest */
	assert_int_equal(resolve("div_tensr", &n, &err), ZL_RESOLVE_NO_MATCH);
	assert_contains(err.buf, "no benchmark/test_div_tensr.py and no file carries @pytest.mark.div_tensr (700 files scanned)");
	assert_contains(err.buf, "did you mean: div_tensor, div_tensor_");
	assert_contains(err.buf, "the nearest file, benchmark/test_div.py, has marks div_tensor, ");
	zl_nodes_release(&n);
	strbuf_reset(&err);

	/* a name that is only a file's name: test_bitwise_and.py, marks bitwise_and_tensor, ... */
	assert_int_equal(resolve("bitwise_and", &n, &err), ZL_RESOLVE_NO_MATCH);
	assert_contains(err.buf, "benchmark/test_bitwise_and.py has no mark 'bitwise_and' (its marks: bitwise_and_tensor, ");
	assert_contains(err.buf, "--op-file benchmark/test_bitwise_and.py");
	zl_nodes_release(&n);
	strbuf_reset(&err);

	/* a mark only in a nested folder */
	assert_int_equal(resolve("chunk_gated_delta_rule_fwd", &n, &err), ZL_RESOLVE_OK);
	assert_int_equal(n.nodes.nr, 1);
	assert_string_equal(n.nodes.v[0], "benchmark/test_FLA/test_chunk_gated_delta_rule_fwd.py");
	assert_string_equal(n.how, "marker scan");
	zl_nodes_release(&n);

	/* a mark only in other files than its name suggests: div_tensor in test_div.py and test_true_divide.py */
	assert_int_equal(resolve("div_tensor", &n, &err), ZL_RESOLVE_OK);
	assert_int_equal(n.nodes.nr, 2);
	assert_string_equal(n.nodes.v[0], "benchmark/test_div.py");
	assert_string_equal(n.nodes.v[1], "benchmark/test_true_divide.py");
	assert_string_equal(n.marker, "div_tensor");
	zl_nodes_release(&n);

	/* a file named after the mark, which another file carries: unfold is test_unfold_view.py's */
	assert_int_equal(resolve("unfold", &n, &err), ZL_RESOLVE_OK);
	assert_int_equal(n.nodes.nr, 1);
	assert_string_equal(n.nodes.v[0], "benchmark/test_unfold_view.py");
	assert_string_equal(n.how, "marker scan");
	zl_nodes_release(&n);

	/* its own file when that carries it, even when another file does too (mul: test_blas_perf_parallel.py) */
	assert_int_equal(resolve("mul", &n, &err), ZL_RESOLVE_OK);
	assert_int_equal(n.nodes.nr, 1);
	assert_string_equal(n.nodes.v[0], "benchmark/test_mul.py");
	assert_string_equal(n.how, "file");
	zl_nodes_release(&n);

	/* nothing near: no file named, no suggestion */
	assert_int_equal(resolve("qqqqqqqqqqqq", &n, &err), ZL_RESOLVE_NO_MATCH);
	assert_true(strstr(err.buf, "--op-file") == NULL);
	assert_int_equal(n.suggestions.nr, 0);
	zl_nodes_release(&n);
	strbuf_release(&err);
}

static void marks_of(const char *text, const char *want)
{
	struct strvec marks = STRVEC_INIT;
	struct strbuf got = STRBUF_INIT;
	size_t i;

	zl_marks_in_source(text, &marks);
	for (i = 0; i < marks.nr; i++)
		strbuf_addf(&got, "%s%s", i ? "," : "", marks.v[i]);
	assert_string_equal(got.buf, want);
	strvec_clear(&marks);
	strbuf_release(&got);
}

/* The forms the suite's files use, and the ones that are no marks. */
static void test_reader(void **state)
{
	(void)state;
	marks_of("@pytest.mark.mm\ndef test_mm():\n    pass\n", "mm");
	marks_of("@pytest.mark.amax(recommended_shapes=[[4]])\n@pytest.mark.skipif(True, reason='x')\n", "amax");
	/* in order, each once */
	marks_of("@pytest.mark.b\n@pytest.mark.a\n@pytest.mark.b\n", "b,a");
	/* a case's marks */
	marks_of("@pytest.mark.parametrize('op', [pytest.param('addmm', marks=pytest.mark.addmm),\n"
		 "    pytest.param('bmm', marks=[pytest.mark.bmm, pytest.mark.skip])])\n", "addmm,bmm");
	/* pytest's own marks, pytestmark */
	marks_of("pytestmark = pytest.mark.filterwarnings('ignore')\n@pytest.mark.usefixtures('x')\n"
		 "@pytest.mark.timeout(5)\n@pytest.mark.xfail\n@pytest.mark.tryfirst\n", "");
	/* comments and strings are no code */
	marks_of("# so that @pytest.mark._alias works\nx = 1  # pytest.mark.y\n", "");
	marks_of("\"\"\"Mark with @pytest.mark.doc.\n\"\"\"\ns = 'pytest.mark.s'\nt = \"it's pytest.mark.t\"\n", "");
	marks_of("u = r'\\'pytest.mark.u'\nv = b\"pytest.mark.v\"\nw = f'{pytest.mark.w}'\n", "");
	marks_of("'''a\n'pytest.mark.x'\n'''\n@pytest.mark.real\n", "real");
	/* a name of its own: not _pytest's module, not an attribute of something else */
	marks_of("from _pytest.mark.structures import Mark, MarkDecorator\n", "");
	marks_of("obj.pytest.mark.z\nsetattr(pytest.mark, '_reshape_alias', d)\n@pytest.mark._reshape_alias\n",
		 "_reshape_alias");
	/* an unterminated string ends at its line; the next line is code again */
	marks_of("s = 'open\n@pytest.mark.after\n", "after");
	marks_of("pytest.mark.\npytest.mark.9x\n", "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_fixture_is_the_suite),
		cmocka_unit_test(test_every_mark_resolves),
		cmocka_unit_test(test_index_and_batch_path),
		cmocka_unit_test(test_near_misses),
		cmocka_unit_test(test_reader),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
