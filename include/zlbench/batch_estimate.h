/*
 * How long a batch will take, before it starts (`zlbench batch --dry-run`) and while it
 * runs (the live line's ETA), from one estimate:
 *
 *   each op      the mean duration_s of its finished runs in the history at this backend
 *                and level (zl_history_op_durations, as the start order has always used);
 *                an op without history is a guess, said as such: the median of the known
 *                ops that share a benchmark file with it, else the median of every op the
 *                history knows at this backend and level, else ZL_BATCH_OP_DEFAULT_S
 *   start-ups    with per-device workers, one start-up per device: the median wall time
 *                from start to ready of the workers of the newest batches of this host in
 *                the history (their workers/events.jsonl), else ZL_BATCH_STARTUP_DEFAULT_S;
 *                fresh interpreters start inside each op's duration
 *   makespan     longest processing time first over the devices (each op to the device
 *                that frees first), each device's first op after its worker's start-up;
 *                and the same over ZL_BATCH_GOAL_DEVICES devices
 *
 * Owner: a struct zl_batch_estimate is the caller's (_init/_release); the strings and
 * file lists of its ops are its own.
 */
#ifndef ZLBENCH_BATCH_ESTIMATE_H
#define ZLBENCH_BATCH_ESTIMATE_H

#include <stddef.h>
#include <stdio.h>

#include "strbuf.h"
#include "strvec.h"

struct zl_op_durations;
struct zl_batch_config;

/* An op without any history: the mean per passing mark of a random 40-mark core sample on an H200 (issue 25). */
#define ZL_BATCH_OP_DEFAULT_S 36.0
/* A worker's start-up without any recorded: measured on an H200 (issue 25: torch, Triton and FlagGems imported). */
#define ZL_BATCH_STARTUP_DEFAULT_S 11.0
/* What the estimate also gives: the makespan on this many devices, and the goal for FlagGems' whole core suite. */
#define ZL_BATCH_GOAL_DEVICES 8
#define ZL_BATCH_SUITE_GOAL_S (15.0 * 60.0)
/* How many of the newest batches in the history the start-up is taken from. */
#define ZL_BATCH_STARTUP_BATCHES 5

enum zl_est_from {
	ZL_EST_HISTORY,            /* the op's own runs */
	ZL_EST_FILE,               /* guess: the median of known ops sharing a file with it */
	ZL_EST_KNOWN,              /* guess: the median of every op the history knows */
	ZL_EST_DEFAULT,            /* guess: ZL_BATCH_OP_DEFAULT_S */
	ZL_EST__COUNT
};
/* "history", "file median", "known median", "default" */
const char *zl_est_from_name(enum zl_est_from f);

struct zl_est_op {
	char *op;
	struct strvec files;       /* the benchmark files it resolves to (may be empty) */
	double expect_s;
	enum zl_est_from from;
	long runs;                 /* ZL_EST_HISTORY: the runs averaged */
	size_t peers;              /* ZL_EST_FILE, ZL_EST_KNOWN: the ops the median is of */
};

struct zl_batch_estimate {
	struct zl_est_op *v;       /* in the batch's list order */
	size_t nr, alloc;
	size_t *order;             /* indices into v, longest expected first (ties: list order) */
	size_t by_from[ZL_EST__COUNT];
	size_t guesses;            /* ops not from their own history */
	int workers;               /* one worker start-up per device */
	double startup_s;
	size_t startup_samples;    /* start-ups the figure is the median of; 0: the default */
	size_t devices;            /* 0: as many as Slurm grants */
	double sum_s;              /* every op's expected duration */
	double makespan_s;         /* on the batch's devices (devices > 0) */
	double goal_makespan_s;    /* on ZL_BATCH_GOAL_DEVICES devices */
	char *history_error;       /* the history could not be read: why (else NULL) */
};
void zl_batch_estimate_init(struct zl_batch_estimate *e);
void zl_batch_estimate_release(struct zl_batch_estimate *e);
/* Add an op in list order; files (may be NULL) are copied. Returns it. */
struct zl_est_op *zl_batch_estimate_add(struct zl_batch_estimate *e, const char *op, const struct strvec *files);

/*
 * Fill every op's expectation from hist (NULL: no history), the order and the totals;
 * e->workers, e->startup_s, e->startup_samples and e->devices are set by the caller first.
 */
void zl_batch_estimate_compute(struct zl_batch_estimate *e, const struct zl_op_durations *hist);

/*
 * Read the history for the batch c (its backend, level, launcher, devices, start mode; none
 * with ZL_NO_HISTORY), then compute. The ops must have been added. A history that cannot be
 * read leaves every op a guess, with e->history_error saying why.
 */
void zl_batch_estimate_load(struct zl_batch_estimate *e, const struct zl_batch_config *c);

/*
 * The estimate of ops (in list order) in the batch c: each op with the benchmark files it
 * resolves to in c's checkout (the mark index, batch_ops.c), then zl_batch_estimate_load.
 */
void zl_batch_estimate_ops(struct zl_batch_estimate *e, const struct zl_batch_config *c, const struct strvec *ops);

/*
 * The makespan of jobs (seconds, any order) over ndev devices, longest first, each job to
 * the device that frees first; load[d] is when device d frees (in: its start, out: its end).
 */
double zl_batch_lpt(const double *jobs, size_t n, double *load, size_t ndev);

/* One op's expectation for people: "  12.0 s  history (3 runs)   benchmark/test_x.py". */
void zl_batch_estimate_op_text(const struct zl_est_op *o, struct strbuf *sb);
/* The estimate's lines for --dry-run: per op (start order) and the totals; whole_suite: the goal line. */
void zl_batch_estimate_print_ops(const struct zl_batch_estimate *e, FILE *out);
void zl_batch_estimate_print_totals(const struct zl_batch_estimate *e, int whole_suite, FILE *out);

#endif
