/* Helpers shared by the benchmarks under bench/: time and peak RSS of a child command. */
#ifndef ZLBENCH_BENCH_UTIL_H
#define ZLBENCH_BENCH_UTIL_H

#include <stddef.h>

struct bench_sample {
	double wall_ms;
	double cpu_ms;       /* user + system time of the child (what it needed, whatever the load) */
	long maxrss_kib;
	int exit_code;
};

/* Run argv with stdout/stderr to /dev/null (env edits as in child.h); fill one sample. */
int bench_run(const char *const *argv, const char *const *env, struct bench_sample *out);
double bench_median(double *v, size_t n);
/* One row of the side-by-side table. */
void bench_row(const char *metric, double goal, double measured, const char *unit);

/*
 * Make root/benchmark and link root's FlagGems skeleton (base, shapes, pytest.ini, src, and
 * the conftest unless the benchmark writes its own) to examples/demo.
 */
struct strbuf;
int bench_link_demo(const char *root, int link_conftest, struct strbuf *err);

/*
 * Write root/benchmark/test_sleep_ops.py: op PREFIXnn (nn = 00..nops-1), marked so, sleeps
 * dur[nn] seconds. Appends the comma-separated op names to ops.
 */
int bench_write_sleep_ops(const char *root, const char *prefix, int nops, const double *dur, struct strbuf *ops,
			  struct strbuf *err);

/*
 * A benchmark's scratch root under /tmp and the environment that keeps its runs there:
 * env holds "ZL_HOME=ROOT/home", FlagGems' and Triton's cache directories and the stand-in
 * devices' ZL_DEV_ROOT, ready for an env array. Everything is owned by the sandbox;
 * bench_sandbox_release removes the root and frees it.
 */
#define BENCH_SANDBOX_ENV 4
struct bench_sandbox {
	char *root;
	char *tree;                       /* ROOT/flaggems, for the benchmark's FlagGems tree */
	char *env[BENCH_SANDBOX_ENV];
};

int bench_sandbox_init(struct bench_sandbox *sb, const char *prefix, struct strbuf *err);
void bench_sandbox_release(struct bench_sandbox *sb);

#endif
