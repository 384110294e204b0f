#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zlbench/cachesweep.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

/*
 * From /proc/PID/stat: the state, the process group and the start time (clock ticks after
 * boot). 0, or -1 when the process is gone or a zombie (dead, waiting to be reaped: a
 * pid 1 that does not reap keeps them for a long time).
 */
static int proc_stat(long pid, long *pgrp, long long *start)
{
	char *path = xstrfmt("/proc/%ld/stat", pid);
	struct strbuf stat = STRBUF_INIT;
	char *paren, state = 0;
	int rc = -1;

	/* "pid (comm) state ppid pgrp ...": comm may hold spaces and ')', so parse after the last ')' */
	if (strbuf_read_file(&stat, path) > 0 && (paren = strrchr(stat.buf, ')')) &&
	    sscanf(paren + 1, " %c %*d %ld %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %lld",
		   &state, pgrp, start) == 3 && state != 'Z' && state != 'X')
		rc = 0;
	strbuf_release(&stat);
	free(path);
	return rc;
}

static long long start_ticks(long pid)
{
	long pgrp;
	long long start;

	return proc_stat(pid, &pgrp, &start) ? -1 : start;
}

/* 1 when a live (not zombie) process is in process group pgid. */
static int group_alive(long pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int alive = 0;

	if (!d)
		return 1; /* cannot tell: in use */
	while (!alive && (de = readdir(d))) {
		long pid, pgrp;
		long long start;

		if (!zl_parse_long(de->d_name, &pid) && !proc_stat(pid, &pgrp, &start))
			alive = pgrp == pgid;
	}
	closedir(d);
	return alive;
}

/* This process's pid namespace ("pid:[4026531836]"), or "" when it cannot be read. */
static void pid_namespace(char *out, size_t size)
{
	ssize_t n = readlink("/proc/self/ns/pid", out, size - 1);

	out[n > 0 ? n : 0] = '\0';
}

static void host_name(char *out, size_t size)
{
	if (gethostname(out, size))
		snprintf(out, size, "unknown");
	out[size - 1] = '\0';
}

int zl_cache_owner_write(const char *root, pid_t child_pgid, struct strbuf *err)
{
	char ns[128], host[256];
	char *path = zl_path_join(root, ZL_CACHE_OWNER_FILE);
	char *text;
	int rc;

	pid_namespace(ns, sizeof(ns));
	host_name(host, sizeof(host));
	text = xstrfmt("pid=%ld\nstart=%lld\npgid=%ld\nhost=%s\npidns=%s\n", (long)getpid(),
		       start_ticks((long)getpid()), (long)child_pgid, host, ns);
	rc = zl_write_file_atomic(path, text, strlen(text), err);
	free(text);
	free(path);
	return rc;
}

struct owner {
	long pid, pgid;
	long long start;
	char host[256], pidns[128];
};

static const char *field(const char *text, const char *key)
{
	size_t n = strlen(key);
	const char *p = text;

	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, n) && p[n] == '=')
			return p + n + 1;
	return NULL;
}

static void copy_line(char *out, size_t size, const char *v)
{
	size_t n = v ? strcspn(v, "\n") : 0;

	if (n >= size)
		n = size - 1;
	if (n)
		memcpy(out, v, n);
	out[n] = '\0';
}

/* 0 when root's owner file was read whole. */
static int read_owner(const char *root, struct owner *o)
{
	char *path = zl_path_join(root, ZL_CACHE_OWNER_FILE);
	struct strbuf text = STRBUF_INIT;
	const char *pid, *start, *pgid, *host, *ns;
	int rc = -1;

	if (strbuf_read_file(&text, path) < 0 || text.len > 4096)
		goto out;
	pid = field(text.buf, "pid");
	start = field(text.buf, "start");
	pgid = field(text.buf, "pgid");
	host = field(text.buf, "host");
	ns = field(text.buf, "pidns");
	if (!pid || !start || !pgid || !host || !ns || sscanf(pid, "%ld", &o->pid) != 1 ||
	    sscanf(start, "%lld", &o->start) != 1 || sscanf(pgid, "%ld", &o->pgid) != 1 || o->pid <= 0)
		goto out;
	copy_line(o->host, sizeof(o->host), host);
	copy_line(o->pidns, sizeof(o->pidns), ns);
	rc = 0;
out:
	strbuf_release(&text);
	free(path);
	return rc;
}

/* Why a cache with this owner is stale (a static string), or NULL when in use or not to be judged. */
static const char *stale_reason(const struct owner *o)
{
	char ns[128], host[256];
	long long now;

	pid_namespace(ns, sizeof(ns));
	host_name(host, sizeof(host));
	if (strcmp(o->host, host) || !ns[0] || strcmp(o->pidns, ns))
		return NULL;
	now = start_ticks(o->pid);
	if (now >= 0 && (o->start < 0 || now == o->start))
		return NULL; /* the owner runs */
	if (o->pgid > 0 && group_alive(o->pgid))
		return NULL; /* its pytest (or what it started) still runs */
	return now < 0 ? "its zlbench is gone" : "its zlbench is gone (pid reused)";
}

int zl_cache_sweep_stale(const char *tmpdir)
{
	const char *dir = tmpdir ? tmpdir : zl_tmp_dir();
	struct strbuf err = STRBUF_INIT;
	struct dirent *de;
	int removed = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct owner o;
		struct stat st;
		const char *why;
		char *root;

		if (!zl_starts_with(de->d_name, ZL_CACHE_PREFIX))
			continue;
		root = zl_path_join(dir, de->d_name);
		memset(&o, 0, sizeof(o));
		if (!lstat(root, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !read_owner(root, &o) &&
		    (why = stale_reason(&o))) {
			strbuf_reset(&err);
			if (zl_remove_tree(root, &err))
				zl_print_warning("cannot remove the stale isolated caches '%s' (%s, pid %ld): %s", root,
						 why, o.pid, err.buf);
			else {
				removed++;
				if (zl_verbosity >= 0)
					fprintf(stderr, "zlbench: removed the isolated caches '%s' of a killed run (%s, pid %ld)\n",
						root, why, o.pid);
			}
		}
		free(root);
	}
	closedir(d);
	strbuf_release(&err);
	return removed;
}
