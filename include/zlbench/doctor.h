/*
 * zlbench doctor: the ordered checklist for an operator that will not run.
 *
 * Steps, in order (zl_doctor_steps[]): paths, vendor, collect, skips,
 * foreign_vendor, tuner_cache, shapes. zl_doctor_run() walks them and stops at
 * the first one that fails. A step may also warn: the operator runs, but not the
 * way the user may think (a shared tuner cache with winners, an op missing from
 * the shape file); a warning does not stop the walk unless strict is set.
 *
 * Each step leaves a struct zl_doctor_result: a status, one line (what is wrong,
 * or what was checked), evidence lines (what was found: files, modules, tables,
 * skip reasons, shape counts) and the fix. zl_doctor_steps[i].seen is the real
 * failure the step exists for.
 *
 * Steps that start Python (vendor, collect) run the interpreter a run would
 * use, with the environment a run would get (zl_run_build_child: plugins dir
 * and <flaggems>/src first on PYTHONPATH, devices pinned), in the FlagGems
 * directory, with plugins/zl_doctor.py; each is bounded by timeout_s. collect
 * also runs the tests with FlagGems' Benchmark.run replaced (the probe): what
 * failed or skipped before a benchmark started, and the shapes each benchmark
 * would run, for the skips and shapes steps. Their files go to a private
 * temporary directory that zl_doctor_release() removes.
 *
 * Step 1 (paths) runs with the default signal actions: its helpers (the
 * vendor's query tool) end with zlbench at once on Ctrl-C (child.h), and
 * nothing needs cleaning up yet. From then on zl_doctor_run() takes SIGINT,
 * SIGTERM and SIGHUP (child.h's self-pipe) until zl_doctor_release(): a signal
 * ends the running Python step's whole process group at once and stops the
 * walk, so that release still removes the temporary directory; d->interrupted
 * then names the signal.
 *
 * Owner: the caller owns struct zl_doctor and the settings it borrows;
 * zl_doctor_release() frees everything else in it.
 */
#ifndef ZLBENCH_DOCTOR_H
#define ZLBENCH_DOCTOR_H

#include "preflight.h"
#include "settings.h"
#include "strbuf.h"
#include "strvec.h"

struct cJSON;

enum zl_doctor_status {
	ZL_DOCTOR_NOT_RUN = 0,  /* an earlier step failed */
	ZL_DOCTOR_OK,
	ZL_DOCTOR_WARN,
	ZL_DOCTOR_FAILED
};
/* "not_run", "ok", "warn", "failed" */
const char *zl_doctor_status_name(enum zl_doctor_status st);

/* What one step found. Every string is owned by the result. */
struct zl_doctor_result {
	enum zl_doctor_status status;
	char *summary;            /* one line: what is wrong, or what was checked */
	struct strvec evidence;   /* what was found, one line each */
	char *fix;                /* what to do; NULL when there is nothing to fix */
};

struct zl_doctor;
struct zl_doctor_step {
	const char *name;         /* "paths", "vendor", ... (JSON and DOCTOR_FAILED step=) */
	const char *title;        /* what the step checks */
	void (*fn)(struct zl_doctor *d, struct zl_doctor_result *r);
	const char *seen;         /* the real failure behind the step */
};
#define ZL_DOCTOR_STEPS 7
extern const struct zl_doctor_step zl_doctor_steps[ZL_DOCTOR_STEPS + 1]; /* ends with name == NULL */

struct zl_doctor {
	struct zl_settings *s;          /* borrowed; resolved */
	struct strvec want_shapes;      /* shapes the user expects (--shape), as given */
	double timeout_s;               /* bound of each Python step */
	int strict;                     /* a warning becomes a failure (and stops the walk) */
	struct zl_doctor_result results[ZL_DOCTOR_STEPS];
	int failed;                     /* index of the step that failed, or -1 */
	int interrupted;                /* the signal that stopped the walk, or 0 */
	int signals_taken;              /* zl_doctor_run installed the signal handlers */
	struct strvec commands;         /* every command started, as a line a shell can rerun */

	/* Shared between the steps; filled as they go. */
	struct zl_preflight pf;
	const struct zl_check *path_check, *vendor_check, *op_check; /* first failure of each kind */
	struct strbuf path_msg, vendor_msg, op_msg;
	char *tmpdir;                   /* ZL_RUN_DIR of the Python steps */
	char *plugins_dir;
	struct cJSON *collected;        /* plugins/doctor.json of the collection */
	struct cJSON *foreign;          /* plugins/foreign_vendor.json of the collection */
	struct cJSON *probe;            /* plugins/doctor_probe.json of the probe, or NULL */
	int probe_ran;                  /* the probe was started; probe_code and probe_out hold its end */
	int probe_code;
	struct strbuf probe_out;
};

void zl_doctor_init(struct zl_doctor *d, struct zl_settings *s);
void zl_doctor_release(struct zl_doctor *d);

/*
 * Walk the steps. 0 when none failed (warnings allowed unless strict); -1 with
 * d->failed set when one failed, or with d->interrupted set (d->failed -1) when
 * a signal stopped the walk.
 */
int zl_doctor_run(struct zl_doctor *d);

/*
 * {op, backend, flaggems_dir, level, ok, failed_step, warnings, steps: [{number, name,
 * title, status, summary, evidence, fix, seen}], commands}. NULL when out of memory.
 * The caller frees it (cJSON_Delete).
 */
struct cJSON *zl_doctor_to_json(const struct zl_doctor *d);

/* ---- pieces the steps share (doctor_py.c, doctor_src.c); unit-tested ---- */

/*
 * Run `<python> <args...>` the way a run starts pytest: in the FlagGems directory,
 * with the run's environment, ZL_RUN_DIR=<tmpdir>, ZL_DOCTOR_MODE=<mode> (NULL:
 * unset), bounded by timeout_s. out gets stdout+stderr, *code the exit status
 * (124 on timeout). 0 when it ran, -1 when it could not start or a signal ended
 * it (err says why; d->interrupted is set then).
 */
int zl_doctor_python(struct zl_doctor *d, const struct strvec *args, const char *mode,
		     struct strbuf *out, int *code, struct strbuf *err);
/* Drain child.h's signal pipe; the first SIGINT/SIGTERM/SIGHUP seen sets d->interrupted. Returns d->interrupted. */
int zl_doctor_take_signals(struct zl_doctor *d);
/* The pytest arguments after "-m pytest" that collect or probe the resolved nodes. */
void zl_doctor_pytest_args(const struct zl_doctor *d, int collect_only, struct strvec *args);
/* Parse the JSON file <tmpdir>/<rel>; NULL (err filled) when missing or not JSON. Caller frees. */
struct cJSON *zl_doctor_read_json(const struct zl_doctor *d, const char *rel, struct strbuf *err);
/* The last n lines of text (pytest's output), joined with " | ", appended to out. */
void zl_doctor_tail(const char *text, size_t n, struct strbuf *out);
/*
 * A line a POSIX shell runs as the doctor ran a step, in a subshell: cd to dir, export
 * a fresh ZL_RUN_DIR (mktemp -d) and name it on stderr, unset the removed names, run
 * argv with the set ones ("NAME=value ... argv"), every word quoted. env holds the
 * step's edits (NAME=value sets, bare NAME removes; the last edit of a name wins); its
 * ZL_RUN_DIR gives way to the fresh one, and an argument under run_dir (the doctor's
 * own directory, removed afterwards) names "$ZL_RUN_DIR" instead.
 */
void zl_doctor_command_line(const char *dir, const struct strvec *env, const struct strvec *argv,
			    const char *run_dir, struct strbuf *out);

/*
 * A shape as FlagGems' shapes compare after zl_doctor.py's shape_key(): blanks
 * dropped, lower case, one pair of outer brackets or parentheses removed, inner
 * parentheses made brackets, 'x' between digits made ','. "2x4096" and
 * "(2, 4096)" both give "2,4096"; "[[640, 1536], 0, False]" gives "[640,1536],0,false".
 */
void zl_doctor_shape_key(const char *shape, struct strbuf *out);

/*
 * Every "def <name>(" in the .py files under dir (recursively, sorted), as
 * "<path relative to base>:<line>" pushed to hits. name NULL: push the names of
 * every def instead (each once), for the kernels of a file.
 */
void zl_doctor_find_defs(const char *base, const char *dir, const char *name, struct strvec *hits);
/* Names of every "def " in one file, each pushed once to names. */
void zl_doctor_defs_in_file(const char *path, struct strvec *names);
/* "src/flag_gems/runtime/backend/_x/ops/mm.py" -> "flag_gems.runtime.backend._x.ops.mm". Caller frees. */
char *zl_doctor_module_of(const char *relpath);
/*
 * The kernels an op's tuner tables can carry: op itself, names starting with "<op>_",
 * and every function defined in the FlagGems files that define "def <op>(" (generic
 * ops/ and fused/, and the backend's own vendor package). 1 when kernel is one.
 */
int zl_doctor_kernel_of_op(const char *kernel, const char *op, const struct strvec *defs);

/*
 * Names close to name among names, best first, at most max: names that start with it,
 * then names that hold it (both only for a name of 3 characters or more; shorter names
 * first), then by edit distance (resolve.h's zl_suggest). "router" -> router_gemm;
 * "gemm" -> router_gemm, mm; "mmm" -> mm. name itself is never suggested.
 */
void zl_doctor_near_names(const char *name, const struct strvec *names, size_t max, struct strvec *out);
/* The test functions ("def test*") of one file, each once, in file order. */
void zl_doctor_tests_in_file(const char *path, struct strvec *names);

#endif
