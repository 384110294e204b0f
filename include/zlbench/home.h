/*
 * ZL_HOME: zlbench's per-user data directory (history database, push spool, ...).
 *
 * Resolution order: $ZL_HOME, else $XDG_DATA_HOME/zlbench, else
 * $HOME/.local/share/zlbench. Empty variables count as unset (XDG rule).
 */
#ifndef ZLBENCH_HOME_H
#define ZLBENCH_HOME_H

#include "strbuf.h"

/* The directory's path, not created. Caller frees; NULL only when HOME is unset too. */
char *zl_home_dir(void);

/*
 * Resolve and create (mkdir -p) the directory. On success *out holds its path
 * (caller frees). On failure returns -1, *out is left NULL and err names the path.
 */
int zl_home_ensure(char **out, struct strbuf *err);

/* Same for a subdirectory of ZL_HOME (e.g. "spool"). Caller frees *out. */
int zl_home_subdir_ensure(const char *name, char **out, struct strbuf *err);

/*
 * The history database every command opens unless its --db says otherwise:
 * $ZL_HISTORY_DB when set and not empty, else $ZL_HOME/history.db.
 */
/* $ZL_HISTORY_DB, or NULL when unset or empty (borrowed from the environment). */
const char *zl_history_db_env(void);
/* The resolved path, not created. Caller frees; NULL only when no home can be found. */
char *zl_history_db_path(void);

#endif
