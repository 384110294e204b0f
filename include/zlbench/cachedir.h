/*
 * Where FlagGems' tuner cache and Triton's compile cache are: what FLAGGEMS_CACHE_DIR and
 * TRITON_CACHE_DIR mean, in one place (run.c hands them to the child, facts.c and doctor
 * count what is in them):
 *  - unset or empty: the default under $HOME (~/.flaggems, ~/.triton/cache). FlagGems would
 *    take an empty one as its own cwd, so the child gets it removed: "" means unset for both;
 *  - relative: against zlbench's cwd. The child runs in the FlagGems root, where it would
 *    name another directory, so the child gets it made absolute;
 *  - absolute: as it is, for both.
 * An isolated run (--isolate-tuner-cache) gives the child its own fresh directories instead.
 */
#ifndef ZLBENCH_CACHEDIR_H
#define ZLBENCH_CACHEDIR_H

#include "strvec.h"

enum zl_cache { ZL_CACHE_FLAGGEMS, ZL_CACHE_TRITON };

/* The variable that names the cache ("FLAGGEMS_CACHE_DIR"). */
const char *zl_cache_var(enum zl_cache which);
/* The cache directory (absolute); NULL when the variable and HOME are both unset or empty. Caller frees. */
char *zl_cache_dir(enum zl_cache which);
/*
 * The same for a run's record: with neither set, the default under /root (where FlagGems'
 * expansion of "~" lands in the containers zlbench runs in). Caller frees.
 */
char *zl_cache_dir_for_run(enum zl_cache which);
/*
 * The child's environment edit for the cache (appended to env, child.h's NAME=value or
 * NAME): the isolated directory when there is one, else the variable made absolute, or
 * removed when empty; nothing when it is unset or already absolute.
 */
void zl_cache_dir_env(enum zl_cache which, const char *isolated, struct strvec *env);

#endif
