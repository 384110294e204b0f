/* zlbench: the command table and the dispatcher. */
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
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

static int cmd_help(int argc, const char **argv);
static void help_help(FILE *out);

static const struct zl_command commands[] = {
	{ "run", cmd_run, "run one operator's FlagGems benchmark and leave a run directory", help_run },
	{ "batch", cmd_batch, "run many operators over several devices, resumable", help_batch },
	{ "preflight", cmd_preflight, "run every preflight check and print ok/FAILED", help_preflight },
	{ "plan", cmd_plan, "show the pytest plugin list and timer plan for a backend", help_plan },
	{ "backends", cmd_backends, "list the compiled-in backends", help_backends },
	{ "devices", cmd_devices, "enumerate a backend's devices", help_devices },
	{ "history", cmd_history, "list stored runs from the history database", help_history },
	{ "compare", cmd_compare, "compare two runs after checking their caliber", help_compare },
	{ "calibrate", cmd_calibrate, "measure this machine's run-to-run noise: the floor compare uses", help_calibrate },
	{ "ab", cmd_ab, "run A and B interleaved (ABBA), one variable apart, and compare the pairs", help_ab },
	{ "report", cmd_report, "write one self-contained HTML page of a run, batch, comparison or history", help_report },
	{ "push", cmd_push, "POST a run or batch to a collector (spools on failure)", help_push },
	{ "doctor", cmd_doctor, "explain why an operator will not run", help_doctor },
	{ "completion", cmd_completion, "print a bash or zsh completion script", help_completion },
	{ "help", cmd_help, "show help for zlbench or one command", help_help },
	{ NULL, NULL, NULL, NULL }
};

const struct zl_command *zl_commands(void)
{
	return commands;
}

const struct zl_command *zl_command_find(const char *name)
{
	const struct zl_command *c;

	for (c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

void zl_print_command_help(const struct zl_command *c, FILE *out)
{
	c->help(out);
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

static void print_main_usage(FILE *out)
{
	const struct zl_command *c;

	fprintf(out, "usage: zlbench [--version] [--quiet|--verbose] <command> [<options>] [-- <pytest args>]\n\n");
	fprintf(out, "Operator benchmarks of FlagGems on any accelerator vendor, with runs that explain themselves.\n\n");
	fprintf(out, "Global options (before the command):\n"
		"  -q, --quiet      only what is wrong: no run header, summary or warnings\n"
		"  -v, --verbose    more detail where a command has it\n"
		"  -V, --version    zlbench's version, the versions of libyaml, sqlite3, cJSON, libcurl,\n"
		"                   and the plugins directory a run uses (and how it was found)\n\n");
	fprintf(out, "Commands:\n");
	for (c = commands; c->name; c++)
		fprintf(out, "  %-12s %s\n", c->name, c->summary);
	fprintf(out, "\nSee 'zlbench help <command>' or 'zlbench <command> --help'.\n");
}

static void help_help(FILE *out)
{
	fprintf(out, "usage: zlbench help [<command>]\n\n"
		"Shows the list of commands, or one command's help (the same text as\n"
		"'zlbench <command> --help'). The global options (quiet, verbose, version) are\n"
		"listed by 'zlbench --help'.\n\n"
		"Options:\n  --help    this text\n\n"
		"Environment: NO_COLOR turns colour off (colour is used only on a terminal).\n\n"
		"Exit codes: 0 printed, 2 an unknown command.\n\n"
		"Examples:\n  zlbench help run\n  zlbench compare --help\n");
}

static int cmd_help(int argc, const char **argv)
{
	const struct zl_command *c;

	if (argc < 2) {
		print_main_usage(stdout);
		return ZL_EXIT_OK;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		help_help(stdout);
		return ZL_EXIT_OK;
	}
	/* hidden: the build writes zlbench.1 with it, from the texts above */
	if (!strcmp(argv[1], "--man")) {
		struct strbuf err = STRBUF_INIT;

		if (zl_man_render(stdout, print_main_usage, &err)) {
			zl_print_error("%s", err.buf);
			strbuf_release(&err);
			return ZL_EXIT_FAILED;
		}
		return ZL_EXIT_OK;
	}
	c = zl_command_find(argv[1]);
	if (!c) {
		zl_print_error("unknown command '%s' (see 'zlbench help')", argv[1]);
		return ZL_EXIT_USAGE;
	}
	zl_print_command_help(c, stdout);
	return ZL_EXIT_OK;
}

int main(int argc, const char **argv)
{
	const struct zl_command *c;
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
			print_version();
			return ZL_EXIT_OK;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			print_main_usage(stdout);
			return ZL_EXIT_OK;
		} else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) {
			zl_verbosity = -1;
		} else if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v")) {
			zl_verbosity = 1;
		} else {
			zl_print_error("unknown option '%s' (see 'zlbench help')", argv[i]);
			return ZL_EXIT_USAGE;
		}
	}
	if (i >= argc) {
		print_main_usage(stderr);
		return ZL_EXIT_USAGE;
	}
	c = zl_command_find(argv[i]);
	if (!c) {
		zl_print_error("unknown command '%s' (see 'zlbench help')", argv[i]);
		return ZL_EXIT_USAGE;
	}
	return c->fn(argc - i, argv + i);
}
