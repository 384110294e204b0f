/*
 * zlbench --help, `zlbench help [CMD]` and the man page: everything rendered from the
 * command rows (cmd.h) and their option tables, so that no option is documented apart
 * from the row that parses it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <sqlite3.h>
#include <yaml.h>

#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/man.h"
#include "zlbench/plan.h"
#include "zlbench/settings.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

/* Settings a command takes and does nothing with: not listed with the others but named on a line. */
static int ignored(const struct zl_command *c, const struct zl_option *o)
{
	return zl_settings_option_has(o, c->ignored_settings) ||
	       (c->used_settings && !zl_settings_option_has(o, c->used_settings));
}

/* The run settings a command takes: those it refuses left out, those it ignores named on one line. */
static void settings_usage(const struct zl_command *c, FILE *out)
{
	struct zl_settings s;
	const struct zl_option *o;
	int listed = 0;

	zl_settings_init(&s);
	for (o = zl_settings_options(&s); o->type != ZL_OPT_END; o++)
		if (o->type == ZL_OPT_GROUP)
			fprintf(out, "\n%s\n", o->help);
		else if (!(o->flags & ZL_OPT_HIDDEN) && !zl_settings_option_has(o, c->refused_settings) && !ignored(c, o))
			zl_option_usage(out, o);
	for (o = zl_settings_options(&s); o->type != ZL_OPT_END; o++) {
		if (o->type == ZL_OPT_GROUP || (o->flags & ZL_OPT_HIDDEN) || !ignored(c, o))
			continue;
		fprintf(out, "%s --%s", listed++ ? "," : "  Accepted and ignored, so that a run's options can be "
			"given as they are:\n   ", o->long_name);
		if (zl_option_takes_value(o))
			fprintf(out, " %s", o->argh);
	}
	if (listed)
		fputc('\n', out);
	zl_settings_release(&s);
}

void zl_print_command_help(const struct zl_command *c, FILE *out)
{
	const struct zl_option *const tables[] = { c->options, NULL };

	fprintf(out, "usage: zlbench %s%s%s %s\n", c->name, c->entry ? " " : "", c->entry ? c->entry : "",
		c->usage);
	if (c->description)
		fprintf(out, "\n%s", c->description);
	if (c->describe)
		c->describe(out);
	if (c->options) {
		if (c->options->type != ZL_OPT_GROUP)
			fputs("\nOptions:\n", out);
		zl_options_usage(out, tables);
	}
	if (c->flags & ZL_CMD_SETTINGS)
		settings_usage(c, out);
	if (c->notes)
		fprintf(out, "\n%s", c->notes);
}

/*
 * Global options: before the command (main.c) or after it, up to "--" (the dispatcher
 * parses them with the command's own); --help and --version answered here.
 */
static int want_version;

static const struct zl_option global_options[] = {
	{ .type = ZL_OPT_FLAG, .long_name = "quiet", .short_name = 'q', .value = &zl_verbosity, .defval = -1,
	  .help = "only what is wrong: no run header, summary or warnings, and pytest's\n"
		  "output only in the run directory's pytest.log" },
	{ .type = ZL_OPT_FLAG, .long_name = "verbose", .short_name = 'v', .value = &zl_verbosity, .defval = 1,
	  .help = "more detail where a command has it" },
	{ .type = ZL_OPT_FLAG, .long_name = "version", .short_name = 'V', .value = &want_version, .defval = 1,
	  .help = "zlbench's version, the versions of libyaml, sqlite3, cJSON, libcurl,\n"
		  "and the plugins directory a run uses (and how it was found)" },
	ZL_OPT_END_ROW,
};

const struct zl_option *zl_global_option_rows(void)
{
	return global_options;
}

void zl_print_main_usage(FILE *out)
{
	const struct zl_command *const *c;
	const struct zl_help_topic *t;
	const struct zl_option *const tables[] = { global_options, NULL };

	fprintf(out, "usage: zlbench [--version] [--quiet|--verbose] <command> [<options>] [-- <pytest args>]\n\n");
	fprintf(out, "Operator benchmarks of FlagGems on any accelerator vendor, with runs that explain themselves.\n\n");
	fprintf(out, "Global options (before or after the command, up to '--'):\n");
	zl_options_usage(out, tables);
	fprintf(out, "\nCommands:\n");
	for (c = zl_commands(); *c; c++)
		if (!((*c)->flags & ZL_CMD_HIDDEN))
			fprintf(out, "  %-12s %s\n", (*c)->name, (*c)->summary);
	fprintf(out, "\nTopics:\n");
	for (t = zl_help_topics(); t->name; t++)
		fprintf(out, "  %-12s %s\n", t->name, t->summary);
	fprintf(out, "\nSee 'zlbench help <command>', 'zlbench <command> --help' or 'zlbench help <topic>'.\n");
}

static void print_version(void)
{
	curl_version_info_data *cv = curl_version_info(CURLVERSION_NOW);
	const char *how;
	char *plugins = zl_plugins_dir_how(&how);

	printf("zlbench %s\n", ZL_VERSION_STRING);
	printf("libyaml %s\n", yaml_get_version_string());
	printf("sqlite3 %s\n", sqlite3_libversion());
	printf("cjson %s\n", cJSON_Version());
	printf("libcurl %s\n", cv && cv->version ? cv->version : "unknown");
	/* which plugins a run gets, and why those */
	printf("plugins %s (%s)\n", plugins, how);
	free(plugins);
}

int zl_global_answer(void)
{
	if (!want_version)
		return 0;
	print_version();
	want_version = 0;
	return 1;
}

int zl_global_options(int argc, const char **argv, int *code)
{
	const struct zl_option *const tables[] = { global_options, NULL };
	struct strbuf err = STRBUF_INIT;
	int used, rc = zl_parse_options_prefix(argc, argv, tables, &used, &err);

	*code = ZL_EXIT_OK;
	if (rc < 0) {
		zl_print_error("%s", err.buf);
		*code = ZL_EXIT_USAGE;
	} else if (rc || want_version) {
		if (rc)
			zl_print_main_usage(stdout);
		else
			print_version();
	} else if (used == argc) {
		zl_print_main_usage(stderr);
		*code = ZL_EXIT_USAGE;
	}
	strbuf_release(&err);
	return rc || want_version || used == argc ? -1 : used;
}

/* hidden: the build writes zlbench.1 with it, from the texts above */
static int want_man;

static const struct zl_option help_options[] = {
	{ .type = ZL_OPT_FLAG, .long_name = "help", .help = "this text", .flags = ZL_OPT_DOC_ONLY },
	{ .type = ZL_OPT_FLAG, .long_name = "man", .value = &want_man, .defval = 1, .flags = ZL_OPT_HIDDEN },
	ZL_OPT_END_ROW,
};

static int cmd_help(struct zl_cmd_ctx *ctx)
{
	const struct zl_command *c;
	const struct zl_help_topic *t;
	struct strbuf err = STRBUF_INIT;

	if (want_man) {
		if (zl_man_render(stdout, zl_print_main_usage, &err)) {
			zl_print_error("%s", err.buf);
			strbuf_release(&err);
			return ZL_EXIT_FAILED;
		}
		return ZL_EXIT_OK;
	}
	if (!ctx->args.nr) {
		zl_print_main_usage(stdout);
		return ZL_EXIT_OK;
	}
	c = zl_command_find(ctx->args.v[0]);
	t = zl_help_topic_find(ctx->args.v[0]);
	if (t) {
		t->print(stdout);
		return ZL_EXIT_OK;
	}
	if (!c) {
		zl_print_unknown_command(ctx->args.v[0], 1);
		return ZL_EXIT_USAGE;
	}
	zl_print_command_help(c, stdout);
	return ZL_EXIT_OK;
}

const struct zl_command zl_cmd_help = {
	.name = "help",
	.fn = cmd_help,
	.flags = ZL_CMD_OPERANDS,
	.options = help_options,
	.summary = "show help for zlbench, one command or a topic",
	.usage = "[<command> | <topic>]",
	.description =
		"Shows the list of commands and topics, one command's help (the same text as\n"
		"'zlbench <command> --help'), or a topic: environment (every variable zlbench\n"
		"reads or sets), files (where it keeps what), exit-status (what each exit code\n"
		"means). The global options (quiet, verbose, version) are listed by 'zlbench --help'.\n",
	.notes =
		"Environment: NO_COLOR turns colour off (colour is used only on a terminal).\n\n"
		"Exit codes: 0 printed, 2 an unknown command or topic.\n\n"
		"Examples:\n"
		"  zlbench help run\n"
		"  zlbench compare --help\n"
		"  zlbench help environment\n",
};
