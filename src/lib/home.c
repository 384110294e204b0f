#include <stdlib.h>

#include "zlbench/env.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/home.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

char *zl_home_dir(void)
{
	const char *v;

	if ((v = zl_env(ZL_ENV_HOME)))
		return xstrdup(v);
	if ((v = zl_env(ZL_ENV_XDG_DATA_HOME)))
		return zl_path_join(v, "zlbench");
	if ((v = zl_env(ZL_ENV_HOME_DIR)))
		return zl_path_join(v, ".local/share/zlbench");
	return NULL;
}

int zl_home_ensure(char **out, struct strbuf *err)
{
	char *dir = zl_home_dir();

	*out = NULL;
	if (!dir)
		return zl_error(err, "cannot locate zlbench's data directory: set ZL_HOME or HOME");
	if (zl_mkdir_p(dir, err)) {
		free(dir);
		return -1;
	}
	*out = dir;
	return 0;
}

int zl_home_subdir_ensure(const char *name, char **out, struct strbuf *err)
{
	char *home, *dir;

	*out = NULL;
	if (zl_home_ensure(&home, err))
		return -1;
	dir = zl_path_join(home, name);
	free(home);
	if (zl_mkdir_p(dir, err)) {
		free(dir);
		return -1;
	}
	*out = dir;
	return 0;
}

const char *zl_history_db_env(void)
{
	return zl_env(ZL_ENV_HISTORY_DB);
}

char *zl_history_db_path(void)
{
	const char *v = zl_history_db_env();
	char *home, *path;

	if (v)
		return xstrdup(v);
	home = zl_home_dir();
	if (!home)
		return NULL;
	path = zl_path_join(home, "history.db");
	free(home);
	return path;
}
