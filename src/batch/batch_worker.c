/*
 * A batch's per-device workers (--start worker): start one through `zlbench run` with
 * ZL_WORKER_SERVE, read its ready line, record how it ended, stop it. The scheduler
 * (batch_sched.c) decides when; docs/worker.md says why.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "zlbench/batch.h"
#include "zlbench/child.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/runload.h"
#include "zlbench/util.h"
#include "zlbench/worker.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

void zl_worker_slot_init(struct zl_worker_slot *w, const char *device)
{
	memset(w, 0, sizeof(*w));
	w->device = device;
	w->ready_fd = -1;
	strbuf_init(&w->ready, 0);
}

void zl_worker_slot_release(struct zl_worker_slot *w)
{
	if (w->ready_fd >= 0)
		close(w->ready_fd);
	strbuf_release(&w->ready);
	free(w->socket_path);
	zl_worker_slot_init(w, w->device);
}

/* One line of workers/events.jsonl: the event, the worker, and more fields from doc. */
static void event(const struct zl_worker_slot *w, const struct zl_batch_config *c, const char *name, cJSON *doc)
{
	char stamp[32];
	char *path = xstrfmt("%s/workers/events.jsonl", c->dir), *text = NULL;
	int fd;

	zl_utc_iso8601(stamp, zl_now_epoch());
	if (!doc)
		doc = cJSON_CreateObject();
	if (!doc || zl_json_add_string(doc, "event", name) || zl_json_add_string(doc, "device", w->device) ||
	    zl_json_add_number(doc, "generation", w->generation) || zl_json_add_number(doc, "pid", (double)w->pid) ||
	    zl_json_add_string(doc, "at", stamp) || !(text = cJSON_PrintUnformatted(doc))) {
		zl_print_warning("out of memory writing '%s'", path);
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0 || zl_write_all(fd, text, strlen(text)) || zl_write_all(fd, "\n", 1))
			zl_print_warning("cannot write '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	cJSON_free(text);
	cJSON_Delete(doc);
	free(path);
}

/* The worker's log (appended to) and its ready pipe. The caller closes what is >= 0. */
static int open_log_and_pipe(const char *log_path, int *log_fd, int ready[2], struct strbuf *err)
{
	*log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (*log_fd < 0)
		return zl_error(err, "cannot write '%s': %s", log_path, strerror(errno));
	/* the write end is inherited by the worker alone: made, lent for the fork, closed */
	if (pipe2(ready, O_CLOEXEC) || fcntl(ready[1], F_SETFD, 0) || fcntl(ready[0], F_SETFL, O_NONBLOCK))
		return zl_error(err, "pipe: %s", strerror(errno));
	return 0;
}

/* The "started" event: where the worker logs (relative to the batch) and listens. */
static void event_started(const struct zl_worker_slot *w, const struct zl_batch_config *c, const char *log_path)
{
	cJSON *doc = cJSON_CreateObject();

	if (doc && (zl_json_add_string(doc, "log", log_path + strlen(c->dir) + 1) ||
		    zl_json_add_string(doc, "socket", w->socket_path))) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	event(w, c, "started", doc);
}

int zl_worker_slot_start(struct zl_worker_slot *w, const struct zl_batch_config *c, const char *self_exe,
			 const char *sock_dir, const struct strvec *base_env, struct strbuf *err)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	char *dir = zl_path_join(c->dir, "workers"), *log_path = NULL, *run_dir = NULL;
	int ready[2] = { -1, -1 }, log_fd = -1, rc = -1;

	w->generation++;
	w->ops = 0;
	w->pid = 0;
	strbuf_reset(&w->ready);
	free(w->socket_path);
	w->socket_path = xstrfmt("%s/%s.%d.sock", sock_dir, w->device, w->generation);
	log_path = xstrfmt("%s/%s.%d.log", dir, w->device, w->generation);
	/* never made: the serve path claims no run directory, but run's settings want one named */
	run_dir = xstrfmt("%s/%s.%d.run", sock_dir, w->device, w->generation);
	if (zl_mkdir_p(dir, err) || open_log_and_pipe(log_path, &log_fd, ready, err))
		goto out;
	zl_batch_child_argv(c, self_exe, c->ops.v[0], w->device, run_dir, NULL, &cp.args);
	strvec_pushv(&cp.env, (const char **)base_env->v);
	strvec_pushf(&cp.env, "%s=%s", ZL_WORKER_SERVE_VAR, w->socket_path);
	strvec_pushf(&cp.env, "%s=%d", ZL_WORKER_READY_FD_VAR, ready[1]);
	strvec_pushf(&cp.env, "%s=%ld", ZL_WORKER_PARENT_VAR, (long)getpid());
	strvec_push(&cp.env, ZL_WORKER_SOCKET_VAR);
	strvec_push(&cp.env, "ZL_SCHEDULER");
	strvec_push(&cp.env, "ZL_WARMUP");
	cp.new_pgroup = 1;    /* a run signals the group: the worker and what it started */
	cp.no_stdin = 1;
	if (zl_batch_start_into_log(&cp, log_fd, err))
		goto out;
	w->pid = cp.pid;
	w->state = ZL_WORKER_STARTING;
	w->started_mono = zl_now_monotonic();
	w->ready_fd = ready[0];
	ready[0] = -1;
	rc = 0;
	event_started(w, c, log_path);
out:
	if (rc)
		w->state = ZL_WORKER_DEAD;
	if (ready[0] >= 0)
		close(ready[0]);
	if (ready[1] >= 0)
		close(ready[1]);
	if (log_fd >= 0)
		close(log_fd);
	child_release(&cp);
	free(dir);
	free(log_path);
	free(run_dir);
	return rc;
}

int zl_worker_slot_read_ready(struct zl_worker_slot *w, const struct zl_batch_config *c)
{
	char buf[4096];
	ssize_t n;
	char *nl;

	do
		n = read(w->ready_fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n > 0)
		strbuf_add(&w->ready, buf, (size_t)n);
	nl = memchr(w->ready.buf, '\n', w->ready.len);
	if (nl) {
		cJSON *doc;

		*nl = '\0';
		doc = cJSON_Parse(w->ready.buf);
		close(w->ready_fd);
		w->ready_fd = -1;
		w->state = ZL_WORKER_READY;
		w->failures = 0;
		if (!doc)
			doc = cJSON_CreateObject();
		if (doc) {
			cJSON_DeleteItemFromObjectCaseSensitive(doc, "event");
			cJSON_DeleteItemFromObjectCaseSensitive(doc, "pid");
			if (zl_json_add_number(doc, "wall_s", zl_now_monotonic() - w->started_mono)) {
				cJSON_Delete(doc);
				doc = NULL;
			}
		}
		event(w, c, "ready", doc);
		return 1;
	}
	if (n == 0 || (n < 0 && errno != EAGAIN)) {
		close(w->ready_fd);
		w->ready_fd = -1;
		return -1;
	}
	return 0;
}

void zl_worker_slot_reaped(struct zl_worker_slot *w, int raw, const char *why, const char *sock_dir,
			   const struct zl_batch_config *c)
{
	struct strbuf err = STRBUF_INIT;
	cJSON *doc = cJSON_CreateObject();

	if (zl_worker_record_exit(sock_dir, w->pid, raw, &err))
		zl_print_warning("%s", err.buf);
	if (w->state == ZL_WORKER_STARTING)
		w->failures++;
	if (doc && (zl_json_add_number(doc, "exit_code", child_exit_code(raw)) ||
		    zl_json_add_number(doc, "ops", (double)w->ops) || zl_json_add_string(doc, "why", why))) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	event(w, c, "ended", doc);
	if (w->ready_fd >= 0) {
		close(w->ready_fd);
		w->ready_fd = -1;
	}
	w->state = ZL_WORKER_DEAD;
	w->pid = 0;
	strbuf_release(&err);
}

void zl_worker_slot_kill(struct zl_worker_slot *w)
{
	if (w->pid <= 0)
		return;
	kill(-w->pid, SIGKILL);
	if (w->state == ZL_WORKER_READY)
		w->state = ZL_WORKER_ENDING;
}

void zl_worker_slot_stop(struct zl_worker_slot *w, double grace, const char *sock_dir,
			 const struct zl_batch_config *c)
{
	double kill_at = zl_now_monotonic() + grace;
	int status = 0, killed = 0;

	if (w->pid <= 0)
		return;
	kill(-w->pid, SIGTERM);
	for (;;) {
		pid_t r = waitpid(w->pid, &status, WNOHANG);

		if (r == w->pid || (r < 0 && errno != EINTR))
			break;
		if (!killed && zl_now_monotonic() >= kill_at) {
			kill(-w->pid, SIGKILL);
			killed = 1;
		}
		usleep(10000);
	}
	/* what it started in its group goes with it */
	kill(-w->pid, SIGKILL);
	zl_worker_slot_reaped(w, status, "the batch ended", sock_dir, c);
}
