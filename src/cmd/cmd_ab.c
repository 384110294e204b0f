/*
 * zlbench ab: A and B interleaved in ABBA order for R rounds, one variable apart, each
 * round a normal `zlbench run` child (lib/supervise.h) whose run directory lands in the
 * ab directory, then the rows paired over the rounds and judged (ab.h). docs/ab.md.
 *
 * The ab directory: ab.json (rewritten atomically after every run: the rounds, what
 * differs by design, the autotune set-up, and at the end the rows, geomeans and gate:
 * the format src/report/page_ab.c draws), A1/ B1/ B2/ A2/ ... (run directories), and
 * logs/<name>.log (what each `zlbench run` printed).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "zlbench/ab.h"
#include "zlbench/batch.h"
#include "zlbench/calibrate.h"
#include "zlbench/child.h"
#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/history.h"
#include "zlbench/json.h"
#include "zlbench/run.h"
#include "zlbench/runload.h"
#include "zlbench/settings.h"
#include "zlbench/supervise.h"
#include "zlbench/term.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

#define DEFAULT_ROUNDS 2

/* Caliber fields that differ between any two runs of one set-up (outcomes, not settings). */
static const char *const outcome_fields[] = { "compiled variants", "convert_layout ops" };
/* The caliber fields a named variable explains. */
static const char *const flaggems_fields[] = { "flaggems commit", "flaggems dirty", "flaggems dir" };
static const char *const python_fields[] = { "python", "triton version", "torch version" };

struct ab_opts {
	struct strvec env[2];      /* --a-env, --b-env: NAME=value */
	const char *dir[2];        /* --a-flaggems-dir, --b-flaggems-dir */
	const char *python[2];     /* --a-python, --b-python */
	const char *rounds;
	const char *fail;
	const char *threshold;
	const char *db;
	int fail_on_unsure, allow_mismatch, json, csv, markdown, dry_run;
};

static struct ab_opts ao = { .env = { STRVEC_INIT, STRVEC_INIT } };

static const struct zl_option ab_options[] = {
	{ .type = ZL_OPT_STRLIST, .long_name = "a-env", .value = &ao.env[0], .argh = "NAME=VALUE",
	  .help = "an environment variable for A's runs (repeatable)" },
	{ .type = ZL_OPT_STRLIST, .long_name = "b-env", .value = &ao.env[1], .argh = "NAME=VALUE",
	  .help = "an environment variable for B's runs (repeatable)" },
	{ .type = ZL_OPT_STRING, .long_name = "a-flaggems-dir", .value = &ao.dir[0], .argh = "DIR",
	  .help = "A's FlagGems checkout (two commits of FlagGems)", .values = ZL_VALUES_DIR },
	{ .type = ZL_OPT_STRING, .long_name = "b-flaggems-dir", .value = &ao.dir[1], .argh = "DIR",
	  .help = "B's FlagGems checkout", .values = ZL_VALUES_DIR },
	{ .type = ZL_OPT_STRING, .long_name = "a-python", .value = &ao.python[0], .argh = "PATH",
	  .help = "A's interpreter (two Triton or torch installs)" },
	{ .type = ZL_OPT_STRING, .long_name = "b-python", .value = &ao.python[1], .argh = "PATH",
	  .help = "B's interpreter" },
	{ .type = ZL_OPT_STRING, .long_name = "rounds", .value = &ao.rounds, .argh = "R",
	  .help = "interleaved rounds, 1 to " ZL_STR(ZL_AB_MAX_ROUNDS),
	  .default_doc = ZL_STR(DEFAULT_ROUNDS) " (A1 B1 B2 A2)" },
	/* the settings' own row parses it; what it means to an ab is said here */
	{ .type = ZL_OPT_STRING, .long_name = "out", .argh = "DIR", .flags = ZL_OPT_DOC_ONLY,
	  .help = "ab directory (absent or empty)", .default_doc = "$ZL_RUNS_DIR/<UTC stamp>-<backend>-<op>-ab" },
	{ .type = ZL_OPT_FLAG, .long_name = "json", .value = &ao.json, .defval = 1,
	  .help = "the result as one JSON document" },
	{ .type = ZL_OPT_FLAG, .long_name = "csv", .value = &ao.csv, .defval = 1, .help = "the result as CSV rows" },
	{ .type = ZL_OPT_FLAG, .long_name = "markdown", .value = &ao.markdown, .defval = 1,
	  .help = "the result as Markdown" },
	{ .type = ZL_OPT_STRING, .long_name = "fail-on-regression", .value = &ao.fail, .argh = "PCT",
	  .help = "exit 1 when the gate fails (see 4.)" },
	{ .type = ZL_OPT_FLAG, .long_name = "fail-on-unsure", .value = &ao.fail_on_unsure, .defval = 1,
	  .help = "the gate also fails on unsure gems rows that may be slower" },
	{ .type = ZL_OPT_STRING, .long_name = "threshold", .value = &ao.threshold, .argh = "PCT",
	  .help = "the smallest change that counts; never below the floor" },
	{ .type = ZL_OPT_FLAG, .long_name = "allow-caliber-mismatch", .value = &ao.allow_mismatch, .defval = 1,
	  .help = "go on when something besides the named variables differs" },
	{ .type = ZL_OPT_STRING, .long_name = "db", .value = &ao.db, .argh = "PATH",
	  .help = "history database for the calibration (and the runs)",
	  .default_doc = "$ZL_HISTORY_DB, else $ZL_HOME/history.db" },
	{ .type = ZL_OPT_FLAG, .long_name = "dry-run", .value = &ao.dry_run, .defval = 1,
	  .help = "print the plan: order, each run's argv and environment" },
	ZL_OPT_END_ROW,
};

struct run_slot {
	char name[16];             /* A1, B1, ... */
	int arm;                   /* 0 A, 1 B */
	size_t round;
	char *dir;                 /* absolute */
	char *replay_from;         /* a run of the ab (absolute), or NULL */
	int exit_code;             /* -1: not run */
	double wall_s;
	struct zl_run run;
	int loaded;
	const char *note;          /* why the plan changed for it (static text) */
};

struct ab_state {
	char *dir;
	const char *op;
	size_t rounds;
	struct run_slot *runs;     /* 2 * rounds, in run order */
	const char *status;        /* running, done, interrupted, refused, failed */
	char *autotune;            /* one line */
	char *tuner_cache;         /* one line */
	struct strvec named;       /* caliber labels the named variables explain */
	struct strvec refusals;
	struct strvec notes;
	struct strvec argv;        /* the command line */
	char *flaggems_dir[2];     /* each arm's, absolute (named or the common one) */
	const char *python[2];     /* each arm's interpreter (named or the common one) */
	const struct ab_opts *o;
	const struct zl_ab *ab;    /* the analysis, once there is one */
};

/* "5", "2.5" or "5%": a decimal percentage >= 0. */
static int parse_pct(const char *name, const char *s, double *out)
{
	size_t len = strlen(s), digits;
	char *num = xstrndup(s, len && s[len - 1] == '%' ? len - 1 : len);
	int bad;

	digits = strspn(num, "0123456789.");
	bad = !*num || num[digits] || strchr(num, '.') != strrchr(num, '.') || !strcmp(num, ".") ||
	      zl_parse_double(num, out) || *out < 0;
	free(num);
	if (bad)
		zl_print_error("invalid %s '%s': expected a decimal percentage >= 0 (e.g. 3, 2.5 or 5%%)", name, s);
	return bad ? -1 : 0;
}

/* NAME=VALUE with NAME a shell-style variable name. */
static int check_env(const struct strvec *env, const char *opt)
{
	size_t i;

	for (i = 0; i < env->nr; i++) {
		const char *e = env->v[i], *eq = strchr(e, '=');
		size_t k, n = eq ? (size_t)(eq - e) : 0;
		int ok = n > 0 && !isdigit((unsigned char)e[0]);

		for (k = 0; ok && k < n; k++)
			ok = isalnum((unsigned char)e[k]) || e[k] == '_';
		if (!ok) {
			zl_print_error("invalid value '%s' for %s: expected NAME=VALUE (NAME: letters, digits and '_')", e,
				       opt);
			return -1;
		}
	}
	return 0;
}

static void push_unique(struct strvec *sv, const char *s)
{
	if (strvec_find(sv, s) < 0)
		strvec_push(sv, s);
}

/* The caliber labels the named variables explain (and the outcomes that always differ). */
static void named_fields(const struct ab_opts *o, struct strvec *named)
{
	size_t i, arm;

	for (i = 0; i < ZL_ARRAY_SIZE(outcome_fields); i++)
		push_unique(named, outcome_fields[i]);
	for (arm = 0; arm < 2; arm++)
		for (i = 0; i < o->env[arm].nr; i++) {
			const char *e = o->env[arm].v[i];
			char *label = xstrfmt("env %.*s", (int)(strchr(e, '=') - e), e);

			push_unique(named, label);
			free(label);
		}
	for (i = 0; (o->dir[0] || o->dir[1]) && i < ZL_ARRAY_SIZE(flaggems_fields); i++)
		push_unique(named, flaggems_fields[i]);
	for (i = 0; (o->python[0] || o->python[1]) && i < ZL_ARRAY_SIZE(python_fields); i++)
		push_unique(named, python_fields[i]);
}

static char *default_dir(const struct zl_settings *s, const char *op)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	if (!gmtime_r(&now, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
		snprintf(stamp, sizeof(stamp), "00000000-000000");
	return xstrfmt("%s/%s-%s-%s-ab", s->v[ZL_SET_RUNS_DIR].raw ? s->v[ZL_SET_RUNS_DIR].raw : "runs", stamp,
		       s->backend->name, op);
}

/* Plan the 2R runs: names, directories, replay sources; the autotune and tuner-cache lines. */
static void plan_runs(struct ab_state *st, const struct zl_settings *s)
{
	size_t k, n = 2 * st->rounds;
	int own_replay = s->autotune_records && !s->replay_from;

	st->runs = xcalloc(n, sizeof(*st->runs));
	for (k = 0; k < n; k++) {
		struct run_slot *r = &st->runs[k];

		zl_ab_position(k, &r->arm, &r->round);
		snprintf(r->name, sizeof(r->name), "%c%zu", r->arm ? 'B' : 'A', r->round);
		r->dir = zl_path_join(st->dir, r->name);
		r->exit_code = -1;
		zl_run_init(&r->run);
		if (own_replay && r->round > 1)
			r->replay_from = xstrfmt("%s/%c1", st->dir, r->arm ? 'B' : 'A');
	}
	if (!s->autotune_records)
		st->autotune = xstrfmt("off (%s): FlagGems tunes as it does alone in every run",
				       s->v[ZL_SET_AUTOTUNE_RECORDS].from);
	else if (s->replay_from)
		st->autotune = xstrfmt("every run replays the records of %s (%s)", s->replay_from,
				       s->v[ZL_SET_REPLAY_FROM].from);
	else if (st->rounds == 1)
		st->autotune = xstrdup("each side tunes in its only run (A1, B1)");
	else
		st->autotune = xstrdup("each side tunes once, in its first run (A1, B1), and replays its own records "
				       "after that (A2... replay A1, B2... replay B1)");
	if (s->v[ZL_SET_ISOLATE].source == ZL_SRC_FLAG || s->v[ZL_SET_ISOLATE].source == ZL_SRC_ENV)
		st->tuner_cache = xstrfmt("%s per run (%s)", s->isolate ? "isolated" : "shared",
					  s->v[ZL_SET_ISOLATE].from);
	else
		st->tuner_cache = xstrdup("isolated per run (ab's default: B must not find A's tuner winners)");
}

/* The argv and environment of run k. */
static void run_child(const struct ab_state *st, const struct zl_settings *s, const char *exe, size_t k,
		      struct child_process *cp)
{
	const struct run_slot *r = &st->runs[k];
	size_t i;

	strvec_push(&cp->args, exe);
	strvec_push(&cp->args, "run");
	for (i = 0; i < ZL_SET__COUNT; i++) {
		const struct zl_setting_value *v = &s->v[i];

		if (v->source != ZL_SRC_FLAG || i == ZL_SET_OUT)
			continue;
		if (zl_setting_defs[i].flag_off)
			strvec_push(&cp->args, v->from);
		else
			strvec_pushf(&cp->args, "%s=%s", v->from, v->raw);
	}
	if (st->o->dir[r->arm])
		strvec_pushf(&cp->args, "--flaggems-dir=%s", st->o->dir[r->arm]);
	if (st->o->python[r->arm])
		strvec_pushf(&cp->args, "--python=%s", st->o->python[r->arm]);
	if (s->v[ZL_SET_ISOLATE].source != ZL_SRC_FLAG && s->v[ZL_SET_ISOLATE].source != ZL_SRC_ENV)
		strvec_push(&cp->args, "--isolate-tuner-cache");
	if (r->replay_from)
		strvec_pushf(&cp->args, "--replay-from=%s", r->replay_from);
	strvec_pushf(&cp->args, "--out=%s", r->dir);
	if (s->passthrough.nr) {
		strvec_push(&cp->args, "--");
		strvec_pushv(&cp->args, s->passthrough.v);
	}
	strvec_pushv(&cp->env, st->o->env[r->arm].v);
	if (st->o->db)
		strvec_pushf(&cp->env, "ZL_HISTORY_DB=%s", st->o->db);
}

static cJSON *arm_json(const struct ab_state *st, int arm)
{
	const struct ab_opts *o = st->o;
	cJSON *a = cJSON_CreateObject(), *env = cJSON_CreateObject();
	size_t i;
	int bad = !a || !env;

	for (i = 0; !bad && i < o->env[arm].nr; i++) {
		const char *e = o->env[arm].v[i], *eq = strchr(e, '=');
		char *name = xstrndup(e, (size_t)(eq - e));

		cJSON_DeleteItemFromObjectCaseSensitive(env, name); /* the last one of a name wins, as in the run */
		bad = zl_json_add_string(env, name, eq + 1);
		free(name);
	}
	if (bad) {
		cJSON_Delete(a);
		cJSON_Delete(env);
		return NULL;
	}
	if (zl_json_add_item(a, "env", env) || zl_json_add_string(a, "flaggems_dir", st->flaggems_dir[arm]) ||
	    zl_json_add_bool(a, "flaggems_dir_named", o->dir[arm] != NULL) ||
	    zl_json_add_string(a, "python", st->python[arm]) ||
	    zl_json_add_bool(a, "python_named", o->python[arm] != NULL)) {
		cJSON_Delete(a);
		return NULL;
	}
	return a;
}

static cJSON *rounds_json(const struct ab_state *st)
{
	cJSON *arr = cJSON_CreateArray();
	size_t k;

	for (k = 0; arr && k < 2 * st->rounds; k++) {
		const struct run_slot *r = &st->runs[k];
		cJSON *o = cJSON_CreateObject();
		char *log = xstrfmt("logs/%s.log", r->name);
		const char *status = r->exit_code < 0 ? "pending" : r->loaded && r->run.status ? r->run.status
				     : zl_batch_status_from_exit(r->exit_code, r->exit_code >= ZL_EXIT_SIGNAL_BASE);
		int bad = !o || zl_json_add_string(o, "name", r->name) ||
			  zl_json_add_string(o, "arm", r->arm ? "B" : "A") ||
			  zl_json_add_number(o, "round", (double)r->round) || zl_json_add_string(o, "run_dir", r->name) ||
			  zl_json_add_string(o, "status", status) ||
			  zl_json_add_number(o, "exit_code", r->exit_code >= 0 ? r->exit_code : NAN) ||
			  zl_json_add_string(o, "run_id", r->loaded ? r->run.run_id : NULL) ||
			  zl_json_add_string(o, "replay_from", r->replay_from ? strrchr(r->replay_from, '/') + 1 : NULL) ||
			  zl_json_add_number(o, "wall_s", r->exit_code >= 0 ? r->wall_s : NAN) ||
			  zl_json_add_string(o, "log", log) || zl_json_add_string(o, "note", r->note);

		free(log);
		if (bad)
			cJSON_Delete(o);
		if (bad || zl_json_add_item(arr, NULL, o)) {
			cJSON_Delete(arr);
			arr = NULL;
		}
	}
	return arr;
}

/* ab.json's document: the plan and rounds, and the analysis once there is one. NULL: out of memory. */
static cJSON *ab_doc(const struct ab_state *st)
{
	cJSON *doc = cJSON_CreateObject(), *vars;
	struct strbuf order = STRBUF_INIT;
	size_t k;
	int bad;

	for (k = 0; k < 2 * st->rounds; k++)
		strbuf_addf(&order, "%s%s", k ? " " : "", st->runs[k].name);
	bad = !doc || zl_json_add_string(doc, "schema", ZL_AB_SCHEMA) || zl_json_add_string(doc, "status", st->status) ||
	      zl_json_add_string(doc, "ab_dir", st->dir) || zl_json_add_string(doc, "op", st->op) ||
	      zl_json_add_number(doc, "rounds_planned", (double)st->rounds) ||
	      zl_json_add_string(doc, "order", order.buf) || zl_json_add_item(doc, "argv", zl_json_strvec(&st->argv)) ||
	      !(vars = cJSON_AddObjectToObject(doc, "variables")) || zl_json_add_item(vars, "a", arm_json(st, 0)) ||
	      zl_json_add_item(vars, "b", arm_json(st, 1)) ||
	      zl_json_add_item(vars, "explained", zl_json_strvec(&st->named)) ||
	      zl_json_add_string(doc, "autotune", st->autotune) || zl_json_add_string(doc, "tuner_cache", st->tuner_cache) ||
	      zl_json_add_item(doc, "rounds", rounds_json(st)) ||
	      zl_json_add_item(doc, "caliber_refusals", zl_json_strvec(&st->refusals)) ||
	      zl_json_add_item(doc, "notes", zl_json_strvec(&st->notes)) || (st->ab && zl_ab_json(st->ab, doc));
	strbuf_release(&order);
	if (bad) {
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

static int save(const struct ab_state *st)
{
	cJSON *doc = ab_doc(st);
	char *path = zl_path_join(st->dir, "ab.json");
	struct strbuf err = STRBUF_INIT;
	int ret = 0;

	if (!doc || zl_json_write_atomic(path, doc, &err)) {
		zl_print_error("cannot write '%s': %s", path, doc ? err.buf : "out of memory");
		ret = -1;
	}
	cJSON_Delete(doc);
	free(path);
	strbuf_release(&err);
	return ret;
}

/*
 * A FlagGems imported from outside the named directory of its arm: the run measured
 * another FlagGems than named (an installed flag_gems found before PYTHONPATH).
 */
static void check_import(struct ab_state *st, const struct run_slot *r)
{
	const char *file = zl_json_path_string(r->run.identity, "vendor_guard.flag_gems_file");
	const char *dir = st->flaggems_dir[r->arm];
	char *real;

	if ((!st->o->dir[0] && !st->o->dir[1]) || !file)
		return;
	real = zl_absolute_path(file);
	if (real && !(zl_starts_with(real, dir) && real[strlen(dir)] == '/'))
		strvec_pushf(&st->refusals, "%s imported flag_gems from '%s', outside its FlagGems directory '%s' "
			     "(an installed flag_gems found before PYTHONPATH?)", r->name, file, dir);
	free(real);
}

static int load_slot(struct run_slot *r, struct strvec *notes)
{
	struct strbuf err = STRBUF_INIT;

	if (r->loaded || r->exit_code < 0)
		return r->loaded;
	r->loaded = !zl_run_load(r->dir, &r->run, &err);
	if (!r->loaded) {
		strvec_pushf(notes, "%s: %s", r->name, err.buf);
		zl_run_release(&r->run);
		zl_run_init(&r->run);
	}
	strbuf_release(&err);
	return r->loaded;
}

/* Caliber of the pairs so far (and of each arm against its first run); refusals into st. */
static void check_caliber(struct ab_state *st, size_t upto)
{
	struct strvec outcomes = STRVEC_INIT, found = STRVEC_INIT;
	size_t i, k;

	for (i = 0; i < ZL_ARRAY_SIZE(outcome_fields); i++)
		strvec_push(&outcomes, outcome_fields[i]);
	strvec_clear(&st->refusals);
	for (k = 0; k < upto; k++) {
		struct run_slot *r = &st->runs[k], *first = &st->runs[r->arm], *other = NULL;

		if (!r->loaded)
			continue;
		check_import(st, r);
		/* against its own arm's first run: nothing may differ but outcomes */
		if (r->round > 1 && first->loaded)
			for (zl_ab_caliber(&first->run, &r->run, &outcomes, &found), i = 0; i < found.nr; i++)
				strvec_pushf(&st->refusals, "%s vs %s: %s", first->name, r->name, found.v[i]);
		strvec_clear(&found);
		/* the pair: A_i against B_i */
		for (i = 0; i < upto; i++)
			if (st->runs[i].round == r->round && st->runs[i].arm != r->arm)
				other = &st->runs[i];
		if (r->arm || !other || !other->loaded)
			continue;
		for (zl_ab_caliber(&r->run, &other->run, &st->named, &found), i = 0; i < found.nr; i++)
			strvec_pushf(&st->refusals, "%s vs %s: %s", r->name, other->name, found.v[i]);
		strvec_clear(&found);
	}
	strvec_clear(&outcomes);
}

static void print_refusals(const struct ab_state *st)
{
	size_t i;

	for (i = 0; i < st->refusals.nr; i++)
		zl_print_error("caliber: %s", st->refusals.v[i]);
	fprintf(stderr, "hint: only the named variables may differ between A and B (%s); use "
			"--allow-caliber-mismatch to compare anyway\n", st->named.nr > ZL_ARRAY_SIZE(outcome_fields) ?
			"see ab.json's variables.explained" : "none named: an A/A");
}

static const char *status_word(const struct run_slot *r)
{
	if (r->loaded && r->run.status)
		return r->run.status;
	return zl_batch_status_from_exit(r->exit_code, r->exit_code >= ZL_EXIT_SIGNAL_BASE);
}

/* Run k; 0, or -1 when it could not start (err). *stop: a stop signal forwarded to it. */
static int run_one(struct ab_state *st, const struct zl_settings *s, const char *exe, size_t k, int *stop,
		   struct strbuf *err)
{
	struct run_slot *r = &st->runs[k];
	struct child_process cp = CHILD_PROCESS_INIT;
	struct zl_supervise_opts so;
	char *logs = zl_path_join(st->dir, "logs"), *name = xstrfmt("%s.log", r->name), *log = zl_path_join(logs, name);
	char *records = r->replay_from ? zl_path_join(r->replay_from, "autotune_records") : NULL;
	double t0 = zl_now_monotonic();
	int fd = -1, ret = -1;

	/* the arm's first run left no records (it failed early): this one tunes itself */
	if (records && !zl_is_dir(records)) {
		free(r->replay_from);
		r->replay_from = NULL;
		r->note = "its arm's first run left no autotune records: it tuned itself";
	}
	if (zl_mkdir_p(logs, err))
		goto out;
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
	if (fd < 0) {
		zl_error(err, "cannot open '%s': %s", log, strerror(errno));
		goto out;
	}
	run_child(st, s, exe, k, &cp);
	memset(&so, 0, sizeof(so));
	so.log_fd = fd;
	so.echo_fd = zl_verbosity > 0 ? 2 : -1;
	so.kill_after_s = zl_kill_grace() + 30;
	if (zl_verbosity >= 0)
		fprintf(stderr, "ab: %s (%zu/%zu)%s%s ...\n", r->name, k + 1, 2 * st->rounds,
			r->replay_from ? ", replaying " : "", r->replay_from ? strrchr(r->replay_from, '/') + 1 : "");
	if (zl_supervise(&cp, &so, &r->exit_code, stop, err))
		goto out;
	r->wall_s = zl_now_monotonic() - t0;
	load_slot(r, &st->notes);
	if (zl_verbosity >= 0)
		fprintf(stderr, "ab: %s: %s (exit %d) after %.1f s: %s\n", r->name, status_word(r), r->exit_code,
			r->wall_s, r->dir);
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	child_release(&cp);
	free(logs);
	free(name);
	free(log);
	free(records);
	return ret;
}

static void print_dry_run(const struct ab_state *st, const struct zl_settings *s, const char *exe)
{
	size_t k, i;

	printf("ab dir: %s\n", st->dir);
	printf("autotune: %s\n", st->autotune);
	printf("tuner cache: %s\n", st->tuner_cache);
	for (k = 0; k < 2 * st->rounds; k++) {
		struct child_process cp = CHILD_PROCESS_INIT;

		run_child(st, s, exe, k, &cp);
		printf("%s argv:\n", st->runs[k].name);
		for (i = 0; i < cp.args.nr; i++)
			printf("  %s\n", cp.args.v[i]);
		for (i = 0; i < cp.env.nr; i++)
			printf("  env %s\n", cp.env.v[i]);
		child_release(&cp);
	}
}

static void print_header(const struct ab_state *st, FILE *out)
{
	size_t k, arm, i;

	fprintf(out, "ab: %s, %zu round%s:", st->op, st->rounds, st->rounds == 1 ? "" : "s");
	for (k = 0; k < 2 * st->rounds; k++)
		fprintf(out, " %s", st->runs[k].name);
	fputc('\n', out);
	for (arm = 0; arm < 2; arm++) {
		fprintf(out, "%c:", arm ? 'B' : 'A');
		for (i = 0; i < st->o->env[arm].nr; i++)
			fprintf(out, " env %s", st->o->env[arm].v[i]);
		if (st->o->dir[arm])
			fprintf(out, " flaggems-dir %s", st->o->dir[arm]);
		if (st->o->python[arm])
			fprintf(out, " python %s", st->o->python[arm]);
		if (!st->o->env[arm].nr && !st->o->dir[arm] && !st->o->python[arm])
			fprintf(out, " the common settings");
		fputc('\n', out);
	}
	fprintf(out, "autotune: %s\n", st->autotune);
	fprintf(out, "tuner cache: %s\n", st->tuner_cache);
	if (!st->refusals.nr)
		fprintf(out, "caliber: ok (nothing differs but what the named variables explain)\n");
	else
		fprintf(out, "caliber: %zu difference%s besides the named variables (--allow-caliber-mismatch):\n",
			st->refusals.nr, st->refusals.nr == 1 ? "" : "s");
	for (i = 0; i < st->refusals.nr; i++)
		fprintf(out, "  %s\n", st->refusals.v[i]);
	for (k = 0; k < 2 * st->rounds; k++) {
		const struct run_slot *r = &st->runs[k];

		fprintf(out, "  %-4s %-12s %7.1f s  %s%s%s\n", r->name, status_word(r), r->wall_s, r->dir,
			r->note ? ": " : "", r->note ? r->note : "");
	}
	for (i = 0; i < st->notes.nr; i++)
		fprintf(out, "note: %s\n", st->notes.v[i]);
}

/* The output in the chosen format; 0, or -1 when stdout cannot take it. */
static int render(const struct ab_state *st)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	if (st->o->json) {
		cJSON *doc = ab_doc(st);
		char *text = doc ? cJSON_Print(doc) : NULL;

		if (text)
			strbuf_addf(&sb, "%s\n", text);
		else
			ret = -1;
		cJSON_free(text);
		cJSON_Delete(doc);
	} else if (st->o->csv) {
		zl_ab_render_csv(st->ab, &sb);
	} else if (st->o->markdown) {
		zl_ab_render_markdown(st->ab, &sb);
	} else {
		print_header(st, stdout);
		zl_ab_print_text(st->ab, stdout, zl_use_color(1));
	}
	if (ret || fwrite(sb.buf, 1, sb.len, stdout) != sb.len || fflush(stdout) || ferror(stdout)) {
		zl_print_error("cannot write the result to standard output");
		ret = -1;
	}
	strbuf_release(&sb);
	return ret;
}

/* Pair the rounds, judge, render, write ab.json. Returns the exit code. */
static int finish(struct ab_state *st)
{
	const struct zl_run **a = xcalloc(st->rounds, sizeof(*a)), **b = xcalloc(st->rounds, sizeof(*b));
	struct zl_compare_opts opts = ZL_COMPARE_OPTS_INIT;
	struct zl_history *h = NULL;
	struct zl_calibration cal;
	struct strbuf note = STRBUF_INIT;
	struct zl_ab ab;
	size_t k;
	int failed = 0, code;

	zl_calibration_init(&cal);
	zl_ab_init(&ab);
	for (k = 0; k < 2 * st->rounds; k++) {
		struct run_slot *r = &st->runs[k];

		(r->arm ? b : a)[r->round - 1] = &r->run;
		failed |= !r->loaded || !r->run.status || strcmp(r->run.status, "passed");
	}
	opts.threshold_pct = 0;
	if (st->o->threshold)
		parse_pct("--threshold", st->o->threshold, &opts.threshold_pct);
	if (st->o->fail)
		parse_pct("--fail-on-regression", st->o->fail, &opts.fail_pct);
	opts.fail_on_unsure = st->o->fail_on_unsure;
	if (st->runs[0].loaded && zl_calibration_lookup(st->o->db, &h, a[0], b[0], &cal, &note))
		opts.calibration = &cal;
	else
		opts.floor_note = note.buf;
	zl_ab_analyse(a, b, st->rounds, &opts, &ab);
	for (k = 0; k < 2 * st->rounds; k++) {
		const struct run_slot *r = &st->runs[k];
		char *why;

		if (r->loaded && r->run.status && !strcmp(r->run.status, "passed"))
			continue;
		why = xstrfmt("%s did not pass: %s (exit %d)", r->name, status_word(r), r->exit_code);
		zl_ab_gate_add(&ab, why);
		free(why);
	}
	st->ab = &ab;
	st->status = "done";
	code = render(st) ? ZL_EXIT_FAILED : ab.gate_failed || failed ? ZL_EXIT_FAILED : ZL_EXIT_OK;
	if (save(st))
		code = ZL_EXIT_FAILED;
	st->ab = NULL;
	zl_ab_release(&ab);
	zl_calibration_release(&cal);
	zl_history_close(h);
	strbuf_release(&note);
	free(a);
	free(b);
	return code;
}

/* The ab ends before its verdict: status saved in ab.json (a failed save changes nothing), code returned. */
static int end_as(struct ab_state *st, const char *status, int code)
{
	st->status = status;
	save(st);
	return code;
}

/*
 * Run slot k and check what it tells: ZL_EXIT_OK to go on (*stop set when a signal
 * ended it: the rounds stop there), else the exit code the ab ends with.
 */
static int run_step(struct ab_state *st, const struct zl_settings *s, const char *exe, size_t k, int *stop,
		    struct strbuf *err)
{
	struct run_slot *r = &st->runs[k];

	if (run_one(st, s, exe, k, stop, err)) {
		zl_print_error("%s: %s", r->name, err->buf);
		return end_as(st, "failed", ZL_EXIT_USAGE);
	}
	if (*stop || r->exit_code >= ZL_EXIT_SIGNAL_BASE) {
		*stop = *stop ? *stop : r->exit_code - ZL_EXIT_SIGNAL_BASE;
		return ZL_EXIT_OK;
	}
	/* a run that could not start: the others would fail alike */
	if (r->exit_code == ZL_EXIT_USAGE || r->exit_code == ZL_EXIT_PREFLIGHT) {
		zl_print_error("%s exited %d (see %s/logs/%s.log): the ab stops", r->name, r->exit_code, st->dir,
			       r->name);
		return end_as(st, "failed", r->exit_code);
	}
	/* the first pair shows a set-up difference before the other rounds are spent on it */
	if (k == 1 || k + 1 == 2 * st->rounds) {
		check_caliber(st, k + 1);
		if (st->refusals.nr && !st->o->allow_mismatch) {
			print_refusals(st);
			return end_as(st, "refused", ZL_EXIT_USAGE);
		}
	}
	return save(st) ? ZL_EXIT_FAILED : ZL_EXIT_OK;
}

/* Run the rounds, then finish. Returns the exit code. */
static int run_ab(struct ab_state *st, const struct zl_settings *s, const char *exe)
{
	struct strbuf err = STRBUF_INIT;
	int code = ZL_EXIT_OK, stop = 0;
	size_t k;

	if (zl_signals_install(&err)) {
		zl_print_error("%s", err.buf);
		strbuf_release(&err);
		return ZL_EXIT_USAGE;
	}
	st->status = "running";
	if (save(st)) {
		code = ZL_EXIT_FAILED;
		goto out;
	}
	for (k = 0; k < 2 * st->rounds; k++) {
		stop = zl_supervise_pending_stop();
		if (stop)
			break;
		code = run_step(st, s, exe, k, &stop, &err);
		if (code != ZL_EXIT_OK)
			goto out;
		if (stop)
			break;
	}
	if (stop) {
		zl_print_error("interrupted (signal %d, %s): the run directories and ab.json say what ran", stop,
			       strsignal(stop));
		code = end_as(st, "interrupted", ZL_EXIT_SIGNAL_BASE + stop);
		goto out;
	}
	code = finish(st);
out:
	zl_signals_restore();
	strbuf_release(&err);
	return code;
}

static void state_release(struct ab_state *st)
{
	size_t k;

	for (k = 0; st->runs && k < 2 * st->rounds; k++) {
		free(st->runs[k].dir);
		free(st->runs[k].replay_from);
		zl_run_release(&st->runs[k].run);
	}
	free(st->runs);
	free(st->dir);
	free(st->flaggems_dir[0]);
	free(st->flaggems_dir[1]);
	free(st->autotune);
	free(st->tuner_cache);
	strvec_clear(&st->named);
	strvec_clear(&st->refusals);
	strvec_clear(&st->notes);
	strvec_clear(&st->argv);
}

/* ab's own options, then the settings (resolved here: ab's own mistakes are named first). 0, or -1. */
static int check_options(struct zl_settings *s)
{
	struct strbuf err = STRBUF_INIT;
	long rounds;
	double pct;
	int arm;

	if (ao.json + ao.csv + ao.markdown > 1) {
		zl_print_error("choose one of --json, --csv and --markdown");
		return -1;
	}
	if ((ao.fail && parse_pct("--fail-on-regression", ao.fail, &pct)) ||
	    (ao.threshold && parse_pct("--threshold", ao.threshold, &pct)))
		return -1;
	if (ao.rounds && (zl_parse_long(ao.rounds, &rounds) || rounds < 1 || rounds > ZL_AB_MAX_ROUNDS)) {
		zl_print_error("invalid value '%s' for --rounds: a whole number from 1 to %d", ao.rounds, ZL_AB_MAX_ROUNDS);
		return -1;
	}
	if (check_env(&ao.env[0], "--a-env") || check_env(&ao.env[1], "--b-env"))
		return -1;
	for (arm = 0; arm < 2; arm++)
		if (ao.dir[arm] && !zl_is_dir(ao.dir[arm])) {
			zl_print_error("--%c-flaggems-dir '%s' is not a directory", arm ? 'b' : 'a', ao.dir[arm]);
			return -1;
		}
	if (s->v[ZL_SET_OP].source != ZL_SRC_FLAG) {
		zl_print_error("ab needs the operator: --op OP");
		return -1;
	}
	if (zl_settings_resolve(s, &err)) {
		zl_print_error("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	return 0;
}

/* The state of a new ab: its directory, each arm's FlagGems and interpreter, the runs. 0, or -1. */
static int plan_ab(const struct zl_cmd_ctx *ctx, struct ab_state *st)
{
	const struct zl_settings *s = ctx->s;
	long rounds = DEFAULT_ROUNDS;
	char *dir;
	int arm, i;

	if (ao.rounds)
		zl_parse_long(ao.rounds, &rounds);
	st->op = s->v[ZL_SET_OP].raw;
	st->rounds = (size_t)rounds;
	dir = s->v[ZL_SET_OUT].raw ? xstrdup(s->v[ZL_SET_OUT].raw) : default_dir(s, st->op);
	st->dir = zl_absolute_path(dir);
	free(dir);
	if (!zl_dir_absent_or_empty(st->dir)) {
		zl_print_error("ab directory '%s' exists and is not empty: choose a new --out", st->dir);
		return -1;
	}
	for (i = 0; i < ctx->argc; i++)
		strvec_push(&st->argv, ctx->argv[i]);
	for (arm = 0; arm < 2; arm++) {
		st->flaggems_dir[arm] = ao.dir[arm] ? zl_absolute_path(ao.dir[arm]) : xstrdup(s->flaggems_dir);
		st->python[arm] = ao.python[arm] ? ao.python[arm] : s->python;
	}
	named_fields(&ao, &st->named);
	plan_runs(st, s);
	return 0;
}

static int cmd_ab(struct zl_cmd_ctx *ctx)
{
	struct ab_state st;
	struct strbuf err = STRBUF_INIT;
	char *exe = zl_self_exe();
	int code = ZL_EXIT_USAGE, lock_fd = -1;

	memset(&st, 0, sizeof(st));
	strvec_init(&st.named);
	strvec_init(&st.refusals);
	strvec_init(&st.notes);
	strvec_init(&st.argv);
	st.o = &ao;
	if (check_options(ctx->s) || plan_ab(ctx, &st))
		goto out;
	if (ao.dry_run) {
		print_dry_run(&st, ctx->s, exe);
		code = ZL_EXIT_OK;
		goto out;
	}
	/* claimed as a batch directory is: of two commands started with one --out, one writes */
	lock_fd = zl_batch_claim_dir(st.dir, &err);
	if (lock_fd < 0) {
		zl_print_error("%s", err.buf);
		goto out;
	}
	if (zl_verbosity >= 0)
		fprintf(stderr, "zlbench ab: %s, %zu round%s (%s), autotune: %s: %s\n", st.op, st.rounds,
			st.rounds == 1 ? "" : "s", "ABBA", st.autotune, st.dir);
	code = run_ab(&st, ctx->s, exe);
	if (ao.json || ao.csv || ao.markdown)
		fprintf(stderr, "AB_DIR=%s\n", st.dir);
	else
		printf("AB_DIR=%s\n", st.dir);
	fflush(stdout);
out:
	if (lock_fd >= 0)
		close(lock_fd);
	state_release(&st);
	strbuf_release(&err);
	free(exe);
	return code;
}

const struct zl_command zl_cmd_ab = {
	.name = "ab",
	.fn = cmd_ab,
	.flags = ZL_CMD_SETTINGS | ZL_CMD_PYTEST,
	.options = ab_options,
	.summary = "run A and B interleaved (ABBA), one variable apart, and compare the pairs",
	.usage = "--op OP [--a-env NAME=VALUE]... [--b-env NAME=VALUE]...\n"
		 "                  [--a-flaggems-dir DIR] [--b-flaggems-dir DIR] [--a-python PATH] [--b-python PATH]\n"
		 "                  [--rounds R] [--out DIR] [--json|--csv|--markdown] [--fail-on-regression PCT]\n"
		 "                  [--fail-on-unsure] [--threshold PCT] [--allow-caliber-mismatch] [--db PATH]\n"
		 "                  [run settings] [-- <pytest args>]",
	.description =
		"Runs one operator as A and as B, one variable apart, alternately in ABBA order for R\n"
		"rounds: A1 B1 B2 A2 for R=2, A1 B1 B2 A2 A3 B3 for R=3, A1 B1 B2 A2 A3 B3 B4 A4 for R=4\n"
		"(odd rounds start with A, even rounds with B: a drift linear in time falls on both alike).\n"
		"Each run is a normal `zlbench run` with the run settings given here, in DIR/A1, DIR/B1, ...;\n"
		"A runs get the --a-* values, B runs the --b-* ones (an --a-/--b- option left out: the common\n"
		"setting). Without any, A and B are the same set-up: an A/A measurement of the noise.\n\n"
		"1. Caliber: after A1 and B1, and for every pair at the end, compare's caliber check must find\n"
		"   nothing that differs but what the named variables explain (env NAME for --a/b-env NAME;\n"
		"   FlagGems commit, dirty state and directory for --a/b-flaggems-dir; Python, Triton and\n"
		"   torch versions for --a/b-python); anything else is refused (exit 2) unless\n"
		"   --allow-caliber-mismatch. A FlagGems imported from outside a named directory is refused too.\n"
		"2. Autotune: each side tunes once, in its first run (A1, B1), and replays its own records\n"
		"   after that (--replay-from its first run); every run gets an isolated tuner cache unless\n"
		"   --shared-tuner-cache (or ZL_ISOLATE_TUNER_CACHE) says otherwise, so that B does not find\n"
		"   A's winners. --replay-from RUN replays RUN in every run; --no-autotune-records replays nothing.\n"
		"3. Rows are paired round by round: per row the B/A of each round, their geomean, a 95% CI\n"
		"   and p from the pairs, the pairs' spread pooled with the run-to-run noise compare would\n"
		"   assume for one pair (the floor's, or a calibration's spread: a moderated t with 4 prior\n"
		"   degrees of freedom, so that 2 rounds do not give a 1-degree-of-freedom interval), then\n"
		"   compare's verdicts: same, faster, slower, unsure (docs/ab.md, docs/verdicts.md). The floor\n"
		"   is that of a matching calibration (zlbench calibrate), else the fixed 5%.\n"
		"4. Gate (--fail-on-regression PCT) as compare's: the gems geomean, gems rows called slower by\n"
		"   more than PCT %, (--fail-on-unsure) unsure ones that may be, lost shapes, failed rounds.\n\n"
		"The last line on stdout is AB_DIR=<path>; with --json, --csv or --markdown stdout holds the\n"
		"document alone and AB_DIR=<path> goes to stderr. DIR/ab.json holds the rounds, rows and\n"
		"gate (`zlbench report DIR` draws it); DIR/logs/<run>.log what each run printed.\n",
	.notes =
		"Environment: as for run (ZL_KILL_GRACE, ZL_HISTORY_DB, ZL_HOME, ZL_NO_HISTORY, NO_COLOR).\n\n"
		"Exit codes: 0 every run passed (and the gate, if any, passed), 1 a run failed or the gate\n"
		"failed, 2 usage or a caliber refusal, 3 a run failed preflight (the ab stops there),\n"
		"130 interrupted (128+N for signal N; the run directories and ab.json say what ran).\n\n"
		"Examples:\n"
		"  zlbench ab --backend cuda --op softmax --b-env TRITON_F32_DEFAULT=ieee -- --dtypes float32\n"
		"  zlbench ab --backend cuda --op prod --a-flaggems-dir ~/FlagGems --b-flaggems-dir ~/FlagGems-old --rounds 3\n"
		"  zlbench ab --backend cuda --op abs --markdown --fail-on-regression 3   # A/A: the noise\n",
};
