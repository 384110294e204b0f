/*
 * zlbench run: one run from its resolved settings and preflight facts to the files it
 * leaves. The steps, each reading and filling the run context (runctx.h):
 *
 *   claim      the run directory (claim_run_dir);
 *   collect    the facts before the child (facts.c), or a preflight failure when the
 *              isolated caches cannot be made;
 *   prepare    the child's argv and environment (runchild.c), the draft run_identity.json
 *              (identity.c), shapes.yaml, the header (runprint.c);
 *   watch      the child, fresh or in a batch's worker, to its end (watch.c);
 *   record     the facts after it, the final identity, the summary, the history, the footer;
 *   push       when asked, once nothing is left to clean up.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "zlbench/cachesweep.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/history.h"
#include "zlbench/identity.h"
#include "zlbench/push.h"
#include "zlbench/run.h"
#include "zlbench/runload.h"
#include "zlbench/runprint.h"
#include "zlbench/util.h"
#include "zlbench/watch.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Tries of the final identity's write, and the wait before the second (doubled each time). */
#define FINAL_WRITE_TRIES 3
#define FINAL_WRITE_WAIT_S 0.5

/*
 * The final identity is what makes the run's status true on disk. A full disk may have
 * room again a moment later, or once the run's own isolated caches are gone (they are
 * removed before the second try: everything they were needed for is counted). 0, or -1
 * with err after the last try.
 */
static int write_final_identity(const char *run_dir, const cJSON *doc, struct zl_run_facts *f, struct strbuf *err)
{
	char *path = zl_path_join(run_dir, "run_identity.json");
	double wait = FINAL_WRITE_WAIT_S;
	int i, rc = -1;

	for (i = 0; i < FINAL_WRITE_TRIES && rc; i++) {
		if (i) {
			zl_run_facts_cleanup(f);
			sleep_s(wait);
			wait *= 2;
		}
		rc = zl_json_write_atomic(path, doc, err);
	}
	if (rc) {
		struct strbuf why = STRBUF_INIT;

		strbuf_addbuf(&why, err);
		zl_error(err, "%s (%d tries)", why.buf, FINAL_WRITE_TRIES);
		strbuf_release(&why);
	}
	free(path);
	return rc;
}

/* Where the final status went when run_identity.json could not take it (never silently nowhere). */
static void report_lost_identity(const char *run_dir, const struct zl_run_facts *f, const char *why,
				 const char *db_path, const char *run_id)
{
	char *path = zl_path_join(run_dir, "run_identity.json");
	/* the provisional one, unless the disk was full from the start */
	const char *on_disk = zl_is_file(path) ? "run_identity.json still says 'running'"
					       : "there is no run_identity.json";

	zl_print_error("cannot write the final run_identity.json in '%s': %s", run_dir, why);
	if (db_path)
		zl_print_error("the run's final status (%s, exit %d) is stored in the history database '%s' "
			       "(run %s) only; %s", f->status, f->exit_code, db_path, run_id ? run_id : "?", on_disk);
	else
		zl_print_error("the run's final status (%s, exit %d) could not be stored anywhere (history %s): %s",
			       f->status, f->exit_code,
			       zl_history_disabled() ? "off: ZL_NO_HISTORY" : "not written either", on_disk);
	free(path);
}

/*
 * Claim the run directory so that no two runs share one. The leaf is made with
 * mkdir(): a default name another run took already gets "-2", "-3", ... An existing
 * directory is taken only when --out named it and it is still empty. Either way,
 * making plugins/ in it is the claim, which one run alone can win.
 * 0: c->run_dir is ours; 1: taken or not empty (the out_dir check); -1: error.
 */
static int claim_run_dir(struct zl_run_ctx *c, struct strbuf *err)
{
	const char *asked = c->pf->out_dir;
	int named = c->s->v[ZL_SET_OUT].raw != NULL;
	char *dir = NULL, *plugins = NULL;
	int n, made = 1, rc = 1;

	for (n = 1; n <= 99 && made == 1; n++) {
		free(dir);
		dir = n == 1 ? xstrdup(asked) : xstrfmt("%s-%d", asked, n);
		made = zl_mkdir_new(dir, err);
		if (made < 0) {
			rc = -1;
			goto out;
		}
		if (named)
			break;
	}
	if (made == 1 && !named) {
		zl_error(err, "run directories '%s' to '%s' all exist", asked, dir);
		goto out;
	}
	if (made == 1 && !zl_dir_absent_or_empty(dir)) {
		zl_error(err, "run directory '%s' exists and is not empty: a run directory is never reused", dir);
		goto out;
	}
	plugins = zl_path_join(dir, "plugins");
	if (mkdir(plugins, 0777)) {
		if (errno == EEXIST) {
			zl_error(err, "run directory '%s' was claimed by another run at the same time", dir);
		} else {
			zl_error(err, "cannot create directory '%s': %s", plugins, strerror(errno));
			rc = -1;
		}
		goto out;
	}
	c->run_dir = dir;
	dir = NULL;
	rc = 0;
out:
	free(dir);
	free(plugins);
	return rc;
}

/* The steps before the run directory is ours: signals, the stale caches, the claim. An exit code. */
static int begin(struct zl_run_ctx *c)
{
	struct strbuf err = STRBUF_INIT;
	int code = ZL_EXIT_OK;

	/* a closed terminal or log reader must not kill the supervisor before the identity is final */
	signal(SIGPIPE, SIG_IGN);
	if (zl_signals_install(&err)) {
		zl_print_error("%s", err.buf);
		code = ZL_EXIT_USAGE;
		goto out;
	}
	/* the isolated caches of runs killed outright (kill -9) are removed by the next one */
	zl_cache_sweep_stale(NULL);
	switch (claim_run_dir(c, &err)) {
	case 0:
		break;
	case 1:
		zl_preflight_report_failure("out_dir", err.buf);
		code = ZL_EXIT_PREFLIGHT;
		break;
	default:
		zl_print_error("%s", err.buf);
		code = ZL_EXIT_USAGE;
	}
out:
	strbuf_release(&err);
	return code;
}

/* The isolated caches could not be made (TMPDIR): the environment, as preflight. The exit code. */
static int caches_failed(struct zl_run_ctx *c, struct strbuf *err)
{
	zl_preflight_report_failure("isolate_tuner_cache", err->buf);
	c->f.status = ZL_STATUS_PREFLIGHT_FAILED;
	c->f.reason = strbuf_detach(err, NULL);
	c->f.exit_code = ZL_EXIT_PREFLIGHT;
	c->f.finished_epoch = zl_now_epoch();
	if (zl_identity_write(c, err))
		zl_print_error("%s", err->buf);
	return ZL_EXIT_PREFLIGHT;
}

/* --verbose: the exact child, so a run can be repeated by hand. */
static void print_child(const struct zl_run_ctx *c)
{
	size_t i;

	fprintf(stderr, "cwd:         %s\nchild env:  ", c->s->flaggems_dir);
	for (i = 0; i < c->child_env.nr; i++)
		fprintf(stderr, " %s%s", strchr(c->child_env.v[i], '=') ? "" : "-u ", c->child_env.v[i]);
	fprintf(stderr, "\nchild argv: ");
	for (i = 0; i < c->child_argv.nr; i++)
		fprintf(stderr, " %s", c->child_argv.v[i]);
	fputc('\n', stderr);
}

/* The child, the draft identity (status running), shapes.yaml and the header. */
static void prepare(struct zl_run_ctx *c)
{
	struct strbuf err = STRBUF_INIT;

	zl_run_build_child(c, &c->child_argv, &c->child_env);
	strvec_push(&c->child_env, ZL_WORKER_SOCKET_VAR); /* the batch's word to this run, not to pytest */
	c->f.status = ZL_STATUS_RUNNING;
	if (zl_identity_write(c, &err))
		zl_print_warning("%s", err.buf);
	if (zl_shapes_archive_for_run(c, &err))
		zl_print_warning("%s", err.buf);
	zl_run_print_header(c);
	if (zl_verbosity > 0)
		print_child(c);
	strbuf_release(&err);
}

/* Start the child and watch it to its end. The exit code. */
static int watch(struct zl_run_ctx *c)
{
	struct zl_watch w;
	struct strbuf err = STRBUF_INIT;
	int exit_code = ZL_EXIT_INTERNAL;

	zl_watch_init(&w);
	if (zl_watch_start(&w, c, &err)) {
		zl_print_error("%s", err.buf);
		c->f.status = ZL_STATUS_CRASHED;
		c->f.reason = xstrdup(err.buf);
		c->f.finished_epoch = zl_now_epoch();
		goto out;
	}
	/* the worker took the op: the identity says so while it runs */
	if (w.ws && zl_identity_write(c, &err))
		zl_print_warning("%s", err.buf);
	/* the caches stay in use while pytest's group lives, even if zlbench is killed */
	if (c->f.isolated_root && zl_cache_owner_write(c->f.isolated_root, w.cp.pid, &err))
		zl_print_warning("%s", err.buf);
	zl_watch_wait(&w);
	c->f.finished_epoch = zl_now_epoch();
	exit_code = zl_watch_outcome(&w, c);
out:
	zl_watch_release(&w);
	strbuf_release(&err);
	return exit_code;
}

/*
 * The summary, the history and the footer, from the run's record: its final identity as
 * built (taken over; written or not), the results read once. Without one (it could not
 * be built) the draft on disk stands in.
 */
static void report(struct zl_run_ctx *c, cJSON *final_id, const char *identity_lost)
{
	struct zl_run run;
	struct zl_history *db = NULL;
	struct strbuf err = STRBUF_INIT;
	int loaded, stored = 0;

	zl_run_init(&run);
	loaded = final_id ? zl_run_load_with_identity(c->run_dir, final_id, &run, &err)
			  : zl_run_load(c->run_dir, &run, &err);
	if (loaded) {
		zl_print_warning("cannot read the finished run: %s", err.buf);
	} else {
		if (zl_verbosity >= 0)
			zl_run_print_summary(&run, stdout);
		if (!zl_history_disabled() &&
		    (zl_history_open(NULL, &db, &err) || zl_history_ingest_loaded(db, &run, &err)))
			zl_print_warning("history not updated: %s", err.buf);
		else
			stored = !zl_history_disabled();
	}
	if (identity_lost)
		report_lost_identity(c->run_dir, &c->f, identity_lost, stored ? zl_history_path(db) : NULL,
				     run.run_id);
	zl_history_close(db);
	zl_run_print_footer(&c->f, run.identity, stderr);
	/* -q kept pytest's output to its log: a run that did not pass says where it is */
	if (zl_verbosity < 0 && c->f.exit_code != ZL_EXIT_OK) {
		strbuf_reset(&err);
		strbuf_add_printable(&err, c->f.reason ? c->f.reason : "");
		fprintf(stderr, "zlbench: run %s (exit %d)%s%s; pytest's output: %s/pytest.log\n", c->f.status,
			c->f.exit_code, err.len ? ": " : "", err.buf, c->run_dir);
	}
	zl_run_release(&run);
	strbuf_release(&err);
}

/* The facts after the child, the final identity, and what the run prints and stores of it. */
static void record(struct zl_run_ctx *c, int exit_code)
{
	struct strbuf err = STRBUF_INIT;
	char *identity_lost = NULL;   /* why the final identity is not on disk */
	cJSON *final_id;

	c->f.exit_code = exit_code;
	zl_run_facts_collect_after(c);
	final_id = zl_identity_build(c, &err);
	if (!final_id)
		zl_print_error("%s", err.buf);
	else if (write_final_identity(c->run_dir, final_id, &c->f, &err))
		identity_lost = strbuf_detach(&err, NULL);
	report(c, final_id, identity_lost);
	free(identity_lost);
	strbuf_release(&err);
}

int zl_run_execute(struct zl_settings *s, const struct zl_preflight *pf, const char *push_url,
		   const char *const *self_argv)
{
	struct zl_run_ctx c;
	struct strbuf err = STRBUF_INIT;
	int exit_code, finished = 0;

	zl_run_ctx_init(&c, s, pf);
	c.self_argv = self_argv;
	exit_code = begin(&c);
	if (exit_code != ZL_EXIT_OK)
		goto out;
	/* from here on every path leaves a truthful identity and removes temporary caches */
	if (zl_run_facts_collect_before(&c, &err)) {
		exit_code = caches_failed(&c, &err);
	} else {
		prepare(&c);
		exit_code = watch(&c);
		record(&c, exit_code);
		finished = 1;
	}
	zl_run_facts_cleanup(&c.f);
	printf("RUN_DIR=%s\n", c.run_dir);
	fflush(stdout);
out:
	zl_signals_restore();
	/*
	 * The run is over and nothing is left to clean up: Ctrl-C may now end the push at
	 * once (its retries can take minutes); the run directory keeps what it would send.
	 */
	if (finished && push_url) {
		strbuf_reset(&err);
		if (zl_push_simple(c.run_dir, push_url, &err))
			zl_print_warning("push: %s", err.buf);
	}
	zl_run_ctx_release(&c);
	strbuf_release(&err);
	return exit_code;
}
