/*
 * Loading a run directory (docs/run-directory.md) into memory: the identity
 * (run_identity.json), FlagGems' results (results.json) and, when present, the
 * timer plugin's per-measurement statistics (plugins/timer.jsonl).
 *
 * Each results.json row (one shape of one dtype) becomes two zl_result rows, one
 * per side: torch (the baseline, FlagGems' "latency_base") and gems (FlagGems'
 * "latency"). A row's latency_ms is the latency of its own side; latency_base_ms
 * and speedup are the shape's torch latency and FlagGems' speedup, repeated on
 * both sides for context. Numbers that are null or absent are NAN.
 *
 * A shape is kept as one canonical string: the JSON value of shape_detail with
 * ", " and ": " separators and integers without a fraction, e.g.
 * "[[384, 384], [384, 384]]" (what Python prints for the list). FlagGems may
 * list the same shape twice for one dtype; `occurrence` (1, 2, ...) tells the
 * repeats apart, so (op, dtype, shape, occurrence, side) identifies a row.
 *
 * Failed runs are welcome: a run needs only run_identity.json. A missing or
 * unreadable results.json or timer.jsonl, and rows that carry error_msg or a null
 * latency, are kept (as NAN) and described in run->notes rather than refused.
 *
 * Owner: the caller owns struct zl_run; zl_run_release() frees every string,
 * the rows, the notes and the cJSON identity.
 */
#ifndef ZLBENCH_RUNLOAD_H
#define ZLBENCH_RUNLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "json.h"    /* its readers walk run->identity with zl_json_path() */
#include "strbuf.h"
#include "strvec.h"

enum zl_side { ZL_SIDE_TORCH = 0, ZL_SIDE_GEMS = 1 };
/* "torch" or "gems". */
const char *zl_side_name(enum zl_side side);
/* Parse "torch"/"gems" (also "base"/"baseline" for torch); -1 when unknown. */
int zl_side_parse(const char *s, enum zl_side *out);

struct zl_result {
	char *op;
	char *dtype;             /* as FlagGems wrote it, e.g. "torch.float16" */
	char *shape;             /* canonical shape string (see above) */
	int occurrence;          /* 1 for the first row of (op, dtype, shape), 2 for a repeat ... */
	enum zl_side side;
	double latency_ms;       /* this side's latency */
	double latency_base_ms;  /* the shape's torch latency */
	double speedup;          /* FlagGems' speedup (torch / gems) */
	char *error_msg;         /* FlagGems' error_msg, or NULL */
	/* from plugins/timer.jsonl; timer NULL and the rest -1/NAN when unknown */
	char *timer;             /* timer used: graph, direct, ... */
	long samples;
	double median_ms, min_ms, max_ms, iqr_ms;
	/*
	 * The raw samples (timer.jsonl's samples_ms, docs/run-directory.md): NULL when the
	 * line has none (older runs, runs loaded from the history). Only finite positive
	 * numbers are kept; the rest are counted in run->notes.
	 */
	double *samples_ms;
	size_t nr_samples_ms;
	long samples_total;      /* samples kept before a storage cap; -1 when unknown */
	int samples_subset;      /* samples_stored is "subset": samples_ms is every k-th one */
	double estimate_ms;      /* the timer's estimate; NAN when unknown */
	char *estimator;         /* e.g. "trimmed_mean_0.1"; NULL when unknown */
	double noise_rel;        /* relative half-width of the estimate's 95 % interval; NAN when unknown */
	double clock_mhz;        /* the median SM clock read around its batches (clock_mhz.median); NAN when unknown */
	char *kernels;           /* the kernels one call ran (timer.jsonl's kernels, joined by " + "); NULL when unknown */
	int host_bound;          /* timer.jsonl's host_bound: 1 (the samples hold host issue time), 0, -1 unknown */
	int no_device_work;      /* timer.jsonl's no_device_work: 1 (the profiler saw no kernel in any call), 0, -1 unknown */
	/*
	 * What FlagGems' own figures imply, the same on both sides of a shape: bytes from
	 * results.json's gbps x latency (else gbps_base x latency_base), FLOPs from its tflops x
	 * latency (FlagGems divides by its own latency). NAN when results.json has no figure.
	 */
	double fg_bytes, fg_flops;
};

/* A slot of the rows' index: the key's hash and the row number + 1 (0: an empty slot). */
struct zl_row_slot {
	uint64_t hash;
	size_t row;
};

/*
 * The identity fields other modules need, copied out of run_identity.json
 * (NULL when absent or null) as identity_fields.h's record column says. The full
 * document stays in `identity`.
 */
struct zl_run {
	char *dir;               /* absolute path of the run directory */
	cJSON *identity;         /* the whole run_identity.json */
	char *run_id;
	char *started_at;
	char *finished_at;
	char *backend;
	char *vendor;
	char *device_name;       /* distinct devices[].name joined by ", " */
	char *level;
	char *shape_mode;
	char *shape_sha256;      /* shape_file.sha256 */
	char *test_node;         /* test_node[] joined by " " */
	char *op;
	char *flaggems_mode;
	char *flaggems_commit;   /* flaggems.commit */
	char *timer_plan;        /* timer.plan */
	char *tuner_cache_mode;  /* tuner_cache.mode */
	char *autotune_mode;     /* autotune.mode */
	char *replay_from;       /* autotune.replay_from */
	char *status;
	char *host;
	double duration_s;       /* NAN when null */
	long exit_code;          /* -1 when null */
	long winners_before;     /* tuner_cache.winners_before; -1 when null */

	struct zl_result *results;
	size_t nr_results, alloc_results;
	/* zl_run_find's hash index of the rows (zl_run_index_rows); used while indexed == nr_results */
	struct zl_row_slot *index;  /* open addressing, index_mask + 1 slots */
	size_t index_mask;
	size_t indexed;
	int has_results;         /* results.json was read */
	int has_timer;           /* plugins/timer.jsonl was read */
	size_t rows_with_samples;  /* results rows that got samples_ms */
	size_t timer_unmatched;    /* timer.jsonl measurements whose key no results row has (a note says it too) */
	struct strvec notes;     /* what was missing or odd, one lowercase line each */
};

/* The note of zl_run's timer_unmatched, with its count (compare states it once, as a warning of its own). */
#define ZL_NOTE_TIMER_UNMATCHED "plugins/timer.jsonl: %zu measurements match no results row"

/*
 * results.json is walked row by row (jscan.h) and only what that scan refuses is parsed
 * as one tree; set to 1 (the fuzz harness does, to compare the two) to always parse it whole.
 */
extern int zl_runload_whole_tree;

void zl_run_init(struct zl_run *run);
void zl_run_release(struct zl_run *run);

/* How struct zl_run keeps a field of run_identity.json (identity_fields.h's record column). */
enum zl_record_kind {
	ZL_REC_STRING,         /* char *: the string, NULL when not one */
	ZL_REC_JOINED,         /* char *: an array's strings joined by " " */
	ZL_REC_DEVICE_NAMES,   /* char *: the distinct devices[].name joined by ", " */
	ZL_REC_REAL,           /* double: NAN when not a number */
	ZL_REC_LONG            /* long: -1 when not a number */
};
struct zl_record_field {
	const char *key;       /* its dotted path in run_identity.json */
	enum zl_record_kind kind;
	size_t offset;         /* of its member in struct zl_run */
};
/*
 * ZL_RECORD_IF_<record>(...) gives its arguments for the rows of identity_fields.h that
 * struct zl_run keeps and nothing for the others, so that a table of them reads
 *     #define ZL_IDENTITY_FIELD(key, kind, value, record, member, column) \
 *             ZL_RECORD_IF_##record({ key, ZL_REC_##record, offsetof(struct zl_run, member) },)
 *     #include "zlbench/identity_fields.h"
 */
#define ZL_RECORD_IF_NONE(...)
#define ZL_RECORD_IF_STRING(...) __VA_ARGS__
#define ZL_RECORD_IF_JOINED(...) __VA_ARGS__
#define ZL_RECORD_IF_DEVICE_NAMES(...) __VA_ARGS__
#define ZL_RECORD_IF_REAL(...) __VA_ARGS__
#define ZL_RECORD_IF_LONG(...) __VA_ARGS__
/* Set f's member of run from run->identity (the history fills the fields it has no column for). */
void zl_run_load_field(struct zl_run *run, const struct zl_record_field *f);

/*
 * Load the run in dir into run (which must be freshly initialised).
 * Returns 0, or -1 when dir holds no readable run_identity.json (err says why).
 */
int zl_run_load(const char *dir, struct zl_run *run, struct strbuf *err);
/*
 * The same with the identity given instead of read (run takes it over, even on error):
 * a finished run prints its summary and is stored in the history from the identity it
 * has in memory, written or not (a full disk).
 */
int zl_run_load_with_identity(const char *dir, cJSON *identity, struct zl_run *run, struct strbuf *err);

/*
 * Index the rows for zl_run_find (zl_run_load does it; whoever fills results otherwise calls
 * it once they are all there). Without a current index zl_run_find scans every row.
 */
void zl_run_index_rows(struct zl_run *run);
/*
 * Find a row by its key; NULL when absent. dtype matches with or without "torch.". When
 * several rows have one key, the first.
 */
const struct zl_result *zl_run_find(const struct zl_run *run, const char *op, const char *dtype,
				    const char *shape, int occurrence, enum zl_side side);

#endif
