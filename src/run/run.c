/*
 * zlbench run: the run directory, the supervised pytest child and the
 * run_identity.json that makes the run's caliber impossible to miss.
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "zlbench/cachedir.h"
#include "zlbench/cachesweep.h"
#include "zlbench/child.h"
#include "zlbench/error.h"
#include "zlbench/facts.h"
#include "zlbench/fsutil.h"
#include "zlbench/history.h"
#include "zlbench/identity.h"
#include "zlbench/push.h"
#include "zlbench/run.h"
#include "zlbench/runload.h"
#include "zlbench/shapes.h"
#include "zlbench/tunercache.h"
#include "zlbench/util.h"
#include "zlbench/worker.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

extern char **environ;

/* Variables only zlbench itself reads, holding credentials: removed from the child's environment. */
static const char *child_secrets[] = { "ZL_PUSH_TOKEN", "ZL_PUSH_URL", NULL };

void zl_run_build_child(const struct zl_settings *s, const struct zl_preflight *pf,
			const struct zl_plan *plan, const char *plugins_dir,
			const char *flaggems_cache, const char *triton_cache,
			struct strvec *argv, struct strvec *env)
{
	const struct zl_backend *b;
	const char *old_pp = getenv("PYTHONPATH");
	struct strbuf devs = STRBUF_INIT;
	size_t i;
	char *results = zl_path_join(pf->out_dir ? pf->out_dir : ".", "results.json");
	char *src = zl_path_join(s->flaggems_dir, "src");

	strvec_push(argv, pf->python_path ? pf->python_path : s->python);
	strvec_push(argv, "-m");
	strvec_push(argv, "pytest");
	for (i = 0; i < pf->nodes.nodes.nr; i++)
		strvec_push(argv, pf->nodes.nodes.v[i]);
	if (pf->nodes.marker) {
		strvec_push(argv, "-m");
		strvec_push(argv, pf->nodes.marker);
	}
	for (i = 0; i < plan->plugins.nr; i++) {
		strvec_push(argv, "-p");
		strvec_push(argv, plan->plugins.v[i]);
	}
	strvec_push(argv, "--level");
	strvec_push(argv, s->level);
	strvec_push(argv, "--mode");
	strvec_push(argv, "kernel");
	strvec_push(argv, "--record");
	strvec_push(argv, "json");
	strvec_push(argv, "--output");
	strvec_push(argv, results);
	strvec_push(argv, "-s");
	if (s->shape_mode_file) {
		strvec_push(argv, "--shape_file");
		strvec_push(argv, s->shape_file);
	}
	for (i = 0; i < s->passthrough.nr; i++)
		strvec_push(argv, s->passthrough.v[i]);

	/* the plugins and the FlagGems under test come first, not whatever is installed */
	if (old_pp && *old_pp)
		strvec_pushf(env, "PYTHONPATH=%s:%s:%s", plugins_dir, src, old_pp);
	else
		strvec_pushf(env, "PYTHONPATH=%s:%s", plugins_dir, src);
	strvec_push(env, "PYTHONUNBUFFERED=1");
	/* zlbench's own credentials: FlagGems and plugin code could read or log them */
	strvec_pushv(env, child_secrets);

	/* pin devices through the backend's own variable; no other vendor's variable survives */
	for (i = 0; i < s->devices.nr; i++)
		strbuf_addf(&devs, "%s%s", i ? "," : "", s->devices.v[i]);
	for (b = zl_backend_table; b->name; b++) {
		const char *const *x;

		if (b != s->backend)
			strvec_push(env, b->visibility_var);
		for (x = b->extra_visibility_vars; x && *x; x++)
			if (strcmp(*x, s->backend->visibility_var))
				strvec_push(env, *x);
	}
	strvec_pushf(env, "%s=%s", s->backend->visibility_var, devs.buf);
	strvec_pushv(env, (const char **)s->backend->pin_env);

	strvec_pushf(env, "ZL_RUN_DIR=%s", pf->out_dir ? pf->out_dir : "");
	strvec_pushf(env, "ZL_BACKEND=%s", s->backend->name);
	strvec_pushf(env, "ZL_EXPECTED_VENDOR=%s", s->backend->vendor_name);
	strvec_pushf(env, "ZL_VENDOR_MODULE=%s", s->backend->vendor_module);
	strvec_pushf(env, "ZL_TIMER_PLAN=%s", plan->timer);
	strvec_pushf(env, "ZL_NOISE_TARGET=%g", plan->noise_target);
	strvec_pushf(env, "ZL_MAX_TIME_PER_SHAPE=%g", plan->max_time_per_shape_s);
	strvec_pushf(env, "ZL_CLOCK_SOURCE=%s", plan->clock_source);
	strvec_pushf(env, "ZL_DIRECT_REPEAT=%ld", s->direct_repeat);
	if (s->autotune_records)
		strvec_pushf(env, "ZL_AUTOTUNE_MODE=%s", s->replay_from ? "replay" : "record");
	else
		strvec_push(env, "ZL_AUTOTUNE_MODE"); /* not inherited: the plugin is not loaded */
	if (s->replay_from)
		strvec_pushf(env, "ZL_REPLAY_FROM=%s", s->replay_from);
	else
		strvec_push(env, "ZL_REPLAY_FROM");
	zl_cache_dir_env(ZL_CACHE_FLAGGEMS, flaggems_cache, env);
	/* libtuner would use that database instead of the isolated cache */
	if (s->isolate && getenv(ZL_TUNER_DB_URL_VAR))
		strvec_push(env, ZL_TUNER_DB_URL_VAR);
	zl_cache_dir_env(ZL_CACHE_TRITON, triton_cache, env);
	strbuf_release(&devs);
	free(results);
	free(src);
}

/* ---- supervision ---------------------------------------------------------- */

struct supervised {
	struct child_process cp;
	int log_fd;
	int status;           /* raw wait status */
	int reaped;
	int interrupt_sig;    /* SIGINT/SIGTERM/SIGHUP received by zlbench, 0 if none */
	int timed_out;
	/*
	 * A batch's worker runs the session instead of a child (worker.h): its events say
	 * when the op ended; it is not ours to reap, and it outlives the op unless we had to
	 * signal it or it died.
	 */
	struct zl_worker_session *ws;
	int signalled;        /* we signalled the worker's group: it ends with this op */
	int lost;             /* the worker ended without its exit event */
	int lost_unknown;     /* ... and its batch recorded no exit status */
};

/* How long a run waits for the batch's record of a worker that died under it. */
#define LOST_WORKER_WAIT_S 5.0

static void worker_lost(struct supervised *sv)
{
	sv->lost = 1;
	sv->reaped = 1;
	if (zl_worker_exit_status(sv->ws->socket_path, sv->ws->pid, LOST_WORKER_WAIT_S, &sv->status)) {
		sv->lost_unknown = 1;
		sv->status = W_EXITCODE(0, SIGKILL);
	}
}

static void tee_out(struct supervised *sv, const char *buf, size_t n)
{
	if (fwrite(buf, 1, n, stdout) != n)
		clearerr(stdout);
	fflush(stdout);
	if (sv->log_fd >= 0)
		zl_write_all(sv->log_fd, buf, n);
}

/* How long the pipe is still read once the child is gone (and its group killed). */
#define DRAIN_S 2.0

/*
 * Stream the child's output until it has exited and its pipe is closed;
 * forward SIGINT/SIGTERM/SIGHUP to its process group; enforce the timeout
 * (SIGTERM, grace, SIGKILL). Afterwards no process of the group is left.
 * A process that left the group (setsid) may hold the pipe open for ever:
 * once the child is reaped the pipe is drained for DRAIN_S at most, never
 * past the timeout, then closed.
 */
static void supervise(struct supervised *sv, double timeout_s)
{
	double start = zl_now_monotonic();
	double kill_at = 0; /* when SIGKILL follows a SIGTERM */
	double drain_until = 0; /* set when the child is reaped */
	int pipe_open = 1;
	double grace = zl_kill_grace();

	while (!sv->reaped || pipe_open) {
		struct pollfd pfd[3];
		int nfds = 0, wait_ms = 200, r, ipipe = -1, ictl = -1;
		double now = zl_now_monotonic();

		if (timeout_s > 0 && !sv->timed_out && !sv->reaped && now - start >= timeout_s) {
			sv->timed_out = 1;
			fprintf(stderr, "zlbench: timeout after %.0f s: SIGTERM to the run's process group\n", timeout_s);
			child_kill(&sv->cp, SIGTERM);
			sv->signalled = 1;
			kill_at = now + grace;
		}
		if (kill_at && now >= kill_at && !sv->reaped) {
			fprintf(stderr, "zlbench: still running after %.0f s of grace: SIGKILL\n", grace);
			child_kill(&sv->cp, SIGKILL);
			kill_at = 0;
		}
		if (sv->reaped && pipe_open && !drain_until) {
			/* the child is gone; grandchildren holding the pipe are ended too (a worker that stays is not) */
			if (!sv->ws || sv->signalled || sv->lost)
				kill(-sv->cp.pid, SIGKILL);
			drain_until = now + DRAIN_S;
			if (timeout_s > 0 && !sv->timed_out && start + timeout_s < drain_until)
				drain_until = start + timeout_s;
		}
		if (drain_until && pipe_open && now >= drain_until) {
			fprintf(stderr, "zlbench: a process outside the run's process group still holds its output open: not read any longer\n");
			close(sv->cp.out_fd);
			sv->cp.out_fd = -1;
			pipe_open = 0;
			continue;
		}
		if (pipe_open) {
			ipipe = nfds;
			pfd[nfds++] = (struct pollfd){ sv->cp.out_fd, POLLIN, 0 };
		}
		if (sv->ws && !sv->reaped) {
			ictl = nfds;
			pfd[nfds++] = (struct pollfd){ sv->ws->ctl_fd, POLLIN, 0 };
		}
		pfd[nfds++] = (struct pollfd){ zl_signals_fd(), POLLIN, 0 };
		r = poll(pfd, (nfds_t)nfds, wait_ms);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0 && ictl >= 0 && (pfd[ictl].revents & (POLLIN | POLLHUP | POLLERR))) {
			int e = zl_worker_session_read(sv->ws);

			if (e > 0) {
				sv->status = W_EXITCODE(sv->ws->status & 0xff, 0);
				sv->reaped = 1;
			} else if (e < 0) {
				worker_lost(sv);
			}
		}
		if (r > 0 && ipipe >= 0 && (pfd[ipipe].revents & (POLLIN | POLLHUP | POLLERR))) {
			char buf[8192];
			ssize_t n = read(sv->cp.out_fd, buf, sizeof(buf));

			if (n > 0)
				tee_out(sv, buf, (size_t)n);
			else if (n == 0 || (errno != EINTR && errno != EAGAIN))
				pipe_open = 0;
		}
		for (;;) {
			int sig = zl_signals_take();

			if (!sig)
				break;
			if (sig == SIGCHLD)
				continue;
			if (!sv->interrupt_sig)
				sv->interrupt_sig = sig;
			if (!sv->reaped) {
				/* signal first: the message may fail if our stdout/stderr is gone */
				child_kill(&sv->cp, sig);
				sv->signalled = 1;
				fprintf(stderr, "\nzlbench: %s: forwarded to the run's process group\n", strsignal(sig));
				if (!kill_at)
					kill_at = zl_now_monotonic() + grace;
			}
		}
		if (!sv->reaped && !sv->ws) {
			pid_t p = waitpid(sv->cp.pid, &sv->status, WNOHANG);
			if (p == sv->cp.pid)
				sv->reaped = 1;
		}
	}
	/* nothing of the group may outlive the run; a worker that ended the op cleanly stays for the next */
	if (!sv->ws || sv->signalled || sv->lost)
		kill(-sv->cp.pid, SIGKILL);
}

/* ---- the run -------------------------------------------------------------- */

static void print_summary(const struct zl_run *run, FILE *out);

static void print_header(const struct zl_settings *s, const struct zl_preflight *pf,
			 const struct zl_plan *plan, const struct zl_run_facts *f)
{
	size_t i;
	FILE *o = stderr;
	char *demo = zl_demo_label(s->flaggems_dir);
	const char *op = pf->nodes.op ? pf->nodes.op : pf->nodes.marker ? pf->nodes.marker : "the op";
	int db_url = getenv(ZL_TUNER_DB_URL_VAR) != NULL;

	if (zl_verbosity < 0)
		goto out;
	fprintf(o, "zlbench %s\n", ZL_VERSION_STRING);
	fprintf(o, "backend:     %s (%s%s%s), vendor %s, %s=%s\n", s->backend->name,
		zl_source_name(s->v[ZL_SET_BACKEND].source),
		s->v[ZL_SET_BACKEND].source == ZL_SRC_FLAG || s->v[ZL_SET_BACKEND].source == ZL_SRC_ENV ? ": " : "",
		s->v[ZL_SET_BACKEND].source == ZL_SRC_FLAG || s->v[ZL_SET_BACKEND].source == ZL_SRC_ENV ? s->v[ZL_SET_BACKEND].from : "",
		s->backend->vendor_name, s->backend->visibility_var, f->visibility_value);
	for (i = 0; i < s->devices.nr; i++) {
		long idx = -1;
		const struct zl_device *d = NULL;

		if (!zl_parse_long(s->devices.v[i], &idx))
			d = zl_devlist_find(&pf->devs, (int)idx);
		if (d)
			fprintf(o, "device:      %d  %s  %s\n", d->index, d->name ? d->name : "?", d->uuid ? d->uuid : "?");
		else
			fprintf(o, "device:      %s  (%s)\n", s->devices.v[i], pf->devs.how ? pf->devs.how : "not verified");
	}
	fprintf(o, "flaggems:    %s%s%s%s\n", s->flaggems_dir, demo ? "  [" : "", demo ? demo : "", demo ? "]" : "");
	fprintf(o, "level:       %s (%s)\n", s->level, zl_source_name(s->v[ZL_SET_LEVEL].source));
	if (pf->shape_sha256[0] && pf->shapes_for_op >= 0)
		fprintf(o, "shapes:      %s: %s sha256 %.16s…, %ld shapes for %s\n", s->shape_mode_file ? "file" : "upstream",
			pf->shape_source, pf->shape_sha256, pf->shapes_for_op, op);
	else if (pf->shape_sha256[0])
		fprintf(o, "shapes:      %s: %s sha256 %.16s…, no shapes for %s in that file (FlagGems defaults)\n",
			s->shape_mode_file ? "file" : "upstream", pf->shape_source, pf->shape_sha256, op);
	else
		fprintf(o, "shapes:      %s: %s (not found: FlagGems defaults)\n", s->shape_mode_file ? "file" : "upstream",
			pf->shape_source ? pf->shape_source : "-");
	fprintf(o, "test node:   ");
	for (i = 0; i < pf->nodes.nodes.nr; i++)
		fprintf(o, "%s%s", i ? " " : "", pf->nodes.nodes.v[i]);
	if (pf->nodes.marker)
		fprintf(o, "  -m %s", pf->nodes.marker);
	fprintf(o, "  (%s)\n", pf->nodes.how);
	fprintf(o, "plugins:     ");
	for (i = 0; i < plan->plugins.nr; i++)
		fprintf(o, "%s%s", i ? " " : "", plan->plugins.v[i]);
	fputc('\n', o);
	fprintf(o, "timer:       %s", plan->timer);
	if (!strcmp(plan->timer, "profiler"))
		fprintf(o, " (device timestamps, L2 flushed outside each call; noise target %g %%, at most %g s "
			"per shape)", plan->noise_target * 100, plan->max_time_per_shape_s);
	else if (!strcmp(plan->timer, "graph"))
		fprintf(o, " (graph replay, L2 flushed)");
	fprintf(o, "; fallback per shape: %s; SM clock: %s\n", plan->fallback, plan->clock_source);
	if (s->isolate)
		fprintf(o, "tuner cache: isolated: %s (removed afterwards)%s\n", f->flaggems_cache,
			db_url ? "; " ZL_TUNER_DB_URL_VAR " removed from the child's environment" : "");
	else if (f->winners_before < 0)
		fprintf(o, "tuner cache: shared: %s, winners already stored unknown: %s\n", f->flaggems_cache,
			f->tuner_note_before ? f->tuner_note_before : "not counted");
	else
		fprintf(o, "tuner cache: shared: %s, %ld winners already stored%s%s\n", f->flaggems_cache,
			f->winners_before, f->tuner_note_before ? "; " : "", f->tuner_note_before ? f->tuner_note_before : "");
	fprintf(o, "replay:      %s\n", s->replay_from ? s->replay_from
				       : s->autotune_records ? "none (recording autotune winners)"
				       : "none; autotune records off (FlagGems' tuners run unwatched)");
	fprintf(o, "run dir:     %s\n", pf->out_dir);
	if (!s->isolate && f->winners_before > 0)
		fprintf(o, "zlbench: warning: the shared tuner cache already holds %ld winners: an A/B side may inherit them instead of tuning (use --isolate-tuner-cache)\n",
			f->winners_before);
	else if (!s->isolate && f->winners_before < 0)
		fprintf(o, "zlbench: warning: the shared tuner cache could not be counted, so it may hold winners: an A/B side may inherit them instead of tuning (use --isolate-tuner-cache)\n");
	if (!s->isolate && db_url)
		fprintf(o, "zlbench: warning: " ZL_TUNER_DB_URL_VAR " is set: FlagGems' tuner uses that database, not '%s' counted here, so the winner counts say nothing about it (use --isolate-tuner-cache)\n",
			f->flaggems_cache);
out:
	free(demo);
}

static const char *status_for(const struct supervised *sv, int pytest_code, int *exit_code, int *sig)
{
	*sig = 0;
	if (sv->timed_out) {
		*exit_code = ZL_EXIT_TIMEOUT;
		if (WIFSIGNALED(sv->status))
			*sig = WTERMSIG(sv->status);
		return ZL_STATUS_TIMEOUT;
	}
	if (sv->interrupt_sig) {
		*exit_code = ZL_EXIT_SIGNAL_BASE + sv->interrupt_sig;
		if (WIFSIGNALED(sv->status))
			*sig = WTERMSIG(sv->status);
		return ZL_STATUS_INTERRUPTED;
	}
	if (WIFSIGNALED(sv->status)) {
		*sig = WTERMSIG(sv->status);
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
static char *stop_reason(const struct supervised *sv, double timeout_s, const char *run_dir)
{
	char *path, *reason = NULL;
	struct strbuf text = STRBUF_INIT;
	size_t i;

	if (sv->timed_out)
		return xstrfmt("timeout after %g s", timeout_s);
	for (i = 0; i < ZL_ARRAY_SIZE(stop_signals); i++)
		if (sv->interrupt_sig == stop_signals[i].sig)
			return xstrfmt("interrupted by %s", stop_signals[i].name);
	if (sv->interrupt_sig)
		return xstrfmt("interrupted by signal %d (%s)", sv->interrupt_sig, strsignal(sv->interrupt_sig));
	/* pytest's own 2 after a SIGINT sent to it alone: its summary says KeyboardInterrupt */
	if (!WIFEXITED(sv->status) || WEXITSTATUS(sv->status) != 2)
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

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Tries of the final identity's write, and the wait before the second (doubled each time). */
#define FINAL_WRITE_TRIES 3
#define FINAL_WRITE_WAIT_S 0.5

/*
 * The final identity is what makes the run's status true on disk. A full disk may have
 * room again a moment later, or once the run's own isolated caches are gone (they are
 * removed before the second try: everything they were needed for is counted). 0, or -1
 * with err after the last try.
 */
static int write_final_identity(const char *run_dir, const cJSON *doc, struct zl_run_facts *f, struct strbuf *err)
{
	char *path = zl_path_join(run_dir, "run_identity.json");
	double wait = FINAL_WRITE_WAIT_S;
	int i, rc = -1;

	for (i = 0; i < FINAL_WRITE_TRIES && rc; i++) {
		if (i) {
			zl_run_facts_cleanup(f);
			sleep_s(wait);
			wait *= 2;
		}
		rc = zl_json_write_atomic(path, doc, err);
	}
	if (rc) {
		struct strbuf why = STRBUF_INIT;

		strbuf_addbuf(&why, err);
		zl_error(err, "%s (%d tries)", why.buf, FINAL_WRITE_TRIES);
		strbuf_release(&why);
	}
	free(path);
	return rc;
}

/* Where the final status went when run_identity.json could not take it (never silently nowhere). */
static void report_lost_identity(const char *run_dir, const struct zl_run_facts *f, const char *why,
				 const char *db_path, const char *run_id)
{
	char *path = zl_path_join(run_dir, "run_identity.json");
	/* the provisional one, unless the disk was full from the start */
	const char *on_disk = zl_is_file(path) ? "run_identity.json still says 'running'"
					       : "there is no run_identity.json";

	zl_print_error("cannot write the final run_identity.json in '%s': %s", run_dir, why);
	if (db_path)
		zl_print_error("the run's final status (%s, exit %d) is stored in the history database '%s' "
			       "(run %s) only; %s", f->status, f->exit_code, db_path, run_id ? run_id : "?", on_disk);
	else
		zl_print_error("the run's final status (%s, exit %d) could not be stored anywhere (history %s): %s",
			       f->status, f->exit_code,
			       zl_history_disabled() ? "off: ZL_NO_HISTORY" : "not written either", on_disk);
	free(path);
}

/*
 * Claim the run directory so that no two runs share one. The leaf is made with
 * mkdir(): a default name another run took already gets "-2", "-3", ... An existing
 * directory is taken only when --out named it and it is still empty. Either way,
 * making plugins/ in it is the claim, which one run alone can win.
 * 0: pf->out_dir is ours; 1: taken or not empty (the out_dir check); -1: error.
 */
static int claim_run_dir(const struct zl_settings *s, struct zl_preflight *pf, struct strbuf *err)
{
	int named = s->v[ZL_SET_OUT].raw != NULL;
	char *dir = NULL, *plugins = NULL;
	int n, made = 1, rc = 1;

	for (n = 1; n <= 99 && made == 1; n++) {
		free(dir);
		dir = n == 1 ? xstrdup(pf->out_dir) : xstrfmt("%s-%d", pf->out_dir, n);
		made = zl_mkdir_new(dir, err);
		if (made < 0) {
			rc = -1;
			goto out;
		}
		if (named)
			break;
	}
	if (made == 1 && !named) {
		zl_error(err, "run directories '%s' to '%s' all exist", pf->out_dir, dir);
		goto out;
	}
	if (made == 1 && !zl_dir_absent_or_empty(dir)) {
		zl_error(err, "run directory '%s' exists and is not empty: a run directory is never reused", dir);
		goto out;
	}
	plugins = zl_path_join(dir, "plugins");
	if (mkdir(plugins, 0777)) {
		if (errno == EEXIST) {
			zl_error(err, "run directory '%s' was claimed by another run at the same time", dir);
		} else {
			zl_error(err, "cannot create directory '%s': %s", plugins, strerror(errno));
			rc = -1;
		}
		goto out;
	}
	free(pf->out_dir);
	pf->out_dir = dir;
	dir = NULL;
	rc = 0;
out:
	free(dir);
	free(plugins);
	return rc;
}

/* How long a run waits for a batch's worker to take its op before it starts a fresh child. */
#define WORKER_ANSWER_S 30.0

/*
 * Hand the session to the batch's worker (worker.h); when that cannot be, the run starts a
 * fresh child as always and its identity says why. f->start records how the op started.
 */
static void start_in_worker(struct supervised *sv, struct zl_worker_session *ws, const struct zl_settings *s,
			    const char *socket_path, struct zl_run_facts *f)
{
	struct strbuf err = STRBUF_INIT;

	if (s->isolate)
		strbuf_addstr(&err, "an isolated tuner cache needs a fresh interpreter");
	else if (!zl_worker_submit(socket_path, &sv->cp.args, &sv->cp.env, s->flaggems_dir, WORKER_ANSWER_S, ws, &err)) {
		sv->ws = ws;
		sv->cp.pid = ws->pid;
		sv->cp.out_fd = ws->out_fd;
		ws->out_fd = -1;
	}
	if (!sv->ws && zl_verbosity >= 0)
		fprintf(stderr, "zlbench: the batch's worker is not used: %s; starting a fresh interpreter\n", err.buf);
	else if (sv->ws && zl_verbosity > 0)
		fprintf(stderr, "zlbench: pytest runs in the batch's worker (pid %ld, %ld ops before this one)\n",
			(long)ws->pid, ws->ops_before);
	cJSON_Delete(f->start);
	f->start = zl_worker_start_json(sv->ws, sv->ws ? NULL : err.buf);
	strbuf_release(&err);
}

/* What the worker said about the op's end, for the identity and the log. */
static void worker_outcome(const struct supervised *sv, struct zl_run_facts *f)
{
	const struct zl_worker_session *ws = sv->ws;
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
	else if (sv->lost)
		fprintf(stderr, "zlbench: worker: it died during this op (pid %ld)\n", (long)sv->cp.pid);
}

int zl_run_execute(struct zl_settings *s, struct zl_preflight *pf, const char *push_url,
		   const char *const *self_argv)
{
	struct zl_plan plan = ZL_PLAN_INIT;
	struct zl_run_facts f;
	struct supervised sv;
	struct zl_worker_session ws = ZL_WORKER_SESSION_INIT;
	const char *worker_socket = getenv(ZL_WORKER_SOCKET_VAR);
	struct strbuf err = STRBUF_INIT, msg = STRBUF_INIT;
	char *plugins_dir = zl_plugins_dir();
	char *log_path = NULL;
	const char *status;
	cJSON *final_id = NULL;
	char *identity_lost = NULL;   /* why the final identity is not on disk */
	int exit_code = ZL_EXIT_INTERNAL, sig = 0, started = 0, finished = 0;

	memset(&sv, 0, sizeof(sv));
	child_init(&sv.cp);
	sv.log_fd = -1;
	zl_run_facts_init(&f);
	zl_plan_make(s, &plan);

	/* a closed terminal or log reader must not kill the supervisor before the identity is final */
	signal(SIGPIPE, SIG_IGN);
	if (zl_signals_install(&err)) {
		zl_print_error("%s", err.buf);
		exit_code = ZL_EXIT_USAGE;
		goto done_early;
	}
	/* the isolated caches of runs killed outright (kill -9) are removed by the next one */
	zl_cache_sweep_stale(NULL);
	switch (claim_run_dir(s, pf, &err)) {
	case 0:
		break;
	case 1:
		zl_preflight_report_failure("out_dir", err.buf);
		exit_code = ZL_EXIT_PREFLIGHT;
		goto done_early;
	default:
		zl_print_error("%s", err.buf);
		exit_code = ZL_EXIT_USAGE;
		goto done_early;
	}
	/* from here on every path leaves a truthful identity and removes temporary caches */
	if (zl_run_facts_collect_before(&f, s, pf, &err)) {
		/* the isolated caches could not be made (TMPDIR): the environment, as preflight */
		zl_preflight_report_failure("isolate_tuner_cache", err.buf);
		f.status = ZL_STATUS_PREFLIGHT_FAILED;
		f.reason = strbuf_detach(&err, NULL);
		f.exit_code = exit_code = ZL_EXIT_PREFLIGHT;
		f.finished_epoch = zl_now_epoch();
		if (zl_identity_write(s, pf, &plan, &f, &sv.cp.args, &sv.cp.env, self_argv, &err))
			zl_print_error("%s", err.buf);
		goto cleanup;
	}
	zl_run_build_child(s, pf, &plan, plugins_dir, f.isolated_flaggems_cache, f.isolated_triton_cache,
			   &sv.cp.args, &sv.cp.env);
	strvec_push(&sv.cp.env, ZL_WORKER_SOCKET_VAR); /* the batch's word to this run, not to pytest */
	f.status = ZL_STATUS_RUNNING;
	if (zl_identity_write(s, pf, &plan, &f, &sv.cp.args, &sv.cp.env, self_argv, &err))
		zl_print_warning("%s", err.buf);
	if (zl_shapes_archive_for_run(s, pf, &err))
		zl_print_warning("%s", err.buf);
	print_header(s, pf, &plan, &f);
	if (zl_verbosity > 0) {
		/* --verbose: the exact child, so a run can be repeated by hand */
		size_t i;

		fprintf(stderr, "cwd:         %s\nchild env:  ", s->flaggems_dir);
		for (i = 0; i < sv.cp.env.nr; i++)
			fprintf(stderr, " %s%s", strchr(sv.cp.env.v[i], '=') ? "" : "-u ", sv.cp.env.v[i]);
		fprintf(stderr, "\nchild argv: ");
		for (i = 0; i < sv.cp.args.nr; i++)
			fprintf(stderr, " %s", sv.cp.args.v[i]);
		fputc('\n', stderr);
	}

	log_path = zl_path_join(pf->out_dir, "pytest.log");
	sv.log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (sv.log_fd < 0)
		zl_print_warning("cannot write '%s': %s", log_path, strerror(errno));
	sv.cp.dir = s->flaggems_dir;
	sv.cp.new_pgroup = 1;
	/* if zlbench itself is killed outright, pytest must not keep the device */
	sv.cp.pdeathsig = SIGTERM;
	sv.cp.capture_output = 1;
	f.started_epoch = zl_now_epoch();
	if (worker_socket && *worker_socket)
		start_in_worker(&sv, &ws, s, worker_socket, &f);
	if (sv.ws && zl_identity_write(s, pf, &plan, &f, &sv.cp.args, &sv.cp.env, self_argv, &err))
		zl_print_warning("%s", err.buf);
	if (!sv.ws && child_start(&sv.cp, &err)) {
		zl_print_error("%s", err.buf);
		f.status = ZL_STATUS_CRASHED;
		f.reason = xstrdup(err.buf);
		exit_code = ZL_EXIT_INTERNAL;
		goto finish;
	}
	started = 1;
	/* the caches stay in use while pytest's group lives, even if zlbench is killed */
	if (f.isolated_root && zl_cache_owner_write(f.isolated_root, sv.cp.pid, &err))
		zl_print_warning("%s", err.buf);
	supervise(&sv, s->timeout_s);

finish:
	f.finished_epoch = zl_now_epoch();
	if (started) {
		int code = WIFEXITED(sv.status) ? WEXITSTATUS(sv.status) : 0;

		if (sv.ws)
			worker_outcome(&sv, &f);
		status = status_for(&sv, code, &exit_code, &sig);
		if (!strcmp(status, ZL_STATUS_INTERRUPTED) && !sv.interrupt_sig && collection_errors(pf->out_dir)) {
			status = ZL_STATUS_FAILED;
			exit_code = ZL_EXIT_FAILED;
		}
		f.status = status;
		f.signal = sig;
		if (vendor_mismatch(pf->out_dir, &msg)) {
			f.status = ZL_STATUS_PREFLIGHT_FAILED;
			exit_code = ZL_EXIT_PREFLIGHT;
			zl_preflight_report_failure("vendor", msg.buf);
			f.reason = strbuf_detach(&msg, NULL);
		} else if (strcmp(f.status, ZL_STATUS_PASSED)) {
			f.reason = stop_reason(&sv, s->timeout_s, pf->out_dir);
			if (!f.reason)
				f.reason = first_error_line(pf->out_dir);
			if (!f.reason && sv.lost_unknown)
				f.reason = xstrfmt("the worker (pid %ld) ended without reporting the end of the op; "
						   "its exit status is unknown", (long)sv.cp.pid);
			else if (!f.reason && sig)
				f.reason = xstrfmt("killed by signal %d (%s)", sig, strsignal(sig));
		}
	}
	f.exit_code = exit_code;
	zl_run_facts_collect_after(&f, s, pf);
	final_id = zl_identity_build(s, pf, &plan, &f, &sv.cp.args, &sv.cp.env, self_argv, &err);
	if (!final_id)
		zl_print_error("%s", err.buf);
	else if (write_final_identity(pf->out_dir, final_id, &f, &err))
		identity_lost = strbuf_detach(&err, NULL);
	{
		/* one load of the finished run serves the summary and the history */
		struct zl_run run;
		struct zl_history *db = NULL;
		int loaded, stored = 0;

		zl_run_init(&run);
		/* the identity that could not be written is the one the history gets */
		loaded = identity_lost ? zl_run_load_with_identity(pf->out_dir, cJSON_Duplicate(final_id, 1), &run, &err)
				       : zl_run_load(pf->out_dir, &run, &err);
		if (loaded) {
			zl_print_warning("cannot read the finished run: %s", err.buf);
		} else {
			if (zl_verbosity >= 0)
				print_summary(&run, stdout);
			if (!zl_history_disabled() &&
			    (zl_history_open(NULL, &db, &err) || zl_history_ingest_loaded(db, &run, &err)))
				zl_print_warning("history not updated: %s", err.buf);
			else
				stored = !zl_history_disabled();
		}
		if (identity_lost)
			report_lost_identity(pf->out_dir, &f, identity_lost, stored ? zl_history_path(db) : NULL,
					     run.run_id);
		zl_history_close(db);
		zl_run_print_footer(&f, run.identity, stderr);
		zl_run_release(&run);
		strbuf_reset(&err);
	}
	finished = 1;
cleanup:
	zl_run_facts_cleanup(&f);
	printf("RUN_DIR=%s\n", pf->out_dir);
	fflush(stdout);
done_early:
	zl_signals_restore();
	/*
	 * The run is over and nothing is left to clean up: Ctrl-C may now end the push at
	 * once (its retries can take minutes); the run directory keeps what it would send.
	 */
	if (finished && push_url) {
		strbuf_reset(&err);
		if (zl_push_simple(pf->out_dir, push_url, &err))
			zl_print_warning("push: %s", err.buf);
	}
	if (sv.log_fd >= 0)
		close(sv.log_fd);
	child_release(&sv.cp);
	zl_worker_session_release(&ws);
	zl_run_facts_release(&f);
	zl_plan_release(&plan);
	cJSON_Delete(final_id);
	free(identity_lost);
	free(plugins_dir);
	free(log_path);
	strbuf_release(&err);
	strbuf_release(&msg);
	return exit_code;
}

/* A figure of the summary: a missing one (null, NaN, Infinity in results.json) is "-", never "nan". */
static void add_figure(struct strbuf *sb, int width, int prec, double v)
{
	if (isfinite(v))
		strbuf_addf(sb, " %*.*f", width, prec, v);
	else
		strbuf_addf(sb, " %*s", width, "-");
}

static void print_summary(const struct zl_run *run, FILE *out)
{
	struct strbuf line = STRBUF_INIT;
	size_t i;

	if (!run->has_results || !run->nr_results) {
		fprintf(out, "(no results.json rows)\n");
		goto notes;
	}
	fprintf(out, "\n%-12s %-16s %-34s %12s %12s %9s\n", "op", "dtype", "shape", "torch ms", "gems ms", "speedup");
	for (i = 0; i < run->nr_results; i++) {
		const struct zl_result *r = &run->results[i];
		const struct zl_result *t;

		if (r->side != ZL_SIDE_GEMS)
			continue;
		t = zl_run_find(run, r->op, r->dtype, r->shape, r->occurrence, ZL_SIDE_TORCH);
		strbuf_reset(&line);
		strbuf_addf(&line, "%-12s %-16s %-34s", r->op, r->dtype, r->shape);
		add_figure(&line, 12, 6, t ? t->latency_ms : r->latency_base_ms);
		add_figure(&line, 12, 6, r->latency_ms);
		add_figure(&line, 9, 3, r->speedup);
		fprintf(out, "%s%s%s\n", line.buf, r->error_msg ? "  error: " : "", r->error_msg ? r->error_msg : "");
	}
	fputc('\n', out);
notes:
	/* what the table cannot show: rows without figures, a file that could not be read */
	for (i = 0; i < run->notes.nr; i++)
		fprintf(out, "note: %s\n", run->notes.v[i]);
	strbuf_release(&line);
}
