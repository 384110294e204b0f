/* File-system helpers. All return 0 on success, -1 with a message in err. */
#ifndef ZLBENCH_FSUTIL_H
#define ZLBENCH_FSUTIL_H

#include <stddef.h>
#include "strbuf.h"

/* write() all of data, retrying on EINTR and short writes. 0, or -1 with errno set. */
int zl_write_all(int fd, const void *data, size_t len);
/* The running binary's path (for starting itself again). Caller frees. */
char *zl_self_exe(void);
/* Write data to path atomically: a temp file beside it, fsync, rename. */
int zl_write_file_atomic(const char *path, const void *data, size_t len, struct strbuf *err);
/* mkdir -p with mode 0777 (umask applies). */
int zl_mkdir_p(const char *path, struct strbuf *err);
/*
 * Create the leaf directory itself, exclusively (its parents as mkdir -p): 0 when this
 * call created it, 1 when something already had that name (left untouched), -1 on error.
 */
int zl_mkdir_new(const char *path, struct strbuf *err);
/* rm -rf; never follows symbolic links. Missing path is success. */
int zl_remove_tree(const char *path, struct strbuf *err);
/* Make a fresh private directory from a template ending in XXXXXX under dir. Caller frees *out. */
int zl_mkdtemp_in(const char *dir, const char *prefix, char **out, struct strbuf *err);
int zl_is_dir(const char *path);
int zl_is_file(const char *path);
/* 1 when path does not exist or is an empty directory; 0 when non-empty or not a dir. */
int zl_dir_absent_or_empty(const char *path);
/* Absolute, normalised path (realpath when it exists, else cwd-joined). Caller frees. */
char *zl_absolute_path(const char *path);
/* Join two path components. Caller frees. */
char *zl_path_join(const char *a, const char *b);
/* Find an executable: a name with '/' is checked as is, else searched on PATH. Caller frees; NULL if none. */
char *zl_find_executable(const char *name);
/* The same search on a given PATH value (NULL: a default PATH). Caller frees. */
char *zl_find_executable_in(const char *name, const char *path);

#endif
