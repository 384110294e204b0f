#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "zlbench/child.h"
#include "zlbench/env.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

extern char **environ;

void child_init(struct child_process *cp)
{
	struct child_process blank = CHILD_PROCESS_INIT;
	*cp = blank;
}

void child_release(struct child_process *cp)
{
	strvec_clear(&cp->args);
	strvec_clear(&cp->env);
	if (cp->out_fd >= 0)
		close(cp->out_fd);
	cp->out_fd = -1;
}

const char **child_build_env(const struct strvec *edits)
{
	size_t n = 0, i, j, k = 0;
	const char **out;

	for (n = 0; environ && environ[n]; n++)
		;
	out = xcalloc(n + edits->nr + 1, sizeof(*out));
	for (i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t len = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		int overridden = 0;

		for (j = 0; j < edits->nr; j++) {
			const char *e = edits->v[j];
			const char *eeq = strchr(e, '=');
			size_t elen = eeq ? (size_t)(eeq - e) : strlen(e);
			if (elen == len && !strncmp(e, environ[i], len)) {
				overridden = 1;
				break;
			}
		}
		if (!overridden)
			out[k++] = environ[i];
	}
	for (j = 0; j < edits->nr; j++) {
		const char *e = edits->v[j];
		const char *eeq = strchr(e, '=');
		size_t l;
		int later = 0;

		if (!eeq)
			continue;
		/* the last edit of a name wins */
		l = (size_t)(eeq - e);
		for (i = j + 1; i < edits->nr; i++)
			if (!strncmp(edits->v[i], e, l) && (edits->v[i][l] == '=' || !edits->v[i][l]))
				later = 1;
		if (!later)
			out[k++] = e;
	}
	out[k] = NULL;
	return out;
}

static const char *env_lookup(const char **envp, const char *name)
{
	size_t len = strlen(name);

	for (; *envp; envp++)
		if (!strncmp(*envp, name, len) && (*envp)[len] == '=')
			return *envp + len + 1;
	return NULL;
}

/* Resolve the program on the PATH the child will see, before fork(). */
static char *resolve_program(const char *name, const char **envp)
{
	return zl_find_executable_in(name, env_lookup(envp, "PATH"));
}

/* Report exec failure to the parent through a CLOEXEC pipe: one int errno. */
static void child_fail(int fd, int stage)
{
	int e[2] = { stage, errno };
	ssize_t n = write(fd, e, sizeof(e));
	(void)n;
	_exit(127);
}

/* What child_start() prepares before fork(); owned by it, released by launch_release(). */
struct launch {
	const char **envp;  /* the child's environment (the array is ours, the strings borrowed) */
	char *prog;         /* the program, resolved on the child's PATH */
	int errpipe[2];     /* CLOEXEC: the child writes {stage, errno} when it fails */
	int outpipe[2];     /* the captured output, or -1 */
	int devnull;        /* the child's stdin, or -1 */
	pid_t parent;       /* for the child to see that its parent died before prctl() */
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void launch_release(struct launch *l)
{
	close_fd(&l->errpipe[0]);
	close_fd(&l->errpipe[1]);
	close_fd(&l->outpipe[0]);
	close_fd(&l->outpipe[1]);
	close_fd(&l->devnull);
	free(l->envp);
	free(l->prog);
	l->envp = NULL;
	l->prog = NULL;
}

/* The environment, the program, the pipes and stdin; -1 with err (nothing left open) when one fails. */
static int launch_prepare(const struct child_process *cp, struct launch *l, struct strbuf *err)
{
	int saved;

	*l = (struct launch){ .errpipe = { -1, -1 }, .outpipe = { -1, -1 }, .devnull = -1, .parent = getpid() };
	if (!cp->args.nr)
		return zl_error(err, "no program to run");
	l->envp = child_build_env(&cp->env);
	l->prog = resolve_program(cp->args.v[0], l->envp);
	if (!l->prog) {
		launch_release(l);
		return zl_error(err, "cannot find program '%s' on PATH", cp->args.v[0]);
	}
	if (pipe2(l->errpipe, O_CLOEXEC) || (cp->capture_output && pipe2(l->outpipe, O_CLOEXEC))) {
		saved = errno;
		launch_release(l);
		return zl_error(err, "pipe: %s", strerror(saved));
	}
	/* without it the child would read the caller's stdin: a terminal or a CI job's pipe */
	if (cp->no_stdin && (l->devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		saved = errno;
		launch_release(l);
		return zl_error(err, "cannot open '/dev/null': %s", strerror(saved));
	}
	return 0;
}

/* In the forked child: async-signal-safe calls only; execs cp's program or exits 127 through child_fail(). */
static void exec_child(const struct child_process *cp, const struct launch *l)
{
	sigset_t none;
	int sig;

	if (cp->new_pgroup && setpgid(0, 0))
		child_fail(l->errpipe[1], 1);
	if (cp->pdeathsig && prctl(PR_SET_PDEATHSIG, cp->pdeathsig))
		child_fail(l->errpipe[1], 2);
	/* a parent that died before prctl() sends no signal: the child must not run on alone */
	if (cp->pdeathsig && getppid() != l->parent)
		_exit(ZL_EXIT_SIGNAL_BASE + cp->pdeathsig);
	/*
	 * A parent started with SIGINT ignored must still give the child ordinary signals;
	 * only an ignored SIGHUP stays ignored: nohup's promise reaches the child too.
	 */
	for (sig = 1; sig < NSIG; sig++) {
		struct sigaction cur;

		if (sig == SIGHUP && !sigaction(sig, NULL, &cur) && cur.sa_handler == SIG_IGN)
			continue;
		signal(sig, SIG_DFL);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (l->devnull >= 0 && dup2(l->devnull, 0) < 0)
		child_fail(l->errpipe[1], 3);
	if (l->outpipe[1] >= 0 && (dup2(l->outpipe[1], 1) < 0 || dup2(l->outpipe[1], 2) < 0))
		child_fail(l->errpipe[1], 3);
	if (cp->dir && chdir(cp->dir))
		child_fail(l->errpipe[1], 4);
	execve(l->prog, (char *const *)cp->args.v, (char *const *)l->envp);
	child_fail(l->errpipe[1], 5);
}

/* In the parent after fork(): did the child reach execve()? 0 with cp's pid and out_fd, else -1 with err (reaped). */
static int launch_finish(struct child_process *cp, struct launch *l, pid_t pid, struct strbuf *err)
{
	static const char *stage[] = { "", "setpgid", "prctl", "dup2", "chdir", "execve" };
	int report[2], status;
	ssize_t n;

	close_fd(&l->errpipe[1]);
	close_fd(&l->devnull);
	close_fd(&l->outpipe[1]);
	do
		n = read(l->errpipe[0], report, sizeof(report));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(report)) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		zl_error(err, "cannot start '%s': %s failed: %s%s%s", l->prog,
			 stage[report[0] >= 1 && report[0] <= 5 ? report[0] : 0],
			 strerror(report[1]), report[0] == 4 ? " in " : "",
			 report[0] == 4 && cp->dir ? cp->dir : "");
		launch_release(l);
		return -1;
	}
	cp->pid = pid;
	cp->out_fd = l->outpipe[0];
	l->outpipe[0] = -1;
	launch_release(l);
	return 0;
}

int child_start(struct child_process *cp, struct strbuf *err)
{
	struct launch l;
	pid_t pid;
	int saved;

	if (launch_prepare(cp, &l, err))
		return -1;
	pid = fork();
	if (pid < 0) {
		saved = errno;
		launch_release(&l);
		return zl_error(err, "fork: %s", strerror(saved));
	}
	if (pid == 0)
		exec_child(cp, &l);
	if (cp->new_pgroup)
		setpgid(pid, pid); /* also in the parent: no race with an early kill(-pid) */
	return launch_finish(cp, &l, pid, err);
}

int child_exec(struct child_process *cp, struct strbuf *err)
{
	const char **envp;
	char *prog;
	int saved;

	if (!cp->args.nr)
		return zl_error(err, "no program to run");
	envp = child_build_env(&cp->env);
	prog = resolve_program(cp->args.v[0], envp);
	if (!prog) {
		free(envp);
		return zl_error(err, "cannot find program '%s' on PATH", cp->args.v[0]);
	}
	if (cp->dir && chdir(cp->dir)) {
		saved = errno;
		free(envp);
		free(prog);
		return zl_error(err, "cannot change to '%s': %s", cp->dir, strerror(saved));
	}
	fflush(stdout);
	fflush(stderr);
	execve(prog, (char *const *)cp->args.v, (char *const *)envp);
	saved = errno;
	zl_error(err, "cannot run '%s': %s", prog, strerror(saved));
	free(envp);
	free(prog);
	return -1;
}

int child_wait(struct child_process *cp, int *status, struct strbuf *err)
{
	for (;;) {
		pid_t r = waitpid(cp->pid, status, 0);
		if (r == cp->pid)
			return 0;
		if (r < 0 && errno == EINTR)
			continue;
		return zl_error(err, "waitpid(%ld): %s", (long)cp->pid, strerror(errno));
	}
}

int child_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return ZL_EXIT_SIGNAL_BASE + WTERMSIG(status);
	return ZL_EXIT_FAILED;
}

void child_kill(struct child_process *cp, int sig)
{
	if (cp->pid <= 0)
		return;
	if (cp->new_pgroup)
		kill(-cp->pid, sig);
	else
		kill(cp->pid, sig);
}

int zl_capture(const char *const *argv, const char *const *env, double timeout_s,
	       struct strbuf *out, int *exit_code, struct strbuf *err)
{
	return zl_capture_in(NULL, argv, env, timeout_s, out, exit_code, err);
}

static int sig_pipe[2] = { -1, -1 };

/*
 * A helper (query tool, probe, git) leads its own process group, out of reach of the
 * terminal's Ctrl-C, so zlbench dying of a signal while it waits would orphan it.
 * Outside a supervisor, SIGINT/SIGTERM/SIGHUP with their default action are caught
 * while the helper runs: its group is killed and reaped, then zlbench dies of the
 * signal as it would have (128+N to its parent), after git's sigchain. Under a
 * supervisor (zl_signals_install) the signal waits on the self-pipe for it to act,
 * and the helper, bounded by its timeout, finishes first: zlbench does not die.
 */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
static volatile sig_atomic_t capture_stop;

static void on_capture_stop(int sig)
{
	capture_stop = sig;
}

struct capture_guard {
	int active;                                  /* outside a supervisor: stop signals caught */
	int installed[ZL_ARRAY_SIZE(stop_signals)];  /* our handler replaced SIG_DFL */
	struct sigaction old[ZL_ARRAY_SIZE(stop_signals)];
	sigset_t old_mask;                           /* restored afterwards; also ppoll's mask */
};

static int guard_begin(struct capture_guard *g, struct strbuf *err)
{
	struct sigaction sa;
	sigset_t block;
	size_t i;

	memset(g, 0, sizeof(*g));
	capture_stop = 0;
	if (sig_pipe[0] >= 0)
		return 0;
	/* blocked until ppoll(): a signal before the helper is waited for is not lost */
	sigemptyset(&block);
	for (i = 0; i < ZL_ARRAY_SIZE(stop_signals); i++)
		sigaddset(&block, stop_signals[i]);
	if (sigprocmask(SIG_BLOCK, &block, &g->old_mask))
		return zl_error(err, "sigprocmask: %s", strerror(errno));
	g->active = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_capture_stop;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ZL_ARRAY_SIZE(stop_signals); i++) {
		/* an ignored signal stays ignored (a script's background job), a handler stays */
		if (sigaction(stop_signals[i], NULL, &g->old[i]) || g->old[i].sa_handler != SIG_DFL)
			continue;
		g->installed[i] = !sigaction(stop_signals[i], &sa, NULL);
	}
	return 0;
}

/* Dispositions first, then the mask: a signal still pending meets its default action. */
static void guard_end(struct capture_guard *g)
{
	size_t i;

	if (!g->active)
		return;
	for (i = 0; i < ZL_ARRAY_SIZE(stop_signals); i++)
		if (g->installed[i] && sigaction(stop_signals[i], &g->old[i], NULL))
			zl_print_warning("cannot restore the action of signal %d: %s", stop_signals[i], strerror(errno));
	if (sigprocmask(SIG_SETMASK, &g->old_mask, NULL))
		zl_print_warning("cannot restore the signal mask: %s", strerror(errno));
	g->active = 0;
}

int zl_capture_in(const char *dir, const char *const *argv, const char *const *env, double timeout_s,
		  struct strbuf *out, int *exit_code, struct strbuf *err)
{
	return zl_capture_until(dir, argv, env, timeout_s, NULL, NULL, out, exit_code, err);
}

/* One helper run by zl_capture_until(): the child, the stop signals' guard, and why reading ended. */
struct capture {
	struct child_process cp;
	struct capture_guard g;
	double deadline;              /* on the monotonic clock; 0: no limit */
	int (*stop_when)(void *ctx);
	void *ctx;
	int watch;                    /* the supervisor's signal pipe is watched, for stop_when() */
	int timed_out;                /* the deadline passed */
	int stop;                     /* a stop signal came outside a supervisor: its number */
	int asked;                    /* stop_when() asked to stop */
};

/* Start argv in its own process group, output captured, stop signals guarded; -1 with err (all released). */
static int capture_start(struct capture *c, const char *dir, const char *const *argv, const char *const *env,
			 struct strbuf *err)
{
	strvec_pushv(&c->cp.args, (const char **)argv);
	if (env)
		strvec_pushv(&c->cp.env, (const char **)env);
	c->cp.dir = dir;
	c->cp.capture_output = 1;
	c->cp.no_stdin = 1;
	c->cp.new_pgroup = 1;
	/* a helper (pytest probe, vendor tool) never outlives a zlbench killed outright */
	c->cp.pdeathsig = SIGKILL;
	if (guard_begin(&c->g, err)) {
		child_release(&c->cp);
		return -1;
	}
	if (child_start(&c->cp, err)) {
		guard_end(&c->g);
		child_release(&c->cp);
		return -1;
	}
	return 0;
}

/* Read the helper's output into out until it ends it, the deadline passes, a stop signal comes or stop_when() says so. */
static void capture_read(struct capture *c, struct strbuf *out)
{
	for (;;) {
		struct pollfd pfd[2] = { { c->cp.out_fd, POLLIN, 0 }, { sig_pipe[0], POLLIN, 0 } };
		struct timespec ts, *tsp = NULL;
		char buf[4096];
		ssize_t n;
		int r;

		if (c->watch && (c->asked = c->stop_when(c->ctx)))
			break;

		if (c->deadline) {
			double left = c->deadline - zl_now_monotonic();
			if (left <= 0) {
				c->timed_out = 1;
				break;
			}
			ts.tv_sec = (time_t)left;
			ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
			tsp = &ts;
		}
		r = ppoll(pfd, c->watch ? 2 : 1, tsp, c->g.active ? &c->g.old_mask : NULL);
		if (r < 0 && errno == EINTR) {
			if ((c->stop = capture_stop))
				break;
			continue;
		}
		if (r < 0)
			break;
		if (r == 0 || !(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue; /* a timeout, or only the signal pipe: stop_when() reads it */
		n = read(c->cp.out_fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		strbuf_add(out, buf, (size_t)n);
	}
}

int zl_capture_until(const char *dir, const char *const *argv, const char *const *env, double timeout_s,
		     int (*stop_when)(void *ctx), void *ctx, struct strbuf *out, int *exit_code,
		     struct strbuf *err)
{
	struct capture c = {
		.cp = CHILD_PROCESS_INIT,
		.deadline = timeout_s > 0 ? zl_now_monotonic() + timeout_s : 0,
		.stop_when = stop_when,
		.ctx = ctx,
		/* the supervisor's signal pipe, watched only for a caller that can act on it */
		.watch = stop_when && sig_pipe[0] >= 0,
	};
	int status = 0;

	if (capture_start(&c, dir, argv, env, err))
		return -1;
	capture_read(&c, out);
	if (c.timed_out || c.stop || c.asked)
		child_kill(&c.cp, SIGKILL);
	if (child_wait(&c.cp, &status, err)) {
		guard_end(&c.g);
		child_release(&c.cp);
		return -1;
	}
	/* the group may hold stragglers that kept the pipe open: end them too */
	kill(-c.cp.pid, SIGKILL);
	child_release(&c.cp);
	guard_end(&c.g);
	if (c.stop) {
		/* nothing of ours is left: now the signal's default action */
		raise(c.stop);
		return zl_error(err, "'%s' stopped by %s", argv[0], strsignal(c.stop));
	}
	if (c.asked)
		return zl_error(err, "'%s' stopped: interrupted", argv[0]);
	*exit_code = c.timed_out ? ZL_EXIT_TIMEOUT : child_exit_code(status);
	return 0;
}

static const int supervised_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD };
/* What zl_signals_install() replaced, for zl_signals_restore() */
static struct sigaction saved_actions[ZL_ARRAY_SIZE(supervised_signals)];
static int saved_installed[ZL_ARRAY_SIZE(supervised_signals)];
static sigset_t saved_mask;

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;
	ssize_t n = write(sig_pipe[1], &b, 1);
	(void)n;
	errno = saved;
}

/*
 * SIGHUP ignored at the start (nohup) stays ignored; SIGINT ignored at the start (a
 * script's background job) is still acted on, as the run must stay stoppable. Signals
 * blocked in the inherited mask are unblocked: blocked, they would never reach the pipe.
 */
int zl_signals_install(struct strbuf *err)
{
	struct sigaction sa;
	sigset_t unblock;
	size_t i;

	if (sig_pipe[0] >= 0)
		return 0;
	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK))
		return zl_error(err, "pipe: %s", strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigemptyset(&unblock);
	for (i = 0; i < ZL_ARRAY_SIZE(supervised_signals); i++) {
		int sig = supervised_signals[i];

		saved_installed[i] = 0;
		if (sigaction(sig, NULL, &saved_actions[i]))
			return zl_error(err, "sigaction: %s", strerror(errno));
		if (sig == SIGHUP && saved_actions[i].sa_handler == SIG_IGN)
			continue;
		if (sigaction(sig, &sa, NULL))
			return zl_error(err, "sigaction: %s", strerror(errno));
		saved_installed[i] = 1;
		sigaddset(&unblock, sig);
	}
	if (sigprocmask(SIG_UNBLOCK, &unblock, &saved_mask))
		return zl_error(err, "sigprocmask: %s", strerror(errno));
	return 0;
}

int zl_signals_fd(void)
{
	return sig_pipe[0];
}

int zl_signals_take(void)
{
	unsigned char b;

	if (sig_pipe[0] < 0)
		return 0;
	if (read(sig_pipe[0], &b, 1) == 1)
		return b;
	return 0;
}

void zl_signals_restore(void)
{
	size_t i;

	if (sig_pipe[0] < 0)
		return;
	/* the actions zlbench started with (an ignored signal stays ignored), then its mask */
	for (i = 0; i < ZL_ARRAY_SIZE(supervised_signals); i++)
		if (saved_installed[i] && sigaction(supervised_signals[i], &saved_actions[i], NULL))
			zl_print_warning("cannot restore the action of signal %d: %s", supervised_signals[i],
					 strerror(errno));
	if (sigprocmask(SIG_SETMASK, &saved_mask, NULL))
		zl_print_warning("cannot restore the signal mask: %s", strerror(errno));
	close(sig_pipe[0]);
	close(sig_pipe[1]);
	sig_pipe[0] = sig_pipe[1] = -1;
}

int zl_kill_grace_check(struct strbuf *err)
{
	const char *g = zl_env(ZL_ENV_KILL_GRACE);
	double d;

	/* empty is unset, as zl_kill_grace() reads it */
	if (!g || (!zl_parse_double(g, &d) && d >= 0))
		return 0;
	return zl_error(err, "invalid value '%s' for ZL_KILL_GRACE: give the seconds between SIGTERM and SIGKILL (a number >= 0)", g);
}

double zl_kill_grace(void)
{
	const char *g = zl_env(ZL_ENV_KILL_GRACE);
	double d;

	if (g && !zl_parse_double(g, &d) && d >= 0)
		return d;
	return 10.0;
}
