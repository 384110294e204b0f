/*
 * Isolated tuner caches (TMPDIR/zlbench-caches-XXXXXX) are removed by the run on
 * every path but one: zlbench killed outright (kill -9, OOM killer). So each one
 * holds an `owner` file naming the zlbench process and the pytest process group
 * that use it, and every run sweeps, at its start, the ones whose owners are gone.
 *
 * A cache is stale when all of these hold: it is a directory of this user (not a
 * link); its owner file was written on this host, in this pid namespace (another
 * namespace's pids cannot be judged from here); the zlbench process is gone (no
 * such pid, or a pid reused by a process that started later); and no process is
 * left in its pytest process group. A cache without an owner file (one being made
 * right now, or an older zlbench's) is never touched.
 */
#ifndef ZLBENCH_CACHESWEEP_H
#define ZLBENCH_CACHESWEEP_H

#include <sys/types.h>
#include "strbuf.h"

#define ZL_CACHE_PREFIX "zlbench-caches-"
#define ZL_CACHE_OWNER_FILE "owner"

/*
 * Write (atomically) root's owner file for this process and, once the child is
 * started, its process group (0: none yet). 0, or -1 with err.
 */
int zl_cache_owner_write(const char *root, pid_t child_pgid, struct strbuf *err);

/*
 * Remove the stale caches in tmpdir (NULL: $TMPDIR, else /tmp), saying on stderr
 * what was removed and why. Returns how many were removed.
 */
int zl_cache_sweep_stale(const char *tmpdir);

#endif
