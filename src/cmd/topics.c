/*
 * The help topics: `zlbench help environment`, `help files` and `help exit-status`, which
 * are also the man page's ENVIRONMENT, FILES and EXIT STATUS sections (man.c). Each is
 * rendered from the table it describes: the environment from the environment table (env.h),
 * the settings' rows (settings.h), the backend rows' visibility variables (backend.h) and
 * the command rows' options that take a variable as their default; the exit status from
 * zl_exit_docs (zlbench.h).
 */
#include <stdio.h>
#include <string.h>

#include "zlbench/backend.h"
#include "zlbench/cmd.h"
#include "zlbench/env.h"
#include "zlbench/settings.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

/* Lines are wrapped at this width; the descriptions start after the longest tag. */
#define TOPIC_WIDTH 80

/*
 * "  TAG   text [more]" with the words wrapped at TOPIC_WIDTH under the first line's (a '\n'
 * in text starts a line); no brackets when more is NULL or "".
 */
static void item(FILE *out, size_t column, const char *tag, const char *text, const char *more)
{
	struct strbuf all = STRBUF_INIT;
	const char *p;
	size_t at = 2 + strlen(tag);

	strbuf_addstr(&all, text);
	if (more && *more)
		strbuf_addf(&all, " [%s]", more);
	fprintf(out, "  %s", tag);
	for (p = all.buf; *p;) {
		size_t len = strcspn(p, " \n");

		if (at < column) {
			fprintf(out, "%*s", (int)(column - at), "");
			at = column;
		} else if (at > column && at + 1 + len > TOPIC_WIDTH) {
			fprintf(out, "\n%*s", (int)column, "");
			at = column;
		} else if (at > column) {
			fputc(' ', out);
			at++;
		}
		fprintf(out, "%.*s", (int)len, p);
		at += len;
		p += len;
		if (*p == '\n')
			at = TOPIC_WIDTH; /* the next word starts a line */
		if (*p)
			p++;
	}
	fputc('\n', out);
	strbuf_release(&all);
}

/* "batch --start" for every listed option row whose default name is (the default_doc of the first). */
static void option_uses(struct strbuf *sb, const char *name, const char **default_doc)
{
	const struct zl_command *const *c;
	const struct zl_option *o;
	size_t n = 0;

	for (c = zl_commands(); *c; c++) {
		if ((*c)->flags & ZL_CMD_HIDDEN)
			continue;
		for (o = (*c)->options; o && o->type != ZL_OPT_END; o++) {
			if (!o->env || strcmp(o->env, name) || !o->long_name || (o->flags & ZL_OPT_HIDDEN))
				continue;
			strbuf_addf(sb, "%s%s --%s", n++ ? ", " : "", (*c)->name, o->long_name);
			if (o->default_doc && !*default_doc)
				*default_doc = o->default_doc;
		}
	}
}

/* Everything env_item needs to say about one variable, and where the lines start. */
static void env_item(FILE *out, size_t column, const char *name, const char *meaning, const char *default_doc)
{
	struct strbuf more = STRBUF_INIT;

	option_uses(&more, name, &default_doc);
	if (default_doc)
		strbuf_addf(&more, "%sdefault: %s", more.len ? "; " : "", default_doc);
	item(out, column, name, meaning, more.buf);
	strbuf_release(&more);
}

/* The tag column: after the longest variable name. */
static size_t env_column(void)
{
	const struct zl_backend *b;
	const char *const *v;
	size_t i, w = 0;

	for (i = 0; i < ZL_ENV__COUNT; i++)
		if (strlen(zl_env_defs[i].name) > w)
			w = strlen(zl_env_defs[i].name);
	for (i = 0; i < ZL_SET__COUNT; i++)
		if (zl_setting_defs[i].env && strlen(zl_setting_defs[i].env) > w)
			w = strlen(zl_setting_defs[i].env);
	for (b = zl_backend_table; b->name; b++) {
		if (strlen(b->visibility_var) > w)
			w = strlen(b->visibility_var);
		for (v = b->extra_visibility_vars; v && *v; v++)
			if (strlen(*v) > w)
				w = strlen(*v);
	}
	return w + 4;
}

static void env_group(FILE *out, size_t column, enum zl_env_group g, const char *heading)
{
	size_t i;

	fprintf(out, "\n%s\n", heading);
	for (i = 0; i < ZL_ENV__COUNT; i++)
		if (zl_env_defs[i].group == g)
			env_item(out, column, zl_env_defs[i].name, zl_env_defs[i].meaning, zl_env_defs[i].default_doc);
}

/* The vendors' visibility variables, from the backend rows. */
static void env_visibility(FILE *out, size_t column)
{
	const struct zl_backend *b;
	const char *const *v;
	struct strvec seen = STRVEC_INIT;
	struct strbuf text = STRBUF_INIT;

	for (b = zl_backend_table; b->name; b++) {
		strbuf_reset(&text);
		strbuf_addf(&text, "the %s devices a run sees: set from --devices", b->name);
		for (v = b->pin_env; v && *v; v++)
			strbuf_addf(&text, "%s%s", v == b->pin_env ? " with " : " and ", *v);
		strbuf_addstr(&text, ", removed from other backends' runs; 'zlbench devices' shows it");
		item(out, column, b->visibility_var, text.buf, NULL);
		strvec_push(&seen, b->visibility_var);
	}
	for (b = zl_backend_table; b->name; b++)
		for (v = b->extra_visibility_vars; v && *v; v++) {
			if (strvec_find(&seen, *v) >= 0)
				continue;
			strbuf_reset(&text);
			strbuf_addf(&text, "honoured by %s too: removed from every run's child", b->name);
			item(out, column, *v, text.buf, NULL);
			strvec_push(&seen, *v);
		}
	strvec_clear(&seen);
	strbuf_release(&text);
}

static void print_environment(FILE *out)
{
	size_t column = env_column(), i;
	struct strbuf more = STRBUF_INIT;

	fprintf(out, "The variables zlbench reads, and those it sets for what it starts. An empty\n"
		     "variable is unset.\n\n"
		     "Run settings (a flag beats its variable; see 'zlbench run --help'):\n");
	for (i = 0; i < ZL_SET__COUNT; i++) {
		const struct zl_setting_def *d = &zl_setting_defs[i];

		if (!d->env)
			continue;
		strbuf_reset(&more);
		if (d->flag)
			strbuf_addf(&more, "--%s", d->flag);
		if (d->default_doc)
			strbuf_addf(&more, "%sdefault: %s", more.len ? "; " : "", d->default_doc);
		item(out, column, d->env, d->help, more.buf);
	}
	strbuf_release(&more);
	env_group(out, column, ZL_ENVG_OWN, "zlbench's own:");
	env_group(out, column, ZL_ENVG_FOREIGN, "Read from elsewhere:");
	env_visibility(out, column);
	env_group(out, column, ZL_ENVG_INTERNAL, "Set by zlbench for the zlbench processes it starts (not yours to set):");
	env_group(out, column, ZL_ENVG_CHILD, "Set for the pytest child (its plugins read them, and the settings' ZL_ ones):");
}

static void print_files(FILE *out)
{
	static const struct {
		const char *path, *what;
	} files[] = {
		{ "$ZL_HOME/", "zlbench's data directory (ZL_HOME; default $XDG_DATA_HOME/zlbench, else "
		  "~/.local/share/zlbench)" },
		{ "$ZL_HOME/history.db", "the history database: runs, their results, calibrations (SQLite; "
		  "ZL_HISTORY_DB or a command's --db names another)" },
		{ "$ZL_HOME/spool/", "push's payloads not yet delivered; 'zlbench push --flush-spool' resends them" },
		{ "$ZL_HOME/cache/", "what a run learnt of an interpreter (pyprobe-*.json), kept while it is unchanged" },
		{ "RUN_DIR/", "a run (run --out; default $ZL_RUNS_DIR/<UTC stamp>-<backend>-<op>): run_identity.json, "
		  "results.json, pytest.log, shapes.yaml, plugins/ (docs/run-directory.md)" },
		{ "BATCH_DIR/", "a batch (batch --out): batch.json, ops_status.csv, schedule.jsonl, runs/<op>/, "
		  "logs/<op>.log, warmup/, workers/, slurm/ (docs/commands/batch.md)" },
		{ "CALIBRATION_DIR/", "a calibration (calibrate --out): calibrate.json, round-<k>/ (each a batch "
		  "directory), records/, logs/ (docs/calibrate.md)" },
		{ "AB_DIR/", "an A/B comparison (ab --out): ab.json, A1/ B1/ ... (run directories), logs/ (docs/ab.md)" },
		{ "~/.flaggems/", "FlagGems' tuner cache (FLAGGEMS_CACHE_DIR), counted by each run" },
		{ "~/.triton/cache/", "Triton's kernel cache (TRITON_CACHE_DIR), counted by each run" },
	};
	size_t i, column = 0;

	for (i = 0; i < ZL_ARRAY_SIZE(files); i++)
		if (strlen(files[i].path) + 4 > column)
			column = strlen(files[i].path) + 4;
	fprintf(out, "What zlbench reads and writes besides the files named on its command line:\n\n");
	for (i = 0; i < ZL_ARRAY_SIZE(files); i++)
		item(out, column, files[i].path, files[i].what, NULL);
}

static void print_exit_status(FILE *out)
{
	const struct zl_exit_doc *e;

	fprintf(out, "Every command exits with one of these; its --help says which of them it uses.\n\n");
	for (e = zl_exit_docs; e->meaning; e++)
		item(out, 9, e->tag, e->meaning, NULL);
}

static const struct zl_help_topic topics[] = {
	{ "exit-status", "EXIT STATUS", "what each exit code means", print_exit_status },
	{ "environment", "ENVIRONMENT", "every environment variable zlbench reads or sets", print_environment },
	{ "files", "FILES", "zlbench's data directory, run, batch, calibration and A/B directories", print_files },
	{ NULL, NULL, NULL, NULL },
};

const struct zl_help_topic *zl_help_topics(void)
{
	return topics;
}

const struct zl_help_topic *zl_help_topic_find(const char *name)
{
	const struct zl_help_topic *t;

	for (t = topics; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}
