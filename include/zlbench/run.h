/*
 * One supervised FlagGems pytest run: the run directory, the child, the
 * identity. cmd_run.c parses options and calls zl_run_execute(); batch drives
 * `zlbench run` as a child process instead, so one op's crash stays its own.
 */
#ifndef ZLBENCH_RUN_H
#define ZLBENCH_RUN_H

#include <cjson/cJSON.h>
#include "preflight.h"
#include "runctx.h"
#include "settings.h"

/* Run statuses written to run_identity.json and ops_status.csv. */
#define ZL_STATUS_RUNNING "running"
#define ZL_STATUS_PASSED "passed"
/* pytest passed and every test it ran was skipped (plugins/skips.json): exit 0, the reasons kept */
#define ZL_STATUS_SKIPPED "skipped"
#define ZL_STATUS_FAILED "failed"
#define ZL_STATUS_PREFLIGHT_FAILED "preflight_failed"
#define ZL_STATUS_TIMEOUT "timeout"
#define ZL_STATUS_INTERRUPTED "interrupted"
#define ZL_STATUS_CRASHED "crashed"

/*
 * Refuse pytest arguments after "--" that would override what zlbench sets for the run:
 * --level, --mode, --record, --output, --shape_file (also as --x=v), -m when zlbench passes
 * -m OP, and -p no:zl_* (its plugins). The same words in PYTEST_ADDOPTS (split as pytest
 * does, with shlex), and a lone "--" there, are refused too. 0, or -1 with err naming the
 * argument and the zlbench setting to use instead (a usage error).
 */
int zl_run_check_passthrough(const struct zl_settings *s, struct strbuf *err);

/*
 * The child's argv and environment edits for the run in c (also what --dry-run prints,
 * what doctor's probes and a batch's worker start with): pushed onto argv and env.
 * The isolated caches, when c->f has them, replace the shared ones.
 */
void zl_run_build_child(const struct zl_run_ctx *c, struct strvec *argv, struct strvec *env);

/*
 * Execute a resolved and preflighted run (pf filled by zl_preflight_run, never changed
 * here): claim its directory, start and supervise the child, record it. Returns an exit
 * code (enum zl_exit).
 */
int zl_run_execute(struct zl_settings *s, const struct zl_preflight *pf, const char *push_url,
		   const char *const *self_argv);

#endif
