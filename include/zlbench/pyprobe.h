/*
 * What an interpreter offers a run: its version, and that it can import pytest
 * (which file, which version). The import costs 0.3-0.9 s, so only a cache miss pays it.
 *
 * Results are cached in $ZL_HOME/cache/pyprobe-<hash>.json, keyed on the
 * interpreter's real path and identity (inode, size, mtime) and the variables that
 * change its sys.path (PYTHONPATH, PYTHONHOME, VIRTUAL_ENV). A hit is believed only
 * while pytest's __init__.py still exists with the mtime it had and no PYTHONPATH
 * directory ahead of it has gained another pytest: an uninstall, an upgrade, an edit
 * or a shadowing copy sends zlbench back to the interpreter. Failures are not cached.
 * Owner: the caller owns struct zl_pyprobe; zl_pyprobe_release() frees it.
 */
#ifndef ZLBENCH_PYPROBE_H
#define ZLBENCH_PYPROBE_H

#include "strbuf.h"

struct zl_pyprobe {
	char *python_version;
	char *pytest_version;
	char *pytest_origin;    /* pytest/__init__.py */
	int from_cache;
};
#define ZL_PYPROBE_INIT { NULL, NULL, NULL, 0 }

void zl_pyprobe_release(struct zl_pyprobe *p);
/* 0 when pytest imports; -1 with err naming the interpreter and what it said. */
int zl_pyprobe(const char *python_path, struct zl_pyprobe *out, struct strbuf *err);

#endif
