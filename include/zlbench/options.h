/*
 * Declared options (after git's parse-options.h): each command lists its options
 * in a table; one parser serves every command and renders --help from the table.
 */
#ifndef ZLBENCH_OPTIONS_H
#define ZLBENCH_OPTIONS_H

#include <stdio.h>
#include "strbuf.h"
#include "strvec.h"

enum zl_opt_type {
	ZL_OPT_END = 0,
	ZL_OPT_GROUP,     /* a heading in --help */
	ZL_OPT_FLAG,      /* int *value = defval (no argument) */
	ZL_OPT_STRING,    /* const char **value = arg */
	ZL_OPT_STRLIST,   /* struct strvec *value gets arg pushed (repeatable) */
	ZL_OPT_CALLBACK,  /* cb(opt, arg, err); arg NULL when takes_arg is 0 */
};

struct zl_option;
typedef int (*zl_opt_cb)(const struct zl_option *opt, const char *arg, struct strbuf *err);

struct zl_option {
	enum zl_opt_type type;
	const char *long_name;   /* without the leading "--" */
	char short_name;         /* 0 for none */
	void *value;
	const char *argh;        /* argument name in --help, e.g. "DIR" */
	const char *help;
	long defval;             /* ZL_OPT_FLAG: value stored; CALLBACK: free for cb use */
	zl_opt_cb cb;
	int takes_arg;           /* ZL_OPT_CALLBACK only */
	const char *env;         /* environment variable shown in --help (documentation only) */
	int hidden;              /* aliases: accepted, not listed */
};

#define ZL_OPT_END_ROW { ZL_OPT_END, NULL, 0, NULL, NULL, NULL, 0, NULL, 0, NULL, 0 }

/*
 * Parse argv[0..argc) (argv[0] is the first option, not the command name).
 * Non-option words go to *args; everything after a lone "--" goes to *passthrough
 * (may be NULL: then "--" is an error). Several option tables can be chained:
 * opts is an array of tables terminated by NULL.
 * Returns 0 ok, 1 when --help/-h was seen (the caller prints help), -1 on error.
 */
int zl_parse_options(int argc, const char **argv, const struct zl_option *const *opts,
		     struct strvec *args, struct strvec *passthrough, struct strbuf *err);

/* Render the option tables as --help text. */
void zl_options_usage(FILE *out, const struct zl_option *const *opts);

#endif
