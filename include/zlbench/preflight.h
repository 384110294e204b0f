/*
 * Preflight: named checks, fast ones first, run before anything slow starts.
 * The first failure of a run prints "PREFLIGHT_FAILED check=<name>" on its own
 * line on stderr, then one human line with the value and the hint, and exits 3.
 *
 * struct zl_preflight is what the checks found: the facts a run context (runctx.h)
 * borrows. The run reads it and never changes it.
 *
 * Owner: the caller owns struct zl_preflight; zl_preflight_release() frees what
 * the checks filled in (nodes, devices, shapes facts). It borrows the settings.
 */
#ifndef ZLBENCH_PREFLIGHT_H
#define ZLBENCH_PREFLIGHT_H

#include <stdio.h>
#include "backend.h"
#include "resolve.h"
#include "settings.h"

struct zl_preflight {
	struct zl_settings *s;        /* borrowed */
	/* filled by the checks */
	struct zl_nodes nodes;
	struct zl_devlist devs;
	int devs_done;
	char *shape_source;           /* the file FlagGems reads (file mode: the shape file; upstream: benchmark/core_shapes.yaml) */
	char shape_sha256[65];
	long shapes_for_op;           /* -1: op missing from the file or unknown */
	char *python_path;            /* resolved interpreter */
	char *python_version;
	char *pytest_version;
	char *out_dir;                /* the run directory asked for (absolute); the run claims it or a suffixed name (runctx.h) */
	struct strvec warnings;       /* non-fatal findings, printed by the caller */
	int skip_python;              /* --dry-run: no interpreter is started */
	int resolved;                 /* node resolution ran (once, shared by two checks) */
	enum zl_resolve_fail resolve_fail; /* why node resolution failed (usage vs preflight) */
	struct strbuf resolve_msg;    /* and its message */
};

struct zl_check {
	const char *name;
	int (*fn)(struct zl_preflight *pf, struct strbuf *msg);
	const char *hint;
};
extern const struct zl_check zl_checks[];

void zl_preflight_init(struct zl_preflight *pf, struct zl_settings *s);
void zl_preflight_release(struct zl_preflight *pf);

/*
 * Run the checks in order. all == 0: stop at the first failure (run);
 * all == 1: run every check (the preflight command) and print "ok"/"FAILED" lines to report.
 * Returns 0 when all passed; -1 when one failed, with *failed set to its row and msg
 * holding "<problem>; hint: <fix>".
 */
int zl_preflight_run(struct zl_preflight *pf, int all, FILE *report,
		     const struct zl_check **failed, struct strbuf *msg);

/*
 * Run every check and print them as JSON ({checks:[{name,status,message,hint}], warnings:[...]});
 * returns the exit code. *first and msg: the first failure as zl_preflight_run() gives it (or NULL).
 */
int zl_preflight_json(struct zl_preflight *pf, FILE *out, const struct zl_check **first, struct strbuf *msg);

/* Print the PREFLIGHT_FAILED block on stderr (the contract batch scripts grep for). */
void zl_preflight_report_failure(const char *check, const char *msg);

/*
 * A new batch's operators, resolved before any of them runs, as each run resolves its --op
 * (one scan of the checkout for them all). Each operator no benchmark carries is refused on
 * a line of its own, after one PREFLIGHT_FAILED check=op_resolution, with the suggestions a
 * run gives. plan (a dry run's output), when not NULL, gets a line saying how they resolved.
 * 0, or -1 after the lines. A checkout without benchmark/ is left to each run's preflight.
 */
int zl_preflight_batch_ops(const char *flaggems_dir, const struct strvec *ops, FILE *plan);

/* The default run directory name: <runs_dir>/<UTC yyyymmdd-HHMMSS>-<backend>-<op>. Caller frees. */
char *zl_default_run_dir(const struct zl_settings *s, const struct zl_nodes *nodes);

#endif
