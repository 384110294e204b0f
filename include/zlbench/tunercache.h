/*
 * Counting what FlagGems' libtuner has stored in its SQLite cache.
 *
 * Where (FlagGems src/flag_gems/utils/code_cache.py and libentry.py, LibCache):
 *   $FLAGGEMS_CACHE_DIR (default ~/.flaggems) / config_cache /
 *   TunedConfig_<vendor_name>_triton_<major>_<minor>.db
 * unless FLAGGEMS_DB_URL points libtuner at another database, which this
 * module does not read.
 *
 * What (utils/models/sql.py names every table "<name>-<md5 of the key columns>"):
 *  - winner tables, one row per tuning key holding the best config
 *    (LibTuner.config_table_name: "<kernel>_<kernel hash>", optionally with
 *    "_flagtune_<mode>" and "_benchmark_<12 hex of the timing protocol>");
 *  - benchmarked-config tables, one row per (key, config) with p50/p20/p80
 *    timings (LibTuner.benchmark_table_name: "<kernel>_<cache key>_benchmark_v<N>").
 * A table is a benchmark table when its name carries "_benchmark_v<digits>"
 * before the "-<md5>" suffix, or when it has a p50 column; otherwise it holds winners.
 *
 * Databases are opened read-only (a file: URI with mode=ro) with a busy
 * timeout. A missing directory or DB, a DB locked past the timeout, or a
 * corrupt file is never an error: it adds a line to notes and counts nothing.
 * A missing one holds nothing; one that exists but could not be read is named in
 * unread_dbs (or dir_unread), so that a caller can say "unknown" rather than 0.
 */
#ifndef ZLBENCH_TUNERCACHE_H
#define ZLBENCH_TUNERCACHE_H

#include <stddef.h>

#include "strbuf.h"
#include "strvec.h"

enum zl_tuner_kind {
	ZL_TUNER_WINNERS,      /* best config per key */
	ZL_TUNER_BENCHMARKS    /* one timed row per (key, config) */
};

struct zl_tuner_table {
	char *db;              /* file name of its database (no directory) */
	char *name;            /* table name as stored */
	char *kernel;          /* name up to the first hash segment, e.g. "mm_kernel_general_host_tma" */
	enum zl_tuner_kind kind;
	long rows;
};

/*
 * Totals over every table counted. Owner: the caller; zl_tuner_stats_release()
 * frees tables, their strings and notes, and leaves the struct reusable.
 */
struct zl_tuner_stats {
	long winners;          /* rows in winner tables */
	long benchmarked;      /* rows in benchmarked-config tables */
	size_t dbs;            /* databases read successfully */
	struct zl_tuner_table *tables;   /* sorted by db, then name */
	size_t nr, alloc;
	struct strvec notes;   /* one lowercase line per thing not counted */
	struct strvec unread_dbs; /* file names of databases that exist but were not counted */
	int dir_unread;        /* the config_cache directory (or the cache dir) could not be listed */
};
#define ZL_TUNER_STATS_INIT { 0, 0, 0, NULL, 0, 0, STRVEC_INIT, STRVEC_INIT, 0 }
/* 1 when the totals are only a lower bound: something present was not counted. */
int zl_tuner_stats_incomplete(const struct zl_tuner_stats *st);

/* Points libtuner at another database (any value, even empty): this module does not read it. */
#define ZL_TUNER_DB_URL_VAR "FLAGGEMS_DB_URL"
/* 1 when ZL_TUNER_DB_URL_VAR is set. */
int zl_tuner_db_url_set(void);

/* Busy timeout used when the caller passes busy_ms < 0. */
#define ZL_TUNER_BUSY_MS 2000

void zl_tuner_stats_init(struct zl_tuner_stats *st);
void zl_tuner_stats_release(struct zl_tuner_stats *st);

/* $FLAGGEMS_CACHE_DIR, or $HOME/.flaggems, as cachedir.h reads them; NULL when neither is set. Caller frees. */
char *zl_tuner_default_cache_dir(void);
/* The config_cache directory under a cache dir. Caller frees. */
char *zl_tuner_config_dir(const char *cache_dir);

/*
 * Count the databases under <cache_dir>/config_cache: every TunedConfig_*.db, or
 * only TunedConfig_<vendor>_triton_*.db when vendor is not NULL. Adds to st
 * (call on a fresh or released struct for one count).
 */
void zl_tuner_count_dir(const char *cache_dir, const char *vendor, int busy_ms,
			struct zl_tuner_stats *st);
/* Count one database file, whatever its name. Adds to st. */
void zl_tuner_count_db(const char *db_path, int busy_ms, struct zl_tuner_stats *st);

/* Classify one table name (no column check): what zl_tuner_count_* use first. */
enum zl_tuner_kind zl_tuner_kind_of_name(const char *table);

#endif
