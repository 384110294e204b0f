/* zlbench plan: the pytest plugin list and timer plan a backend gets. */
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "zlbench/backend.h"
#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/plan.h"
#include "zlbench/settings.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

void help_plan(FILE *out)
{
	const struct zl_plugin_def *p;

	fprintf(out,
		"usage: zlbench plan [--backend B] [--no-cudagraph] [--json]\n\n"
		"Shows the pytest plugins (-p) a run loads on a backend, why each is in or out,\n"
		"and the timer plan (graph where the backend can capture graphs, else direct).\n\n"
		"Plugins:\n");
	for (p = zl_plugin_table; p->module; p++)
		fprintf(out, "  %-18s %s%s\n", p->module, p->purpose,
			p->requires & ZL_CAP_GRAPH_CAPTURE ? " (needs graph capture)" : "");
	fprintf(out,
		"\nOptions:\n"
		"  --backend B       backend or alias [env ZL_BACKEND; default: auto-detect]\n"
		"  --cudagraph, --no-cudagraph   graph timer on/off [env ZL_ENABLE_CUDAGRAPH]\n"
		"  --json            print {backend, timer, plugins: [...], reasons: [...]}\n\n"
		"Environment: ZL_BACKEND and ZL_ENABLE_CUDAGRAPH (as above); without a backend, auto-detection\n"
		"looks for the vendors' query tools on PATH and their device nodes under ZL_DEV_ROOT (default /dev).\n\n"
		"Exit codes: 0 printed, 2 usage error (an unknown backend, or none given and none detected).\n\n"
		"Examples:\n  zlbench plan --backend musa\n  zlbench plan --backend cuda --no-cudagraph --json\n");
}

static int print_json(const char *backend, const struct zl_plan *plan)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *plugins = NULL, *reasons = NULL;
	char *text = NULL;
	size_t i;
	int ok = root && cJSON_AddStringToObject(root, "backend", backend) &&
		 cJSON_AddStringToObject(root, "timer", plan->timer) &&
		 (plugins = cJSON_AddArrayToObject(root, "plugins")) &&
		 (reasons = cJSON_AddArrayToObject(root, "reasons"));

	for (i = 0; ok && i < plan->plugins.nr; i++) {
		cJSON *s = cJSON_CreateString(plan->plugins.v[i]);
		ok = s && cJSON_AddItemToArray(plugins, s);
	}
	for (i = 0; ok && i < plan->reasons.nr; i++) {
		cJSON *s = cJSON_CreateString(plan->reasons.v[i]);
		ok = s && cJSON_AddItemToArray(reasons, s);
	}
	if (ok)
		text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!text) {
		zl_print_error("out of memory");
		return ZL_EXIT_INTERNAL;
	}
	printf("%s\n", text);
	free(text);
	return ZL_EXIT_OK;
}

int cmd_plan(int argc, const char **argv)
{
	int json = 0, code = ZL_EXIT_OK;
	const struct zl_option extra[] = {
		{ .type = ZL_OPT_FLAG, .long_name = "json", .value = &json, .defval = 1, .help = "JSON output" },
		ZL_OPT_END_ROW,
	};
	struct zl_settings s;
	struct zl_plan plan = ZL_PLAN_INIT;
	size_t i;

	zl_settings_init(&s);
	if (zl_settings_setup(&s, argc, argv, extra, help_plan, &code))
		goto out;
	zl_plan_make(&s, &plan);
	if (json) {
		code = print_json(s.backend->name, &plan);
		goto out;
	}
	printf("backend: %s (%s)\ntimer:   %s\nplugins:", s.backend->name,
	       zl_source_name(s.v[ZL_SET_BACKEND].source), plan.timer);
	for (i = 0; i < plan.plugins.nr; i++)
		printf(" -p %s", plan.plugins.v[i]);
	printf("\n");
	for (i = 0; i < plan.reasons.nr; i++)
		printf("  %s\n", plan.reasons.v[i]);
out:
	zl_plan_release(&plan);
	zl_settings_release(&s);
	return code;
}
