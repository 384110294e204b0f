/* The environment table (lib/env.c): one row a variable, empty as unset, defaults as the code has them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "zlbench/backend.h"
#include "zlbench/child.h"
#include "zlbench/env.h"
#include "zlbench/fsutil.h"
#include "zlbench/push.h"
#include "zlbench/settings.h"
#include "zlbench/slurm.h"
#include "zlbench/zlbench.h"

/* Every row in its place, every name once: not twice here, not here and in the settings or backend rows too. */
static void test_rows(void **state)
{
	const struct zl_backend *b;
	size_t i, j;
	(void)state;

	for (i = 0; i < ZL_ENV__COUNT; i++) {
		const struct zl_env_def *d = &zl_env_defs[i];

		assert_int_equal(d->id, i);
		assert_non_null(d->name);
		assert_non_null(d->meaning);
		assert_true(*d->meaning && d->meaning[strlen(d->meaning) - 1] != '.');
		assert_ptr_equal(zl_env_find(d->name), d);
		assert_string_equal(zl_env_name(d->id), d->name);
		for (j = 0; j < ZL_SET__COUNT; j++)
			if (zl_setting_defs[j].env && !strcmp(zl_setting_defs[j].env, d->name))
				fail_msg("%s has a row here and in the settings table", d->name);
		for (b = zl_backend_table; b->name; b++)
			if (!strcmp(b->visibility_var, d->name))
				fail_msg("%s has a row here and in the backend table", d->name);
		/* what zlbench sets for what it starts has no default of yours */
		if (d->group == ZL_ENVG_INTERNAL || d->group == ZL_ENVG_CHILD)
			assert_null(d->default_doc);
	}
	assert_null(zl_env_find("ZL_NO_SUCH_VARIABLE"));
}

/* An empty variable is unset; the raw forms tell them apart. */
static void test_empty_is_unset(void **state)
{
	(void)state;

	assert_int_equal(setenv("ZL_DEV_ROOT", "", 1), 0);
	assert_null(zl_env(ZL_ENV_DEV_ROOT));
	assert_string_equal(zl_env_raw(ZL_ENV_DEV_ROOT), "");
	assert_null(zl_env_by_name("ZL_DEV_ROOT"));
	assert_string_equal(zl_env_raw_by_name("ZL_DEV_ROOT"), "");
	assert_string_equal(zl_dev_root(), "/dev");
	assert_int_equal(setenv("ZL_DEV_ROOT", "/tmp/devs", 1), 0);
	assert_string_equal(zl_env(ZL_ENV_DEV_ROOT), "/tmp/devs");
	assert_string_equal(zl_dev_root(), "/tmp/devs");
	assert_int_equal(unsetenv("ZL_DEV_ROOT"), 0);
	assert_null(zl_env_raw(ZL_ENV_DEV_ROOT));
}

static void default_is(enum zl_env_id id, double code_default)
{
	char *end;
	double doc = strtod(zl_env_defs[id].default_doc, &end);

	if (*end || doc != code_default)
		fail_msg("%s: documented default '%s', the code's %g", zl_env_name(id), zl_env_defs[id].default_doc,
			 code_default);
}

/* The defaults the table states are the code's. */
static void test_defaults(void **state)
{
	char path[4096], line[256];
	FILE *f;
	int found = 0;
	(void)state;

	unsetenv("ZL_KILL_GRACE");
	unsetenv("TMPDIR");
	unsetenv("ZL_DEV_ROOT");
	default_is(ZL_ENV_PUSH_BACKOFF_MS, (double)ZL_PUSH_DEFAULT_BACKOFF_MS);
	default_is(ZL_ENV_SLURM_POLL, ZL_SLURM_POLL_DEFAULT);
	default_is(ZL_ENV_SLURM_TIMEOUT, ZL_SLURM_CMD_TIMEOUT_DEFAULT);
	default_is(ZL_ENV_QUERY_TIMEOUT, ZL_QUERY_TIMEOUT_DEFAULT);
	default_is(ZL_ENV_KILL_GRACE, zl_kill_grace());
	assert_string_equal(zl_env_defs[ZL_ENV_TMPDIR].default_doc, zl_tmp_dir());
	assert_string_equal(zl_env_defs[ZL_ENV_DEV_ROOT].default_doc, zl_dev_root());
	/* the worker plugin's own default (plugins/zl_worker.py reads the variable) */
	assert_non_null(getenv("ZL_SOURCE_DIR"));
	assert_true(snprintf(path, sizeof(path), "%s/plugins/zl_worker.py", getenv("ZL_SOURCE_DIR")) < (int)sizeof(path));
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "MEM_SLACK_MIB = ", 16)) {
			found = 1;
			line[strcspn(line, "\n")] = 0;
			assert_string_equal(line + 16, zl_env_defs[ZL_ENV_WORKER_MEM_SLACK_MIB].default_doc);
		}
	fclose(f);
	assert_true(found);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_empty_is_unset),
		cmocka_unit_test(test_defaults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
