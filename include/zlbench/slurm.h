/*
 * zlbench batch --launcher slurm: one Slurm job array per submission, one array
 * task per operator, one GPU per task (docs/slurm.md has
 * the user's view).
 *
 * What lives in the batch directory besides batch.json and ops_status.csv (batch.h):
 *   slurm/slurm.json           the launcher's own settings and every submission
 *                              (job id, sbatch argv, which array index runs which
 *                              op and attempt), written atomically
 *   slurm/submit-<k>.sbatch    the generated script of submission k, as submitted
 *   slurm/tasks/<job>_<i>.json what array task i of job <job> did on its node: the
 *                              GPU Slurm granted, the index it pinned, its exit code
 *                              (written atomically by the task at its start and end)
 *   logs/slurm-<job>_<i>.out   Slurm's own output file of the task (slurmstepd's
 *                              "CANCELLED ... DUE TO TIME LIMIT" lines land here)
 *   logs/<attempt>.log, runs/<attempt>/   as for the local launcher
 *
 * Only the submitting (or collecting) process writes ops_status.csv and the
 * history database; tasks run `zlbench run` with ZL_NO_HISTORY=1, so SQLite is
 * never written over a network filesystem.
 *
 * Owner: every struct has an _init/_release pair (or a documented owner); the
 * caller owns what it declares and the struct owns the strings inside it.
 */
#ifndef ZLBENCH_SLURM_H
#define ZLBENCH_SLURM_H

#include <stddef.h>
#include <stdio.h>

#include "backend.h"
#include "batch.h"
#include "strbuf.h"
#include "strvec.h"

#define ZL_SLURM_SCHEMA "zlbench.slurm/1"
#define ZL_SLURM_DIR "slurm"
#define ZL_SLURM_CONFIG_FILE "slurm/slurm.json"

/* Seconds one Slurm command may take ($ZL_SLURM_TIMEOUT overrides). */
#define ZL_SLURM_CMD_TIMEOUT_DEFAULT 30.0
/* Seconds between two polls of Slurm ($ZL_SLURM_POLL overrides). */
#define ZL_SLURM_POLL_DEFAULT 1.0

/* ---- Slurm's job states ---------------------------------------------------------- */

/*
 * One row per JobState that scontrol prints. done: the task is over. ending: not
 * over yet but on its way out (COMPLETING: its processes are being ended, as right
 * after scancel). status: the zlbench status Slurm's verdict imposes, or NULL when
 * the run's own identity decides (COMPLETED, FAILED). why: the reason written with
 * it. over_crashed: the verdict also replaces a "crashed" identity (an OOM kill
 * leaves a run killed by SIGKILL; Slurm knows why).
 */
struct zl_slurm_state_def {
	const char *name;
	int done;
	int ending;
	const char *status;
	const char *why;
	int over_crashed;
};
/* The row of a state name, or NULL when Slurm printed a state this table lacks. */
const struct zl_slurm_state_def *zl_slurm_state_find(const char *name);

/* One array task as `scontrol -o show job <array job>` printed it. */
struct zl_slurm_task_state {
	long task;          /* ArrayTaskId */
	char *job_id;       /* JobId of this task (its own job id) */
	char *state;        /* JobState, e.g. "COMPLETED" */
	char *reason;       /* Reason, NULL for "None" */
	int exit_code;      /* ExitCode=<code>:<signal> */
	int exit_signal;
	char *node;         /* NodeList, NULL when it never started */
	char *start, *end;  /* StartTime, EndTime; NULL for "Unknown" */
};

struct zl_slurm_job {
	struct zl_slurm_task_state *v;
	size_t nr, alloc;
	int unknown;        /* Slurm no longer (or never) knew the job */
};
#define ZL_SLURM_JOB_INIT { NULL, 0, 0, 0 }
void zl_slurm_job_release(struct zl_slurm_job *j);
/* The task's record, or NULL. */
const struct zl_slurm_task_state *zl_slurm_job_find(const struct zl_slurm_job *j, long task);

/*
 * Parse `scontrol -o show job <id>` output: one line per record; records of
 * other array jobs are skipped; a grouped record of pending tasks ("3-5",
 * "1,4,7-9%2", "0-15:4") becomes one entry per task. 0, or -1 with err.
 */
int zl_slurm_parse_show_job(const char *text, const char *array_job_id, struct zl_slurm_job *out,
			    struct strbuf *err);
/* Expand an ArrayTaskId spec into out (appended). 0, or -1 when it is not one. */
int zl_slurm_expand_tasks(const char *spec, struct strvec *out);

/* The job id in `sbatch --parsable` output ("123" or "123;cluster"), or -1. Caller frees *id. */
int zl_slurm_parse_job_id(const char *out, char **id);

/* ---- the task's device --------------------------------------------------------------- */

/*
 * The device a task pins, from what Slurm put in its environment:
 *  - a backend whose visibility variable Slurm sets itself (backend->slurm_sets):
 *    that variable's value, which is right both without device constraints (the
 *    granted index) and with cgroup constraints (every job sees its GPU as 0);
 *  - any other backend: the granted index in SLURM_STEP_GPUS, else SLURM_JOB_GPUS,
 *    which the backend's own variable then takes through `zlbench run --devices`.
 * gpus gets the granted index(es) as Slurm lists them (NULL when unset).
 */
struct zl_slurm_device {
	char *pin;          /* the --devices value */
	char *gpus;         /* SLURM_STEP_GPUS or SLURM_JOB_GPUS */
	char *how;          /* e.g. "<visibility var>=2 set by Slurm (SLURM_JOB_GPUS=2)" */
};
void zl_slurm_device_release(struct zl_slurm_device *d);
int zl_slurm_task_device(const struct zl_backend *b, struct zl_slurm_device *out, struct strbuf *err);

/*
 * What sbatch's environment must lose (appended to env as bare names, which
 * zl_capture removes): sbatch exports its whole environment to the tasks
 * (--export=ALL), and one submitted from inside a job (`srun --pty bash`) would
 * hand them that job's SLURM_* variables, its SLURM_STEP_GPUS among them, which
 * Slurm does not overwrite in a batch step. Removed: every SLURM_* and SLURMD_*
 * variable but Slurm's client settings (SLURM_CONF, SLURM_CLUSTERS, ...), the
 * SBATCH_* variables of what the script decides (array, output, requeue, ...),
 * and the visibility variables Slurm's gres sets (backend->slurm_sets).
 */
void zl_slurm_submit_env(struct strvec *env);

/* ---- the launcher's settings and submissions (slurm/slurm.json) ------------------------ */

/*
 * zlbench's arrays have one task per operator (FlagGems has about a thousand marks): a spec
 * that names more tasks is not one of them. (Slurm's own largest MaxArraySize, 4,000,001,
 * took 10 s to expand in the fuzzer's instrumented build.)
 */
#define ZL_SLURM_MAX_TASKS 100000

struct zl_slurm_task {
	long index;         /* array index */
	char *op;
	int attempt;
};

struct zl_slurm_submission {
	char *job_id;       /* NULL until sbatch answered */
	char *submitted_at;
	char *script;       /* relative to the batch directory */
	struct strvec sbatch_argv;
	struct zl_slurm_task *tasks;
	size_t nr, alloc;
};

struct zl_slurm_config {
	char *dir;                 /* absolute batch directory (not stored) */
	char *partition;           /* NULL: the cluster's default */
	char *account;
	long time_per_op_min;      /* 0: the partition's limit */
	struct strvec sbatch_args; /* given to sbatch before the script */
	char *zlbench;             /* absolute path of the binary the tasks run */
	struct zl_slurm_submission *subs;
	size_t nr, alloc;
};
void zl_slurm_config_init(struct zl_slurm_config *c);
void zl_slurm_config_release(struct zl_slurm_config *c);
int zl_slurm_config_save(const struct zl_slurm_config *c, struct strbuf *err);
/* Read <batch_dir>/slurm/slurm.json into c (freshly initialised). */
int zl_slurm_config_load(struct zl_slurm_config *c, const char *batch_dir, struct strbuf *err);
/* 1 when batch_dir was launched with --launcher slurm. */
int zl_slurm_is_batch(const char *batch_dir);

/*
 * Arguments the launcher sets itself, which --sbatch-arg may not: the array,
 * output files, --wrap, --parsable, --wait. 0, or -1 naming the argument.
 */
int zl_slurm_check_sbatch_args(const struct strvec *args, struct strbuf *err);

/*
 * The sbatch script of submission sub (its tasks and job-independent settings):
 * #SBATCH directives, a case over SLURM_ARRAY_TASK_ID and the exec of the task
 * entry point (`zlbench batch --slurm-task DIR --op OP --attempt K`).
 */
void zl_slurm_script(const struct zl_slurm_config *c, const struct zl_slurm_submission *sub,
		     const struct zl_batch_config *bc, const char *plugins_dir, struct strbuf *out);

/* The job name of the batch in dir: "zlbench-" and its base name, in characters every tool takes. */
void zl_slurm_job_name(struct strbuf *out, const char *dir);

/* ZL_SLURM_POLL and ZL_SLURM_TIMEOUT, when set, are positive numbers of seconds; -1 with err naming the culprit. */
int zl_slurm_check_env(struct strbuf *err);

/* ---- running --------------------------------------------------------------------------- */

struct zl_slurm_run_opts {
	const char *partition, *account;
	long time_per_op_min;
	const struct strvec *sbatch_args;
	int detach;                 /* submit and return */
	int retry_failed;           /* with resume */
	enum zl_progress_mode progress;
	const char *self_exe;       /* the zlbench binary (absolute) the tasks run */
};

/*
 * Submit the ops of bc that have no final row (a new batch: all of them) as one job
 * array, or as several when they are more than the cluster's MaxArraySize, then,
 * unless detached, follow the job arrays to their end: a row in ops_status.csv and
 * a history entry per finished task, the progress line, scancel on SIGINT/SIGTERM.
 * resume: the batch exists (its earlier submissions must have ended).
 * Returns 0 with *out filled and *job_id the submitted jobs, comma-separated (NULL
 * when every op already had a final row; the caller frees), -1 with err when the batch could
 * not be submitted (sbatch refused it, an earlier submission is still running, ...),
 * -2 with err when sbatch did not answer in time: the job may exist.
 */
int zl_slurm_launch(const struct zl_batch_config *bc, const struct zl_slurm_run_opts *o, int resume,
		    struct zl_batch_outcome *out, char **job_id, struct strbuf *err);

/*
 * --dry-run: the launcher's settings, the array tasks, the estimate (batch_estimate.h;
 * whole_suite: with the goal for the whole suite), the sbatch argv and the (first)
 * script; nothing is submitted.
 */
void zl_slurm_print_plan(const struct zl_batch_config *bc, const struct zl_slurm_run_opts *o, int whole_suite,
			 FILE *out);

/*
 * `--collect DIR`: follow every submission of the batch until each task has a
 * row (wait = 0: record what has ended and return). SIGINT stops following;
 * nothing is cancelled.
 */
int zl_slurm_collect(const struct zl_batch_config *bc, const struct zl_slurm_run_opts *o, int wait,
		     struct zl_batch_outcome *out, struct strbuf *err);

/*
 * The array task's work (`zlbench batch --slurm-task DIR --op OP --attempt K`, run by
 * the generated script on the node; cmd_batch.c's hidden row parses it): pins the
 * granted GPU, writes its task record, runs `zlbench run` for the op with ZL_SCHEDULER
 * and ZL_NO_HISTORY=1, and returns the run's exit code.
 */
int zl_slurm_task_main(const char *dir, const char *op, int attempt);

#endif
