/*
 * Calibrations (`zlbench calibrate`, docs/calibrate.md): how far identical runs of one
 * set-up land apart, per size class of kernel time, judged by compare's own verdict
 * engine, and the floor that follows. Pure: loaded runs in, figures out; the command
 * runs the batches, and history.h stores the result.
 *
 * For every op, every pair (i < j) of its K identical runs is compared as compare
 * compares (zl_compare_runs: the samples rule where both rows have samples_ms, else the
 * medians rule), run i as A. An A/A row is one row of one such pair with a latency on
 * both sides; its size class is that of its A-side latency (as compare picks a row's
 * floor). Per class:
 *   rows          A/A rows
 *   spread_rel    root mean square of log(B/A) over them: the run-to-run spread (about
 *                 0, not the mean: a run shifted as a whole is part of the noise)
 *   spread_upper  its 95 % upper confidence bound, spread * sqrt(dof / chi2_0.05(dof)),
 *                 dof = the rows of one pair * (K - 1), summed over ops (K runs give
 *                 K - 1 independent differences of a row; the K(K-1)/2 pairs are not
 *                 independent)
 *   false_flag    the share of A/A rows compare calls faster or slower with its floor
 *                 at 1, 2 and 5 % (zl_calibration_levels_pct) and no calibrated spread
 *   floor_pct     the floor recommended: the smallest F = F0 * 1.25^k (k = 0, 1, ...;
 *                 rounded up to a tenth of a percent) at which compare, with floor F and
 *                 this spread, calls at most ZL_CALIB_TARGET of the class's A/A rows
 *                 faster or slower; F0 = max(ZL_FLOOR_SIGMAS * spread_upper,
 *                 ZL_CALIB_MIN_FLOOR_PCT). So F covers three (upper-bound) standard
 *                 deviations of the measured shifts and, checked row by row, the
 *                 measured tail too.
 * The key of a calibration (backend, device name, timer, FlagGems commit) is that of
 * the runs; zl_calib_key() says which part a run lacks.
 *
 * Owner: struct zl_calib_result is the caller's (_init/_release); the inputs are
 * borrowed for the call only.
 */
#ifndef ZLBENCH_CALIBRATE_H
#define ZLBENCH_CALIBRATE_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "history.h"
#include "runload.h"
#include "strbuf.h"
#include "strvec.h"

/* At the recommended floor, at most this share of a class's A/A rows is flagged. */
#define ZL_CALIB_TARGET 0.001
#define ZL_CALIB_MIN_FLOOR_PCT 0.5
#define ZL_CALIB_FLOOR_STEP 1.25
#define ZL_CALIB_MAX_STEPS 40

/* One op's identical runs (borrowed), in the order they ran; at least two to count. */
struct zl_calib_op {
	const char *op;
	const struct zl_run *const *runs;
	size_t nr;
};

struct zl_calib_class {
	long rows;                /* A/A rows */
	long rows_samples;        /* of them judged on raw samples (the rest: medians rule) */
	double dof;
	double spread_rel;        /* NAN without rows */
	double spread_upper;
	double q99_rel;           /* 99th percentile of |B/A - 1| (nearest rank) */
	double max_rel;           /* the largest |B/A - 1| */
	long flags[ZL_CALIBRATION_LEVELS];  /* A/A rows called faster or slower at 1, 2, 5 % */
	double floor_pct;         /* recommended; NAN without rows */
	long floor_flags;         /* A/A rows flagged at the recommended floor */
	int floor_steps;          /* times F0 was raised to meet ZL_CALIB_TARGET */
};

struct zl_calib_result {
	struct zl_calib_class cls[ZL_SIZE__COUNT];
	size_t ops;               /* ops that had two runs or more */
	size_t pairs;             /* pairs of runs compared */
	size_t rows;              /* A/A rows over all classes */
	struct strvec notes;      /* ops left out and why */
};
void zl_calib_result_init(struct zl_calib_result *r);
void zl_calib_result_release(struct zl_calib_result *r);

/* Measure n ops' runs into out (freshly initialised). */
void zl_calib_compute(const struct zl_calib_op *ops, size_t n, struct zl_calib_result *out);

/* Copy the figures of r's classes that have rows into cal's classes (present, rows, ...). */
void zl_calib_fill(const struct zl_calib_result *r, struct zl_calibration *cal);

/*
 * The timer a run's calibration is keyed by: timer.used, else (absent or "mixed") the plan;
 * for the profiler timer followed by how it measured (zl_profiler_method:
 * "profiler/synced/batches"), so that a calibration of an older way of measuring is not
 * taken for a newer one. NULL when the run names no timer; the caller frees it.
 */
char *zl_run_timer_key(const struct zl_run *run);

/*
 * Fill cal's key (backend, device name, timer, FlagGems commit) from run. 0, or -1
 * with why naming the missing parts (the calibration can be measured, not stored).
 */
int zl_calib_key(const struct zl_run *run, struct zl_calibration *cal, struct strbuf *why);

/* 1 when run has the key of cal (every part equal). */
int zl_calib_key_matches(const struct zl_run *run, const struct zl_calibration *cal);

/*
 * The calibration compare (and ab) uses for runs A and B: the newest in the history
 * database (db, else $ZL_HISTORY_DB, else $ZL_HOME/history.db; never created) for A's
 * key, else for B's FlagGems commit. *h is opened when NULL (the caller closes it).
 * 1 found (into cal); 0 not, with the reason in note (an unreadable database leaves
 * the fixed floor and says so: a comparison does not need it).
 */
int zl_calibration_lookup(const char *db, struct zl_history **h, const struct zl_run *a, const struct zl_run *b,
			  struct zl_calibration *cal, struct strbuf *note);

/*
 * Renderers: the classes as a table (text; fitted to width columns, 0: no limit, by leaving
 * out the spread's upper bound, the tail and the 2 and 5 % rates in that order), the
 * recommended floors on one line ("<5us 2.3%, 5-50us 1.1%"), and the classes as a JSON
 * array of class objects (NULL: out of memory).
 */
void zl_calib_print_text(const struct zl_calib_result *r, size_t width, FILE *out);
void zl_calib_floors(const struct zl_calib_result *r, struct strbuf *sb);
cJSON *zl_calib_classes_json(const struct zl_calib_result *r);

#endif
