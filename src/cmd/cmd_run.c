/* zlbench run: one operator's FlagGems benchmark, supervised, in a run directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/child.h"
#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/plan.h"
#include "zlbench/preflight.h"
#include "zlbench/push.h"
#include "zlbench/run.h"
#include "zlbench/settings.h"
#include "zlbench/util.h"
#include "zlbench/worker.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

static int dry_run;
static const char *push_url;
static const char *worker_socket;

static const struct zl_option run_options[] = {
	{ .type = ZL_OPT_FLAG, .long_name = "dry-run", .value = &dry_run, .defval = 1,
	  .help = "print the resolved settings, nodes, plugins, environment and argv; start nothing" },
	{ .type = ZL_OPT_STRING, .long_name = "push", .value = &push_url, .argh = "URL",
	  .help = "POST the finished run to a collector (see zlbench push)", .env = "ZL_PUSH_URL" },
	/* a batch's per-device worker (worker.h) starts `zlbench run` with its socket here */
	{ .type = ZL_OPT_STRING, .value = &worker_socket, .env = ZL_WORKER_SERVE_VAR, .flags = ZL_OPT_HIDDEN },
	ZL_OPT_END_ROW,
};

static void print_dry_run(struct zl_settings *s, struct zl_preflight *pf)
{
	struct zl_run_ctx c;
	struct strvec argv = STRVEC_INIT, env = STRVEC_INIT;
	size_t i;

	zl_run_ctx_init(&c, s, pf);
	/* the caches a run would make: their names are known only then */
	if (s->isolate) {
		c.f.isolated_flaggems_cache = xstrdup("<fresh temporary dir>/flaggems");
		c.f.isolated_triton_cache = xstrdup("<fresh temporary dir>/triton");
	}
	zl_run_build_child(&c, &argv, &env);
	printf("settings:\n");
	zl_settings_print(s, stdout);
	printf("nodes (%s):\n", pf->nodes.how);
	for (i = 0; i < pf->nodes.nodes.nr; i++)
		printf("  %s\n", pf->nodes.nodes.v[i]);
	printf("marker: %s\n", pf->nodes.marker ? pf->nodes.marker : "-");
	printf("devices (%s):\n", pf->devs.how ? pf->devs.how : "not verified");
	for (i = 0; i < s->devices.nr; i++) {
		const struct zl_device *d = NULL;
		long idx;

		if (!zl_parse_long(s->devices.v[i], &idx))
			d = zl_devlist_find(&pf->devs, (int)idx);
		if (d)
			printf("  %d  %s  %s\n", d->index, d->name ? d->name : "?", d->uuid ? d->uuid : "?");
		else
			printf("  %s\n", s->devices.v[i]);
	}
	printf("plugins (timer %s, from %s):\n", c.plan.timer, c.plugins_dir);
	for (i = 0; i < c.plan.reasons.nr; i++)
		printf("  %s\n", c.plan.reasons.v[i]);
	printf("run dir: %s\n", pf->out_dir);
	printf("cwd: %s\n", s->flaggems_dir);
	printf("environment (set NAME=value, remove NAME):\n");
	for (i = 0; i < env.nr; i++)
		printf("  %s%s\n", strchr(env.v[i], '=') ? "" : "unset ", env.v[i]);
	printf("argv:\n");
	for (i = 0; i < argv.nr; i++)
		printf("  %s\n", argv.v[i]);
	for (i = 0; i < pf->warnings.nr; i++)
		zl_print_warning("%s", pf->warnings.v[i]);
	strvec_clear(&argv);
	strvec_clear(&env);
	zl_run_ctx_release(&c);
}

static int cmd_run(struct zl_cmd_ctx *ctx)
{
	const struct zl_check *failed = NULL;
	struct strbuf msg = STRBUF_INIT;
	int code = ZL_EXIT_OK;
	size_t i;

	/* a batch's per-device worker (worker.h): no operator of its own, no run directory */
	if (worker_socket) {
		code = zl_worker_serve(ctx->s, ctx->pf, worker_socket);
		goto out;
	}
	/* a push that would be refused after the run is refused before it */
	if (push_url && zl_push_check_settings(push_url, &msg)) {
		zl_print_error("%s", msg.buf);
		code = ZL_EXIT_USAGE;
		goto out;
	}
	ctx->pf->skip_python = dry_run;
	if (zl_preflight_run(ctx->pf, 0, NULL, &failed, &msg)) {
		/* an invalid operator name or no operator at all is a usage error, not the environment */
		if (ctx->pf->resolve_fail == ZL_RESOLVE_BAD_NAME || ctx->pf->resolve_fail == ZL_RESOLVE_NOTHING) {
			zl_print_error("%s", msg.buf);
			code = ZL_EXIT_USAGE;
			goto out;
		}
		zl_preflight_report_failure(failed->name, msg.buf);
		code = ZL_EXIT_PREFLIGHT;
		goto out;
	}
	if (dry_run) {
		print_dry_run(ctx->s, ctx->pf);
		goto out;
	}
	for (i = 0; i < ctx->pf->warnings.nr; i++)
		zl_print_warning("%s", ctx->pf->warnings.v[i]);
	code = zl_run_execute(ctx->s, ctx->pf, push_url, ctx->argv);
out:
	strbuf_release(&msg);
	return code;
}

const struct zl_command zl_cmd_run = {
	.name = "run",
	.fn = cmd_run,
	.flags = ZL_CMD_SETTINGS | ZL_CMD_RESOLVE | ZL_CMD_TARGET | ZL_CMD_PYTEST | ZL_CMD_PREFLIGHT,
	.options = run_options,
	.summary = "run one operator's FlagGems benchmark and leave a run directory",
	.usage = "[--backend B] (--op OP | --op-file FILE | --test-node NODE) [options] [-- <pytest args>]",
	.description =
		"Runs FlagGems' pytest benchmark for one operator in its own process group and leaves a\n"
		"run directory: run_identity.json, shapes.yaml, pytest.log, results.json, plugins/,\n"
		"autotune_records/. The last line on stdout is RUN_DIR=<path>.\n",
	.notes =
		"Environment: every setting above has its variable; also ZL_PLUGINS_DIR (plugins directory),\n"
		"ZL_KILL_GRACE (seconds between SIGTERM and SIGKILL, default 10), ZL_NO_HISTORY=1 (skip the history DB),\n"
		"ZL_HISTORY_DB (history database instead of $ZL_HOME/history.db),\n"
		"FLAGGEMS_CACHE_DIR and TRITON_CACHE_DIR (the shared caches zlbench inspects).\n\n"
		"Exit codes: 0 passed (also status skipped: every test skipped, e.g. a --dtypes the op does\n"
		"not support, the reason said), 1 benchmark failed, 2 usage, 3 preflight failed (incl.\n"
		"check=vendor, and check=op_resolution: no benchmark file carries the mark --op names),\n"
		"4 pytest usage error, 5 no tests collected, 70 pytest internal error, 124 timeout,\n"
		"128+N child killed by signal N, 130 interrupted.\n\n"
		"Examples:\n"
		"  zlbench run --backend cuda --op mm -- --dtypes float16\n"
		"  zlbench run --backend musa --op mm --isolate-tuner-cache --out runs/A\n"
		"  zlbench run --backend musa --op mm --replay-from runs/A --out runs/B\n",
};
