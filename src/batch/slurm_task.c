/*
 * One array task of zlbench batch --launcher slurm, on its node: pin the GPU
 * Slurm granted, check that the shared paths are there, run `zlbench run` for
 * the op into the batch directory, and leave slurm/tasks/<job>_<i>.json saying
 * what happened (the submitting process reads it with Slurm's own verdict).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "zlbench/batch.h"
#include "zlbench/child.h"
#include "zlbench/env.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/json.h"
#include "zlbench/options.h"
#include "zlbench/plan.h"
#include "zlbench/run.h"
#include "zlbench/settings.h"
#include "zlbench/slurm.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

struct task_ctx {
	const char *dir;           /* the batch directory as given */
	const char *op;
	int attempt;
	char *name;                /* attempt name */
	char *job_id;              /* the array job */
	long array_task;
	char *task_job_id;         /* this task's own job id */
	char host[256];
	char *node;
	struct zl_slurm_device dev;
	char *marker;              /* slurm/tasks/<job>_<i>.json */
	char started_at[32];
	double started_mono;
};

static const char *env_or(enum zl_env_id var, const char *fallback)
{
	const char *v = zl_env(var);

	return v ? v : fallback;
}

/* Write the task record; state "running" at the start, "finished" at the end. */
static void write_marker(const struct task_ctx *t, const char *state, int exit_code, int sig,
			 const char *reason)
{
	cJSON *doc = cJSON_CreateObject();
	struct strbuf err = STRBUF_INIT;
	char *text = NULL, *run_rel = xstrfmt("runs/%s", t->name), *log_rel = xstrfmt("logs/%s.log", t->name);
	char stamp[32];
	int finished = !strcmp(state, "finished");

	zl_utc_iso8601(stamp, zl_now_epoch());
	if (!doc || zl_json_add_string(doc, "state", state) || zl_json_add_string(doc, "job_id", t->job_id) ||
	    zl_json_add_number(doc, "array_task_id", (double)t->array_task) ||
	    zl_json_add_string(doc, "slurm_job_id", t->task_job_id) || zl_json_add_string(doc, "node", t->node) ||
	    zl_json_add_string(doc, "op", t->op) || zl_json_add_number(doc, "attempt", t->attempt) ||
	    zl_json_add_string(doc, "gpus", t->dev.gpus) || zl_json_add_string(doc, "device", t->dev.pin) ||
	    zl_json_add_string(doc, "device_how", t->dev.how) || zl_json_add_string(doc, "run_dir", run_rel) ||
	    zl_json_add_string(doc, "log", log_rel) || zl_json_add_string(doc, "started_at", t->started_at) ||
	    zl_json_add_string(doc, "finished_at", finished ? stamp : NULL) ||
	    zl_json_add_number(doc, "wall_s", finished ? zl_now_monotonic() - t->started_mono : NAN) ||
	    zl_json_add_number(doc, "exit_code", finished ? exit_code : NAN) ||
	    zl_json_add_number(doc, "signal", sig > 0 ? sig : NAN) || zl_json_add_string(doc, "reason", reason) ||
	    zl_json_add_number(doc, "pid", (double)getpid()) ||
	    !(text = cJSON_Print(doc))) {
		fprintf(stderr, "zlbench: error: out of memory writing '%s'\n", t->marker);
	} else if (zl_write_file_atomic(t->marker, text, strlen(text), &err)) {
		fprintf(stderr, "zlbench: error: %s\n", err.buf);
	}
	cJSON_Delete(doc);
	free(text);
	free(run_rel);
	free(log_rel);
	strbuf_release(&err);
}

/* Paths every node must see: a missing one means the batch is not on a shared filesystem. */
static int check_shared(const struct task_ctx *t, const struct zl_batch_config *bc, struct strbuf *err)
{
	char *plugins = zl_plugins_dir();
	char *probe = zl_path_join(plugins, "zl_timer.py");
	int rc = 0;

	if (access(probe, R_OK))
		rc = zl_error(err, "the plugins '%s' are not readable on node %s", plugins, t->node);
	else if (access(bc->flaggems_dir, R_OK | X_OK))
		rc = zl_error(err, "the FlagGems checkout '%s' is not readable on node %s", bc->flaggems_dir, t->node);
	else if (access(t->dir, W_OK | X_OK))
		rc = zl_error(err, "the batch directory '%s' is not writable on node %s", t->dir, t->node);
	if (rc)
		strbuf_addstr(err, ": --launcher slurm needs the zlbench binary, its plugins, the FlagGems checkout and "
				   "the batch directory at the same paths on every node (a shared filesystem)");
	free(plugins);
	free(probe);
	return rc;
}

static char *scheduler_json(const struct task_ctx *t, const struct zl_batch_config *bc)
{
	cJSON *doc = cJSON_CreateObject();
	char *text = NULL;

	if (doc && !zl_json_add_string(doc, "kind", "slurm") && !zl_json_add_string(doc, "job_id", t->job_id) &&
	    !zl_json_add_number(doc, "array_task_id", (double)t->array_task) &&
	    !zl_json_add_string(doc, "node", t->node) &&
	    !zl_json_add_string(doc, "slurm_job_id", t->task_job_id) &&
	    !zl_json_add_string(doc, "partition", zl_env_raw(ZL_ENV_SLURM_JOB_PARTITION)) &&
	    !zl_json_add_string(doc, "gpus", t->dev.gpus) && !zl_json_add_string(doc, "device", t->dev.pin) &&
	    !zl_json_add_string(doc, "device_how", t->dev.how) && !zl_json_add_string(doc, "batch_dir", bc->dir) &&
	    !zl_json_add_string(doc, "op", t->op) && !zl_json_add_number(doc, "attempt", t->attempt))
		text = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	return text;
}

/*
 * Copy the run's output into its log until it has exited; a signal to the task
 * (Slurm's SIGTERM at cancel or time limit reaches every process of the job,
 * this one included) is forwarded to the run's group, which then ends its
 * pytest and writes a truthful identity. *got_sig: the first such signal.
 */
static int supervise(struct child_process *cp, int log_fd, int *got_sig)
{
	int status = 0, reaped = 0, pipe_open = 1;
	double kill_at = 0;

	while (!reaped || pipe_open) {
		struct pollfd pfd[2];
		int n = 0, r;

		if (pipe_open)
			pfd[n++] = (struct pollfd){ cp->out_fd, POLLIN, 0 };
		pfd[n++] = (struct pollfd){ zl_signals_fd(), POLLIN, 0 };
		r = poll(pfd, (nfds_t)n, 200);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0 && pipe_open && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			char buf[8192];
			ssize_t got = read(cp->out_fd, buf, sizeof(buf));

			if (got > 0)
				zl_write_all(log_fd, buf, (size_t)got);
			else if (got == 0 || (errno != EINTR && errno != EAGAIN))
				pipe_open = 0;
		}
		for (;;) {
			int sig = zl_signals_take();

			if (!sig)
				break;
			if (sig == SIGCHLD || reaped)
				continue;
			if (!*got_sig)
				*got_sig = sig;
			child_kill(cp, sig);
			if (!kill_at)
				kill_at = zl_now_monotonic() + zl_kill_grace() + 5;
		}
		if (kill_at && !reaped && zl_now_monotonic() >= kill_at) {
			child_kill(cp, SIGKILL);
			kill_at = 0;
		}
		if (!reaped && waitpid(cp->pid, &status, WNOHANG) == cp->pid)
			reaped = 1;
		if (reaped && pipe_open)
			kill(-cp->pid, SIGKILL); /* whatever of its group still holds the pipe */
	}
	kill(-cp->pid, SIGKILL);
	return child_exit_code(status);
}

/* The run itself: argv from batch.json, environment edits, output into logs/<name>.log. */
static int run_op(struct task_ctx *t, const struct zl_batch_config *bc, int *got_sig, struct strbuf *err)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	char *exe = zl_self_exe();
	char *run_dir = xstrfmt("%s/runs/%s", bc->dir, t->name);
	char *log_path = xstrfmt("%s/logs/%s.log", bc->dir, t->name);
	char *sched = scheduler_json(t, bc);
	struct strbuf head = STRBUF_INIT;
	char stamp[32];
	size_t i;
	int log_fd, code;

	zl_batch_child_argv(bc, exe, t->op, t->dev.pin, run_dir, NULL, &cp.args);
	/* the run takes its settings from batch.json's argv only, as with the local launcher */
	for (i = 0; i < ZL_SET__COUNT; i++)
		if (zl_setting_defs[i].env)
			strvec_push(&cp.env, zl_setting_defs[i].env);
	strvec_push(&cp.env, "ZL_PUSH_URL");
	strvec_push(&cp.env, "PARALLEL_WARMUP_GPUS");
	strvec_push(&cp.env, "ZL_WARMUP");
	strvec_push(&cp.env, "ZL_WARMUP_SHARD"); /* no warm-up sharding with Slurm: a whole run */
	/* many nodes never write one SQLite file over a network filesystem: the collector ingests */
	strvec_push(&cp.env, "ZL_NO_HISTORY=1");
	if (sched)
		strvec_pushf(&cp.env, "ZL_SCHEDULER=%s", sched);
	cp.new_pgroup = 1;
	cp.capture_output = 1;
	cp.no_stdin = 1;
	cp.pdeathsig = SIGTERM;

	log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (log_fd < 0)
		fprintf(stderr, "zlbench: warning: cannot write '%s': %s\n", log_path, strerror(errno));
	zl_utc_iso8601(stamp, zl_now_epoch());
	strbuf_addf(&head, "# zlbench batch %s: %s on %s:%s (slurm job %s_%ld, %s), attempt %d:", stamp, t->op, t->node,
		    t->dev.gpus ? t->dev.gpus : t->dev.pin, t->job_id, t->array_task, t->dev.how, t->attempt);
	for (i = 0; i < cp.args.nr; i++)
		strbuf_addf(&head, " %s", cp.args.v[i]);
	strbuf_addch(&head, '\n');
	zl_write_all(log_fd, head.buf, head.len);

	if (child_start(&cp, err)) {
		code = -1;
	} else {
		code = supervise(&cp, log_fd, got_sig);
	}
	if (log_fd >= 0)
		close(log_fd);
	child_release(&cp);
	strbuf_release(&head);
	free(exe);
	free(run_dir);
	free(log_path);
	free(sched);
	return code;
}

static void ctx_release(struct task_ctx *t)
{
	free(t->name);
	free(t->job_id);
	free(t->task_job_id);
	free(t->node);
	free(t->marker);
	zl_slurm_device_release(&t->dev);
}

/* Who and where this task is, from Slurm's environment; started now. Released by ctx_release. */
static void ctx_init(struct task_ctx *t, const char *dir, const char *op, int attempt)
{
	memset(t, 0, sizeof(*t));
	t->dir = dir;
	t->op = op;
	t->attempt = attempt;
	t->name = zl_batch_attempt_name(op, t->attempt);
	t->job_id = xstrdup(env_or(ZL_ENV_SLURM_ARRAY_JOB_ID, env_or(ZL_ENV_SLURM_JOB_ID, "unknown")));
	t->task_job_id = xstrdup(env_or(ZL_ENV_SLURM_JOB_ID, "unknown"));
	t->array_task = strtol(env_or(ZL_ENV_SLURM_ARRAY_TASK_ID, "0"), NULL, 10);
	if (gethostname(t->host, sizeof(t->host) - 1))
		snprintf(t->host, sizeof(t->host), "unknown");
	t->node = xstrdup(env_or(ZL_ENV_SLURMD_NODENAME, t->host));
	zl_utc_iso8601(t->started_at, zl_now_epoch());
	t->started_mono = zl_now_monotonic();
	t->marker = xstrfmt("%s/%s/tasks/%s_%ld.json", t->dir, ZL_SLURM_DIR, t->job_id, t->array_task);
}

/* The run under the task's signal handling, and its final record. Returns the task's exit code. */
static int run_and_record(struct task_ctx *t, const struct zl_batch_config *bc, struct strbuf *err)
{
	int code, sig = 0;

	write_marker(t, "running", 0, 0, NULL);
	if (zl_signals_install(err)) {
		zl_print_error("%s", err->buf);
		code = ZL_EXIT_INTERNAL;
		write_marker(t, "finished", code, 0, err->buf);
		return code;
	}
	code = run_op(t, bc, &sig, err);
	zl_signals_restore();
	if (code < 0) {
		zl_print_error("%s", err->buf);
		code = ZL_EXIT_INTERNAL;
		write_marker(t, "finished", code, sig, err->buf);
		return code;
	}
	write_marker(t, "finished", code, sig, NULL);
	printf("zlbench slurm task %s_%ld: zlbench run exited with %d%s%s\n", t->job_id, t->array_task, code,
	       sig ? " after " : "", sig ? strsignal(sig) : "");
	return code;
}

int zl_slurm_task_main(const char *dir, const char *op, int attempt)
{
	struct zl_batch_config bc;
	struct task_ctx t;
	struct strbuf err = STRBUF_INIT;
	const struct zl_backend *b;
	char *tasks_dir = xstrfmt("%s/%s/tasks", dir, ZL_SLURM_DIR);
	int code = ZL_EXIT_USAGE;

	zl_batch_config_init(&bc);
	ctx_init(&t, dir, op, attempt);
	if (zl_batch_config_load(&bc, t.dir, &err) || zl_mkdir_p(tasks_dir, &err)) {
		zl_print_error("%s: --launcher slurm needs the batch directory at the same path on every node", err.buf);
		goto out;
	}
	b = zl_backend_find(bc.backend);
	if (!b) {
		zl_print_error("batch.json names backend '%s', which this zlbench does not know", bc.backend);
		goto out;
	}
	/* a task that cannot start its run is a broken environment, as preflight failures are */
	code = ZL_EXIT_PREFLIGHT;
	if (zl_slurm_task_device(b, &t.dev, &err) || check_shared(&t, &bc, &err)) {
		fprintf(stderr, "zlbench: preflight failed: %s\nPREFLIGHT_FAILED check=slurm_task\n", err.buf);
		write_marker(&t, "finished", code, 0, err.buf);
		goto out;
	}
	printf("zlbench slurm task %s_%ld on %s: op %s (attempt %d), %s: --devices %s; run runs/%s, log logs/%s.log\n",
	       t.job_id, t.array_task, t.node, t.op, t.attempt, t.dev.how, t.dev.pin, t.name, t.name);
	fflush(stdout);
	code = run_and_record(&t, &bc, &err);
out:
	fflush(stdout);
	ctx_release(&t);
	zl_batch_config_release(&bc);
	strbuf_release(&err);
	free(tasks_dir);
	return code;
}
