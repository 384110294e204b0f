/* Subcommands: one cmd_<name>.c each, dispatched from the table in main.c. */
#ifndef ZLBENCH_CMD_H
#define ZLBENCH_CMD_H

#include <stdio.h>

/*
 * A subcommand gets its own arguments (argv[0] is the command name) and returns
 * an exit code from enum zl_exit.
 */
typedef int (*zl_cmd_fn)(int argc, const char **argv);

struct zl_command {
	const char *name;
	zl_cmd_fn fn;
	const char *summary;                 /* one line for `zlbench help` */
	void (*help)(FILE *out);             /* full help: synopsis, options, environment, examples */
};

/* Every command's entry point and help printer. */
#define ZL_DECLARE_COMMAND(name) \
	int cmd_##name(int argc, const char **argv); \
	void help_##name(FILE *out)

ZL_DECLARE_COMMAND(backends);
ZL_DECLARE_COMMAND(devices);
ZL_DECLARE_COMMAND(plan);
ZL_DECLARE_COMMAND(preflight);
ZL_DECLARE_COMMAND(run);
ZL_DECLARE_COMMAND(batch);
ZL_DECLARE_COMMAND(history);
ZL_DECLARE_COMMAND(compare);
ZL_DECLARE_COMMAND(calibrate);
ZL_DECLARE_COMMAND(ab);
ZL_DECLARE_COMMAND(report);
ZL_DECLARE_COMMAND(push);
ZL_DECLARE_COMMAND(doctor);
ZL_DECLARE_COMMAND(completion);

/* Lookup in main.c's table (used by help and completion). */
const struct zl_command *zl_command_find(const char *name);
const struct zl_command *zl_commands(void); /* terminated by name == NULL */

/* Print a command's --help (its help printer) to out. */
void zl_print_command_help(const struct zl_command *c, FILE *out);

#endif
