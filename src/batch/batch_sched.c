/*
 * The batch scheduler: one `zlbench run` child per task (an op's run, a warm-up
 * shard, a timed replay), at most one task per device, longest expected first,
 * supervised by one poll() loop over the children's output pipes and the
 * signal self-pipe. A row goes to ops_status.csv as each op ends.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "zlbench/batch.h"
#include "zlbench/batch_estimate.h"
#include "zlbench/batch_schedule.h"
#include "zlbench/child.h"
#include "zlbench/env.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/history.h"
#include "zlbench/json.h"
#include "zlbench/resolve.h"
#include "zlbench/run.h"
#include "zlbench/settings.h"
#include "zlbench/units.h"
#include "zlbench/util.h"
#include "zlbench/worker.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

/* How long past its own --timeout (and kill grace) a run child may take before the batch kills it. */
#define WATCHDOG_SLACK_S 60.0
/* How much of a child's log is read back for its PREFLIGHT_FAILED and error lines. */
#define SCAN_CAP (1024 * 1024)

enum task_kind { TASK_RUN, TASK_SHARD, TASK_TIMED };
enum task_state { TASK_BLOCKED, TASK_READY, TASK_RUNNING, TASK_DONE };

struct op_state;

struct task {
	struct op_state *op;
	enum task_kind kind;
	int shard;                 /* 1-based, shards only */
	enum task_state state;
	size_t device;             /* index into the config's devices while running */
	struct child_process cp;
	int log_fd;
	char *run_rel, *log_rel;   /* relative to the batch directory */
	off_t log_start;           /* where this child's output begins in its log */
	char *preflight_check;     /* from "PREFLIGHT_FAILED check=<name>" */
	char *error_line;          /* the first "zlbench: error/preflight" line */
	double started_mono, started_epoch;
	int reaped, status;
	int interrupted;           /* the batch forwarded an interrupt to it */
	struct zl_worker_slot *worker; /* the device's worker it was handed to, or NULL (fresh) */
	int watchdog;              /* the batch killed it: past its timeout */
	double kill_at;            /* SIGKILL after this (0: none) */
	struct zl_batch_row row;   /* its outcome */
};

struct op_state {
	const char *op;            /* borrowed from the config */
	size_t list_index;
	double expect_s;
	int known;                 /* expect_s came from the history (else a guess) */
	int attempt;
	char *name;                /* attempt name: "mm", "mm.2" */
	/* warm-up sharding */
	int nshards;
	int split_in_pytest;       /* level comprehensive: the zl_shard plugin splits, not shape files */
	char *shard_key;
	struct strvec shard_files; /* absolute; empty when split in pytest */
	long *shard_counts;        /* shapes per shard (split in pytest: what zl_shard kept, -1 unknown) */
	char *warm_rel;            /* warmup/<name> */
	int shards_done, shards_failed, shards_interrupted;
	struct zl_batch_row shard_fail; /* the first failing shard's row */
	struct strvec shard_devices;
	struct strvec shard_runs;  /* absolute run dirs of the shards, in shard order */
	struct zl_merge_stats merge;
	double shards_duration_s;  /* sum of the shards' duration_s (pytest's wall time, as history's) */
	double shards_wall_s;      /* sum of the shards' child wall times: the op's device time before timing */
	struct task *timed;
	int finished;
	double wall_started;
};

struct sched {
	const struct zl_batch_config *c;
	const struct zl_batch_run_opts *o;
	struct op_state *ops;      /* pending ops, in start order */
	size_t nops;
	struct task **tasks;       /* in priority order */
	size_t ntasks, alloc_tasks;
	struct task **on_device;
	struct zl_batch_status st;
	struct zl_batch_rows rows; /* every row, read at the start and appended since */
	size_t done, total;
	int interrupt_sig;
	double grace;
	double t0;
	double wall_sum;           /* the walls of the ops this session ended (not interrupted) */
	size_t wall_n;
	double startup_s;          /* a worker's expected start-up (batch_estimate.h) */
	struct zl_progress disp;
	char host[256];
	struct strvec base_env;    /* the environment edits of every child (child_base_env) */
	/* --start worker: one per device, and the directory of their sockets and exit records */
	struct zl_worker_slot *workers;
	char *sock_dir;
};

/* Workers that failed to become ready in a row before a device's ops start fresh instead. */
#define WORKER_MAX_FAILURES 2

/* ---- small helpers ------------------------------------------------------------ */

static char *batch_path(const struct sched *s, const char *rel)
{
	return zl_path_join(s->c->dir, rel);
}

static void log_note(const struct sched *s, const char *log_rel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void log_note(const struct sched *s, const char *log_rel, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	char stamp[32];
	char *path = batch_path(s, log_rel);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	va_list ap;

	zl_utc_iso8601(stamp, zl_now_epoch());
	strbuf_addf(&sb, "# zlbench batch %s: ", stamp);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strbuf_addch(&sb, '\n');
	if (fd >= 0)
		zl_write_all(fd, sb.buf, sb.len);
	if (fd >= 0)
		close(fd);
	strbuf_release(&sb);
	free(path);
}

/* ---- child argv ------------------------------------------------------------------ */

void zl_batch_child_argv(const struct zl_batch_config *c, const char *self_exe, const char *op,
			 const char *device, const char *run_dir, const struct strvec *extra,
			 struct strvec *argv)
{
	size_t i;

	strvec_push(argv, self_exe);
	strvec_push(argv, "run");
	for (i = 0; i < c->run_args.nr; i++)
		strvec_push(argv, c->run_args.v[i]);
	strvec_pushf(argv, "--backend=%s", c->backend);
	strvec_pushf(argv, "--devices=%s", device);
	strvec_pushf(argv, "--op=%s", op);
	strvec_pushf(argv, "--out=%s", run_dir);
	for (i = 0; extra && i < extra->nr; i++)
		strvec_push(argv, extra->v[i]);
	if (c->passthrough.nr) {
		strvec_push(argv, "--");
		for (i = 0; i < c->passthrough.nr; i++)
			strvec_push(argv, c->passthrough.v[i]);
	}
}

/* ---- scheduler facts for the child's identity --------------------------------- */

static char *json_take(cJSON *doc)
{
	char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;

	cJSON_Delete(doc);
	return text;
}

static const char *const role_names[] = {
	[TASK_RUN] = "run", [TASK_SHARD] = "warmup_shard", [TASK_TIMED] = "timed",
};

/* ZL_SCHEDULER for a child: ours, nested under "batch" when an outer scheduler (Slurm) set one. */
static char *scheduler_json(const struct sched *s, const struct task *t)
{
	const char *outer = zl_env(ZL_ENV_SCHEDULER);
	cJSON *mine = cJSON_CreateObject(), *doc = NULL;
	char *base = strrchr(s->c->dir, '/');

	if (!mine || zl_json_add_string(mine, "kind", "batch") ||
	    zl_json_add_string(mine, "job_id", base ? base + 1 : s->c->dir) ||
	    zl_json_add_number(mine, "array_task_id", (double)t->op->list_index) ||
	    zl_json_add_string(mine, "node", s->host) ||
	    zl_json_add_string(mine, "batch_dir", s->c->dir) ||
	    zl_json_add_string(mine, "op", t->op->op) ||
	    zl_json_add_number(mine, "attempt", t->op->attempt) ||
	    zl_json_add_string(mine, "device", s->c->devices.v[t->device]) ||
	    zl_json_add_string(mine, "role", role_names[t->kind])) {
		cJSON_Delete(mine);
		return NULL;
	}
	if (outer)
		doc = cJSON_Parse(outer);
	if (!cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		return json_take(mine);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "batch");
	if (zl_json_add_item(doc, "batch", mine)) {
		cJSON_Delete(doc);
		return NULL;
	}
	return json_take(doc);
}

/* A shard's own part of ZL_WARMUP: its number and how its shapes are chosen. Nonzero on failure. */
static int warmup_shard_fields(cJSON *doc, const struct op_state *op, int shard)
{
	if (op->split_in_pytest)
		/* what it kept is known when it has run: plugins/shard.json, and the timed run's shard_shapes */
		return zl_json_add_number(doc, "shard", shard) ||
		       zl_json_add_string(doc, "plugin", "zl_shard") ||
		       zl_json_add_string(doc, "rule", "shape j of each benchmark's final list kept when j % shards == shard - 1");
	return zl_json_add_number(doc, "shard", shard) ||
	       zl_json_add_string(doc, "shape_file", op->shard_files.v[shard - 1]) ||
	       zl_json_add_number(doc, "shapes", (double)op->shard_counts[shard - 1]);
}

/* The timed replay's part of ZL_WARMUP: the shapes per shard, the shards' device time and merge. Nonzero on failure. */
static int warmup_timed_fields(const struct sched *s, cJSON *doc, const struct op_state *op)
{
	cJSON *counts = cJSON_CreateArray();
	char *merged;
	int i, bad;

	for (i = 0; counts && i < op->nshards; i++)
		if (zl_json_add_item(counts, NULL, op->shard_counts[i] >= 0 ? cJSON_CreateNumber((double)op->shard_counts[i])
									    : cJSON_CreateNull()))
			break;
	if (counts && i < op->nshards) {
		cJSON_Delete(counts);
		counts = NULL;
	}
	if (zl_json_add_item(doc, "shard_shapes", counts))
		return 1;
	merged = xstrfmt("%s/%s/merged", s->c->dir, op->warm_rel);
	/*
	 * The op's device time is the shards' and this run's: history stores this run
	 * alone (shards run with ZL_NO_HISTORY=1), so its readers need the shards' share
	 */
	bad = zl_json_add_number(doc, "shards_duration_s", op->shards_duration_s) ||
	      zl_json_add_number(doc, "shards_wall_s", op->shards_wall_s) ||
	      zl_json_add_number(doc, "merged_records", (double)op->merge.entries) ||
	      zl_json_add_number(doc, "merged_kernels", (double)op->merge.kernels) ||
	      zl_json_add_number(doc, "conflicts", (double)op->merge.conflicts) ||
	      zl_json_add_string(doc, "merged_dir", merged) ||
	      zl_json_add_item(doc, "shard_devices",
			       cJSON_CreateStringArray(op->shard_devices.v, (int)op->shard_devices.nr)) ||
	      zl_json_add_item(doc, "shard_runs", cJSON_CreateStringArray(op->shard_runs.v, (int)op->shard_runs.nr));
	free(merged);
	return bad;
}

/* ZL_WARMUP for a shard or the timed replay; NULL for a plain run. */
static char *warmup_json(const struct sched *s, const struct task *t)
{
	const struct op_state *op = t->op;
	cJSON *doc;
	int bad;

	if (t->kind == TASK_RUN)
		return NULL;
	doc = cJSON_CreateObject();
	bad = !doc || zl_json_add_string(doc, "role", t->kind == TASK_SHARD ? "shard" : "timed") ||
	      zl_json_add_number(doc, "devices", s->c->warmup_devices) ||
	      zl_json_add_number(doc, "shards", op->nshards) ||
	      zl_json_add_string(doc, "entry", op->shard_key) ||
	      zl_json_add_string(doc, "split", op->split_in_pytest ? "pytest" : "shape_file");
	if (!bad)
		bad = t->kind == TASK_SHARD ? warmup_shard_fields(doc, op, t->shard) : warmup_timed_fields(s, doc, op);
	if (bad) {
		cJSON_Delete(doc);
		return NULL;
	}
	return json_take(doc);
}

/* ---- tasks -------------------------------------------------------------------- */

static struct task *task_new(struct sched *s, struct op_state *op, enum task_kind kind, int shard,
			     enum task_state state)
{
	struct task *t = xcalloc(1, sizeof(*t));

	t->op = op;
	t->kind = kind;
	t->shard = shard;
	t->state = state;
	child_init(&t->cp);
	t->log_fd = -1;
	zl_batch_row_init(&t->row);
	ALLOC_GROW(s->tasks, s->ntasks + 1, s->alloc_tasks);
	s->tasks[s->ntasks++] = t;
	return t;
}

static void task_free(struct task *t)
{
	if (t->log_fd >= 0)
		close(t->log_fd);
	child_release(&t->cp);
	free(t->run_rel);
	free(t->log_rel);
	free(t->preflight_check);
	free(t->error_line);
	zl_batch_row_release(&t->row);
	free(t);
}

static void op_release(struct op_state *op)
{
	free(op->name);
	free(op->shard_key);
	strvec_clear(&op->shard_files);
	free(op->shard_counts);
	free(op->warm_rel);
	zl_batch_row_release(&op->shard_fail);
	strvec_clear(&op->shard_devices);
	strvec_clear(&op->shard_runs);
	zl_merge_stats_release(&op->merge);
}

static const char *task_label(const struct task *t, struct strbuf *sb)
{
	strbuf_reset(sb);
	if (t->kind == TASK_SHARD)
		strbuf_addf(sb, "%s[warm-up %d/%d]", t->op->op, t->shard, t->op->nshards);
	else if (t->kind == TASK_TIMED)
		strbuf_addf(sb, "%s[replay]", t->op->op);
	else
		strbuf_addstr(sb, t->op->op);
	return sb->buf;
}

/* Remember the lines a failed child's row needs when it left no identity. */
static void scan_line(struct task *t, const char *line)
{
	static const char pf[] = "PREFLIGHT_FAILED check=";

	if (zl_starts_with(line, pf) && !t->preflight_check)
		t->preflight_check = xstrdup(line + strlen(pf));
	else if (!t->error_line && (zl_starts_with(line, "zlbench: error: ") ||
				    zl_starts_with(line, "zlbench: preflight ")))
		t->error_line = xstrdup(line + strlen("zlbench: "));
}

/* Read back the child's part of its log for the lines a row needs when no identity tells. */
static void scan_log(const struct sched *s, struct task *t)
{
	char *path = batch_path(s, t->log_rel);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct strbuf text = STRBUF_INIT;
	char buf[65536];
	char *line, *next;

	if (fd >= 0 && lseek(fd, t->log_start, SEEK_SET) == t->log_start) {
		ssize_t n;

		while (text.len < SCAN_CAP && (n = read(fd, buf, sizeof(buf))) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				break;
			strbuf_add(&text, buf, (size_t)n);
		}
	}
	for (line = text.buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		scan_line(t, line);
	}
	if (fd >= 0)
		close(fd);
	strbuf_release(&text);
	free(path);
}

/*
 * Start the child with its stdout and stderr on its log file. Not a pipe: when
 * the batch dies, the run must still be able to write (a pipe without reader
 * kills it with SIGPIPE before it can end its pytest and write its identity).
 * child.h offers a pipe or inheritance, so the batch lends the child its own
 * fds 1 and 2 for the duration of the fork.
 */
int zl_batch_start_into_log(struct child_process *cp, int log_fd, struct strbuf *err)
{
	int saved[2] = { -1, -1 }, fd, rc;

	fflush(stdout);
	fflush(stderr);
	for (fd = 1; fd <= 2; fd++) {
		/* EBADF: the batch runs with that fd closed; it is closed again afterwards */
		saved[fd - 1] = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (saved[fd - 1] < 0 && errno != EBADF) {
			rc = zl_error(err, "cannot save fd %d: %s", fd, strerror(errno));
			if (saved[0] >= 0)
				close(saved[0]);
			return rc;
		}
	}
	if (dup2(log_fd, 1) < 0 || dup2(log_fd, 2) < 0)
		rc = zl_error(err, "cannot point the child's output at its log: %s", strerror(errno));
	else
		rc = child_start(cp, err);
	for (fd = 1; fd <= 2; fd++) {
		if (saved[fd - 1] >= 0) {
			dup2(saved[fd - 1], fd);
			close(saved[fd - 1]);
		} else {
			close(fd);
		}
	}
	return rc;
}

/* The edits every child of the batch gets: its settings come from the argv only. */
static void child_base_env(struct strvec *env)
{
	size_t i;

	/* the child takes its settings from the argv only (batch.json replays them on --resume) */
	for (i = 0; i < ZL_SET__COUNT; i++)
		if (zl_setting_defs[i].env)
			strvec_push(env, zl_setting_defs[i].env);
	strvec_push(env, "ZL_PUSH_URL"); /* the batch pushes once, at the end */
	strvec_push(env, "PARALLEL_WARMUP_GPUS");
	strvec_push(env, "ZL_START");
}

/* A warm-up shard tunes into a private cache: a worker's in-memory tuner state would leak into it. */
static int wants_worker(const struct sched *s, const struct task *t)
{
	return s->workers && t->kind != TASK_SHARD;
}

/*
 * What the task's kind asks of its child: its run directory and log (relative),
 * and the options and environment edits of a warm-up shard or a timed replay.
 */
static void task_kind_setup(const struct sched *s, struct task *t, struct strvec *extra)
{
	const struct op_state *op = t->op;

	if (t->kind == TASK_SHARD) {
		t->run_rel = xstrfmt("%s/shard-%d", op->warm_rel, t->shard);
		t->log_rel = xstrfmt("logs/%s.warmup-%d.log", op->name, t->shard);
		if (op->split_in_pytest) {
			/* the run's own shapes; its pytest keeps this shard's share (plugins/zl_shard.py) */
			strvec_pushf(&t->cp.env, "ZL_WARMUP_SHARD=%d/%d", t->shard, op->nshards);
		} else {
			strvec_pushf(extra, "--shape-file=%s", op->shard_files.v[t->shard - 1]);
			strvec_push(extra, "--shape-mode=file");
		}
		/* a private tuner cache per shard: parallel shards never share SQLite for writing */
		strvec_push(extra, "--isolate-tuner-cache");
		/* a shard times a slice of the shapes: as a run of the op it would mislead history's readers */
		strvec_push(&t->cp.env, "ZL_NO_HISTORY=1");
	}
	if (t->kind != TASK_SHARD || !op->split_in_pytest)
		strvec_push(&t->cp.env, "ZL_WARMUP_SHARD"); /* an inherited one would split a whole run */
	if (t->kind != TASK_SHARD) {
		t->run_rel = xstrfmt("runs/%s", op->name);
		t->log_rel = xstrfmt("logs/%s.log", op->name);
		if (t->kind == TASK_TIMED)
			strvec_pushf(extra, "--replay-from=%s/%s/merged", s->c->dir, op->warm_rel);
	}
}

/* The child's environment edits (worker socket, ZL_SCHEDULER, ZL_WARMUP) and how it is started. */
static void task_child_env(const struct sched *s, struct task *t)
{
	char *sched_env, *warm_env;

	strvec_pushv(&t->cp.env, s->base_env.v);
	if (t->worker) {
		strvec_pushf(&t->cp.env, "%s=%s", ZL_WORKER_SOCKET_VAR, t->worker->socket_path);
		t->worker->ops++;
	} else {
		strvec_push(&t->cp.env, ZL_WORKER_SOCKET_VAR);
	}
	sched_env = scheduler_json(s, t);
	if (sched_env)
		strvec_pushf(&t->cp.env, "ZL_SCHEDULER=%s", sched_env);
	warm_env = warmup_json(s, t);
	if (warm_env)
		strvec_pushf(&t->cp.env, "ZL_WARMUP=%s", warm_env);
	else
		strvec_push(&t->cp.env, "ZL_WARMUP");
	free(sched_env);
	free(warm_env);

	t->cp.new_pgroup = 1;      /* our signals reach it alone; the terminal's go to the batch */
	t->cp.no_stdin = 1;
	/* if the batch dies, the run ends its pytest and leaves a truthful identity */
	t->cp.pdeathsig = SIGTERM;
}

/* The line above the child's output in its log: when, what, where and its argv. */
static void write_log_head(const struct sched *s, const struct task *t)
{
	struct strbuf head = STRBUF_INIT, label = STRBUF_INIT;
	char stamp[32];
	size_t i;

	zl_utc_iso8601(stamp, zl_now_epoch());
	strbuf_addf(&head, "# zlbench batch %s: %s on device %s, attempt %d", stamp,
		    task_label(t, &label), s->c->devices.v[t->device], t->op->attempt);
	if (t->worker)
		strbuf_addf(&head, ", in the device's worker (pid %ld)", (long)t->worker->pid);
	strbuf_addch(&head, ':');
	for (i = 0; i < t->cp.args.nr; i++)
		strbuf_addf(&head, " %s", t->cp.args.v[i]);
	strbuf_addch(&head, '\n');
	if (t->log_fd >= 0)
		zl_write_all(t->log_fd, head.buf, head.len);
	strbuf_release(&head);
	strbuf_release(&label);
}

static int start_task(struct sched *s, struct task *t, size_t device, struct strbuf *err)
{
	const struct zl_batch_config *c = s->c;
	struct op_state *op = t->op;
	struct strvec extra = STRVEC_INIT;
	char *run_dir, *log_path;
	int rc;

	t->device = device;
	task_kind_setup(s, t, &extra);
	run_dir = batch_path(s, t->run_rel);
	log_path = batch_path(s, t->log_rel);
	if (t->kind == TASK_SHARD) {
		/* the op's own log says where its shards went (and marks the attempt as used) */
		char *main_log = xstrfmt("logs/%s.log", op->name);

		log_note(s, main_log, "warm-up shard %d/%d of %s on device %s: %s", t->shard, op->nshards,
			 op->op, c->devices.v[device], t->log_rel);
		free(main_log);
	}
	zl_batch_child_argv(c, s->o->self_exe, op->op, c->devices.v[device], run_dir, &extra, &t->cp.args);
	task_child_env(s, t);

	t->started_mono = zl_now_monotonic();
	t->started_epoch = zl_now_epoch();
	t->log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (t->log_fd < 0) {
		rc = zl_error(err, "cannot write '%s': %s", log_path, strerror(errno));
		t->state = TASK_RUNNING;
		s->on_device[device] = t;
		goto out;
	}
	write_log_head(s, t);
	t->log_start = lseek(t->log_fd, 0, SEEK_END);
	if (!op->wall_started)
		op->wall_started = t->started_mono;
	t->state = TASK_RUNNING;
	s->on_device[device] = t;
	rc = zl_batch_start_into_log(&t->cp, t->log_fd, err);
	close(t->log_fd); /* the child has it now */
	t->log_fd = -1;
out:
	free(run_dir);
	free(log_path);
	strvec_clear(&extra);
	return rc;
}

/* ---- outcomes ----------------------------------------------------------------- */

/*
 * No final identity (status is the unfinished one's, or NULL for none): the
 * child's exit code and what it printed tell the status, exit code and reason.
 */
static void row_from_exit(struct task *t, int start_failed, const char *start_err, const char *status)
{
	struct zl_batch_row *r = &t->row;
	int exit_code = start_failed ? ZL_EXIT_INTERNAL : child_exit_code(t->status);

	zl_batch_row_set(r, ZL_BCOL_STATUS, zl_batch_status_from_exit(exit_code, t->interrupted));
	zl_batch_row_setf(r, ZL_BCOL_EXIT_CODE, "%d", exit_code);
	if (start_failed)
		zl_batch_row_set(r, ZL_BCOL_REASON, start_err);
	else if (t->preflight_check && t->error_line)
		zl_batch_row_setf(r, ZL_BCOL_REASON, "%s", t->error_line);
	else if (t->preflight_check)
		zl_batch_row_setf(r, ZL_BCOL_REASON, "preflight check '%s' failed", t->preflight_check);
	else if (t->error_line)
		zl_batch_row_set(r, ZL_BCOL_REASON, t->error_line);
	else if (status)
		zl_batch_row_setf(r, ZL_BCOL_REASON, "zlbench run ended (exit %d) before finishing its run identity",
				  exit_code);
	else if (exit_code > ZL_EXIT_SIGNAL_BASE)
		zl_batch_row_setf(r, ZL_BCOL_REASON, "zlbench run killed by signal %d (%s)",
				  exit_code - ZL_EXIT_SIGNAL_BASE, strsignal(exit_code - ZL_EXIT_SIGNAL_BASE));
	else if (exit_code)
		zl_batch_row_setf(r, ZL_BCOL_REASON, "zlbench run exited with %d and left no run identity", exit_code);
	zl_batch_row_set(r, ZL_BCOL_STARTED_AT, NULL);
	zl_batch_row_set(r, ZL_BCOL_FINISHED_AT, NULL);
	zl_batch_row_set(r, ZL_BCOL_DURATION_S, NULL);
}

/* The devices the op's warm-up shards ran on, comma-separated ("-": a shard that never ran). */
static void row_warmup_devices(struct zl_batch_row *r, const struct op_state *op)
{
	struct strbuf d = STRBUF_INIT;
	size_t i;

	if (!op->shard_devices.nr)
		return;
	for (i = 0; i < op->shard_devices.nr; i++)
		strbuf_addf(&d, "%s%s", i ? "," : "", op->shard_devices.v[i]);
	zl_batch_row_set(r, ZL_BCOL_WARMUP_DEVICES, d.buf);
	strbuf_release(&d);
}

static void fill_row(struct sched *s, struct task *t, int start_failed, const char *start_err)
{
	const struct zl_batch_config *c = s->c;
	struct zl_batch_row *r = &t->row;
	struct strbuf err = STRBUF_INIT;
	char *run_dir = batch_path(s, t->run_rel);
	char stamp[32];
	int have_identity = !start_failed && !zl_batch_row_from_identity(r, run_dir, &err);
	const char *status = have_identity ? r->v[ZL_BCOL_STATUS] : NULL;

	if (t->watchdog) {
		zl_batch_row_set(r, ZL_BCOL_STATUS, ZL_STATUS_TIMEOUT);
		zl_batch_row_setf(r, ZL_BCOL_EXIT_CODE, "%d", ZL_EXIT_TIMEOUT);
		zl_batch_row_setf(r, ZL_BCOL_REASON, "zlbench run did not end %.0f s after its --timeout of %g s: killed by the batch",
				  s->grace + WATCHDOG_SLACK_S, c->timeout_s);
	} else if (!status || !strcmp(status, ZL_STATUS_RUNNING)) {
		row_from_exit(t, start_failed, start_err, status);
	}
	if (!r->v[ZL_BCOL_REASON] && t->interrupted && s->interrupt_sig &&
	    strcmp(r->v[ZL_BCOL_STATUS], ZL_STATUS_PASSED))
		zl_batch_row_setf(r, ZL_BCOL_REASON, "interrupted: the batch got %s and forwarded it",
				  strsignal(s->interrupt_sig));
	if (!r->v[ZL_BCOL_BACKEND])
		zl_batch_row_set(r, ZL_BCOL_BACKEND, c->backend);
	if (!r->v[ZL_BCOL_LEVEL])
		zl_batch_row_set(r, ZL_BCOL_LEVEL, c->level);
	if (!r->v[ZL_BCOL_STARTED_AT]) {
		zl_utc_iso8601(stamp, t->started_epoch);
		zl_batch_row_set(r, ZL_BCOL_STARTED_AT, stamp);
	}
	if (!r->v[ZL_BCOL_FINISHED_AT]) {
		zl_utc_iso8601(stamp, zl_now_epoch());
		zl_batch_row_set(r, ZL_BCOL_FINISHED_AT, stamp);
	}
	zl_batch_row_set(r, ZL_BCOL_OP, t->op->op);
	zl_batch_row_set(r, ZL_BCOL_DEVICE, c->devices.v[t->device]);
	zl_batch_row_set(r, ZL_BCOL_RUN_DIR, zl_is_dir(run_dir) ? t->run_rel : NULL);
	zl_batch_row_set(r, ZL_BCOL_LOG, t->log_rel);
	zl_batch_row_setf(r, ZL_BCOL_ATTEMPT, "%d", t->op->attempt);
	zl_batch_row_setf(r, ZL_BCOL_WALL_S, "%.3f", zl_now_monotonic() - t->started_mono);
	zl_batch_row_setf(r, ZL_BCOL_WARMUP_SHARDS, "%d", t->op->nshards);
	row_warmup_devices(r, t->op);
	strbuf_release(&err);
	free(run_dir);
}

static void row_copy(struct zl_batch_row *dst, const struct zl_batch_row *src)
{
	size_t i;

	for (i = 0; i < ZL_BCOL__COUNT; i++)
		zl_batch_row_set(dst, (enum zl_batch_col)i, src->v[i]);
}

/* The op is over: append its row (fsync'd) and count it. */
static void finish_op(struct sched *s, struct op_state *op, const struct zl_batch_row *r)
{
	struct strbuf err = STRBUF_INIT;

	op->finished = 1;
	if (zl_batch_status_append(&s->st, r, &err))
		zl_print_error("%s", err.buf);
	zl_batch_rows_add(&s->rows, r);
	s->done++;
	if (r->v[ZL_BCOL_STATUS] && strcmp(r->v[ZL_BCOL_STATUS], ZL_STATUS_INTERRUPTED)) {
		s->wall_sum += zl_now_monotonic() - op->wall_started;
		s->wall_n++;
	}
	zl_batch_display_finished(&s->disp, s->done, s->total, r);
	strbuf_release(&err);
}

/* Every shard is back: merge their records and release the replay, or end the op. */
static void shards_over(struct sched *s, struct op_state *op)
{
	struct zl_batch_row r;
	struct strbuf err = STRBUF_INIT;
	char *merged;
	int i;

	zl_batch_row_init(&r);
	if (op->shards_failed || op->shards_interrupted) {
		row_copy(&r, &op->shard_fail);
		finish_op(s, op, &r);
		op->timed->state = TASK_DONE;
		zl_batch_row_release(&r);
		return;
	}
	merged = xstrfmt("%s/%s/merged", s->c->dir, op->warm_rel);
	strvec_clear(&op->shard_runs);
	for (i = 1; i <= op->nshards; i++)
		strvec_pushf(&op->shard_runs, "%s/%s/shard-%d", s->c->dir, op->warm_rel, i);
	for (i = 0; op->split_in_pytest && i < op->nshards; i++) {
		strbuf_reset(&err);
		op->shard_counts[i] = zl_batch_shard_kept(op->shard_runs.v[i], &err);
		if (op->shard_counts[i] < 0)
			zl_print_warning("%s: warm-up shard %d/%d may have run every shape, so the shards repeat each "
					 "other's work: %s", op->op, i + 1, op->nshards, err.buf);
	}
	strbuf_reset(&err);
	if (zl_batch_merge_records(&op->shard_runs, merged, &op->merge, &err)) {
		zl_batch_row_set(&r, ZL_BCOL_OP, op->op);
		zl_batch_row_set(&r, ZL_BCOL_STATUS, ZL_STATUS_FAILED);
		zl_batch_row_setf(&r, ZL_BCOL_EXIT_CODE, "%d", ZL_EXIT_FAILED);
		zl_batch_row_set(&r, ZL_BCOL_BACKEND, s->c->backend);
		zl_batch_row_set(&r, ZL_BCOL_LEVEL, s->c->level);
		zl_batch_row_setf(&r, ZL_BCOL_REASON, "cannot merge the warm-up records: %s", err.buf);
		zl_batch_row_set(&r, ZL_BCOL_RUN_DIR, op->warm_rel);
		zl_batch_row_setf(&r, ZL_BCOL_ATTEMPT, "%d", op->attempt);
		zl_batch_row_setf(&r, ZL_BCOL_WARMUP_SHARDS, "%d", op->nshards);
		finish_op(s, op, &r);
		op->timed->state = TASK_DONE;
	} else {
		if (op->merge.conflicts)
			zl_print_warning("%s: %ld autotune keys were tuned differently by two warm-up shards; "
					 "the first shard's winner is replayed (%s/merged/merge.json)",
					 op->op, op->merge.conflicts, op->warm_rel);
		op->timed->state = TASK_READY;
	}
	free(merged);
	zl_batch_row_release(&r);
	strbuf_release(&err);
}

/* What ran where and when, for the report's timeline (batch_schedule.h). */
static void schedule_note(const struct sched *s, const struct task *t)
{
	const struct zl_batch_row *r = &t->row;
	double now = zl_now_epoch();
	struct zl_sched_line l = {
		.op = t->op->op, .attempt = t->op->attempt, .role = role_names[t->kind],
		.shard = t->kind == TASK_SHARD ? t->shard : 0, .device = s->c->devices.v[t->device],
		.start_epoch = t->started_epoch > 0 ? t->started_epoch : now, .end_epoch = now,
		.status = r->v[ZL_BCOL_STATUS],
		.exit_code = r->v[ZL_BCOL_EXIT_CODE] ? atoi(r->v[ZL_BCOL_EXIT_CODE]) : -1,
		.run_dir = r->v[ZL_BCOL_RUN_DIR], .log = t->log_rel,
	};
	struct strbuf err = STRBUF_INIT;

	if (zl_schedule_append(s->c->dir, &l, &err))
		zl_print_warning("%s", err.buf);
	strbuf_release(&err);
}

/*
 * After an op handed to the device's worker: the worker is ended here when its op's run died
 * (a signal, the watchdog: the op may still run in it), or when the op ran in it and did not
 * end cleanly (passed, failed, or skipped: pytest ended with every test skipped) or the worker
 * retires; the next op then gets a new one. A run
 * that never reached the worker (preflight stopped it, or the worker refused the op) leaves
 * the worker as it is.
 */
static void worker_after_op(struct sched *s, struct task *t)
{
	char *path = xstrfmt("%s/%s/run_identity.json", s->c->dir, t->run_rel);
	struct strbuf text = STRBUF_INIT;
	cJSON *doc = NULL;
	const char *mode, *status = t->row.v[ZL_BCOL_STATUS];
	int end = WIFSIGNALED(t->status) || t->watchdog;

	if (strbuf_read_file(&text, path) > 0)
		doc = cJSON_Parse(text.buf);
	mode = zl_json_path_string(doc, "start.mode");
	if (!end && mode && !strcmp(mode, "reused"))
		end = zl_json_path_string(doc, "start.retired_after") || t->interrupted || !status ||
		      (strcmp(status, ZL_STATUS_PASSED) && strcmp(status, ZL_STATUS_FAILED) &&
		       strcmp(status, ZL_STATUS_SKIPPED));
	if (end && t->worker->pid > 0)
		zl_worker_slot_kill(t->worker);
	cJSON_Delete(doc);
	strbuf_release(&text);
	free(path);
}

static void task_done(struct sched *s, struct task *t, int start_failed, const char *start_err)
{
	struct op_state *op = t->op;

	if (t->log_fd >= 0) {
		close(t->log_fd);
		t->log_fd = -1;
	}
	if (!start_failed)
		scan_log(s, t);
	fill_row(s, t, start_failed, start_err);
	schedule_note(s, t);
	if (t->worker && !start_failed)
		worker_after_op(s, t);
	t->state = TASK_DONE;
	s->on_device[t->device] = NULL;
	if (t->kind != TASK_SHARD) {
		finish_op(s, op, &t->row);
		return;
	}
	if (t->row.v[ZL_BCOL_DURATION_S])
		op->shards_duration_s += strtod(t->row.v[ZL_BCOL_DURATION_S], NULL);
	if (t->row.v[ZL_BCOL_WALL_S])
		op->shards_wall_s += strtod(t->row.v[ZL_BCOL_WALL_S], NULL);
	/* in shard order, whatever order they end in */
	free((char *)op->shard_devices.v[t->shard - 1]);
	op->shard_devices.v[t->shard - 1] = xstrdup(s->c->devices.v[t->device]);
	op->shards_done++;
	if (strcmp(t->row.v[ZL_BCOL_STATUS], ZL_STATUS_PASSED)) {
		int interrupted = !strcmp(t->row.v[ZL_BCOL_STATUS], ZL_STATUS_INTERRUPTED);

		/* the op's row says which shard went wrong; an interruption wins (it is not final) */
		if ((!op->shards_failed && !op->shards_interrupted) || (interrupted && !op->shards_interrupted)) {
			const char *why = t->row.v[ZL_BCOL_REASON];

			row_copy(&op->shard_fail, &t->row);
			zl_batch_row_setf(&op->shard_fail, ZL_BCOL_REASON, "warm-up shard %d/%d %s%s%s", t->shard,
					  op->nshards, t->row.v[ZL_BCOL_STATUS], why ? ": " : "", why ? why : "");
		}
		if (interrupted)
			op->shards_interrupted++;
		else
			op->shards_failed++;
	}
	if (op->shards_failed || op->shards_interrupted) {
		size_t i;

		/* shards not started yet are pointless now */
		for (i = 0; i < s->ntasks; i++)
			if (s->tasks[i]->op == op && s->tasks[i]->kind == TASK_SHARD &&
			    s->tasks[i]->state == TASK_READY) {
				s->tasks[i]->state = TASK_DONE;
				op->shards_done++;
			}
	}
	if (op->shards_done == op->nshards)
		shards_over(s, op);
}

/* ---- planning ------------------------------------------------------------------ */

/*
 * An op whose last attempt finished while no batch was there to write its row
 * (the batch was killed between the child's end and the row): take its identity.
 */
static int adopt_finished(struct sched *s, const char *op, int last_attempt)
{
	char *name = zl_batch_attempt_name(op, last_attempt);
	char *rel = xstrfmt("runs/%s", name);
	char *run_dir = batch_path(s, rel);
	struct zl_batch_row r;
	struct strbuf err = STRBUF_INIT;
	int adopted = 0;

	zl_batch_row_init(&r);
	if (!zl_batch_row_from_identity(&r, run_dir, &err) &&
	    zl_batch_status_final(r.v[ZL_BCOL_STATUS], s->o->retry_failed)) {
		struct strbuf e2 = STRBUF_INIT;

		zl_batch_row_set(&r, ZL_BCOL_OP, op);
		zl_batch_row_set(&r, ZL_BCOL_RUN_DIR, rel);
		zl_batch_row_setf(&r, ZL_BCOL_ATTEMPT, "%d", last_attempt);
		zl_batch_row_setf(&r, ZL_BCOL_LOG, "logs/%s.log", name);
		if (zl_batch_status_append(&s->st, &r, &e2))
			zl_print_error("%s", e2.buf);
		else
			adopted = 1;
		if (adopted) {
			zl_batch_rows_add(&s->rows, &r);
			if (zl_verbosity >= 0)
				fprintf(stderr, "zlbench: %s: attempt %d finished (%s) before the batch could record it; recorded now\n",
					op, last_attempt, r.v[ZL_BCOL_STATUS]);
		}
		strbuf_release(&e2);
	}
	zl_batch_row_release(&r);
	strbuf_release(&err);
	free(run_dir);
	free(rel);
	free(name);
	return adopted;
}

static int wants_warmup(const struct zl_batch_config *c, const char *op)
{
	return c->warmup_devices > 0 && (!c->warmup_ops.nr || strvec_find(&c->warmup_ops, op) >= 0);
}

/* Split the op's shapes for warm-up; on any obstacle the op runs plainly and says why. */
static void plan_warmup(struct sched *s, struct op_state *op)
{
	const struct zl_batch_config *c = s->c;
	struct zl_nodes nodes = ZL_NODES_INIT;
	struct strvec classes = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	char *shape_file, *warm_dir;
	int k = -1;

	op->warm_rel = xstrfmt("warmup/%s", op->name);
	warm_dir = batch_path(s, op->warm_rel);
	shape_file = c->shape_mode_file && c->shape_file ? xstrdup(c->shape_file)
		     : zl_path_join(c->flaggems_dir, "benchmark/core_shapes.yaml");
	/* a plan of an attempt that never started: start it over */
	if (zl_remove_tree(warm_dir, &err))
		goto out;
	if (zl_resolve_nodes(c->flaggems_dir, NULL, op->op, NULL, &nodes, &err) != ZL_RESOLVE_OK)
		goto out;
	zl_benchmark_classes(c->flaggems_dir, &nodes, &classes);
	op->shard_counts = xcalloc((size_t)c->warmup_devices, sizeof(*op->shard_counts));
	/*
	 * At level comprehensive FlagGems adds shapes in code (set_more_shapes), which
	 * no shape file can split: each shard's pytest keeps its share of the final
	 * list instead (plugins/zl_shard.py). The file's shapes still bound the shards.
	 */
	op->split_in_pytest = c->level && !strcmp(c->level, "comprehensive");
	if (op->split_in_pytest) {
		k = zl_batch_count_shapes(shape_file, op->op, classes.nr ? classes.v : NULL, &op->shard_key, &err);
		if (k > c->warmup_devices)
			k = c->warmup_devices;
		if (k > 0 && zl_mkdir_p(warm_dir, &err))
			k = -1;
	} else {
		k = zl_batch_split_shapes(shape_file, op->op, classes.nr ? classes.v : NULL, c->warmup_devices,
					  warm_dir, &op->shard_files, op->shard_counts, &op->shard_key, &err);
	}
	if (k == 1 && c->warmup_devices > 1) {
		zl_error(&err, "it has one shape only");
		k = -1;
	}
out:
	if (k < 1) {
		zl_print_warning("%s: no warm-up sharding (%s); it runs without", op->op, err.buf);
		strvec_clear(&op->shard_files);
		free(op->shard_key);
		op->shard_key = NULL;
		free(op->warm_rel);
		op->warm_rel = NULL;
		zl_remove_tree(warm_dir, &err);
	} else {
		op->nshards = k;
	}
	zl_nodes_release(&nodes);
	strvec_clear(&classes);
	strbuf_release(&err);
	free(shape_file);
	free(warm_dir);
}

/* The ops that still run, in list order, as plan() finds them. */
struct pending_ops {
	struct strvec names;
	size_t *list_index;        /* where each is in the config's list */
	int *attempt;              /* the attempt that runs now */
};

/*
 * The ops without a final row that no finished attempt can stand for; each
 * one's earlier attempt moves aside (its canonical paths are the new one's).
 */
static int find_pending(struct sched *s, struct pending_ops *p, struct strbuf *err)
{
	const struct zl_batch_config *c = s->c;
	size_t i;

	p->list_index = xcalloc(c->ops.nr, sizeof(*p->list_index));
	p->attempt = xcalloc(c->ops.nr, sizeof(*p->attempt));
	for (i = 0; i < c->ops.nr; i++) {
		const struct zl_batch_row *last = zl_batch_rows_last(&s->rows, c->ops.v[i]);
		struct zl_batch_attempts a;

		if (last && zl_batch_status_final(last->v[ZL_BCOL_STATUS], s->o->retry_failed)) {
			s->done++;
			continue;
		}
		zl_batch_attempts_find(c->dir, c->ops.v[i], &s->rows, &a);
		/* only an attempt that has no row yet can be adopted */
		if (a.canonical && !a.canonical_has_row && adopt_finished(s, c->ops.v[i], a.canonical)) {
			s->done++;
			continue;
		}
		/* the op's canonical paths are for the attempt that runs now: the earlier one moves aside */
		if (a.canonical && zl_batch_archive_canonical(c->dir, c->ops.v[i], a.canonical, &s->st, &s->rows, err))
			return -1;
		p->list_index[p->names.nr] = i;
		p->attempt[p->names.nr] = a.next;
		strvec_push(&p->names, c->ops.v[i]);
	}
	return 0;
}

/* s->ops from the pending ops, longest expected first (batch_estimate.h: the dry run's estimate). */
static void order_ops(struct sched *s, const struct pending_ops *p)
{
	const struct zl_batch_config *c = s->c;
	struct zl_batch_estimate e;
	size_t i, n = p->names.nr;

	zl_batch_estimate_init(&e);
	zl_batch_estimate_ops(&e, c, &p->names);
	if (e.history_error)
		zl_print_warning("history not used for the start order: %s", e.history_error);
	s->startup_s = e.startup_s;
	s->ops = xcalloc(n ? n : 1, sizeof(*s->ops));
	s->nops = n;
	for (i = 0; i < n; i++) {
		struct op_state *op = &s->ops[i];
		size_t j = e.order[i];

		op->op = c->ops.v[p->list_index[j]];
		op->list_index = p->list_index[j];
		op->expect_s = e.v[j].expect_s;
		op->known = e.v[j].from == ZL_EST_HISTORY;
		op->attempt = p->attempt[j];
		op->name = zl_batch_attempt_name(op->op, op->attempt);
		strvec_init(&op->shard_files);
		strvec_init(&op->shard_devices);
		strvec_init(&op->shard_runs);
		zl_merge_stats_init(&op->merge);
		zl_batch_row_init(&op->shard_fail);
	}
	zl_batch_estimate_release(&e);
}

/* Each op's tasks, in op order: one run, or its warm-up shards and the timed replay after them. */
static void plan_tasks(struct sched *s)
{
	size_t i;

	for (i = 0; i < s->nops; i++) {
		struct op_state *op = &s->ops[i];
		int j;

		if (wants_warmup(s->c, op->op))
			plan_warmup(s, op);
		if (!op->nshards) {
			task_new(s, op, TASK_RUN, 0, TASK_READY);
			continue;
		}
		for (j = 1; j <= op->nshards; j++) {
			task_new(s, op, TASK_SHARD, j, TASK_READY);
			strvec_push(&op->shard_devices, "-"); /* "-": the shard never ran */
		}
		op->timed = task_new(s, op, TASK_TIMED, 0, TASK_BLOCKED);
	}
}

static int plan(struct sched *s, struct strbuf *err)
{
	struct pending_ops p = { .names = STRVEC_INIT };
	char *logs = batch_path(s, "logs");
	char *runs = batch_path(s, "runs");
	int rc = -1;

	if (zl_mkdir_p(logs, err) || zl_mkdir_p(runs, err) || find_pending(s, &p, err))
		goto out;
	order_ops(s, &p);
	plan_tasks(s);
	rc = 0;
out:
	strvec_clear(&p.names);
	free(p.list_index);
	free(p.attempt);
	free(logs);
	free(runs);
	return rc;
}

/* ---- progress -------------------------------------------------------------------- */

/*
 * An op's expected duration for the ETA: its history's, else (a guess) the mean wall of the
 * ops this session has ended, once there are any, else the estimate's guess.
 */
static double op_expect(const struct sched *s, const struct op_state *op)
{
	if (op->known || !s->wall_n)
		return op->expect_s;
	return s->wall_sum / (double)s->wall_n;
}

static double left_of(const struct op_state *op, double expect, double now)
{
	double e = expect - (op->wall_started ? now - op->wall_started : 0);

	return e > 0 ? e : 0;
}

/*
 * The remaining wall time as the estimate sees it: each device busy for what is left of its
 * op (or of its worker's start-up), the ops to come longest first over the devices.
 */
static double eta_s(const struct sched *s)
{
	size_t nd = s->c->devices.nr, i, d, n = 0;
	double *busy = xcalloc(nd + 1, sizeof(*busy)), *left = xcalloc(s->nops + 1, sizeof(*left));
	double now = zl_now_monotonic(), eta;

	for (d = 0; d < nd; d++) {
		const struct task *t = s->on_device[d];
		const struct zl_worker_slot *w = s->workers ? &s->workers[d] : NULL;

		if (t)
			busy[d] = left_of(t->op, op_expect(s, t->op), now);
		else if (w && w->state == ZL_WORKER_STARTING && now - w->started_mono < s->startup_s)
			busy[d] = s->startup_s - (now - w->started_mono);
	}
	for (i = 0; i < s->nops; i++) {
		const struct op_state *op = &s->ops[i];
		int on = 0;

		for (d = 0; d < nd && !on; d++)
			on = s->on_device[d] && s->on_device[d]->op == op;
		if (!op->finished && !on)
			left[n++] = left_of(op, op_expect(s, op), now);
	}
	eta = zl_batch_lpt(left, n, busy, nd);
	free(busy);
	free(left);
	return eta;
}

static void refresh_live(struct sched *s, int force)
{
	struct strbuf line = STRBUF_INIT, label = STRBUF_INIT;
	size_t d;
	double eta;

	if (!s->disp.live || (!force && zl_now_monotonic() < s->disp.next_refresh))
		return;
	strbuf_addf(&line, "[%zu/%zu]", s->done, s->total);
	for (d = 0; d < s->c->devices.nr; d++) {
		const struct task *t = s->on_device[d];

		strbuf_addf(&line, " %s:%s", s->c->devices.v[d], t ? task_label(t, &label) : "-");
	}
	eta = eta_s(s);
	strbuf_addstr(&line, "  ETA ");
	zl_fmt_duration(&line, eta);
	zl_progress_line(&s->disp, line.buf, 1);
	strbuf_release(&line);
	strbuf_release(&label);
}

/* ---- orphans ----------------------------------------------------------------------- */

static int is_task_pid(const struct sched *s, pid_t pid)
{
	size_t i;

	for (i = 0; i < s->ntasks; i++)
		if (s->tasks[i]->state == TASK_RUNNING && s->tasks[i]->cp.pid == pid)
			return 1;
	for (i = 0; s->workers && i < s->c->devices.nr; i++)
		if (s->workers[i].pid == pid)
			return 1;
	return 0;
}

/*
 * The batch is its children's subreaper: when a run child dies abruptly, its
 * pytest is re-parented to the batch instead of running on, holding the device.
 * End every such orphan with its process group.
 */
static void kill_orphans(const struct sched *s)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t me = getpid();

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct strbuf stat = STRBUF_INIT;
		char *path, *close_paren;
		long pid, ppid = 0, pgrp = 0;

		if (zl_parse_long(de->d_name, &pid))
			continue;
		path = xstrfmt("/proc/%ld/stat", pid);
		/* "pid (comm) state ppid pgrp ...": comm may hold spaces, so parse after the last ')' */
		if (strbuf_read_file(&stat, path) > 0 && (close_paren = strrchr(stat.buf, ')')) &&
		    sscanf(close_paren + 1, " %*c %ld %ld", &ppid, &pgrp) == 2 &&
		    ppid == me && !is_task_pid(s, (pid_t)pid)) {
			if (pgrp == pid)
				kill((pid_t)-pgrp, SIGKILL);
			kill((pid_t)pid, SIGKILL);
		}
		strbuf_release(&stat);
		free(path);
	}
	closedir(d);
}

/* ---- the loop ------------------------------------------------------------------------- */

static struct task *next_ready(const struct sched *s)
{
	size_t i;

	for (i = 0; i < s->ntasks; i++)
		if (s->tasks[i]->state == TASK_READY)
			return s->tasks[i];
	return NULL;
}

/*
 * The device's worker for the next op: 1 with *out set (NULL: the op starts fresh, the
 * device's workers kept failing to start), 0 while one is starting.
 */
static int worker_for(struct sched *s, size_t d, struct zl_worker_slot **out)
{
	struct zl_worker_slot *w = &s->workers[d];
	struct strbuf err = STRBUF_INIT;

	*out = NULL;
	switch (w->state) {
	case ZL_WORKER_READY:
		*out = w;
		return 1;
	case ZL_WORKER_STARTING:
	case ZL_WORKER_ENDING:
		return 0;
	case ZL_WORKER_NONE:
	case ZL_WORKER_DEAD:
		break;
	}
	if (w->failures >= WORKER_MAX_FAILURES)
		return 1;
	if (!zl_worker_slot_start(w, s->c, s->o->self_exe, s->sock_dir, &s->base_env, &err)) {
		strbuf_release(&err);
		return 0;
	}
	zl_progress_clear(&s->disp);
	zl_print_warning("device %s: cannot start its worker: %s", w->device, err.buf);
	w->failures = WORKER_MAX_FAILURES;
	strbuf_release(&err);
	return 1;
}

/* Workers the loop waits for: starting ones, and ended ones not reaped yet. */
static size_t starting_workers(const struct sched *s)
{
	size_t d, n = 0;

	for (d = 0; s->workers && d < s->c->devices.nr; d++)
		n += s->workers[d].state == ZL_WORKER_STARTING || s->workers[d].state == ZL_WORKER_ENDING;
	return n;
}

static void start_ready(struct sched *s)
{
	size_t d;

	if (s->interrupt_sig)
		return;
	for (d = 0; d < s->c->devices.nr; d++) {
		struct strbuf err = STRBUF_INIT;
		struct task *t;

		if (s->on_device[d] || !(t = next_ready(s)))
			continue;
		t->worker = NULL;
		if (wants_worker(s, t) && !worker_for(s, d, &t->worker)) {
			strbuf_release(&err);
			continue; /* the device waits for its worker */
		}
		if (start_task(s, t, d, &err)) {
			zl_print_error("%s", err.buf);
			task_done(s, t, 1, err.buf);
			d--; /* the device is free again */
		}
		strbuf_release(&err);
	}
}

static size_t running(const struct sched *s)
{
	size_t d, n = 0;

	for (d = 0; d < s->c->devices.nr; d++)
		n += s->on_device[d] != NULL;
	return n;
}

static void forward_signal(struct sched *s, int sig)
{
	size_t d;

	if (!s->interrupt_sig)
		s->interrupt_sig = sig;
	zl_progress_clear(&s->disp);
	fprintf(stderr, "zlbench: %s: forwarding to %zu running op%s; no new ops start\n", strsignal(sig),
		running(s), running(s) == 1 ? "" : "s");
	for (d = 0; d < s->c->devices.nr; d++) {
		struct task *t = s->on_device[d];

		if (!t || t->reaped)
			continue;
		child_kill(&t->cp, sig);
		t->interrupted = 1;
		/* the run forwards, waits its grace and SIGKILLs; the batch waits a little longer */
		if (!t->kill_at)
			t->kill_at = zl_now_monotonic() + s->grace + 30;
	}
}

static void worker_ended(struct sched *s, struct zl_worker_slot *w, int status)
{
	int starting = w->state == ZL_WORKER_STARTING;

	zl_worker_slot_reaped(w, status, starting ? "it ended before it was ready" : "it ended", s->sock_dir, s->c);
	if (starting && !s->interrupt_sig) {
		zl_progress_clear(&s->disp);
		zl_print_warning("device %s: its worker ended before it was ready (exit %d; workers/%s.%d.log)%s",
				 w->device, child_exit_code(status), w->device, w->generation,
				 w->failures >= WORKER_MAX_FAILURES ? "; its ops start fresh" : "");
	}
}

static void reap(struct sched *s)
{
	int status, any_signaled = 0;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		size_t d;

		for (d = 0; d < s->c->devices.nr; d++) {
			struct task *t = s->on_device[d];
			struct zl_worker_slot *w = s->workers ? &s->workers[d] : NULL;

			if (t && !t->reaped && t->cp.pid == pid) {
				t->reaped = 1;
				t->status = status;
				any_signaled |= WIFSIGNALED(status);
			}
			if (w && w->pid == pid)
				worker_ended(s, w, status);
		}
		/* anything else is an adopted orphan: reaped, nothing more */
	}
	if (any_signaled)
		kill_orphans(s);
}

static void watchdogs(struct sched *s)
{
	double now = zl_now_monotonic();
	size_t d;

	for (d = 0; d < s->c->devices.nr; d++) {
		struct task *t = s->on_device[d];

		if (!t || t->reaped)
			continue;
		if (s->c->timeout_s > 0 && !t->watchdog &&
		    now - t->started_mono > s->c->timeout_s + s->grace + WATCHDOG_SLACK_S) {
			t->watchdog = 1;
			child_kill(&t->cp, SIGKILL);
		}
		if (t->kill_at && now >= t->kill_at) {
			child_kill(&t->cp, SIGKILL);
			t->kill_at = 0;
		}
	}
}

static void loop(struct sched *s)
{
	size_t ndev = s->c->devices.nr;
	struct pollfd *pfd = xcalloc(ndev + 1, sizeof(*pfd));

	for (;;) {
		size_t d, n = 0;
		int r;

		start_ready(s);
		/* a worker still starting matters only to an op that is ready and waits for it */
		if (!running(s) && (!starting_workers(s) || !next_ready(s) || s->interrupt_sig))
			break;
		refresh_live(s, 0);
		/* SIGCHLD and the interrupts arrive on the self-pipe; the timeout paces watchdogs and progress */
		pfd[n++] = (struct pollfd){ zl_signals_fd(), POLLIN, 0 };
		for (d = 0; s->workers && d < ndev; d++)
			if (s->workers[d].ready_fd >= 0)
				pfd[n++] = (struct pollfd){ s->workers[d].ready_fd, POLLIN, 0 };
		r = poll(pfd, (nfds_t)n, 500);
		if (r < 0 && errno != EINTR)
			break;
		for (d = 0; r > 0 && s->workers && d < ndev; d++) {
			struct zl_worker_slot *w = &s->workers[d];

			/* a pipe that ends without the ready line: the worker is broken; it is reaped below */
			if (w->ready_fd >= 0 && zl_worker_slot_read_ready(w, s->c) < 0)
				zl_worker_slot_kill(w);
		}
		for (;;) {
			int sig = zl_signals_take();

			if (!sig)
				break;
			if (sig != SIGCHLD)
				forward_signal(s, sig);
		}
		reap(s);
		watchdogs(s);
		for (d = 0; d < s->c->devices.nr; d++) {
			struct task *t = s->on_device[d];

			if (t && t->reaped)
				task_done(s, t, 0, NULL);
		}
	}
	free(pfd);
}

/* ---- workers ---------------------------------------------------------------------------- */

#define SOCK_DIR_PREFIX "zlbench-workers-"

/*
 * A batch killed outright leaves its socket directory behind: remove those of ours whose
 * batch (the pid in the name) is gone.
 */
static void sweep_sock_dirs(const char *tmp)
{
	DIR *d = opendir(tmp);
	struct dirent *de;
	struct strbuf err = STRBUF_INIT;

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat st;
		char *path, *dash;
		long pid;

		if (!zl_starts_with(de->d_name, SOCK_DIR_PREFIX))
			continue;
		dash = strchr(de->d_name + strlen(SOCK_DIR_PREFIX), '-');
		if (!dash)
			continue;
		*dash = '\0';
		if (zl_parse_long(de->d_name + strlen(SOCK_DIR_PREFIX), &pid) || pid <= 1 ||
		    !(kill((pid_t)pid, 0) < 0 && errno == ESRCH)) {
			*dash = '-';
			continue;
		}
		*dash = '-';
		path = zl_path_join(tmp, de->d_name);
		if (!lstat(path, &st) && S_ISDIR(st.st_mode) && st.st_uid == getuid())
			zl_remove_tree(path, &err);
		strbuf_reset(&err);
		free(path);
	}
	closedir(d);
	strbuf_release(&err);
}

/* Socket paths are short (108 bytes): a private directory under $TMPDIR, else /tmp. */
static int workers_setup(struct sched *s, struct strbuf *err)
{
	const char *tmp = zl_tmp_dir();
	char *prefix;
	size_t d;
	int rc;

	/* the sockets' paths must fit sun_path */
	if (strlen(tmp) > 60)
		tmp = "/tmp";
	sweep_sock_dirs(tmp);
	prefix = xstrfmt(SOCK_DIR_PREFIX "%ld-", (long)getpid());
	rc = zl_mkdtemp_in(tmp, prefix, &s->sock_dir, err);
	free(prefix);
	if (rc)
		return -1;
	s->workers = xcalloc(s->c->devices.nr, sizeof(*s->workers));
	for (d = 0; d < s->c->devices.nr; d++)
		zl_worker_slot_init(&s->workers[d], s->c->devices.v[d]);
	return 0;
}

/* Every worker ends with the batch: SIGTERM (an idle worker dies of it), SIGKILL after the grace. */
static void workers_teardown(struct sched *s)
{
	struct strbuf err = STRBUF_INIT;
	size_t d;

	if (!s->workers)
		return;
	for (d = 0; d < s->c->devices.nr; d++) {
		zl_worker_slot_stop(&s->workers[d], s->grace, s->sock_dir, s->c);
		zl_worker_slot_release(&s->workers[d]);
	}
	free(s->workers);
	s->workers = NULL;
	if (s->sock_dir && zl_remove_tree(s->sock_dir, &err))
		zl_print_warning("%s", err.buf);
	free(s->sock_dir);
	s->sock_dir = NULL;
	strbuf_release(&err);
}

/* ---- entry ------------------------------------------------------------------------------ */

static void outcome(const struct sched *s, struct zl_batch_outcome *out)
{
	zl_batch_outcome_count(s->c, &s->rows, out);
	out->interrupt_sig = s->interrupt_sig;
	out->makespan_s = zl_now_monotonic() - s->t0;
}

int zl_batch_execute(const struct zl_batch_config *c, const struct zl_batch_run_opts *o,
		     struct zl_batch_outcome *out, struct strbuf *err)
{
	struct sched s;
	size_t i;
	int rc = -1;

	memset(&s, 0, sizeof(s));
	strvec_init(&s.base_env);
	s.c = c;
	s.o = o;
	s.st.fd = -1;
	s.t0 = zl_now_monotonic();
	s.grace = zl_kill_grace();
	s.total = c->ops.nr;
	s.on_device = xcalloc(c->devices.nr, sizeof(*s.on_device));
	if (gethostname(s.host, sizeof(s.host) - 1))
		snprintf(s.host, sizeof(s.host), "unknown");
	zl_progress_init(&s.disp, o->progress);

	if (zl_batch_status_open(&s.st, c->dir, &s.rows, err))
		goto out;
	/* orphaned grandchildren come to the batch, which ends them (see kill_orphans) */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		zl_print_warning("cannot become a child subreaper: %s", strerror(errno));
	if (zl_signals_install(err))
		goto out;
	if (plan(&s, err))
		goto out;
	child_base_env(&s.base_env);
	if (zl_batch_uses_workers(c) && workers_setup(&s, err))
		goto out;
	loop(&s);
	workers_teardown(&s);
	kill_orphans(&s);
	if (s.disp.live && s.disp.live_len) {
		refresh_live(&s, 1);
		fputc('\n', stderr);
	}
	outcome(&s, out);
	rc = 0;
out:
	zl_signals_restore();
	zl_batch_status_close(&s.st);
	for (i = 0; i < s.ntasks; i++)
		task_free(s.tasks[i]);
	free(s.tasks);
	for (i = 0; i < s.nops; i++)
		op_release(&s.ops[i]);
	free(s.ops);
	free(s.on_device);
	zl_batch_rows_release(&s.rows);
	workers_teardown(&s);
	strvec_clear(&s.base_env);
	return rc;
}
