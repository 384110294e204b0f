#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>
#include <cjson/cJSON.h>

#include "zlbench/env.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/history.h"
#include "zlbench/home.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

struct zl_history {
	sqlite3 *db;
	char *path;
	int version;
};

/* ---- schema ---------------------------------------------------------------- */

/*
 * Migrations: entry i takes the schema from version i to i + 1. Never edit a
 * released entry; append a new one and raise ZL_HISTORY_SCHEMA_VERSION.
 */
struct migration {
	const char *sql;
	int (*fixup)(sqlite3 *db, struct strbuf *err); /* data changes SQL cannot express portably */
};

static int backfill_host(sqlite3 *db, struct strbuf *err);

static const struct migration migrations[] = {
	{ "CREATE TABLE runs ("
	  " id INTEGER PRIMARY KEY,"
	  " run_id TEXT NOT NULL UNIQUE,"
	  " started_at TEXT, finished_at TEXT, duration_s REAL,"
	  " backend TEXT, vendor TEXT, device_name TEXT, level TEXT,"
	  " shape_mode TEXT, shape_sha256 TEXT, test_node TEXT, op TEXT,"
	  " timer_plan TEXT, tuner_cache_mode TEXT, autotune_mode TEXT,"
	  " status TEXT, exit_code INTEGER, run_dir TEXT, flaggems_commit TEXT,"
	  " identity TEXT NOT NULL,"
	  " ingested_at TEXT NOT NULL);"
	  "CREATE TABLE results ("
	  " run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	  " op TEXT NOT NULL, dtype TEXT, shape TEXT, occurrence INTEGER NOT NULL DEFAULT 1,"
	  " side TEXT NOT NULL,"
	  " latency_base_ms REAL, latency_ms REAL, speedup REAL,"
	  " timer TEXT, samples INTEGER, median REAL, min REAL, max REAL, iqr REAL,"
	  " error_msg TEXT);"
	  "CREATE INDEX results_run ON results(run);",
	  NULL },
	/* 2: the host column (filled from each stored identity) and indexes for history's filters */
	{ "ALTER TABLE runs ADD COLUMN host TEXT;"
	  "CREATE INDEX runs_op_started ON runs(op, started_at);"
	  "CREATE INDEX runs_backend_started ON runs(backend, started_at);",
	  backfill_host },
	/* 3: calibrations of the run-to-run noise, the floor of compare's verdicts (history.h) */
	{ "CREATE TABLE calibrations ("
	  " id INTEGER PRIMARY KEY,"
	  " backend TEXT NOT NULL, device_name TEXT NOT NULL, timer TEXT NOT NULL,"
	  " flaggems_commit TEXT NOT NULL, created_at TEXT NOT NULL,"
	  " runs INTEGER, ops TEXT, run_ids TEXT, detail TEXT);"
	  "CREATE TABLE calibration_classes ("
	  " calibration INTEGER NOT NULL REFERENCES calibrations(id) ON DELETE CASCADE,"
	  " size_class TEXT NOT NULL, rows INTEGER NOT NULL, spread_rel REAL,"
	  " false_flag_1 REAL, false_flag_2 REAL, false_flag_5 REAL, floor_pct REAL NOT NULL,"
	  " PRIMARY KEY (calibration, size_class));"
	  "CREATE INDEX calibrations_key ON calibrations(backend, device_name, timer,"
	  " flaggems_commit, created_at);",
	  NULL },
};

_Static_assert(ZL_ARRAY_SIZE(migrations) == ZL_HISTORY_SCHEMA_VERSION,
	       "one migration per schema version");

/*
 * The run's fields the history keeps (identity_fields.h): those with a column are stored in
 * it; the others are read from the stored identity when a run is loaded. run_dir is the
 * run's own, not its identity's.
 */
static const struct stored_field {
	struct zl_record_field f;
	int column;              /* enum zl_history_col, or -1 */
} stored_fields[] = {
#define ZL_IDENTITY_FIELD(key, kind, value, record, member, column) \
	ZL_RECORD_IF_##record({ { key, ZL_REC_##record, offsetof(struct zl_run, member) }, column },)
#include "zlbench/identity_fields.h"
#undef ZL_IDENTITY_FIELD
};

/* The field column c holds; NULL for run_dir. */
static const struct zl_record_field *column_field(int c)
{
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(stored_fields); i++)
		if (stored_fields[i].column == c)
			return &stored_fields[i].f;
	return NULL;
}

const struct zl_history_column zl_history_columns[ZL_HCOL__COUNT] = {
	[ZL_HCOL_RUN_ID] = { "run_id", ZL_COL_TEXT },
	[ZL_HCOL_STARTED_AT] = { "started_at", ZL_COL_TEXT },
	[ZL_HCOL_FINISHED_AT] = { "finished_at", ZL_COL_TEXT },
	[ZL_HCOL_DURATION_S] = { "duration_s", ZL_COL_REAL },
	[ZL_HCOL_BACKEND] = { "backend", ZL_COL_TEXT },
	[ZL_HCOL_VENDOR] = { "vendor", ZL_COL_TEXT },
	[ZL_HCOL_DEVICE_NAME] = { "device_name", ZL_COL_TEXT },
	[ZL_HCOL_LEVEL] = { "level", ZL_COL_TEXT },
	[ZL_HCOL_SHAPE_MODE] = { "shape_mode", ZL_COL_TEXT },
	[ZL_HCOL_SHAPE_SHA256] = { "shape_sha256", ZL_COL_TEXT },
	[ZL_HCOL_TEST_NODE] = { "test_node", ZL_COL_TEXT },
	[ZL_HCOL_OP] = { "op", ZL_COL_TEXT },
	[ZL_HCOL_TIMER_PLAN] = { "timer_plan", ZL_COL_TEXT },
	[ZL_HCOL_TUNER_CACHE_MODE] = { "tuner_cache_mode", ZL_COL_TEXT },
	[ZL_HCOL_AUTOTUNE_MODE] = { "autotune_mode", ZL_COL_TEXT },
	[ZL_HCOL_STATUS] = { "status", ZL_COL_TEXT },
	[ZL_HCOL_EXIT_CODE] = { "exit_code", ZL_COL_INT },
	[ZL_HCOL_RUN_DIR] = { "run_dir", ZL_COL_TEXT },
	[ZL_HCOL_FLAGGEMS_COMMIT] = { "flaggems_commit", ZL_COL_TEXT },
	[ZL_HCOL_HOST] = { "host", ZL_COL_TEXT },
};

/* ---- small sqlite helpers -------------------------------------------------- */

static int db_error(struct strbuf *err, sqlite3 *db, const char *path, const char *what)
{
	return zl_error(err, "history database '%s': %s: %s", path, what,
			db ? sqlite3_errmsg(db) : "out of memory");
}

static int is_busy(int rc)
{
	return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Run statements that return no rows, retrying while the database is busy:
 * the busy timeout covers most waits, but WAL set-up and lock upgrades can
 * report SQLITE_BUSY at once, without calling the busy handler.
 */
#define BUSY_RETRIES 8
static int exec_retry(struct zl_history *h, const char *sql, struct strbuf *err)
{
	int attempt, rc = SQLITE_OK;

	for (attempt = 0; attempt <= BUSY_RETRIES; attempt++) {
		rc = sqlite3_exec(h->db, sql, NULL, NULL, NULL);
		if (!is_busy(rc))
			break;
		sleep_ms(25L << (attempt < 6 ? attempt : 6));
	}
	if (rc != SQLITE_OK)
		return db_error(err, h->db, h->path, sql);
	return 0;
}

static int begin_immediate(struct zl_history *h, struct strbuf *err)
{
	return exec_retry(h, "BEGIN IMMEDIATE", err);
}

/* Cleanup after an error already reported: a failed ROLLBACK leaves nothing else to do. */
static void rollback(struct zl_history *h)
{
	if (!sqlite3_get_autocommit(h->db))
		(void)sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
}

static int commit(struct zl_history *h, struct strbuf *err)
{
	if (exec_retry(h, "COMMIT", err)) {
		rollback(h);
		return -1;
	}
	return 0;
}

static int prepare(struct zl_history *h, const char *sql, sqlite3_stmt **st, struct strbuf *err)
{
	if (sqlite3_prepare_v2(h->db, sql, -1, st, NULL) != SQLITE_OK) {
		*st = NULL;
		return db_error(err, h->db, h->path, "cannot prepare a statement");
	}
	return 0;
}

static int bind_text(sqlite3_stmt *st, int idx, const char *s)
{
	int rc = s ? sqlite3_bind_text(st, idx, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, idx);
	return rc == SQLITE_OK ? 0 : -1;
}

static int bind_real(sqlite3_stmt *st, int idx, double d)
{
	int rc = isfinite(d) ? sqlite3_bind_double(st, idx, d) : sqlite3_bind_null(st, idx);
	return rc == SQLITE_OK ? 0 : -1;
}

static int bind_int(sqlite3_stmt *st, int idx, long v, int is_null)
{
	int rc = is_null ? sqlite3_bind_null(st, idx) : sqlite3_bind_int64(st, idx, v);
	return rc == SQLITE_OK ? 0 : -1;
}

static char *column_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? xstrdup((const char *)t) : NULL;
}

/* Step a statement that returns no rows. */
static int step_done(struct zl_history *h, sqlite3_stmt *st, struct strbuf *err)
{
	if (sqlite3_step(st) != SQLITE_DONE)
		return db_error(err, h->db, h->path, "cannot write");
	return 0;
}

/* ---- open and migrate ------------------------------------------------------- */

static int read_user_version(struct zl_history *h, int *version, struct strbuf *err)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare(h, "PRAGMA user_version", &st, err))
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return db_error(err, h->db, h->path, "cannot read the schema version");
	return 0;
}

static int backfill_host(sqlite3 *db, struct strbuf *err)
{
	sqlite3_stmt *sel = NULL, *upd = NULL;
	int rc, ret = -1;

	if (sqlite3_prepare_v2(db, "SELECT id, identity FROM runs", -1, &sel, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "UPDATE runs SET host = ?1 WHERE id = ?2", -1, &upd, NULL) != SQLITE_OK) {
		zl_error(err, "migration to version 2: %s", sqlite3_errmsg(db));
		goto out;
	}
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(sel, 1);
		cJSON *id = text ? cJSON_Parse(text) : NULL;
		const char *host = zl_json_path_string(id, "host");
		int bad = bind_text(upd, 1, host) ||
			  sqlite3_bind_int64(upd, 2, sqlite3_column_int64(sel, 0)) != SQLITE_OK ||
			  sqlite3_step(upd) != SQLITE_DONE;

		cJSON_Delete(id);
		if (bad || sqlite3_reset(upd) != SQLITE_OK) {
			zl_error(err, "migration to version 2: %s", sqlite3_errmsg(db));
			goto out;
		}
	}
	if (rc != SQLITE_DONE) {
		zl_error(err, "migration to version 2: %s", sqlite3_errmsg(db));
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(upd);
	return ret;
}

/* Bring the schema to `target` in one transaction; a concurrent opener waits, then finds it done. */
static int migrate(struct zl_history *h, int target, struct strbuf *err)
{
	int version = 0, v;
	char *sql;

	if (begin_immediate(h, err))
		return -1;
	if (read_user_version(h, &version, err))
		goto fail;
	if (version > ZL_HISTORY_SCHEMA_VERSION) {
		zl_error(err, "history database '%s' has schema version %d, newer than this zlbench's %d",
			 h->path, version, ZL_HISTORY_SCHEMA_VERSION);
		goto fail;
	}
	for (v = version; v < target; v++) {
		if (sqlite3_exec(h->db, migrations[v].sql, NULL, NULL, NULL) != SQLITE_OK) {
			zl_error(err, "history database '%s': migration to version %d: %s", h->path,
				 v + 1, sqlite3_errmsg(h->db));
			goto fail;
		}
		if (migrations[v].fixup && migrations[v].fixup(h->db, err))
			goto fail;
	}
	if (target > version) {
		sql = xstrfmt("PRAGMA user_version = %d", target);
		if (sqlite3_exec(h->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
			free(sql);
			db_error(err, h->db, h->path, "cannot set the schema version");
			goto fail;
		}
		free(sql);
	}
	if (commit(h, err))
		return -1;
	h->version = target > version ? target : version;
	return 0;
fail:
	rollback(h);
	return -1;
}

int zl_history_disabled(void)
{
	const char *v = zl_env(ZL_ENV_NO_HISTORY);

	return v && strcmp(v, "0");
}

char *zl_history_default_path(void)
{
	return zl_history_db_path();
}

int zl_history_open_version(const char *path, int version, struct zl_history **out,
			    struct strbuf *err)
{
	struct zl_history *h = xcalloc(1, sizeof(*h));
	int rc;

	*out = NULL;
	if (version < 1 || version > ZL_HISTORY_SCHEMA_VERSION) {
		free(h);
		return zl_error(err, "history schema version %d does not exist (1 to %d)", version,
				ZL_HISTORY_SCHEMA_VERSION);
	}
	if (!path)
		path = zl_history_db_env();
	if (path) {
		h->path = xstrdup(path);
	} else {
		char *home;
		if (zl_home_ensure(&home, err)) {
			free(h);
			return -1;
		}
		h->path = zl_path_join(home, "history.db");
		free(home);
	}
	rc = sqlite3_open_v2(h->path, &h->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		db_error(err, h->db, h->path, "cannot open");
		goto fail;
	}
	if (sqlite3_busy_timeout(h->db, ZL_HISTORY_BUSY_TIMEOUT_MS) != SQLITE_OK) {
		db_error(err, h->db, h->path, "cannot set the busy timeout");
		goto fail;
	}
	/*
	 * No checkpoint on close: it deletes the log that the next `zlbench run` must
	 * create again (about 20 ms a run here). The checkpoint after each ingest folds
	 * the runs into history.db instead.
	 */
	if (sqlite3_db_config(h->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)NULL) != SQLITE_OK) {
		db_error(err, h->db, h->path, "cannot configure checkpoints");
		goto fail;
	}
	if (exec_retry(h, "PRAGMA journal_mode=WAL", err) ||
	    exec_retry(h, "PRAGMA foreign_keys=ON", err) ||
	    exec_retry(h, "PRAGMA synchronous=NORMAL", err))
		goto fail;
	if (migrate(h, version, err))
		goto fail;
	*out = h;
	return 0;
fail:
	zl_history_close(h);
	return -1;
}

int zl_history_open(const char *path, struct zl_history **out, struct strbuf *err)
{
	return zl_history_open_version(path, ZL_HISTORY_SCHEMA_VERSION, out, err);
}

/*
 * Read-only: no journal-mode pragma, no migration, nothing created. SQLite still needs the
 * WAL index (-shm) of a WAL database; where that cannot be made (a read-only mount without
 * one), the file is read as immutable: nothing can write it there anyway.
 */
static int open_readonly_at(struct zl_history *h, int immutable, struct strbuf *err)
{
	char *uri = NULL;
	int rc, version = 0;

	if (immutable) {
		struct strbuf sb = STRBUF_INIT;
		const char *p;

		/* a URI: '%', '?' and '#' in the path are escaped */
		strbuf_addstr(&sb, "file:");
		for (p = h->path; *p; p++)
			if (*p == '%' || *p == '?' || *p == '#')
				strbuf_addf(&sb, "%%%02X", (unsigned char)*p);
			else
				strbuf_addch(&sb, *p);
		strbuf_addstr(&sb, "?immutable=1");
		uri = strbuf_detach(&sb, NULL);
	}
	rc = sqlite3_open_v2(uri ? uri : h->path, &h->db, SQLITE_OPEN_READONLY | (uri ? SQLITE_OPEN_URI : 0), NULL);
	free(uri);
	if (rc != SQLITE_OK)
		return db_error(err, h->db, h->path, "cannot open");
	if (sqlite3_busy_timeout(h->db, ZL_HISTORY_BUSY_TIMEOUT_MS) != SQLITE_OK)
		return db_error(err, h->db, h->path, "cannot set the busy timeout");
	if (read_user_version(h, &version, err))
		return -1;
	h->version = version;
	return 0;
}

/* 1 when the directory holding path may be written (its WAL files could be made there). */
static int dir_writable(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
	int w = access(dir, W_OK) == 0;

	free(dir);
	return w;
}

int zl_history_open_readonly(const char *path, struct zl_history **out, struct strbuf *err)
{
	struct zl_history *h = xcalloc(1, sizeof(*h));
	char *dflt = NULL;
	int ret = -1;

	*out = NULL;
	dflt = path ? NULL : zl_history_default_path();
	/* nothing to read yet, or an older schema to migrate: the read-write open says what is wrong */
	if (!(path ? path : dflt) || access(path ? path : dflt, F_OK)) {
		free(h);
		free(dflt);
		return zl_history_open(path, out, err);
	}
	h->path = path ? xstrdup(path) : dflt;
	if (open_readonly_at(h, 0, err)) {
		/* immutable only where no one can be writing (a busy database must not be read so) */
		if (dir_writable(h->path))
			goto out;
		(void)sqlite3_close(h->db);
		h->db = NULL;
		if (open_readonly_at(h, 1, err))
			goto out;
	}
	if (h->version > ZL_HISTORY_SCHEMA_VERSION) {
		zl_error(err, "history database '%s' has schema version %d, newer than this zlbench's %d",
			 h->path, h->version, ZL_HISTORY_SCHEMA_VERSION);
		goto out;
	}
	if (h->version < ZL_HISTORY_SCHEMA_VERSION) {
		char *again = xstrdup(h->path);

		zl_history_close(h);
		h = NULL;
		ret = zl_history_open(again, out, err);
		free(again);
		return ret;
	}
	*out = h;
	h = NULL;
	ret = 0;
out:
	zl_history_close(h);
	return ret;
}

void zl_history_close(struct zl_history *h)
{
	if (!h)
		return;
	/* every statement is finalized where it is used, so close cannot find one open */
	(void)sqlite3_close(h->db);
	free(h->path);
	free(h);
}

const char *zl_history_path(const struct zl_history *h)
{
	return h->path;
}

int zl_history_schema_version(struct zl_history *h)
{
	int version = -1;
	struct strbuf err = STRBUF_INIT;

	if (read_user_version(h, &version, &err))
		version = -1;
	strbuf_release(&err);
	return version;
}

/* ---- ingest ----------------------------------------------------------------- */

static int bind_run_column(sqlite3_stmt *st, int idx, const struct zl_run *run, enum zl_history_col c)
{
	const struct zl_record_field *f = column_field((int)c);
	const char *slot;

	if (c == ZL_HCOL_RUN_DIR)
		return bind_text(st, idx, run->dir);
	if (!f)
		return -1;
	slot = (const char *)run + f->offset;
	switch (f->kind) {
	case ZL_REC_REAL:
		return bind_real(st, idx, *(const double *)slot);
	case ZL_REC_LONG:
		return bind_int(st, idx, *(const long *)slot, *(const long *)slot < 0);
	default:
		return bind_text(st, idx, *(char *const *)slot);
	}
}

static int insert_run(struct zl_history *h, const struct zl_run *run, sqlite3_int64 *id,
		      struct strbuf *err)
{
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *st = NULL;
	char *identity = NULL;
	char now[32];
	int c, ret = -1;

	strbuf_addstr(&sql, "INSERT INTO runs (");
	for (c = 0; c < ZL_HCOL__COUNT; c++)
		strbuf_addf(&sql, "%s, ", zl_history_columns[c].name);
	strbuf_addstr(&sql, "identity, ingested_at) VALUES (");
	for (c = 0; c < ZL_HCOL__COUNT + 2; c++)
		strbuf_addf(&sql, "%s?%d", c ? ", " : "", c + 1);
	strbuf_addch(&sql, ')');
	if (prepare(h, sql.buf, &st, err))
		goto out;
	identity = cJSON_PrintUnformatted(run->identity);
	if (!identity) {
		zl_error(err, "cannot serialise the identity of run '%s'", run->run_id);
		goto out;
	}
	zl_utc_iso8601(now, zl_now_epoch());
	for (c = 0; c < ZL_HCOL__COUNT; c++)
		if (bind_run_column(st, c + 1, run, (enum zl_history_col)c))
			goto bind_fail;
	if (bind_text(st, ZL_HCOL__COUNT + 1, identity) || bind_text(st, ZL_HCOL__COUNT + 2, now))
		goto bind_fail;
	if (step_done(h, st, err))
		goto out;
	*id = sqlite3_last_insert_rowid(h->db);
	ret = 0;
	goto out;
bind_fail:
	db_error(err, h->db, h->path, "cannot bind a value");
out:
	sqlite3_finalize(st);
	free(identity);
	strbuf_release(&sql);
	return ret;
}

static int insert_results(struct zl_history *h, const struct zl_run *run, sqlite3_int64 id,
			  struct strbuf *err)
{
	sqlite3_stmt *st;
	size_t i;
	int ret = 0;

	if (prepare(h, "INSERT INTO results (run, op, dtype, shape, occurrence, side,"
		    " latency_base_ms, latency_ms, speedup, timer, samples, median, min, max, iqr,"
		    " error_msg) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
		    " ?15, ?16)", &st, err))
		return -1;
	for (i = 0; i < run->nr_results && !ret; i++) {
		const struct zl_result *r = &run->results[i];

		if (sqlite3_bind_int64(st, 1, id) != SQLITE_OK || bind_text(st, 2, r->op) ||
		    bind_text(st, 3, r->dtype) || bind_text(st, 4, r->shape) ||
		    bind_int(st, 5, r->occurrence, 0) || bind_text(st, 6, zl_side_name(r->side)) ||
		    bind_real(st, 7, r->latency_base_ms) || bind_real(st, 8, r->latency_ms) ||
		    bind_real(st, 9, r->speedup) || bind_text(st, 10, r->timer) ||
		    bind_int(st, 11, r->samples, r->samples < 0) || bind_real(st, 12, r->median_ms) ||
		    bind_real(st, 13, r->min_ms) || bind_real(st, 14, r->max_ms) ||
		    bind_real(st, 15, r->iqr_ms) || bind_text(st, 16, r->error_msg))
			ret = db_error(err, h->db, h->path, "cannot bind a value");
		else if (step_done(h, st, err))
			ret = -1;
		else if (sqlite3_reset(st) != SQLITE_OK)
			ret = db_error(err, h->db, h->path, "cannot reset a statement");
	}
	sqlite3_finalize(st);
	return ret;
}

static int delete_run(struct zl_history *h, const char *run_id, struct strbuf *err)
{
	static const char *const sql[] = {
		"DELETE FROM results WHERE run IN (SELECT id FROM runs WHERE run_id = ?1)",
		"DELETE FROM runs WHERE run_id = ?1",
	};
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(sql); i++) {
		sqlite3_stmt *st;
		int bad;

		if (prepare(h, sql[i], &st, err))
			return -1;
		bad = bind_text(st, 1, run_id) ? db_error(err, h->db, h->path, "cannot bind a value")
					      : step_done(h, st, err);
		sqlite3_finalize(st);
		if (bad)
			return -1;
	}
	return 0;
}

/*
 * Copy the committed log into history.db (PASSIVE: without blocking readers or
 * writers), so that history.db alone holds every committed run once no writer
 * is active and copying the one file is a backup. Busy means another connection
 * is checkpointing, perhaps from before this commit: wait for it and try again.
 */
static int fold_wal(struct zl_history *h, const char *run_id, struct strbuf *err)
{
	int attempt, rc = SQLITE_OK;

	for (attempt = 0; attempt <= BUSY_RETRIES; attempt++) {
		rc = sqlite3_wal_checkpoint_v2(h->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		if (!is_busy(rc))
			break;
		sleep_ms(5L << (attempt < 6 ? attempt : 6));
	}
	/* still busy after ~1 s: a later writer's checkpoint folds this run in too */
	if (rc == SQLITE_OK || is_busy(rc))
		return 0;
	strbuf_reset(err);
	return zl_error(err, "history database '%s': run '%s' is stored, but cannot be checkpointed "
			"into the database file: %s", h->path, run_id, sqlite3_errmsg(h->db));
}

/* Result rows stored for run_id (0 when it is not stored), or -1. */
static long stored_results(struct zl_history *h, const char *run_id, struct strbuf *err)
{
	sqlite3_stmt *st;
	long n = -1;

	if (prepare(h, "SELECT count(*) FROM results WHERE run IN (SELECT id FROM runs WHERE run_id = ?1)",
		    &st, err))
		return -1;
	if (bind_text(st, 1, run_id))
		db_error(err, h->db, h->path, "cannot bind a value");
	else if (sqlite3_step(st) != SQLITE_ROW)
		db_error(err, h->db, h->path, "cannot read results");
	else
		n = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/*
 * A copy of a run whose results.json is truncated, empty or unreadable loads no rows:
 * it must not replace the rows stored for that run by nothing. -1 (refused) or 0.
 */
static int refuse_emptying(struct zl_history *h, const struct zl_run *run, struct strbuf *err)
{
	long stored;

	if (run->nr_results)
		return 0;
	stored = stored_results(h, run->run_id, err);
	if (stored <= 0)
		return stored < 0 ? -1 : 0;
	return zl_error(err, "run '%s' is stored in '%s' with %ld result rows, but '%s' has none (%s): "
			"not replaced, the stored rows are kept", run->run_id, h->path, stored,
			run->dir ? run->dir : "?", run->notes.nr ? run->notes.v[0] : "no results.json rows");
}

/* 1 when dir holds a run_identity.json whose run_id is run_id. */
static int dir_holds_run(const char *dir, const char *run_id)
{
	char *path = zl_path_join(dir, "run_identity.json");
	struct strbuf text = STRBUF_INIT;
	cJSON *doc = NULL;
	const cJSON *id;
	int holds = 0;

	if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL) && (doc = cJSON_ParseWithLength(text.buf, text.len))) {
		id = cJSON_GetObjectItemCaseSensitive(doc, "run_id");
		holds = cJSON_IsString(id) && !strcmp(id->valuestring, run_id);
	}
	cJSON_Delete(doc);
	strbuf_release(&text);
	free(path);
	return holds;
}

/*
 * The run_id is stored from another directory: when that one still holds the run, this is
 * a copy (or a crafted run reusing the id), and replacing the stored rows silently would
 * lose them: refused, naming both. When it no longer does, the run moved: the stored rows
 * follow it, and a warning says so. -1 (refused) or 0.
 */
static int refuse_other_dir(struct zl_history *h, const struct zl_run *run, struct strbuf *err)
{
	sqlite3_stmt *st;
	char *stored = NULL, *stored_abs = NULL, *here = NULL;
	int rc = 0;

	if (!run->dir)
		return 0;
	if (prepare(h, "SELECT run_dir FROM runs WHERE run_id = ?1", &st, err))
		return -1;
	if (bind_text(st, 1, run->run_id)) {
		sqlite3_finalize(st);
		return db_error(err, h->db, h->path, "cannot bind a value");
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		stored = column_dup(st, 0);
	sqlite3_finalize(st);
	if (!stored)
		return 0;
	stored_abs = zl_absolute_path(stored);
	here = zl_absolute_path(run->dir);
	if (strcmp(stored_abs, here)) {
		if (dir_holds_run(stored_abs, run->run_id))
			rc = zl_error(err, "run '%s' is stored in '%s' from '%s', and '%s' holds a run with the same "
				      "run_id (a copy?): not ingested, the stored rows are kept (ingest '%s' to "
				      "update them, or remove one of the two)", run->run_id, h->path, stored, run->dir,
				      stored);
		else
			zl_print_warning("run '%s' was stored from '%s', which no longer holds it: its rows now come "
					 "from '%s'", run->run_id, stored, run->dir);
	}
	free(stored);
	free(stored_abs);
	free(here);
	return rc;
}

int zl_history_ingest_loaded(struct zl_history *h, const struct zl_run *run, struct strbuf *err)
{
	sqlite3_int64 id = 0;

	if (h->version != ZL_HISTORY_SCHEMA_VERSION)
		return zl_error(err, "history database '%s' is at schema version %d, not %d",
				h->path, h->version, ZL_HISTORY_SCHEMA_VERSION);
	if (begin_immediate(h, err))
		return -1;
	if (refuse_emptying(h, run, err) || refuse_other_dir(h, run, err) || delete_run(h, run->run_id, err) ||
	    insert_run(h, run, &id, err) ||
	    insert_results(h, run, id, err)) {
		rollback(h);
		return -1;
	}
	if (commit(h, err))
		return -1;
	return fold_wal(h, run->run_id, err);
}

int zl_history_ingest_run(struct zl_history *h, const char *run_dir, struct strbuf *err)
{
	struct zl_run run;
	int ret;

	zl_run_init(&run);
	if (zl_run_load(run_dir, &run, err))
		return -1;
	ret = zl_history_ingest_loaded(h, &run, err);
	zl_run_release(&run);
	return ret;
}

int zl_history_move_run_dir(struct zl_history *h, const char *old_dir, const char *new_dir, struct strbuf *err)
{
	sqlite3_stmt *st = NULL;
	int ret = -1;

	if (begin_immediate(h, err))
		return -1;
	if (prepare(h, "UPDATE runs SET run_dir = ?2 WHERE run_dir = ?1", &st, err))
		goto out;
	if (bind_text(st, 1, old_dir) || bind_text(st, 2, new_dir)) {
		db_error(err, h->db, h->path, "cannot bind a value");
		goto out;
	}
	if (step_done(h, st, err))
		goto out;
	ret = 0;
out:
	sqlite3_finalize(st);
	if (ret) {
		rollback(h);
		return -1;
	}
	return commit(h, err);
}

/* ---- queries ---------------------------------------------------------------- */

void zl_history_list_release(struct zl_history_list *l)
{
	size_t i;
	int c;

	for (i = 0; i < l->nr; i++)
		for (c = 0; c < ZL_HCOL__COUNT; c++)
			free(l->v[i].v[c]);
	free(l->v);
	l->v = NULL;
	l->nr = l->alloc = 0;
}

static int run_speedup_geomean(struct zl_history *h, sqlite3_int64 id, double *out,
			       struct strbuf *err)
{
	sqlite3_stmt *st;
	double sum = 0;
	long n = 0;
	int rc;

	if (prepare(h, "SELECT speedup FROM results WHERE run = ?1 AND side = 'gems'"
		    " AND speedup > 0", &st, err))
		return -1;
	if (sqlite3_bind_int64(st, 1, id) != SQLITE_OK) {
		sqlite3_finalize(st);
		return db_error(err, h->db, h->path, "cannot bind a value");
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sum += log(sqlite3_column_double(st, 0));
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(err, h->db, h->path, "cannot read results");
	*out = n ? exp(sum / (double)n) : NAN;
	return 0;
}

int zl_history_query(struct zl_history *h, const struct zl_history_filter *f,
		     struct zl_history_list *out, struct strbuf *err)
{
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *st = NULL;
	sqlite3_int64 *ids = NULL;
	size_t first = out->nr, nr_ids = 0, alloc_ids = 0, i;
	int c, rc, ret = -1;

	strbuf_addstr(&sql, "SELECT ");
	for (c = 0; c < ZL_HCOL__COUNT; c++)
		strbuf_addf(&sql, "%s, ", zl_history_columns[c].name);
	strbuf_addstr(&sql, "(SELECT count(*) FROM results WHERE run = runs.id), id FROM runs"
		      " WHERE (?1 IS NULL OR op = ?1) AND (?2 IS NULL OR backend = ?2)"
		      " AND (?3 IS NULL OR started_at >= ?3)"
		      " ORDER BY started_at DESC, id DESC LIMIT ?4");
	if (prepare(h, sql.buf, &st, err))
		goto out;
	if (bind_text(st, 1, f->op) || bind_text(st, 2, f->backend) || bind_text(st, 3, f->since) ||
	    sqlite3_bind_int64(st, 4, f->limit > 0 ? f->limit : -1) != SQLITE_OK) {
		db_error(err, h->db, h->path, "cannot bind a value");
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct zl_history_entry *e;

		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		e = &out->v[out->nr++];
		memset(e, 0, sizeof(*e));
		for (c = 0; c < ZL_HCOL__COUNT; c++)
			e->v[c] = column_dup(st, c);
		e->results = (long)sqlite3_column_int64(st, ZL_HCOL__COUNT);
		e->speedup_geomean = NAN;
		ALLOC_GROW(ids, nr_ids + 1, alloc_ids);
		ids[nr_ids++] = sqlite3_column_int64(st, ZL_HCOL__COUNT + 1);
	}
	if (rc != SQLITE_DONE) {
		db_error(err, h->db, h->path, "cannot list runs");
		goto out;
	}
	for (i = 0; i < nr_ids; i++)
		if (run_speedup_geomean(h, ids[i], &out->v[first + i].speedup_geomean, err))
			goto out;
	ret = 0;
out:
	free(ids);
	sqlite3_finalize(st);
	strbuf_release(&sql);
	return ret;
}

int zl_history_find_run(struct zl_history *h, const char *run_id, char **run_dir,
			struct strbuf *err)
{
	static const char *const sql[] = {
		"SELECT run_dir, run_id FROM runs WHERE run_id = ?1",
		"SELECT run_dir, run_id FROM runs WHERE substr(run_id, 1, length(?1)) = ?1"
		" ORDER BY run_id LIMIT 3",
	};
	size_t i;

	*run_dir = NULL;
	for (i = 0; i < ZL_ARRAY_SIZE(sql); i++) {
		struct strvec ids = STRVEC_INIT;
		sqlite3_stmt *st;
		char *dir = NULL;
		int rc;

		if (prepare(h, sql[i], &st, err))
			return -1;
		if (bind_text(st, 1, run_id)) {
			sqlite3_finalize(st);
			return db_error(err, h->db, h->path, "cannot bind a value");
		}
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (!dir)
				dir = column_dup(st, 0);
			strvec_push(&ids, (const char *)sqlite3_column_text(st, 1));
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE) {
			free(dir);
			strvec_clear(&ids);
			return db_error(err, h->db, h->path, "cannot look up a run");
		}
		if (ids.nr > 1) {
			zl_error(err, "run id '%s' is ambiguous in '%s': %s, %s%s", run_id, h->path,
				 ids.v[0], ids.v[1], ids.nr > 2 ? ", ..." : "");
			free(dir);
			strvec_clear(&ids);
			return -1;
		}
		strvec_clear(&ids);
		if (dir) {
			*run_dir = dir;
			return 0;
		}
	}
	return zl_error(err, "no run '%s' in the history database '%s'", run_id, h->path);
}

/* A double column, NAN when null. */
static double column_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/*
 * The row of a run by key: exact run id, unique run id prefix, then the run
 * directory as stored (the newest run written there). 0 with *id, or -1 with err.
 */
static int resolve_run(struct zl_history *h, const char *key, sqlite3_int64 *id, struct strbuf *err)
{
	static const char *const sql[] = {
		"SELECT id, run_id FROM runs WHERE run_id = ?1",
		("SELECT id, run_id FROM runs WHERE substr(run_id, 1, length(?1)) = ?1"
		 " ORDER BY run_id LIMIT 3"),
		"SELECT id, run_id FROM runs WHERE run_dir = ?2 ORDER BY started_at DESC, id DESC LIMIT 1",
	};
	char *abs = zl_absolute_path(key);
	size_t i;
	int ret = 1;

	for (i = 0; i < ZL_ARRAY_SIZE(sql) && ret > 0; i++) {
		struct strvec ids = STRVEC_INIT;
		sqlite3_stmt *st;
		int rc;

		if (prepare(h, sql[i], &st, err)) {
			ret = -1;
			break;
		}
		if (bind_text(st, 1, key) || (i == 2 && bind_text(st, 2, abs))) {
			sqlite3_finalize(st);
			ret = db_error(err, h->db, h->path, "cannot bind a value");
			break;
		}
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (!ids.nr)
				*id = sqlite3_column_int64(st, 0);
			strvec_push(&ids, (const char *)sqlite3_column_text(st, 1));
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			ret = db_error(err, h->db, h->path, "cannot look up a run");
		else if (ids.nr > 1)
			ret = zl_error(err, "run id '%s' is ambiguous in '%s': %s, %s%s", key, h->path,
				       ids.v[0], ids.v[1], ids.nr > 2 ? ", ..." : "");
		else if (ids.nr == 1)
			ret = 0;
		strvec_clear(&ids);
	}
	free(abs);
	if (ret > 0)
		return zl_error(err, "no run '%s' in the history database '%s'", key, h->path);
	return ret;
}

/* Column c of a run's row into its field of run. */
static void read_run_column(sqlite3_stmt *st, int c, struct zl_run *run)
{
	const struct zl_record_field *f = column_field(c);
	char *slot;

	if (c == ZL_HCOL_RUN_DIR) {
		run->dir = column_dup(st, c);
		return;
	}
	if (!f)
		return;
	slot = (char *)run + f->offset;
	switch (f->kind) {
	case ZL_REC_REAL:
		*(double *)slot = column_real(st, c);
		break;
	case ZL_REC_LONG:
		*(long *)slot = sqlite3_column_type(st, c) == SQLITE_NULL ? -1 : (long)sqlite3_column_int64(st, c);
		break;
	default:
		*(char **)slot = column_dup(st, c);
	}
}

/* The run's columns and identity into run: the columns were filled from these very fields. */
static int load_run_row(struct zl_history *h, sqlite3_int64 id, struct zl_run *run, struct strbuf *err)
{
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *st = NULL;
	const char *text;
	size_t i;
	int c, rc, ret = -1;

	strbuf_addstr(&sql, "SELECT ");
	for (c = 0; c < ZL_HCOL__COUNT; c++)
		strbuf_addf(&sql, "%s, ", zl_history_columns[c].name);
	strbuf_addstr(&sql, "identity FROM runs WHERE id = ?1");
	if (prepare(h, sql.buf, &st, err))
		goto out;
	if (sqlite3_bind_int64(st, 1, id) != SQLITE_OK) {
		db_error(err, h->db, h->path, "cannot bind a value");
		goto out;
	}
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		db_error(err, h->db, h->path, "cannot read a run");
		goto out;
	}
	text = (const char *)sqlite3_column_text(st, ZL_HCOL__COUNT);
	run->identity = text ? cJSON_Parse(text) : NULL;
	if (!cJSON_IsObject(run->identity)) {
		zl_error(err, "history database '%s': the stored identity of a run is not a json object",
			 h->path);
		goto out;
	}
	for (c = 0; c < ZL_HCOL__COUNT; c++)
		read_run_column(st, c, run);
	/* the fields without a column of their own, read where zl_run_load reads them */
	for (i = 0; i < ZL_ARRAY_SIZE(stored_fields); i++)
		if (stored_fields[i].column < 0)
			zl_run_load_field(run, &stored_fields[i].f);
	ret = 0;
out:
	sqlite3_finalize(st);
	strbuf_release(&sql);
	return ret;
}

/* One stored results row (side s, already read) appended to run's results. */
static void read_result_row(sqlite3_stmt *st, enum zl_side s, struct zl_run *run)
{
	struct zl_result *r;

	ALLOC_GROW(run->results, run->nr_results + 1, run->alloc_results);
	r = &run->results[run->nr_results++];
	memset(r, 0, sizeof(*r));
	r->op = column_dup(st, 0);
	r->dtype = column_dup(st, 1);
	r->shape = column_dup(st, 2);
	if (!r->dtype)
		r->dtype = xstrdup("");
	if (!r->shape)
		r->shape = xstrdup("");
	r->occurrence = sqlite3_column_int(st, 3);
	r->side = s;
	r->latency_base_ms = column_real(st, 5);
	r->latency_ms = column_real(st, 6);
	r->speedup = column_real(st, 7);
	r->timer = column_dup(st, 8);
	r->samples = sqlite3_column_type(st, 9) == SQLITE_NULL ? -1 : (long)sqlite3_column_int64(st, 9);
	r->median_ms = column_real(st, 10);
	r->min_ms = column_real(st, 11);
	r->max_ms = column_real(st, 12);
	r->iqr_ms = column_real(st, 13);
	r->error_msg = column_dup(st, 14);
	/* the raw samples are not stored: compare falls back to the summary figures */
	r->samples_total = -1;
	r->estimate_ms = r->noise_rel = r->clock_mhz = NAN;
	r->host_bound = r->no_device_work = -1; /* the database keeps no such columns */
	r->fg_bytes = r->fg_flops = NAN;   /* FlagGems' gbps and tflops are not stored */
	/* rows carry the timer's figures only when plugins/timer.jsonl had them */
	if (r->timer || r->samples >= 0 || !isnan(r->iqr_ms))
		run->has_timer = 1;
}

static int load_result_rows(struct zl_history *h, sqlite3_int64 id, struct zl_run *run,
			    struct strbuf *err)
{
	sqlite3_stmt *st;
	size_t odd = 0;
	int rc;

	if (prepare(h, "SELECT op, dtype, shape, occurrence, side, latency_base_ms, latency_ms, speedup,"
		    " timer, samples, median, min, max, iqr, error_msg FROM results WHERE run = ?1"
		    " ORDER BY rowid", &st, err))
		return -1;
	if (sqlite3_bind_int64(st, 1, id) != SQLITE_OK) {
		sqlite3_finalize(st);
		return db_error(err, h->db, h->path, "cannot bind a value");
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		enum zl_side s;

		if (zl_side_parse((const char *)sqlite3_column_text(st, 4), &s))
			odd++;
		else
			read_result_row(st, s, run);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(err, h->db, h->path, "cannot read results");
	run->has_results = run->nr_results > 0;
	zl_run_index_rows(run);
	if (odd)
		strvec_pushf(&run->notes, "history: %zu stored rows have no side torch or gems and were skipped",
			     odd);
	return 0;
}

int zl_history_load_run(struct zl_history *h, const char *key, struct zl_run *run, struct strbuf *err)
{
	sqlite3_int64 id = 0;

	if (resolve_run(h, key, &id, err) || load_run_row(h, id, run, err) ||
	    load_result_rows(h, id, run, err)) {
		zl_run_release(run);
		return -1;
	}
	if (!run->run_id) {
		zl_run_release(run);
		return zl_error(err, "history database '%s': a stored run has no run id", h->path);
	}
	if (run->dir && zl_is_dir(run->dir))
		strvec_pushf(&run->notes, ZL_HISTORY_LOADED_NOTE ": identity and %zu result rows from '%s'",
			     run->nr_results, h->path);
	else
		strvec_pushf(&run->notes, ZL_HISTORY_LOADED_NOTE ": directory gone ('%s'); identity and %zu "
			     "result rows from '%s'", run->dir ? run->dir : "none recorded", run->nr_results,
			     h->path);
	return 0;
}

const char *zl_history_loaded_note(const struct zl_run *run)
{
	size_t i;

	for (i = 0; i < run->notes.nr; i++)
		if (zl_starts_with(run->notes.v[i], ZL_HISTORY_LOADED_NOTE ":"))
			return run->notes.v[i];
	return NULL;
}

int zl_history_op_durations(struct zl_history *h, const char *backend, const char *level,
			    struct zl_op_durations *out, struct strbuf *err)
{
	sqlite3_stmt *st;
	int rc;

	/*
	 * A warm-up-sharded op's timed run replays its shards' records and is short; the
	 * shards ran with the history off, so their device time comes from the timed run's
	 * identity, or the op would look short and start last.
	 */
	if (prepare(h, "SELECT op, avg(duration_s + coalesce(json_extract(identity,"
		    " '$.warmup.shards_duration_s'), 0)), count(*) FROM runs"
		    " WHERE op IS NOT NULL AND duration_s IS NOT NULL"
		    " AND status NOT IN ('running', 'preflight_failed', 'interrupted')"
		    " AND (?1 IS NULL OR backend = ?1) AND (?2 IS NULL OR level = ?2)"
		    " GROUP BY op ORDER BY 2 DESC, op", &st, err))
		return -1;
	if (bind_text(st, 1, backend) || bind_text(st, 2, level)) {
		sqlite3_finalize(st);
		return db_error(err, h->db, h->path, "cannot bind a value");
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct zl_op_duration *d;

		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		d = &out->v[out->nr++];
		d->op = column_dup(st, 0);
		d->mean_s = sqlite3_column_double(st, 1);
		d->runs = (long)sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(err, h->db, h->path, "cannot read durations");
	return 0;
}

double zl_op_durations_get(const struct zl_op_durations *d, const char *op)
{
	size_t i;

	for (i = 0; i < d->nr; i++)
		if (d->v[i].op && !strcmp(d->v[i].op, op))
			return d->v[i].mean_s;
	return -1;
}

void zl_op_durations_release(struct zl_op_durations *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++)
		free(d->v[i].op);
	free(d->v);
	d->v = NULL;
	d->nr = d->alloc = 0;
}

/* ---- calibrations ----------------------------------------------------------- */

static const struct {
	const char *name;
	double below_ms;         /* upper bound of the class */
} size_classes[ZL_SIZE__COUNT] = {
	[ZL_SIZE_UNDER_5US] = { "<5us", 0.005 },
	[ZL_SIZE_5_50US] = { "5-50us", 0.05 },
	[ZL_SIZE_50_500US] = { "50-500us", 0.5 },
	[ZL_SIZE_OVER_500US] = { ">=500us", INFINITY },
};

const double zl_calibration_levels_pct[ZL_CALIBRATION_LEVELS] = { 1, 2, 5 };

const char *zl_size_class_name(enum zl_size_class c)
{
	return (size_t)c < ZL_SIZE__COUNT ? size_classes[c].name : "?";
}

int zl_size_class_parse(const char *s, enum zl_size_class *out)
{
	size_t i;

	for (i = 0; s && i < ZL_SIZE__COUNT; i++)
		if (!strcmp(s, size_classes[i].name)) {
			*out = (enum zl_size_class)i;
			return 0;
		}
	return -1;
}

enum zl_size_class zl_size_class_of(double ms)
{
	size_t i;

	if (!(ms > 0) || !isfinite(ms))
		return ZL_SIZE__COUNT;
	for (i = 0; i + 1 < ZL_SIZE__COUNT && ms >= size_classes[i].below_ms; i++)
		;
	return (enum zl_size_class)i;
}

void zl_calibration_init(struct zl_calibration *c)
{
	size_t i, k;

	memset(c, 0, sizeof(*c));
	c->runs = -1;
	strvec_init(&c->ops);
	strvec_init(&c->run_ids);
	for (i = 0; i < ZL_SIZE__COUNT; i++) {
		c->cls[i].spread_rel = c->cls[i].floor_pct = NAN;
		for (k = 0; k < ZL_CALIBRATION_LEVELS; k++)
			c->cls[i].false_flag[k] = NAN;
	}
}

void zl_calibration_release(struct zl_calibration *c)
{
	free(c->backend);
	free(c->device_name);
	free(c->timer);
	free(c->flaggems_commit);
	free(c->created_at);
	free(c->detail);
	strvec_clear(&c->ops);
	strvec_clear(&c->run_ids);
	zl_calibration_init(c);
}

void zl_calibration_describe(const struct zl_calibration *c, struct strbuf *sb)
{
	strbuf_addf(sb, "calibration %ld (%s, %s, %s timer, flaggems %s, %s)", c->id,
		    c->backend ? c->backend : "?", c->device_name ? c->device_name : "?",
		    c->timer ? c->timer : "?", c->flaggems_commit ? c->flaggems_commit : "?",
		    c->created_at ? c->created_at : "?");
}

/* NAN, or a finite number in [lo, hi]. */
static int optional_in(double v, double lo, double hi)
{
	return isnan(v) || (v >= lo && v <= hi);
}

static int check_calibration(const struct zl_calibration *cal, struct strbuf *err)
{
	static const char *const keys[] = { "backend", "device name", "timer", "flaggems commit" };
	const char *values[] = { cal->backend, cal->device_name, cal->timer, cal->flaggems_commit };
	size_t i, k, present = 0;

	for (i = 0; i < ZL_ARRAY_SIZE(keys); i++)
		if (!values[i] || !*values[i])
			return zl_error(err, "calibration: no %s", keys[i]);
	for (i = 0; i < ZL_SIZE__COUNT; i++) {
		const struct zl_calibration_class *c = &cal->cls[i];
		int bad = 0;

		if (!c->present)
			continue;
		present++;
		if (!(c->floor_pct > 0) || !isfinite(c->floor_pct))
			return zl_error(err, "calibration class '%s': floor %g is not a positive percentage",
					size_classes[i].name, c->floor_pct);
		for (k = 0; k < ZL_CALIBRATION_LEVELS; k++)
			bad |= !optional_in(c->false_flag[k], 0, 1);
		if (bad || c->rows < 0 || !optional_in(c->spread_rel, 0, INFINITY))
			return zl_error(err, "calibration class '%s': rows, spread or false-flag rates out "
					"of range", size_classes[i].name);
	}
	if (!present)
		return zl_error(err, "calibration: no size class was measured");
	return 0;
}

static char *strvec_json_text(const struct strvec *sv)
{
	cJSON *arr = zl_json_strvec(sv);
	char *text = arr ? cJSON_PrintUnformatted(arr) : NULL;

	cJSON_Delete(arr);
	return text;
}

static int insert_classes(struct zl_history *h, const struct zl_calibration *cal, struct strbuf *err)
{
	sqlite3_stmt *st;
	size_t i;
	int ret = 0;

	if (prepare(h, "INSERT INTO calibration_classes (calibration, size_class, rows, spread_rel,"
		    " false_flag_1, false_flag_2, false_flag_5, floor_pct)"
		    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", &st, err))
		return -1;
	for (i = 0; i < ZL_SIZE__COUNT && !ret; i++) {
		const struct zl_calibration_class *c = &cal->cls[i];

		if (!c->present)
			continue;
		if (sqlite3_bind_int64(st, 1, cal->id) != SQLITE_OK ||
		    bind_text(st, 2, size_classes[i].name) || bind_int(st, 3, c->rows, 0) ||
		    bind_real(st, 4, c->spread_rel) || bind_real(st, 5, c->false_flag[0]) ||
		    bind_real(st, 6, c->false_flag[1]) || bind_real(st, 7, c->false_flag[2]) ||
		    bind_real(st, 8, c->floor_pct))
			ret = db_error(err, h->db, h->path, "cannot bind a value");
		else if (step_done(h, st, err))
			ret = -1;
		else if (sqlite3_reset(st) != SQLITE_OK)
			ret = db_error(err, h->db, h->path, "cannot reset a statement");
	}
	sqlite3_finalize(st);
	return ret;
}

int zl_history_store_calibration(struct zl_history *h, struct zl_calibration *cal,
				 struct strbuf *err)
{
	sqlite3_stmt *st = NULL;
	char *ops = NULL, *run_ids = NULL;
	char now[32];
	int ret = -1;

	if (check_calibration(cal, err))
		return -1;
	if (h->version < 3)
		return zl_error(err, "history database '%s' is at schema version %d: no calibrations "
				"before version 3", h->path, h->version);
	ops = strvec_json_text(&cal->ops);
	run_ids = strvec_json_text(&cal->run_ids);
	if (!ops || !run_ids) {
		zl_error(err, "cannot serialise a calibration: out of memory");
		goto out;
	}
	if (!cal->created_at) {
		zl_utc_iso8601(now, zl_now_epoch());
		cal->created_at = xstrdup(now);
	}
	if (begin_immediate(h, err))
		goto out;
	if (prepare(h, "INSERT INTO calibrations (backend, device_name, timer, flaggems_commit,"
		    " created_at, runs, ops, run_ids, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
		    &st, err))
		goto fail;
	if (bind_text(st, 1, cal->backend) || bind_text(st, 2, cal->device_name) ||
	    bind_text(st, 3, cal->timer) || bind_text(st, 4, cal->flaggems_commit) ||
	    bind_text(st, 5, cal->created_at) || bind_int(st, 6, cal->runs, cal->runs < 0) ||
	    bind_text(st, 7, ops) || bind_text(st, 8, run_ids) || bind_text(st, 9, cal->detail)) {
		db_error(err, h->db, h->path, "cannot bind a value");
		goto fail;
	}
	if (step_done(h, st, err))
		goto fail;
	cal->id = (long)sqlite3_last_insert_rowid(h->db);
	if (insert_classes(h, cal, err))
		goto fail;
	if (commit(h, err))
		goto out;
	ret = 0;
	goto out;
fail:
	rollback(h);
	cal->id = 0;
out:
	sqlite3_finalize(st);
	free(ops);
	free(run_ids);
	return ret;
}

/* A stored JSON array of strings onto sv; anything else is left out. */
static void json_text_to_strvec(const char *text, struct strvec *sv)
{
	cJSON *arr = text ? cJSON_Parse(text) : NULL;

	if (zl_json_to_strvec(arr, sv))
		strvec_clear(sv);
	cJSON_Delete(arr);
}

static int load_classes(struct zl_history *h, struct zl_calibration *out, struct strbuf *err)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare(h, "SELECT size_class, rows, spread_rel, false_flag_1, false_flag_2, false_flag_5,"
		    " floor_pct FROM calibration_classes WHERE calibration = ?1", &st, err))
		return -1;
	if (sqlite3_bind_int64(st, 1, out->id) != SQLITE_OK) {
		sqlite3_finalize(st);
		return db_error(err, h->db, h->path, "cannot bind a value");
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		enum zl_size_class sc;
		struct zl_calibration_class *c;
		size_t k;

		/* a class this zlbench does not know (a later one's) is not used */
		if (zl_size_class_parse((const char *)sqlite3_column_text(st, 0), &sc))
			continue;
		c = &out->cls[sc];
		c->rows = (long)sqlite3_column_int64(st, 1);
		c->spread_rel = column_real(st, 2);
		for (k = 0; k < ZL_CALIBRATION_LEVELS; k++)
			c->false_flag[k] = column_real(st, 3 + (int)k);
		c->floor_pct = column_real(st, 6);
		c->present = c->floor_pct > 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(err, h->db, h->path, "cannot read calibration classes");
	return 0;
}

int zl_history_find_calibration(struct zl_history *h, const char *backend, const char *device_name,
				const char *timer, const char *flaggems_commit,
				struct zl_calibration *out, struct strbuf *err)
{
	sqlite3_stmt *st;
	int rc, found;

	if (h->version < 3 || !backend || !device_name || !timer || !flaggems_commit)
		return 0;
	if (prepare(h, "SELECT id, backend, device_name, timer, flaggems_commit, created_at, runs, ops,"
		    " run_ids, detail FROM calibrations WHERE backend = ?1 AND device_name = ?2"
		    " AND timer = ?3 AND flaggems_commit = ?4 ORDER BY created_at DESC, id DESC LIMIT 1",
		    &st, err))
		return -1;
	if (bind_text(st, 1, backend) || bind_text(st, 2, device_name) || bind_text(st, 3, timer) ||
	    bind_text(st, 4, flaggems_commit)) {
		sqlite3_finalize(st);
		return db_error(err, h->db, h->path, "cannot bind a value");
	}
	rc = sqlite3_step(st);
	found = rc == SQLITE_ROW;
	if (found) {
		out->id = (long)sqlite3_column_int64(st, 0);
		out->backend = column_dup(st, 1);
		out->device_name = column_dup(st, 2);
		out->timer = column_dup(st, 3);
		out->flaggems_commit = column_dup(st, 4);
		out->created_at = column_dup(st, 5);
		out->runs = sqlite3_column_type(st, 6) == SQLITE_NULL ? -1 : (long)sqlite3_column_int64(st, 6);
		json_text_to_strvec((const char *)sqlite3_column_text(st, 7), &out->ops);
		json_text_to_strvec((const char *)sqlite3_column_text(st, 8), &out->run_ids);
		out->detail = column_dup(st, 9);
	}
	sqlite3_finalize(st);
	if (!found && rc != SQLITE_DONE)
		return db_error(err, h->db, h->path, "cannot look up calibrations");
	if (found && load_classes(h, out, err)) {
		zl_calibration_release(out);
		return -1;
	}
	return found;
}
