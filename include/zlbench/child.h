/*
 * Child processes (after git's run-command.h): everything is prepared before
 * fork(), the child only calls async-signal-safe functions, a signal death is
 * reported as 128+N. Never a shell: argv goes straight to execve().
 *
 * Owner: the caller owns struct child_process; child_release() frees args/env.
 */
#ifndef ZLBENCH_CHILD_H
#define ZLBENCH_CHILD_H

#include <sys/types.h>
#include "strbuf.h"
#include "strvec.h"

struct child_process {
	struct strvec args;     /* args.v[0] is the program; searched on the child's PATH */
	struct strvec env;      /* "NAME=value" sets, bare "NAME" removes; applied over environ */
	const char *dir;        /* working directory of the child, or NULL */
	int new_pgroup;         /* child leads its own process group (signals go to -pid) */
	int capture_output;     /* stdout+stderr merged into a pipe: read from out_fd */
	int no_stdin;           /* stdin from /dev/null */
	int pdeathsig;          /* signal the child gets when its parent dies (0: none) */
	/* filled by child_start */
	pid_t pid;
	int out_fd;             /* read end when capture_output, else -1 */
};
#define CHILD_PROCESS_INIT { STRVEC_INIT, STRVEC_INIT, NULL, 0, 0, 0, 0, -1, -1 }

void child_init(struct child_process *cp);
void child_release(struct child_process *cp);
/*
 * environ with the NAME=value / bare NAME edits applied (the last edit of a name wins).
 * The strings are borrowed from environ and edits; the caller frees only the array.
 */
const char **child_build_env(const struct strvec *edits);

/* Fork and exec. 0 on success; -1 with err filled (e.g. program not found). */
int child_start(struct child_process *cp, struct strbuf *err);
/*
 * Replace this process with cp's program: env edits, dir and argv as child_start() would
 * give them (new_pgroup, capture_output and the rest do not apply). Returns only when
 * that failed: -1 with err.
 */
int child_exec(struct child_process *cp, struct strbuf *err);
/* Blocking wait; returns the raw wait status in *status. 0 ok, -1 error. */
int child_wait(struct child_process *cp, int *status, struct strbuf *err);
/* Exit code of a raw wait status: the exit status, or 128+N for signal N. */
int child_exit_code(int status);
/* Send sig to the child (its whole group when new_pgroup). */
void child_kill(struct child_process *cp, int sig);

/*
 * Run argv to completion in its own process group, capturing stdout+stderr, killing
 * it after timeout_s (<= 0: no limit). *exit_code gets child_exit_code() or 124 on
 * timeout. Returns 0 when it ran (whatever its exit), -1 when it could not start.
 * SIGINT/SIGTERM/SIGHUP meant to end zlbench (default action, no supervisor from
 * zl_signals_install) end the helper's group first; then zlbench dies of the signal.
 */
int zl_capture(const char *const *argv, const char *const *env, double timeout_s,
	       struct strbuf *out, int *exit_code, struct strbuf *err);

/*
 * zl_capture_in() for a caller under the supervisor (zl_signals_install) that must
 * act on a signal while the helper runs: stop_when(ctx) is called whenever the
 * signal pipe has news (and before each wait); when it returns nonzero, the
 * helper's group is killed and reaped, and -1 is returned with err set.
 * Without the supervisor, or with stop_when NULL, it is zl_capture_in().
 */
int zl_capture_until(const char *dir, const char *const *argv, const char *const *env, double timeout_s,
		     int (*stop_when)(void *ctx), void *ctx, struct strbuf *out, int *exit_code,
		     struct strbuf *err);
/* zl_capture() in working directory dir (NULL: the current one). */
int zl_capture_in(const char *dir, const char *const *argv, const char *const *env, double timeout_s,
		  struct strbuf *out, int *exit_code, struct strbuf *err);

/* Seconds between SIGTERM and SIGKILL when a run is stopped: $ZL_KILL_GRACE, default 10. */
double zl_kill_grace(void);
/* 0 when ZL_KILL_GRACE is unset or a number >= 0; else -1 with err quoting it (a usage error). */
int zl_kill_grace_check(struct strbuf *err);

/*
 * Signal plumbing for supervisors: SIGINT, SIGTERM, SIGHUP and SIGCHLD are
 * turned into bytes on a self-pipe so a poll() loop can see them.
 * zl_signals_install() is idempotent; zl_signals_fd() is the read end;
 * zl_signals_take() returns the next pending signal number or 0.
 * Install unblocks them; SIGHUP ignored at the start (nohup) stays ignored, and a
 * child started by child_start() keeps it ignored; every other signal is default there.
 */
int zl_signals_install(struct strbuf *err);
int zl_signals_fd(void);
int zl_signals_take(void);
/* Restore the dispositions and mask zlbench had before zl_signals_install(). */
void zl_signals_restore(void);

#endif
