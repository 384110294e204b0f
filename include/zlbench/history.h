/*
 * The run history: one SQLite database, by default $ZL_HOME/history.db.
 *
 * Tables: `runs` (one row per run_id, the identity fields as columns plus the
 * whole run_identity.json in `identity`), `results` (one row per op, dtype,
 * shape, occurrence and side of a run; see runload.h), and `calibrations` with
 * `calibration_classes` (the measured run-to-run noise of one set-up, below).
 * The schema version is
 * `PRAGMA user_version`, raised by the migrations array in history.c (all
 * pending ones in one transaction); a database newer than this zlbench is refused.
 *
 * Concurrency: many zlbench processes (a batch over 8 devices, Slurm array
 * tasks) may ingest into one database at once. The database runs in WAL mode
 * with a 10 s busy timeout, every write is one BEGIN IMMEDIATE transaction
 * (retried on SQLITE_BUSY), and one run is one transaction. Ingesting a run_id
 * again replaces that run and its results (idempotent), except that a copy with
 * no result rows (a truncated or unreadable results.json) never replaces stored
 * rows: that ingest is refused and the stored run kept.
 *
 * Owner: zl_history_open() allocates the handle; zl_history_close() frees it.
 * Lists filled by the query functions belong to the caller, who frees them
 * with their _release function.
 */
#ifndef ZLBENCH_HISTORY_H
#define ZLBENCH_HISTORY_H

#include <stddef.h>
#include <stdio.h>

#include "runload.h"
#include "strbuf.h"
#include "strvec.h"

#define ZL_HISTORY_SCHEMA_VERSION 3
#define ZL_HISTORY_BUSY_TIMEOUT_MS 10000

struct zl_history;

/*
 * Open (creating and migrating as needed) the database at path, or when path is
 * NULL at $ZL_HISTORY_DB, else $ZL_HOME/history.db (ZL_HOME is created). 0 or -1.
 */
int zl_history_open(const char *path, struct zl_history **out, struct strbuf *err);
/* Like zl_history_open, migrating only up to `version` (tests build old databases). */
int zl_history_open_version(const char *path, int version, struct zl_history **out,
			    struct strbuf *err);
/*
 * For commands that only read (history's list, compare, batch's start order): open
 * read-only, so that a database on a read-only mount (or of another user) can be read.
 * A database that does not exist yet or needs a migration is opened as zl_history_open()
 * does. The handle cannot ingest. 0 or -1.
 */
int zl_history_open_readonly(const char *path, struct zl_history **out, struct strbuf *err);
/* NULL is allowed. */
void zl_history_close(struct zl_history *h);
/* The database's path (owned by the handle) and schema version. */
const char *zl_history_path(const struct zl_history *h);
int zl_history_schema_version(struct zl_history *h);
/* $ZL_HISTORY_DB, else $ZL_HOME/history.db, creating nothing. Caller frees; NULL when no home. */
char *zl_history_default_path(void);
/* ZL_NO_HISTORY set to anything but "" or "0": no run is stored, no duration read. */
int zl_history_disabled(void);

/* Load run_dir and store it (replacing an earlier ingest of its run_id). */
int zl_history_ingest_run(struct zl_history *h, const char *run_dir, struct strbuf *err);
/* Store an already loaded run. */
int zl_history_ingest_loaded(struct zl_history *h, const struct zl_run *run, struct strbuf *err);

/* A run directory moved (a batch keeps an earlier attempt aside): its rows name new_dir. */
int zl_history_move_run_dir(struct zl_history *h, const char *old_dir, const char *new_dir, struct strbuf *err);

/* The listed columns of `runs`, in order; entries hold one value per column. */
enum zl_history_col {
	ZL_HCOL_RUN_ID,
	ZL_HCOL_STARTED_AT,
	ZL_HCOL_FINISHED_AT,
	ZL_HCOL_DURATION_S,
	ZL_HCOL_BACKEND,
	ZL_HCOL_VENDOR,
	ZL_HCOL_DEVICE_NAME,
	ZL_HCOL_LEVEL,
	ZL_HCOL_SHAPE_MODE,
	ZL_HCOL_SHAPE_SHA256,
	ZL_HCOL_TEST_NODE,
	ZL_HCOL_OP,
	ZL_HCOL_TIMER_PLAN,
	ZL_HCOL_TUNER_CACHE_MODE,
	ZL_HCOL_AUTOTUNE_MODE,
	ZL_HCOL_STATUS,
	ZL_HCOL_EXIT_CODE,
	ZL_HCOL_RUN_DIR,
	ZL_HCOL_FLAGGEMS_COMMIT,
	ZL_HCOL_HOST,
	ZL_HCOL__COUNT
};
enum zl_col_type { ZL_COL_TEXT, ZL_COL_REAL, ZL_COL_INT };
struct zl_history_column {
	const char *name;
	enum zl_col_type type;
};
extern const struct zl_history_column zl_history_columns[ZL_HCOL__COUNT];

struct zl_history_entry {
	char *v[ZL_HCOL__COUNT];  /* text form of each column; NULL when null */
	long results;             /* rows in `results` for this run */
	double speedup_geomean;   /* geomean of FlagGems' speedup over the gems rows; NAN if none */
};
struct zl_history_list {
	struct zl_history_entry *v;
	size_t nr, alloc;
};
#define ZL_HISTORY_LIST_INIT { NULL, 0, 0 }
void zl_history_list_release(struct zl_history_list *l);

/* Filters; NULL or <= 0 means "any". since: started_at >= since (ISO 8601 text). */
struct zl_history_filter {
	const char *op;
	const char *backend;
	const char *since;
	long limit;
};
#define ZL_HISTORY_FILTER_INIT { NULL, NULL, NULL, 0 }

/*
 * A --since argument as the stored form YYYY-MM-DDTHH:MM:SSZ: a date
 * (YYYY-MM-DD[THH:MM[:SS]][Z]) or an age (12h, 7d, 2w: that long before now).
 * Caller frees; NULL with err when it is neither (cmd_history.c, shared by report).
 */
char *zl_history_since_value(const char *s, struct strbuf *err);

/* Runs matching f, newest first, appended to out. */
int zl_history_query(struct zl_history *h, const struct zl_history_filter *f,
		     struct zl_history_list *out, struct strbuf *err);

/*
 * The run directory stored for a run id (exact, or a prefix matching exactly one
 * run). Caller frees *run_dir. -1 with err when none or several match.
 */
int zl_history_find_run(struct zl_history *h, const char *run_id, char **run_dir,
			struct strbuf *err);

/*
 * Build run (freshly initialised) from what the database stored: the identity, its
 * columns and every results row, for a run whose directory is gone. key: a run id,
 * a unique prefix of one, or the run directory as recorded (the newest run there).
 * run->dir is the recorded directory (NULL when none); a note in run->notes says
 * the run came from the history. Plugin files other than timer.jsonl's figures
 * (autotune summary, records) are not stored. 0, or -1 with err (run released).
 */
int zl_history_load_run(struct zl_history *h, const char *key, struct zl_run *run, struct strbuf *err);
/* How that note starts (renderers look for it). */
#define ZL_HISTORY_LOADED_NOTE "loaded from history"
/* The note on a run built by zl_history_load_run(), or NULL. */
const char *zl_history_loaded_note(const struct zl_run *run);

/*
 * Mean duration_s per op over finished runs (status not running, preflight_failed
 * or interrupted), optionally of one backend (NULL: all), longest first.
 */
struct zl_op_duration {
	char *op;
	double mean_s;
	long runs;
};
struct zl_op_durations {
	struct zl_op_duration *v;
	size_t nr, alloc;
};
#define ZL_OP_DURATIONS_INIT { NULL, 0, 0 }
int zl_history_op_durations(struct zl_history *h, const char *backend, const char *level,
			    struct zl_op_durations *out, struct strbuf *err);
/* Mean seconds of op, or -1 when the history has none. */
double zl_op_durations_get(const struct zl_op_durations *d, const char *op);
void zl_op_durations_release(struct zl_op_durations *d);

/*
 * Calibrations (`zlbench calibrate`, docs/verdicts.md): how much identical runs of
 * one set-up differ, keyed by backend, device name, timer (the timer that measured:
 * profiler, graph, direct) and FlagGems commit. Figures are per size class of
 * kernel time, the class of a row being that of its A-side estimate:
 *   spread_rel   run-to-run spread: the standard deviation of log(B/A) over the
 *                rows of pairs of identical runs (0.01 = 1 %)
 *   false_flag   the share of those A/A rows compare called faster or slower with
 *                its threshold at 1, 2 and 5 % (zl_calibration_levels_pct)
 *   floor_pct    the floor the calibration recommends: compare's threshold is at
 *                least this, and its intervals carry a run-to-run standard deviation
 *                of max(spread_rel, floor / ZL_FLOOR_SIGMAS) (compare.h)
 * compare uses the newest calibration whose key matches run A's (backend, device
 * name, timer.used else timer.plan, FlagGems commit), else B's commit, and names it.
 *
 * Table calibrations: id, backend, device_name, timer, flaggems_commit, created_at
 * (ISO 8601 UTC), runs (K), ops and run_ids (JSON arrays of strings), detail (JSON,
 * free for the calibrating command). Table calibration_classes: (calibration,
 * size_class) key, rows, spread_rel, false_flag_1, false_flag_2, false_flag_5,
 * floor_pct; a class without rows is absent.
 */
enum zl_size_class {
	ZL_SIZE_UNDER_5US,       /* < 5 us */
	ZL_SIZE_5_50US,          /* 5-50 us */
	ZL_SIZE_50_500US,        /* 50-500 us */
	ZL_SIZE_OVER_500US,      /* >= 500 us */
	ZL_SIZE__COUNT
};
/* "<5us", "5-50us", "50-500us", ">=500us". */
const char *zl_size_class_name(enum zl_size_class c);
/* 0, or -1 when s names no class. */
int zl_size_class_parse(const char *s, enum zl_size_class *out);
/* The class of a kernel time in ms; ZL_SIZE__COUNT when it is not a positive number. */
enum zl_size_class zl_size_class_of(double ms);

#define ZL_CALIBRATION_LEVELS 3
extern const double zl_calibration_levels_pct[ZL_CALIBRATION_LEVELS]; /* 1, 2, 5 */

struct zl_calibration_class {
	int present;             /* the class was measured (the other fields mean something) */
	long rows;
	double spread_rel;       /* NAN when unknown */
	double false_flag[ZL_CALIBRATION_LEVELS];  /* shares in [0, 1]; NAN when unknown */
	double floor_pct;        /* > 0 */
};

struct zl_calibration {
	long id;                 /* row id; 0 until stored or found */
	char *backend;
	char *device_name;
	char *timer;
	char *flaggems_commit;
	char *created_at;        /* NULL when storing: now */
	long runs;               /* identical runs measured; -1 when unknown */
	struct strvec ops;
	struct strvec run_ids;
	char *detail;            /* JSON text or NULL */
	struct zl_calibration_class cls[ZL_SIZE__COUNT];
};
/* Owner: the caller; _release frees the strings and vectors and re-initialises. */
void zl_calibration_init(struct zl_calibration *c);
void zl_calibration_release(struct zl_calibration *c);

/*
 * Store cal in one transaction; cal->id (and created_at when NULL) are filled in.
 * The key fields must be set, at least one class present, each present class with
 * floor_pct > 0, rows >= 0, spread_rel >= 0 and false flags in [0, 1] (or NAN).
 */
int zl_history_store_calibration(struct zl_history *h, struct zl_calibration *cal,
				 struct strbuf *err);
/*
 * The newest calibration with this key into out (freshly initialised): 1 found,
 * 0 none, -1 error (err set).
 */
int zl_history_find_calibration(struct zl_history *h, const char *backend, const char *device_name,
				const char *timer, const char *flaggems_commit,
				struct zl_calibration *out, struct strbuf *err);
/* "calibration 3 (cuda, <device name>, graph timer, flaggems ed2508bc, 2026-11-30T10:00:00Z)" */
void zl_calibration_describe(const struct zl_calibration *c, struct strbuf *sb);

#endif
