/*
 * `zlbench ab`'s session (docs/ab.md): A and B interleaved in ABBA order for R rounds,
 * one variable apart, each round a normal `zlbench run` child (lib/supervise.h) whose
 * run directory lands in the ab directory, then the rows paired over the rounds and
 * judged (ab.h). cmd_ab.c parses the command line into a struct zl_ab_request, calls
 * zl_ab_session_run() and renders the session.
 *
 * The ab directory: ab.json (rewritten atomically after every run: the rounds, what
 * differs by design, the autotune set-up, and at the end the rows, geomeans and gate:
 * the format src/report/page_ab.c draws), A1/ B1/ B2/ A2/ ... (run directories), and
 * logs/<name>.log (what each `zlbench run` printed).
 *
 * Owner: struct zl_ab_session is the caller's (_init/_release); it borrows the request
 * and the settings while it lives.
 */
#ifndef ZLBENCH_AB_SESSION_H
#define ZLBENCH_AB_SESSION_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "ab.h"
#include "calibrate.h"
#include "compare.h"
#include "progress.h"
#include "runload.h"
#include "strvec.h"

struct zl_settings;

/* What the command line asks of an ab, checked by the command. */
struct zl_ab_request {
	struct strvec env[2];          /* --a-env, --b-env: NAME=VALUE (NAME checked) */
	const char *dir[2];            /* --a-flaggems-dir, --b-flaggems-dir (directories), or NULL */
	const char *python[2];         /* --a-python, --b-python, or NULL */
	size_t rounds;                 /* 1 to ZL_AB_MAX_ROUNDS */
	double threshold_pct;          /* --threshold; 0: the floor */
	double fail_pct;               /* --fail-on-regression; < 0: no gate */
	int fail_on_unsure;
	int allow_mismatch;            /* go on when the caliber check refuses */
	const char *db;                /* --db, or NULL */
	int dry_run;                   /* plan only */
	enum zl_progress_mode progress; /* --progress */
	int argc;                      /* the command line, for ab.json */
	const char **argv;
};

/* One run of the ab: A1, B1, ... */
struct zl_ab_slot {
	char name[16];             /* A1, B1, ... */
	int arm;                   /* 0 A, 1 B */
	size_t round;
	char *dir;                 /* absolute */
	char *replay_from;         /* a run of the ab (absolute), or NULL */
	int exit_code;             /* -1: not run */
	double wall_s;
	struct zl_run run;
	int loaded;
	const char *note;          /* why the plan changed for it (static text) */
};

struct zl_ab_session {
	const struct zl_ab_request *req;   /* borrowed */
	const struct zl_settings *s;       /* borrowed */
	char *exe;                 /* the zlbench binary the runs are */
	char *dir;                 /* absolute */
	int claimed;               /* this process holds dir (its result is there) */
	const char *op;
	size_t rounds;
	struct zl_ab_slot *runs;   /* 2 * rounds, in run order */
	const char *status;        /* running, done, interrupted, refused, failed */
	char *autotune;            /* one line */
	char *tuner_cache;         /* one line */
	struct strvec named;       /* caliber labels the named variables explain */
	struct strvec refusals;
	struct strvec notes;
	struct strvec argv;        /* the command line */
	char *flaggems_dir[2];     /* each arm's, absolute (named or the common one) */
	const char *python[2];     /* each arm's interpreter (named or the common one) */
	int analysed;              /* ab holds the analysis */
	struct zl_ab ab;
	/* progress on stderr */
	struct zl_progress progress;
	size_t current;            /* the run under way */
	double current_t0;         /* when it started (monotonic) */
	double done_s;             /* the wall time of the runs that ended */
};

void zl_ab_session_init(struct zl_ab_session *st);
void zl_ab_session_release(struct zl_ab_session *st);

/*
 * Plan the ab for req and the resolved settings s; with req->dry_run stop there. Else
 * claim the ab directory, run the rounds (ab.json after each), analyse and write
 * ab.json. Returns the exit code (enum zl_exit): 0 every run passed and the gate, if
 * any, passed; st->analysed says whether there is a result to render.
 */
int zl_ab_session_run(struct zl_ab_session *st, const struct zl_ab_request *req, const struct zl_settings *s);

/* The plan (--dry-run): order, each run's argv and environment. */
void zl_ab_session_print_plan(const struct zl_ab_session *st, FILE *out);
/*
 * The result for people: the answer (ab.h's verdict line and rows, laid out by view),
 * the set-up (rounds, arms, autotune, caliber, each run), the details (floor, geomeans, gate).
 */
struct zl_view_opts;
void zl_ab_session_print_text(const struct zl_ab_session *st, const struct zl_view_opts *view, FILE *out);
/* ab.json's document (NULL: out of memory). */
cJSON *zl_ab_session_json(const struct zl_ab_session *st);

#endif
