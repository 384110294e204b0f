/*
 * What a run learns about itself besides pytest's output: host, FlagGems git
 * state, tuner-cache winners before/after, compile stats, the temporary caches
 * of an isolated run, and its outcome. Part of the run context (runctx.h): collected
 * around the child, written by identity.c.
 * Owner: the run context holds struct zl_run_facts; zl_run_facts_release() frees it;
 * zl_run_facts_cleanup() removes the isolated caches (on every path).
 */
#ifndef ZLBENCH_FACTS_H
#define ZLBENCH_FACTS_H

#include <cjson/cJSON.h>
#include "strbuf.h"
#include "strvec.h"

struct zl_compile_snapshot;
struct zl_run_ctx;

/*
 * One winner table of the tuner cache; a table missing at one count has 0 there, unless
 * its database was there but could not be read then: -1 (unknown).
 */
struct zl_tuner_table_count {
	char *db;                       /* database file name */
	char *name;                     /* table name as stored */
	long before, after;             /* -1: not counted (after: also until counted) */
};

struct zl_run_facts {
	char *run_id;
	char *host;
	double started_epoch, finished_epoch;
	char *flaggems_commit;          /* NULL when not a git checkout */
	int flaggems_dirty;             /* -1 unknown */
	char *visibility_value;
	/* tuner cache (FlagGems libtuner) and Triton compile cache */
	char *flaggems_cache;           /* the cache dir the child uses */
	char *triton_cache;
	char *isolated_root;            /* temp dir holding both when isolated; removed afterwards */
	char *isolated_flaggems_cache;  /* set only when isolated (passed to the child) */
	char *isolated_triton_cache;
	long winners_before, winners_after;   /* -1 unknown: a database there was not counted */
	long configs_before, configs_after;   /* benchmarked configs rows; -1 unknown */
	struct zl_tuner_table_count *tuner_tables; /* winner tables, in the counter's order (db, name) */
	size_t nr_tuner_tables, alloc_tuner_tables;
	char *tuner_note;               /* missing/locked DB etc., from the latest count */
	char *tuner_note_before, *tuner_note_after; /* the same, of each count (NULL: nothing odd) */
	struct strvec tuner_unread_before; /* databases there but not counted at the start */
	int tuner_dir_unread_before;    /* the cache directory could not be listed at the start */
	struct zl_compile_snapshot *compile_snap; /* shared mode: hash dirs present at start */
	long compile_variants, compile_convert_layout; /* -1 unknown */
	char *compile_note;
	/* how the op's interpreter started (worker.h: zl_worker_start_json); NULL: a fresh child */
	cJSON *start;
	/* outcome */
	const char *status;
	int exit_code;                  /* -1 while running */
	int signal;
	char *reason;
};

void zl_run_facts_init(struct zl_run_facts *f);
void zl_run_facts_release(struct zl_run_facts *f);
/*
 * c->f before the child starts: run id, host, devices, git state, the caches (made fresh
 * when isolated: -1 with err when they cannot be), the tuner and compile counts.
 */
int zl_run_facts_collect_before(struct zl_run_ctx *c, struct strbuf *err);
/* c->f after the child ended: the tuner and compile counts again. */
void zl_run_facts_collect_after(struct zl_run_ctx *c);
/* Remove the isolated caches; safe to call twice. */
void zl_run_facts_cleanup(struct zl_run_facts *f);

/* The first line of <flaggems>/.zlbench-demo when the tree is the bundled demo; caller frees. */
char *zl_demo_label(const char *flaggems_dir);

/* Write <run>/shapes.yaml for this run. */
int zl_shapes_archive_for_run(const struct zl_run_ctx *c, struct strbuf *err);

/*
 * Count the tuner cache f->flaggems_cache holds for vendor, before the run (after == 0) or
 * after it: winners and benchmarked configs, winners per table, and tuner_note, which
 * says what this count found odd (NULL: nothing).
 */
void zl_tuner_facts(struct zl_run_facts *f, const char *vendor, int after);
/* Compile stats: a snapshot of the Triton cache at the start (shared mode), then the counts of what is new. */
struct zl_compile_snapshot *zl_compile_facts_snapshot(const char *triton_cache);
void zl_compile_facts(const char *triton_cache, const struct zl_compile_snapshot *snap,
		      long *variants, long *convert_layout, char **note);
void zl_compile_facts_free(struct zl_compile_snapshot *snap);

#endif
