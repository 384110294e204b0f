/*
 * Per-device workers (docs/worker.md): one Python interpreter per device that imports
 * FlagGems once and runs a batch's operators one after another, each as an in-process
 * pytest session (plugins/zl_worker.py). Every op is still its own `zlbench run` child
 * of the batch, with its run directory, identity, timeout and exit status; only where
 * its pytest session runs changes.
 *
 *  - serve: `zlbench run` with ZL_WORKER_SERVE=<socket> becomes the worker: it builds the
 *    environment a run gives pytest and execs `python -m zl_worker` in the FlagGems root.
 *  - submit: `zlbench run` with ZL_WORKER_SOCKET=<socket> hands its pytest session to
 *    the worker instead of starting a child: argv, environment, cwd and the write end of
 *    its output pipe; then it reads the worker's events (start, exit).
 *  - slots: the batch starts one worker per device, waits for its "ready" line, records
 *    its exit status where the runs can read it (<socket dir>/<pid>.status: a run cannot
 *    wait for a process that is not its child), and stops it at the end.
 *
 * Owner: the caller owns each struct; the _release functions free what is inside.
 */
#ifndef ZLBENCH_WORKER_H
#define ZLBENCH_WORKER_H

#include <sys/types.h>
#include <cjson/cJSON.h>

#include "backend.h"
#include "strbuf.h"
#include "strvec.h"

/* Internal variables between batch, run and worker (never a user's setting). */
#define ZL_WORKER_SERVE_VAR "ZL_WORKER_SERVE"
#define ZL_WORKER_SOCKET_VAR "ZL_WORKER_SOCKET"
#define ZL_WORKER_READY_FD_VAR "ZL_WORKER_READY_FD"
#define ZL_WORKER_PARENT_VAR "ZL_WORKER_PARENT"

/* How an op's interpreter starts: `zlbench batch --start MODE` / ZL_START. */
enum zl_start_mode { ZL_START_FRESH, ZL_START_WORKER, ZL_START_FORK };

struct zl_start_mode_def {
	const char *name;
	enum zl_start_mode mode;
	unsigned requires;    /* enum zl_capability bits the backend must have */
	const char *help;
};
/* Terminated by a row with name == NULL. */
extern const struct zl_start_mode_def zl_start_modes[];

/*
 * A --start / ZL_START value (from: where it came from, for the message) for backend b
 * (NULL: any): 0 and *out set, or -1 with err naming the value (unknown, or a mode the
 * backend does not offer and why).
 */
int zl_start_mode_parse(const char *name, const char *from, const struct zl_backend *b,
			enum zl_start_mode *out, struct strbuf *err);
const char *zl_start_mode_name(enum zl_start_mode mode);

/* ---- serve ---------------------------------------------------------------------- */

struct zl_settings;
struct zl_preflight;

/*
 * Become the worker of socket_path: the preflight checks a worker needs (no operator:
 * it has none yet), then exec `python -m zl_worker` with the environment a run of s
 * gives pytest, in the FlagGems root. Returns only when that could not happen: an exit
 * code (enum zl_exit), the reason printed.
 */
int zl_worker_serve(struct zl_settings *s, struct zl_preflight *pf, const char *socket_path);

/* ---- submit --------------------------------------------------------------------- */

struct zl_worker_session {
	char *socket_path;
	int ctl_fd;           /* the connection: the worker's events arrive here */
	int out_fd;           /* read end of the op's output pipe (stdout and stderr) */
	pid_t pid;            /* the worker; it leads its process group */
	long ops_before;      /* ops the worker ran before this one */
	cJSON *reset_before;  /* globals the worker reset after the op before (array) */
	struct strbuf buf;    /* event text not yet parsed */
	int exited;           /* the exit event came */
	int status;           /* pytest's exit status, from the exit event */
	char *retire;         /* why the worker ends after this op (exit event), or NULL */
	cJSON *reset_after;   /* globals reset after this op (exit event; array) */
	struct strvec notes;  /* the worker's notes on this op */
};
#define ZL_WORKER_SESSION_INIT { NULL, -1, -1, 0, 0, NULL, STRBUF_INIT, 0, 0, NULL, NULL, STRVEC_INIT }
void zl_worker_session_release(struct zl_worker_session *ws);

/*
 * Hand a run's pytest session (argv = [python, "-m", "pytest", ...], env_edits applied over
 * this process's environment, cwd) to the worker at socket_path and read its start event.
 * 0: the worker runs it (ws filled; read out_fd and ctl_fd); -1 with err: it does not
 * (unreachable, refused, busy past wait_s): the caller starts a fresh child instead.
 */
int zl_worker_submit(const char *socket_path, const struct strvec *argv, const struct strvec *env_edits,
		     const char *cwd, double wait_s, struct zl_worker_session *ws, struct strbuf *err);

/*
 * Read what ctl_fd has now (call when poll() says so). 1 when the exit event has come,
 * -1 when the connection ended without it (the worker died), 0 when more is to come.
 */
int zl_worker_session_read(struct zl_worker_session *ws);

/*
 * The raw wait status of worker pid as its batch recorded it next to socket_path,
 * waiting up to wait_s for the record. 0 and *raw set, or -1 when there is none.
 */
int zl_worker_exit_status(const char *socket_path, pid_t pid, double wait_s, int *raw);

/* Record worker pid's raw wait status in dir for the runs (zl_worker_exit_status). */
int zl_worker_record_exit(const char *dir, pid_t pid, int raw, struct strbuf *err);

/*
 * run_identity.json's "start" object: {"mode", "ops_before", "worker_pid"} (CONTRACTS.md
 * section 3) plus "reset" (what the worker reset before this op), "retired_after" (why it
 * ended after this op) and "fallback_reason" (why a run asked to use a worker started
 * fresh). ws NULL: a fresh child. NULL when out of memory.
 */
cJSON *zl_worker_start_json(const struct zl_worker_session *ws, const char *fallback_reason);

#endif
