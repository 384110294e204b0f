/*
 * The work of `zlbench batch` below its command row (src/cmd/cmd_batch.c parses the
 * options into a struct zl_batch_request and calls zl_batch_main): a new batch from the
 * command line (its operators, devices, start mode and directory), or the batch --resume
 * or --collect names; the dry run's plan, or the batch claimed, launched (locally or
 * through Slurm) and finished with its summary, cost table, push and BATCH_DIR= line.
 *
 * Owner: the request and everything it points at are the caller's, borrowed for the call.
 */
#ifndef ZLBENCH_BATCH_MAIN_H
#define ZLBENCH_BATCH_MAIN_H

#include "options.h"
#include "strvec.h"

struct zl_settings;

/*
 * The default --start: on the CPU benchmark (bench/bench_worker.c, docs/benchmarks.md) the
 * devices' workers ran the batch 3.3x faster than fresh interpreters, within the goal.
 */
#define ZL_BATCH_START_DEFAULT "worker"

/* The command line of `zlbench batch`, as its option table fills it (NULL/0/empty: not given). */
struct zl_batch_request {
	struct strvec ops;         /* --ops, repeatable, comma-separated; "all" alone: every mark */
	const char *ops_file;
	struct strvec exclude;     /* --exclude, repeatable, comma-separated */
	const char *resume;
	const char *timeout_per_op;
	const char *warmup_devices;
	enum zl_source warmup_source;
	struct strvec warmup_ops;
	const char *push;
	const char *progress;
	const char *start;         /* --start MODE */
	enum zl_source start_source;
	int retry_failed;
	int dry_run;
	/* --launcher slurm */
	const char *launcher;
	const char *partition;
	const char *account;
	const char *time_per_op;   /* minutes */
	struct strvec sbatch_args;
	int detach;
	const char *collect;
	int no_wait;
};

/* What the dispatcher gives the command besides its options (borrowed). */
struct zl_batch_invocation {
	struct zl_settings *s;     /* parsed, not resolved */
	unsigned refused_settings; /* the command row's: settings that name one run */
	int argc;                  /* the command's words as given, saved in batch.json */
	const char **argv;
};

/* Run `zlbench batch` as requested; the exit code (enum zl_exit), every message printed. */
int zl_batch_main(const struct zl_batch_request *rq, const struct zl_batch_invocation *inv);

#endif
