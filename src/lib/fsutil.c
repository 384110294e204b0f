#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zlbench/env.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

int zl_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static const struct {
	mode_t type;
	const char *name;
} file_types[] = {
	{ S_IFDIR, "a directory" },
	{ S_IFIFO, "a fifo" },
	{ S_IFCHR, "a character device" },
	{ S_IFBLK, "a block device" },
	{ S_IFSOCK, "a socket" },
};

static const char *file_type_name(mode_t mode)
{
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(file_types); i++)
		if ((mode & S_IFMT) == file_types[i].type)
			return file_types[i].name;
	return "not a plain file";
}

/* "cannot read <what> '<path>': <why>", with errno left as e. */
static int read_refused(struct strbuf *err, const char *what, const char *path, int e, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int read_refused(struct strbuf *err, const char *what, const char *path, int e, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		strbuf_reset(err);
		strbuf_addf(err, "cannot read %s%s'%s': ", what ? what : "", what ? " " : "", path);
		va_start(ap, fmt);
		strbuf_vaddf(err, fmt, ap);
		va_end(ap);
	}
	errno = e;
	return -1;
}

/* A cap as written in messages: "16 MiB", or bytes for a cap that is not whole MiB. */
static const char *cap_text(char buf[32], size_t cap)
{
	if (cap % ZL_MIB)
		snprintf(buf, 32, "%zu byte", cap);
	else
		snprintf(buf, 32, "%zu MiB", cap / ZL_MIB);
	return buf;
}

static int check_stat(const struct stat *st, const char *path, const char *what, size_t cap, struct strbuf *err)
{
	char buf[32];

	if (!S_ISREG(st->st_mode))
		return read_refused(err, what, path, EINVAL, "%s, not a regular file", file_type_name(st->st_mode));
	if ((unsigned long long)st->st_size > cap)
		return read_refused(err, what, path, EFBIG, "%llu bytes, over the %s limit for this file",
				    (unsigned long long)st->st_size, cap_text(buf, cap));
	return 0;
}

int zl_check_regular_fd(int fd, const char *path, const char *what, size_t cap, struct strbuf *err)
{
	struct stat st;

	if (fstat(fd, &st))
		return read_refused(err, what, path, errno, "%s", strerror(errno));
	return check_stat(&st, path, what, cap, err);
}

int zl_open_regular(const char *path, const char *what, size_t cap, struct strbuf *err)
{
	struct stat st;
	int fd, flags, e;

	/* a device is refused before open(): opening one can have effects of its own */
	if (stat(path, &st))
		return read_refused(err, what, path, errno, "%s", strerror(errno));
	if (check_stat(&st, path, what, cap, err))
		return -1;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return read_refused(err, what, path, errno, "%s", strerror(errno));
	/* what was opened decides: the path may have been replaced since the stat() */
	if (zl_check_regular_fd(fd, path, what, cap, err))
		goto fail;
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)) {
		read_refused(err, what, path, errno, "%s", strerror(errno));
		goto fail;
	}
	return fd;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

int zl_read_file(struct strbuf *sb, const char *path, const char *what, size_t cap, struct strbuf *err)
{
	size_t start = sb->len;
	int fd = zl_open_regular(path, what, cap, err), e;

	if (fd < 0)
		return -1;
	for (;;) {
		size_t room;
		ssize_t n;

		strbuf_grow(sb, 8192);
		room = sb->alloc - sb->len - 1;
		/* one byte past the cap is enough to know that the file grew over it */
		if (room > cap + 1 - (sb->len - start))
			room = cap + 1 - (sb->len - start);
		n = read(fd, sb->buf + sb->len, room);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			read_refused(err, what, path, e, "%s", strerror(e));
			goto fail;
		}
		if (!n)
			break;
		strbuf_setlen(sb, sb->len + (size_t)n);
		if (sb->len - start > cap) {
			char buf[32];

			e = EFBIG;
			read_refused(err, what, path, e, "grew over the %s limit for this file while being read",
				     cap_text(buf, cap));
			goto fail;
		}
	}
	close(fd);
	return 0;
fail:
	close(fd);
	strbuf_setlen(sb, start);
	errno = e;
	return -1;
}

int zl_write_file_atomic(const char *path, const void *data, size_t len, struct strbuf *err)
{
	return zl_write_file_atomic_mode(path, data, len, 0644, err);
}

int zl_write_file_atomic_mode(const char *path, const void *data, size_t len, mode_t mode, struct strbuf *err)
{
	char *tmp = xstrfmt("%s.tmp.XXXXXX", path);
	int fd = mkstemp(tmp);
	int saved;

	if (fd < 0) {
		zl_error(err, "cannot create temporary file for '%s': %s", path, strerror(errno));
		free(tmp);
		return -1;
	}
	if (fchmod(fd, mode) || zl_write_all(fd, data, len) || fsync(fd)) {
		saved = errno;
		close(fd);
		unlink(tmp);
		zl_error(err, "cannot write '%s': %s", tmp, strerror(saved));
		free(tmp);
		return -1;
	}
	if (close(fd)) {
		saved = errno;
		unlink(tmp);
		zl_error(err, "cannot close '%s': %s", tmp, strerror(saved));
		free(tmp);
		return -1;
	}
	if (rename(tmp, path)) {
		saved = errno;
		unlink(tmp);
		zl_error(err, "cannot rename '%s' to '%s': %s", tmp, path, strerror(saved));
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

int zl_mkdir_p(const char *path, struct strbuf *err)
{
	char *copy = xstrdup(path);
	char *p;

	for (p = copy + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char saved = *p;
			*p = '\0';
			if (mkdir(copy, 0777) && errno != EEXIST) {
				zl_error(err, "cannot create directory '%s': %s", copy, strerror(errno));
				free(copy);
				return -1;
			}
			*p = saved;
			if (!saved)
				break;
		}
	}
	free(copy);
	if (!zl_is_dir(path))
		return zl_error(err, "'%s' exists and is not a directory", path);
	return 0;
}

int zl_mkdir_new(const char *path, struct strbuf *err)
{
	char *parent = xstrdup(path), *slash;
	int rc = 0;

	for (slash = parent + strlen(parent); slash > parent && slash[-1] == '/'; slash--)
		*(slash - 1) = '\0';
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		rc = zl_mkdir_p(parent, err);
	}
	free(parent);
	if (rc)
		return -1;
	if (!mkdir(path, 0777))
		return 0;
	if (errno == EEXIST)
		return 1;
	return zl_error(err, "cannot create directory '%s': %s", path, strerror(errno));
}

static int remove_at(int at, const char *name, struct strbuf *err, const char *top)
{
	struct stat st;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;
		return zl_error(err, "cannot stat '%s' under '%s': %s", name, top, strerror(errno));
	}
	if (S_ISDIR(st.st_mode)) {
		int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *d;
		struct dirent *de;
		int rc = 0;

		if (fd < 0)
			return zl_error(err, "cannot open '%s' under '%s': %s", name, top, strerror(errno));
		d = fdopendir(fd);
		if (!d) {
			close(fd);
			return zl_error(err, "cannot read '%s' under '%s': %s", name, top, strerror(errno));
		}
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (remove_at(dirfd(d), de->d_name, err, top))
				rc = -1;
		}
		closedir(d);
		if (rc)
			return -1;
		if (unlinkat(at, name, AT_REMOVEDIR) && errno != ENOENT)
			return zl_error(err, "cannot remove '%s' under '%s': %s", name, top, strerror(errno));
		return 0;
	}
	if (unlinkat(at, name, 0) && errno != ENOENT)
		return zl_error(err, "cannot remove '%s' under '%s': %s", name, top, strerror(errno));
	return 0;
}

int zl_remove_tree(const char *path, struct strbuf *err)
{
	return remove_at(AT_FDCWD, path, err, path);
}

int zl_mkdtemp_in(const char *dir, const char *prefix, char **out, struct strbuf *err)
{
	char *tmpl = xstrfmt("%s/%sXXXXXX", dir, prefix);

	if (!mkdtemp(tmpl)) {
		zl_error(err, "cannot create temporary directory in '%s': %s", dir, strerror(errno));
		free(tmpl);
		return -1;
	}
	*out = tmpl;
	return 0;
}

int zl_is_dir(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int zl_is_file(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

int zl_dir_absent_or_empty(const char *path)
{
	DIR *d;
	struct dirent *de;
	int empty = 1;

	if (access(path, F_OK) && errno == ENOENT)
		return 1;
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = 0;
			break;
		}
	}
	closedir(d);
	return empty;
}

char *zl_path_join(const char *a, const char *b)
{
	size_t la = strlen(a);

	if (!la || b[0] == '/')
		return xstrdup(b);
	if (a[la - 1] == '/')
		return xstrfmt("%s%s", a, b);
	return xstrfmt("%s/%s", a, b);
}

const char *zl_tmp_dir(void)
{
	const char *tmp = zl_env(ZL_ENV_TMPDIR);

	return tmp ? tmp : "/tmp";
}

char *zl_path_base_name(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	const char *slash;

	strbuf_addstr(&sb, path);
	while (sb.len > 1 && sb.buf[sb.len - 1] == '/')
		strbuf_setlen(&sb, sb.len - 1);
	slash = strrchr(sb.buf, '/');
	if (slash && slash[1]) {
		char *b = xstrdup(slash + 1);
		strbuf_release(&sb);
		return b;
	}
	return strbuf_detach(&sb, NULL);
}

char *zl_absolute_path(const char *path)
{
	char *real = realpath(path, NULL);
	char cwd[4096];

	if (real)
		return real;
	if (path[0] == '/')
		return xstrdup(path);
	if (!getcwd(cwd, sizeof(cwd)))
		return xstrdup(path);
	return zl_path_join(cwd, path);
}

char *zl_find_executable(const char *name)
{
	return zl_find_executable_in(name, zl_env_raw(ZL_ENV_PATH));
}

char *zl_find_executable_in(const char *name, const char *path)
{
	char *copy, *p;

	if (!name || !*name)
		return NULL;
	if (strchr(name, '/'))
		return access(name, X_OK) ? NULL : xstrdup(name);
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	copy = xstrdup(path);
	for (p = copy; p; ) {
		char *colon = strchr(p, ':');
		char *cand;

		if (colon)
			*colon = '\0';
		cand = zl_path_join(*p ? p : ".", name);
		if (zl_is_file(cand) && !access(cand, X_OK)) {
			free(copy);
			return cand;
		}
		free(cand);
		p = colon ? colon + 1 : NULL;
	}
	free(copy);
	return NULL;
}

char *zl_self_exe(void)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return xstrdup("/proc/self/exe");
	buf[n] = '\0';
	/* a rebuilt binary: the running image is still reachable through /proc */
	if (zl_ends_with(buf, " (deleted)"))
		return xstrdup("/proc/self/exe");
	return xstrdup(buf);
}

int zl_path_is_inside(const char *rel)
{
	const char *p = rel;

	if (!rel || !*rel || *rel == '/')
		return 0;
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return 0;
		p += n;
		while (*p == '/')
			p++;
	}
	return 1;
}

const char *zl_dir_problem(const char *path)
{
	struct stat st;

	if (!stat(path, &st))
		return S_ISDIR(st.st_mode) ? NULL : "is not a directory";
	switch (errno) {
	case ENOENT:
		/* a dangling link is there, but leads nowhere */
		return !lstat(path, &st) && S_ISLNK(st.st_mode) ? "is a symbolic link to nothing" : "does not exist";
	case ELOOP:
		return "is a symbolic link loop (too many levels of symbolic links)";
	case ENOTDIR:
		return "cannot be reached: a part of it is not a directory";
	case EACCES:
		return "cannot be reached: permission denied";
	case ENAMETOOLONG:
		return "is too long a name";
	default:
		return "cannot be reached";
	}
}

int zl_path_exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}
