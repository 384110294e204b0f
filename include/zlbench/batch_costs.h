/*
 * Where a batch's hours went: per op its wall time (the `zlbench run` child as the batch saw
 * it) split into what pytest spent on collection, on FlagGems' inputs, on each measurement's
 * first call (compile, autotune), in the timers, in FlagGems' operator registration
 * (flag_gems.use_gems), on everything else, and outside pytest's
 * session (the run's own preflight, identity and history); the workers' start-ups and the
 * warm-up shards as lines of their own.
 *
 * The split comes from each run's plugins/timer_summary.json, whose "cost" object the timer
 * plugin writes (all seconds):
 *   {"session_s", "collection_s", "inputs_s", "first_call_s", "timer_s", "use_gems_s",
 *    "other_s"}
 * A run without it (an older zlbench, a run that was killed) has an unknown split: NAN
 * here, null in costs.json, empty in costs.csv, "unknown" on the terminal; never 0. A run of a
 * zlbench before use_gems_s knows every part but that one, whose time stays in other_s.
 *
 * Files (in the batch directory, each written atomically at the end of every session):
 *   costs.json   {"schema": "zlbench.batch_costs/1", "ops": [...longest first], "totals",
 *                 "worker_startups", "warmup_shards", "device_time_s"}
 *   costs.csv    one row per op, longest first, then "(total)", "(worker start-ups)" and
 *                "(warm-up shards)" rows (op names never hold parentheses)
 *
 * Owner: a struct zl_batch_costs or zl_batch_startups is the caller's (_init/_release).
 */
#ifndef ZLBENCH_BATCH_COSTS_H
#define ZLBENCH_BATCH_COSTS_H

#include <stddef.h>
#include <stdio.h>

#include "strbuf.h"

struct zl_batch_config;

#define ZL_BATCH_COSTS_JSON "costs.json"
#define ZL_BATCH_COSTS_CSV "costs.csv"
/* More ops than this: the terminal shows the longest ones, the files have every one. */
#define ZL_BATCH_COSTS_SHOWN 30

/* The parts of pytest's session, in the order of the "cost" object. */
enum zl_cost_part {
	ZL_COST_SESSION,           /* session_s: pytest's session, configure to finish */
	ZL_COST_COLLECTION,        /* collection_s */
	ZL_COST_INPUTS,            /* inputs_s: FlagGems' Benchmark.get_input_iter */
	ZL_COST_FIRST_CALL,        /* first_call_s: each measurement's first call (compile, autotune) */
	ZL_COST_TIMER,             /* timer_s: the timers besides first calls */
	ZL_COST_USE_GEMS,          /* use_gems_s: flag_gems.use_gems registering FlagGems' operators */
	ZL_COST_OTHER,             /* other_s: the session less the five above */
	ZL_COST__COUNT
};
/* The key in the "cost" object ("session_s", ...) and the column's title ("session", ...). */
const char *zl_cost_key(enum zl_cost_part p);
const char *zl_cost_title(enum zl_cost_part p);

/*
 * The "cost" object of a timer_summary.json text: v[] each part's seconds (NAN when absent
 * or not a finite number >= 0). 1 when the object is there, 0 when the document has none,
 * -1 when the text is no JSON object (v all NAN either way).
 */
int zl_cost_parse(const char *text, size_t len, double v[ZL_COST__COUNT]);

struct zl_op_cost {
	char *op;
	char *status;              /* the last row's, or NULL */
	int attempt;
	char *run_dir;             /* relative to the batch directory, or NULL */
	double wall_s;             /* NAN when the row has none */
	double v[ZL_COST__COUNT];  /* NAN: unknown */
	double outside_s;          /* wall less the session (>= 0); NAN when either is unknown */
	int drew_on_device;        /* its run drew integer and bool inputs on the device (plugins/inputs.json) */
};

/* The worker start-ups of a batch (workers/events.jsonl). */
struct zl_batch_startups {
	size_t started;            /* "started" events */
	double *wall;              /* each "ready" event's wall_s: start to ready as the batch saw it */
	size_t nr, alloc;
};
void zl_batch_startups_init(struct zl_batch_startups *s);
void zl_batch_startups_release(struct zl_batch_startups *s);
/* Add the events of an events.jsonl text (lines that are no such object are skipped). */
void zl_batch_startups_parse(const char *text, size_t len, struct zl_batch_startups *s);
/* Read <batch_dir>/workers/events.jsonl (absent: nothing added). */
void zl_batch_startups_read(const char *batch_dir, struct zl_batch_startups *s);

struct zl_batch_costs {
	struct zl_op_cost *v;      /* the ops that have a row, longest wall first */
	size_t nr, alloc;
	size_t not_run;            /* ops of the batch without a row */
	double wall_s;             /* the sum of the known walls */
	size_t wall_unknown;
	double total[ZL_COST__COUNT];  /* sums over the ops that know the part */
	size_t unknown[ZL_COST__COUNT];/* ops that do not */
	double outside_s;
	size_t outside_unknown;
	struct zl_batch_startups startups;
	double startup_s;          /* the sum of the start-ups' walls */
	size_t shards;             /* warm-up shards (schedule.jsonl) and their walls */
	double shards_s;
	double device_s;           /* ops + start-ups + shards */
};
void zl_batch_costs_init(struct zl_batch_costs *k);
void zl_batch_costs_release(struct zl_batch_costs *k);

/* Fill k from c's directory: ops_status.csv, each run's timer_summary.json, the workers, the schedule. */
void zl_batch_costs_load(const struct zl_batch_config *c, struct zl_batch_costs *k);
/* Write costs.json and costs.csv into the batch directory, each atomically. 0, or -1 with err. */
int zl_batch_costs_write(const char *batch_dir, const struct zl_batch_costs *k, struct strbuf *err);
/* The table on the terminal (the longest ZL_BATCH_COSTS_SHOWN ops, the totals, the other lines). */
void zl_batch_costs_print(const struct zl_batch_costs *k, const char *batch_dir, FILE *out, int use_color);

#endif
