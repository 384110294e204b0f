/*
 * Per-device workers: the start modes, the worker's own start (serve), and a run's
 * hand-over of its pytest session to a worker (submit). The batch's side is
 * batch_worker.c; the worker itself is plugins/zl_worker.py. docs/worker.md.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "zlbench/child.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/json.h"
#include "zlbench/plan.h"
#include "zlbench/preflight.h"
#include "zlbench/run.h"
#include "zlbench/runload.h"
#include "zlbench/settings.h"
#include "zlbench/util.h"
#include "zlbench/worker.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

extern char **environ;

const struct zl_start_mode_def zl_start_modes[] = {
	{ "fresh", ZL_START_FRESH, 0, "a new interpreter per op (imports FlagGems every time)" },
	{ "worker", ZL_START_WORKER, 0,
	  "one interpreter per device imports FlagGems once and runs the ops one after another" },
	{ "fork", ZL_START_FORK, ZL_CAP_FORK_SERVER,
	  "a server per device imports FlagGems and forks a child per op" },
	{ NULL, ZL_START_FRESH, 0, NULL },
};

const char *zl_start_mode_name(enum zl_start_mode mode)
{
	const struct zl_start_mode_def *d;

	for (d = zl_start_modes; d->name; d++)
		if (d->mode == mode)
			return d->name;
	return "?";
}

int zl_start_mode_parse(const char *name, const char *from, const struct zl_backend *b, enum zl_start_mode *out,
			struct strbuf *err)
{
	const struct zl_start_mode_def *d;

	for (d = zl_start_modes; d->name; d++) {
		if (strcmp(name, d->name))
			continue;
		if (b && d->requires && !zl_backend_has(b, d->requires))
			return zl_error(err, "%s %s is not offered on backend '%s': importing FlagGems there "
					"initialises the device, and a device runtime cannot be used in a child forked "
					"after that (docs/worker.md names the lines); use worker", from, name, b->name);
		*out = d->mode;
		return 0;
	}
	return zl_error(err, "invalid value '%s' for %s: choose fresh or worker", name, from);
}

/* ---- serve ---------------------------------------------------------------------- */

/* What a worker needs checked: no operator (it has none yet), no run directory. */
static const char *const serve_checks[] = { "backend", "flaggems_dir", "benchmark_dir", "python", "pytest",
					     "devices" };

static int serve_preflight(struct zl_preflight *pf)
{
	struct strbuf msg = STRBUF_INIT;
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(serve_checks); i++) {
		const struct zl_check *c;

		for (c = zl_checks; c->name && strcmp(c->name, serve_checks[i]); c++)
			;
		if (!c->name || !c->fn(pf, &msg))
			continue;
		strbuf_addf(&msg, "; hint: %s", c->hint);
		zl_preflight_report_failure(c->name, msg.buf);
		strbuf_release(&msg);
		return -1;
	}
	strbuf_release(&msg);
	return 0;
}

int zl_worker_serve(struct zl_settings *s, struct zl_preflight *pf, const char *socket_path)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct zl_run_ctx c;
	struct strvec argv = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	int code = ZL_EXIT_PREFLIGHT;

	if (serve_preflight(pf))
		return code;
	if (s->isolate) {
		/* the tuner's in-memory cache would outlive each op's private one */
		zl_print_error("a worker cannot give each op its own tuner cache: --isolate-tuner-cache needs a fresh "
			       "interpreter per op");
		return ZL_EXIT_USAGE;
	}
	zl_run_ctx_init(&c, s, pf);
	zl_run_build_child(&c, &argv, &cp.env);
	strvec_push(&cp.env, ZL_WORKER_SERVE_VAR);
	strvec_push(&cp.args, argv.v[0]);
	strvec_pushv(&cp.args, (const char *[]){ "-m", "zl_worker", "--socket", socket_path, "--python", argv.v[0],
						 "--plugins-dir", c.plugins_dir, NULL });
	cp.dir = s->flaggems_dir;
	child_exec(&cp, &err);
	/* still here: the interpreter could not be started */
	zl_print_error("worker: %s", err.buf);
	code = ZL_EXIT_INTERNAL;
	child_release(&cp);
	strvec_clear(&argv);
	zl_run_ctx_release(&c);
	strbuf_release(&err);
	return code;
}

/* ---- submit --------------------------------------------------------------------- */

void zl_worker_session_release(struct zl_worker_session *ws)
{
	if (ws->ctl_fd >= 0)
		close(ws->ctl_fd);
	if (ws->out_fd >= 0)
		close(ws->out_fd);
	free(ws->socket_path);
	cJSON_Delete(ws->reset_before);
	cJSON_Delete(ws->reset_after);
	free(ws->retire);
	strbuf_release(&ws->buf);
	strvec_clear(&ws->notes);
	ws->socket_path = NULL;
	ws->ctl_fd = ws->out_fd = -1;
	ws->reset_before = ws->reset_after = NULL;
	ws->retire = NULL;
}

static int unix_address(struct sockaddr_un *sa, const char *path, struct strbuf *err)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return zl_error(err, "worker socket path '%s' is longer than %zu bytes", path,
				sizeof(sa->sun_path) - 1);
	memcpy(sa->sun_path, path, strlen(path) + 1);
	return 0;
}

static char *request_json(const struct strvec *argv, const struct strvec *env_edits, const char *cwd)
{
	const char **envp = child_build_env(env_edits);
	cJSON *doc = cJSON_CreateObject(), *env = doc ? cJSON_AddArrayToObject(doc, "env") : NULL;
	const char **e;
	char *text = NULL;
	int ok = env && !zl_json_add_item(doc, "argv", zl_json_strvec(argv)) &&
		 !zl_json_add_string(doc, "cwd", cwd);

	for (e = envp; ok && *e; e++)
		ok = !zl_json_add_item(env, NULL, cJSON_CreateString(*e));
	if (ok)
		text = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	free(envp);
	return text;
}

/* The request with fd attached to its first byte, then the end of our stream. */
static int send_request(int sock, const char *text, int fd, struct strbuf *err)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { (void *)text, strlen(text) };
	struct msghdr msg;
	struct cmsghdr *cm;
	size_t len = strlen(text);
	ssize_t n;

	memset(&msg, 0, sizeof(msg));
	memset(&u, 0, sizeof(u));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return zl_error(err, "cannot send the op to the worker: %s", strerror(errno));
	if ((size_t)n < len && zl_write_all(sock, text + n, len - (size_t)n))
		return zl_error(err, "cannot send the op to the worker: %s", strerror(errno));
	if (shutdown(sock, SHUT_WR))
		return zl_error(err, "cannot end the request to the worker: %s", strerror(errno));
	return 0;
}

/* The next complete line of ws->buf as JSON (removed from buf), or NULL. */
static cJSON *next_event(struct zl_worker_session *ws)
{
	char *nl = memchr(ws->buf.buf, '\n', ws->buf.len);
	cJSON *doc;
	size_t n;

	if (!nl)
		return NULL;
	n = (size_t)(nl - ws->buf.buf);
	ws->buf.buf[n] = '\0';
	doc = cJSON_Parse(ws->buf.buf);
	memmove(ws->buf.buf, nl + 1, ws->buf.len - n - 1);
	strbuf_setlen(&ws->buf, ws->buf.len - n - 1);
	return doc ? doc : cJSON_CreateObject();
}

static int read_some(struct zl_worker_session *ws)
{
	char buf[4096];
	ssize_t n;

	do
		n = read(ws->ctl_fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n > 0)
		strbuf_add(&ws->buf, buf, (size_t)n);
	return (int)(n > 0 ? 1 : n == 0 ? 0 : -1);
}

static cJSON *take_array(cJSON *doc, const char *key)
{
	cJSON *a = cJSON_DetachItemFromObjectCaseSensitive(doc, key);

	if (cJSON_IsArray(a))
		return a;
	cJSON_Delete(a);
	return cJSON_CreateArray();
}

/* The worker's first event, waited for until wait_s has passed. NULL with err. */
static cJSON *first_event(struct zl_worker_session *ws, const char *socket_path, double wait_s, struct strbuf *err)
{
	double deadline = zl_now_monotonic() + wait_s;
	cJSON *ev;

	while (!(ev = next_event(ws))) {
		struct pollfd pfd = { ws->ctl_fd, POLLIN, 0 };
		double left = deadline - zl_now_monotonic();
		int r;

		if (left <= 0) {
			zl_error(err, "the worker at '%s' did not answer within %.0f s", socket_path, wait_s);
			return NULL;
		}
		r = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno != EINTR) {
			zl_error(err, "poll: %s", strerror(errno));
			return NULL;
		}
		if (r > 0 && read_some(ws) <= 0) {
			zl_error(err, "the worker at '%s' closed the connection before it started the op", socket_path);
			return NULL;
		}
	}
	return ev;
}

/* A start event: the op's pid and how many ops the worker ran before it. 0, or -1 with err (a refusal). */
static int take_start(struct zl_worker_session *ws, cJSON *ev, struct strbuf *err)
{
	const char *name = zl_json_path_string(ev, "event");
	long pid = zl_json_long(zl_json_path(ev, "pid"), -1);
	const cJSON *before = zl_json_path(ev, "ops_before");

	if (!name || strcmp(name, "start")) {
		const char *why = zl_json_path_string(ev, "reason");

		return zl_error(err, "the worker refused the op: %s", why ? why : "no reason given");
	}
	if (pid < 2 || pid > INT_MAX)
		return zl_error(err, "the worker's start event names no pid");
	ws->pid = (pid_t)pid;
	ws->ops_before = zl_json_long(before, 0);
	ws->reset_before = take_array(ev, "reset");
	return 0;
}

/* A connection to the worker's socket; -1 with err. */
static int connect_worker(const char *socket_path, struct strbuf *err)
{
	struct sockaddr_un sa;
	int sock;

	if (unix_address(&sa, socket_path, err))
		return -1;
	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return zl_error(err, "socket: %s", strerror(errno));
	if (connect(sock, (struct sockaddr *)&sa, sizeof(sa))) {
		zl_error(err, "cannot reach the worker at '%s': %s", socket_path, strerror(errno));
		close(sock);
		return -1;
	}
	return sock;
}

int zl_worker_submit(const char *socket_path, const struct strvec *argv, const struct strvec *env_edits,
		     const char *cwd, double wait_s, struct zl_worker_session *ws, struct strbuf *err)
{
	int sock, out[2] = { -1, -1 }, rc = -1;
	char *text = NULL;
	cJSON *ev = NULL;

	sock = connect_worker(socket_path, err);
	if (sock < 0)
		return -1;
	if (pipe2(out, O_CLOEXEC)) {
		zl_error(err, "pipe: %s", strerror(errno));
		goto out;
	}
	text = request_json(argv, env_edits, cwd);
	if (!text) {
		zl_error(err, "out of memory building the worker request");
		goto out;
	}
	if (send_request(sock, text, out[1], err))
		goto out;
	close(out[1]);
	out[1] = -1;
	ws->ctl_fd = sock;
	ev = first_event(ws, socket_path, wait_s, err);
	if (!ev || take_start(ws, ev, err))
		goto out;
	ws->socket_path = xstrdup(socket_path);
	ws->out_fd = out[0];
	out[0] = -1;
	rc = 0;
out:
	if (rc) {
		ws->ctl_fd = -1;
		strbuf_reset(&ws->buf);
		close(sock);
	}
	if (out[0] >= 0)
		close(out[0]);
	if (out[1] >= 0)
		close(out[1]);
	cJSON_Delete(ev);
	free(text);
	return rc;
}

int zl_worker_session_read(struct zl_worker_session *ws)
{
	int r = read_some(ws);
	cJSON *ev;

	while (!ws->exited && (ev = next_event(ws))) {
		const char *name = zl_json_path_string(ev, "event");
		const cJSON *status = zl_json_path(ev, "status"), *notes = zl_json_path(ev, "notes"), *n;

		if (name && !strcmp(name, "exit")) {
			ws->exited = 1;
			ws->status = zl_json_int(status, ZL_EXIT_FAILED);
			ws->retire = zl_json_path_dup(ev, "retire");
			cJSON_Delete(ws->reset_after);
			ws->reset_after = take_array(ev, "reset");
			cJSON_ArrayForEach(n, notes)
				if (cJSON_IsString(n))
					strvec_push(&ws->notes, n->valuestring);
		}
		cJSON_Delete(ev);
	}
	if (ws->exited)
		return 1;
	return r > 0 || (r < 0 && errno == EAGAIN) ? 0 : -1;
}

static char *status_path(const char *dir, pid_t pid)
{
	return xstrfmt("%s/%ld.status", dir, (long)pid);
}

int zl_worker_record_exit(const char *dir, pid_t pid, int raw, struct strbuf *err)
{
	char *path = status_path(dir, pid);
	char *text = xstrfmt("%d\n", raw);
	int rc = zl_write_file_atomic(path, text, strlen(text), err);

	free(text);
	free(path);
	return rc;
}

int zl_worker_exit_status(const char *socket_path, pid_t pid, double wait_s, int *raw)
{
	const char *slash = strrchr(socket_path, '/');
	char *dir = slash ? xstrndup(socket_path, (size_t)(slash - socket_path)) : xstrdup(".");
	char *path = status_path(dir, pid);
	double deadline = zl_now_monotonic() + wait_s;
	int rc = -1;

	for (;;) {
		struct strbuf text = STRBUF_INIT;
		long v;

		if (strbuf_read_file(&text, path) > 0) {
			strbuf_trim(&text);
			if (!zl_parse_long(text.buf, &v)) {
				*raw = (int)v;
				rc = 0;
			}
		}
		strbuf_release(&text);
		if (!rc || zl_now_monotonic() >= deadline)
			break;
		usleep(20000);
	}
	free(path);
	free(dir);
	return rc;
}

cJSON *zl_worker_start_json(const struct zl_worker_session *ws, const char *fallback_reason)
{
	cJSON *o = cJSON_CreateObject();
	int bad = !o;

	if (!bad && ws)
		bad = zl_json_add_string(o, "mode", "reused") ||
		      zl_json_add_number(o, "ops_before", (double)ws->ops_before) ||
		      zl_json_add_number(o, "worker_pid", (double)ws->pid) ||
		      zl_json_add_item(o, "reset", ws->reset_before ? cJSON_Duplicate(ws->reset_before, 1)
								    : cJSON_CreateArray()) ||
		      zl_json_add_item(o, "retired_after", ws->retire ? cJSON_CreateString(ws->retire)
								  : cJSON_CreateNull());
	else if (!bad)
		bad = zl_json_add_string(o, "mode", "fresh") || zl_json_add_number(o, "ops_before", 0) ||
		      !cJSON_AddNullToObject(o, "worker_pid");
	if (!bad && fallback_reason)
		bad = zl_json_add_string(o, "fallback_reason", fallback_reason);
	if (bad) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}
