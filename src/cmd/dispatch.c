/*
 * The dispatcher: from the words after the global options to a command's exit code,
 * doing once the set-up the commands' rows ask for (cmd.h: enum zl_cmd_flags).
 */
#include <string.h>

#include "zlbench/child.h"
#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/preflight.h"
#include "zlbench/run.h"
#include "zlbench/settings.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

const struct zl_command *zl_command_find(const char *name)
{
	const struct zl_command *const *c;

	for (c = zl_commands(); *c; c++)
		if (!(*c)->entry && !((*c)->flags & ZL_CMD_HIDDEN) && !strcmp((*c)->name, name))
			return *c;
	return NULL;
}

void zl_print_unknown_command(const char *name, int topics)
{
	const struct zl_command *const *c;
	const struct zl_help_topic *t;
	struct strvec names = STRVEC_INIT;
	struct strbuf msg = STRBUF_INIT;

	for (c = zl_commands(); *c; c++)
		if (!((*c)->flags & ZL_CMD_HIDDEN))
			strvec_push(&names, (*c)->name);
	for (t = zl_help_topics(); topics && t->name; t++)
		strvec_push(&names, t->name);
	strbuf_addf(&msg, "unknown %s '%s' (see 'zlbench help')", topics ? "command or topic" : "command", name);
	zl_did_you_mean(&msg, "", name, &names);
	zl_print_error("%s", msg.buf);
	strvec_clear(&names);
	strbuf_release(&msg);
}

/* The row for argv: a hidden row that argv[1] selects, else the command argv[0] names. */
static const struct zl_command *lookup(int argc, const char **argv)
{
	const struct zl_command *const *c;

	for (c = zl_commands(); argc > 1 && *c; c++)
		if ((*c)->entry && !strcmp((*c)->name, argv[0]) && !strcmp((*c)->entry, argv[1]))
			return *c;
	return zl_command_find(argv[0]);
}

/* Parse the words and check what the flags ask for: 0, 1 after --help, 2 after --version, -1 with err. */
static int set_up(struct zl_cmd_ctx *ctx, struct strbuf *err)
{
	const struct zl_command *c = ctx->cmd;
	const struct zl_option *tables[4] = { NULL, NULL, NULL, NULL };
	int skip = c->entry ? 2 : 1, n = 0, rc;

	if (c->options)
		tables[n++] = c->options;
	if (ctx->s)
		tables[n++] = zl_settings_options(ctx->s);
	/* -q, -v, -V after the command as before it */
	tables[n++] = zl_global_option_rows();
	rc = zl_parse_options(ctx->argc - skip, ctx->argv + skip, tables, &ctx->args,
			      ctx->s ? &ctx->s->passthrough : NULL, err);
	if (rc)
		return rc;
	if (zl_global_answer())
		return 2;
	if (!(c->flags & ZL_CMD_OPERANDS) && ctx->args.nr)
		return zl_error(err, "unexpected argument '%s' (see 'zlbench %s --help')", ctx->args.v[0], c->name);
	if ((c->flags & ZL_CMD_RESOLVE) && zl_settings_resolve(ctx->s, err))
		return -1;
	/* no operator: refused before any path is checked, with --dry-run too */
	if ((c->flags & ZL_CMD_TARGET) && zl_settings_need_target(ctx->s, err))
		return -1;
	/* each run would refuse them one by one: refused once, before anything starts */
	if ((c->flags & ZL_CMD_PYTEST) && (zl_run_check_passthrough(ctx->s, err) || zl_kill_grace_check(err)))
		return -1;
	return 0;
}

int zl_command_dispatch(int argc, const char **argv)
{
	const struct zl_command *c = lookup(argc, argv);
	struct zl_cmd_ctx ctx;
	struct zl_settings s;
	struct zl_preflight pf;
	struct strbuf err = STRBUF_INIT;
	const struct zl_option *tables[2] = { NULL, NULL };
	int code, rc;

	if (!c) {
		zl_print_unknown_command(argv[0], 0);
		return ZL_EXIT_USAGE;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.cmd = c;
	ctx.argc = argc;
	ctx.argv = argv;
	strvec_init(&ctx.args);
	if (c->flags & (ZL_CMD_SETTINGS | ZL_CMD_PREFLIGHT)) {
		zl_settings_init(&s);
		ctx.s = &s;
	}
	if (c->flags & ZL_CMD_PREFLIGHT) {
		zl_preflight_init(&pf, &s);
		ctx.pf = &pf;
	}
	rc = set_up(&ctx, &err);
	if (rc == 1) {
		zl_print_command_help(c, stdout);
		code = ZL_EXIT_OK;
	} else if (rc == 2) {
		code = ZL_EXIT_OK;
	} else if (rc) {
		zl_print_error("%s", err.buf);
		code = ZL_EXIT_USAGE;
	} else {
		code = c->fn(&ctx);
	}
	if (ctx.pf)
		zl_preflight_release(ctx.pf);
	if (ctx.s)
		zl_settings_release(ctx.s);
	tables[0] = c->options;
	if (c->options)
		zl_options_release(tables);
	strvec_clear(&ctx.args);
	strbuf_release(&err);
	return code;
}
