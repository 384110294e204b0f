/*
 * zlbench batch: many operators over several devices, one `zlbench run` child per
 * operator, resumable.
 *
 * The batch directory (docs/commands/batch.md has the user's view):
 *   batch.json          the batch's own settings, written atomically at the start
 *                       (and again when a session starts, to list the sessions)
 *   ops_status.csv      RFC 4180 with a header row; one row appended and fsync'd as
 *                       each operator ends (columns: zl_batch_columns below)
 *   schedule.jsonl      one line per `zlbench run` child as it ends: device, start, end,
 *                       status (batch_schedule.h; the report's timeline)
 *   runs/<op>/          the run directory of the op's latest attempt: the one to compare.
 *                       Before --resume runs an op again, its earlier attempt K moves
 *                       aside, with everything below, to runs/<op>.attempt<K>/ (and
 *                       logs/<op>.attempt<K>.log, warmup/<op>.attempt<K>/), and the rows
 *                       of ops_status.csv that named it are rewritten to name it there
 *   logs/<op>.log       everything the `zlbench run` child printed
 *   warmup/<op>/        warm-up sharding: shapes-<i>.yaml, shard-<i>/ (run dirs),
 *                       merged/autotune_records/ and merged/merge.json
 *   workers/            --start worker: <device>.<generation>.log (what a worker printed
 *                       outside its ops) and events.jsonl (one line as each worker
 *                       starts, becomes ready and ends; docs/worker.md)
 *   .lock               flock()ed by the batch and inherited by its children, so a
 *                       resumed batch waits until no process of an earlier one is left
 *
 * What counts as final: the last row of an op decides; passed, skipped, failed,
 * timeout and crashed are final; interrupted and preflight_failed (a broken environment,
 * which the user may have fixed since) are not (with --retry-failed only passed and
 * skipped are: a skip is no failure). --resume runs the ops without a final row.
 *
 * Owner: every struct here has an _init/_release pair; the caller owns what it
 * declares. Strings inside are owned by the struct that holds them.
 */
#ifndef ZLBENCH_BATCH_H
#define ZLBENCH_BATCH_H

#include <stddef.h>
#include <stdio.h>

#include <sys/types.h>

#include "child.h"
#include "progress.h"
#include "strbuf.h"
#include "strvec.h"

#define ZL_BATCH_SCHEMA "zlbench.batch/1"
#define ZL_BATCH_CONFIG_FILE "batch.json"
#define ZL_BATCH_STATUS_FILE "ops_status.csv"
#define ZL_BATCH_LOCK_FILE ".lock"

/* ---- ops_status.csv ------------------------------------------------------- */

enum zl_batch_col {
	ZL_BCOL_OP,
	ZL_BCOL_STATUS,       /* passed|skipped|failed|preflight_failed|timeout|crashed|interrupted */
	ZL_BCOL_EXIT_CODE,
	ZL_BCOL_BACKEND,
	ZL_BCOL_DEVICE,       /* the device index the (timed) run was pinned to */
	ZL_BCOL_TIMER,        /* timer used (timer.used, else timer.plan) */
	ZL_BCOL_LEVEL,
	ZL_BCOL_TUNER_CACHE,  /* tuner_cache.mode */
	ZL_BCOL_AUTOTUNE,     /* autotune.mode */
	ZL_BCOL_DURATION_S,   /* the run's duration_s (pytest's wall time) */
	ZL_BCOL_STARTED_AT,
	ZL_BCOL_FINISHED_AT,
	ZL_BCOL_RUN_DIR,      /* relative to the batch directory */
	ZL_BCOL_REASON,       /* first error line; empty when passed */
	ZL_BCOL_ATTEMPT,      /* 1, 2, ... (a new attempt per session that runs the op) */
	ZL_BCOL_WALL_S,       /* wall time of the `zlbench run` child as the batch saw it */
	ZL_BCOL_WARMUP_SHARDS,/* warm-up shards run before the timed run (0: none) */
	ZL_BCOL_WARMUP_DEVICES,/* their devices, e.g. "0,1" */
	ZL_BCOL_LOG,          /* the child's log, relative to the batch directory */
	ZL_BCOL_START,        /* how pytest's interpreter started: fresh or reused (start.mode) */
	ZL_BCOL_OPS_BEFORE,   /* ops that interpreter ran before this one (start.ops_before) */
	ZL_BCOL__COUNT
};
extern const char *const zl_batch_columns[ZL_BCOL__COUNT];

/* One row; v[i] NULL renders as an empty field. zl_batch_row_release() frees the strings. */
struct zl_batch_row {
	char *v[ZL_BCOL__COUNT];
};
void zl_batch_row_init(struct zl_batch_row *r);
void zl_batch_row_release(struct zl_batch_row *r);
/* Replace column c with a copy of value (NULL clears it). */
void zl_batch_row_set(struct zl_batch_row *r, enum zl_batch_col c, const char *value);
void zl_batch_row_setf(struct zl_batch_row *r, enum zl_batch_col c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Append the row as one CSV record (CRLF-terminated); the header when r is NULL. */
void zl_batch_row_render(const struct zl_batch_row *r, struct strbuf *out);

struct zl_batch_rows {
	struct zl_batch_row *v;
	size_t nr, alloc;
};
#define ZL_BATCH_ROWS_INIT { NULL, 0, 0 }
void zl_batch_rows_release(struct zl_batch_rows *rows);

/*
 * Parse ops_status.csv: the header names the columns (unknown ones are ignored,
 * missing ones stay empty); "op" and "status" must be there. *complete_len gets
 * the length of the text up to the last complete record.
 */
int zl_batch_rows_parse(const char *text, size_t len, struct zl_batch_rows *out,
			size_t *complete_len, struct strbuf *err);

/* 1 when a row with this status ends the op for good (see the top of this file). */
int zl_batch_status_final(const char *status, int retry_failed);
/* The last row of op, or NULL. */
const struct zl_batch_row *zl_batch_rows_last(const struct zl_batch_rows *rows, const char *op);

/*
 * The status file, opened for appending: created with its header when absent;
 * a cut-off last record is truncated away first. Each append is one write()
 * followed by fsync(). Owner: the caller; zl_batch_status_close().
 */
struct zl_batch_status {
	int fd;
	char *path;
};
int zl_batch_status_open(struct zl_batch_status *st, const char *batch_dir, struct zl_batch_rows *rows,
			 struct strbuf *err);
int zl_batch_status_append(struct zl_batch_status *st, const struct zl_batch_row *r, struct strbuf *err);
/* Replace the file by rows (atomically: temp + rename); later appends go to the new file. */
int zl_batch_status_rewrite(struct zl_batch_status *st, const struct zl_batch_rows *rows, struct strbuf *err);
void zl_batch_status_close(struct zl_batch_status *st);

/*
 * Fill a row from <run_dir>/run_identity.json (status, exit_code, backend, timer,
 * level, tuner_cache, autotune, duration_s, started_at, finished_at, reason).
 * Returns 0 when the identity was read, -1 (err says why) when it is missing or
 * not a JSON object; the row is then left as it was.
 */
int zl_batch_row_from_identity(struct zl_batch_row *r, const char *run_dir, struct strbuf *err);

/*
 * The status and exit code of a `zlbench run` child that left no final identity,
 * from its exit code alone: 3 preflight_failed, 124 timeout, 128+N crashed (or
 * interrupted when interrupted is set), anything else non-zero failed.
 */
const char *zl_batch_status_from_exit(int exit_code, int interrupted);

/* ---- the operators ------------------------------------------------------------ */

/* Append the comma-separated operators of list to ops. */
void zl_batch_ops_add_list(struct strvec *ops, const char *list);
/* Append the operators of a file: one per line, '#' starts a comment, blanks skipped. */
int zl_batch_ops_read_file(struct strvec *ops, const char *path, struct strbuf *err);
/* Every name valid ([A-Za-z0-9_]+), none twice, at least one. */
int zl_batch_ops_check(const struct strvec *ops, struct strbuf *err);

/*
 * --ops all: the word "all" as the whole of --ops (one value, no other operator, no
 * --ops-file) stands for every operator mark of the checkout. Anywhere else "all" is
 * FlagGems' operator all (torch.all): `--ops all,any`, or a line "all" in an --ops-file.
 */
#define ZL_BATCH_OPS_ALL "all"
int zl_batch_ops_is_all(const struct strvec *ops_args, const char *ops_file);

/* What chooses a new batch's operators (batch_ops.c); everything borrowed. */
struct zl_batch_ops_request {
	const char *flaggems_dir;
	int all;                      /* --ops all: every mark of flaggems_dir (zl_marks_scan) */
	const struct strvec *ops;     /* else --ops values (comma-separated lists) */
	const char *ops_file;         /* and --ops-file */
	const struct strvec *exclude; /* --exclude values (comma-separated lists) */
};
/*
 * The batch's operators, appended to ops: every mark (sorted), or the lists given, less
 * the --exclude names (appended to excluded). An excluded name must be a mark of the
 * checkout or an operator of the list: else an error naming it with the closest names.
 * Then zl_batch_ops_check. 0, or -1 with err.
 */
int zl_batch_ops_choose(const struct zl_batch_ops_request *r, struct strvec *ops, struct strvec *excluded,
			struct strbuf *err);

/*
 * The order to start operators in: longest expected first. expect_s[i] is op i's
 * expected duration, < 0 when unknown; an unknown op is expected to take the mean
 * of the known ones, and ties keep the list order (so with no history at all the
 * list order stands). order[] gets the indices 0..n-1 in start order; expect_s
 * unknowns are replaced by the estimate used.
 */
void zl_batch_order(double *expect_s, size_t n, size_t *order);

/* The name of the attempt of op that runs: always op itself, the canonical name. Caller frees. */
char *zl_batch_attempt_name(const char *op, int attempt);
/* The name an earlier attempt k of op is kept under: "mm.attempt1". Caller frees. */
char *zl_batch_archived_name(const char *op, int attempt);

/*
 * Where op's attempts stand in a batch directory: canonical is the attempt number on
 * the canonical paths (runs/<op>, logs/<op>.log, warmup/<op>; 0 when none: from the
 * row naming them, else one past every other attempt), canonical_has_row whether a
 * row names them, next the number the next attempt gets (past every attempt that the
 * rows or the paths show, older zlbench's "<op>.<k>" included).
 */
struct zl_batch_attempts {
	int canonical;
	int canonical_has_row;
	int next;
};
void zl_batch_attempts_find(const char *batch_dir, const char *op, const struct zl_batch_rows *rows,
			    struct zl_batch_attempts *a);
/*
 * Before the next attempt takes the canonical paths: keep attempt `attempt` that is on
 * them as <op>.attempt<attempt> (runs/, logs/, warmup/, the shards' logs), rewriting the
 * rows that name them first (st, rows) and the history's run_dir of the moved run.
 */
int zl_batch_archive_canonical(const char *batch_dir, const char *op, int attempt, struct zl_batch_status *st,
			       struct zl_batch_rows *rows, struct strbuf *err);

/* ---- warm-up sharding ---------------------------------------------------------- */

/*
 * Split op's shapes in shape_file into at most n shard files <out_dir>/shapes-<i>.yaml
 * (i = 1..k, k = min(n, shapes)), shape j going to shard j mod k so that each shard
 * mixes small and large shapes. Each file holds the entry FlagGems would use (op's
 * own key, else the first of fallbacks present: the benchmark's classes) with its
 * shape_desc and its share of the shapes. paths gets the files, counts[i] (n
 * elements) the shapes per file; *key_out the entry's key (caller frees).
 * Returns k (>= 1), or -1 with err (file unreadable, op absent, no "shapes" list).
 */
int zl_batch_split_shapes(const char *shape_file, const char *op, const char *const *fallbacks,
			  int n, const char *out_dir, struct strvec *paths, long *counts,
			  char **key_out, struct strbuf *err);

/*
 * The number of op's shapes in shape_file (the entry FlagGems would use, as
 * zl_batch_split_shapes picks it; *key_out its key, caller frees), or -1 with err.
 */
int zl_batch_count_shapes(const char *shape_file, const char *op, const char *const *fallbacks, char **key_out,
			  struct strbuf *err);

/*
 * What the zl_shard plugin kept in the warm-up shard run in run_dir
 * (<run_dir>/plugins/shard.json): the shapes kept over every benchmark it split,
 * or -1 with err when the report is missing or split nothing.
 */
long zl_batch_shard_kept(const char *run_dir, struct strbuf *err);

/* What merging did (plugins/README.md: autotune_records/<kernel>.json, entries keyed by "key"). */
struct zl_merge_stats {
	long shards_with_records;  /* shard runs that had an autotune_records/ directory */
	long files;                /* record files read */
	long kernels;              /* kernels in the merged directory */
	long entries;              /* (kernel, key) winners in the merged directory */
	long duplicates;           /* the same winner recorded by more than one shard */
	long conflicts;            /* a key recorded with different configs: the first shard's is kept */
	struct strvec conflict_keys; /* "<kernel> <key>" per conflict */
};
void zl_merge_stats_init(struct zl_merge_stats *st);
void zl_merge_stats_release(struct zl_merge_stats *st);

/*
 * Merge the autotune records of run_dirs (in order) into <merged_dir>/autotune_records/
 * and write <merged_dir>/merge.json. A missing autotune_records/ is an empty shard
 * (the op may have no tuner); an unreadable or foreign record file is an error.
 */
int zl_batch_merge_records(const struct strvec *run_dirs, const char *merged_dir,
			   struct zl_merge_stats *st, struct strbuf *err);

/*
 * The run directories (absolute) of the last rows of batch_dir's operators in
 * ops_status.csv: of the ops listed, in their order, or (ops NULL) of every op, in
 * the order of their first rows. passed_only: only rows that passed; else the passed
 * ones first, then the rest (a run that timed out after tuning still recorded its
 * winners). A run directory that is not inside batch_dir is skipped. *passed (may be
 * NULL) gets how many passed. -1 with err when the status file cannot be read.
 */
int zl_batch_runs_of(const char *batch_dir, const struct strvec *ops, int passed_only, struct strvec *runs,
		     size_t *passed, struct strbuf *err);

/* <dir>/replay_records: a batch's merge of another batch's winners (--replay-from BATCH_DIR) */
#define ZL_BATCH_REPLAY_DIR "replay_records"

/* ---- the batch's own settings (batch.json) ------------------------------------ */

struct zl_batch_config {
	char *dir;                 /* absolute batch directory (not stored in the file) */
	char *created_at;
	char *backend;             /* backend name */
	char *launcher;            /* "local" or "slurm" (slurm.h); NULL reads as "local" */
	struct strvec devices;     /* device indices (empty with --launcher slurm: Slurm grants them) */
	struct strvec ops;         /* as listed (--ops all: every mark, by name) */
	int ops_all;               /* --ops all: the ops are the checkout's marks */
	struct strvec exclude;     /* --exclude: names left out */
	struct strvec run_args;    /* run settings forwarded to every child, as flags */
	struct strvec passthrough; /* pytest arguments after "--" */
	double timeout_s;          /* per op; 0: none (also in run_args as --timeout) */
	int warmup_devices;        /* 0: no warm-up sharding */
	struct strvec warmup_ops;  /* ops that get warm-up sharding; empty: every op */
	char *shape_file;          /* the shape file the runs read (file mode), or NULL */
	char *start;               /* --start: "fresh" or "worker" (worker.h); NULL reads as "fresh" */
	int shape_mode_file;
	char *flaggems_dir;
	char *level;
	char *replay_batch;        /* --replay-from BATCH_DIR: that batch (absolute), whose runs' winners
				      are merged into <dir>/replay_records at start; or NULL */
	struct strvec argv;        /* the command line that created the batch */
};
void zl_batch_config_init(struct zl_batch_config *c);
void zl_batch_config_release(struct zl_batch_config *c);
/* Write <dir>/batch.json atomically (a new batch: no sessions yet). */
int zl_batch_config_save(const struct zl_batch_config *c, struct strbuf *err);
/* Read <batch_dir>/batch.json into c (freshly initialised); -1 with err when absent or invalid. */
int zl_batch_config_load(struct zl_batch_config *c, const char *batch_dir, struct strbuf *err);
/* Append a session record ({started_at, pid, argv, resume}) to batch.json. */
int zl_batch_config_add_session(const struct zl_batch_config *c, const char *const *argv,
				int resume, struct strbuf *err);

/* ---- running a batch ------------------------------------------------------------ */

struct zl_batch_run_opts {
	int retry_failed;
	enum zl_progress_mode progress;
	const char *self_exe;      /* the zlbench binary to run as the child */
};

/*
 * The argv of one `zlbench run` child: self_exe run <run_args> --backend B --devices D
 * --op OP --out RUN_DIR <extra> [-- <passthrough>]. Later flags win, so extra
 * (a shard's shape file, a replay source) overrides run_args.
 */
void zl_batch_child_argv(const struct zl_batch_config *c, const char *self_exe, const char *op,
			 const char *device, const char *run_dir, const struct strvec *extra,
			 struct strvec *argv);

/* Counts over the batch's final state (every op, earlier sessions included). */
struct zl_batch_outcome {
	size_t total, passed, failed, crashed, timeout, preflight_failed, interrupted, not_run;
	size_t skipped;            /* every test skipped (a dtype the op does not support): no failure */
	int interrupt_sig;         /* signal that interrupted this session, 0 if none */
	double makespan_s;         /* this session's wall time */
	size_t to_come;            /* Slurm: tasks submitted that have no row yet (queued, running, ending) */
	int query_failed;          /* Slurm: the last question to Slurm got no answer */
};

/*
 * Run the ops of c that have no final row, writing rows to ops_status.csv.
 * Returns 0 with *out filled (whatever the ops' outcomes), -1 with err when the
 * batch itself could not run (status file, lock, signals).
 */
int zl_batch_execute(const struct zl_batch_config *c, const struct zl_batch_run_opts *o,
		     struct zl_batch_outcome *out, struct strbuf *err);

/* 1 when the batch's operators run through Slurm (zl_batch_config.launcher). */
int zl_batch_is_slurm(const struct zl_batch_config *c);

/* Append a copy of r to rows. */
void zl_batch_rows_add(struct zl_batch_rows *rows, const struct zl_batch_row *r);

/*
 * Counts over the batch's final state from its rows (the last row of each op);
 * interrupt_sig and makespan_s are left to the caller.
 */
void zl_batch_outcome_count(const struct zl_batch_config *c, const struct zl_batch_rows *rows,
			    struct zl_batch_outcome *out);

/*
 * The skipped operators of the batch's final state (its ops_status.csv), grouped by reason:
 * one line each, "skipped (N): op, op: reason", at most 10 then "... and N more reasons".
 * Nothing when none was skipped. For the summary, after the counts.
 */
void zl_batch_print_skips(const struct zl_batch_config *c, FILE *out);

/*
 * The line of an op that ended, on the progress display both launchers share (progress.h):
 * "[done/total] op: status (exit N) on device D after S s, run_dir: reason". Plain mode
 * prints every op; live mode the ones that did not pass.
 */
void zl_batch_display_finished(struct zl_progress *d, size_t done, size_t total,
			       const struct zl_batch_row *r);
/* "4.2 s" below a minute, else as zl_fmt_duration (units.h); "unknown" for NAN. */
void zl_batch_fmt_seconds(struct strbuf *sb, double s);

/* Print the summary table of the batch's final state to out. */
void zl_batch_print_summary(const struct zl_batch_config *c, FILE *out, int use_color);

/*
 * Start cp with its stdout and stderr on log_fd (not a pipe: a child must be able to write
 * after the batch died). The batch lends the child its own fds 1 and 2 for the fork.
 */
int zl_batch_start_into_log(struct child_process *cp, int log_fd, struct strbuf *err);

/* 1 when the runs of c use per-device workers: --start worker, local, tuner cache not isolated. */
int zl_batch_uses_workers(const struct zl_batch_config *c);

/* ---- per-device workers (--start worker; worker.h, docs/worker.md) ------------------- */

enum zl_worker_state {
	ZL_WORKER_NONE,            /* not started (or given up on: see failures) */
	ZL_WORKER_STARTING,        /* started; its ready line has not come */
	ZL_WORKER_READY,           /* listening; takes the device's next op */
	ZL_WORKER_ENDING,          /* killed or retiring: the next op waits until it is reaped */
	ZL_WORKER_DEAD,            /* ended (reaped); the next op starts a new one */
};

/* One device's worker. Owner: the scheduler; zl_worker_slot_release() frees it. */
struct zl_worker_slot {
	const char *device;        /* borrowed from the config */
	enum zl_worker_state state;
	pid_t pid;                 /* leads its process group; 0 when none */
	int ready_fd;              /* read end of its ready pipe while starting, else -1 */
	struct strbuf ready;       /* what came on it */
	char *socket_path;         /* of the current generation */
	int generation;            /* 1, 2, ...: a new one after each end */
	int failures;              /* starts in a row that never became ready */
	long ops;                  /* ops handed to the current generation */
	double started_mono;
};
void zl_worker_slot_init(struct zl_worker_slot *w, const char *device);
void zl_worker_slot_release(struct zl_worker_slot *w);

/*
 * Start the device's worker: `zlbench run <the batch's run settings> --devices D` with
 * ZL_WORKER_SERVE (worker.h), base_env the edits every run child of the batch gets, its
 * output in workers/<device>.<generation>.log, its socket in sock_dir. 0, or -1 with err.
 */
int zl_worker_slot_start(struct zl_worker_slot *w, const struct zl_batch_config *c, const char *self_exe,
			 const char *sock_dir, const struct strvec *base_env, struct strbuf *err);
/* After poll() said ready_fd can be read: 1 ready, -1 it never will be (the pipe ended), 0 not yet. */
int zl_worker_slot_read_ready(struct zl_worker_slot *w, const struct zl_batch_config *c);
/* The worker's process was reaped: record its status for the runs (sock_dir) and the events. */
void zl_worker_slot_reaped(struct zl_worker_slot *w, int raw, const char *why, const char *sock_dir,
			   const struct zl_batch_config *c);
/* SIGKILL to the worker's group, now (it is reaped through the scheduler's loop). */
void zl_worker_slot_kill(struct zl_worker_slot *w);
/* End the worker: SIGTERM to its group, SIGKILL after grace; waits and reaps it. */
void zl_worker_slot_stop(struct zl_worker_slot *w, double grace, const char *sock_dir,
			 const struct zl_batch_config *c);

/*
 * Take the batch directory's lock: fails at once when another live batch holds
 * it; waits up to wait_s for the children of a dead one to exit. The fd is left
 * open and inheritable (children keep the lock alive). Returns the fd or -1.
 */
int zl_batch_lock(const char *batch_dir, double wait_s, struct strbuf *err);

/*
 * Claim the directory of a new batch before anything is written into it: create
 * it, take its lock (at once or not at all), and check under the lock that it
 * holds nothing but the lock file, so that of two batches started at once with
 * the same --out only one writes batch.json. Returns the lock's fd, or -1 with err.
 */
int zl_batch_claim_dir(const char *batch_dir, struct strbuf *err);

#endif
