/*
 * Watching a run's child. It starts fresh, in its own process group with its output
 * teed to the terminal and <run>/pytest.log, or in a batch's worker (worker.h), which runs
 * the session and says over its socket when the op ended. Signals zlbench receives go to the
 * child's group, the timeout is enforced (SIGTERM, the grace, SIGKILL), and nothing of the
 * group outlives the watch (a worker that ended the op cleanly stays for the next). Then
 * how it ended becomes the run's status, exit code, signal and reason.
 *
 * Owner: the run owns struct zl_watch; zl_watch_release() closes and frees what it holds.
 */
#ifndef ZLBENCH_WATCH_H
#define ZLBENCH_WATCH_H

#include "child.h"
#include "runctx.h"
#include "strbuf.h"
#include "worker.h"

struct zl_watch {
	struct child_process cp;
	int log_fd;
	int status;           /* raw wait status */
	int reaped;
	int interrupt_sig;    /* SIGINT/SIGTERM/SIGHUP received by zlbench, 0 if none */
	int timed_out;
	double timeout_s;
	/*
	 * A batch's worker runs the session instead of a child: its events say when the op
	 * ended; it is not ours to reap, and it outlives the op unless we had to signal it or
	 * it died. ws points at session when the worker took the op, else NULL.
	 */
	struct zl_worker_session session;
	struct zl_worker_session *ws;
	int signalled;        /* we signalled the worker's group: it ends with this op */
	int lost;             /* the worker ended without its exit event */
	int lost_unknown;     /* ... and its batch recorded no exit status */
};

void zl_watch_init(struct zl_watch *w);
void zl_watch_release(struct zl_watch *w);

/*
 * Start c's child (c->child_argv, c->child_env, in the FlagGems directory): in the batch's
 * worker when $ZL_WORKER_SOCKET names one and it takes the op, else fresh. c->f.start says
 * which and why; c->f.started_epoch is set. 0, or -1 with err when no child could start.
 */
int zl_watch_start(struct zl_watch *w, struct zl_run_ctx *c, struct strbuf *err);
/* Stream, forward and time out until the child ended and its output is read. */
void zl_watch_wait(struct zl_watch *w);
/*
 * How the child ended, into c->f: status, signal, reason (zlbench's markers and pytest's
 * log say why it did not pass; a vendor mismatch is a failed preflight). Returns the exit code.
 */
int zl_watch_outcome(const struct zl_watch *w, struct zl_run_ctx *c);

#endif
