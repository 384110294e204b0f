/*
 * The pytest arguments a run is given (after "--", and in PYTEST_ADDOPTS) that would
 * override what zlbench sets for the run: refused before anything starts (run.h).
 */
#include <stdlib.h>
#include <string.h>

#include "zlbench/env.h"
#include "zlbench/error.h"
#include "zlbench/run.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/*
 * Options of FlagGems' benchmark conftest that zlbench sets itself: one more after "--"
 * would win (argparse keeps the last) and run_identity.json would describe another run.
 * pytest disables long-option abbreviations (allow_abbrev=False), so only the exact
 * names, alone or as "--name=value", are theirs.
 */
struct owned_option {
	const char *name;
	const char *what;     /* "would override <what>" */
	const char *instead;  /* the zlbench setting to use */
};

static const struct owned_option owned_options[] = {
	{ "--level", "the run's level", "use --level / BENCH_LEVEL" },
	{ "--mode", "the run's mode (kernel)", "zlbench benchmarks kernel mode only; "
	  "--timer / ZL_TIMER chooses the timer (profiler, graph or direct)" },
	{ "--record", "the run's recording (json)", "zlbench always records json into the run directory" },
	{ "--output", "where results.json goes (the run directory)", "use --out DIR to choose the run directory" },
	{ "--shape_file", "the run's shapes", "use --shape-file / SHAPE_FILE (and --shape-mode / SHAPE_MODE)" },
	{ NULL, NULL, NULL },
};

/* pytest's short options that take no value, so that "-sm OP" is seen as -s -m OP. */
static const char short_flags[] = "xsvqlVh";

/* What to use instead of disabling one of zlbench's plugins with "-p no:<name>". */
static const char *plugin_instead(const char *name)
{
	if (!strcmp(name, "zl_autotune"))
		return "use --no-autotune-records / ZL_AUTOTUNE_RECORDS=0";
	if (!strcmp(name, "zl_graph_timer"))
		return "use --no-cudagraph / ZL_ENABLE_CUDAGRAPH=0";
	if (!strcmp(name, "zl_profiler_timer"))
		return "use --timer graph or --timer direct / ZL_TIMER";
	return "zlbench needs it for a truthful run";
}

static int check_plugin_arg(const char *arg, const char *value, const char *where, struct strbuf *err)
{
	struct strbuf v = STRBUF_INIT;
	int rc = 0;

	/* pytest's consider_preparse() strips the value before it looks for "no:" */
	strbuf_addstr(&v, value);
	strbuf_trim(&v);
	if (zl_starts_with(v.buf, "no:") && zl_starts_with(v.buf + 3, "zl_"))
		rc = zl_error(err, "'%s' %s would disable zlbench's plugin '%s': %s", arg, where, v.buf + 3,
			      plugin_instead(v.buf + 3));
	strbuf_release(&v);
	return rc;
}

/* The pytest arguments in words (where: "after '--'", "in PYTEST_ADDOPTS") that zlbench owns. */
static int check_pytest_words(const struct zl_settings *s, const struct strvec *words, const char *where,
			      struct strbuf *err)
{
	/* resolve.c: -m OP goes with OP unless TEST_NODE wins */
	int marker = s->v[ZL_SET_OP].raw && !s->v[ZL_SET_TEST_NODE].raw;
	int options = 1;  /* argparse: after a lone "--" every word is a path */
	size_t i;

	for (i = 0; i < words->nr; i++) {
		const char *a = words->v[i];
		const char *next = i + 1 < words->nr ? words->v[i + 1] : "";
		const struct owned_option *o;
		const char *c;

		/* -p is read by pytest's own pre-parse, which does not stop at "--" */
		if (!strcmp(a, "-p") && check_plugin_arg("-p", next, where, err))
			return -1;
		if (zl_starts_with(a, "-p") && a[2] && check_plugin_arg(a, a + 2, where, err))
			return -1;
		if (!options)
			continue;
		if (!strcmp(a, "--")) {
			options = 0;
			continue;
		}
		if (zl_starts_with(a, "--")) {
			for (o = owned_options; o->name; o++) {
				size_t n = strlen(o->name);

				if (!strncmp(a, o->name, n) && (!a[n] || a[n] == '='))
					return zl_error(err, "'%s' %s would override %s: %s", o->name, where,
							o->what, o->instead);
			}
			continue;
		}
		if (a[0] != '-' || !marker)
			continue;
		/* a cluster of short options: flags, then at most one that takes a value */
		for (c = a + 1; *c && strchr(short_flags, *c); c++)
			;
		if (*c == 'm')
			return zl_error(err, "'%s' %s would replace the run's '-m %s': narrow the tests "
					"with -k EXPR after '--', or use --test-node / TEST_NODE", a, where,
					s->v[ZL_SET_OP].raw);
	}
	return 0;
}

/*
 * Split text as Python's shlex.split() does (POSIX mode, no comments), which is how
 * pytest reads PYTEST_ADDOPTS. -1 with err on an open quote or a trailing backslash
 * (pytest would stop there too).
 */
static int shlex_split(const char *text, struct strvec *out, struct strbuf *err)
{
	struct strbuf word = STRBUF_INIT;
	const char *p = text;
	int in_word = 0, rc = 0;

	for (; *p; p++) {
		if (strchr(" \t\r\n", *p)) {
			if (in_word)
				strvec_push(out, word.buf);
			strbuf_reset(&word);
			in_word = 0;
			continue;
		}
		in_word = 1;
		if (*p == '\\') {
			if (!p[1]) {
				rc = zl_error(err, "PYTEST_ADDOPTS ends with a lone backslash");
				goto out;
			}
			strbuf_addch(&word, *++p);
		} else if (*p == '\'') {
			const char *end = strchr(p + 1, '\'');

			if (!end) {
				rc = zl_error(err, "PYTEST_ADDOPTS has no closing quotation");
				goto out;
			}
			strbuf_add(&word, p + 1, (size_t)(end - p - 1));
			p = end;
		} else if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
					p++;
				strbuf_addch(&word, *p);
			}
			if (!*p) {
				rc = zl_error(err, "PYTEST_ADDOPTS has no closing quotation");
				goto out;
			}
		} else {
			strbuf_addch(&word, *p);
		}
	}
	if (in_word)
		strvec_push(out, word.buf);
out:
	strbuf_release(&word);
	return rc;
}

int zl_run_check_passthrough(const struct zl_settings *s, struct strbuf *err)
{
	const char *addopts = zl_env(ZL_ENV_PYTEST_ADDOPTS);
	struct strvec words = STRVEC_INIT;
	int rc;

	if (check_pytest_words(s, &s->passthrough, "after '--'", err))
		return -1;
	if (!addopts)
		return 0;
	/* pytest puts these before zlbench's argv: a lone "--" would make zlbench's options paths */
	rc = shlex_split(addopts, &words, err);
	if (!rc && strvec_find(&words, "--") >= 0)
		rc = zl_error(err, "'--' in PYTEST_ADDOPTS would turn zlbench's own pytest options into paths");
	if (!rc)
		rc = check_pytest_words(s, &words, "in PYTEST_ADDOPTS", err);
	strvec_clear(&words);
	return rc;
}
