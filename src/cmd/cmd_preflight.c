/* zlbench preflight: every named check, ok/FAILED each. */
#include <stdio.h>

#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/preflight.h"
#include "zlbench/settings.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

static int opt_json;

static const struct zl_option preflight_options[] = {
	{ .type = ZL_OPT_FLAG, .long_name = "json", .value = &opt_json, .defval = 1,
	  .help = "print {ok, checks: [{name, status, message, hint}]}" },
	ZL_OPT_END_ROW,
};

/* The checks in the order they run, each with its hint. */
static void list_checks(FILE *out)
{
	const struct zl_check *c;

	for (c = zl_checks; c->name; c++)
		fprintf(out, "  %-15s %s\n", c->name, c->hint);
}

static int cmd_preflight(struct zl_cmd_ctx *ctx)
{
	const struct zl_check *failed = NULL;
	struct strbuf msg = STRBUF_INIT;
	int code = ZL_EXIT_OK;
	size_t i;

	if (opt_json) {
		code = zl_preflight_json(ctx->pf, stdout, &failed, &msg);
		/* the stderr contract holds with --json too: batch scripts grep for it */
		if (failed)
			zl_preflight_report_failure(failed->name, msg.buf);
		goto out;
	}
	if (zl_preflight_run(ctx->pf, 1, stdout, &failed, &msg)) {
		zl_preflight_report_failure(failed->name, msg.buf);
		code = ZL_EXIT_PREFLIGHT;
	}
	for (i = 0; i < ctx->pf->warnings.nr; i++)
		zl_print_warning("%s", ctx->pf->warnings.v[i]);
out:
	strbuf_release(&msg);
	return code;
}

const struct zl_command zl_cmd_preflight = {
	.name = "preflight",
	.fn = cmd_preflight,
	/* as in run: no operator at all is a usage error, not a failed check */
	.flags = ZL_CMD_SETTINGS | ZL_CMD_RESOLVE | ZL_CMD_TARGET | ZL_CMD_PREFLIGHT,
	.options = preflight_options,
	.summary = "run every preflight check and print ok/FAILED",
	.usage = "[run options] [--json]",
	.description = "Runs every named preflight check and prints ok/FAILED per check, in order:\n",
	.describe = list_checks,
	.notes =
		"Environment: every run setting above has its variable; also ZL_DEV_ROOT (where device\n"
		"nodes are looked for) and ZL_QUERY_TIMEOUT (seconds a vendor query tool may run).\n\n"
		"Exit codes: 0 every check passed, 3 one failed (the first failure also prints\n"
		"PREFLIGHT_FAILED check=<name> on stderr, with --json too), 2 usage error (an invalid\n"
		"setting or operator name, or no --op, --op-file or --test-node at all, as for run).\n\n"
		"Examples:\n"
		"  zlbench preflight --backend cuda --flaggems-dir ~/FlagGems --op mm\n"
		"  zlbench preflight --backend musa --op mm --json\n",
};
