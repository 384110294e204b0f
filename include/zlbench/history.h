/*
 * The run history: one SQLite database, by default $ZL_HOME/history.db.
 *
 * Tables: `runs` (one row per run_id, the identity fields as columns plus the
 * whole run_identity.json in `identity`) and `results` (one row per op, dtype,
 * shape, occurrence and side of a run; see runload.h). The schema version is
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

#define ZL_HISTORY_SCHEMA_VERSION 2
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
 * Output helpers shared by `history` and `compare`.
 *
 * CSV (RFC 4180): a field is quoted when it holds a comma, quote, CR, LF or
 * leading/trailing blank, quotes doubled; rows end with CRLF.
 */
void zl_csv_field(struct strbuf *sb, const char *field, int first_in_row);
void zl_csv_end_row(struct strbuf *sb);

/*
 * An aligned text table: add cells row by row (the first row is the header),
 * then print. Colour codes surround a cell's text only when printing in colour,
 * so alignment never depends on them. Owner: the caller; zl_table_release().
 */
enum zl_color { ZL_COLOR_NONE = 0, ZL_COLOR_GREEN, ZL_COLOR_RED, ZL_COLOR_YELLOW, ZL_COLOR_BOLD };
struct zl_table {
	size_t ncols;
	unsigned long right;      /* bit i: column i right-aligned (numbers) */
	struct strvec cells;      /* row-major */
	enum zl_color *colors;    /* one per cell */
	size_t alloc_colors;
};
void zl_table_init(struct zl_table *t, size_t ncols, unsigned long right_mask);
void zl_table_add(struct zl_table *t, const char *cell, enum zl_color color);
void zl_table_addf(struct zl_table *t, enum zl_color color, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void zl_table_print(const struct zl_table *t, FILE *out, int use_color);
void zl_table_release(struct zl_table *t);
/* The escape sequence that starts a colour ("" for none) and the reset sequence. */
const char *zl_color_start(enum zl_color c);
#define ZL_COLOR_RESET "\033[0m"

#endif
