/* `zlbench ab`'s session: plan, run the rounds, check their caliber, analyse (include/zlbench/ab_session.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "zlbench/ab.h"
#include "zlbench/ab_session.h"
#include "zlbench/batch.h"
#include "zlbench/calibrate.h"
#include "zlbench/child.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/history.h"
#include "zlbench/json.h"
#include "zlbench/redact.h"
#include "zlbench/run.h"
#include "zlbench/runload.h"
#include "zlbench/settings.h"
#include "zlbench/supervise.h"
#include "zlbench/term.h"
#include "zlbench/units.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

/* Caliber fields that differ between any two runs of one set-up (outcomes, not settings). */
static const char *const outcome_fields[] = { "compiled variants", "convert_layout ops" };
/* The caliber labels a named variable explains. */
static const char *const flaggems_fields[] = { "flaggems commit", "flaggems dirty", "flaggems dir" };
static const char *const python_fields[] = { "python", "triton version", "torch version" };

static void push_unique(struct strvec *sv, const char *s)
{
	if (strvec_find(sv, s) < 0)
		strvec_push(sv, s);
}

/* The caliber labels the named variables explain (and the outcomes that always differ). */
static void named_fields(const struct zl_ab_request *o, struct strvec *named)
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
static void plan_runs(struct zl_ab_session *st, const struct zl_settings *s)
{
	size_t k, n = 2 * st->rounds;
	int own_replay = s->autotune_records && !s->replay_from;

	st->runs = xcalloc(n, sizeof(*st->runs));
	for (k = 0; k < n; k++) {
		struct zl_ab_slot *r = &st->runs[k];

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
static void run_child(const struct zl_ab_session *st, const struct zl_settings *s, const char *exe, size_t k,
		      struct child_process *cp)
{
	const struct zl_ab_slot *r = &st->runs[k];
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
	if (st->req->dir[r->arm])
		strvec_pushf(&cp->args, "--flaggems-dir=%s", st->req->dir[r->arm]);
	if (st->req->python[r->arm])
		strvec_pushf(&cp->args, "--python=%s", st->req->python[r->arm]);
	if (s->v[ZL_SET_ISOLATE].source != ZL_SRC_FLAG && s->v[ZL_SET_ISOLATE].source != ZL_SRC_ENV)
		strvec_push(&cp->args, "--isolate-tuner-cache");
	if (r->replay_from)
		strvec_pushf(&cp->args, "--replay-from=%s", r->replay_from);
	strvec_pushf(&cp->args, "--out=%s", r->dir);
	if (s->passthrough.nr) {
		strvec_push(&cp->args, "--");
		strvec_pushv(&cp->args, s->passthrough.v);
	}
	strvec_pushv(&cp->env, st->req->env[r->arm].v);
	if (st->req->db)
		strvec_pushf(&cp->env, "ZL_HISTORY_DB=%s", st->req->db);
}

static cJSON *arm_json(const struct zl_ab_session *st, int arm)
{
	const struct zl_ab_request *o = st->req;
	cJSON *a = cJSON_CreateObject(), *env = cJSON_CreateObject();
	size_t i;
	int bad = !a || !env;

	for (i = 0; !bad && i < o->env[arm].nr; i++) {
		const char *e = o->env[arm].v[i], *eq = strchr(e, '=');
		char *name = xstrndup(e, (size_t)(eq - e)), *shown = zl_redact_env_value(name, eq + 1);

		cJSON_DeleteItemFromObjectCaseSensitive(env, name); /* the last one of a name wins, as in the run */
		bad = zl_json_add_string(env, name, shown);
		free(shown);
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

static cJSON *rounds_json(const struct zl_ab_session *st)
{
	cJSON *arr = cJSON_CreateArray();
	size_t k;

	for (k = 0; arr && k < 2 * st->rounds; k++) {
		const struct zl_ab_slot *r = &st->runs[k];
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
static cJSON *ab_doc(const struct zl_ab_session *st)
{
	cJSON *doc = cJSON_CreateObject(), *vars;
	struct strbuf order = STRBUF_INIT;
	size_t k;
	int bad;

	for (k = 0; k < 2 * st->rounds; k++)
		strbuf_addf(&order, "%s%s", k ? " " : "", st->runs[k].name);
	bad = !doc || zl_json_add_schema(doc, ZL_AB_SCHEMA) || zl_json_add_string(doc, "status", st->status) ||
	      zl_json_add_string(doc, "ab_dir", st->dir) || zl_json_add_string(doc, "op", st->op) ||
	      zl_json_add_number(doc, "rounds_planned", (double)st->rounds) ||
	      zl_json_add_string(doc, "order", order.buf) || zl_json_add_item(doc, "argv", zl_json_strvec(&st->argv)) ||
	      !(vars = cJSON_AddObjectToObject(doc, "variables")) || zl_json_add_item(vars, "a", arm_json(st, 0)) ||
	      zl_json_add_item(vars, "b", arm_json(st, 1)) ||
	      zl_json_add_item(vars, "explained", zl_json_strvec(&st->named)) ||
	      zl_json_add_string(doc, "autotune", st->autotune) || zl_json_add_string(doc, "tuner_cache", st->tuner_cache) ||
	      zl_json_add_item(doc, "rounds", rounds_json(st)) ||
	      zl_json_add_item(doc, "caliber_refusals", zl_json_strvec(&st->refusals)) ||
	      zl_json_add_item(doc, "notes", zl_json_strvec(&st->notes)) || (st->analysed && zl_ab_json(&st->ab, doc));
	strbuf_release(&order);
	if (bad) {
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

static int save(const struct zl_ab_session *st)
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
static void check_import(struct zl_ab_session *st, const struct zl_ab_slot *r)
{
	const char *file = zl_json_path_string(r->run.identity, "vendor_guard.flag_gems_file");
	const char *dir = st->flaggems_dir[r->arm];
	char *real;

	if ((!st->req->dir[0] && !st->req->dir[1]) || !file)
		return;
	real = zl_absolute_path(file);
	if (real && !(zl_starts_with(real, dir) && real[strlen(dir)] == '/'))
		strvec_pushf(&st->refusals, "%s imported flag_gems from '%s', outside its FlagGems directory '%s' "
			     "(an installed flag_gems found before PYTHONPATH?)", r->name, file, dir);
	free(real);
}

static int load_slot(struct zl_ab_slot *r, struct strvec *notes)
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
static void check_caliber(struct zl_ab_session *st, size_t upto)
{
	struct strvec outcomes = STRVEC_INIT, found = STRVEC_INIT;
	size_t i, k;

	for (i = 0; i < ZL_ARRAY_SIZE(outcome_fields); i++)
		strvec_push(&outcomes, outcome_fields[i]);
	strvec_clear(&st->refusals);
	for (k = 0; k < upto; k++) {
		struct zl_ab_slot *r = &st->runs[k], *first = &st->runs[r->arm], *other = NULL;

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

static void print_refusals(const struct zl_ab_session *st)
{
	size_t i;

	for (i = 0; i < st->refusals.nr; i++)
		zl_print_error("caliber: %s", st->refusals.v[i]);
	fprintf(stderr, "hint: only the named variables may differ between A and B (%s); use "
			"--allow-caliber-mismatch to compare anyway\n", st->named.nr > ZL_ARRAY_SIZE(outcome_fields) ?
			"see ab.json's variables.explained" : "none named: an A/A");
}

static const char *status_word(const struct zl_ab_slot *r)
{
	if (r->loaded && r->run.status)
		return r->run.status;
	return zl_batch_status_from_exit(r->exit_code, r->exit_code >= ZL_EXIT_SIGNAL_BASE);
}

/* prefix, word redacted (redact.h: a secret NAME=value is printed NAME=<redacted>), suffix. */
static void print_redacted(FILE *out, const char *prefix, const char *word, const char *suffix)
{
	char *shown = zl_redact_word(word);

	fprintf(out, "%s%s%s", prefix, shown, suffix);
	free(shown);
}

/* Run k; 0, or -1 when it could not start (err). *stop: a stop signal forwarded to it. */
/* The live line while run st->current runs: which, how long, what is left. */
static void refresh_live(void *arg)
{
	struct zl_ab_session *st = arg;
	const struct zl_ab_slot *r = &st->runs[st->current];
	double now = zl_now_monotonic();
	struct strbuf line = STRBUF_INIT;

	if (!st->progress.live || now < st->progress.next_refresh)
		return;
	strbuf_addf(&line, "ab %s [%zu/%zu] %s running ", st->op, st->current + 1, 2 * st->rounds, r->name);
	zl_fmt_duration(&line, now - st->current_t0);
	if (r->replay_from)
		strbuf_addf(&line, ", replaying %s", strrchr(r->replay_from, '/') + 1);
	strbuf_addstr(&line, "  ");
	zl_progress_add_eta(&line, zl_progress_eta(st->done_s, (double)st->current, (double)(2 * st->rounds),
						   now - st->current_t0));
	zl_progress_line(&st->progress, line.buf, 1);
	strbuf_release(&line);
}

static int run_one(struct zl_ab_session *st, const struct zl_settings *s, const char *exe, size_t k, int *stop,
		   struct strbuf *err)
{
	struct zl_ab_slot *r = &st->runs[k];
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
	so.tick = refresh_live;
	so.tick_arg = st;
	st->current = k;
	st->current_t0 = t0;
	if (st->progress.plain)
		fprintf(stderr, "ab: %s (%zu/%zu)%s%s ...\n", r->name, k + 1, 2 * st->rounds,
			r->replay_from ? ", replaying " : "", r->replay_from ? strrchr(r->replay_from, '/') + 1 : "");
	refresh_live(st);
	if (zl_supervise(&cp, &so, &r->exit_code, stop, err)) {
		zl_progress_clear(&st->progress);
		goto out;
	}
	r->wall_s = zl_now_monotonic() - t0;
	st->done_s += r->wall_s;
	load_slot(r, &st->notes);
	zl_progress_clear(&st->progress);
	if (st->progress.plain || st->progress.live)
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

void zl_ab_session_print_plan(const struct zl_ab_session *st, FILE *out)
{
	const struct zl_settings *s = st->s;
	const char *exe = st->exe;
	size_t k, i;

	fprintf(out, "ab dir: %s\n", st->dir);
	fprintf(out, "autotune: %s\n", st->autotune);
	fprintf(out, "tuner cache: %s\n", st->tuner_cache);
	for (k = 0; k < 2 * st->rounds; k++) {
		struct child_process cp = CHILD_PROCESS_INIT;

		run_child(st, s, exe, k, &cp);
		fprintf(out, "%s argv:\n", st->runs[k].name);
		for (i = 0; i < cp.args.nr; i++)
			print_redacted(out, "  ", cp.args.v[i], "\n");
		for (i = 0; i < cp.env.nr; i++)
			print_redacted(out, "  env ", cp.env.v[i], "\n");
		child_release(&cp);
	}
}

/* The set-up: rounds, what each arm changes, autotune, tuner cache, caliber, each run. */
static void print_header(const struct zl_ab_session *st, FILE *out)
{
	size_t k, arm, i;

	fprintf(out, "ab: %s, %zu round%s:", st->op, st->rounds, st->rounds == 1 ? "" : "s");
	for (k = 0; k < 2 * st->rounds; k++)
		fprintf(out, " %s", st->runs[k].name);
	fputc('\n', out);
	for (arm = 0; arm < 2; arm++) {
		fprintf(out, "%c:", arm ? 'B' : 'A');
		for (i = 0; i < st->req->env[arm].nr; i++)
			print_redacted(out, " env ", st->req->env[arm].v[i], "");
		if (st->req->dir[arm])
			fprintf(out, " flaggems-dir %s", st->req->dir[arm]);
		if (st->req->python[arm])
			fprintf(out, " python %s", st->req->python[arm]);
		if (!st->req->env[arm].nr && !st->req->dir[arm] && !st->req->python[arm])
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
		const struct zl_ab_slot *r = &st->runs[k];

		fprintf(out, "  %-4s %-12s %7.1f s  %s%s%s\n", r->name, status_word(r), r->wall_s, r->dir,
			r->note ? ": " : "", r->note ? r->note : "");
	}
	for (i = 0; i < st->notes.nr; i++)
		fprintf(out, "note: %s\n", st->notes.v[i]);
}

/* Pair the rounds, judge, write ab.json. Returns the exit code. */
static int finish(struct zl_ab_session *st)
{
	const struct zl_run **a = xcalloc(st->rounds, sizeof(*a)), **b = xcalloc(st->rounds, sizeof(*b));
	struct zl_compare_opts opts = ZL_COMPARE_OPTS_INIT;
	struct zl_history *h = NULL;
	struct zl_calibration cal;
	struct strbuf note = STRBUF_INIT;
	struct zl_ab *ab = &st->ab;
	size_t k;
	int failed = 0, code;

	zl_calibration_init(&cal);
	for (k = 0; k < 2 * st->rounds; k++) {
		struct zl_ab_slot *r = &st->runs[k];

		(r->arm ? b : a)[r->round - 1] = &r->run;
		failed |= !r->loaded || !r->run.status || strcmp(r->run.status, "passed");
	}
	opts.threshold_pct = st->req->threshold_pct;
	opts.fail_pct = st->req->fail_pct;
	opts.fail_on_unsure = st->req->fail_on_unsure;
	if (st->runs[0].loaded && zl_calibration_lookup(st->req->db, &h, a[0], b[0], &cal, &note))
		opts.calibration = &cal;
	else
		opts.floor_note = note.buf;
	zl_ab_analyse(a, b, st->rounds, &opts, ab);
	st->analysed = 1;
	for (k = 0; k < 2 * st->rounds; k++) {
		const struct zl_ab_slot *r = &st->runs[k];
		char *why;

		if (r->loaded && r->run.status && !strcmp(r->run.status, "passed"))
			continue;
		why = xstrfmt("%s did not pass: %s (exit %d)", r->name, status_word(r), r->exit_code);
		zl_ab_gate_add(ab, why);
		free(why);
	}
	st->status = "done";
	code = ab->gate_failed || failed ? ZL_EXIT_FAILED : ZL_EXIT_OK;
	if (save(st))
		code = ZL_EXIT_FAILED;
	zl_calibration_release(&cal);
	zl_history_close(h);
	strbuf_release(&note);
	free(a);
	free(b);
	return code;
}

/* The ab ends before its verdict: status saved in ab.json (a failed save changes nothing), code returned. */
static int end_as(struct zl_ab_session *st, const char *status, int code)
{
	st->status = status;
	save(st);
	return code;
}

/*
 * Run slot k and check what it tells: ZL_EXIT_OK to go on (*stop set when a signal
 * ended it: the rounds stop there), else the exit code the ab ends with.
 */
static int run_step(struct zl_ab_session *st, const struct zl_settings *s, const char *exe, size_t k, int *stop,
		    struct strbuf *err)
{
	struct zl_ab_slot *r = &st->runs[k];

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
		if (st->refusals.nr && !st->req->allow_mismatch) {
			print_refusals(st);
			return end_as(st, "refused", ZL_EXIT_USAGE);
		}
	}
	return save(st) ? ZL_EXIT_FAILED : ZL_EXIT_OK;
}

/* Run the rounds, then finish. Returns the exit code. */
static int run_ab(struct zl_ab_session *st, const struct zl_settings *s, const char *exe)
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

void zl_ab_session_init(struct zl_ab_session *st)
{
	memset(st, 0, sizeof(*st));
	strvec_init(&st->named);
	strvec_init(&st->refusals);
	strvec_init(&st->notes);
	strvec_init(&st->argv);
	zl_ab_init(&st->ab);
}

void zl_ab_session_release(struct zl_ab_session *st)
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
	zl_ab_release(&st->ab);
	free(st->exe);
	zl_ab_session_init(st);
}

/* The state of a new ab: its directory, each arm's FlagGems and interpreter, the runs. 0, or -1. */
static int plan_ab(struct zl_ab_session *st)
{
	const struct zl_ab_request *req = st->req;
	const struct zl_settings *s = st->s;
	char *dir;
	int arm, i;

	st->op = s->v[ZL_SET_OP].raw;
	st->rounds = req->rounds;
	dir = s->v[ZL_SET_OUT].raw ? xstrdup(s->v[ZL_SET_OUT].raw) : default_dir(s, st->op);
	st->dir = zl_absolute_path(dir);
	free(dir);
	if (!zl_dir_absent_or_empty(st->dir)) {
		zl_print_error("ab directory '%s' exists and is not empty: choose a new --out", st->dir);
		return -1;
	}
	for (i = 0; i < req->argc; i++) {
		char *shown = zl_redact_word(req->argv[i]); /* ab.json's: no secret stored */
		strvec_push(&st->argv, shown);
		free(shown);
	}
	for (arm = 0; arm < 2; arm++) {
		st->flaggems_dir[arm] = req->dir[arm] ? zl_absolute_path(req->dir[arm]) : xstrdup(s->flaggems_dir);
		st->python[arm] = req->python[arm] ? req->python[arm] : s->python;
	}
	named_fields(req, &st->named);
	plan_runs(st, s);
	return 0;
}

int zl_ab_session_run(struct zl_ab_session *st, const struct zl_ab_request *req, const struct zl_settings *s)
{
	struct strbuf err = STRBUF_INIT;
	int code = ZL_EXIT_USAGE, lock_fd = -1;

	st->req = req;
	st->s = s;
	st->exe = zl_self_exe();
	/* --verbose echoes each run's output: a line redrawn in place would cut into it */
	zl_progress_init(&st->progress, zl_verbosity > 0 && req->progress != ZL_PROGRESS_NONE ? ZL_PROGRESS_PLAIN :
					req->progress);
	if (plan_ab(st))
		goto out;
	if (req->dry_run) {
		code = ZL_EXIT_OK;
		goto out;
	}
	/* claimed as a batch directory is: of two commands started with one --out, one writes */
	lock_fd = zl_batch_claim_dir(st->dir, &err);
	if (lock_fd < 0) {
		zl_print_error("%s", err.buf);
		goto out;
	}
	st->claimed = 1;
	if (zl_verbosity >= 0)
		fprintf(stderr, "zlbench ab: %s, %zu round%s (%s), autotune: %s: %s\n", st->op, st->rounds,
			st->rounds == 1 ? "" : "s", "ABBA", st->autotune, st->dir);
	code = run_ab(st, s, st->exe);
out:
	if (lock_fd >= 0)
		close(lock_fd);
	strbuf_release(&err);
	return code;
}

void zl_ab_session_print_text(const struct zl_ab_session *st, const struct zl_view_opts *view, FILE *out)
{
	if (st->analysed)
		zl_ab_print_answer(&st->ab, view, out);
	print_header(st, out);
	if (st->analysed)
		zl_ab_print_details(&st->ab, out);
}

cJSON *zl_ab_session_json(const struct zl_ab_session *st)
{
	return ab_doc(st);
}
