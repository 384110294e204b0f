/* The helpers of fuzz.h, compiled into every harness. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/util.h"

static char *dir;

static void remove_dir(void)
{
	struct strbuf err = STRBUF_INIT;

	if (dir && zl_remove_tree(dir, &err))
		fprintf(stderr, "fuzz: %s\n", err.buf);
	strbuf_release(&err);
	free(dir);
	dir = NULL;
}

const char *fuzz_dir(void)
{
	struct strbuf err = STRBUF_INIT;
	const char *tmp = getenv("TMPDIR");

	if (dir)
		return dir;
	if (zl_mkdtemp_in(tmp && *tmp ? tmp : "/tmp", "zl-fuzz-", &dir, &err))
		fuzz_fail("%s", err.buf);
	atexit(remove_dir);
	/* the harnesses are quiet: warnings of the code under test would flood the fuzzer's log */
	zl_verbosity = -1;
	return dir;
}

char *fuzz_path(const char *rel)
{
	return zl_path_join(fuzz_dir(), rel);
}

void fuzz_write(const char *rel, const void *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	char *path = fuzz_path(rel);
	char *parent = xstrdup(path);
	int fd;

	*strrchr(parent, '/') = '\0';
	if (zl_mkdir_p(parent, &err))
		fuzz_fail("%s", err.buf);
	/* no temp file and fsync: thousands of inputs a second, and nothing to keep */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || zl_write_all(fd, data, size) || close(fd))
		fuzz_fail("cannot write '%s': %s", path, strerror(errno));
	free(parent);
	free(path);
}

char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);

	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz: invariant broken: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
