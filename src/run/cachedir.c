#include <stdlib.h>

#include "zlbench/cachedir.h"
#include "zlbench/env.h"
#include "zlbench/fsutil.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

static const struct {
	enum zl_env_id var;
	const char *under_home;   /* the default, relative to $HOME */
} caches[] = {
	[ZL_CACHE_FLAGGEMS] = { ZL_ENV_FLAGGEMS_CACHE_DIR, ".flaggems" },
	[ZL_CACHE_TRITON] = { ZL_ENV_TRITON_CACHE_DIR, ".triton/cache" },
};

const char *zl_cache_var(enum zl_cache which)
{
	return zl_env_name(caches[which].var);
}

static char *cache_dir_or(enum zl_cache which, const char *no_home)
{
	const char *dir = zl_env(caches[which].var);
	const char *home = zl_env(ZL_ENV_HOME_DIR);

	if (dir)
		return zl_absolute_path(dir);
	if (home)
		return zl_path_join(home, caches[which].under_home);
	return no_home ? zl_path_join(no_home, caches[which].under_home) : NULL;
}

char *zl_cache_dir(enum zl_cache which)
{
	return cache_dir_or(which, NULL);
}

char *zl_cache_dir_for_run(enum zl_cache which)
{
	return cache_dir_or(which, "/root");
}

void zl_cache_dir_env(enum zl_cache which, const char *isolated, struct strvec *env)
{
	const char *name = zl_env_name(caches[which].var);
	const char *v = zl_env_raw(caches[which].var);
	char *abs;

	if (isolated) {
		strvec_pushf(env, "%s=%s", name, isolated);
		return;
	}
	if (!v || v[0] == '/')
		return;
	if (!*v) {
		strvec_push(env, name);
		return;
	}
	abs = zl_absolute_path(v);
	strvec_pushf(env, "%s=%s", name, abs);
	free(abs);
}
