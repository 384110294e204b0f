/*
 * One zlbench child under a supervisor (`zlbench ab` runs `zlbench run` children,
 * `zlbench calibrate` runs `zlbench batch` children): the child leads its own process
 * group, its output goes to a log file, and a stop signal that reaches zlbench
 * (SIGINT, SIGTERM, SIGHUP through zl_signals_install's self-pipe) is forwarded to
 * the child's group, which ends its own work truthfully (a run records "interrupted",
 * a batch its interrupted ops) and exits; the supervisor waits for it, so nothing is
 * orphaned. A child still there kill_after_s after the first forwarded signal gets
 * SIGKILL (its group).
 *
 * Owner: the caller owns the child_process; nothing here allocates for it.
 */
#ifndef ZLBENCH_SUPERVISE_H
#define ZLBENCH_SUPERVISE_H

#include "child.h"
#include "strbuf.h"

struct zl_supervise_opts {
	int log_fd;            /* the child's stdout and stderr are appended here */
	int echo_fd;           /* and copied here too when >= 0 (e.g. 2 with --verbose) */
	double kill_after_s;   /* SIGKILL this long after the first forwarded stop signal */
	/* called every POLL_MS or so while the child runs (a progress line), or NULL */
	void (*tick)(void *arg);
	void *tick_arg;
};

/*
 * Start cp (made to lead a new process group with its output captured; pdeathsig
 * SIGTERM unless set) and wait for its end. zl_signals_install() must have been
 * called. *exit_code gets child_exit_code() of its status; *stop_sig the first stop
 * signal forwarded to it (0: none). 0 when the child ran, -1 with err when it could
 * not start (or could not be waited for).
 */
int zl_supervise(struct child_process *cp, const struct zl_supervise_opts *o, int *exit_code, int *stop_sig,
		 struct strbuf *err);

/*
 * A stop signal that reached zlbench while no child ran (between children): the
 * first pending SIGINT, SIGTERM or SIGHUP on the self-pipe, 0 when none. Other
 * signals on the pipe (SIGCHLD) are dropped.
 */
int zl_supervise_pending_stop(void);

#endif
