#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zlbench/env.h"
#include "zlbench/fsutil.h"
#include "zlbench/strbuf.h"
#include "zlbench/plan.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

static int want_profiler(const struct zl_settings *s, const char **why)
{
	*why = "the timer plan is not profiler (--timer / ZL_TIMER)";
	return !strcmp(s->timer, "profiler");
}

/* The graph timer times the graph plan and is the profiler plan's fallback. */
static int want_graph(const struct zl_settings *s, const char **why)
{
	*why = !s->cudagraph ? "graph timer turned off" : "the timer plan is direct";
	return s->cudagraph && strcmp(s->timer, "direct");
}

static int want_autotune(const struct zl_settings *s, const char **why)
{
	*why = "autotune records turned off (autotune mode off)";
	return s->autotune_records;
}

static int want_device_inputs(const struct zl_settings *s, const char **why)
{
	*why = "inputs drawn as FlagGems draws them (--draw-inputs / ZL_DRAW_INPUTS)";
	return s->draw_inputs && !strcmp(s->draw_inputs, "device");
}

/* Not a setting: zlbench batch names the shard of a warm-up shard run (plugins/zl_shard.py). */
static int want_shard(const struct zl_settings *s, const char **why)
{
	const char *v = zl_env(ZL_ENV_WARMUP_SHARD);

	(void)s;
	*why = "not a warm-up shard (ZL_WARMUP_SHARD unset)";
	return v != NULL;
}

const struct zl_plugin_def zl_plugin_table[] = {
	{ "zl_vendor_guard", 0, NULL, NULL, "stop before any benchmark when FlagGems detects another vendor" },
	{ "zl_timer", 0, NULL, NULL, "times every measurement by the plan, direct timer (do_bench), samples and statistics" },
	{ "zl_profiler_timer", ZL_CAP_KERNEL_PROFILER, "profiler", want_profiler,
	  "device timestamps from torch's profiler, each call from an idle device, L2 flushed outside it, sampled to the noise target" },
	{ "zl_graph_timer", ZL_CAP_GRAPH_CAPTURE, "graph", want_graph,
	  "graph-capture timer with L2 flush: the graph plan, and the profiler plan's fallback" },
	{ "zl_foreign_vendor", 0, NULL, NULL, "report other vendors' FlagGems modules loaded by the run" },
	{ "zl_autotune", 0, NULL, want_autotune, "record autotune winners, or replay an earlier run's" },
	{ "zl_skips", 0, NULL, NULL, "a dtype the benchmark does not support is a skip with its reason; the tests' outcomes for the run's status" },
	{ "zl_inputs", 0, NULL, want_device_inputs,
	  "draw the benchmarks' integer and bool inputs on the device (FlagGems' generate_tensor_input replaced)" },
	{ "zl_shard", 0, NULL, want_shard, "keep a warm-up shard's share (ZL_WARMUP_SHARD=i/k) of each benchmark's shapes" },
	{ NULL, 0, NULL, NULL, NULL },
};

/* The timers in the order a shape tries them; direct needs no plugin. */
static const char *const timer_chain[] = { "profiler", "graph", "direct" };

size_t zl_plugin_count(void)
{
	size_t n = 0;

	while (zl_plugin_table[n].module)
		n++;
	return n;
}

/* "<name>" of each capability bit in caps the backend lacks, and the row's note on it. */
static void lacking(struct strbuf *sb, const struct zl_backend *b, unsigned caps)
{
	const struct zl_capability_def *c;

	for (c = zl_capability_table; c->name; c++) {
		const char *note;

		if (!(caps & c->bit) || zl_backend_has(b, c->bit))
			continue;
		note = zl_backend_cap_note(b, c->bit);
		strbuf_addf(sb, "%s%s%s%s", sb->len ? ", " : "", c->name, note ? ": " : "", note ? note : "");
	}
}

/* The timers after the plan's own that a loaded plugin (or none, for direct) provides. */
static void set_fallback(struct zl_plan *plan)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, j;
	int after = 0;

	for (i = 0; i < ZL_ARRAY_SIZE(timer_chain); i++) {
		int loaded = !strcmp(timer_chain[i], "direct");

		for (j = 0; !loaded && zl_plugin_table[j].module; j++)
			loaded = zl_plugin_table[j].timer && !strcmp(zl_plugin_table[j].timer, timer_chain[i]) &&
				 strvec_find(&plan->plugins, zl_plugin_table[j].module) >= 0;
		if (after && loaded)
			strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", timer_chain[i]);
		after |= !strcmp(timer_chain[i], plan->timer);
	}
	snprintf(plan->fallback, sizeof(plan->fallback), "%s", sb.len ? sb.buf : "none");
	strbuf_release(&sb);
}

void zl_plan_make(const struct zl_settings *s, struct zl_plan *plan)
{
	const struct zl_backend *b = s->backend;
	const struct zl_plugin_def *p;

	plan->timer = s->timer ? s->timer : "direct";
	plan->noise_target = s->noise_target;
	plan->noise_target_pinned = s->v[ZL_SET_NOISE_TARGET].source == ZL_SRC_FLAG ||
				    s->v[ZL_SET_NOISE_TARGET].source == ZL_SRC_ENV;
	plan->max_time_per_shape_s = s->max_time_per_shape_s;
	plan->clock_source = zl_backend_clock_source(b);
	for (p = zl_plugin_table; p->module; p++) {
		const char *why = NULL;

		if (!zl_backend_has(b, p->requires)) {
			struct strbuf caps = STRBUF_INIT;

			lacking(&caps, b, p->requires);
			strvec_pushf(&plan->reasons, "%s: dropped: backend %s lacks the capability %s", p->module,
				     b ? b->name : "?", caps.buf);
			strbuf_release(&caps);
			continue;
		}
		if (p->wanted && !p->wanted(s, &why)) {
			strvec_pushf(&plan->reasons, "%s: dropped: %s", p->module, why);
			continue;
		}
		strvec_push(&plan->plugins, p->module);
		strvec_pushf(&plan->reasons, "%s: loaded: %s", p->module, p->purpose);
	}
	set_fallback(plan);
}

void zl_plan_release(struct zl_plan *plan)
{
	strvec_clear(&plan->plugins);
	strvec_clear(&plan->reasons);
	plan->timer = plan->clock_source = NULL;
	plan->fallback[0] = '\0';
}

static char *exe_dir(void)
{
	char *exe = zl_self_exe();
	char *slash = strrchr(exe, '/');

	if (!slash || !strcmp(exe, "/proc/self/exe")) {
		free(exe);
		return NULL;
	}
	*slash = '\0';
	return exe;
}

/*
 * Where the plugins are looked for, in order, relative to the binary's directory: a build
 * directory inside the source tree, the install layout (bin/ beside share/), the binary's
 * own directory. The first that holds zl_timer.py wins.
 */
static const struct {
	const char *rel;
	const char *how;
} plugin_places[] = {
	{ "../plugins", "source tree: beside the binary's build directory" },
	{ ZL_INSTALL_PLUGINS_REL, "install layout: " ZL_INSTALL_PLUGINS_REL " from the binary" },
	{ "plugins", "beside the binary" },
};

char *zl_plugins_dir_how(const char **how)
{
	const char *env = zl_env(ZL_ENV_PLUGINS_DIR);
	char *dir, *probe;
	size_t i;

	if (env) {
		*how = "environment: ZL_PLUGINS_DIR";
		return zl_absolute_path(env);
	}
	dir = exe_dir();
	if (dir) {
		for (i = 0; i < sizeof(plugin_places) / sizeof(plugin_places[0]); i++) {
			char *cand = zl_path_join(dir, plugin_places[i].rel);
			int found;

			probe = zl_path_join(cand, "zl_timer.py");
			found = zl_is_file(probe);
			free(probe);
			if (found) {
				char *abs = zl_absolute_path(cand);

				free(cand);
				free(dir);
				*how = plugin_places[i].how;
				return abs;
			}
			free(cand);
		}
		free(dir);
	}
	probe = zl_path_join(ZL_SOURCE_DIR "/plugins", "zl_timer.py");
	*how = zl_is_file(probe) ? "source tree zlbench was built from"
				 : "not found: no zl_timer.py beside the binary, in the install layout or in the source tree it was built from; set ZL_PLUGINS_DIR";
	free(probe);
	return xstrdup(ZL_SOURCE_DIR "/plugins");
}

char *zl_plugins_dir(void)
{
	const char *how;

	return zl_plugins_dir_how(&how);
}
