/* zlbench plan: the pytest plugin list and timer plan a backend gets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "zlbench/backend.h"
#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/json.h"
#include "zlbench/plan.h"
#include "zlbench/schema.h"
#include "zlbench/settings.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

static int opt_json;

static const struct zl_option plan_options[] = {
	{ .type = ZL_OPT_FLAG, .long_name = "json", .value = &opt_json, .defval = 1,
	  .help = "print {backend, timer, fallback, noise_target, max_time_per_shape_s, clock_source,\n"
		  "plugins: [...], reasons: [...]}" },
	ZL_OPT_END_ROW,
};

/* The plugins a plan may load, each with its purpose and the capabilities it needs. */
static void list_plugins(FILE *out)
{
	const struct zl_plugin_def *p;

	for (p = zl_plugin_table; p->module; p++) {
		const struct zl_capability_def *c;

		fprintf(out, "  %-18s %s", p->module, p->purpose);
		for (c = zl_capability_table; c->name; c++)
			if (p->requires & c->bit)
				fprintf(out, " (needs %s)", c->name);
		fputc('\n', out);
	}
}

static int print_json(const char *backend, const struct zl_plan *plan)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *plugins = NULL, *reasons = NULL;
	size_t i;
	int ok = root && !zl_json_add_schema(root, ZL_SCHEMA_PLAN) && cJSON_AddStringToObject(root, "backend", backend) &&
		 cJSON_AddStringToObject(root, "timer", plan->timer) &&
		 cJSON_AddStringToObject(root, "fallback", plan->fallback) &&
		 cJSON_AddNumberToObject(root, "noise_target", plan->noise_target) &&
		 cJSON_AddNumberToObject(root, "max_time_per_shape_s", plan->max_time_per_shape_s) &&
		 cJSON_AddStringToObject(root, "clock_source", plan->clock_source) &&
		 (plugins = cJSON_AddArrayToObject(root, "plugins")) &&
		 (reasons = cJSON_AddArrayToObject(root, "reasons"));

	for (i = 0; ok && i < plan->plugins.nr; i++)
		ok = !zl_json_add_item(plugins, NULL, cJSON_CreateString(plan->plugins.v[i]));
	for (i = 0; ok && i < plan->reasons.nr; i++)
		ok = !zl_json_add_item(reasons, NULL, cJSON_CreateString(plan->reasons.v[i]));
	if (ok)
		ok = !zl_json_fprint(stdout, root, "plan --json");
	cJSON_Delete(root);
	if (!ok) {
		zl_print_error("out of memory");
		return ZL_EXIT_INTERNAL;
	}
	return ZL_EXIT_OK;
}

static int cmd_plan(struct zl_cmd_ctx *ctx)
{
	const struct zl_settings *s = ctx->s;
	struct zl_plan plan = ZL_PLAN_INIT;
	int code = ZL_EXIT_OK;
	size_t i;

	zl_plan_make(s, &plan);
	if (opt_json) {
		code = print_json(s->backend->name, &plan);
		goto out;
	}
	printf("backend: %s (%s)\ntimer:   %s (%s)", s->backend->name,
	       zl_source_name(s->v[ZL_SET_BACKEND].source), plan.timer, zl_source_name(s->v[ZL_SET_TIMER].source));
	if (!strcmp(plan.timer, "profiler"))
		printf(": noise target %g %%, at most %g s of sampling per shape", plan.noise_target * 100,
		       plan.max_time_per_shape_s);
	printf("; fallback per shape: %s\nclock:   %s\nplugins:", plan.fallback, plan.clock_source);
	for (i = 0; i < plan.plugins.nr; i++)
		printf(" -p %s", plan.plugins.v[i]);
	printf("\n");
	for (i = 0; i < plan.reasons.nr; i++)
		printf("  %s\n", plan.reasons.v[i]);
out:
	zl_plan_release(&plan);
	return code;
}

const struct zl_command zl_cmd_plan = {
	.name = "plan",
	.fn = cmd_plan,
	.flags = ZL_CMD_SETTINGS | ZL_CMD_RESOLVE,
	.options = plan_options,
	/* a run's options can be given as they are: the plan depends on a few */
	.used_settings = ZL_SETF_PLAN,
	.summary = "show the pytest plugin list and timer plan for a backend",
	.usage = "[--backend B] [--timer NAME] [--no-cudagraph] [--json]",
	.description =
		"Shows the pytest plugins (-p) a run loads on a backend, why each is in or out, and\n"
		"the timer plan: profiler where torch's profiler gives device kernel timestamps\n"
		"(capability kernel_profiler), else graph where the backend can capture graphs, else\n"
		"direct; the timers a shape falls back to; the profiler timer's noise target and time\n"
		"cap; where the plugins read the SM clock.\n\n"
		"Plugins:\n",
	.describe = list_plugins,
	.notes =
		"Environment: the variables above; without a backend, auto-detection looks for the vendors'\n"
		"query tools on PATH and their device nodes under ZL_DEV_ROOT (default /dev).\n\n"
		"Exit codes: 0 printed, 2 usage error (an unknown backend, or none given and none detected;\n"
		"a timer the backend lacks; a bad noise target or time cap).\n\n"
		"Examples:\n"
		"  zlbench plan --backend musa\n"
		"  zlbench plan --backend cuda --timer graph --json\n"
		"  zlbench plan --backend cuda --noise-target 0.002 --max-time-per-shape 1\n",
};
