#include <stdlib.h>
#include <string.h>

#include "zlbench/env.h"
#include "zlbench/error.h"
#include "zlbench/options.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* The column option descriptions start at; a longer option part puts its description on the next line. */
#define HELP_COLUMN 32

static const char *const source_names[] = { "unset", "default", "env", "flag", "auto" };

const char *zl_source_name(enum zl_source s)
{
	return source_names[s];
}

static int parsed(const struct zl_option *o)
{
	return o->type != ZL_OPT_GROUP && !(o->flags & ZL_OPT_DOC_ONLY) && o->long_name;
}

static const struct zl_option *find_long(const struct zl_option *const *opts, const char *name,
					 size_t len)
{
	for (; *opts; opts++) {
		const struct zl_option *o;
		for (o = *opts; o->type != ZL_OPT_END; o++)
			if (parsed(o) && strlen(o->long_name) == len && !strncmp(o->long_name, name, len))
				return o;
	}
	return NULL;
}

static const struct zl_option *find_short(const struct zl_option *const *opts, char c)
{
	for (; *opts; opts++) {
		const struct zl_option *o;
		for (o = *opts; o->type != ZL_OPT_END; o++)
			if (parsed(o) && o->short_name && o->short_name == c)
				return o;
	}
	return NULL;
}

int zl_option_takes_value(const struct zl_option *o)
{
	switch (o->type) {
	case ZL_OPT_STRING:
	case ZL_OPT_STRLIST:
		return 1;
	case ZL_OPT_CALLBACK:
		return o->takes_arg;
	default:
		return 0;
	}
}

/* 1 when word is one of the space-separated words (NULL: none). */
static int in_words(const char *words, const char *word)
{
	struct strvec sv = STRVEC_INIT;
	int found;

	if (!words)
		return 0;
	strvec_split(&sv, words, ' ');
	found = strvec_find(&sv, word) >= 0;
	strvec_clear(&sv);
	return found;
}

void zl_choices_phrase(struct strbuf *sb, const char *choices)
{
	struct strvec words = STRVEC_INIT;
	size_t i;

	strvec_split(&words, choices, ' ');
	for (i = 0; i < words.nr; i++)
		strbuf_addf(sb, "%s%s", i == 0 ? "" : i + 1 == words.nr ? " or " : ", ", words.v[i]);
	strvec_clear(&words);
}

int zl_option_choice(const char *choices, const char *value, const char *from, struct strbuf *err)
{
	struct strvec words = STRVEC_INIT;
	int found;

	strvec_split(&words, choices, ' ');
	found = strvec_find(&words, value) >= 0;
	if (!found) {
		zl_error(err, "invalid value '%s' for %s: choose ", value, from);
		zl_choices_phrase(err, choices);
		zl_did_you_mean(err, "", value, &words);
	}
	strvec_clear(&words);
	return found ? 0 : -1;
}

void zl_options_suggest(struct strbuf *sb, const struct zl_option *const *opts, const char *name, size_t len)
{
	struct strvec names = STRVEC_INIT;
	char *word = xstrndup(name, len);

	for (; *opts; opts++) {
		const struct zl_option *o;

		for (o = *opts; o->type != ZL_OPT_END; o++)
			if (parsed(o) && !(o->flags & ZL_OPT_HIDDEN))
				strvec_push(&names, o->long_name);
	}
	zl_did_you_mean(sb, "--", word, &names);
	free(word);
	strvec_clear(&names);
}

static int apply(const struct zl_option *o, const char *arg, struct strbuf *err)
{
	switch (o->type) {
	case ZL_OPT_FLAG:
		*(int *)o->value = (int)o->defval;
		return 0;
	case ZL_OPT_STRING:
		*(const char **)o->value = arg;
		if (o->source)
			*o->source = ZL_SRC_FLAG;
		return 0;
	case ZL_OPT_STRLIST:
		strvec_push(o->value, arg);
		return 0;
	case ZL_OPT_CALLBACK:
		return o->cb(o, arg, err);
	default:
		return zl_error(err, "internal error: option '--%s' has no type", o->long_name);
	}
}

/* A row's value against its choices, named as it was given: "--start" or "ZL_START". */
static int check_choice(const struct zl_option *o, const char *v, int from_env, struct strbuf *err)
{
	struct strbuf from = STRBUF_INIT;
	int rc;

	if (from_env || !o->long_name)
		strbuf_addstr(&from, o->env ? o->env : "a variable");
	else
		strbuf_addf(&from, "--%s", o->long_name);
	rc = zl_option_choice(o->choices, v, from.buf, err);
	strbuf_release(&from);
	return rc;
}

/*
 * The environment for the string options no word set (an empty variable is unset), then
 * every string option's value, from a word or a variable, against its choices (after all
 * the words, so that --help anywhere still answers). 0, or -1 with err.
 */
static int take_environment(const struct zl_option *const *opts, struct strbuf *err)
{
	for (; *opts; opts++) {
		const struct zl_option *o;

		for (o = *opts; o->type != ZL_OPT_END; o++) {
			const char *v;
			int from_env = 0;

			if (o->type != ZL_OPT_STRING || (o->flags & ZL_OPT_DOC_ONLY))
				continue;
			if (o->env && !*(const char **)o->value && (v = zl_env_by_name(o->env))) {
				*(const char **)o->value = v;
				if (o->source)
					*o->source = ZL_SRC_ENV;
				from_env = 1;
			}
			v = *(const char **)o->value;
			if (v && o->choices && !in_words(o->hidden_choices, v) && check_choice(o, v, from_env, err))
				return -1;
		}
	}
	return 0;
}

/*
 * The words from *i on; with stop, the first word that is no option ends them.
 * 0, 1 for --help, -1 on error; *i is left at the word that ended them.
 */
static int parse(int argc, const char **argv, const struct zl_option *const *opts, struct strvec *args,
		 struct strvec *passthrough, int stop, int *i, struct strbuf *err)
{
	for (; *i < argc; (*i)++) {
		const char *a = argv[*i];
		const struct zl_option *o;
		const char *value = NULL;

		if (!strcmp(a, "--")) {
			if (!passthrough)
				return zl_error(err, "unexpected '--': this command passes nothing through");
			for ((*i)++; *i < argc; (*i)++)
				strvec_push(passthrough, argv[*i]);
			break;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h"))
			return 1;
		if (a[0] == '-' && a[1] == '-') {
			const char *name = a + 2;
			const char *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);

			o = find_long(opts, name, len);
			if (!o) {
				zl_error(err, "unknown option '--%.*s' (see --help)", (int)len, name);
				zl_options_suggest(err, opts, name, len);
				return -1;
			}
			if (eq)
				value = eq + 1;
		} else if (a[0] == '-' && a[1] && !a[2]) {
			o = find_short(opts, a[1]);
			if (!o)
				return zl_error(err, "unknown option '%s' (see --help)", a);
		} else if (stop) {
			break;
		} else {
			strvec_push(args, a);
			continue;
		}
		if (zl_option_takes_value(o)) {
			if (!value) {
				if (*i + 1 >= argc)
					return zl_error(err, "option '--%s' needs a value (%s)",
							o->long_name, o->argh ? o->argh : "VALUE");
				value = argv[++(*i)];
			}
		} else if (value) {
			return zl_error(err, "option '--%s' takes no value (got '%s')", o->long_name, value);
		}
		if (apply(o, value, err))
			return -1;
	}
	return take_environment(opts, err);
}

int zl_parse_options(int argc, const char **argv, const struct zl_option *const *opts,
		     struct strvec *args, struct strvec *passthrough, struct strbuf *err)
{
	int i = 0;

	return parse(argc, argv, opts, args, passthrough, 0, &i, err);
}

int zl_parse_options_prefix(int argc, const char **argv, const struct zl_option *const *opts, int *used,
			    struct strbuf *err)
{
	*used = 0;
	return parse(argc, argv, opts, NULL, NULL, 1, used, err);
}

void zl_options_release(const struct zl_option *const *opts)
{
	for (; *opts; opts++) {
		const struct zl_option *o;

		for (o = *opts; o->type != ZL_OPT_END; o++) {
			if (!o->value || o->type == ZL_OPT_CALLBACK || (o->flags & ZL_OPT_DOC_ONLY))
				continue;
			if (o->type == ZL_OPT_FLAG)
				*(int *)o->value = 0;
			else if (o->type == ZL_OPT_STRING)
				*(const char **)o->value = NULL;
			else if (o->type == ZL_OPT_STRLIST)
				strvec_clear(o->value);
			if (o->source)
				*o->source = ZL_SRC_UNSET;
		}
	}
}

void zl_options_forward(const struct zl_option *const *opts, struct strvec *args)
{
	for (; *opts; opts++) {
		const struct zl_option *o;
		size_t i;

		for (o = *opts; o->type != ZL_OPT_END; o++) {
			if (!(o->flags & ZL_OPT_FORWARD) || !o->value)
				continue;
			if (o->type == ZL_OPT_FLAG && *(int *)o->value)
				strvec_pushf(args, "--%s", o->long_name);
			else if (o->type == ZL_OPT_STRING && *(const char **)o->value)
				strvec_pushf(args, "--%s=%s", o->long_name, *(const char **)o->value);
			else if (o->type == ZL_OPT_STRLIST)
				for (i = 0; i < ((struct strvec *)o->value)->nr; i++)
					strvec_pushf(args, "--%s=%s", o->long_name, ((struct strvec *)o->value)->v[i]);
		}
	}
}

void zl_option_usage(FILE *out, const struct zl_option *o)
{
	struct strbuf left = STRBUF_INIT;
	const char *help = o->help ? o->help : "", *nl;

	strbuf_addstr(&left, "  ");
	if (o->short_name)
		strbuf_addf(&left, "-%c, ", o->short_name);
	strbuf_addf(&left, "--%s", o->long_name);
	if (zl_option_takes_value(o))
		strbuf_addf(&left, " %s", o->argh ? o->argh : "VALUE");
	if (left.len > HELP_COLUMN - 2)
		fprintf(out, "%s\n%*s", left.buf, HELP_COLUMN, "");
	else
		fprintf(out, "%-*s", HELP_COLUMN, left.buf);
	/* each further line of the help under the first */
	while ((nl = strchr(help, '\n'))) {
		fprintf(out, "%.*s\n%*s", (int)(nl - help), help, HELP_COLUMN, "");
		help = nl + 1;
	}
	fputs(help, out);
	if (o->env || o->default_doc)
		fprintf(out, " [%s%s%s%s%s]", o->env ? "env " : "", o->env ? o->env : "",
			o->env && o->default_doc ? "; " : "", o->default_doc ? "default: " : "",
			o->default_doc ? o->default_doc : "");
	fputc('\n', out);
	strbuf_release(&left);
}

void zl_options_usage(FILE *out, const struct zl_option *const *opts)
{
	for (; *opts; opts++) {
		const struct zl_option *o;

		for (o = *opts; o->type != ZL_OPT_END; o++) {
			if (o->type == ZL_OPT_GROUP)
				fprintf(out, "\n%s\n", o->help);
			else if (!(o->flags & ZL_OPT_HIDDEN) && o->long_name)
				zl_option_usage(out, o);
		}
	}
}
