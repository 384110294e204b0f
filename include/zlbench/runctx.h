/*
 * The run context: what one run is, knows and learns, in one struct.
 *
 *   resolved   the settings (settings.h) and what the preflight checks found (preflight.h:
 *              nodes, devices, interpreter, shape facts, the run directory asked for);
 *   planned    the plugins and timer (plan.h), the plugins directory;
 *   claimed    the run directory this run made its own (it may differ from the one asked
 *              for: a default name taken already gets "-2", ...);
 *   the child  its argv and the edits of its environment (zl_run_build_child);
 *   learned    the facts collected around the child and its outcome (facts.h).
 *
 * cmd_run resolves the settings and runs the checks; zl_run_execute() makes a context over
 * them and every step of the run reads and fills it; run_identity.json is written from it
 * (identity_fields.h says where each field lives here). The preflight facts are never changed
 * by the run. doctor and a batch's worker make one to start an interpreter exactly as a run.
 *
 * Owner: the context borrows the settings, the preflight facts and self_argv, which outlive
 * it; it owns the rest. zl_run_ctx_release() frees it and removes the isolated caches.
 */
#ifndef ZLBENCH_RUNCTX_H
#define ZLBENCH_RUNCTX_H

#include "facts.h"
#include "plan.h"
#include "preflight.h"
#include "settings.h"
#include "strvec.h"

struct zl_run_ctx {
	/* resolved (borrowed) */
	const struct zl_settings *s;
	const struct zl_preflight *pf;
	const char *const *self_argv;   /* zlbench's own argv, recorded in the identity */
	/* planned */
	struct zl_plan plan;
	char *plugins_dir;
	/* claimed: the run directory (absolute); NULL until the run claims it */
	char *run_dir;
	/* the child */
	struct strvec child_argv;
	struct strvec child_env;        /* NAME=value sets, a bare NAME removes (child.h) */
	/* learned */
	struct zl_run_facts f;
};

/* A context over s and pf, with the plan and the plugins directory made. */
void zl_run_ctx_init(struct zl_run_ctx *c, const struct zl_settings *s, const struct zl_preflight *pf);
void zl_run_ctx_release(struct zl_run_ctx *c);

/* The run directory: the claimed one, else the one asked for (a dry run's), else NULL. */
const char *zl_run_ctx_dir(const struct zl_run_ctx *c);

#endif
