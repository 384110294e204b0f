#include <string.h>

#include "zlbench/error.h"
#include "zlbench/options.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

static const struct zl_option *find_long(const struct zl_option *const *opts, const char *name,
					 size_t len)
{
	for (; *opts; opts++) {
		const struct zl_option *o;
		for (o = *opts; o->type != ZL_OPT_END; o++)
			if (o->long_name && strlen(o->long_name) == len &&
			    !strncmp(o->long_name, name, len))
				return o;
	}
	return NULL;
}

static const struct zl_option *find_short(const struct zl_option *const *opts, char c)
{
	for (; *opts; opts++) {
		const struct zl_option *o;
		for (o = *opts; o->type != ZL_OPT_END; o++)
			if (o->short_name && o->short_name == c)
				return o;
	}
	return NULL;
}

static int needs_arg(const struct zl_option *o)
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

static int apply(const struct zl_option *o, const char *arg, struct strbuf *err)
{
	switch (o->type) {
	case ZL_OPT_FLAG:
		*(int *)o->value = (int)o->defval;
		return 0;
	case ZL_OPT_STRING:
		*(const char **)o->value = arg;
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

int zl_parse_options(int argc, const char **argv, const struct zl_option *const *opts,
		     struct strvec *args, struct strvec *passthrough, struct strbuf *err)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		const struct zl_option *o;
		const char *value = NULL;

		if (!strcmp(a, "--")) {
			if (!passthrough)
				return zl_error(err, "unexpected '--': this command passes nothing through");
			for (i++; i < argc; i++)
				strvec_push(passthrough, argv[i]);
			break;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h"))
			return 1;
		if (a[0] == '-' && a[1] == '-') {
			const char *name = a + 2;
			const char *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);

			o = find_long(opts, name, len);
			if (!o)
				return zl_error(err, "unknown option '--%.*s' (see --help)", (int)len, name);
			if (eq)
				value = eq + 1;
		} else if (a[0] == '-' && a[1] && !a[2]) {
			o = find_short(opts, a[1]);
			if (!o)
				return zl_error(err, "unknown option '%s' (see --help)", a);
		} else {
			strvec_push(args, a);
			continue;
		}
		if (needs_arg(o)) {
			if (!value) {
				if (i + 1 >= argc)
					return zl_error(err, "option '--%s' needs a value (%s)",
							o->long_name, o->argh ? o->argh : "VALUE");
				value = argv[++i];
			}
		} else if (value) {
			return zl_error(err, "option '--%s' takes no value (got '%s')", o->long_name, value);
		}
		if (apply(o, value, err))
			return -1;
	}
	return 0;
}

void zl_options_usage(FILE *out, const struct zl_option *const *opts)
{
	for (; *opts; opts++) {
		const struct zl_option *o;
		for (o = *opts; o->type != ZL_OPT_END; o++) {
			struct strbuf left = STRBUF_INIT;

			if (o->type == ZL_OPT_GROUP) {
				fprintf(out, "\n%s\n", o->help);
				continue;
			}
			if (o->hidden)
				continue;
			strbuf_addstr(&left, "  ");
			if (o->short_name)
				strbuf_addf(&left, "-%c, ", o->short_name);
			strbuf_addf(&left, "--%s", o->long_name);
			if (needs_arg(o))
				strbuf_addf(&left, " %s", o->argh ? o->argh : "VALUE");
			if (left.len > 30) {
				fprintf(out, "%s\n%32s", left.buf, "");
			} else {
				fprintf(out, "%-32s", left.buf);
			}
			fprintf(out, "%s", o->help ? o->help : "");
			if (o->env)
				fprintf(out, " [env %s]", o->env);
			fputc('\n', out);
			strbuf_release(&left);
		}
	}
}
