/*
 * Declared options (after git's parse-options.h): each command lists its options
 * in a table; one parser serves every command, reads the environment variable a row
 * names, and renders --help from the same rows.
 *
 * Rows are written with designated initializers:
 *     { .type = ZL_OPT_STRING, .long_name = "push", .value = &push, .argh = "URL",
 *       .help = "POST the finished run to a collector", .env = "ZL_PUSH_URL" },
 * Owner: the values a table points at belong to its declarer; zl_options_release()
 * empties them (the strings of a ZL_OPT_STRING value point into argv or the
 * environment and are never freed).
 */
#ifndef ZLBENCH_OPTIONS_H
#define ZLBENCH_OPTIONS_H

#include <stdio.h>
#include "strbuf.h"
#include "strvec.h"

/* Where a value came from: a flag beats the environment, which beats a default. */
enum zl_source { ZL_SRC_UNSET = 0, ZL_SRC_DEFAULT, ZL_SRC_ENV, ZL_SRC_FLAG, ZL_SRC_AUTO };
/* "unset", "default", "env", "flag" or "auto" (as run_identity.json records it). */
const char *zl_source_name(enum zl_source s);

enum zl_opt_type {
	ZL_OPT_END = 0,
	ZL_OPT_GROUP,     /* a heading in --help */
	ZL_OPT_FLAG,      /* int *value = defval (no argument) */
	ZL_OPT_STRING,    /* const char **value = arg */
	ZL_OPT_STRLIST,   /* struct strvec *value gets arg pushed (repeatable) */
	ZL_OPT_CALLBACK,  /* cb(opt, arg, err); arg NULL when takes_arg is 0 */
};

enum zl_opt_flags {
	ZL_OPT_HIDDEN = 1 << 0,   /* accepted, never listed (aliases, internal entry points) */
	ZL_OPT_DOC_ONLY = 1 << 1, /* listed, never parsed: a command's own words for an option another table parses */
	ZL_OPT_FORWARD = 1 << 2,  /* its owner passes it on to the command it starts, as given (zl_options_forward) */
};

/* What an option's value completes to in the shells when it has no choices. */
enum zl_opt_values {
	ZL_VALUES_FILE = 0, /* a file name (the default) */
	ZL_VALUES_DIR,      /* a directory */
	ZL_VALUES_BACKEND,  /* a backend name or alias (the backend table) */
	ZL_VALUES_OP,       /* an operator of the FlagGems checkout on the line */
	ZL_VALUES_OP_LIST,  /* a comma-separated list of them: the name after the last comma */
};

struct zl_option;
typedef int (*zl_opt_cb)(const struct zl_option *opt, const char *arg, struct strbuf *err);

struct zl_option {
	enum zl_opt_type type;
	const char *long_name;   /* without the leading "--"; NULL: an environment variable only */
	char short_name;         /* 0 for none */
	void *value;
	const char *argh;        /* argument name in --help, e.g. "DIR" */
	const char *help;        /* a '\n' starts a line of its own, indented under the first */
	long defval;             /* ZL_OPT_FLAG: value stored; CALLBACK: free for cb use */
	zl_opt_cb cb;
	int takes_arg;           /* ZL_OPT_CALLBACK only */
	/*
	 * ZL_OPT_STRING: an option not given takes this variable's value (an empty one is
	 * unset). Other types: shown in --help only (a callback's owner reads it itself,
	 * as the settings resolver does).
	 */
	const char *env;
	const char *default_doc; /* the default as --help states it, or NULL */
	enum zl_source *source;  /* ZL_OPT_STRING: set to FLAG or ENV when a value is taken (may be NULL) */
	unsigned flags;          /* enum zl_opt_flags */
	/*
	 * The values it takes, space-separated ("worker fresh"), or NULL for any. A ZL_OPT_STRING
	 * row's value (from its flag or its variable) is checked against them by the parser; a
	 * callback row checks its own (the settings resolver does, with zl_option_choice). The
	 * completion scripts offer them.
	 */
	const char *choices;
	/* values also taken but neither offered nor listed (the owner refuses them with its reason) */
	const char *hidden_choices;
	enum zl_opt_values values; /* without choices: what its value completes to */
};

#define ZL_OPT_END_ROW { .type = ZL_OPT_END }

/*
 * Parse argv[0..argc) (argv[0] is the first option, not the command name).
 * Non-option words go to *args; everything after a lone "--" goes to *passthrough
 * (may be NULL: then "--" is an error). Several option tables can be chained:
 * opts is an array of tables terminated by NULL; a name is looked up in table order.
 * After the words, every ZL_OPT_STRING row left unset takes its .env variable. A
 * ZL_OPT_STRING row with choices refuses a value not among them (flag or variable).
 * An unknown option's message suggests the nearest one.
 * Returns 0 ok, 1 when --help/-h was seen (the caller prints help), -1 on error.
 */
int zl_parse_options(int argc, const char **argv, const struct zl_option *const *opts,
		     struct strvec *args, struct strvec *passthrough, struct strbuf *err);

/*
 * The options before the first word that is none (global options before a command):
 * *used gets the number of words they took. Returns 0, 1 for --help, -1 on error.
 */
int zl_parse_options_prefix(int argc, const char **argv, const struct zl_option *const *opts, int *used,
			    struct strbuf *err);

/* Empty every value the tables point at (lists cleared, strings NULL, flags 0, sources unset). */
void zl_options_release(const struct zl_option *const *opts);

/* "--name=value" (a flag "--name") for every ZL_OPT_FORWARD row given a value, in table order. */
void zl_options_forward(const struct zl_option *const *opts, struct strvec *args);

/*
 * 0 when value is one of choices (space-separated), else -1 with "invalid value 'v' for
 * <from>: choose a, b or c" and a "did you mean" when one is close.
 */
int zl_option_choice(const char *choices, const char *value, const char *from, struct strbuf *err);
/* "a, b or c" for choices "a b c", appended to sb. */
void zl_choices_phrase(struct strbuf *sb, const char *choices);
/*
 * For an unknown "--name": "; did you mean '--x'?" from the long names the tables parse
 * and list (nothing when none is close), appended to sb.
 */
void zl_options_suggest(struct strbuf *sb, const struct zl_option *const *opts, const char *name, size_t len);

/* 1 when the option takes a value ("--out DIR"). */
int zl_option_takes_value(const struct zl_option *o);

/*
 * Render the option tables as --help text: a GROUP row is a heading after a blank
 * line, every other row but hidden ones "  -s, --long ARG" then its help in a
 * column, " [env VAR; default: X]" after it.
 */
void zl_options_usage(FILE *out, const struct zl_option *const *opts);
/* One row of it (for a command that lists some rows of a table its own way). */
void zl_option_usage(FILE *out, const struct zl_option *o);

#endif
