/* Watching a run's child (watch.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zlbench/env.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/preflight.h"
#include "zlbench/run.h"
#include "zlbench/skips.h"
#include "zlbench/util.h"
#include "zlbench/watch.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

void zl_watch_init(struct zl_watch *w)
{
	struct zl_worker_session ws = ZL_WORKER_SESSION_INIT;

	memset(w, 0, sizeof(*w));
	child_init(&w->cp);
	w->log_fd = -1;
	w->session = ws;
}

void zl_watch_release(struct zl_watch *w)
{
	if (w->log_fd >= 0)
		close(w->log_fd);
	child_release(&w->cp);
	zl_worker_session_release(&w->session);
	zl_watch_init(w);
}

/* ---- starting ---------------------------------------------------------------- */

/* How long a run waits for a batch's worker to take its op before it starts a fresh child. */
#define WORKER_ANSWER_S 30.0

/*
 * Hand the session to the batch's worker (worker.h); when that cannot be, the run starts a
 * fresh child as always and its identity says why. f->start records how the op started.
 */
static void start_in_worker(struct zl_watch *w, struct zl_run_ctx *c, const char *socket_path)
{
	const struct zl_settings *s = c->s;
	struct zl_run_facts *f = &c->f;
	struct zl_worker_session *ws = &w->session;
	struct strbuf err = STRBUF_INIT;

	if (s->isolate)
		strbuf_addstr(&err, "an isolated tuner cache needs a fresh interpreter");
	else if (!zl_worker_submit(socket_path, &w->cp.args, &w->cp.env, s->flaggems_dir, WORKER_ANSWER_S, ws, &err)) {
		w->ws = ws;
		w->cp.pid = ws->pid;
		w->cp.out_fd = ws->out_fd;
		ws->out_fd = -1;
	}
	if (!w->ws && zl_verbosity >= 0)
		fprintf(stderr, "zlbench: the batch's worker is not used: %s; starting a fresh interpreter\n", err.buf);
	else if (w->ws && zl_verbosity > 0)
		fprintf(stderr, "zlbench: pytest runs in the batch's worker (pid %ld, %ld ops before this one)\n",
			(long)ws->pid, ws->ops_before);
	cJSON_Delete(f->start);
	f->start = zl_worker_start_json(w->ws, w->ws ? NULL : err.buf);
	strbuf_release(&err);
}

int zl_watch_start(struct zl_watch *w, struct zl_run_ctx *c, struct strbuf *err)
{
	const char *worker_socket = zl_env(ZL_ENV_WORKER_SOCKET);
	char *log_path = zl_path_join(c->run_dir, "pytest.log");

	w->timeout_s = c->s->timeout_s;
	w->log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->log_fd < 0)
		zl_print_warning("cannot write '%s': %s", log_path, strerror(errno));
	free(log_path);
	strvec_pushv(&w->cp.args, c->child_argv.v);
	strvec_pushv(&w->cp.env, c->child_env.v);
	w->cp.dir = c->s->flaggems_dir;
	w->cp.new_pgroup = 1;
	/* if zlbench itself is killed outright, pytest must not keep the device */
	w->cp.pdeathsig = SIGTERM;
	w->cp.capture_output = 1;
	c->f.started_epoch = zl_now_epoch();
	if (worker_socket)
		start_in_worker(w, c, worker_socket);
	if (!w->ws && child_start(&w->cp, err))
		return -1;
	return 0;
}

/* ---- watching ---------------------------------------------------------------- */

/* How long a run waits for the batch's record of a worker that died under it. */
#define LOST_WORKER_WAIT_S 5.0

static void worker_lost(struct zl_watch *w)
{
	w->lost = 1;
	w->reaped = 1;
	if (zl_worker_exit_status(w->ws->socket_path, w->ws->pid, LOST_WORKER_WAIT_S, &w->status)) {
		w->lost_unknown = 1;
		w->status = W_EXITCODE(0, SIGKILL);
	}
}

/* The child's output to pytest.log, and to our stdout unless -q keeps it to the log. */
static void tee_out(struct zl_watch *w, const char *buf, size_t n)
{
	if (zl_verbosity >= 0) {
		if (fwrite(buf, 1, n, stdout) != n)
			clearerr(stdout);
		fflush(stdout);
	}
	if (w->log_fd >= 0)
		zl_write_all(w->log_fd, buf, n);
}

/* How long the pipe is still read once the child is gone (and its group killed). */
#define DRAIN_S 2.0

/* The clock of one watch. */
struct clock {
	double start;
	double kill_at;       /* when SIGKILL follows a SIGTERM; 0: none due */
	double drain_until;   /* set when the child is reaped */
	double grace;         /* between SIGTERM and SIGKILL */
	int pipe_open;
};

/* The timeout: SIGTERM to the child's group, SIGKILL after the grace. */
static void enforce_timeout(struct zl_watch *w, struct clock *k, double now)
{
	if (w->timeout_s > 0 && !w->timed_out && !w->reaped && now - k->start >= w->timeout_s) {
		w->timed_out = 1;
		fprintf(stderr, "zlbench: timeout after %.0f s: SIGTERM to the run's process group\n", w->timeout_s);
		child_kill(&w->cp, SIGTERM);
		w->signalled = 1;
		k->kill_at = now + k->grace;
	}
	if (k->kill_at && now >= k->kill_at && !w->reaped) {
		fprintf(stderr, "zlbench: still running after %.0f s of grace: SIGKILL\n", k->grace);
		child_kill(&w->cp, SIGKILL);
		k->kill_at = 0;
	}
}

/*
 * A process that left the group (setsid) may hold the pipe open for ever: once the child is
 * reaped the pipe is drained for DRAIN_S at most, never past the timeout, then closed.
 * 1 when it was closed now.
 */
static int stop_draining(struct zl_watch *w, struct clock *k, double now)
{
	if (w->reaped && k->pipe_open && !k->drain_until) {
		/* the child is gone; grandchildren holding the pipe are ended too (a worker that stays is not) */
		if (!w->ws || w->signalled || w->lost)
			kill(-w->cp.pid, SIGKILL);
		k->drain_until = now + DRAIN_S;
		if (w->timeout_s > 0 && !w->timed_out && k->start + w->timeout_s < k->drain_until)
			k->drain_until = k->start + w->timeout_s;
	}
	if (!k->drain_until || !k->pipe_open || now < k->drain_until)
		return 0;
	fprintf(stderr, "zlbench: a process outside the run's process group still holds its output open: not read any longer\n");
	close(w->cp.out_fd);
	w->cp.out_fd = -1;
	k->pipe_open = 0;
	return 1;
}

/* Wait up to 200 ms for output, the worker's events or a signal; take the output and events. -1: poll failed. */
static int poll_child(struct zl_watch *w, struct clock *k)
{
	struct pollfd pfd[3];
	int nfds = 0, r, ipipe = -1, ictl = -1;

	if (k->pipe_open) {
		ipipe = nfds;
		pfd[nfds++] = (struct pollfd){ w->cp.out_fd, POLLIN, 0 };
	}
	if (w->ws && !w->reaped) {
		ictl = nfds;
		pfd[nfds++] = (struct pollfd){ w->ws->ctl_fd, POLLIN, 0 };
	}
	pfd[nfds++] = (struct pollfd){ zl_signals_fd(), POLLIN, 0 };
	r = poll(pfd, (nfds_t)nfds, 200);
	if (r < 0 && errno != EINTR)
		return -1;
	if (r > 0 && ictl >= 0 && (pfd[ictl].revents & (POLLIN | POLLHUP | POLLERR))) {
		int e = zl_worker_session_read(w->ws);

		if (e > 0) {
			w->status = W_EXITCODE(w->ws->status & 0xff, 0);
			w->reaped = 1;
		} else if (e < 0) {
			worker_lost(w);
		}
	}
	if (r > 0 && ipipe >= 0 && (pfd[ipipe].revents & (POLLIN | POLLHUP | POLLERR))) {
		char buf[8192];
		ssize_t n = read(w->cp.out_fd, buf, sizeof(buf));

		if (n > 0)
			tee_out(w, buf, (size_t)n);
		else if (n == 0 || (errno != EINTR && errno != EAGAIN))
			k->pipe_open = 0;
	}
	return 0;
}

/* SIGINT/SIGTERM/SIGHUP to zlbench go to the child's group; SIGKILL follows after the grace. */
static void forward_signals(struct zl_watch *w, struct clock *k)
{
	int sig;

	while ((sig = zl_signals_take())) {
		if (sig == SIGCHLD)
			continue;
		if (!w->interrupt_sig)
			w->interrupt_sig = sig;
		if (w->reaped)
			continue;
		/* signal first: the message may fail if our stdout/stderr is gone */
		child_kill(&w->cp, sig);
		w->signalled = 1;
		fprintf(stderr, "\nzlbench: %s: forwarded to the run's process group\n", strsignal(sig));
		if (!k->kill_at)
			k->kill_at = zl_now_monotonic() + k->grace;
	}
}

void zl_watch_wait(struct zl_watch *w)
{
	struct clock k = { zl_now_monotonic(), 0, 0, zl_kill_grace(), 1 };

	while (!w->reaped || k.pipe_open) {
		double now = zl_now_monotonic();

		enforce_timeout(w, &k, now);
		if (stop_draining(w, &k, now))
			continue;
		if (poll_child(w, &k))
			break;
		forward_signals(w, &k);
		if (!w->reaped && !w->ws && waitpid(w->cp.pid, &w->status, WNOHANG) == w->cp.pid)
			w->reaped = 1;
	}
	/* nothing of the group may outlive the run; a worker that ended the op cleanly stays for the next */
	if (!w->ws || w->signalled || w->lost)
		kill(-w->cp.pid, SIGKILL);
}

/* ---- how it ended -------------------------------------------------------------- */

/* What the worker said about the op's end, for the identity and the log. */
static void worker_outcome(const struct zl_watch *w, struct zl_run_facts *f)
{
	const struct zl_worker_session *ws = w->ws;
	size_t i;

	cJSON_Delete(f->start);
	f->start = zl_worker_start_json(ws, NULL);
	if (zl_verbosity < 0)
		return;
	if (cJSON_GetArraySize(ws->reset_after) > 0) {
		const cJSON *n;

		fprintf(stderr, "zlbench: worker: reset after this op:");
		cJSON_ArrayForEach(n, ws->reset_after)
			if (cJSON_IsString(n))
				fprintf(stderr, " %s;", n->valuestring);
		fputc('\n', stderr);
	}
	for (i = 0; i < ws->notes.nr; i++)
		fprintf(stderr, "zlbench: worker: %s\n", ws->notes.v[i]);
	if (ws->retire)
		fprintf(stderr, "zlbench: worker: it ends after this op: %s\n", ws->retire);
	else if (w->lost)
		fprintf(stderr, "zlbench: worker: it died during this op (pid %ld)\n", (long)w->cp.pid);
}


static const char *status_for(const struct zl_watch *w, int pytest_code, int *exit_code, int *sig)
{
	*sig = 0;
	if (w->timed_out) {
		*exit_code = ZL_EXIT_TIMEOUT;
		if (WIFSIGNALED(w->status))
			*sig = WTERMSIG(w->status);
		return ZL_STATUS_TIMEOUT;
	}
	if (w->interrupt_sig) {
		*exit_code = ZL_EXIT_SIGNAL_BASE + w->interrupt_sig;
		if (WIFSIGNALED(w->status))
			*sig = WTERMSIG(w->status);
		return ZL_STATUS_INTERRUPTED;
	}
	if (WIFSIGNALED(w->status)) {
		*sig = WTERMSIG(w->status);
		*exit_code = ZL_EXIT_SIGNAL_BASE + *sig;
		return ZL_STATUS_CRASHED;
	}
	*exit_code = zl_exit_from_pytest(pytest_code);
	switch (pytest_code) {
	case 0: return ZL_STATUS_PASSED;
	case 2: return ZL_STATUS_INTERRUPTED;
	case 3: return ZL_STATUS_CRASHED;
	default: return ZL_STATUS_FAILED;
	}
}

/* Vendor guard verdict from plugins/vendor.json: 1 when FlagGems detected another vendor. */
static int vendor_mismatch(const char *run_dir, struct strbuf *msg)
{
	char *path = zl_path_join(run_dir, "plugins/vendor.json");
	struct strbuf text = STRBUF_INIT;
	cJSON *doc = NULL;
	int mismatch = 0;

	if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL) && (doc = cJSON_Parse(text.buf))) {
		const cJSON *match = cJSON_GetObjectItemCaseSensitive(doc, "match");
		const cJSON *exp = cJSON_GetObjectItemCaseSensitive(doc, "expected");
		const cJSON *det = cJSON_GetObjectItemCaseSensitive(doc, "detected");

		if (cJSON_IsFalse(match)) {
			mismatch = 1;
			strbuf_addf(msg, "FlagGems detected vendor '%s' but the backend expects '%s' (VENDOR_MISMATCH)",
				    cJSON_IsString(det) ? det->valuestring : "?",
				    cJSON_IsString(exp) ? exp->valuestring : "?");
		}
	}
	cJSON_Delete(doc);
	strbuf_release(&text);
	free(path);
	return mismatch;
}

/*
 * The line of pytest.log that best says why a run did not pass, for `reason`:
 * zlbench's own markers first, then pytest's short summary ("FAILED node - msg"),
 * its error lines ("E   ..."), and only then anything that mentions an error.
 */
struct reason_mark {
	const char *text;
	int line_start;   /* must begin the line */
};

static char *first_error_line(const char *run_dir)
{
	static const struct reason_mark marks[] = {
		{ "VENDOR_MISMATCH", 0 }, { "REPLAY_MISS", 0 }, { "FAILED ", 1 }, { "ERROR ", 1 },
		{ "E   ", 1 }, { "Fatal Python error", 0 }, { "Traceback", 1 }, { "Error", 0 },
		{ NULL, 0 },
	};
	char *path = zl_path_join(run_dir, "pytest.log");
	struct strbuf text = STRBUF_INIT;
	char *found = NULL;
	const struct reason_mark *m;

	if (!zl_read_file(&text, path, NULL, ZL_CAP_LARGE, NULL)) {
		for (m = marks; m->text && !found; m++) {
			const char *hit = text.buf;

			while ((hit = strstr(hit, m->text))) {
				const char *start = hit, *end = strchr(hit, '\n');

				while (start > text.buf && start[-1] != '\n')
					start--;
				if (!m->line_start || start == hit) {
					found = xstrndup(start, end ? (size_t)(end - start) : strlen(start));
					break;
				}
				hit += strlen(m->text);
			}
		}
	}
	strbuf_release(&text);
	free(path);
	return found;
}

/* Signals that stop a run, by the names people send them with (kill -INT, Ctrl-C). */
static const struct {
	int sig;
	const char *name;
} stop_signals[] = {
	{ SIGINT, "SIGINT" }, { SIGTERM, "SIGTERM" }, { SIGHUP, "SIGHUP" },
};

/*
 * When the run was stopped (timeout, or a signal to zlbench or to pytest), what happened,
 * not the traceback pytest printed on its way out; NULL when it was not stopped. Caller frees.
 */
static char *stop_reason(const struct zl_watch *w, double timeout_s, const char *run_dir)
{
	char *path, *reason = NULL;
	struct strbuf text = STRBUF_INIT;
	size_t i;

	if (w->timed_out)
		return xstrfmt("timeout after %g s", timeout_s);
	for (i = 0; i < ZL_ARRAY_SIZE(stop_signals); i++)
		if (w->interrupt_sig == stop_signals[i].sig)
			return xstrfmt("interrupted by %s", stop_signals[i].name);
	if (w->interrupt_sig)
		return xstrfmt("interrupted by signal %d (%s)", w->interrupt_sig, strsignal(w->interrupt_sig));
	/* pytest's own 2 after a SIGINT sent to it alone: its summary says KeyboardInterrupt */
	if (!WIFEXITED(w->status) || WEXITSTATUS(w->status) != 2)
		return NULL;
	path = zl_path_join(run_dir, "pytest.log");
	if (strbuf_read_file(&text, path) >= 0 && strstr(text.buf, "KeyboardInterrupt"))
		reason = xstrdup("interrupted by SIGINT (pytest's KeyboardInterrupt)");
	strbuf_release(&text);
	free(path);
	return reason;
}

/*
 * 1 when pytest's 2 means "stopped on errors during collection" (pytest's own summary
 * says "Interrupted: N error(s) during collection"), not a signal: a benchmark file that
 * does not import is a failed op, not a Ctrl-C, and a batch must not rerun it as one.
 */
static int collection_errors(const char *run_dir)
{
	char *path = zl_path_join(run_dir, "pytest.log");
	struct strbuf text = STRBUF_INIT;
	int found = 0;

	if (!zl_read_file(&text, path, NULL, ZL_CAP_LARGE, NULL)) {
		const char *hit = text.buf;

		while (!found && (hit = strstr(hit, "Interrupted: "))) {
			const char *end = strchr(hit, '\n'), *c;

			hit += strlen("Interrupted: ");
			c = strstr(hit, "during collection");
			found = c && (!end || c < end);
		}
	}
	strbuf_release(&text);
	free(path);
	return found;
}

/* Why a run that did not pass did not: how it was stopped, else the log's best line. Caller frees. */
static char *why_not_passed(const struct zl_watch *w, const char *run_dir, int sig)
{
	char *reason = stop_reason(w, w->timeout_s, run_dir);

	if (!reason)
		reason = first_error_line(run_dir);
	if (!reason && w->lost_unknown)
		reason = xstrfmt("the worker (pid %ld) ended without reporting the end of the op; "
				 "its exit status is unknown", (long)w->cp.pid);
	else if (!reason && sig)
		reason = xstrfmt("killed by signal %d (%s)", sig, strsignal(sig));
	return reason;
}

/*
 * pytest's 0 also means "every test skipped" (a --dtypes the op does not support, a skipif):
 * no numbers, and no failure either. plugins/skips.json tells; without it the run passed.
 */
static void all_skipped(const char *run_dir, struct zl_run_facts *f)
{
	struct zl_skips sk = ZL_SKIPS_INIT;
	struct strbuf err = STRBUF_INIT;

	if (!zl_skips_load(run_dir, &sk, &err) && zl_skips_all_skipped(&sk)) {
		f->status = ZL_STATUS_SKIPPED;
		f->reason = zl_skips_reason(&sk);
	}
	zl_skips_release(&sk);
	strbuf_release(&err);
}

int zl_watch_outcome(const struct zl_watch *w, struct zl_run_ctx *c)
{
	struct zl_run_facts *f = &c->f;
	struct strbuf msg = STRBUF_INIT;
	int code = WIFEXITED(w->status) ? WEXITSTATUS(w->status) : 0;
	int exit_code, sig;
	const char *status;

	if (w->ws)
		worker_outcome(w, f);
	status = status_for(w, code, &exit_code, &sig);
	if (!strcmp(status, ZL_STATUS_INTERRUPTED) && !w->interrupt_sig && collection_errors(c->run_dir)) {
		status = ZL_STATUS_FAILED;
		exit_code = ZL_EXIT_FAILED;
	}
	f->status = status;
	f->signal = sig;
	if (vendor_mismatch(c->run_dir, &msg)) {
		f->status = ZL_STATUS_PREFLIGHT_FAILED;
		exit_code = ZL_EXIT_PREFLIGHT;
		zl_preflight_report_failure("vendor", msg.buf);
		f->reason = strbuf_detach(&msg, NULL);
	} else if (strcmp(f->status, ZL_STATUS_PASSED)) {
		f->reason = why_not_passed(w, c->run_dir, sig);
	} else {
		all_skipped(c->run_dir, f);
	}
	strbuf_release(&msg);
	return exit_code;
}
