#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "zlbench/child.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/util.h"

int bench_run(const char *const *argv, const char *const *env, struct bench_sample *out)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf err = STRBUF_INIT;
	struct rusage ru;
	double t0;
	int status = 0;
	pid_t r;

	strvec_pushv(&cp.args, (const char **)argv);
	if (env)
		strvec_pushv(&cp.env, (const char **)env);
	cp.capture_output = 1;
	cp.no_stdin = 1;
	t0 = zl_now_monotonic();
	if (child_start(&cp, &err)) {
		fprintf(stderr, "bench: %s\n", err.buf);
		strbuf_release(&err);
		child_release(&cp);
		return -1;
	}
	{
		char buf[4096];
		while (read(cp.out_fd, buf, sizeof(buf)) > 0)
			;
	}
	do
		r = wait4(cp.pid, &status, 0, &ru);
	while (r < 0 && errno == EINTR);
	out->wall_ms = (zl_now_monotonic() - t0) * 1000.0;
	out->maxrss_kib = r > 0 ? ru.ru_maxrss : -1;
	out->cpu_ms = r > 0 ? (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000.0 +
				      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000.0 : -1;
	out->exit_code = child_exit_code(status);
	child_release(&cp);
	strbuf_release(&err);
	return r > 0 ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double bench_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void bench_row(const char *metric, double goal, double measured, const char *unit)
{
	printf("%-44s %10.2f %-4s %10.2f %-4s %7.2f  %s\n", metric, goal, unit, measured, unit,
	       goal > 0 ? measured / goal : 0, measured <= goal ? "ok" : "OVER GOAL");
}

int bench_link_demo(const char *root, int link_conftest, struct strbuf *err)
{
	static const char *const links[] = {
		"benchmark/conftest.py", "benchmark/__init__.py", "benchmark/base.py", "benchmark/consts.py",
		"benchmark/core_shapes.yaml", "pytest.ini", "src", NULL
	};
	const char *const *l;
	char *bench = zl_path_join(root, "benchmark");
	int rc = zl_mkdir_p(bench, err);

	free(bench);
	if (rc)
		return -1;
	for (l = links + (link_conftest ? 0 : 1); *l; l++) {
		char *target = xstrfmt("%s/examples/demo/%s", ZL_SOURCE_DIR, *l);
		char *link = zl_path_join(root, *l);
		int bad = symlink(target, link);

		if (bad)
			zl_error(err, "cannot link '%s': %s", link, strerror(errno));
		free(target);
		free(link);
		if (bad)
			return -1;
	}
	return 0;
}

int bench_write_sleep_ops(const char *root, const char *prefix, int nops, const double *dur, struct strbuf *ops,
			  struct strbuf *err)
{
	struct strbuf py = STRBUF_INIT;
	char *path = xstrfmt("%s/benchmark/test_sleep_ops.py", root);
	int i, rc;

	strbuf_addstr(&py, "import time\n\nimport pytest\n\nDURATION = {\n");
	for (i = 0; i < nops; i++) {
		strbuf_addf(&py, "    \"%s%02d\": %.3f,\n", prefix, i, dur[i]);
		strbuf_addf(ops, "%s%s%02d", i ? "," : "", prefix, i);
	}
	strbuf_addstr(&py, "}\n\n");
	for (i = 0; i < nops; i++)
		strbuf_addf(&py, "\n@pytest.mark.%s%02d\ndef test_%s%02d():\n    time.sleep(DURATION[\"%s%02d\"])\n\n",
			    prefix, i, prefix, i, prefix, i);
	rc = zl_write_file_atomic(path, py.buf, py.len, err);
	free(path);
	strbuf_release(&py);
	return rc;
}

int bench_sandbox_init(struct bench_sandbox *sb, const char *prefix, struct strbuf *err)
{
	memset(sb, 0, sizeof(*sb));
	if (zl_mkdtemp_in("/tmp", prefix, &sb->root, err))
		return -1;
	sb->tree = zl_path_join(sb->root, "flaggems");
	sb->env[0] = xstrfmt("ZL_HOME=%s/home", sb->root);
	sb->env[1] = xstrfmt("FLAGGEMS_CACHE_DIR=%s/flaggems-cache", sb->root);
	sb->env[2] = xstrfmt("TRITON_CACHE_DIR=%s/triton-cache", sb->root);
	sb->env[3] = xstrfmt("ZL_DEV_ROOT=%s/dev", sb->root);
	return 0;
}

void bench_sandbox_release(struct bench_sandbox *sb)
{
	struct strbuf err = STRBUF_INIT;
	size_t i;

	if (sb->root && zl_remove_tree(sb->root, &err))
		fprintf(stderr, "bench: cannot remove %s: %s\n", sb->root, err.buf);
	strbuf_release(&err);
	free(sb->root);
	free(sb->tree);
	for (i = 0; i < BENCH_SANDBOX_ENV; i++)
		free(sb->env[i]);
	memset(sb, 0, sizeof(*sb));
}
