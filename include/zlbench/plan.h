/*
 * The plugin plan: which pytest plugins (-p) a run loads, derived from the
 * backend's capabilities and the settings, and the timer plan (profiler|graph|direct)
 * with what the plugins are told about it (noise target, time cap, clock source).
 * Owner: the caller owns struct zl_plan; zl_plan_release() frees it.
 */
#ifndef ZLBENCH_PLAN_H
#define ZLBENCH_PLAN_H

#include "settings.h"
#include "strvec.h"

struct zl_plugin_def {
	const char *module;     /* importable module under plugins/ */
	unsigned requires;      /* enum zl_capability bits the backend must have */
	const char *timer;      /* the timer it provides ("profiler", "graph"), or NULL */
	/* NULL, or whether the settings want it; *why says why not (static text) */
	int (*wanted)(const struct zl_settings *s, const char **why);
	const char *purpose;
};
extern const struct zl_plugin_def zl_plugin_table[];
size_t zl_plugin_count(void);

struct zl_plan {
	struct strvec plugins;   /* module names, in load order */
	struct strvec reasons;   /* one line per plugin: "zl_timer: loaded: ..." / "... dropped: ..." */
	const char *timer;       /* "profiler", "graph" or "direct" (static) */
	char fallback[32];       /* the timers a shape falls back to, in order: "graph, direct", "none" */
	double noise_target;     /* ZL_NOISE_TARGET */
	int noise_target_pinned; /* ZL_NOISE_TARGET_PINNED: the user set it, no size class relaxes it */
	double max_time_per_shape_s; /* ZL_MAX_TIME_PER_SHAPE */
	const char *clock_source; /* ZL_CLOCK_SOURCE: "nvml" or "none" (static) */
};
#define ZL_PLAN_INIT { STRVEC_INIT, STRVEC_INIT, NULL, "", 0, 0, 0, NULL }

/* The plan for s's backend and settings (s->backend must be set). */
void zl_plan_make(const struct zl_settings *s, struct zl_plan *plan);
void zl_plan_release(struct zl_plan *plan);

/*
 * The plugins directory: $ZL_PLUGINS_DIR, else the first of the source tree beside the
 * binary's build directory, the install layout (<bindir>/../share/zlbench/plugins), the
 * binary's own directory that holds zl_timer.py, else the source tree it was built from.
 * *how says which (static text; "not found: ..." when none holds the plugins). Caller frees.
 */
char *zl_plugins_dir_how(const char **how);
char *zl_plugins_dir(void);

#endif
