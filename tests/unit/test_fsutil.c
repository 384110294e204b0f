/* File-system helpers: the exclusive mkdir that claims a run directory; reading outside files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Regular files are read whole, NUL bytes included, up to and including the cap. */
static void test_read_file_regular(void **state)
{
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
	char *root = NULL, *file, *link;

	(void)state;
	assert_int_equal(zl_mkdtemp_in("/tmp", "zl-test-read-", &root, &err), 0);
	file = xstrfmt("%s/a.json", root);
	link = xstrfmt("%s/link.json", root);
	assert_int_equal(zl_write_file_atomic(file, "{\"a\":\0 1}", 9, &err), 0);
	strbuf_addstr(&sb, "kept:");
	assert_int_equal(zl_read_file(&sb, file, NULL, 9, &err), 0);
	assert_int_equal(sb.len, 5 + 9);
	assert_memory_equal(sb.buf, "kept:{\"a\":\0 1}", 14);
	assert_int_equal(sb.buf[sb.len], '\0');
	/* a link to a regular file is fine: what was opened is checked */
	assert_int_equal(symlink(file, link), 0);
	strbuf_reset(&sb);
	assert_int_equal(zl_read_file(&sb, link, "results file", ZL_MIB, &err), 0);
	assert_int_equal(sb.len, 9);
	/* one byte over the cap: refused, the cap stated, sb as it was */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "kept");
	errno = 0;
	assert_int_equal(zl_read_file(&sb, file, "results file", 8, &err), -1);
	assert_int_equal(errno, EFBIG);
	assert_string_equal(sb.buf, "kept");
	assert_non_null(strstr(err.buf, "cannot read results file '"));
	assert_non_null(strstr(err.buf, "9 bytes, over the 8 byte limit"));
	/* missing: errno ENOENT, for callers that take a missing file as absent */
	strbuf_reset(&err);
	assert_int_equal(zl_read_file(&sb, "/nonexistent/zl-read", NULL, ZL_MIB, &err), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err.buf, "cannot read '/nonexistent/zl-read': "));
	/* err may be NULL when the caller needs no message */
	assert_int_equal(zl_read_file(&sb, "/nonexistent/zl-read", NULL, ZL_MIB, NULL), -1);

	assert_int_equal(zl_remove_tree(root, &err), 0);
	free(root);
	free(file);
	free(link);
	strbuf_release(&sb);
	strbuf_release(&err);
}

/* A FIFO, a device behind a link, a directory: refused at once, never read. */
static void test_read_file_not_regular(void **state)
{
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
	char *root = NULL, *fifo, *zero;
	int fd;

	(void)state;
	assert_int_equal(zl_mkdtemp_in("/tmp", "zl-test-read-", &root, &err), 0);
	fifo = xstrfmt("%s/results.json", root);
	zero = xstrfmt("%s/run_identity.json", root);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(symlink("/dev/zero", zero), 0);

	/* no writer ever opens the FIFO: a blocking open or read would hang the test */
	assert_int_equal(zl_read_file(&sb, fifo, NULL, ZL_CAP_DOC, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.buf, "results.json': a fifo, not a regular file"));
	assert_int_equal(zl_read_file(&sb, zero, "identity", ZL_CAP_DOC, &err), -1);
	assert_non_null(strstr(err.buf, "cannot read identity '"));
	assert_non_null(strstr(err.buf, "a character device, not a regular file"));
	assert_int_equal(zl_read_file(&sb, root, NULL, ZL_CAP_DOC, &err), -1);
	assert_non_null(strstr(err.buf, "a directory, not a regular file"));
	assert_int_equal(sb.len, 0);

	/* zl_open_regular says the same; the fd check serves files opened otherwise */
	assert_int_equal(zl_open_regular(fifo, "shape file", ZL_CAP_SHAPES, &err), -1);
	assert_non_null(strstr(err.buf, "cannot read shape file '"));
	fd = open("/dev/null", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(zl_check_regular_fd(fd, "/dev/null", NULL, ZL_CAP_DOC, &err), -1);
	assert_non_null(strstr(err.buf, "a character device"));
	close(fd);

	assert_int_equal(zl_remove_tree(root, &err), 0);
	free(root);
	free(fifo);
	free(zero);
	strbuf_release(&sb);
	strbuf_release(&err);
}

/* The last component, as push names a run directory without a run id. */
static void test_path_base_name(void **state)
{
	static const char *const cases[][2] = {
		{ "runs/r1", "r1" }, { "runs/r1/", "r1" }, { "/a//b///", "b" }, { "r1", "r1" }, { "/", "/" },
	};
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *b = zl_path_base_name(cases[i][0]);

		assert_string_equal(b, cases[i][1]);
		free(b);
	}
}

/* $TMPDIR, an empty one as unset. */
static void test_tmp_dir(void **state)
{
	char *saved = getenv("TMPDIR") ? xstrdup(getenv("TMPDIR")) : NULL;
	(void)state;

	assert_int_equal(setenv("TMPDIR", "/scratch/t", 1), 0);
	assert_string_equal(zl_tmp_dir(), "/scratch/t");
	assert_int_equal(setenv("TMPDIR", "", 1), 0);
	assert_string_equal(zl_tmp_dir(), "/tmp");
	assert_int_equal(unsetenv("TMPDIR"), 0);
	assert_string_equal(zl_tmp_dir(), "/tmp");
	if (saved)
		assert_int_equal(setenv("TMPDIR", saved, 1), 0);
	free(saved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mkdir_new),
		cmocka_unit_test(test_read_file_regular),
		cmocka_unit_test(test_read_file_not_regular),
		cmocka_unit_test(test_path_base_name),
		cmocka_unit_test(test_tmp_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
