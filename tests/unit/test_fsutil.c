/* File-system helpers: the exclusive mkdir that claims a run directory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/fsutil.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"

static void test_mkdir_new(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *root = NULL, *leaf, *file, *under_file;

	(void)state;
	assert_int_equal(zl_mkdtemp_in("/tmp", "zl-test-fsutil-", &root, &err), 0);
	leaf = xstrfmt("%s/runs/deeper/leaf", root);
	file = xstrfmt("%s/a-file", root);
	under_file = xstrfmt("%s/a-file/leaf", root);

	/* parents made as needed, the leaf by this call */
	assert_int_equal(zl_mkdir_new(leaf, &err), 0);
	assert_true(zl_is_dir(leaf));
	/* a second claim of the same name finds it taken, and leaves it alone */
	assert_int_equal(zl_mkdir_new(leaf, &err), 1);
	assert_true(zl_is_dir(leaf));
	/* a trailing slash names the same leaf */
	{
		char *slash = xstrfmt("%s/", leaf);
		assert_int_equal(zl_mkdir_new(slash, &err), 1);
		free(slash);
	}
	/* a file of that name is taken too */
	assert_int_equal(zl_write_file_atomic(file, "x", 1, &err), 0);
	assert_int_equal(zl_mkdir_new(file, &err), 1);
	/* a parent that is a file: an error naming it */
	strbuf_reset(&err);
	assert_int_equal(zl_mkdir_new(under_file, &err), -1);
	assert_non_null(strstr(err.buf, "a-file"));

	assert_int_equal(zl_remove_tree(root, &err), 0);
	free(root);
	free(leaf);
	free(file);
	free(under_file);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mkdir_new),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
