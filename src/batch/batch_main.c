/*
 * zlbench batch below its command row: a new batch from the command line, or the one
 * --resume or --collect names; its plan (--dry-run), or the batch claimed, launched and
 * finished (batch_main.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "zlbench/batch.h"
#include "zlbench/batch_costs.h"
#include "zlbench/batch_estimate.h"
#include "zlbench/batch_main.h"
#include "zlbench/error.h"
#include "zlbench/child.h"
#include "zlbench/fsutil.h"
#include "zlbench/preflight.h"
#include "zlbench/push.h"
#include "zlbench/run.h"
#include "zlbench/settings.h"
#include "zlbench/slurm.h"
#include "zlbench/term.h"
#include "zlbench/util.h"
#include "zlbench/worker.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

/* One invocation: what was asked, and the batch it makes or opens. */
struct job {
	const struct zl_batch_request *rq;
	const struct zl_batch_invocation *inv;
	struct zl_settings *s;
	struct zl_batch_config c;
	struct zl_batch_run_opts ro;
	struct zl_slurm_run_opts so;
	int slurm;                 /* through Slurm */
	int existing;              /* --resume or --collect */
	char *exe;                 /* this binary, run as every child */
};

/*
 * FlagGems' tuner cache is a SQLite file (FLAGGEMS_CACHE_DIR or ~/.flaggems, a
 * network home on most clusters), and SQLite's locking is not reliable over a
 * network filesystem. So Slurm tasks tune in an isolated, node-local cache
 * unless the user chose the shared one by name; then they are told the risk.
 */
static void slurm_tuner_cache(const struct zl_settings *s, struct strvec *run_args)
{
	const struct zl_setting_value *v = &s->v[ZL_SET_ISOLATE];

	if (v->source != ZL_SRC_FLAG && v->source != ZL_SRC_ENV) {
		strvec_push(run_args, "--isolate-tuner-cache");
		fprintf(stderr, "zlbench: note: with --launcher slurm each task tunes in an isolated tuner cache on its "
				"node (removed afterwards), so that no tuner database is written from many nodes; "
				"--shared-tuner-cache shares one\n");
	} else if (!s->isolate) {
		zl_print_warning("%s: every Slurm task writes FlagGems' tuner database (a SQLite file under "
				 "FLAGGEMS_CACHE_DIR or ~/.flaggems); SQLite's locking is not reliable on a network "
				 "filesystem: point FLAGGEMS_CACHE_DIR at storage the nodes do not share",
				 v->from ? v->from : "a shared tuner cache");
	}
}

static char *default_batch_dir(const struct zl_settings *s)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	if (!gmtime_r(&now, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
		snprintf(stamp, sizeof(stamp), "00000000-000000");
	return xstrfmt("%s/%s-%s-batch", s->v[ZL_SET_RUNS_DIR].raw ? s->v[ZL_SET_RUNS_DIR].raw : "runs", stamp,
		       s->backend->name);
}

/*
 * The devices: as given (checked against the enumeration when there is one),
 * else every enumerated device, else 0. 0, or the exit code with the message printed.
 */
static int choose_devices(const struct zl_settings *s, struct strvec *out)
{
	struct zl_devlist dl = ZL_DEVLIST_INIT;
	struct strbuf msg = STRBUF_INIT;
	size_t i, j;
	int code = 0;

	zl_backend_enumerate(s->backend, &dl);
	/* as `zlbench run`'s devices check: an installed tool that cannot answer is a broken driver */
	if (dl.tool_failed) {
		strbuf_addf(&msg, "backend '%s': %s (a broken driver stack?); hint: the vendor's query tool must answer",
			    s->backend->name, dl.how ? dl.how : s->backend->query_tool);
		zl_preflight_report_failure("devices", msg.buf);
		code = ZL_EXIT_PREFLIGHT;
		goto out;
	}
	if (s->devices.nr) {
		/* the settings resolver has refused bad items and repeats and made each canonical */
		for (i = 0; i < s->devices.nr; i++) {
			const char *d = s->devices.v[i];
			long idx = atol(d);

			if (dl.available && !zl_devlist_find(&dl, (int)idx)) {
				strbuf_addf(&msg, "device %s (from %s) does not exist; %s shows", d,
					    s->v[ZL_SET_DEVICES].from, dl.how);
				for (j = 0; j < dl.nr; j++)
					strbuf_addf(&msg, "%s%d", j ? "," : " ", dl.v[j].index);
				strbuf_addstr(&msg, "; hint: choose indices the backend enumerates (zlbench devices)");
				zl_preflight_report_failure("devices", msg.buf);
				code = ZL_EXIT_PREFLIGHT;
				goto out;
			}
			strvec_push(out, d);
		}
	} else if (dl.available && dl.nr) {
		for (i = 0; i < dl.nr; i++)
			strvec_pushf(out, "%d", dl.v[i].index);
	} else {
		strvec_push(out, "0");
	}
	if (!dl.available) {
		const char *how = dl.how ? dl.how : "no enumeration";

		zl_print_warning("devices not verified: %s",
				 zl_starts_with(how, "not verified: ") ? how + strlen("not verified: ") : how);
	}
out:
	zl_devlist_release(&dl);
	strbuf_release(&msg);
	return code;
}

/* --start / ZL_START for a new batch; Slurm tasks start fresh. 0, or -1 after a message. */
static int choose_start(struct job *j)
{
	const struct zl_batch_request *rq = j->rq;
	const struct zl_settings *s = j->s;
	struct zl_batch_config *c = &j->c;
	int slurm = j->slurm;
	const char *raw = rq->start;
	const char *from = rq->start_source == ZL_SRC_FLAG ? "--start" : "ZL_START";
	struct strbuf err = STRBUF_INIT;
	enum zl_start_mode m;

	if (!raw) {
		c->start = xstrdup(slurm ? "fresh" : ZL_BATCH_START_DEFAULT);
		return 0;
	}
	if (zl_start_mode_parse(raw, from, s->backend, &m, &err)) {
		zl_print_error("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	if (slurm && m != ZL_START_FRESH) {
		/* asked for on this command line: refused; set in the environment for local batches: said */
		if (rq->start_source == ZL_SRC_FLAG) {
			zl_print_error("%s %s does not apply with --launcher slurm: each Slurm task runs one operator "
				       "in a fresh interpreter", from, raw);
			return -1;
		}
		if (zl_verbosity >= 0)
			fprintf(stderr, "zlbench: note: %s=%s does not apply with --launcher slurm: each Slurm task runs "
					"one operator in a fresh interpreter\n", from, raw);
		m = ZL_START_FRESH;
	}
	c->start = xstrdup(zl_start_mode_name(m));
	if (m == ZL_START_WORKER && !zl_batch_uses_workers(c) && zl_verbosity >= 0)
		fprintf(stderr, "zlbench: note: the runs isolate their tuner caches, which needs a fresh interpreter "
				"per operator: every operator starts fresh (%s %s does not apply)\n", from, raw);
	return 0;
}

/* The operators and the warm-up sharding of a new batch. 0, or -1 after a message. */
static int choose_ops(struct job *j)
{
	const struct zl_batch_request *rq = j->rq;
	const struct zl_settings *s = j->s;
	struct zl_batch_config *c = &j->c;
	int slurm = j->slurm;
	struct strbuf err = STRBUF_INIT;
	const char *from = rq->warmup_source == ZL_SRC_FLAG ? "--warmup-devices" : "PARALLEL_WARMUP_GPUS";
	const struct zl_batch_ops_request or = {
		.flaggems_dir = s->flaggems_dir, .all = zl_batch_ops_is_all(&rq->ops, rq->ops_file), .ops = &rq->ops,
		.ops_file = rq->ops_file, .exclude = &rq->exclude,
	};
	size_t i;
	long n = 0;
	int ret = -1;

	c->ops_all = or.all;
	if (zl_batch_ops_choose(&or, &c->ops, &c->exclude, &err)) {
		zl_print_error("%s", err.buf);
		goto out;
	}
	for (i = 0; i < rq->warmup_ops.nr; i++)
		zl_batch_ops_add_list(&c->warmup_ops, rq->warmup_ops.v[i]);
	for (i = 0; i < c->warmup_ops.nr; i++)
		if (strvec_find(&c->ops, c->warmup_ops.v[i]) < 0) {
			zl_print_error("--warmup-ops names '%s', which is not an operator of the batch", c->warmup_ops.v[i]);
			goto out;
		}
	if (rq->warmup_devices && (zl_parse_long(rq->warmup_devices, &n) || n < 0 || n > 4096)) {
		zl_print_error("invalid value '%s' for %s: a number of devices (0: no warm-up sharding)",
			       rq->warmup_devices, from);
		goto out;
	}
	if (n && !s->autotune_records) {
		zl_print_error("warm-up sharding records autotune winners to replay them; %s turns the records off",
			       s->v[ZL_SET_AUTOTUNE_RECORDS].from);
		goto out;
	}
	if (n && s->replay_from) {
		zl_print_error("warm-up sharding records autotune winners to replay them; it cannot be combined with %s",
			       s->v[ZL_SET_REPLAY_FROM].from);
		goto out;
	}
	if (slurm && n) {
		zl_print_error("warm-up sharding needs several devices at once for one operator; "
			       "--launcher slurm gives each operator one GPU");
		goto out;
	}
	c->warmup_devices = (int)n;
	ret = 0;
out:
	strbuf_release(&err);
	return ret;
}

/* The new batch's directory: given or default, absolute, absent or empty. 0, or -1 after a message. */
static int choose_dir(const struct zl_settings *s, struct zl_batch_config *c)
{
	char *dir = s->v[ZL_SET_OUT].raw ? xstrdup(s->v[ZL_SET_OUT].raw) : default_batch_dir(s);

	c->dir = zl_absolute_path(dir);
	free(dir);
	/* BATCH_DIR=<path> is the last line scripts read: a newline in it would forge another */
	if (zl_has_control_char(c->dir)) {
		zl_print_error("batch directory '%s' contains a control character: zlbench prints it as "
			       "BATCH_DIR=<path> for scripts", c->dir);
		return -1;
	}
	if (!zl_dir_absent_or_empty(c->dir)) {
		zl_print_error("batch directory '%s' exists and is not empty: continue it with --resume %s, or choose a new --out",
			       c->dir, c->dir);
		return -1;
	}
	return 0;
}

/*
 * A --replay-from that is not a batch must be a run with records, as each run's preflight
 * checks: refused once here, before the batch directory exists, rather than after every
 * operator has started (or, with Slurm, waited in the queue) only to fail its preflight.
 * 0, or -1 after a message.
 */
static int replay_run_source(const struct zl_settings *s)
{
	char *records = zl_path_join(s->replay_from, "autotune_records");
	int ret = 0;

	if (!zl_is_dir(s->replay_from)) {
		zl_print_error("%s names '%s', which is not a directory", s->v[ZL_SET_REPLAY_FROM].from,
			       s->replay_from);
		ret = -1;
	} else if (!zl_is_dir(records)) {
		zl_print_error("%s names '%s', which is neither a batch (no %s) nor a run (no autotune_records/)",
			       s->v[ZL_SET_REPLAY_FROM].from, s->replay_from, ZL_BATCH_CONFIG_FILE);
		ret = -1;
	}
	free(records);
	return ret;
}

/*
 * --replay-from BATCH_DIR (a directory with batch.json): the runs replay the winners of
 * that batch's runs, merged into <dir>/replay_records when the batch starts, so
 * that a sweep reuses the last sweep's tuning (with --replay-miss tune, it tunes only
 * what is new). The children are told the merged directory. 0, or -1 after a message.
 */
static int replay_batch_source(struct zl_settings *s, struct zl_batch_config *c)
{
	struct strvec runs = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	char *config, *merged;
	int is_batch;

	if (!s->replay_from)
		return 0;
	config = zl_path_join(s->replay_from, ZL_BATCH_CONFIG_FILE);
	is_batch = zl_is_file(config);
	free(config);
	if (!is_batch)
		return replay_run_source(s); /* a run: every run replays it as it is */
	/* a source without a readable status file is refused before this batch's directory exists */
	if (zl_batch_runs_of(s->replay_from, NULL, 0, &runs, NULL, &err)) {
		zl_print_error("%s names batch '%s', whose runs cannot be read: %s", s->v[ZL_SET_REPLAY_FROM].from,
			       s->replay_from, err.buf);
		strbuf_release(&err);
		return -1;
	}
	strvec_clear(&runs);
	c->replay_batch = xstrdup(s->replay_from);
	if (!strcmp(s->replay_miss, "fail") && zl_verbosity >= 0)
		fprintf(stderr, "zlbench: note: a tuning key that batch '%s' never recorded fails its operator "
				"(%s fail); --replay-miss tune tunes it instead\n", c->replay_batch,
			s->v[ZL_SET_REPLAY_MISS].source == ZL_SRC_DEFAULT ? "--replay-miss defaults to" : "--replay-miss");
	merged = zl_path_join(c->dir, ZL_BATCH_REPLAY_DIR);
	zl_settings_set(s, ZL_SET_REPLAY_FROM, merged);
	free(s->replay_from);
	s->replay_from = merged;
	return 0;
}

/*
 * The merge that replay_batch_source promised, once (a resumed batch keeps the merge it
 * made). 0, or -1 after a message.
 */
static int merge_replay_batch(const struct zl_batch_config *c)
{
	struct zl_merge_stats st;
	struct strvec runs = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	char *merged = zl_path_join(c->dir, ZL_BATCH_REPLAY_DIR);
	char *summary = zl_path_join(merged, "merge.json");
	size_t passed = 0;
	int ret = 0;

	zl_merge_stats_init(&st);
	if (!c->replay_batch || zl_is_file(summary))
		goto out;
	/* every op's last run: one that timed out while tuning still recorded the keys it finished */
	ret = zl_batch_runs_of(c->replay_batch, NULL, 0, &runs, &passed, &err);
	if (!ret)
		ret = zl_batch_merge_records(&runs, merged, &st, &err);
	if (ret)
		zl_print_error("cannot replay the winners of batch '%s': %s", c->replay_batch, err.buf);
	else if (zl_verbosity >= 0)
		fprintf(stderr, "zlbench: the runs replay the autotune winners of %zu run%s of %s (%zu passed): "
				"%ld kernels, %ld keys (%s)%s\n", runs.nr, runs.nr == 1 ? "" : "s", c->replay_batch,
			passed, st.kernels, st.entries, merged,
			st.conflicts ? "; a key two ops recorded differently keeps a passed op's config, else the "
				       "first op's" : "");
out:
	zl_merge_stats_release(&st);
	strvec_clear(&runs);
	strbuf_release(&err);
	free(merged);
	free(summary);
	return ret;
}

/* A new batch from the command line: settings, operators, devices, directory. 0 or an exit code. */
static int new_batch(struct job *j)
{
	const struct zl_batch_request *rq = j->rq;
	struct zl_settings *s = j->s;
	struct zl_batch_config *c = &j->c;
	int slurm = j->slurm;
	const struct zl_setting_value *v = zl_settings_given(s, j->inv->refused_settings);
	struct strbuf err = STRBUF_INIT;
	char stamp[32];
	int code, i;

	if (v) {
		zl_print_error("%s names one run; a batch takes --ops LIST or --ops-file FILE", v->from);
		return ZL_EXIT_USAGE;
	}
	if (rq->timeout_per_op)
		zl_settings_set(s, ZL_SET_TIMEOUT, rq->timeout_per_op);
	if (zl_settings_resolve(s, &err)) {
		zl_print_error("%s", err.buf);
		strbuf_release(&err);
		return ZL_EXIT_USAGE;
	}
	if (choose_ops(j))
		return ZL_EXIT_USAGE;
	/* every unknown operator refused before any runs, as `zlbench run --op` refuses it */
	if (zl_preflight_batch_ops(s->flaggems_dir, &c->ops, rq->dry_run ? stdout : NULL))
		return ZL_EXIT_PREFLIGHT;
	/* with Slurm the devices are Slurm's to grant, on whichever node runs the task */
	code = slurm ? 0 : choose_devices(s, &c->devices);
	if (code)
		return code;
	if (c->warmup_devices > (int)c->devices.nr) {
		zl_print_error("warm-up on %d devices needs %d devices; the batch has %zu", c->warmup_devices,
			       c->warmup_devices, c->devices.nr);
		return ZL_EXIT_USAGE;
	}
	if (choose_dir(s, c) || replay_batch_source(s, c))
		return ZL_EXIT_USAGE;
	zl_utc_iso8601(stamp, zl_now_epoch());
	c->created_at = xstrdup(stamp);
	c->backend = xstrdup(s->backend->name);
	c->launcher = xstrdup(slurm ? "slurm" : "local");
	c->flaggems_dir = xstrdup(s->flaggems_dir);
	c->level = xstrdup(s->level);
	c->shape_mode_file = s->shape_mode_file;
	c->shape_file = s->shape_file ? xstrdup(s->shape_file) : NULL;
	c->timeout_s = s->timeout_s;
	zl_settings_forward_args(s, &c->run_args);
	if (slurm)
		slurm_tuner_cache(s, &c->run_args);
	if (choose_start(j))
		return ZL_EXIT_USAGE;
	strvec_pushv(&c->passthrough, s->passthrough.v);
	for (i = 0; i < j->inv->argc; i++)
		strvec_push(&c->argv, j->inv->argv[i]);
	return 0;
}

/* The ops of c without a final row in its ops_status.csv (a new batch: every op). */
static void pending_ops(const struct zl_batch_config *c, int retry_failed, struct strvec *out)
{
	struct zl_batch_rows rows = ZL_BATCH_ROWS_INIT;
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	char *path = zl_path_join(c->dir, ZL_BATCH_STATUS_FILE);
	size_t i, complete;

	if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL))
		zl_batch_rows_parse(text.buf, text.len, &rows, &complete, &err);
	for (i = 0; i < c->ops.nr; i++) {
		const struct zl_batch_row *last = zl_batch_rows_last(&rows, c->ops.v[i]);

		if (!last || !zl_batch_status_final(last->v[ZL_BCOL_STATUS], retry_failed))
			strvec_push(out, c->ops.v[i]);
	}
	zl_batch_rows_release(&rows);
	strbuf_release(&text);
	strbuf_release(&err);
	free(path);
}

/* --dry-run of a local batch: its settings, the ops to run with their estimate, the first child's argv. */
static void print_plan(const struct job *j)
{
	const struct zl_batch_config *c = &j->c;
	struct zl_batch_estimate e;
	struct strvec ops = STRVEC_INIT, argv = STRVEC_INIT;
	size_t i;

	pending_ops(c, j->rq->retry_failed, &ops);
	zl_batch_estimate_init(&e);
	zl_batch_estimate_ops(&e, c, &ops);
	printf("batch dir: %s\n", c->dir);
	printf("backend: %s\n", c->backend);
	printf("devices:");
	for (i = 0; i < c->devices.nr; i++)
		printf(" %s", c->devices.v[i]);
	printf("\ntimeout per op: ");
	if (c->timeout_s > 0)
		printf("%g s\n", c->timeout_s);
	else
		printf("none\n");
	printf("start: %s\n", zl_batch_uses_workers(c) ? "worker (one interpreter per device; warm-up shards start fresh)"
			     : c->start && !strcmp(c->start, "worker") ? "fresh (isolated tuner caches need a fresh interpreter)"
			     : "fresh");
	if (c->replay_batch)
		printf("autotune: replay the winners of the runs of batch %s (merged into %s/%s at start)\n",
		       c->replay_batch, c->dir, ZL_BATCH_REPLAY_DIR);
	printf("warm-up sharding: ");
	if (c->warmup_devices)
		printf("%d devices%s\n", c->warmup_devices, c->warmup_ops.nr ? " (listed ops only)" : "");
	else
		printf("off\n");
	printf("start order (longest expected first: expected duration, where it comes from, benchmark files):\n");
	zl_batch_estimate_print_ops(&e, stdout);
	zl_batch_estimate_print_totals(&e, c->ops_all, stdout);
	if (e.nr) {
		zl_batch_child_argv(c, j->exe, e.v[e.order[0]].op, c->devices.v[0], "<batch>/runs/<op>", NULL, &argv);
		printf("child argv (first op):\n");
		for (i = 0; i < argv.nr; i++)
			printf("  %s\n", argv.v[i]);
	}
	strvec_clear(&argv);
	strvec_clear(&ops);
	zl_batch_estimate_release(&e);
}

static int exit_code_for(const struct zl_batch_outcome *oc)
{
	if (oc->interrupt_sig)
		return ZL_EXIT_SIGNAL_BASE + oc->interrupt_sig;
	if (oc->passed + oc->skipped == oc->total)
		return ZL_EXIT_OK;
	if (oc->preflight_failed == oc->total)
		return ZL_EXIT_PREFLIGHT;
	return ZL_EXIT_FAILED;
}

static void print_counts(const struct zl_batch_outcome *oc)
{
	char skipped[48] = "";

	/* named only when there are some: scripts read the line as it always was */
	if (oc->skipped)
		snprintf(skipped, sizeof(skipped), ", %zu skipped", oc->skipped);
	printf("%zu operators: %zu passed%s, %zu failed, %zu crashed, %zu timed out, %zu preflight failed, %zu interrupted, %zu not run (%.1f s)\n",
	       oc->total, oc->passed, skipped, oc->failed, oc->crashed, oc->timeout, oc->preflight_failed,
	       oc->interrupted, oc->not_run, oc->makespan_s);
}

/* Anything besides --resume's own options means the user expects settings the batch would ignore. */
static int resume_conflicts(const struct zl_settings *s, const struct zl_batch_request *o)
{
	const char *how = o->collect ? "--collect" : "--resume";
	const struct zl_setting_value *v = zl_settings_given(s, ZL_SETF_ALL);

	if (v) {
		zl_print_error("%s uses the settings saved in the batch directory; %s cannot change them", how, v->from);
		return -1;
	}
	/* their variables (ZL_START, PARALLEL_WARMUP_GPUS) are for new batches: no conflict */
	if (o->ops.nr || o->ops_file || o->exclude.nr || o->timeout_per_op || o->warmup_source == ZL_SRC_FLAG ||
	    o->warmup_ops.nr || o->start_source == ZL_SRC_FLAG || s->passthrough.nr) {
		zl_print_error("%s uses the settings saved in the batch directory; --ops, --ops-file, --exclude, "
			       "--timeout-per-op, --warmup-*, --start and pytest arguments cannot change them", how);
		return -1;
	}
	if (o->launcher || o->partition || o->account || o->time_per_op || o->sbatch_args.nr) {
		zl_print_error("%s uses the settings saved in the batch directory; "
			       "--launcher and the Slurm options cannot change them", how);
		return -1;
	}
	return 0;
}

/* The launcher options: which launcher, and Slurm's options only with Slurm. -1 after a message. */
static int check_launcher(const struct zl_settings *s, const struct zl_batch_request *o, int *slurm)
{
	static const struct {
		const char *name;
		int slurm;
	} launchers[] = { { "local", 0 }, { "slurm", 1 } };
	size_t i;

	*slurm = -1;
	for (i = 0; i < ZL_ARRAY_SIZE(launchers); i++)
		if (!strcmp(o->launcher ? o->launcher : "local", launchers[i].name))
			*slurm = launchers[i].slurm;
	if (*slurm < 0) {
		zl_print_error("invalid value '%s' for --launcher: choose local or slurm", o->launcher);
		return -1;
	}
	if (o->resume || o->collect)
		return 0; /* the batch's own launcher decides; resume_conflicts refuses the rest */
	if (!*slurm && (o->partition || o->account || o->time_per_op || o->sbatch_args.nr || o->detach)) {
		zl_print_error("--partition, --account, --time-per-op, --sbatch-arg and --detach go with --launcher slurm");
		return -1;
	}
	if (*slurm && s->v[ZL_SET_DEVICES].source == ZL_SRC_FLAG) {
		zl_print_error("%s does not apply with --launcher slurm: Slurm grants each task its GPU (--gres=gpu:1)",
			       s->v[ZL_SET_DEVICES].from);
		return -1;
	}
	return 0;
}

/* The Slurm launcher's options from the command line (and from slurm.json on resume). */
static int slurm_opts(const struct zl_batch_request *o, const struct zl_batch_run_opts *ro, struct zl_slurm_run_opts *so)
{
	struct strbuf err = STRBUF_INIT;

	memset(so, 0, sizeof(*so));
	so->partition = o->partition;
	so->account = o->account;
	so->sbatch_args = &o->sbatch_args;
	so->detach = o->detach;
	so->retry_failed = o->retry_failed;
	so->progress = ro->progress;
	so->self_exe = ro->self_exe;
	if (o->time_per_op && (zl_parse_long(o->time_per_op, &so->time_per_op_min) || so->time_per_op_min < 1)) {
		zl_print_error("invalid value '%s' for --time-per-op: whole minutes, at least 1", o->time_per_op);
		return -1;
	}
	if (zl_slurm_check_sbatch_args(&o->sbatch_args, &err)) {
		zl_print_error("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	if ((o->partition && (!*o->partition || strpbrk(o->partition, " \t\n"))) ||
	    (o->account && (!*o->account || strpbrk(o->account, " \t\n")))) {
		zl_print_error("--partition and --account take a name without blanks");
		return -1;
	}
	return 0;
}

static int parse_progress(const char *p, enum zl_progress_mode *out)
{
	struct strbuf err = STRBUF_INIT;
	int ret = zl_progress_mode_parse(p, out, &err);

	if (ret)
		zl_print_error("%s", err.buf);
	strbuf_release(&err);
	return ret;
}

/* The options that go together, the launcher, the push URL. 0, or -1 after a message. */
static int check_request(struct job *j)
{
	const struct zl_batch_request *rq = j->rq;
	struct strbuf err = STRBUF_INIT;
	const struct {
		int bad;
		const char *why;
	} conflicts[] = {
		{ rq->retry_failed && !rq->resume, "--retry-failed goes with --resume DIR" },
		{ rq->collect && rq->resume, "--collect and --resume do not go together: --resume collects what has ended first" },
		{ rq->no_wait && !rq->collect, "--no-wait goes with --collect DIR" },
		{ rq->collect && rq->detach, "--detach goes with a submission (a new batch or --resume), not with --collect" },
	};
	size_t i;

	if (parse_progress(rq->progress, &j->ro.progress))
		return -1;
	for (i = 0; i < ZL_ARRAY_SIZE(conflicts); i++)
		if (conflicts[i].bad) {
			zl_print_error("%s", conflicts[i].why);
			return -1;
		}
	if (check_launcher(j->s, rq, &j->slurm))
		return -1;
	/* each op's run would refuse it after the batch: refused once, before the batch exists */
	if (rq->push && zl_push_check_settings(rq->push, &err)) {
		zl_print_error("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	return 0;
}

/* The batch --resume or --collect names, as it was saved. 0, or -1 after a message. */
static int open_existing(struct job *j)
{
	const struct zl_batch_request *rq = j->rq;
	struct strbuf err = STRBUF_INIT;

	if (resume_conflicts(j->s, rq))
		return -1;
	if (zl_batch_config_load(&j->c, rq->resume ? rq->resume : rq->collect, &err)) {
		zl_print_error("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	j->slurm = zl_batch_is_slurm(&j->c);
	if (rq->collect && !j->slurm) {
		zl_print_error("'%s' was not launched with --launcher slurm: there is nothing to collect "
			       "(continue it with --resume)", j->c.dir);
		return -1;
	}
	if (rq->detach && !j->slurm) {
		zl_print_error("--detach goes with a batch launched with --launcher slurm");
		return -1;
	}
	return 0;
}

/*
 * The batch directory for this process: claimed and batch.json saved (a new batch) or
 * locked (one that exists), and this session recorded. The lock's fd, or -1 after a message.
 */
static int claim(const struct job *j)
{
	const struct zl_batch_config *c = &j->c;
	struct strbuf err = STRBUF_INIT;
	int fd;

	if (!j->existing) {
		/* the lock first: a batch started at the same time with the same --out must not write here */
		fd = zl_batch_claim_dir(c->dir, &err);
		if (fd >= 0 && zl_batch_config_save(c, &err)) {
			close(fd);
			fd = -1;
		}
	} else {
		/* on --resume, an earlier batch's children may still be ending their runs */
		fd = zl_batch_lock(c->dir, j->rq->resume ? zl_kill_grace() + 30.0 : 0, &err);
	}
	if (fd >= 0 && zl_batch_config_add_session(c, j->inv->argv, j->rq->resume != NULL, &err)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		zl_print_error("%s", err.buf);
	strbuf_release(&err);
	return fd;
}

static void announce(const struct job *j)
{
	const struct zl_batch_config *c = &j->c;
	size_t i;

	if (zl_verbosity < 0)
		return;
	fprintf(stderr, "zlbench batch: %zu operator%s, backend %s, ", c->ops.nr, c->ops.nr == 1 ? "" : "s",
		c->backend);
	if (j->slurm) {
		fprintf(stderr, "Slurm: one GPU per task");
	} else {
		fprintf(stderr, "device%s", c->devices.nr == 1 ? "" : "s");
		for (i = 0; i < c->devices.nr; i++)
			fprintf(stderr, "%s%s", i ? "," : " ", c->devices.v[i]);
	}
	fprintf(stderr, "%s: %s\n", j->rq->resume ? " (resumed)" : j->rq->collect ? " (collecting)" : "", c->dir);
}

/* The batch's exit code from its outcome, the summary, the cost table (and its files), the push, BATCH_DIR=. */
static int finish(const struct job *j, const struct zl_batch_outcome *oc)
{
	const struct zl_batch_request *rq = j->rq;
	const struct zl_batch_config *c = &j->c;
	struct zl_batch_costs k;
	struct strbuf err = STRBUF_INIT;
	int code = exit_code_for(oc);

	/*
	 * --collect --no-wait: tasks still queued or running are no failure yet; an op
	 * that never ran and will not, or a Slurm that did not answer, is
	 */
	if (rq->collect && rq->no_wait && !oc->interrupt_sig && !oc->query_failed &&
	    oc->passed + oc->skipped + oc->to_come == oc->total)
		code = ZL_EXIT_OK;
	if (rq->collect && rq->no_wait && oc->query_failed) {
		zl_print_error("Slurm did not answer about %zu task%s of %s: their state is unknown", oc->to_come,
			       oc->to_come == 1 ? "" : "s", c->dir);
		code = ZL_EXIT_FAILED;
	}
	zl_batch_costs_init(&k);
	zl_batch_costs_load(c, &k);
	if (zl_batch_costs_write(c->dir, &k, &err))
		zl_print_warning("%s", err.buf);
	strbuf_reset(&err);
	if (zl_verbosity >= 0) {
		zl_batch_print_summary(c, stdout, zl_use_color(1));
		zl_batch_costs_print(&k, c->dir, stdout, zl_use_color(1));
		print_counts(oc);
		zl_batch_print_skips(c, stdout);
	}
	zl_batch_costs_release(&k);
	if (rq->push && zl_push_simple(c->dir, rq->push, &err))
		zl_print_warning("push: %s", err.buf);
	printf("BATCH_DIR=%s\n", c->dir);
	fflush(stdout);
	strbuf_release(&err);
	return code;
}

/* Launch, resume or collect; the exit code (a failure to start printed). */
static int launch(struct job *j)
{
	const struct zl_batch_request *rq = j->rq;
	struct zl_batch_config *c = &j->c;
	struct zl_batch_outcome oc;
	struct strbuf err = STRBUF_INIT;
	char *job_id = NULL;
	int rc;

	if (j->slurm)
		rc = rq->collect ? zl_slurm_collect(c, &j->so, !rq->no_wait, &oc, &err)
				 : zl_slurm_launch(c, &j->so, rq->resume != NULL, &oc, &job_id, &err);
	else
		rc = zl_batch_execute(c, &j->ro, &oc, &err);
	if (rc) {
		zl_print_error("%s", err.buf);
		if (j->slurm && !j->existing && rc != -2) {
			/* nothing was submitted: the new batch directory holds nothing worth keeping */
			strbuf_reset(&err);
			if (!zl_remove_tree(c->dir, &err) && zl_verbosity >= 0)
				fprintf(stderr, "zlbench: nothing was submitted; removed '%s'\n", c->dir);
		}
		rc = ZL_EXIT_USAGE;
	} else if (rq->detach) {
		/* nothing has ended yet: the rows come with --collect; one line per job array */
		if (job_id) {
			struct strvec ids = STRVEC_INIT;
			size_t i;

			strvec_split(&ids, job_id, ',');
			for (i = 0; i < ids.nr; i++)
				printf("SLURM_JOB_ID=%s\n", ids.v[i]);
			strvec_clear(&ids);
		}
		if (zl_verbosity >= 0)
			fprintf(stderr, "zlbench: detached; follow the batch with: zlbench batch --collect %s\n", c->dir);
		printf("BATCH_DIR=%s\n", c->dir);
		fflush(stdout);
	} else {
		rc = finish(j, &oc);
	}
	free(job_id);
	strbuf_release(&err);
	return rc;
}

int zl_batch_main(const struct zl_batch_request *rq, const struct zl_batch_invocation *inv)
{
	struct job j;
	struct strbuf err = STRBUF_INIT;
	int code = ZL_EXIT_USAGE, lock_fd = -1;

	memset(&j, 0, sizeof(j));
	j.rq = rq;
	j.inv = inv;
	j.s = inv->s;
	j.existing = rq->resume || rq->collect;
	j.exe = zl_self_exe();
	zl_batch_config_init(&j.c);
	j.ro.self_exe = j.exe;
	j.ro.retry_failed = rq->retry_failed;
	if (check_request(&j))
		goto out;
	if (j.existing)
		code = open_existing(&j) ? ZL_EXIT_USAGE : 0;
	else
		code = new_batch(&j);
	if (code)
		goto out;
	code = ZL_EXIT_USAGE;
	if (j.slurm && (slurm_opts(rq, &j.ro, &j.so) || zl_slurm_check_env(&err))) {
		if (err.len)
			zl_print_error("%s", err.buf);
		goto out;
	}
	if (rq->dry_run) {
		if (j.slurm)
			zl_slurm_print_plan(&j.c, &j.so, j.c.ops_all, stdout);
		else
			print_plan(&j);
		code = ZL_EXIT_OK;
		goto out;
	}
	lock_fd = claim(&j);
	if (lock_fd < 0)
		goto out;
	if (!rq->collect && merge_replay_batch(&j.c))
		goto out;
	announce(&j);
	code = launch(&j);
out:
	if (lock_fd >= 0)
		close(lock_fd);
	zl_batch_config_release(&j.c);
	strbuf_release(&err);
	free(j.exe);
	return code;
}
