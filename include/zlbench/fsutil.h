/* File-system helpers. All return 0 on success, -1 with a message in err. */
#ifndef ZLBENCH_FSUTIL_H
#define ZLBENCH_FSUTIL_H

#include <stddef.h>
#include <sys/types.h>
#include "strbuf.h"

/*
 * Reading files that come from outside (shape files, run and batch directories, autotune
 * records, a FlagGems checkout): regular files only, and no larger than a cap, so that a
 * FIFO, a device (a link to /dev/zero) or a runaway file is refused at once, with an error
 * that names the file and states the limit, instead of hanging or eating memory.
 *
 * Links are followed: the file checked is the one opened (fstat), so a link to a regular
 * file is fine and a link to a device is not. The path is stat()ed before open(), so that a
 * device is never even opened (opening one can have effects), and opened with O_NONBLOCK,
 * so that a FIFO put there in between does not block the open.
 */
#define ZL_MIB ((size_t)1 << 20)
/* shape files: libyaml holds the whole document in memory; FlagGems' core_shapes.yaml is 17 KB */
#define ZL_CAP_SHAPES (16 * ZL_MIB)
/* JSON documents and sources: run_identity.json, batch.json, ops_status.csv, records, .py */
#define ZL_CAP_DOC (64 * ZL_MIB)
/* results.json (about 650 bytes a row: 1.6 M rows), plugins/timer.jsonl, logs, push spool */
#define ZL_CAP_LARGE (1024 * ZL_MIB)

/*
 * Open path for reading after the checks above. Returns the descriptor, or -1 with err
 * set (when err is not NULL) to "cannot read <what> '<path>': <why>" (what may be NULL)
 * and errno set: the system's errno (ENOENT for a missing file), EINVAL for something
 * that is not a regular file, EFBIG for one over cap bytes.
 */
int zl_open_regular(const char *path, const char *what, size_t cap, struct strbuf *err);
/* The same checks on an open descriptor (for files opened for writing too). 0 or -1. */
int zl_check_regular_fd(int fd, const char *path, const char *what, size_t cap, struct strbuf *err);
/*
 * Read the whole of a regular file of at most cap bytes, appended to sb (NUL-terminated;
 * it may hold NUL bytes of its own: use sb->len). 0, or -1 with err and errno as for
 * zl_open_regular (sb is left as it was). A file that grows past cap while being read is
 * refused too.
 */
int zl_read_file(struct strbuf *sb, const char *path, const char *what, size_t cap, struct strbuf *err);

/* write() all of data, retrying on EINTR and short writes. 0, or -1 with errno set. */
int zl_write_all(int fd, const void *data, size_t len);
/* The running binary's path (for starting itself again). Caller frees. */
char *zl_self_exe(void);
/*
 * Why path is no directory zlbench can use, as words that follow it in a message
 * ("'x' does not exist", "'x' is a symbolic link loop ..."), from stat's errno; NULL
 * when it is a directory. A static string.
 */
const char *zl_dir_problem(const char *path);
/* 1 when something is named path (lstat: a dangling or looping link counts). */
int zl_path_exists(const char *path);
/*
 * 1 when rel, a path read back from one of our own files (ops_status.csv's run_dir,
 * ab.json's rounds), stays inside the directory it is relative to: not empty, not
 * absolute, no ".." component. (A symlink inside may still lead out: the readers
 * take regular files only, and nothing is written through such a path.)
 */
int zl_path_is_inside(const char *rel);
/* Write data to path atomically: a temp file beside it, fsync, rename; mode 0644. */
int zl_write_file_atomic(const char *path, const void *data, size_t len, struct strbuf *err);
/* The same with the file's mode (0600: readable by its owner only, from its creation on). */
int zl_write_file_atomic_mode(const char *path, const void *data, size_t len, mode_t mode, struct strbuf *err);
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
/* Where temporary directories go: $TMPDIR when set and not empty, else /tmp. */
const char *zl_tmp_dir(void);
/* The last component of path, trailing slashes ignored. Caller frees. */
char *zl_path_base_name(const char *path);
/* Join two path components. Caller frees. */
char *zl_path_join(const char *a, const char *b);
/* Find an executable: a name with '/' is checked as is, else searched on PATH. Caller frees; NULL if none. */
char *zl_find_executable(const char *name);
/* The same search on a given PATH value (NULL: a default PATH). Caller frees. */
char *zl_find_executable_in(const char *name, const char *path);

#endif
