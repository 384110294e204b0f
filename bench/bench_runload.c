/*
 * Loading a run's results.json (zl_run_load), side by side with its goals, at 4,000,
 * 30,000 and 300,000 rows (issue 19: rows were matched by scanning every row, so 4,000 rows
 * took 1.2 s and 300,000 more than 300 s and 1.3 GB):
 *   load time          goal <= 0.1 s / 0.5 s / 5 s (linear in rows, 300k rows "in seconds");
 *                      wall time, and the CPU time beside it (on a loaded machine the wall
 *                      time also counts the time other processes had the CPU)
 *   peak RSS of a load goal <= 64 MiB / 256 MiB / 1536 MiB (the file is read whole and
 *                      parsed by cJSON; about 4 KiB a row for text, tree and rows)
 *   and, for information, `zlbench compare` of the 300k-row run with itself (every row is
 *   looked up in the other run: that was the same scan)
 * The rows are laid out like FlagGems' own (json.dump with indent=2, every field of a real
 * H200 row of tests/fixtures/flaggems-runs), about 650 bytes a row; each row has its own
 * shape, and a tenth repeat one, so that occurrences are counted too.
 * Every load runs in a child of its own, so that its peak RSS is its own (wait4).
 * usage: bench_runload ZLBENCH   (use a build without sanitizers)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "zlbench/fsutil.h"
#include "zlbench/runload.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"

static const struct {
	size_t rows;
	double goal_s, goal_rss_mib;
} sizes[] = {
	{ 4000, 0.1, 64 },
	{ 30000, 0.5, 256 },
	{ 300000, 5.0, 1536 },
};

#define ROWS_PER_DTYPE 1000
static const char *const dtypes[] = { "torch.float16", "torch.float32", "torch.bfloat16" };

static void add_row(struct strbuf *sb, size_t i, int first)
{
	/* every tenth row repeats the shape of the row before it (FlagGems lists some twice) */
	size_t s = i % 10 == 9 ? i - 1 : i;

	strbuf_addf(sb, "%s          {\n"
		    "            \"legacy_shape\": null,\n"
		    "            \"shape_detail\": [\n"
		    "              [\n                %zu,\n                384\n              ],\n"
		    "              [\n                384,\n                %zu\n              ]\n"
		    "            ],\n"
		    "            \"latency_base\": 0.00622399989515543,\n"
		    "            \"latency\": %.17g,\n"
		    "            \"gbps_base\": null,\n"
		    "            \"gbps\": null,\n"
		    "            \"speedup\": 0.04449782595517826,\n"
		    "            \"accuracy\": null,\n"
		    "            \"tflops\": 0.8096417317728881,\n"
		    "            \"utilization\": null,\n"
		    "            \"compared_speedup\": null,\n"
		    "            \"error_msg\": null\n"
		    "          }",
		    first ? "" : ",\n", 384 + s, 384 + s / 7, 0.1398719996213913 + (double)i * 1e-9);
}

/* A results.json of n rows: ops of 3 dtypes x 1,000 rows each. */
static void make_results(struct strbuf *sb, size_t n)
{
	size_t i = 0, op = 0;

	strbuf_addstr(sb, "{\n");
	while (i < n) {
		size_t d;

		strbuf_addf(sb, "%s  \"op%zu\": {\n    \"details\": [\n", op ? ",\n" : "", op);
		for (d = 0; d < ZL_ARRAY_SIZE(dtypes) && i < n; d++) {
			size_t k;

			strbuf_addf(sb, "%s      {\n        \"op_name\": \"op%zu\",\n        \"dtype\": \"%s\",\n"
				    "        \"mode\": \"kernel\",\n        \"level\": \"core\",\n        \"result\": [\n",
				    d ? ",\n" : "", op, dtypes[d]);
			for (k = 0; k < ROWS_PER_DTYPE && i < n; k++, i++)
				add_row(sb, i, !k);
			strbuf_addstr(sb, "\n        ]\n      }");
		}
		strbuf_addstr(sb, "\n    ],\n    \"result\": [],\n    \"test_case\": \"\",\n    \"reason\": null\n  }");
		op++;
	}
	strbuf_addstr(sb, "\n}\n");
}

static const char identity[] =
	"{\"schema_version\": 1, \"run_id\": \"bench-runload\", \"backend\": \"cuda\", \"status\": \"passed\","
	" \"exit_code\": 0, \"level\": \"core\", \"shape_mode\": \"upstream\", \"op\": \"mm\"}\n";

/* Load dir in a child: its wall and CPU time and peak RSS; -1 when the load failed or lost rows. */
static int measure_load(const char *dir, size_t rows, double *seconds, double *cpu_s, double *rss_mib)
{
	int fds[2], status;
	struct rusage ru;
	pid_t pid;
	double t = -1;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		struct strbuf err = STRBUF_INIT;
		struct zl_run run;
		double t0 = zl_now_monotonic();

		close(fds[0]);
		zl_run_init(&run);
		if (zl_run_load(dir, &run, &err) || run.nr_results != 2 * rows) {
			fprintf(stderr, "bench: loaded %zu of %zu rows: %s\n", run.nr_results, 2 * rows, err.buf);
			_exit(1);
		}
		t = zl_now_monotonic() - t0;
		if (write(fds[1], &t, sizeof(t)) != (ssize_t)sizeof(t))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &t, sizeof(t)) != (ssize_t)sizeof(t))
		t = -1;
	close(fds[0]);
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) || t < 0)
		return -1;
	*seconds = t;
	*cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
		 (double)ru.ru_stime.tv_usec / 1e6;
	*rss_mib = (double)ru.ru_maxrss / 1024.0;
	return 0;
}

int main(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	char *tmp = NULL, *last_dir = NULL;
	size_t i;
	int bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_runload ZLBENCH\n");
		return 2;
	}
	if (zl_mkdtemp_in("/tmp", "zl-bench-runload-", &tmp, &err)) {
		fprintf(stderr, "bench: %s\n", err.buf);
		return 1;
	}
	printf("results.json loading (zl_run_load), each load in a child of its own\n");
	printf("%-44s %15s %15s %7s\n", "metric", "goal", "measured", "ratio");
	for (i = 0; i < ZL_ARRAY_SIZE(sizes); i++) {
		struct strbuf text = STRBUF_INIT;
		char *dir = xstrfmt("%s/run%zu", tmp, sizes[i].rows);
		char *results = zl_path_join(dir, "results.json");
		char *id = zl_path_join(dir, "run_identity.json");
		char *label;
		double s = 0, cpu = 0, rss = 0, mib;

		make_results(&text, sizes[i].rows);
		if (zl_mkdir_p(dir, &err) || zl_write_file_atomic(id, identity, strlen(identity), &err) ||
		    zl_write_file_atomic(results, text.buf, text.len, &err)) {
			fprintf(stderr, "bench: %s\n", err.buf);
			return 1;
		}
		mib = (double)text.len / ZL_MIB;
		strbuf_release(&text);
		if (measure_load(dir, sizes[i].rows, &s, &cpu, &rss)) {
			fprintf(stderr, "bench: the load of %zu rows failed\n", sizes[i].rows);
			bad = 1;
		} else {
			label = xstrfmt("load %zu rows (%.0f MiB) time", sizes[i].rows, mib);
			bench_row(label, sizes[i].goal_s, s, "s");
			free(label);
			label = xstrfmt("load %zu rows CPU time", sizes[i].rows);
			bench_row(label, sizes[i].goal_s, cpu, "s");
			free(label);
			label = xstrfmt("load %zu rows peak RSS", sizes[i].rows);
			bench_row(label, sizes[i].goal_rss_mib, rss, "MiB");
			free(label);
		}
		free(last_dir);
		last_dir = dir;
		free(results);
		free(id);
		strbuf_release(&text);
	}
	{
		const char *cmp[] = { argv[1], "compare", last_dir, last_dir, "--json", NULL };
		struct bench_sample sm;

		if (bench_run(cmp, NULL, &sm) || sm.exit_code > 1) {
			fprintf(stderr, "bench: zlbench compare of the 300k-row run failed (exit %d)\n", sm.exit_code);
			bad = 1;
		} else {
			/* no goal of its own: beyond the two loads it is compare's statistics */
			printf("%-44s %15s %10.2f s    (two loads, then every row looked up in the other run)\n",
			       "zlbench compare, 300000 rows each side", "-", sm.wall_ms / 1000.0);
			printf("%-44s %15s %10.2f MiB\n", "zlbench compare peak RSS", "-", (double)sm.maxrss_kib / 1024.0);
		}
	}
	free(last_dir);
	if (zl_remove_tree(tmp, &err))
		fprintf(stderr, "bench: %s\n", err.buf);
	free(tmp);
	strbuf_release(&err);
	return bad;
}
