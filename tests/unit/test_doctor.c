/* The doctor's pure pieces: shape keys, module names, the kernels of an op, def search. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "zlbench/doctor.h"
#include "zlbench/fsutil.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"

static char *key_of(const char *shape)
{
	struct strbuf sb = STRBUF_INIT;

	zl_doctor_shape_key(shape, &sb);
	return strbuf_detach(&sb, NULL);
}

static void expect_key(const char *shape, const char *want)
{
	char *got = key_of(shape);

	assert_string_equal(got, want);
	free(got);
}

static void test_shape_key(void **state)
{
	(void)state;
	/* the forms a user types for one FlagGems shape give zl_doctor.py's shape_key() */
	expect_key("2,4096,4096,4096", "2,4096,4096,4096");
	expect_key("[2, 4096, 4096, 4096]", "2,4096,4096,4096");
	expect_key("(2, 4096)", "2,4096");
	expect_key("2x4096x4096", "2,4096,4096");
	expect_key("10x20", "10,20");
	expect_key("[[640, 1536], 0, False]", "[640,1536],0,false");
	expect_key("((640, 1536), 0)", "[640,1536],0");
	expect_key("[1], [2]", "[1],[2]");
	/* hex stays hex */
	expect_key("0x10", "0x10");
	expect_key("", "");
}

static void test_module_of(void **state)
{
	char *m;

	(void)state;
	m = zl_doctor_module_of("src/flag_gems/runtime/backend/_mthreads/ops/mm.py");
	assert_string_equal(m, "flag_gems.runtime.backend._mthreads.ops.mm");
	free(m);
	m = zl_doctor_module_of("src/flag_gems/ops/__init__.py");
	assert_string_equal(m, "flag_gems.ops");
	free(m);
}

static void test_kernel_of_op(void **state)
{
	struct strvec defs = STRVEC_INIT;

	(void)state;
	strvec_push(&defs, "mm_kernel_splitk");
	assert_true(zl_doctor_kernel_of_op("mm", "mm", NULL));
	assert_true(zl_doctor_kernel_of_op("mm_kernel_general_host_tma", "mm", NULL));
	/* a longer name is another op's kernel, not this one's */
	assert_false(zl_doctor_kernel_of_op("mmx_kernel", "mm", NULL));
	assert_false(zl_doctor_kernel_of_op("addmm_kernel", "mm", NULL));
	/* router_gemm's winners carry the GEMM kernels its file defines */
	assert_false(zl_doctor_kernel_of_op("mm_kernel_splitk", "router_gemm", NULL));
	assert_true(zl_doctor_kernel_of_op("mm_kernel_splitk", "router_gemm", &defs));
	strvec_clear(&defs);
}

static void test_find_defs(void **state)
{
	const char *src = getenv("ZL_SOURCE_DIR");
	char *root, *dir, *file;
	struct strvec hits = STRVEC_INIT, names = STRVEC_INIT;

	(void)state;
	root = xstrfmt("%s/tests/fixtures/doctor/fg", src ? src : ZL_SOURCE_DIR);
	dir = xstrfmt("%s/src/flag_gems/runtime/backend", root);
	zl_doctor_find_defs(root, dir, "router_gemm", &hits);
	/* sorted walk: _mthreads before _nvidia; paths relative to the root; 1-based lines */
	assert_int_equal(hits.nr, 2);
	assert_string_equal(hits.v[0], "src/flag_gems/runtime/backend/_mthreads/ops/mm.py:5");
	assert_string_equal(hits.v[1], "src/flag_gems/runtime/backend/_nvidia/hopper/ops/mm.py:5");
	strvec_clear(&hits);
	zl_doctor_find_defs(root, dir, "no_such_op", &hits);
	assert_int_equal(hits.nr, 0);

	file = xstrfmt("%s/src/flag_gems/ops/mm.py", root);
	zl_doctor_defs_in_file(file, &names);
	assert_int_equal(names.nr, 2);
	assert_true(strvec_find(&names, "mm_kernel_general_host_tma") >= 0);
	assert_true(strvec_find(&names, "mm") >= 0);
	strvec_clear(&names);
	strvec_clear(&hits);
	free(file);
	free(dir);
	free(root);
}

static void test_tail(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	zl_doctor_tail("a\nb\n\nc\nd\n", 2, &sb);
	assert_string_equal(sb.buf, "c | d");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape_key),
		cmocka_unit_test(test_module_of),
		cmocka_unit_test(test_kernel_of_op),
		cmocka_unit_test(test_find_defs),
		cmocka_unit_test(test_tail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
