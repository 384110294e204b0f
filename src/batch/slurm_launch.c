/*
 * zlbench batch --launcher slurm, on the submitting host: write the sbatch
 * script, submit one job array, then follow it with bounded scontrol calls,
 * turning each ended task into an ops_status.csv row (its run identity and
 * Slurm's verdict together) and a history entry. SIGINT cancels the array.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "zlbench/batch.h"
#include "zlbench/batch_estimate.h"
#include "zlbench/child.h"
#include "zlbench/env.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/history.h"
#include "zlbench/json.h"
#include "zlbench/plan.h"
#include "zlbench/run.h"
#include "zlbench/slurm.h"
#include "zlbench/units.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

/* Slurm's KillWait and MaxArraySize when the cluster does not say: their documented defaults. */
#define KILL_WAIT_DEFAULT_S 30.0
#define MAX_ARRAY_DEFAULT 1001

/* One array task of one submission, as the follower tracks it. */
struct ftask {
	const struct zl_slurm_submission *sub;
	const struct zl_slurm_task *t;
	char *name;                /* attempt name: "mm", "mm.2" */
	int recorded;              /* its row is written (or it never started: no row) */
	double over_since;         /* when Slurm first said it ended (monotonic); 0: not yet */
	int ending;                /* Slurm is ending it (COMPLETING) */
	char *state;               /* Slurm's last word, for the progress line */
	char *reason;
	char *node;
	char *gpus;                /* from its task record, once running */
	double expect_s;           /* its op's expected duration (batch_estimate.h) */
	int known;                 /* expect_s is the op's history (else a guess) */
	double running_since;      /* monotonic: when it was first seen RUNNING (0: not yet) */
};

struct follower {
	const struct zl_batch_config *bc;
	const struct zl_slurm_config *sc;
	const struct zl_slurm_run_opts *o;
	struct zl_batch_status st;
	struct zl_batch_rows rows;
	struct ftask *tasks;
	size_t nr, alloc;
	size_t done, total;
	double settle_s;           /* how long an ended task may take to leave its record */
	double t0;
	double wall_sum;
	size_t wall_n;
	struct zl_history *db;
	int history_off;
	int interrupt_sig;
	int cancelled;
	struct zl_progress disp;
	int query_failing;         /* scontrol failed last time (said once) */
};

/* ---- small helpers ---------------------------------------------------------------------- */

static double env_seconds(enum zl_env_id var, double fallback)
{
	const char *v = zl_env(var);
	double d;

	if (v && !zl_parse_double(v, &d) && d > 0)
		return d;
	return fallback;
}

int zl_slurm_check_env(struct strbuf *err)
{
	static const enum zl_env_id vars[] = { ZL_ENV_SLURM_POLL, ZL_ENV_SLURM_TIMEOUT };
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(vars); i++) {
		const char *v = zl_env(vars[i]);
		double d;

		if (v && (zl_parse_double(v, &d) || !(d > 0) || d > 86400))
			return zl_error(err, "invalid value '%s' for %s: a positive number of seconds", v,
					zl_env_name(vars[i]));
	}
	return 0;
}

static double cmd_timeout(void)
{
	return env_seconds(ZL_ENV_SLURM_TIMEOUT, ZL_SLURM_CMD_TIMEOUT_DEFAULT);
}

/* Run a Slurm client command, bounded. 0 with *code and out filled; -1 when it could not start. */
static int slurm_cmd(const char *const *argv, struct strbuf *out, int *code, struct strbuf *err)
{
	if (zl_capture(argv, NULL, cmd_timeout(), out, code, err))
		return zl_error(err, "cannot run '%s': %s (is Slurm's client installed and on PATH?)", argv[0],
				strerror(errno));
	strbuf_trim(out);
	return 0;
}

/* A number from `scontrol show config` ("Key = value"), or fallback when Slurm does not say. */
static double config_number(const char *key, double fallback, int *answered)
{
	static const char *const argv[] = { "scontrol", "show", "config", NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT, want = STRBUF_INIT;
	double v = fallback;
	const char *p;
	char *end;
	int code = 1;

	strbuf_addf(&want, "\n%s", key);
	if (answered)
		*answered = 0;
	if (!slurm_cmd(argv, &out, &code, &err) && !code && (p = strstr(out.buf, want.buf)) &&
	    (p = strchr(p + want.len, '='))) {
		double d = strtod(p + 1, &end);

		if (end != p + 1 && d >= 0) {
			v = d;
			if (answered)
				*answered = 1;
		}
	}
	strbuf_release(&out);
	strbuf_release(&err);
	strbuf_release(&want);
	return v;
}

/* KillWait: how long Slurm gives a cancelled task before SIGKILL. */
static double kill_wait_s(void)
{
	return config_number("KillWait", KILL_WAIT_DEFAULT_S, NULL);
}

/*
 * How many tasks one job array may hold: MaxArraySize (array indices run below it; Slurm's
 * default 1001 is less than FlagGems' marks), at least 1. *asked: Slurm said it.
 */
static size_t max_array_tasks(int *asked)
{
	double m = config_number("MaxArraySize", MAX_ARRAY_DEFAULT, asked);

	return m >= 1 && m <= ZL_SLURM_MAX_TASKS ? (size_t)m : MAX_ARRAY_DEFAULT;
}

static char *abs_path(const struct follower *f, const char *rel)
{
	return zl_path_join(f->bc->dir, rel);
}

/* The task's own record (slurm/tasks/<job>_<i>.json), or NULL. Caller deletes. */
static cJSON *read_marker(const struct follower *f, const struct ftask *t)
{
	char *path = xstrfmt("%s/%s/tasks/%s_%ld.json", f->bc->dir, ZL_SLURM_DIR, t->sub->job_id, t->t->index);
	struct strbuf text = STRBUF_INIT;
	cJSON *doc = NULL;

	if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL))
		doc = cJSON_Parse(text.buf);
	if (doc && !cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	strbuf_release(&text);
	free(path);
	return doc;
}

static int marker_finished(const cJSON *m)
{
	const char *s = m ? zl_json_path_string(m, "state") : NULL;

	return s && !strcmp(s, "finished");
}

static double json_number(const cJSON *doc, const char *key, double fallback)
{
	const cJSON *n = doc ? cJSON_GetObjectItemCaseSensitive(doc, key) : NULL;

	return cJSON_IsNumber(n) ? n->valuedouble : fallback;
}

/*
 * When Slurm has forgotten the job (older than MinJobAge), slurmstepd's own
 * lines in the task's output file still say why it ended.
 */
static const struct {
	const char *needle;
	const char *state;
} out_file_verdicts[] = {
	{ "DUE TO TIME LIMIT", "TIMEOUT" },
	{ "DUE TO PREEMPTION", "PREEMPTED" },
	{ "DUE TO NODE FAILURE", "NODE_FAIL" },
	{ "oom_kill event", "OUT_OF_MEMORY" },
	{ "Exceeded job memory limit", "OUT_OF_MEMORY" },
	{ "CANCELLED AT", "CANCELLED" },
};

/* The task script's own preflight message in its output file ("zlbench: preflight failed: ..."), or NULL. Caller frees. */
static char *preflight_from_out_file(const struct follower *f, const struct ftask *t)
{
	static const char tag[] = "zlbench: preflight failed: ";
	char *path = xstrfmt("%s/logs/slurm-%s_%ld.out", f->bc->dir, t->sub->job_id, t->t->index);
	struct strbuf text = STRBUF_INIT;
	char *line = NULL;
	const char *p;

	if (!zl_read_file(&text, path, NULL, ZL_CAP_LARGE, NULL) && (p = strstr(text.buf, tag))) {
		p += strlen(tag);
		line = xstrndup(p, strcspn(p, "\r\n"));
	}
	strbuf_release(&text);
	free(path);
	return line;
}

static const struct zl_slurm_state_def *verdict_from_out_file(const struct follower *f, const struct ftask *t)
{
	char *path = xstrfmt("%s/logs/slurm-%s_%ld.out", f->bc->dir, t->sub->job_id, t->t->index);
	struct strbuf text = STRBUF_INIT;
	const struct zl_slurm_state_def *d = NULL;
	size_t i;

	if (!zl_read_file(&text, path, NULL, ZL_CAP_LARGE, NULL))
		for (i = 0; i < ZL_ARRAY_SIZE(out_file_verdicts) && !d; i++)
			if (strstr(text.buf, out_file_verdicts[i].needle))
				d = zl_slurm_state_find(out_file_verdicts[i].state);
	strbuf_release(&text);
	free(path);
	return d;
}

/* Slurm prints local times without a zone ("2026-11-29T18:03:25"); ISO 8601 UTC, or 0 when unparsable. */
static int slurm_time_utc(const char *t, char out[32], double *epoch)
{
	struct tm tm;
	time_t when;

	memset(&tm, 0, sizeof(tm));
	if (!t || sscanf(t, "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
			 &tm.tm_sec) != 6)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	tm.tm_isdst = -1;
	when = mktime(&tm);
	if (when == (time_t)-1)
		return 0;
	zl_utc_iso8601(out, (double)when);
	if (epoch)
		*epoch = (double)when;
	return 1;
}

/*
 * Slurm's verdict goes into the run's own identity too, so that the run
 * explains itself: status and reason replaced (what zlbench run wrote stays in
 * scheduler.run_status), scheduler.slurm_state added.
 */
static void patch_identity(const char *run_dir, const char *slurm_state, const char *status, const char *reason)
{
	char *path = zl_path_join(run_dir, "run_identity.json");
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	cJSON *doc = NULL, *sched;
	char *out = NULL;
	int bad = 0;

	if (zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL) || !(doc = cJSON_Parse(text.buf)) || !cJSON_IsObject(doc))
		goto done;
	sched = cJSON_GetObjectItemCaseSensitive(doc, "scheduler");
	if (!cJSON_IsObject(sched)) {
		cJSON_DeleteItemFromObjectCaseSensitive(doc, "scheduler");
		sched = cJSON_CreateObject();
		if (zl_json_add_item(doc, "scheduler", sched))
			goto done;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(sched, "slurm_state");
	bad |= slurm_state && zl_json_add_string(sched, "slurm_state", slurm_state);
	if (status) {
		const char *was = zl_json_path_string(doc, "status");

		if (!cJSON_GetObjectItemCaseSensitive(sched, "run_status"))
			bad |= zl_json_add_string(sched, "run_status", was);
		cJSON_DeleteItemFromObjectCaseSensitive(doc, "status");
		cJSON_DeleteItemFromObjectCaseSensitive(doc, "reason");
		bad |= zl_json_add_string(doc, "status", status) || zl_json_add_string(doc, "reason", reason);
	}
	if (!bad && (out = cJSON_Print(doc)) && zl_write_file_atomic(path, out, strlen(out), &err))
		zl_print_warning("%s", err.buf);
done:
	cJSON_Delete(doc);
	free(out);
	strbuf_release(&text);
	strbuf_release(&err);
	free(path);
}

/* ---- progress ---------------------------------------------------------------------------- */

/*
 * The remaining wall time as the estimate sees it, on as many GPUs as run now: each running
 * task's GPU busy for what is left of its op, the tasks to come longest first over them. A
 * guessed op is expected to take the mean wall of the tasks ended so far, once there are any.
 */
static double eta_s(const struct follower *f, size_t running)
{
	double *busy = xcalloc(running + 1, sizeof(*busy)), *left = xcalloc(f->nr + 1, sizeof(*left));
	double now = zl_now_monotonic(), eta;
	size_t i, d = 0, n = 0;

	for (i = 0; i < f->nr; i++) {
		const struct ftask *t = &f->tasks[i];
		double e = t->known || !f->wall_n ? t->expect_s : f->wall_sum / (double)f->wall_n;

		if (t->recorded)
			continue;
		if (t->state && !strcmp(t->state, "RUNNING") && d < running) {
			e -= t->running_since ? now - t->running_since : 0;
			busy[d++] = e > 0 ? e : 0;
		} else {
			left[n++] = e;
		}
	}
	eta = zl_batch_lpt(left, n, busy, running);
	free(busy);
	free(left);
	return eta;
}

/* The live line: done/total, each running op on its node:GPU, the pending count and Slurm's reason, ETA. */
static void refresh_live(struct follower *f)
{
	struct strbuf line = STRBUF_INIT;
	size_t i, pending = 0, running = 0;
	const char *why = NULL;

	if (!f->disp.live)
		return;
	strbuf_addf(&line, "[%zu/%zu]", f->done, f->total);
	for (i = 0; i < f->nr; i++) {
		const struct ftask *t = &f->tasks[i];

		if (t->recorded || !t->state)
			continue;
		if (!strcmp(t->state, "PENDING")) {
			pending++;
			if (!why)
				why = t->reason;
		} else if (!strcmp(t->state, "RUNNING")) {
			running++;
			strbuf_addf(&line, " %s@%s:%s", t->t->op, t->node ? t->node : "?", t->gpus ? t->gpus : "?");
		}
	}
	if (pending)
		strbuf_addf(&line, "  %zu pending%s%s%s", pending, why ? " (" : "", why ? why : "", why ? ")" : "");
	strbuf_addstr(&line, "  ETA ");
	if (running)
		zl_fmt_duration(&line, eta_s(f, running));
	else
		strbuf_addstr(&line, "?");
	zl_progress_line(&f->disp, line.buf, 1);
	strbuf_release(&line);
}

/* ---- rows ---------------------------------------------------------------------------------- */

static void ingest(struct follower *f, const char *run_dir)
{
	struct strbuf err = STRBUF_INIT;

	if (f->history_off)
		return;
	if (!f->db && zl_history_open(NULL, &f->db, &err)) {
		zl_print_warning("history not updated: %s", err.buf);
		f->history_off = 1;
	} else if (zl_history_ingest_run(f->db, run_dir, &err)) {
		zl_print_warning("history not updated for '%s': %s", run_dir, err.buf);
	}
	strbuf_release(&err);
}

/* One ended task while its row is built. */
struct ended_task {
	struct follower *f;
	struct ftask *t;
	const struct zl_slurm_task_state *rec; /* NULL when Slurm no longer knows the job */
	cJSON *marker;                         /* the task record, or NULL; owned */
};

/* No final identity: the status, exit code and reason from the task record's exit code, else Slurm's. */
static void row_status_without_identity(const struct ended_task *e, struct zl_batch_row *r)
{
	const struct ftask *t = e->t;
	const struct zl_slurm_task_state *rec = e->rec;
	int mk_done = marker_finished(e->marker);
	const char *mk_reason = e->marker ? zl_json_path_string(e->marker, "reason") : NULL;
	int code = mk_done ? (int)json_number(e->marker, "exit_code", ZL_EXIT_INTERNAL)
		   : rec ? (rec->exit_signal ? ZL_EXIT_SIGNAL_BASE + rec->exit_signal : rec->exit_code)
		   : ZL_EXIT_INTERNAL;

	if (!mk_done && !rec) {
		zl_batch_row_set(r, ZL_BCOL_STATUS, ZL_STATUS_INTERRUPTED);
		zl_batch_row_setf(r, ZL_BCOL_REASON, "slurm no longer knows job %s and task %ld left no final record "
				  "(its node may have failed)", t->sub->job_id, t->t->index);
	} else {
		zl_batch_row_set(r, ZL_BCOL_STATUS, zl_batch_status_from_exit(code, 0));
		char *pre = !e->marker ? preflight_from_out_file(e->f, t) : NULL;

		if (mk_reason)
			zl_batch_row_set(r, ZL_BCOL_REASON, mk_reason);
		else if (pre)
			zl_batch_row_set(r, ZL_BCOL_REASON, pre);
		else if (!e->marker)
			zl_batch_row_setf(r, ZL_BCOL_REASON, "the Slurm task ended (exit %d) before it could record "
					  "itself: see logs/slurm-%s_%ld.out", code, t->sub->job_id, t->t->index);
		else if (code)
			zl_batch_row_setf(r, ZL_BCOL_REASON, "zlbench run ended (exit %d) without a final run identity",
					  code);
		free(pre);
	}
	zl_batch_row_setf(r, ZL_BCOL_EXIT_CODE, "%d", code);
}

/*
 * Slurm's verdict wins over a run it cut short (and over an OOM-killed one).
 * 1 when it replaced the row's status.
 */
static int row_apply_verdict(const struct follower *f, const struct zl_slurm_state_def *verdict, int have_id,
			     struct zl_batch_row *r)
{
	const char *id_status = r->v[ZL_BCOL_STATUS];

	if (!verdict || !verdict->status)
		return 0;
	/* the run's own final word stands */
	if (have_id && strcmp(id_status, ZL_STATUS_INTERRUPTED) && strcmp(id_status, ZL_STATUS_RUNNING) &&
	    !(verdict->over_crashed && !strcmp(id_status, ZL_STATUS_CRASHED)))
		return 0;
	zl_batch_row_set(r, ZL_BCOL_STATUS, verdict->status);
	if (f->cancelled && !strcmp(verdict->name, "CANCELLED"))
		zl_batch_row_setf(r, ZL_BCOL_REASON, "%s by zlbench batch after %s", verdict->why,
				  f->interrupt_sig ? strsignal(f->interrupt_sig) : "an interrupt");
	else
		zl_batch_row_set(r, ZL_BCOL_REASON, verdict->why);
	return 1;
}

/* The device as <node>:<granted index>: indices repeat across nodes. */
static void row_device(const struct ended_task *e, struct zl_batch_row *r)
{
	const char *node = e->marker ? zl_json_path_string(e->marker, "node") : NULL;
	const char *gpus = e->marker ? zl_json_path_string(e->marker, "gpus") : NULL;

	if (!gpus && e->marker)
		gpus = zl_json_path_string(e->marker, "device");
	if (!node && e->rec)
		node = e->rec->node;
	if (node && gpus)
		zl_batch_row_setf(r, ZL_BCOL_DEVICE, "%s:%s", node, gpus);
	else if (node || gpus)
		zl_batch_row_set(r, ZL_BCOL_DEVICE, node ? node : gpus);
}

/* Start, finish and wall time the identity left out: the task record's, else Slurm's. */
static void row_times(const struct ended_task *e, struct zl_batch_row *r)
{
	const struct zl_slurm_task_state *rec = e->rec;
	char stamp[32];
	double t_start = 0, t_end = 0;

	if (rec) {
		slurm_time_utc(rec->start, stamp, &t_start);
		slurm_time_utc(rec->end, stamp, &t_end);
	}
	if (!r->v[ZL_BCOL_STARTED_AT]) {
		const char *s = e->marker ? zl_json_path_string(e->marker, "started_at") : NULL;

		if (s)
			zl_batch_row_set(r, ZL_BCOL_STARTED_AT, s);
		else if (rec && slurm_time_utc(rec->start, stamp, NULL))
			zl_batch_row_set(r, ZL_BCOL_STARTED_AT, stamp);
	}
	if (!r->v[ZL_BCOL_FINISHED_AT]) {
		const char *s = e->marker ? zl_json_path_string(e->marker, "finished_at") : NULL;

		if (s)
			zl_batch_row_set(r, ZL_BCOL_FINISHED_AT, s);
		else if (rec && slurm_time_utc(rec->end, stamp, NULL))
			zl_batch_row_set(r, ZL_BCOL_FINISHED_AT, stamp);
	}
	if (!isnan(json_number(e->marker, "wall_s", NAN)))
		zl_batch_row_setf(r, ZL_BCOL_WALL_S, "%.3f", json_number(e->marker, "wall_s", 0));
	else if (t_start > 0 && t_end >= t_start)
		zl_batch_row_setf(r, ZL_BCOL_WALL_S, "%.3f", t_end - t_start);
}

/* The row is complete: append it, count it, ingest the run (run_dir NULL: no identity) and show it. */
static void add_row(struct follower *f, const struct zl_batch_row *r, const char *run_dir)
{
	struct strbuf err = STRBUF_INIT;

	if (zl_batch_status_append(&f->st, r, &err))
		zl_print_error("%s", err.buf);
	zl_batch_rows_add(&f->rows, r);
	f->done++;
	if (r->v[ZL_BCOL_WALL_S] && strcmp(r->v[ZL_BCOL_STATUS], ZL_STATUS_INTERRUPTED)) {
		f->wall_sum += strtod(r->v[ZL_BCOL_WALL_S], NULL);
		f->wall_n++;
	}
	if (run_dir)
		ingest(f, run_dir);
	zl_batch_display_finished(&f->disp, f->done, f->total, r);
	strbuf_release(&err);
}

/*
 * The task has ended: its row from the run identity, the task record and
 * Slurm's verdict (rec NULL when Slurm no longer knows the job). A task that
 * never started leaves no row: its op is "not run", and --resume runs it.
 */
static void record_task(struct follower *f, struct ftask *t, const struct zl_slurm_task_state *rec)
{
	struct ended_task e = { .f = f, .t = t, .rec = rec, .marker = read_marker(f, t) };
	struct zl_batch_row r;
	struct strbuf err = STRBUF_INIT;
	char *run_rel = xstrfmt("runs/%s", t->name), *log_rel = xstrfmt("logs/%s.log", t->name);
	char *run_dir = abs_path(f, run_rel), *log_path = abs_path(f, log_rel);
	const struct zl_slurm_state_def *verdict = rec ? zl_slurm_state_find(rec->state) : verdict_from_out_file(f, t);
	const char *id_status;
	int have_id, overridden;

	t->recorded = 1;
	/*
	 * Never started: no task record and no node. (Not the run directory: a
	 * later submission may run the same attempt of an op this one never started.)
	 */
	if (!e.marker && (!rec || !rec->node))
		goto out;
	zl_batch_row_init(&r);
	have_id = !zl_batch_row_from_identity(&r, run_dir, &err);
	id_status = have_id ? r.v[ZL_BCOL_STATUS] : NULL;
	if (!id_status || !strcmp(id_status, ZL_STATUS_RUNNING))
		row_status_without_identity(&e, &r);
	overridden = row_apply_verdict(f, verdict, have_id, &r);
	zl_batch_row_set(&r, ZL_BCOL_OP, t->t->op);
	zl_batch_row_setf(&r, ZL_BCOL_ATTEMPT, "%d", t->t->attempt);
	zl_batch_row_set(&r, ZL_BCOL_RUN_DIR, zl_is_dir(run_dir) ? run_rel : NULL);
	zl_batch_row_set(&r, ZL_BCOL_LOG, zl_is_file(log_path) ? log_rel : NULL);
	if (!r.v[ZL_BCOL_BACKEND])
		zl_batch_row_set(&r, ZL_BCOL_BACKEND, f->bc->backend);
	if (!r.v[ZL_BCOL_LEVEL])
		zl_batch_row_set(&r, ZL_BCOL_LEVEL, f->bc->level);
	row_device(&e, &r);
	row_times(&e, &r);
	zl_batch_row_set(&r, ZL_BCOL_WARMUP_SHARDS, "0");

	if (have_id)
		patch_identity(run_dir, rec ? rec->state : verdict ? verdict->name : NULL,
			       overridden ? r.v[ZL_BCOL_STATUS] : NULL, r.v[ZL_BCOL_REASON]);
	add_row(f, &r, have_id ? run_dir : NULL);
	zl_batch_row_release(&r);
out:
	cJSON_Delete(e.marker);
	strbuf_release(&err);
	free(run_rel);
	free(log_rel);
	free(run_dir);
	free(log_path);
}

/* ---- following the jobs -------------------------------------------------------------------- */

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = v ? xstrdup(v) : NULL;
}

/*
 * One task of a polled submission: Slurm's word on it kept, and its row
 * recorded once it has ended and left its record (or had time to).
 * 1 when it is still to come.
 */
static int poll_task(struct follower *f, struct ftask *t, const struct zl_slurm_job *job, double now)
{
	const struct zl_slurm_task_state *rec = zl_slurm_job_find(job, t->t->index);
	const struct zl_slurm_state_def *d = rec ? zl_slurm_state_find(rec->state) : NULL;
	cJSON *marker;
	int ended, left = 0;

	t->ending = d && d->ending;
	if (rec) {
		if (!t->running_since && !strcmp(rec->state, "RUNNING"))
			t->running_since = now;
		set_str(&t->state, rec->state);
		set_str(&t->reason, rec->reason);
		set_str(&t->node, rec->node);
	}
	marker = read_marker(f, t);
	if (marker && !t->gpus)
		set_str(&t->gpus, zl_json_path_string(marker, "gpus"));
	/* Slurm forgot the job or this task: what the batch directory holds is all there is */
	ended = job->unknown || !rec || (d && d->done);
	if (ended && !t->over_since)
		t->over_since = now;
	if (ended && (marker_finished(marker) || (rec && !rec->node) || job->unknown ||
		      now - t->over_since >= f->settle_s))
		record_task(f, t, job->unknown ? NULL : rec);
	else
		left = 1;
	cJSON_Delete(marker);
	return left;
}

/*
 * Ask Slurm about one submission and record its tasks that have ended.
 * Returns the number still to come, or -1 when Slurm could not be asked.
 */
static long poll_submission(struct follower *f, const struct zl_slurm_submission *sub)
{
	const char *argv[] = { "scontrol", "-o", "show", "job", sub->job_id, NULL };
	struct zl_slurm_job job = ZL_SLURM_JOB_INIT;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	double now = zl_now_monotonic();
	long left = 0;
	size_t i;
	int code = 0;

	if (slurm_cmd(argv, &out, &code, &err)) {
		left = -1;
		goto out;
	}
	if (code && strstr(out.buf, "Invalid job id")) {
		job.unknown = 1;
	} else if (code || zl_slurm_parse_show_job(out.buf, sub->job_id, &job, &err)) {
		if (!err.len)
			zl_error(&err, "scontrol -o show job %s exited with %d%s%s", sub->job_id, code,
				 out.len ? ": " : "", out.buf);
		left = -1;
		goto out;
	}
	for (i = 0; i < f->nr; i++)
		if (f->tasks[i].sub == sub && !f->tasks[i].recorded)
			left += poll_task(f, &f->tasks[i], &job, now);
out:
	if (left < 0 && !f->query_failing) {
		zl_progress_clear(&f->disp);
		zl_print_warning("cannot ask Slurm about job %s (retrying): %s", sub->job_id, err.buf);
		f->query_failing = 1;
	} else if (left >= 0) {
		f->query_failing = 0;
	}
	zl_slurm_job_release(&job);
	strbuf_release(&out);
	strbuf_release(&err);
	return left;
}

/* 1 when a task of sub still waits for its row. */
static int unrecorded(const struct follower *f, const struct zl_slurm_submission *sub)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		if (f->tasks[i].sub == sub && !f->tasks[i].recorded)
			return 1;
	return 0;
}

static void cancel_jobs(struct follower *f)
{
	size_t i;

	for (i = 0; i < f->sc->nr; i++) {
		const struct zl_slurm_submission *sub = &f->sc->subs[i];
		const char *argv[] = { "scancel", sub->job_id, NULL };
		struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
		int code = 0;

		if (!sub->job_id || !unrecorded(f, sub))
			continue;
		if (slurm_cmd(argv, &out, &code, &err) || code)
			zl_print_error("scancel %s failed: %s%s", sub->job_id, err.len ? err.buf : "", out.buf);
		strbuf_release(&out);
		strbuf_release(&err);
	}
	f->cancelled = 1;
}

/* How far follow() goes. */
enum follow_mode {
	FOLLOW_ONCE,   /* one round: record what has ended */
	FOLLOW_ENDED,  /* until every task Slurm says has ended has its row (they settle) */
	FOLLOW_ALL,    /* until every task has its row */
};

/* Tasks without a row that Slurm has not reported ended or ending (queued or running). */
static long still_active(const struct follower *f)
{
	size_t i;
	long n = 0;

	for (i = 0; i < f->nr; i++)
		n += !f->tasks[i].recorded && !f->tasks[i].over_since && !f->tasks[i].ending;
	return n;
}

/*
 * Sleep until the next poll, or until a signal other than SIGCHLD arrives (each
 * Slurm command's exit is a SIGCHLD: waking for those would poll without pause).
 * Returns that signal, or 0.
 */
static int wait_interval(double interval)
{
	double until = zl_now_monotonic() + interval;

	for (;;) {
		struct pollfd pfd = { zl_signals_fd(), POLLIN, 0 };
		double left = until - zl_now_monotonic();
		int sig;

		if (left <= 0 || (poll(&pfd, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR))
			return 0;
		while ((sig = zl_signals_take()) == SIGCHLD)
			;
		if (sig)
			return sig;
	}
}

/*
 * Follow the submissions. cancel: the first SIGINT/SIGTERM/SIGHUP cancels the
 * jobs and keeps following (the tasks end their runs and leave truthful
 * identities), a second stops following; without cancel the first stops.
 */
static void follow(struct follower *f, enum follow_mode mode, int cancel)
{
	double interval = env_seconds(ZL_ENV_SLURM_POLL, ZL_SLURM_POLL_DEFAULT);
	int stop = 0;

	for (;;) {
		long left = 0;
		size_t i;
		int failed = 0, sig;

		for (i = 0; i < f->sc->nr; i++) {
			long n;

			if (!f->sc->subs[i].job_id || !unrecorded(f, &f->sc->subs[i]))
				continue;
			n = poll_submission(f, &f->sc->subs[i]);
			if (n < 0)
				failed = 1;
			else
				left += n;
		}
		if ((!left && !failed) || mode == FOLLOW_ONCE || stop)
			break;
		if (mode == FOLLOW_ENDED && !failed && left == still_active(f))
			break;
		refresh_live(f);
		for (sig = wait_interval(interval); sig; sig = zl_signals_take()) {
			if (sig == SIGCHLD)
				continue;
			zl_progress_clear(&f->disp);
			if (!f->interrupt_sig)
				f->interrupt_sig = sig;
			if (cancel && !f->cancelled) {
				fprintf(stderr, "zlbench: %s: cancelling the Slurm job array (scancel); waiting for its "
						"tasks to end their runs (again to stop waiting)\n", strsignal(sig));
				cancel_jobs(f);
			} else {
				fprintf(stderr, "zlbench: %s: no longer following; tasks not recorded yet are recorded by "
						"zlbench batch --collect %s\n", strsignal(sig), f->bc->dir);
				stop = 1;
			}
		}
	}
	zl_progress_clear(&f->disp);
}

/* ---- set-up -------------------------------------------------------------------------------- */

/* Each task's expected duration, for the ETA (only the live line shows it). */
static void expectations(struct follower *f)
{
	struct zl_batch_estimate e;
	struct strvec ops = STRVEC_INIT;
	size_t i;

	if (!f->disp.live || !f->nr)
		return;
	for (i = 0; i < f->nr; i++)
		strvec_push(&ops, f->tasks[i].t->op);
	zl_batch_estimate_init(&e);
	zl_batch_estimate_ops(&e, f->bc, &ops);
	for (i = 0; i < f->nr && i < e.nr; i++) {
		f->tasks[i].expect_s = e.v[i].expect_s;
		f->tasks[i].known = e.v[i].from == ZL_EST_HISTORY;
	}
	zl_batch_estimate_release(&e);
	strvec_clear(&ops);
}

static int follower_open(struct follower *f, const struct zl_batch_config *bc, const struct zl_slurm_config *sc,
			 const struct zl_slurm_run_opts *o, struct strbuf *err)
{
	size_t i, j;

	memset(f, 0, sizeof(*f));
	f->bc = bc;
	f->sc = sc;
	f->o = o;
	f->st.fd = -1;
	f->t0 = zl_now_monotonic();
	f->total = bc->ops.nr;
	f->history_off = zl_history_disabled();
	zl_progress_init(&f->disp, o->progress);
	if (zl_batch_status_open(&f->st, bc->dir, &f->rows, err))
		return -1;
	for (i = 0; i < bc->ops.nr; i++) {
		const struct zl_batch_row *last = zl_batch_rows_last(&f->rows, bc->ops.v[i]);

		if (last && zl_batch_status_final(last->v[ZL_BCOL_STATUS], o->retry_failed))
			f->done++;
	}
	/* the tasks without a row: a row names its op and attempt */
	for (i = 0; i < sc->nr; i++) {
		const struct zl_slurm_submission *sub = &sc->subs[i];

		for (j = 0; j < sub->nr; j++) {
			const struct zl_slurm_task *t = &sub->tasks[j];
			size_t k;
			int has_row = 0;
			struct ftask *ft;

			for (k = 0; k < f->rows.nr && !has_row; k++) {
				const struct zl_batch_row *r = &f->rows.v[k];

				has_row = r->v[ZL_BCOL_OP] && !strcmp(r->v[ZL_BCOL_OP], t->op) && r->v[ZL_BCOL_ATTEMPT] &&
					  atoi(r->v[ZL_BCOL_ATTEMPT]) == t->attempt;
			}
			if (has_row || !sub->job_id)
				continue;
			ALLOC_GROW(f->tasks, f->nr + 1, f->alloc);
			ft = &f->tasks[f->nr++];
			memset(ft, 0, sizeof(*ft));
			ft->sub = sub;
			ft->t = t;
			ft->name = zl_batch_attempt_name(t->op, t->attempt);
		}
	}
	f->settle_s = f->nr ? kill_wait_s() + 5.0 : 0;
	expectations(f);
	return 0;
}

static void follower_outcome(const struct follower *f, struct zl_batch_outcome *out)
{
	zl_batch_outcome_count(f->bc, &f->rows, out);
	out->interrupt_sig = f->interrupt_sig;
	out->makespan_s = zl_now_monotonic() - f->t0;
}

static void follower_close(struct follower *f)
{
	size_t i;

	zl_batch_status_close(&f->st);
	zl_batch_rows_release(&f->rows);
	for (i = 0; i < f->nr; i++) {
		free(f->tasks[i].name);
		free(f->tasks[i].state);
		free(f->tasks[i].reason);
		free(f->tasks[i].node);
		free(f->tasks[i].gpus);
	}
	free(f->tasks);
	zl_history_close(f->db);
}

/* ---- submitting ------------------------------------------------------------------------------ */

/* The next attempt of op: past every attempt its rows or paths show (batch.h). */
static int next_attempt(const struct zl_batch_config *bc, const struct zl_batch_rows *rows, const char *op)
{
	struct zl_batch_attempts a;

	zl_batch_attempts_find(bc->dir, op, rows, &a);
	return a.next;
}

/*
 * Before a submission: the ops it will run get their canonical paths back; an earlier
 * attempt on them (every task has ended: still_active) moves aside. 0 or -1 with err.
 */
static int archive_before_submission(const struct zl_batch_config *bc, struct follower *f, int retry_failed,
				     struct strbuf *err)
{
	size_t i;

	for (i = 0; i < bc->ops.nr; i++) {
		const struct zl_batch_row *last = zl_batch_rows_last(&f->rows, bc->ops.v[i]);
		struct zl_batch_attempts a;

		if (last && zl_batch_status_final(last->v[ZL_BCOL_STATUS], retry_failed))
			continue;
		zl_batch_attempts_find(bc->dir, bc->ops.v[i], &f->rows, &a);
		if (a.canonical && zl_batch_archive_canonical(bc->dir, bc->ops.v[i], a.canonical, &f->st, &f->rows, err))
			return -1;
	}
	return 0;
}

/* Paths the generated script writes into #SBATCH lines and that every node must reach. */
static int check_paths(const struct zl_batch_config *bc, const char *exe, struct strbuf *err)
{
	if (strpbrk(bc->dir, " \t\n%'\"\\"))
		return zl_error(err, "batch directory '%s': with --launcher slurm its path may not hold blanks, quotes, "
				"backslashes or '%%' (Slurm's output file patterns)", bc->dir);
	if (exe[0] != '/' || zl_ends_with(exe, " (deleted)") || access(exe, R_OK | X_OK))
		return zl_error(err, "the zlbench binary '%s' is not an executable file the nodes can run: "
				"was it replaced while running?", exe);
	return 0;
}

/* Submission k's script path (relative in sub->script; absolute returned, caller frees) and sbatch argv. */
static char *name_submission(const struct zl_batch_config *bc, const struct zl_slurm_config *sc,
			     struct zl_slurm_submission *sub, size_t k)
{
	char *script_path;
	size_t i;

	sub->script = xstrfmt("%s/submit-%zu.sbatch", ZL_SLURM_DIR, k);
	script_path = zl_path_join(bc->dir, sub->script);
	strvec_push(&sub->sbatch_argv, "sbatch");
	strvec_push(&sub->sbatch_argv, "--parsable");
	for (i = 0; i < sc->sbatch_args.nr; i++)
		strvec_push(&sub->sbatch_argv, sc->sbatch_args.v[i]);
	strvec_push(&sub->sbatch_argv, script_path);
	return script_path;
}

/* Write the script of submission sub and hand it to sbatch. 0 with sub->job_id set. */
static int submit(const struct zl_batch_config *bc, struct zl_slurm_config *sc, struct zl_slurm_submission *sub,
		  size_t k, struct strbuf *err)
{
	struct strbuf script = STRBUF_INIT, out = STRBUF_INIT;
	struct strvec env = STRVEC_INIT;
	char *plugins = zl_plugins_dir();
	char *script_path, *logs = zl_path_join(bc->dir, "logs"), *runs = zl_path_join(bc->dir, "runs");
	char *sdir = zl_path_join(bc->dir, ZL_SLURM_DIR "/tasks");
	char stamp[32];
	int code = 0, rc = -1;

	script_path = name_submission(bc, sc, sub, k);
	zl_utc_iso8601(stamp, zl_now_epoch());
	sub->submitted_at = xstrdup(stamp);
	zl_slurm_script(sc, sub, bc, plugins, &script);
	if (zl_mkdir_p(logs, err) || zl_mkdir_p(runs, err) || zl_mkdir_p(sdir, err) ||
	    zl_write_file_atomic(script_path, script.buf, script.len, err))
		goto out;
	if (chmod(script_path, 0755)) {
		zl_error(err, "cannot make '%s' executable: %s", script_path, strerror(errno));
		goto out;
	}
	/* the tasks get sbatch's environment: none of an enclosing job's variables */
	zl_slurm_submit_env(&env);
	/* the tasks see the plugins where this process found them */
	if (zl_env_raw(ZL_ENV_PLUGINS_DIR))
		strvec_pushf(&env, "ZL_PLUGINS_DIR=%s", plugins);
	if (zl_capture(sub->sbatch_argv.v, env.nr ? env.v : NULL, cmd_timeout(), &out, &code, err)) {
		zl_error(err, "cannot run sbatch: %s (is Slurm's client installed and on PATH?)", strerror(errno));
		goto out;
	}
	strbuf_trim(&out);
	if (code == ZL_EXIT_TIMEOUT) {
		struct strbuf name = STRBUF_INIT;

		zl_slurm_job_name(&name, bc->dir);
		zl_error(err, "sbatch did not answer within %.0f s (ZL_SLURM_TIMEOUT); the job may or may not exist: "
			 "check with squeue --name %s (its tasks would write %s/logs/); the batch directory is kept",
			 cmd_timeout(), name.buf, bc->dir);
		strbuf_release(&name);
		rc = -2;
		goto out;
	}
	if (code || zl_slurm_parse_job_id(out.buf, &sub->job_id)) {
		zl_error(err, "sbatch refused the job (exit %d): %s", code, out.len ? out.buf : "(no output)");
		goto out;
	}
	rc = 0;
out:
	strbuf_release(&script);
	strbuf_release(&out);
	strvec_clear(&env);
	free(plugins);
	free(script_path);
	free(logs);
	free(runs);
	free(sdir);
	return rc;
}

/* The launcher's settings: saved ones on resume (the tasks run this binary), else the options. */
static int config_for(const struct zl_batch_config *bc, const struct zl_slurm_run_opts *o, int resume,
		      struct zl_slurm_config *sc, struct strbuf *err)
{
	if (resume) {
		if (zl_slurm_config_load(sc, bc->dir, err))
			return -1;
		free(sc->zlbench);
		sc->zlbench = xstrdup(o->self_exe);
		return 0;
	}
	sc->dir = xstrdup(bc->dir);
	sc->partition = o->partition ? xstrdup(o->partition) : NULL;
	sc->account = o->account ? xstrdup(o->account) : NULL;
	sc->time_per_op_min = o->time_per_op_min;
	if (o->sbatch_args)
		strvec_pushv(&sc->sbatch_args, o->sbatch_args->v);
	sc->zlbench = xstrdup(o->self_exe);
	return 0;
}

/* Forget the last submission (refused, or not saved): slurm.json never names a job that is not there. */
static void drop_submission(struct zl_slurm_config *sc)
{
	struct zl_slurm_submission *sub = &sc->subs[--sc->nr];
	size_t i;

	free(sub->job_id);
	free(sub->submitted_at);
	free(sub->script);
	strvec_clear(&sub->sbatch_argv);
	for (i = 0; i < sub->nr; i++)
		free(sub->tasks[i].op);
	free(sub->tasks);
}

/* The ops without a final row, longest expected first (batch_estimate.h), as local batches start them. */
static void pending_ordered(const struct zl_batch_config *bc, const struct zl_batch_rows *rows, int retry_failed,
			    struct zl_batch_estimate *e)
{
	struct strvec pending = STRVEC_INIT;
	size_t i;

	for (i = 0; i < bc->ops.nr; i++) {
		const struct zl_batch_row *last = zl_batch_rows_last(rows, bc->ops.v[i]);

		if (!last || !zl_batch_status_final(last->v[ZL_BCOL_STATUS], retry_failed))
			strvec_push(&pending, bc->ops.v[i]);
	}
	zl_batch_estimate_ops(e, bc, &pending);
	strvec_clear(&pending);
}

/*
 * A new submission of sc (sc->nr not raised) of the ordered ops [from, from + n), each as
 * its next attempt. Array indices go longest expected first: Slurm starts pending array
 * tasks in index order.
 */
static struct zl_slurm_submission *plan_chunk(const struct zl_batch_config *bc, struct zl_slurm_config *sc,
					      const struct zl_batch_rows *rows, const struct zl_batch_estimate *e,
					      size_t from, size_t n)
{
	struct zl_slurm_submission *sub;
	size_t i;

	ALLOC_GROW(sc->subs, sc->nr + 1, sc->alloc);
	sub = &sc->subs[sc->nr];
	memset(sub, 0, sizeof(*sub));
	strvec_init(&sub->sbatch_argv);
	for (i = from; i < from + n && i < e->nr; i++) {
		struct zl_slurm_task *t;

		ALLOC_GROW(sub->tasks, sub->nr + 1, sub->alloc);
		t = &sub->tasks[sub->nr];
		t->index = (long)sub->nr;
		t->op = xstrdup(e->v[e->order[i]].op);
		t->attempt = next_attempt(bc, rows, t->op);
		sub->nr++;
	}
	return sub;
}

/* Before a new submission: record what ended since; anything still queued or running must end first. */
static int earlier_tasks_ended(struct follower *f, const struct zl_batch_config *bc, const struct zl_slurm_config *sc,
			       struct strbuf *err)
{
	long active;

	if (!f->nr)
		return 0;
	follow(f, FOLLOW_ENDED, 0);
	active = still_active(f);
	if (!active)
		return 0;
	return zl_error(err, "%ld task%s of an earlier submission (job %s) %s not ended: follow it with "
			"zlbench batch --collect %s, or cancel it (scancel) first", active, active == 1 ? "" : "s",
			sc->subs[sc->nr - 1].job_id, active == 1 ? "has" : "have", bc->dir);
}

/* Save slurm.json naming the new submission sub; without it nothing could follow the job: take it back. */
static int save_or_cancel(struct zl_slurm_config *sc, const struct zl_slurm_submission *sub, struct strbuf *err)
{
	const char *argv[] = { "scancel", sub->job_id, NULL };
	struct strbuf o2 = STRBUF_INIT, e2 = STRBUF_INIT;
	int code;

	if (!zl_slurm_config_save(sc, err))
		return 0;
	slurm_cmd(argv, &o2, &code, &e2);
	strbuf_release(&o2);
	strbuf_release(&e2);
	return -1;
}

/*
 * Submit the ops without a final row as new submissions of sc, each saved as sbatch takes
 * it: one job array, or several when they are more than MaxArraySize. 0 with *job_ids set
 * (comma-separated), or left NULL when there is nothing to submit; else submit()'s code
 * (-2: sbatch did not answer) when the first was not submitted. A later one that sbatch
 * refuses leaves its ops without a row, said in a warning (--resume submits them).
 * slurm.json names no job that failed.
 */
static int submit_pending(const struct zl_batch_config *bc, const struct zl_slurm_run_opts *o,
			  struct zl_slurm_config *sc, struct follower *f, char **job_ids, struct strbuf *err)
{
	struct zl_batch_estimate e;
	struct strbuf ids = STRBUF_INIT;
	size_t from, max, chunks;
	int rc = 0;

	zl_batch_estimate_init(&e);
	if (archive_before_submission(bc, f, o->retry_failed, err)) {
		rc = -1;
		goto out;
	}
	pending_ordered(bc, &f->rows, o->retry_failed, &e);
	if (!e.nr) {
		if (zl_verbosity >= 0)
			fprintf(stderr, "zlbench: every operator of %s has a final row; nothing to submit\n", bc->dir);
		goto out;
	}
	max = max_array_tasks(NULL);
	chunks = (e.nr + max - 1) / max;
	for (from = 0; from < e.nr; from += max) {
		struct zl_slurm_submission *sub = plan_chunk(bc, sc, &f->rows, &e, from, max);

		sc->nr++;
		rc = submit(bc, sc, sub, sc->nr, err);
		if (!rc)
			rc = save_or_cancel(sc, sub, err);
		if (rc) {
			drop_submission(sc);
			if (!from)
				goto out;
			zl_print_warning("submission %zu of %zu: %s; its %zu operator%s and those after stay without a row "
					 "(zlbench batch --resume %s submits them)", from / max + 1, chunks, err->buf,
					 e.nr - from, e.nr - from == 1 ? "" : "s", bc->dir);
			strbuf_reset(err);
			rc = 0;
			break;
		}
		strbuf_addf(&ids, "%s%s", ids.len ? "," : "", sub->job_id);
		if (zl_verbosity >= 0)
			fprintf(stderr, "zlbench: submitted Slurm job %s: %zu task%s, one GPU each (%s)\n", sub->job_id,
				sub->nr, sub->nr == 1 ? "" : "s", sub->script);
	}
	*job_ids = strbuf_detach(&ids, NULL);
out:
	strbuf_release(&ids);
	zl_batch_estimate_release(&e);
	return rc;
}

int zl_slurm_launch(const struct zl_batch_config *bc, const struct zl_slurm_run_opts *o, int resume,
		    struct zl_batch_outcome *out, char **job_id, struct strbuf *err)
{
	struct zl_slurm_config sc;
	struct follower f;
	int rc = -1, opened = 0;

	*job_id = NULL;
	memset(out, 0, sizeof(*out));
	zl_slurm_config_init(&sc);
	if (zl_signals_install(err))
		goto out;
	if (config_for(bc, o, resume, &sc, err))
		goto out;
	if (zl_slurm_check_sbatch_args(&sc.sbatch_args, err) || check_paths(bc, sc.zlbench, err))
		goto out;
	if (follower_open(&f, bc, &sc, o, err))
		goto out;
	opened = 1;
	if (earlier_tasks_ended(&f, bc, &sc, err))
		goto out;
	rc = submit_pending(bc, o, &sc, &f, job_id, err);
	if (rc || !*job_id)
		goto out;
	rc = -1;
	/* follow the new submission's tasks too */
	follower_close(&f);
	opened = 0;
	if (follower_open(&f, bc, &sc, o, err))
		goto out;
	opened = 1;
	if (!o->detach)
		follow(&f, FOLLOW_ALL, 1);
	rc = 0;
out:
	if (opened) {
		if (!rc)
			follower_outcome(&f, out);
		follower_close(&f);
	}
	zl_signals_restore();
	zl_slurm_config_release(&sc);
	return rc;
}

int zl_slurm_collect(const struct zl_batch_config *bc, const struct zl_slurm_run_opts *o, int wait,
		     struct zl_batch_outcome *out, struct strbuf *err)
{
	struct zl_slurm_config sc;
	struct follower f;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	zl_slurm_config_init(&sc);
	if (zl_slurm_config_load(&sc, bc->dir, err) || zl_signals_install(err))
		goto out;
	if (follower_open(&f, bc, &sc, o, err))
		goto out;
	follow(&f, wait ? FOLLOW_ALL : FOLLOW_ONCE, 0);
	follower_outcome(&f, out);
	{
		size_t i;

		for (i = 0; i < f.nr; i++)
			out->to_come += !f.tasks[i].recorded;
	}
	out->query_failed = f.query_failing;
	follower_close(&f);
	rc = 0;
out:
	zl_signals_restore();
	zl_slurm_config_release(&sc);
	return rc;
}

void zl_slurm_print_plan(const struct zl_batch_config *bc, const struct zl_slurm_run_opts *o, int whole_suite,
			 FILE *out)
{
	struct zl_slurm_config sc;
	struct zl_slurm_submission *sub;
	struct zl_batch_rows rows = ZL_BATCH_ROWS_INIT;
	struct zl_batch_estimate e;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT, script = STRBUF_INIT;
	char *status = zl_path_join(bc->dir, ZL_BATCH_STATUS_FILE), *plugins = zl_plugins_dir(), *path;
	size_t i, complete, max, chunks;
	int asked = 0;

	zl_slurm_config_init(&sc);
	zl_batch_estimate_init(&e);
	if (config_for(bc, o, zl_slurm_is_batch(bc->dir), &sc, &err)) {
		fprintf(out, "cannot plan: %s\n", err.buf);
		goto done;
	}
	if (!zl_read_file(&text, status, NULL, ZL_CAP_DOC, NULL))
		zl_batch_rows_parse(text.buf, text.len, &rows, &complete, &err);
	pending_ordered(bc, &rows, o->retry_failed, &e);
	max = max_array_tasks(&asked);
	chunks = e.nr ? (e.nr + max - 1) / max : 1;
	sub = plan_chunk(bc, &sc, &rows, &e, 0, max);
	sc.nr++;
	path = name_submission(bc, &sc, sub, sc.nr);
	zl_slurm_script(&sc, sub, bc, plugins, &script);
	fprintf(out, "batch dir: %s\n", bc->dir);
	fprintf(out, "backend: %s\n", bc->backend);
	fprintf(out, "launcher: slurm (one array task per operator, one GPU each)\n");
	fprintf(out, "partition: %s\naccount: %s\n", sc.partition ? sc.partition : "(the cluster's default)",
		sc.account ? sc.account : "(the user's default)");
	if (sc.time_per_op_min > 0)
		fprintf(out, "time per op: %ld min\n", sc.time_per_op_min);
	else
		fprintf(out, "time per op: (the partition's limit)\n");
	/* the submitting process merges, once: the tasks only read replay_records */
	if (bc->replay_batch)
		fprintf(out, "autotune: replay the winners of the runs of batch %s "
			     "(merged into %s/%s before it is submitted)\n",
			bc->replay_batch, bc->dir, ZL_BATCH_REPLAY_DIR);
	fprintf(out, "submissions: %zu (at most %zu tasks each: MaxArraySize %s)\n", chunks, max,
		asked ? "from scontrol show config" : "of Slurm's defaults; scontrol did not say");
	fprintf(out, "array tasks (%zu, longest expected first: %sindex, operator, attempt, expected duration, where "
		     "it comes from, benchmark files):\n", e.nr, chunks > 1 ? "submission:" : "");
	for (i = 0; i < e.nr; i++) {
		const struct zl_est_op *op = &e.v[e.order[i]];

		strbuf_reset(&text);
		zl_batch_estimate_op_text(op, &text);
		if (chunks > 1)
			fprintf(out, "  %zu:%-4zu", i / max + 1, i % max);
		else
			fprintf(out, "  %-4zu", i);
		fprintf(out, " %-24s attempt %-3d %s\n", op->op,
			i < sub->nr ? sub->tasks[i].attempt : next_attempt(bc, &rows, op->op), text.buf);
	}
	zl_batch_estimate_print_totals(&e, whole_suite, out);
	fprintf(out, "sbatch argv:");
	for (i = 0; i < sub->sbatch_argv.nr; i++)
		fprintf(out, " %s", sub->sbatch_argv.v[i]);
	fprintf(out, "\nscript (%s%s):\n%s", path, chunks > 1 ? ", the first submission's" : "", script.buf);
	free(path);
done:
	zl_slurm_config_release(&sc);
	zl_batch_estimate_release(&e);
	zl_batch_rows_release(&rows);
	strbuf_release(&err);
	strbuf_release(&text);
	strbuf_release(&script);
	free(status);
	free(plugins);
}
