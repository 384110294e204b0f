#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "zlbench/cachedir.h"
#include "zlbench/fsutil.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"

/* The child's edit of the variable, for each of its meanings, and what zlbench counts. */
static void test_meanings(void **state)
{
	struct strvec env = STRVEC_INIT;
	char *dir, *want;
	(void)state;

	assert_int_equal(setenv("HOME", "/home/someone", 1), 0);
	/* unset: nothing for the child, the default under HOME here */
	assert_int_equal(unsetenv("FLAGGEMS_CACHE_DIR"), 0);
	zl_cache_dir_env(ZL_CACHE_FLAGGEMS, NULL, &env);
	assert_int_equal(env.nr, 0);
	dir = zl_cache_dir(ZL_CACHE_FLAGGEMS);
	assert_string_equal(dir, "/home/someone/.flaggems");
	free(dir);
	/* empty: removed for the child, the default here too */
	assert_int_equal(setenv("TRITON_CACHE_DIR", "", 1), 0);
	zl_cache_dir_env(ZL_CACHE_TRITON, NULL, &env);
	assert_int_equal(env.nr, 1);
	assert_string_equal(env.v[0], "TRITON_CACHE_DIR");
	dir = zl_cache_dir(ZL_CACHE_TRITON);
	assert_string_equal(dir, "/home/someone/.triton/cache");
	free(dir);
	/* relative: made absolute against our cwd, for both */
	strvec_clear(&env);
	assert_int_equal(setenv("TRITON_CACHE_DIR", "rel/tc", 1), 0);
	zl_cache_dir_env(ZL_CACHE_TRITON, NULL, &env);
	want = zl_absolute_path("rel/tc");
	dir = xstrfmt("TRITON_CACHE_DIR=%s", want);
	assert_int_equal(env.nr, 1);
	assert_string_equal(env.v[0], dir);
	free(dir);
	dir = zl_cache_dir(ZL_CACHE_TRITON);
	assert_string_equal(dir, want);
	free(dir);
	free(want);
	/* absolute: as it is; an isolated directory wins over it */
	strvec_clear(&env);
	assert_int_equal(setenv("TRITON_CACHE_DIR", "/x/tc", 1), 0);
	zl_cache_dir_env(ZL_CACHE_TRITON, NULL, &env);
	assert_int_equal(env.nr, 0);
	zl_cache_dir_env(ZL_CACHE_TRITON, "/tmp/iso/triton", &env);
	assert_string_equal(env.v[0], "TRITON_CACHE_DIR=/tmp/iso/triton");
	strvec_clear(&env);
	assert_int_equal(unsetenv("TRITON_CACHE_DIR"), 0);
}

/* With no HOME there is no default, except in a run's record. */
static void test_no_home(void **state)
{
	char *dir;
	(void)state;

	assert_int_equal(unsetenv("HOME"), 0);
	assert_int_equal(setenv("FLAGGEMS_CACHE_DIR", "", 1), 0);
	assert_null(zl_cache_dir(ZL_CACHE_FLAGGEMS));
	dir = zl_cache_dir_for_run(ZL_CACHE_FLAGGEMS);
	assert_string_equal(dir, "/root/.flaggems");
	free(dir);
	assert_string_equal(zl_cache_var(ZL_CACHE_FLAGGEMS), "FLAGGEMS_CACHE_DIR");
	assert_int_equal(unsetenv("FLAGGEMS_CACHE_DIR"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meanings),
		cmocka_unit_test(test_no_home),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
