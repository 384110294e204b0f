/* `zlbench calibrate`'s session: plan, run the rounds, measure, store (include/zlbench/calibrate_session.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "zlbench/backend.h"
#include "zlbench/batch.h"
#include "zlbench/calibrate.h"
#include "zlbench/calibrate_session.h"
#include "zlbench/child.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/history.h"
#include "zlbench/json.h"
#include "zlbench/run.h"
#include "zlbench/runload.h"
#include "zlbench/schema.h"
#include "zlbench/settings.h"
#include "zlbench/supervise.h"
#include "zlbench/units.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

#define CALIBRATE_FILE "calibrate.json"
#define RESULT_FILE "calibration.json"

static void plan_init(struct zl_calibrate_plan *p)
{
	memset(p, 0, sizeof(*p));
	strvec_init(&p->ops);
	strvec_init(&p->batch_args);
}

static void plan_release(struct zl_calibrate_plan *p)
{
	free(p->dir);
	free(p->device);
	free(p->backend);
	free(p->db);
	strvec_clear(&p->ops);
	strvec_clear(&p->batch_args);
	plan_init(p);
}

static void round_init(struct zl_calibrate_round *r)
{
	memset(r, 0, sizeof(*r));
	r->exit_code = -1;
	strvec_init(&r->failed);
}

/* The device: the one given, else the first the backend enumerates, else 0. */
static int choose_device(const struct zl_settings *s, char **out)
{
	struct zl_devlist dl = ZL_DEVLIST_INIT;

	if (s->devices.nr > 1) {
		zl_print_error("a calibration measures one device; %s '%s' names %zu", s->v[ZL_SET_DEVICES].from,
			       s->v[ZL_SET_DEVICES].raw, s->devices.nr);
		return -1;
	}
	if (s->devices.nr) {
		*out = xstrdup(s->devices.v[0]);
		return 0;
	}
	zl_backend_enumerate(s->backend, &dl);
	*out = dl.available && dl.nr ? xstrfmt("%d", dl.v[0].index) : xstrdup("0");
	zl_devlist_release(&dl);
	return 0;
}

static char *default_dir(const struct zl_settings *s)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	if (!gmtime_r(&now, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
		snprintf(stamp, sizeof(stamp), "00000000-000000");
	return xstrfmt("%s/%s-%s-calibrate", s->v[ZL_SET_RUNS_DIR].raw ? s->v[ZL_SET_RUNS_DIR].raw : "runs", stamp,
		       s->backend->name);
}

/*
 * What every round's batch gets before its --out: the backend, the forwarded settings and
 * batch options, the one device, the ops, the pytest arguments.
 */
static void plan_batch_args(const struct zl_settings *s, const struct zl_calibrate_request *req,
			    struct zl_calibrate_plan *p)
{
	struct strbuf list = STRBUF_INIT;
	size_t i;

	strvec_pushf(&p->batch_args, "--backend=%s", p->backend);
	zl_settings_forward_args(s, &p->batch_args);
	strvec_pushv(&p->batch_args, req->forwarded->v);
	strvec_pushf(&p->batch_args, "--devices=%s", p->device);
	for (i = 0; i < p->ops.nr; i++)
		strbuf_addf(&list, "%s%s", i ? "," : "", p->ops.v[i]);
	strvec_pushf(&p->batch_args, "--ops=%s", list.buf);
	strvec_push(&p->batch_args, "--progress=plain");
	if (s->passthrough.nr) {
		strvec_push(&p->batch_args, "--");
		strvec_pushv(&p->batch_args, s->passthrough.v);
	}
	strbuf_release(&list);
}

/* A new calibration's plan from the request and the resolved settings. 0, or the exit code after a message. */
static int plan_new(const struct zl_calibrate_request *o, const struct zl_settings *s, struct zl_calibrate_plan *p)
{
	struct strbuf err = STRBUF_INIT;
	char *dir = NULL;
	size_t i;
	int code = ZL_EXIT_USAGE;

	p->runs = o->runs;
	for (i = 0; i < o->ops->nr; i++)
		zl_batch_ops_add_list(&p->ops, o->ops->v[i]);
	if (s->v[ZL_SET_OP].source == ZL_SRC_FLAG)
		strvec_push(&p->ops, s->v[ZL_SET_OP].raw);
	if (!p->ops.nr) {
		zl_print_error("no operators: give --ops LIST (or --op OP)");
		goto out;
	}
	if (zl_batch_ops_check(&p->ops, &err)) {
		zl_print_error("%s", err.buf);
		goto out;
	}
	if (choose_device(s, &p->device))
		goto out;
	p->backend = xstrdup(s->backend->name);
	dir = s->v[ZL_SET_OUT].raw ? xstrdup(s->v[ZL_SET_OUT].raw) : default_dir(s);
	p->dir = zl_absolute_path(dir);
	if (!zl_dir_absent_or_empty(p->dir)) {
		zl_print_error("calibration directory '%s' exists and is not empty: continue it with --resume %s, "
			       "or choose a new --out", p->dir, p->dir);
		goto out;
	}
	if (o->db)
		p->db = zl_absolute_path(o->db);
	plan_batch_args(s, o, p);
	code = 0;
out:
	free(dir);
	strbuf_release(&err);
	return code;
}

static int plan_save(const struct zl_calibrate_plan *p, int argc, const char **argv, struct strbuf *err)
{
	cJSON *doc = cJSON_CreateObject();
	struct strvec args = STRVEC_INIT;
	char *path = zl_path_join(p->dir, CALIBRATE_FILE), stamp[32];
	int i, ret = -1;

	zl_utc_iso8601(stamp, zl_now_epoch());
	for (i = 0; i < argc; i++)
		strvec_push(&args, argv[i]);
	if (!doc || zl_json_add_string(doc, "schema", ZL_SCHEMA_CALIBRATE_PLAN) ||
	    zl_json_add_string(doc, "created_at", stamp) || zl_json_add_item(doc, "argv", zl_json_strvec(&args)) ||
	    zl_json_add_string(doc, "backend", p->backend) || zl_json_add_string(doc, "device", p->device) ||
	    zl_json_add_number(doc, "runs", (double)p->runs) || zl_json_add_item(doc, "ops", zl_json_strvec(&p->ops)) ||
	    zl_json_add_item(doc, "batch_args", zl_json_strvec(&p->batch_args)) ||
	    zl_json_add_string(doc, "db", p->db)) {
		zl_error(err, "cannot build '%s': out of memory", path);
		goto out;
	}
	ret = zl_json_write_atomic(path, doc, err);
out:
	cJSON_Delete(doc);
	strvec_clear(&args);
	free(path);
	return ret;
}

static int plan_load(struct zl_calibrate_plan *p, const char *dir, struct strbuf *err)
{
	char *path, *abs = zl_absolute_path(dir);
	cJSON *doc;
	const cJSON *runs;
	int ret = -1;

	path = zl_path_join(abs, CALIBRATE_FILE);
	doc = zl_json_read_schema(path, ZL_SCHEMA_CALIBRATE_PLAN, "a directory made by zlbench calibrate", err);
	if (!doc)
		goto out;
	runs = zl_json_path(doc, "runs");
	p->dir = abs;
	abs = NULL;
	p->backend = zl_json_path_dup(doc, "backend");
	p->device = zl_json_path_dup(doc, "device");
	p->db = zl_json_path_dup(doc, "db");
	p->runs = zl_json_long(runs, 0);
	if (!p->backend || !p->device || p->runs < 2 || p->runs > ZL_CALIBRATE_MAX_RUNS ||
	    zl_json_to_strvec(zl_json_path(doc, "ops"), &p->ops) || !p->ops.nr ||
	    zl_json_to_strvec(zl_json_path(doc, "batch_args"), &p->batch_args)) {
		zl_error(err, "'%s' lacks backend, device, runs, ops or batch_args: not a calibration's plan", path);
		goto out;
	}
	ret = 0;
out:
	cJSON_Delete(doc);
	free(abs);
	free(path);
	return ret;
}

static char *round_dir(const struct zl_calibrate_plan *p, long k)
{
	char *name = xstrfmt("round-%ld", k), *dir = zl_path_join(p->dir, name);

	free(name);
	return dir;
}

/* The batch's rows of round k's directory, or -1 (no ops_status.csv yet). */
static int round_rows(const char *dir, struct zl_batch_rows *rows)
{
	char *path = zl_path_join(dir, ZL_BATCH_STATUS_FILE);
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	size_t complete;
	int ret = -1;

	if (zl_is_file(path) && strbuf_read_file(&text, path) >= 0)
		ret = zl_batch_rows_parse(text.buf, text.len, rows, &complete, &err);
	free(path);
	strbuf_release(&text);
	strbuf_release(&err);
	return ret;
}

/* Counts of round k from its ops_status.csv: the last row of each op decides. */
static void round_count(const struct zl_calibrate_plan *p, const char *dir, struct zl_calibrate_round *r)
{
	struct zl_batch_rows rows = ZL_BATCH_ROWS_INIT;
	size_t i;

	r->total = p->ops.nr;
	r->passed = 0;
	strvec_clear(&r->failed);
	if (round_rows(dir, &rows)) {
		zl_batch_rows_release(&rows);
		return;
	}
	for (i = 0; i < p->ops.nr; i++) {
		const struct zl_batch_row *row = zl_batch_rows_last(&rows, p->ops.v[i]);
		const char *status = row ? row->v[ZL_BCOL_STATUS] : NULL;

		if (status && !strcmp(status, "passed"))
			r->passed++;
		else
			strvec_pushf(&r->failed, "%s: %s", p->ops.v[i], status ? status : "not run");
	}
	zl_batch_rows_release(&rows);
}

/*
 * Rounds after the first replay the first round's autotune winners (merged over its ops
 * into DIR/records), so every round runs the same kernel configs and the calibration
 * measures the timer's and the machine's run-to-run spread, not the autotuner's choices
 * (on an H200 two independent tunings of layer_norm picked other configs for 2 of its 5
 * keys, 2.3x apart). Not when the runs replay a source of their own, or record nothing.
 */
static int replays_round_one(const struct zl_calibrate_plan *p)
{
	size_t i;

	for (i = 0; i < p->batch_args.nr && strcmp(p->batch_args.v[i], "--"); i++)
		if (zl_starts_with(p->batch_args.v[i], "--replay-from") ||
		    !strcmp(p->batch_args.v[i], "--no-autotune-records"))
			return 0;
	return 1;
}

static char *records_dir(const struct zl_calibrate_plan *p)
{
	return zl_path_join(p->dir, "records");
}

/* The argv of round k's batch: a new batch, or --resume of one that has started. */
static void round_argv(const struct zl_calibrate_plan *p, const char *exe, long k, const char *dir, struct strvec *argv)
{
	char *config = zl_path_join(dir, ZL_BATCH_CONFIG_FILE);
	size_t i;

	strvec_push(argv, exe);
	strvec_push(argv, "batch");
	if (zl_is_file(config)) {
		strvec_pushf(argv, "--resume=%s", dir);
	} else {
		for (i = 0; i < p->batch_args.nr && strcmp(p->batch_args.v[i], "--"); i++)
			strvec_push(argv, p->batch_args.v[i]);
		if (k > 1 && replays_round_one(p)) {
			char *records = records_dir(p);

			strvec_pushf(argv, "--replay-from=%s", records);
			free(records);
		}
		strvec_pushf(argv, "--out=%s", dir);
		for (; i < p->batch_args.nr; i++)
			strvec_push(argv, p->batch_args.v[i]);
	}
	free(config);
}

void zl_calibrate_session_print_plan(const struct zl_calibrate_session *st, FILE *out)
{
	const struct zl_calibrate_plan *p = &st->plan;
	const char *exe = st->exe;
	struct strvec argv = STRVEC_INIT;
	char *dir;
	size_t i;
	long k;

	fprintf(out, "calibration dir: %s\n", p->dir);
	fprintf(out, "backend: %s, device %s\n", p->backend, p->device);
	fprintf(out, "ops:");
	for (i = 0; i < p->ops.nr; i++)
		fprintf(out, " %s", p->ops.v[i]);
	fprintf(out, "\nrounds: %ld (each a batch over the ops; every pair of an op's runs is compared)\n", p->runs);
	for (k = 1; k <= p->runs; k++) {
		dir = round_dir(p, k);
		round_argv(p, exe, k, dir, &argv);
		fprintf(out, "round %ld argv:\n", k);
		for (i = 0; i < argv.nr; i++)
			fprintf(out, "  %s\n", argv.v[i]);
		strvec_clear(&argv);
		free(dir);
	}
}

/*
 * DIR/records: the autotune winners of round 1's passed runs, merged (once; a resumed
 * calibration keeps the merge it made). 0, or -1 with err.
 */
static int make_records(const struct zl_calibrate_plan *p, struct strbuf *err)
{
	struct zl_merge_stats st;
	struct strvec runs = STRVEC_INIT;
	char *records = records_dir(p), *first = round_dir(p, 1), *merged = zl_path_join(records, "merge.json");
	char *status = zl_path_join(first, ZL_BATCH_STATUS_FILE);
	int ret = 0;

	if (zl_is_file(merged))
		goto out;
	/* a round 1 without a status file passed nothing: an empty merge, every key a miss */
	if (zl_is_file(status) && zl_batch_runs_of(first, &p->ops, 1, &runs, NULL, err)) {
		ret = -1;
		goto out;
	}
	zl_merge_stats_init(&st);
	ret = zl_batch_merge_records(&runs, records, &st, err);
	if (!ret && zl_verbosity >= 0)
		fprintf(stderr, "rounds 2 to %ld replay round 1's autotune winners: %ld kernels, %ld keys from %zu runs "
			"(%s)%s\n", p->runs, st.kernels, st.entries, runs.nr, records,
			st.conflicts ? "; a key two ops recorded differently keeps the first op's config" : "");
	zl_merge_stats_release(&st);
out:
	strvec_clear(&runs);
	free(records);
	free(first);
	free(merged);
	free(status);
	return ret;
}

/*
 * Run round k's batch into its directory, its output in logs/round-<k>.log. 0, or
 * -1 when it could not start (err); *stop the stop signal forwarded to it.
 */
/* The ops of round k's batch that have ended (a row in its ops_status.csv). */
static size_t round_ended(const struct zl_calibrate_plan *p, long k)
{
	struct zl_batch_rows rows = ZL_BATCH_ROWS_INIT;
	char *dir = round_dir(p, k);
	size_t i, n = 0;

	if (!round_rows(dir, &rows))
		for (i = 0; i < p->ops.nr; i++)
			n += zl_batch_rows_last(&rows, p->ops.v[i]) != NULL;
	zl_batch_rows_release(&rows);
	free(dir);
	return n;
}

/* The live line while round st->current runs: its ops done, what is left over every round. */
static void refresh_live(void *arg)
{
	struct zl_calibrate_session *st = arg;
	const struct zl_calibrate_plan *p = &st->plan;
	double now = zl_now_monotonic();
	struct strbuf line = STRBUF_INIT;
	size_t ended, total = p->ops.nr * (size_t)p->runs;

	if (!st->progress.live || now < st->progress.next_refresh)
		return;
	ended = round_ended(p, st->current);
	strbuf_addf(&line, "calibrate [round %ld/%ld] %zu of %zu ops, ", st->current, p->runs, ended, p->ops.nr);
	zl_fmt_duration(&line, now - st->round_t0);
	strbuf_addstr(&line, "  ");
	zl_progress_add_eta(&line, zl_progress_eta(now - st->t0, (double)(st->ops_done + ended), (double)total, 0));
	zl_progress_line(&st->progress, line.buf, 1);
	strbuf_release(&line);
}

static int run_round(struct zl_calibrate_session *st, long k, struct zl_calibrate_round *r, int *stop,
		     struct strbuf *err)
{
	const struct zl_calibrate_plan *p = &st->plan;
	const char *exe = st->exe;
	struct child_process cp = CHILD_PROCESS_INIT;
	struct zl_supervise_opts so;
	char *dir = round_dir(p, k), *logs = zl_path_join(p->dir, "logs"), *name = xstrfmt("round-%ld.log", k);
	char *log = zl_path_join(logs, name);
	double t0 = zl_now_monotonic();
	int fd = -1, ret = -1;

	if (zl_mkdir_p(logs, err))
		goto out;
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
	if (fd < 0) {
		zl_error(err, "cannot open '%s': %s", log, strerror(errno));
		goto out;
	}
	if (k > 1 && replays_round_one(p) && make_records(p, err))
		goto out;
	round_argv(p, exe, k, dir, &cp.args);
	if (p->db)
		strvec_pushf(&cp.env, "ZL_HISTORY_DB=%s", p->db);
	memset(&so, 0, sizeof(so));
	so.log_fd = fd;
	so.echo_fd = zl_verbosity > 0 ? 2 : -1;
	/* the batch ends its runs with ZL_KILL_GRACE each; then it must be gone */
	so.kill_after_s = zl_kill_grace() + 60;
	so.tick = refresh_live;
	so.tick_arg = st;
	st->current = k;
	st->round_t0 = t0;
	if (st->progress.plain)
		fprintf(stderr, "round %ld/%ld: zlbench batch in %s (log: logs/%s)\n", k, p->runs, dir, name);
	refresh_live(st);
	if (zl_supervise(&cp, &so, &r->exit_code, stop, err)) {
		zl_progress_clear(&st->progress);
		goto out;
	}
	zl_progress_clear(&st->progress);
	r->wall_s = zl_now_monotonic() - t0;
	round_count(p, dir, r);
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	child_release(&cp);
	free(dir);
	free(logs);
	free(name);
	free(log);
	return ret;
}

static void print_round(const struct zl_calibrate_session *st, long k, const struct zl_calibrate_round *r)
{
	const struct zl_calibrate_plan *p = &st->plan;
	size_t i;

	if (!st->progress.plain && !st->progress.live)
		return;
	fprintf(stderr, "round %ld/%ld: %zu of %zu ops passed (batch exit %d, %.1f s)", k, p->runs, r->passed, r->total,
		r->exit_code, r->wall_s);
	for (i = 0; i < r->failed.nr; i++)
		fprintf(stderr, "%s%s", i ? ", " : "; ", r->failed.v[i]);
	fputc('\n', stderr);
}

/* The loaded runs of the calibration: runs[o * K + k] is op o's run of round k (NULL: none passed). */
struct loaded {
	struct zl_run *runs;
	int *ok;
	size_t nr;
};

static void load_runs(const struct zl_calibrate_plan *p, struct loaded *l, struct strvec *notes)
{
	size_t o;
	long k;

	l->nr = p->ops.nr * (size_t)p->runs;
	l->runs = xcalloc(l->nr, sizeof(*l->runs));
	l->ok = xcalloc(l->nr, sizeof(*l->ok));
	for (k = 1; k <= p->runs; k++) {
		struct zl_batch_rows rows = ZL_BATCH_ROWS_INIT;
		char *dir = round_dir(p, k);
		int have = !round_rows(dir, &rows);

		for (o = 0; o < p->ops.nr; o++) {
			size_t idx = o * (size_t)p->runs + (size_t)(k - 1);
			const struct zl_batch_row *row = have ? zl_batch_rows_last(&rows, p->ops.v[o]) : NULL;
			struct strbuf err = STRBUF_INIT;
			char *run_dir;

			zl_run_init(&l->runs[idx]);
			if (!row || !row->v[ZL_BCOL_STATUS] || strcmp(row->v[ZL_BCOL_STATUS], "passed") ||
			    !zl_path_is_inside(row->v[ZL_BCOL_RUN_DIR]))
				continue;
			run_dir = zl_path_join(dir, row->v[ZL_BCOL_RUN_DIR]);
			if (zl_run_load(run_dir, &l->runs[idx], &err)) {
				strvec_pushf(notes, "round %ld, %s: %s", k, p->ops.v[o], err.buf);
				zl_run_release(&l->runs[idx]);
				zl_run_init(&l->runs[idx]);
			} else {
				l->ok[idx] = 1;
			}
			free(run_dir);
			strbuf_release(&err);
		}
		zl_batch_rows_release(&rows);
		free(dir);
	}
}

static void loaded_release(struct loaded *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		zl_run_release(&l->runs[i]);
	free(l->runs);
	free(l->ok);
}

/*
 * The calibration's key from the first run that passed; runs with another key are left
 * out (noted). *keyed: the key is complete (the calibration can be stored).
 */
static void choose_key(const struct zl_calibrate_plan *p, struct loaded *l, struct zl_calibration *cal, int *keyed,
		       struct strbuf *why, struct strvec *notes)
{
	const struct zl_run *first = NULL;
	size_t i;

	for (i = 0; i < l->nr && !first; i++)
		if (l->ok[i])
			first = &l->runs[i];
	*keyed = 0;
	if (!first) {
		strbuf_addstr(why, "no run passed");
		return;
	}
	*keyed = !zl_calib_key(first, cal, why);
	for (i = 0; *keyed && i < l->nr; i++) {
		if (!l->ok[i] || zl_calib_key_matches(&l->runs[i], cal))
			continue;
		strvec_pushf(notes, "round %zu, %s: run %s has another backend, device, timer or FlagGems commit "
			     "than run %s: left out", i % (size_t)p->runs + 1, p->ops.v[i / (size_t)p->runs],
			     l->runs[i].run_id ? l->runs[i].run_id : "?", first->run_id ? first->run_id : "?");
		l->ok[i] = 0;
	}
}

static const char floor_rule[] =
	"the smallest floor >= max(3 x the spread's 95% upper bound, 0.5%), raised by 1.25x steps, at which "
	"compare calls at most 0.1% of the class's A/A rows faster or slower";

static cJSON *rounds_json(const struct zl_calibrate_plan *p, const struct zl_calibrate_round *rounds)
{
	cJSON *rs = cJSON_CreateArray();
	long k;

	for (k = 0; rs && k < p->runs; k++) {
		cJSON *o = cJSON_CreateObject();
		char *name = xstrfmt("round-%ld", k + 1);
		int bad = !o || zl_json_add_number(o, "round", (double)(k + 1)) || zl_json_add_string(o, "dir", name) ||
			  zl_json_add_number(o, "exit_code", rounds[k].exit_code >= 0 ? rounds[k].exit_code : NAN) ||
			  zl_json_add_number(o, "passed", (double)rounds[k].passed) ||
			  zl_json_add_number(o, "ops", (double)rounds[k].total) ||
			  zl_json_add_item(o, "not_passed", zl_json_strvec(&rounds[k].failed));

		free(name);
		if (bad)
			cJSON_Delete(o);
		/* zl_json_add_item deletes what it cannot attach */
		if (bad || zl_json_add_item(rs, NULL, o)) {
			cJSON_Delete(rs);
			rs = NULL;
		}
	}
	return rs;
}

/* The key of a keyed calibration, else JSON null. */
static cJSON *key_json(const struct zl_calibration *cal, int keyed)
{
	cJSON *key;

	if (!keyed)
		return cJSON_CreateNull();
	key = cJSON_CreateObject();
	if (key && (zl_json_add_string(key, "backend", cal->backend) ||
		    zl_json_add_string(key, "device_name", cal->device_name) ||
		    zl_json_add_string(key, "timer", cal->timer) ||
		    zl_json_add_string(key, "flaggems_commit", cal->flaggems_commit))) {
		cJSON_Delete(key);
		key = NULL;
	}
	return key;
}

/* Where a stored calibration went, else JSON null. */
static cJSON *stored_json(const struct zl_calibration *cal, const char *db_path)
{
	struct strbuf d = STRBUF_INIT;
	cJSON *o;

	if (cal->id <= 0)
		return cJSON_CreateNull();
	zl_calibration_describe(cal, &d);
	o = cJSON_CreateObject();
	if (o && (zl_json_add_number(o, "id", (double)cal->id) || zl_json_add_string(o, "db", db_path) ||
		  zl_json_add_string(o, "describe", d.buf) || zl_json_add_string(o, "created_at", cal->created_at))) {
		cJSON_Delete(o);
		o = NULL;
	}
	strbuf_release(&d);
	return o;
}

/* The whole result as one JSON document (NULL: out of memory). */
static cJSON *result_json(const struct zl_calibrate_plan *p, const struct zl_calibrate_round *rounds, const struct zl_calib_result *cr,
			  const struct zl_calibration *cal, int keyed, const char *not_stored, const char *db_path,
			  const struct strvec *notes)
{
	cJSON *doc = cJSON_CreateObject();

	if (!doc || zl_json_add_schema(doc, ZL_SCHEMA_CALIBRATION) ||
	    zl_json_add_string(doc, "dir", p->dir) || zl_json_add_string(doc, "backend", p->backend) ||
	    zl_json_add_string(doc, "device", p->device) || zl_json_add_item(doc, "ops", zl_json_strvec(&p->ops)) ||
	    zl_json_add_number(doc, "runs", (double)p->runs) || zl_json_add_item(doc, "rounds", rounds_json(p, rounds)) ||
	    zl_json_add_item(doc, "key", key_json(cal, keyed)) ||
	    zl_json_add_number(doc, "ops_measured", (double)cr->ops) ||
	    zl_json_add_number(doc, "pairs", (double)cr->pairs) || zl_json_add_number(doc, "rows", (double)cr->rows) ||
	    zl_json_add_item(doc, "classes", zl_calib_classes_json(cr)) ||
	    zl_json_add_string(doc, "floor_rule", floor_rule) || zl_json_add_number(doc, "target", ZL_CALIB_TARGET) ||
	    zl_json_add_item(doc, "stored", stored_json(cal, db_path)) ||
	    zl_json_add_string(doc, "not_stored", not_stored) || zl_json_add_item(doc, "notes", zl_json_strvec(notes))) {
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

/* The answer: stored or not, with the floors; what compare and ab do with it. */
static void print_answer(const struct zl_calibrate_session *st, FILE *out)
{
	const struct zl_calibration *cal = &st->cal;
	struct strbuf sb = STRBUF_INIT;

	if (cal->id > 0) {
		zl_calibration_describe(cal, &sb);
		fprintf(out, "stored: %s in '%s'\n", sb.buf, st->db_path);
		strbuf_reset(&sb);
		zl_calib_floors(&st->result, &sb);
		fprintf(out, "floor: %s\n", sb.buf);
		fprintf(out, "compare and ab now use calibration %ld as the floor for runs of %s, %s, %s timer, flaggems %s\n",
			cal->id, cal->backend, cal->device_name, cal->timer, cal->flaggems_commit);
	} else {
		fprintf(out, "not stored: %s\n", st->not_stored.len ? st->not_stored.buf : "nothing was measured");
		zl_calib_floors(&st->result, &sb);
		fprintf(out, "floor measured: %s (compare and ab keep their floor)\n", sb.buf);
	}
	strbuf_release(&sb);
}

void zl_calibrate_session_print_text(const struct zl_calibrate_session *st, size_t width, FILE *out)
{
	const struct zl_calibrate_plan *p = &st->plan;
	const struct zl_calib_result *cr = &st->result;
	const struct zl_calibration *cal = &st->cal;
	size_t i;

	print_answer(st, out);
	fputc('\n', out);
	zl_calib_print_text(cr, width, out);
	fputc('\n', out);
	if (st->keyed)
		fprintf(out, "calibration of %s, %s, %s timer, flaggems %s: ", cal->backend, cal->device_name, cal->timer,
			cal->flaggems_commit);
	else
		fprintf(out, "calibration (not keyed): ");
	fprintf(out, "%zu op%s x %ld runs on device %s, %zu pairs of runs, %zu A/A rows\n", cr->ops,
		cr->ops == 1 ? "" : "s", p->runs, p->device, cr->pairs, cr->rows);
	fprintf(out, "floor rule: %s (docs/calibrate.md)\n", floor_rule);
	for (i = 0; i < st->notes.nr; i++)
		fprintf(out, "note: %s\n", st->notes.v[i]);
	fprintf(out, "CALIBRATE_DIR=%s\n", p->dir);
}

/* Store cal; 0 stored, -1 not (why says so). */
static int store(const struct zl_calibrate_plan *p, const struct zl_calib_result *cr, struct zl_calibration *cal,
		 char **db_path, struct strbuf *why)
{
	struct zl_history *h = NULL;
	struct strbuf err = STRBUF_INIT;
	cJSON *detail = cJSON_CreateObject();
	char *text = NULL;
	int ret = -1;

	if (!p->db && zl_history_disabled()) {
		strbuf_addstr(why, "ZL_NO_HISTORY is set (give --db PATH to store it anyway)");
		goto out;
	}
	if (!detail || zl_json_add_string(detail, "dir", p->dir) || zl_json_add_string(detail, "device", p->device) ||
	    zl_json_add_number(detail, "pairs", (double)cr->pairs) ||
	    zl_json_add_item(detail, "classes", zl_calib_classes_json(cr)) ||
	    zl_json_add_string(detail, "floor_rule", floor_rule) || !(text = cJSON_PrintUnformatted(detail))) {
		strbuf_addstr(why, "out of memory");
		goto out;
	}
	cal->detail = xstrdup(text);
	if (zl_history_open(p->db, &h, &err) || zl_history_store_calibration(h, cal, &err)) {
		strbuf_addstr(why, err.buf);
		goto out;
	}
	*db_path = xstrdup(zl_history_path(h));
	ret = 0;
out:
	zl_history_close(h);
	cJSON_Delete(detail);
	cJSON_free(text);
	strbuf_release(&err);
	return ret;
}

/* Each op's runs that loaded: ops[o].runs points at its p->runs slots of ptrs, the first ops[o].nr filled. */
static void group_runs(const struct zl_calibrate_plan *p, const struct loaded *l, struct zl_calib_op *ops, const struct zl_run **ptrs)
{
	size_t o, i;
	long k;

	for (o = 0; o < p->ops.nr; o++) {
		ops[o].op = p->ops.v[o];
		ops[o].runs = ptrs + o * (size_t)p->runs;
		for (k = 0; k < p->runs; k++) {
			i = o * (size_t)p->runs + (size_t)k;
			if (l->ok[i])
				ptrs[o * (size_t)p->runs + ops[o].nr++] = &l->runs[i];
		}
	}
}

/* Fill cal from cr and the runs it came from, then store it; 1 when stored, else 0 (why says so). */
static int keep(const struct zl_calibrate_plan *p, const struct loaded *l, const struct zl_calib_result *cr,
		struct zl_calibration *cal, char **db_path, struct strbuf *why)
{
	size_t i;

	cal->runs = p->runs;
	strvec_pushv(&cal->ops, p->ops.v);
	for (i = 0; i < l->nr; i++)
		if (l->ok[i] && l->runs[i].run_id)
			strvec_push(&cal->run_ids, l->runs[i].run_id);
	zl_calib_fill(cr, cal);
	return !store(p, cr, cal, db_path, why);
}

cJSON *zl_calibrate_session_json(const struct zl_calibrate_session *st)
{
	return result_json(&st->plan, st->rounds, &st->result, &st->cal, st->keyed,
			   st->stored ? NULL : st->not_stored.buf, st->db_path, &st->notes);
}

/* Measure the rounds' runs, store, write calibration.json. Returns the exit code. */
static int measure(struct zl_calibrate_session *st)
{
	const struct zl_calibrate_plan *p = &st->plan;
	struct loaded l;
	struct zl_calib_op *ops = xcalloc(p->ops.nr, sizeof(*ops));
	const struct zl_run **ptrs = xcalloc(p->ops.nr * (size_t)p->runs, sizeof(*ptrs));
	struct strbuf err = STRBUF_INIT;
	char *result_path = zl_path_join(p->dir, RESULT_FILE);
	cJSON *doc;
	size_t i, failed = 0;
	long k;

	load_runs(p, &l, &st->notes);
	choose_key(p, &l, &st->cal, &st->keyed, &st->not_stored, &st->notes);
	group_runs(p, &l, ops, ptrs);
	for (k = 0; k < p->runs; k++)
		failed += st->rounds[k].passed < st->rounds[k].total;
	zl_calib_compute(ops, p->ops.nr, &st->result);
	for (i = 0; i < st->result.notes.nr; i++)
		strvec_push(&st->notes, st->result.notes.v[i]);
	if (!st->result.rows && !st->not_stored.len)
		strbuf_addstr(&st->not_stored, "no A/A row: no op has two runs that passed with a latency");
	if (st->keyed && st->result.rows)
		st->stored = keep(p, &l, &st->result, &st->cal, &st->db_path, &st->not_stored);
	st->measured = 1;
	doc = zl_calibrate_session_json(st);
	if (!doc || zl_json_write_atomic(result_path, doc, &err))
		zl_print_error("%s", doc ? err.buf : "cannot build the calibration's JSON: out of memory");
	if (!st->stored)
		zl_print_error("the calibration was not stored: %s", st->not_stored.buf);
	cJSON_Delete(doc);
	loaded_release(&l);
	strbuf_release(&err);
	free(ops);
	free(ptrs);
	free(result_path);
	return st->stored && !failed ? ZL_EXIT_OK : ZL_EXIT_FAILED;
}

/* Run the rounds that have not finished, then measure. Returns the exit code. */
static int run_rounds(struct zl_calibrate_session *st)
{
	const struct zl_calibrate_plan *p = &st->plan;
	struct strbuf err = STRBUF_INIT;
	int code = ZL_EXIT_OK, stop = 0;
	long k;

	if (zl_signals_install(&err)) {
		zl_print_error("%s", err.buf);
		code = ZL_EXIT_USAGE;
		goto out;
	}
	for (k = 1; k <= p->runs; k++) {
		struct zl_calibrate_round *r = &st->rounds[k - 1];

		stop = zl_supervise_pending_stop();
		if (stop)
			break;
		if (run_round(st, k, r, &stop, &err)) {
			zl_print_error("round %ld: %s", k, err.buf);
			code = ZL_EXIT_USAGE;
			goto out;
		}
		print_round(st, k, r);
		st->ops_done += r->total;
		if (stop || r->exit_code >= ZL_EXIT_SIGNAL_BASE) {
			stop = stop ? stop : r->exit_code - ZL_EXIT_SIGNAL_BASE;
			break;
		}
		/* a round that could not start its runs at all: the next would fail alike */
		if (r->exit_code == ZL_EXIT_USAGE || r->exit_code == ZL_EXIT_PREFLIGHT) {
			zl_print_error("round %ld: the batch exited %d (see %s/logs/round-%ld.log); the calibration stops",
				       k, r->exit_code, p->dir, k);
			code = r->exit_code;
			goto out;
		}
	}
	if (stop) {
		zl_print_error("interrupted (signal %d, %s): continue with zlbench calibrate --resume %s", stop,
			       strsignal(stop), p->dir);
		code = ZL_EXIT_SIGNAL_BASE + stop;
		goto out;
	}
	code = measure(st);
out:
	zl_signals_restore();
	strbuf_release(&err);
	return code;
}

/* The plan of the calibration --resume names (the command checked that nothing would change it). 0, or -1. */
static int plan_resume(const struct zl_calibrate_request *req, struct zl_calibrate_plan *p)
{
	struct strbuf err = STRBUF_INIT;

	if (plan_load(p, req->resume, &err)) {
		zl_print_error("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	if (req->db) {
		free(p->db);
		p->db = zl_absolute_path(req->db);
	}
	return 0;
}

/* The calibration directory for this process: claimed and calibrate.json saved, or locked. The fd, or -1. */
static int claim(const struct zl_calibrate_request *req, const struct zl_calibrate_plan *p)
{
	struct strbuf err = STRBUF_INIT;
	int fd;

	if (!req->resume) {
		/* claimed like a batch directory: of two calibrations started with one --out, one writes */
		fd = zl_batch_claim_dir(p->dir, &err);
		if (fd >= 0 && plan_save(p, req->argc, req->argv, &err)) {
			close(fd);
			fd = -1;
		}
	} else {
		fd = zl_batch_lock(p->dir, 0, &err);
	}
	if (fd < 0)
		zl_print_error("%s", err.buf);
	strbuf_release(&err);
	return fd;
}

void zl_calibrate_session_init(struct zl_calibrate_session *st)
{
	memset(st, 0, sizeof(*st));
	plan_init(&st->plan);
	zl_calib_result_init(&st->result);
	zl_calibration_init(&st->cal);
	strbuf_init(&st->not_stored, 0);
	strvec_init(&st->notes);
}

void zl_calibrate_session_release(struct zl_calibrate_session *st)
{
	long k;

	for (k = 0; st->rounds && k < st->plan.runs; k++)
		strvec_clear(&st->rounds[k].failed);
	free(st->rounds);
	plan_release(&st->plan);
	zl_calib_result_release(&st->result);
	zl_calibration_release(&st->cal);
	strbuf_release(&st->not_stored);
	strvec_clear(&st->notes);
	free(st->db_path);
	free(st->exe);
	zl_calibrate_session_init(st);
}

int zl_calibrate_session_run(struct zl_calibrate_session *st, const struct zl_calibrate_request *req,
			     const struct zl_settings *s)
{
	struct zl_calibrate_plan *p = &st->plan;
	int code, lock_fd = -1;
	long k;

	st->req = req;
	st->exe = zl_self_exe();
	/* --verbose echoes each round's output: a line redrawn in place would cut into it */
	zl_progress_init(&st->progress, zl_verbosity > 0 && req->progress != ZL_PROGRESS_NONE ? ZL_PROGRESS_PLAIN :
					req->progress);
	code = req->resume ? (plan_resume(req, p) ? ZL_EXIT_USAGE : 0) : plan_new(req, s, p);
	if (code || req->dry_run)
		return code;
	st->rounds = xcalloc((size_t)p->runs, sizeof(*st->rounds));
	for (k = 0; k < p->runs; k++)
		round_init(&st->rounds[k]);
	lock_fd = claim(req, p);
	if (lock_fd < 0)
		return ZL_EXIT_USAGE;
	st->claimed = 1;
	st->t0 = zl_now_monotonic();
	if (zl_verbosity >= 0)
		fprintf(stderr, "zlbench calibrate: %zu op%s x %ld runs, backend %s, device %s%s: %s\n", p->ops.nr,
			p->ops.nr == 1 ? "" : "s", p->runs, p->backend, p->device, req->resume ? " (resumed)" : "", p->dir);
	code = run_rounds(st);
	close(lock_fd);
	return code;
}
