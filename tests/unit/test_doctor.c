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

static void expect_near(const char *name, const char *want)
{
	static const char *const ops[] = { "mm", "bmm", "addmm", "router_gemm", "gemm_a8w8", "softmax", "log_softmax",
					   "sum", NULL };
	struct strvec names = STRVEC_INIT, out = STRVEC_INIT;
	struct strbuf got = STRBUF_INIT;
	size_t i;

	strvec_pushv(&names, (const char **)ops);
	zl_doctor_near_names(name, &names, 3, &out);
	for (i = 0; i < out.nr; i++)
		strbuf_addf(&got, "%s%s", i ? "," : "", out.v[i]);
	assert_string_equal(got.buf, want);
	strbuf_release(&got);
	strvec_clear(&names);
	strvec_clear(&out);
}

static void test_near_names(void **state)
{
	(void)state;
	/* a part of the name: prefix first, then substring, shorter first; then typos */
	expect_near("router", "router_gemm");
	expect_near("gemm", "gemm_a8w8,router_gemm,bmm");
	expect_near("soft", "softmax,log_softmax");
	/* a typo, and a part too short to mean anything ("mm" is in half the names) */
	expect_near("mmm", "mm,bmm,sum");
	/* no addmm or router_gemm: a part counts from 3 characters */
	expect_near("m", "mm,bmm,sum");
	/* never the name itself, never more than max */
	expect_near("softmax", "log_softmax");
	expect_near("zzzzzz", "");
}

static char *command_of(const char *const *env, const char *const *argv)
{
	struct strvec e = STRVEC_INIT, a = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;

	strvec_pushv(&e, (const char **)env);
	strvec_pushv(&a, (const char **)argv);
	zl_doctor_command_line("/fg dir", &e, &a, "/tmp/zlbench-doctor-x", &sb);
	strvec_clear(&e);
	strvec_clear(&a);
	return strbuf_detach(&sb, NULL);
}

static void test_command_line(void **state)
{
	static const char *const env[] = { "PYTHONPATH=/p:/fg dir/src", "OTHER_VISIBLE", "ZL_RUN_DIR=/tmp/zlbench-doctor-x",
					   "ZL_DOCTOR_MODE", "ZL_DOCTOR_MODE=probe", "DEV=0", "DEV=1", "Q=it's", NULL };
	static const char *const argv[] = { "/usr/bin/python3", "-m", "zl_doctor", "vendor",
					    "/tmp/zlbench-doctor-x/vendor.json", "-k", "a b", NULL };
	char *got;

	(void)state;
	got = command_of(env, argv);
	/* the last edit of a name wins; the doctor's directory becomes a fresh one; every word quoted */
	assert_string_equal(got, "(cd '/fg dir' && export ZL_RUN_DIR=\"$(mktemp -d)\" && echo \"files in $ZL_RUN_DIR\" >&2"
			    " && unset OTHER_VISIBLE && PYTHONPATH='/p:/fg dir/src' ZL_DOCTOR_MODE=probe DEV=1"
			    " Q='it'\\''s' /usr/bin/python3 -m zl_doctor vendor \"$ZL_RUN_DIR\"/vendor.json -k 'a b')");
	free(got);
}

static void test_tests_in_file(void **state)
{
	const char *src = getenv("ZL_SOURCE_DIR");
	char *file = xstrfmt("%s/tests/fixtures/doctor/fg/benchmark/test_mm.py", src ? src : ZL_SOURCE_DIR);
	struct strvec names = STRVEC_INIT;

	(void)state;
	zl_doctor_tests_in_file(file, &names);
	assert_int_equal(names.nr, 1);
	assert_string_equal(names.v[0], "test_mm");
	strvec_clear(&names);
	free(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape_key),
		cmocka_unit_test(test_module_of),
		cmocka_unit_test(test_kernel_of_op),
		cmocka_unit_test(test_find_defs),
		cmocka_unit_test(test_tail),
		cmocka_unit_test(test_near_names),
		cmocka_unit_test(test_command_line),
		cmocka_unit_test(test_tests_in_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
