/* The child API's edges: a parent dying before prctl(), and signals while zl_capture waits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "zlbench/child.h"
#include "zlbench/fsutil.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"

/*
 * When armed, the child_start() child stops in its prctl(PR_SET_PDEATHSIG) call, reports
 * its pid on hook_fd and waits (up to 5 s) for its parent to die: the race made certain.
 */
static int hook_fd = -1;

int prctl(int option, ...)
{
	va_list ap;
	unsigned long arg;

	va_start(ap, option);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	if (option == PR_SET_PDEATHSIG && hook_fd >= 0) {
		pid_t me = getpid(), parent = getppid();
		struct timespec tick = { 0, 10 * 1000 * 1000 };
		int i;

		if (write(hook_fd, &me, sizeof(me)) != (ssize_t)sizeof(me))
			_exit(99);
		for (i = 0; i < 500 && getppid() == parent; i++)
			nanosleep(&tick, NULL);
	}
	return (int)syscall(SYS_prctl, option, arg, 0UL, 0UL, 0UL);
}

/* waitpid with a limit: 1 when pid ended within limit_s (status filled), 0 when not. */
static int wait_limited(pid_t pid, int *status, double limit_s)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	double end = zl_now_monotonic() + limit_s;

	while (zl_now_monotonic() < end) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return 1;
		if (r < 0 && errno != EINTR)
			return 0;
		nanosleep(&tick, NULL);
	}
	return 0;
}

static void test_parent_dead_before_pdeathsig(void **state)
{
	int fds[2], status = 0;
	pid_t mid, grandchild = 0;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	/* orphans come back to this process, so the grandchild's end can be waited for */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1UL), 0);
	mid = fork();
	assert_true(mid >= 0);
	if (mid == 0) {
		struct child_process cp = CHILD_PROCESS_INIT;
		struct strbuf err = STRBUF_INIT;

		close(fds[0]);
		hook_fd = fds[1];
		strvec_push(&cp.args, "sleep");
		strvec_push(&cp.args, "30");
		cp.pdeathsig = SIGKILL;
		child_start(&cp, &err);
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &grandchild, sizeof(grandchild)), (ssize_t)sizeof(grandchild));
	close(fds[0]);
	/* the parent dies between fork() and prctl() */
	assert_int_equal(kill(mid, SIGKILL), 0);
	assert_int_equal(waitpid(mid, &status, 0), mid);
	if (!wait_limited(grandchild, &status, 10)) {
		kill(grandchild, SIGKILL);
		waitpid(grandchild, &status, 0);
		fail_msg("the child of a dead parent went on to exec 'sleep 30'");
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 128 + SIGKILL);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0UL), 0);
}

/* The pid a helper wrote to path, waiting up to 10 s for it; 0 when none came. */
static pid_t read_pid(const char *path)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	int i;

	for (i = 0; i < 500; i++) {
		struct strbuf sb = STRBUF_INIT;
		long pid = 0;

		if (strbuf_read_file(&sb, path) > 0 && sb.buf[sb.len - 1] == '\n') {
			strbuf_rtrim(&sb);
			zl_parse_long(sb.buf, &pid);
		}
		strbuf_release(&sb);
		if (pid > 0)
			return (pid_t)pid;
		nanosleep(&tick, NULL);
	}
	return 0;
}

enum capture_mode { PLAIN, SIGINT_IGNORED, SUPERVISED, SUPERVISED_UNTIL };

/* stop_when of zl_capture_until(): the first signal other than SIGCHLD, kept in *ctx */
static int take_stop(void *ctx)
{
	int *got = ctx, sig;

	while ((sig = zl_signals_take()))
		if (sig != SIGCHLD && !*got)
			*got = sig;
	return *got;
}

/*
 * Fork a "zlbench" that captures a helper writing its pid to <dir>/pid and sleeping
 * `sleep_s`, SIGINT it once the helper runs; returns its wait status and the helper's pid.
 * The forked process exits 0 when the capture returned 0 with the helper's "done",
 * 10 + the signal its supervisor pipe holds (SUPERVISED), 20 + the signal that stopped
 * the capture (SUPERVISED_UNTIL, which must return -1), 1 otherwise.
 */
static int interrupt_capture(enum capture_mode mode, const char *sleep_s, pid_t *helper)
{
	char dir[] = "/tmp/zl-test-child-XXXXXX";
	char *pidfile, *script;
	struct strbuf err = STRBUF_INIT;
	int status = 0;
	pid_t zl;

	assert_non_null(mkdtemp(dir));
	pidfile = zl_path_join(dir, "pid");
	script = xstrfmt("echo $$ >'%s'; sleep %s; echo done", pidfile, sleep_s);
	zl = fork();
	assert_true(zl >= 0);
	if (zl == 0) {
		const char *argv[] = { "/bin/sh", "-c", script, NULL };
		struct strbuf out = STRBUF_INIT;
		int code = -1, rc;

		signal(SIGINT, mode == SIGINT_IGNORED ? SIG_IGN : SIG_DFL);
		if ((mode == SUPERVISED || mode == SUPERVISED_UNTIL) && zl_signals_install(&err))
			_exit(2);
		if (mode == SUPERVISED_UNTIL) {
			int got = 0;

			rc = zl_capture_until(NULL, argv, NULL, 60, take_stop, &got, &out, &code, &err);
			_exit(rc == -1 && got ? 20 + got : 1);
		}
		rc = zl_capture(argv, NULL, 60, &out, &code, &err);
		if (mode == SUPERVISED) {
			int sig;

			while ((sig = zl_signals_take()) == SIGCHLD)
				;
			_exit(10 + sig);
		}
		_exit(!rc && !code && strstr(out.buf, "done") ? 0 : 1);
	}
	*helper = read_pid(pidfile);
	assert_true(*helper > 0);
	assert_int_equal(kill(zl, SIGINT), 0);
	if (!wait_limited(zl, &status, 20)) {
		kill(zl, SIGKILL);
		waitpid(zl, &status, 0);
		fail_msg("the capturing process did not end");
	}
	zl_remove_tree(dir, &err);
	strbuf_release(&err);
	free(pidfile);
	free(script);
	return status;
}

static void test_capture_sigint_ends_helper_group(void **state)
{
	pid_t helper = 0;
	int status = interrupt_capture(PLAIN, "30", &helper);

	(void)state;
	/* zlbench dies of SIGINT (130 to a shell), as without a helper ... */
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGINT);
	/* ... but only after its helper was killed and reaped: no orphan, no zombie */
	assert_int_equal(kill(helper, 0), -1);
	assert_int_equal(errno, ESRCH);
}

static void test_capture_sigint_ignored_stays_ignored(void **state)
{
	pid_t helper = 0;
	int status = interrupt_capture(SIGINT_IGNORED, "1", &helper);

	(void)state;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_capture_supervised_leaves_signal_to_supervisor(void **state)
{
	pid_t helper = 0;
	int status = interrupt_capture(SUPERVISED, "1", &helper);

	(void)state;
	/* the helper finished and the supervisor still finds SIGINT on its pipe */
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 10 + SIGINT);
}

static void test_capture_until_stops_on_signal(void **state)
{
	pid_t helper = 0;
	int status = interrupt_capture(SUPERVISED_UNTIL, "30", &helper);

	(void)state;
	/* the caller saw SIGINT and got the capture back at once, not after 30 s ... */
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 20 + SIGINT);
	/* ... with the helper's group killed and reaped */
	assert_int_equal(kill(helper, 0), -1);
	assert_int_equal(errno, ESRCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parent_dead_before_pdeathsig),
		cmocka_unit_test(test_capture_sigint_ends_helper_group),
		cmocka_unit_test(test_capture_sigint_ignored_stays_ignored),
		cmocka_unit_test(test_capture_supervised_leaves_signal_to_supervisor),
		cmocka_unit_test(test_capture_until_stops_on_signal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
