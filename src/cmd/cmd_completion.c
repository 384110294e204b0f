/*
 * zlbench completion: bash and zsh completion scripts, rendered from the rows by complete.c
 * (zl_completion_script). Operator names depend on the FlagGems checkout, so the scripts
 * ask `zlbench completion --list-ops` for them while completing (a hidden option).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/backend.h"
#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/options.h"
#include "zlbench/resolve.h"
#include "zlbench/settings.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

static int want_ops;
static const char *ops_dir;

static const struct zl_option completion_options[] = {
	{ .type = ZL_OPT_FLAG, .long_name = "help", .help = "this text; completion takes no other option",
	  .flags = ZL_OPT_DOC_ONLY },
	/* hidden: the operators of a checkout, one per line, for the scripts */
	{ .type = ZL_OPT_FLAG, .long_name = "list-ops", .value = &want_ops, .defval = 1, .flags = ZL_OPT_HIDDEN },
	{ .type = ZL_OPT_STRING, .long_name = "flaggems-dir", .value = &ops_dir, .argh = "DIR", .env = "FLAGGEMS_DIR",
	  .flags = ZL_OPT_HIDDEN },
	ZL_OPT_END_ROW,
};

static int list_ops(void)
{
	struct strvec ops = STRVEC_INIT;
	size_t i;

	zl_list_ops(ops_dir && *ops_dir ? ops_dir : ".", &ops);
	for (i = 0; i < ops.nr; i++)
		printf("%s\n", ops.v[i]);
	strvec_clear(&ops);
	return ZL_EXIT_OK;
}

static int cmd_completion(struct zl_cmd_ctx *ctx)
{
	struct strbuf err = STRBUF_INIT;

	if (want_ops)
		return list_ops();
	if (ctx->args.nr != 1) {
		zl_print_error("name one shell: zlbench completion bash, or zlbench completion zsh");
		return ZL_EXIT_USAGE;
	}
	if (zl_completion_script(stdout, ctx->args.v[0], &err)) {
		zl_print_error("%s", err.buf);
		strbuf_release(&err);
		return ZL_EXIT_USAGE;
	}
	return ZL_EXIT_OK;
}

const struct zl_command zl_cmd_completion = {
	.name = "completion",
	.fn = cmd_completion,
	.flags = ZL_CMD_OPERANDS,
	.options = completion_options,
	.summary = "print a bash or zsh completion script",
	.usage = "(bash | zsh)",
	.description =
		"Prints a completion script for bash or zsh on stdout. It completes the commands and\n"
		"help's topics, each command's options (as its --help lists them, and the global ones),\n"
		"and each option's value as its row declares it: the values of an option that takes a\n"
		"fixed set (--timer, --level, --shape-mode, batch's --start, --progress, --launcher),\n"
		"backend names (--backend), directories (--flaggems-dir, --out, --replay-from,\n"
		"--resume), and operator names for --op and for each name of --ops and --warmup-ops\n"
		"lists: those of the FlagGems checkout that --flaggems-dir names on the line being\n"
		"completed (else $FLAGGEMS_DIR, else the current directory). Any other value completes\n"
		"file names.\n",
	.notes =
		"Environment: FLAGGEMS_DIR (where --op and batch's --ops look for operators while completing).\n\n"
		"Exit codes: 0 printed, 2 usage error.\n\n"
		"Examples:\n"
		"  source <(zlbench completion bash)\n"
		"  zlbench completion bash > ~/.local/share/bash-completion/completions/zlbench\n"
		"  zlbench completion zsh > \"${fpath[1]}/_zlbench\"   # then: autoload -U compinit && compinit\n",
};
