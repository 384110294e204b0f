/*
 * `zlbench calibrate`'s session (docs/calibrate.md): K identical rounds of one batch over
 * the given ops on one device, then the run-to-run spread and false-flag rates per size
 * class (calibrate.h) and the floor compare will use, stored in the history database.
 * cmd_calibrate.c reads the command line into a struct zl_calibrate_request, calls
 * zl_calibrate_session_run() and renders the session.
 *
 * Each round is a `zlbench batch` child (lib/supervise.h) in <dir>/round-<k>/, so a
 * round has everything a batch has: device pinning, per-op timeouts, ops_status.csv,
 * resumability (--resume continues the rounds with `zlbench batch --resume`) and
 * whatever start mode batch offers. The settings forwarded to every round are saved in
 * <dir>/calibrate.json before the first round starts; the result goes to
 * <dir>/calibration.json.
 *
 * Owner: struct zl_calibrate_session is the caller's (_init/_release); it borrows the
 * request and the settings while it lives.
 */
#ifndef ZLBENCH_CALIBRATE_SESSION_H
#define ZLBENCH_CALIBRATE_SESSION_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "calibrate.h"
#include "progress.h"
#include "strbuf.h"
#include "strvec.h"

#define ZL_CALIBRATE_DEFAULT_RUNS 3
#define ZL_CALIBRATE_MAX_RUNS 50

struct zl_settings;

/* What the command line asks of a calibration, checked by the command. */
struct zl_calibrate_request {
	const struct strvec *ops;      /* --ops values, each a comma-separated list */
	long runs;                     /* --runs: 2 to ZL_CALIBRATE_MAX_RUNS */
	const char *resume;            /* --resume DIR, or NULL */
	const char *db;                /* --db, or NULL */
	int dry_run;                   /* plan only */
	enum zl_progress_mode progress; /* --progress */
	const struct strvec *forwarded; /* batch options every round's batch gets ("--start=fresh") */
	int argc;                      /* the command line, for calibrate.json */
	const char **argv;
};

/* What a calibration directory saves (calibrate.json) and its rounds need. */
struct zl_calibrate_plan {
	char *dir;                 /* absolute */
	long runs;
	struct strvec ops;
	char *device;
	char *backend;
	struct strvec batch_args;  /* after `zlbench batch`, before --out */
	char *db;                  /* --db, or NULL */
};

/* One round's batch: its exit code and its ops' outcome. */
struct zl_calibrate_round {
	int exit_code;             /* the batch's; -1 not run */
	size_t passed, total;
	struct strvec failed;      /* "op: status" */
	double wall_s;
};

struct zl_calibrate_session {
	const struct zl_calibrate_request *req;   /* borrowed */
	char *exe;                 /* the zlbench binary the rounds are */
	struct zl_calibrate_plan plan;
	int claimed;               /* this process holds plan.dir */
	struct zl_calibrate_round *rounds;         /* plan.runs of them */
	/* progress on stderr */
	struct zl_progress progress;
	long current;              /* the round under way (1-based) */
	double t0, round_t0;       /* when the rounds and the current one started (monotonic) */
	size_t ops_done;           /* ops of the earlier rounds that ended */
	/* the measurement, once there is one (measured) */
	int measured;
	struct zl_calib_result result;
	struct zl_calibration cal;
	int keyed;                 /* the runs' key is complete */
	int stored;                /* cal is in the history database */
	char *db_path;             /* where it was stored */
	struct strbuf not_stored;  /* why not */
	struct strvec notes;
};

void zl_calibrate_session_init(struct zl_calibrate_session *st);
void zl_calibrate_session_release(struct zl_calibrate_session *st);

/*
 * Plan the calibration (a new one for req and the settings s, or the one req->resume
 * names); with req->dry_run stop there. Else claim its directory, run the rounds that
 * have not finished, measure, store and write calibration.json. Returns the exit code
 * (enum zl_exit): 0 measured and stored; st->measured says whether there is a result.
 */
int zl_calibrate_session_run(struct zl_calibrate_session *st, const struct zl_calibrate_request *req,
			     const struct zl_settings *s);

/* The plan (--dry-run): the directory, the ops, each round's batch argv. */
void zl_calibrate_session_print_plan(const struct zl_calibrate_session *st, FILE *out);
/*
 * The result for people, the answer first (stored or not, the floors, what compare and ab
 * do with them), then the classes' table fitted to width columns (0: no limit), how it was
 * measured, ending in CALIBRATE_DIR=<dir>.
 */
void zl_calibrate_session_print_text(const struct zl_calibrate_session *st, size_t width, FILE *out);
/* calibration.json's document (NULL: out of memory). */
cJSON *zl_calibrate_session_json(const struct zl_calibrate_session *st);

#endif
