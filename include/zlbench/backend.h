/*
 * The backend registry: one row per accelerator vendor, compiled in (backends/).
 * Everything above this header asks the table; nothing outside backends/ names a
 * vendor, a vendor tool or a vendor variable.
 */
#ifndef ZLBENCH_BACKEND_H
#define ZLBENCH_BACKEND_H

#include <stddef.h>
#include "strbuf.h"
#include "strvec.h"

/* Capability bits (curl's feature-table style). */
enum zl_capability {
	ZL_CAP_GRAPH_CAPTURE = 1u << 0, /* device graphs: the graph timer can capture and replay */
	ZL_CAP_KERNEL_PROFILER = 1u << 1, /* torch's profiler gives device kernel timestamps with correlation ids */
	/*
	 * Importing FlagGems leaves the device untouched, so a fork server may import it and
	 * fork one child per op (`zlbench batch --start fork`). No row has it: on every vendor
	 * FlagGems initialises the device at import (docs/worker.md has the lines).
	 */
	ZL_CAP_FORK_SERVER = 1u << 2,
};

/* The name of each capability bit, for `zlbench backends` and JSON; ends with name == NULL. */
struct zl_capability_def {
	unsigned bit;
	const char *name;   /* e.g. "graph_capture" */
	const char *help;
};
extern const struct zl_capability_def zl_capability_table[];
/* The table row of one capability bit, or NULL. */
const struct zl_capability_def *zl_capability_find(unsigned bit);

/* Why a backend lacks a capability (what its public code shows); a list ends with bit == 0. */
struct zl_cap_note {
	unsigned bit;
	const char *why;
};

/*
 * One device. index is the ordinal the visibility variable takes (0-based, in the
 * query tool's order; for device nodes, the nodes' numeric order).
 * Every string is owned by the list that holds the device.
 */
struct zl_device {
	int index;
	char *name;        /* product name as the query tool prints it; NULL when unknown */
	char *uuid;        /* uuid or bus id; NULL when unknown */
	long long memory_mib; /* -1 when unknown */
	char *driver;      /* driver version; NULL when unknown */
	char *bus_id;      /* PCI bus id as the tool prints it; NULL when unknown */
	char *node;        /* device node path when found through /dev nodes; else NULL */
};

/*
 * A device enumeration. Owner: the caller; zl_devlist_release() frees it.
 * available: 1 when the list is authoritative (query tool or device nodes);
 * 0 when nothing could be enumerated (then `how` says why and indices are "not verified").
 */
struct zl_devlist {
	struct zl_device *v;
	size_t nr, alloc;
	int available;
	char *how;  /* the query tool's name, "<dev root> nodes (<why the tool did not answer>)", or "not verified: <why>" */
	/*
	 * 1 when a query tool was on PATH but none answered (it exited non-zero,
	 * timed out, or printed nothing parseable): a broken driver stack, whether
	 * or not device nodes then answered. how says which tool and why.
	 */
	int tool_failed;
};
#define ZL_DEVLIST_INIT { NULL, 0, 0, 0, NULL, 0 }
void zl_devlist_release(struct zl_devlist *dl);
/* Append a device; strings are copied (NULL allowed). Returns the new entry. */
struct zl_device *zl_devlist_add(struct zl_devlist *dl, int index, const char *name,
				 const char *uuid, long long memory_mib, const char *driver);
const struct zl_device *zl_devlist_find(const struct zl_devlist *dl, int index);
/* Replace dl->how with a formatted string. */
void zl_devlist_set_how(struct zl_devlist *dl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * {index,name,uuid,memory_mib,driver,bus_id,node} with null for unknown fields,
 * the shape run_identity.json's "devices" entries take. NULL when cJSON runs out
 * of memory. The caller owns the result (cJSON_Delete).
 */
struct cJSON;
struct cJSON *zl_device_to_json(const struct zl_device *d);

/* Parse the query tool's output into dl (devices only; available/how left to the caller). */
typedef int (*zl_devparse_fn)(const char *output, struct zl_devlist *dl, struct strbuf *err);

struct zl_backend {
	const char *name;                 /* the backend name users type (aliases below) */
	const char *const *aliases;       /* NULL-terminated, matched case-insensitively */
	const char *vendor_name;          /* flag_gems.vendor_name that this backend expects */
	const char *vendor_module;        /* FlagGems' backend package segment, e.g. "_nvidia" */
	const char *visibility_var;       /* the variable zlbench sets to pin devices */
	const char *const *extra_visibility_vars; /* others the vendor honours (removed for other backends) */
	const char *const *slurm_sets;    /* visibility vars Slurm's gres sets itself for this vendor (NULL-terminated, may be empty) */
	const char *query_tool;           /* program name looked up on PATH */
	const char *const *query_argv;    /* argv for enumeration (argv[0] == query_tool) */
	zl_devparse_fn parse;             /* parser for query_argv's output */
	const char *alt_query_tool;       /* tried when query_tool is absent or fails (may be NULL) */
	const char *const *alt_query_argv;
	zl_devparse_fn alt_parse;
	const char *dev_node_prefix;      /* device nodes: <dev root>/<prefix><index> */
	const char *dev_node_probe;       /* a node whose presence alone says the vendor is there (may be NULL);
					     when set, numbered nodes count only with it present */
	const char *dev_node_note;        /* caveat added to `how` when devices come from nodes (may be NULL) */
	const char *const *pin_env;        /* NAME=value the child also gets so that indices mean what the query tool says (NULL-terminated, may be NULL) */
	const char *const *env_prefixes;   /* the vendor's runtime and compiler switches, recorded in the run identity (NULL-terminated, may be NULL) */
	unsigned caps;                    /* enum zl_capability bits */
	const struct zl_cap_note *cap_notes; /* why capabilities are off (may be NULL) */
	const char *clock_source;         /* how the plugins read the SM clock ("nvml"); NULL: none */
};

/* The table; terminated by a row with name == NULL. */
extern const struct zl_backend zl_backend_table[];
size_t zl_backend_count(void);

/* Find by name or alias (case-insensitive); NULL when unknown. */
const struct zl_backend *zl_backend_find(const char *name);
/* "<name> (<alias>, ...), ..." for error messages. Appends to sb. */
void zl_backend_choices(struct strbuf *sb);
/* Every name and alias, pushed to sv (for "did you mean" and the completion scripts). */
void zl_backend_names(struct strvec *sv);
int zl_backend_has(const struct zl_backend *b, unsigned cap);
/* Why b lacks capability bit cap, or NULL when it has it or no note says. */
const char *zl_backend_cap_note(const struct zl_backend *b, unsigned cap);
/* ZL_CLOCK_SOURCE for the plugins: the row's clock source, else "none". */
const char *zl_backend_clock_source(const struct zl_backend *b);

/*
 * Device peaks: one row per device model, the figures its vendor's datasheet gives
 * (dense: without 2:4 sparsity), with the datasheet named in `source`. The report and
 * `compare --efficiency` divide what a kernel achieved by these. A model is found by
 * the name its query tool prints (run_identity.json's devices[].name), compared
 * without case; a name no row lists has no peaks, and the pages say so rather than
 * guess from a similar name (an H200 NVL is not an H200).
 */
enum zl_peak_kind {
	ZL_PEAK_FP32,      /* FP32 on the vector units (no tensor cores: torch's default for float32) */
	ZL_PEAK_TF32,      /* TF32 tensor cores (float32 with allow_tf32) */
	ZL_PEAK_FP16,      /* FP16 tensor cores */
	ZL_PEAK_BF16,      /* BF16 tensor cores */
	ZL_PEAK_FP8,       /* FP8 tensor cores */
	ZL_PEAK__COUNT
};
/* "fp32", "tf32", "fp16", "bf16", "fp8". */
const char *zl_peak_kind_name(enum zl_peak_kind k);

struct zl_device_peak {
	const char *model;                /* e.g. "H200 SXM" */
	const char *const *names;         /* the query tools' names for it (NULL-terminated) */
	double hbm_gbps;                  /* memory bandwidth, GB/s (10^9 bytes/s) */
	double tflops[ZL_PEAK__COUNT];    /* dense TFLOP/s (10^12); 0: the datasheet gives none */
	const char *source;               /* the datasheet: title and address (without "https://": the
					     report pages carry no link out) */
};
/* The table; terminated by a row with model == NULL. */
extern const struct zl_device_peak zl_device_peak_table[];
/* The row of a device name (case-insensitive, exact); NULL when no row lists it. */
const struct zl_device_peak *zl_device_peak_find(const char *device_name);

/*
 * Auto-detection: the one vendor whose query tool (on PATH) or device nodes
 * (under the device root) are present. 0 and *out set when exactly one; -1 with
 * a message naming what was found (none, or several) otherwise.
 */
int zl_backend_detect(const struct zl_backend **out, struct strbuf *err);
/*
 * Is this vendor present here? 1 when a query tool is on PATH, or its probe node
 * exists (rows with a probe), or numbered device nodes exist (rows without one);
 * why gets what was found (the tool on PATH, or the probe node). 0 otherwise.
 */
int zl_backend_present(const struct zl_backend *b, struct strbuf *why);

/*
 * Enumerate devices: run the query tool (argv, no shell, bounded time: $ZL_QUERY_TIMEOUT
 * seconds, default ZL_QUERY_TIMEOUT_DEFAULT), then the alternative tool; when both are
 * absent or fail, fall back to device nodes and say so in dl->how; when neither
 * exists, dl->available = 0 and dl->how says why. Never fails hard: returns 0.
 * dl must be empty (ZL_DEVLIST_INIT or released).
 */
#define ZL_QUERY_TIMEOUT_DEFAULT 10
int zl_backend_enumerate(const struct zl_backend *b, struct zl_devlist *dl);

/* The query tools' time limit: $ZL_QUERY_TIMEOUT, else the default. -1 with the message for a bad value. */
int zl_backend_query_timeout(double *out, struct strbuf *err);

/*
 * Device root for node probing: $ZL_DEV_ROOT or "/dev" (tests point it at a fixture tree).
 */
const char *zl_dev_root(void);

#endif
