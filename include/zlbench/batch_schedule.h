/*
 * What ran where and when in a batch: <batch_dir>/schedule.jsonl, one JSON object
 * per line, one line per `zlbench run` child of the local scheduler (an op's run,
 * a warm-up shard, a timed replay), appended as the child ends. The report draws
 * its timeline from it. ops_status.csv keeps one row per op; this file also holds
 * the warm-up shards and the scheduler's own start and end of each child (the
 * identity's started_at/finished_at are pytest's, in whole seconds).
 *
 *   {"op": "mm", "attempt": 1, "role": "run"|"warmup_shard"|"timed", "shard": 2|null,
 *    "device": "0", "started_at": ISO 8601 UTC, "finished_at": ISO 8601 UTC,
 *    "start_epoch": seconds, "end_epoch": seconds (3 decimals), "wall_s": seconds,
 *    "status": "passed"|..., "exit_code": int|null, "run_dir": relative|null,
 *    "log": relative|null}
 *
 * A batch written before this file existed, or run through Slurm, has none:
 * readers fall back to ops_status.csv. A line cut off by a crash is skipped.
 *
 * Owner: zl_schedule_load() fills a struct zl_schedule the caller owns and frees
 * with zl_schedule_release(); zl_schedule_append() borrows its argument.
 */
#ifndef ZLBENCH_BATCH_SCHEDULE_H
#define ZLBENCH_BATCH_SCHEDULE_H

#include <stddef.h>

#include "strbuf.h"

#define ZL_BATCH_SCHEDULE_FILE "schedule.jsonl"

/* One child as the scheduler saw it (borrowed strings; NULL: null). */
struct zl_sched_line {
	const char *op;
	int attempt;
	const char *role;
	int shard;            /* 0: not a shard */
	const char *device;
	double start_epoch, end_epoch;
	const char *status;
	int exit_code;        /* < 0: null */
	const char *run_dir;
	const char *log;
};

/* Append one line to <batch_dir>/schedule.jsonl (one write; created when absent). */
int zl_schedule_append(const char *batch_dir, const struct zl_sched_line *l, struct strbuf *err);

struct zl_sched_entry {
	char *op, *role, *device, *status, *run_dir;
	int attempt, shard, exit_code;   /* shard 0, exit_code -1: null */
	double start_epoch, end_epoch;
};

struct zl_schedule {
	struct zl_sched_entry *v;
	size_t nr, alloc;
	size_t skipped;       /* lines that were no such object */
};

void zl_schedule_init(struct zl_schedule *s);
void zl_schedule_release(struct zl_schedule *s);
/* Read <batch_dir>/schedule.jsonl: 0 read, 1 absent (s empty), -1 unreadable (err says why). */
int zl_schedule_load(const char *batch_dir, struct zl_schedule *s, struct strbuf *err);

#endif
