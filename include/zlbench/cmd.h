/*
 * Subcommands (after tmux's cmd_entry): each src/cmd/cmd_<name>.c defines one
 * `const struct zl_command zl_cmd_<name>` row holding its options, its documentation
 * and flags; main.c lists the rows. The dispatcher (dispatch.c) does the set-up the
 * flags ask for, parses argv against the row's options (and the run settings), answers
 * --help from the row, and only then calls the command with a struct zl_cmd_ctx.
 * `zlbench help CMD`, the man page and the completion scripts are rendered from the
 * same rows (help.c, man.c, cmd_completion.c).
 */
#ifndef ZLBENCH_CMD_H
#define ZLBENCH_CMD_H

#include <stdio.h>

#include "options.h"
#include "strvec.h"

struct zl_settings;
struct zl_preflight;
struct zl_command;

/* What a command gets from the dispatcher; everything in it is the dispatcher's. */
struct zl_cmd_ctx {
	const struct zl_command *cmd;
	int argc;                    /* the command's words as given: argv[0] is its name */
	const char **argv;
	struct strvec args;          /* the words that are no option (with ZL_CMD_OPERANDS) */
	struct zl_settings *s;       /* ZL_CMD_SETTINGS: parsed (and resolved with ZL_CMD_RESOLVE); else NULL */
	struct zl_preflight *pf;     /* ZL_CMD_PREFLIGHT: bound to s, nothing checked yet; else NULL */
};

/* A command returns an exit code from enum zl_exit. */
typedef int (*zl_cmd_fn)(struct zl_cmd_ctx *ctx);

/* The set-up a command's row asks the dispatcher for, in the order it is done. */
enum zl_cmd_flags {
	ZL_CMD_SETTINGS = 1 << 0,  /* takes the run settings (listed in --help) and "-- <pytest args>" */
	ZL_CMD_OPERANDS = 1 << 1,  /* takes words besides options; without it a word is a usage error */
	ZL_CMD_RESOLVE = 1 << 2,   /* settings resolved first: a bad value is a usage error (exit 2) */
	ZL_CMD_TARGET = 1 << 3,    /* needs --op, --op-file or --test-node (a usage error without) */
	ZL_CMD_PYTEST = 1 << 4,    /* starts pytest or zlbench runs: ZL_KILL_GRACE and the pytest arguments checked */
	ZL_CMD_PREFLIGHT = 1 << 5, /* gets a preflight context for its settings */
	ZL_CMD_HIDDEN = 1 << 6,    /* an internal entry point: not listed, not completed, no page */
};

struct zl_command {
	const char *name;
	/*
	 * A hidden row reached through another command's name: argv[1] selects it
	 * (`zlbench batch --slurm-task`, the spelling generated sbatch scripts use).
	 */
	const char *entry;
	zl_cmd_fn fn;
	unsigned flags;                      /* enum zl_cmd_flags */
	const struct zl_option *options;     /* its own options (its first GROUP row heads them), or NULL */
	unsigned ignored_settings;           /* settings with these ZL_SETF_* flags: accepted, ignored */
	unsigned used_settings;              /* when set: settings without any of these flags are ignored too */
	unsigned refused_settings;           /* settings with these flags: the command sets them, refuses them given */
	/* documentation: `zlbench help` and --help print these, in this order */
	const char *summary;                 /* one line for `zlbench help` */
	const char *usage;                   /* after "usage: zlbench "; further lines as laid out */
	const char *description;             /* prose after the synopsis, ending in a newline */
	void (*describe)(FILE *out);         /* generated lines after the prose (a table's rows), or NULL */
	const char *notes;                   /* after the options: environment, exit codes, examples */
};

/* The rows, in main.c's order (the order of `zlbench help`). */
extern const struct zl_command zl_cmd_run, zl_cmd_batch, zl_cmd_slurm_task, zl_cmd_preflight, zl_cmd_plan,
	zl_cmd_backends, zl_cmd_devices, zl_cmd_history, zl_cmd_compare, zl_cmd_calibrate, zl_cmd_ab,
	zl_cmd_report, zl_cmd_push, zl_cmd_doctor, zl_cmd_completion, zl_cmd_help;

/* main.c's table: every row, NULL-terminated (hidden rows too: callers skip them). */
const struct zl_command *const *zl_commands(void);
/* A listed command by name, or NULL. */
const struct zl_command *zl_command_find(const char *name);
/* "unknown command 'x' (see 'zlbench help')" and the nearest command (or topic, with topics). */
void zl_print_unknown_command(const char *name, int topics);

/* A help topic: `zlbench help <name>` and a section of the man page (topics.c). */
struct zl_help_topic {
	const char *name;          /* "environment" */
	const char *section;       /* the man page's section: "ENVIRONMENT" */
	const char *summary;       /* one line for `zlbench help` */
	void (*print)(FILE *out);  /* its text, laid out as help text is (man.c reads it so) */
};
/* The topics, in the man page's order, ending with a row whose name is NULL. */
const struct zl_help_topic *zl_help_topics(void);
const struct zl_help_topic *zl_help_topic_find(const char *name);

/*
 * The completion script for shell ("bash" or "zsh") on out, rendered from the command rows,
 * their option rows and the backend table (complete.c): 0, or -1 with err for another shell.
 */
int zl_completion_script(FILE *out, const char *shell, struct strbuf *err);

/* Print a command's --help (usage, description, options, settings, notes) to out. */
void zl_print_command_help(const struct zl_command *c, FILE *out);
/* `zlbench --help`: the global options and the listed commands. */
void zl_print_main_usage(FILE *out);
/*
 * The global options before the command (argv[0] is the first word after "zlbench"):
 * the index of the command's name, or -1 with *code when there is nothing to run
 * (--help or --version answered, a usage error printed). The dispatcher parses them
 * after the command too, anywhere before "--".
 */
int zl_global_options(int argc, const char **argv, int *code);
/* The global options' rows (the dispatcher's last table, and the completion scripts'). */
const struct zl_option *zl_global_option_rows(void);
/* 1 after printing what a global option given after the command asked for (--version) instead of it. */
int zl_global_answer(void);

/*
 * Run the command argv[0] names (argv: the words after the global options): the row
 * (or the hidden row argv[1] selects), its set-up, the command. Returns the exit code.
 */
int zl_command_dispatch(int argc, const char **argv);

#endif
