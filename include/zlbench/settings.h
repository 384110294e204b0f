/*
 * Run settings: flag > environment > default, and each resolved value keeps
 * where it came from (for --dry-run, the run header and run_identity.json).
 *
 * Lifecycle: zl_settings_init(); the command's words parsed against
 * zl_settings_options() (the dispatcher does it for a command row with
 * ZL_CMD_SETTINGS; zl_settings_parse() alone); zl_settings_resolve() reads the
 * environment, fills defaults and validates; zl_settings_release() frees everything.
 * Owner: the caller owns struct zl_settings; every string in it is owned by it.
 */
#ifndef ZLBENCH_SETTINGS_H
#define ZLBENCH_SETTINGS_H

#include <stdio.h>
#include "backend.h"
#include "options.h"
#include "strbuf.h"
#include "strvec.h"

/* Seconds of sampling per measurement: keeps an op within 1.5x of the graph timer's time (docs/timer.md). */
#define ZL_MAX_TIME_PER_SHAPE_DEFAULT "0.3"

enum zl_setting_id {
	ZL_SET_BACKEND,
	ZL_SET_FLAGGEMS_DIR,
	ZL_SET_OP,
	ZL_SET_OP_FILE,
	ZL_SET_TEST_NODE,
	ZL_SET_LEVEL,
	ZL_SET_SHAPE_FILE,
	ZL_SET_SHAPE_MODE,
	ZL_SET_DRAW_INPUTS,
	ZL_SET_REPLAY_FROM,
	ZL_SET_REPLAY_MISS,
	ZL_SET_AUTOTUNE_RECORDS,
	ZL_SET_ISOLATE,
	ZL_SET_DEVICES,
	ZL_SET_PYTHON,
	ZL_SET_OUT,
	ZL_SET_RUNS_DIR,
	ZL_SET_CUDAGRAPH,
	ZL_SET_TIMER,
	ZL_SET_NOISE_TARGET,
	ZL_SET_MAX_TIME_PER_SHAPE,
	ZL_SET_DIRECT_REPEAT,
	ZL_SET_TIMEOUT,
	ZL_SET__COUNT
};

struct zl_setting_value {
	char *raw;               /* as given (flag or env) or the default; NULL when unset */
	enum zl_source source;
	char *from;              /* "--level", "BENCH_LEVEL", "default" or "auto-detected"; owned */
};

/*
 * What the commands that start runs do with a setting (zl_setting_def.flags). A setting
 * with neither ZL_SETF_TARGET nor ZL_SETF_PLACE is forwarded: a batch gives it to each of
 * its runs as given (zl_settings_forward_args), and so does a calibration to its batches.
 */
enum zl_setting_flags {
	ZL_SETF_TARGET = 1 << 0,  /* names what one run benchmarks: a batch sets it per run, refuses it given */
	ZL_SETF_NODE = 1 << 1,    /* a target that is no operator name (a file, a node): a calibration refuses it */
	ZL_SETF_PLACE = 1 << 2,   /* where a run runs and writes (backend, devices, out): a batch decides */
	ZL_SETF_PIN = 1 << 3,     /* forwarded even when defaulted: the default depends on where the batch started */
	ZL_SETF_MEASURE = 1 << 4, /* how a run measures or where it goes: doctor, which measures nothing, ignores it */
	ZL_SETF_PLAN = 1 << 5,    /* the timer plan and the plugins depend on it (what zlbench plan shows) */
	ZL_SETF_ALL = ~0u,        /* for zl_settings_given: every setting, whatever its flags */
};

/* How a forwarded value is written out (booleans: the flag or its "off" flag). */
enum zl_setting_kind {
	ZL_SETK_TEXT = 0,
	ZL_SETK_PATH,             /* made absolute, links kept (a venv's python is a link) */
	ZL_SETK_PROGRAM,          /* a name is looked up on PATH now, a relative path made absolute */
};

/* The table row of one setting (documentation and parsing come from the same row). */
struct zl_setting_def {
	enum zl_setting_id id;
	const char *key;         /* name in --dry-run and run_identity.json */
	const char *flag;        /* long option, or NULL */
	const char *flag_alias;  /* hidden alias (--gpus), or NULL */
	const char *flag_off;    /* for booleans given as a pair: the "off" flag */
	const char *env;         /* environment variable, or NULL */
	const char *argh;
	const char *help;
	const char *default_doc; /* default as documented */
	unsigned flags;          /* enum zl_setting_flags */
	enum zl_setting_kind kind;
	const char *choices;     /* the values it takes, space-separated (options.h), or NULL */
	enum zl_opt_values values; /* without choices: what its value completes to */
};
extern const struct zl_setting_def zl_setting_defs[ZL_SET__COUNT];

struct zl_settings {
	struct zl_setting_value v[ZL_SET__COUNT];
	/* typed values, valid after zl_settings_resolve() */
	const struct zl_backend *backend;
	char *flaggems_dir;      /* absolute */
	const char *level;       /* "core" or "comprehensive" (static) */
	int shape_mode_file;     /* 1: file, 0: upstream */
	const char *draw_inputs; /* where integer and bool inputs are drawn: "flaggems" or "device" (static) */
	char *shape_file;        /* absolute, or NULL */
	char *replay_from;       /* absolute, or NULL */
	const char *replay_miss; /* with replay_from: "fail" (a key the source lacks fails) or "tune" (static) */
	int autotune_records;    /* the autotune plugin records (or replays); 0: autotune mode off */
	int isolate;
	int cudagraph;           /* graph timer wanted (and the backend can capture) */
	const char *timer;       /* the timer plan: "profiler", "graph" or "direct" (static) */
	double noise_target;     /* relative 95 % CI half-width the profiler timer samples to */
	double max_time_per_shape_s; /* seconds of sampling per measurement at most */
	long direct_repeat;
	double timeout_s;        /* 0: none */
	struct strvec devices;   /* indices as strings, e.g. "0", "2" */
	int devices_defaulted;   /* the "first device" default was used */
	char *python;
	char *out_default;       /* the run directory preflight chose when --out is unset (absolute; display only) */
	/* command-level flags shared by run-like commands */
	int dry_run;
	int json;
	const char *push_url;
	struct strvec passthrough; /* everything after "--" */
	/* option table built by zl_settings_init (points into this struct) */
	struct zl_option *opts;
};

void zl_settings_init(struct zl_settings *s);
void zl_settings_release(struct zl_settings *s);
/* The settings' option rows (for chaining with a command's own table). */
const struct zl_option *zl_settings_options(struct zl_settings *s);
/* 1 when the option row is one of the settings' rows for a setting with any of flags. */
int zl_settings_option_has(const struct zl_option *o, unsigned flags);
/*
 * Parse words against the settings alone (argv[0] = first option). extra: another
 * option table or NULL. Non-option words go to *args (may be NULL: then they are errors).
 * Returns 0, 1 for --help, -1 on error.
 */
int zl_settings_parse(struct zl_settings *s, int argc, const char **argv,
		      const struct zl_option *extra, struct strvec *args, struct strbuf *err);
/*
 * Fill from the environment and defaults, then validate and type every value.
 * need_backend: auto-detect when unset (and fail when detection fails).
 * Returns 0, or -1 with a usage-level message (exit 2).
 */
int zl_settings_resolve(struct zl_settings *s, struct strbuf *err);
/*
 * The backend step of zl_settings_resolve alone (flag, else ZL_BACKEND, else the one
 * vendor present, with its source), for a command that needs nothing else. 0, or -1
 * with the message; a name that is no backend leaves s->backend NULL and the name in
 * s->v[ZL_SET_BACKEND].raw.
 */
int zl_settings_resolve_backend(struct zl_settings *s, struct strbuf *err);

/* Run-like commands need an operator, a file or a node: 0, or -1 with the usage message. */
int zl_settings_need_target(const struct zl_settings *s, struct strbuf *err);

/* The first setting with any of flags (ZL_SETF_ALL: any) given by a flag (its from names it), or NULL. */
const struct zl_setting_value *zl_settings_given(const struct zl_settings *s, unsigned flags);

/* Set a value programmatically (used by batch and tests); source is ZL_SRC_FLAG. */
void zl_settings_set(struct zl_settings *s, enum zl_setting_id id, const char *raw);
/* Set a value a command's own option row took, from the flag or the setting's variable (src FLAG or ENV). */
void zl_settings_set_from(struct zl_settings *s, enum zl_setting_id id, const char *raw, enum zl_source src);

/* Fill a default found later (preflight's "first device"); shown as "(default: why)". */
void zl_settings_set_default(struct zl_settings *s, enum zl_setting_id id, const char *raw, const char *why);

/* Print "key = value  (source)" lines for --dry-run; an unset --out shows the default run directory. */
void zl_settings_print(const struct zl_settings *s, FILE *out);
/*
 * The forwarded settings (neither TARGET nor PLACE) given by flag or environment, and the
 * PIN ones always, as "--flag=value" (booleans "--flag" or "--flag-off"), paths absolute:
 * what a batch gives each run, and a calibration each round's batch, so that a resumed
 * one runs what it was started with whatever the environment then.
 */
void zl_settings_forward_args(const struct zl_settings *s, struct strvec *args);

#endif
