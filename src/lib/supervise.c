/* One zlbench child under a supervisor: its own process group, output to a log, stop signals forwarded. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/supervise.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* How long output may still come after the child was reaped (a process it left holds the pipe). */
#define DRAIN_S 0.5
#define POLL_MS 200

static int is_stop(int sig)
{
	return sig == SIGINT || sig == SIGTERM || sig == SIGHUP;
}

int zl_supervise_pending_stop(void)
{
	int sig, stop = 0;

	while ((sig = zl_signals_take()))
		if (!stop && is_stop(sig))
			stop = sig;
	return stop;
}

/* Copy what the child wrote; 0 at the end of its output. */
static int copy_output(int fd, const struct zl_supervise_opts *o)
{
	char buf[8192];
	ssize_t n;

	do
		n = read(fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return 0;
	/* a log that cannot be written must not stop the child: its run directory is the record */
	if (o->log_fd >= 0 && zl_write_all(o->log_fd, buf, (size_t)n))
		zl_print_warning("cannot write a child's log: %s", strerror(errno));
	/* an echo that fails (a closed terminal) is only a copy */
	if (o->echo_fd >= 0)
		(void)zl_write_all(o->echo_fd, buf, (size_t)n);
	return 1;
}

/* What zl_supervise() tracks while it waits on its child. */
struct watch {
	struct child_process *cp;
	const struct zl_supervise_opts *o;
	int *stop_sig;       /* the first stop signal forwarded, or 0 */
	double kill_at;      /* when SIGKILL follows that signal; 0: not armed */
	double drain_until;  /* after the reap: output may come until then */
	int status;          /* the wait status, once reaped */
	int reaped;
	int open;            /* the child's output is still open */
};

/* Take the pending signals: a stop signal goes to the child's group, the first arms the SIGKILL. */
static void forward_stops(struct watch *w)
{
	int sig;

	while ((sig = zl_signals_take())) {
		if (!is_stop(sig) || w->reaped)
			continue;
		child_kill(w->cp, sig);
		if (!*w->stop_sig) {
			*w->stop_sig = sig;
			w->kill_at = zl_now_monotonic() + w->o->kill_after_s;
		}
	}
}

/* Reap the child if it ended (the drain starts then); -1 with err when waitpid fails. */
static int try_reap(struct watch *w, struct strbuf *err)
{
	pid_t pid = waitpid(w->cp->pid, &w->status, WNOHANG);

	if (pid == w->cp->pid) {
		w->reaped = 1;
		w->drain_until = zl_now_monotonic() + DRAIN_S;
	} else if (pid < 0 && errno != EINTR) {
		zl_error(err, "waitpid(%ld): %s", (long)w->cp->pid, strerror(errno));
		return -1;
	}
	return 0;
}

int zl_supervise(struct child_process *cp, const struct zl_supervise_opts *o, int *exit_code, int *stop_sig,
		 struct strbuf *err)
{
	struct watch w = { .cp = cp, .o = o, .stop_sig = stop_sig };

	*stop_sig = 0;
	*exit_code = 0;
	cp->new_pgroup = 1;
	cp->capture_output = 1;
	cp->no_stdin = 1;
	if (!cp->pdeathsig)
		cp->pdeathsig = SIGTERM;
	if (child_start(cp, err))
		return -1;
	w.open = 1;
	while (!w.reaped || w.open) {
		struct pollfd pfd[2] = { { w.open ? cp->out_fd : -1, POLLIN, 0 }, { zl_signals_fd(), POLLIN, 0 } };
		int r = poll(pfd, 2, POLL_MS);

		if (r < 0 && errno != EINTR) {
			zl_error(err, "poll: %s", strerror(errno));
			child_kill(cp, SIGKILL);
			w.kill_at = 0;
		}
		if (w.open && r > 0 && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
			w.open = copy_output(cp->out_fd, o);
		forward_stops(&w);
		if (!w.reaped && try_reap(&w, err))
			break;
		if (!w.reaped && w.kill_at > 0 && zl_now_monotonic() >= w.kill_at) {
			zl_print_warning("'%s' still running %g s after %s: SIGKILL", cp->args.v[0], o->kill_after_s,
					 strsignal(*stop_sig));
			child_kill(cp, SIGKILL);
			w.kill_at = 0;
		}
		if (w.reaped && w.open && r == 0 && zl_now_monotonic() >= w.drain_until)
			break;
		if (o->tick && !w.reaped)
			o->tick(o->tick_arg);
	}
	if (cp->out_fd >= 0)
		close(cp->out_fd);
	cp->out_fd = -1;
	if (!w.reaped)
		return -1;
	*exit_code = child_exit_code(w.status);
	return 0;
}
