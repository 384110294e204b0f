/*
 * How long a batch will take: every op's expected duration (its history, else a guess
 * said as such), the workers' start-ups, the makespan longest-first over the devices
 * (batch_estimate.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "zlbench/batch.h"
#include "zlbench/batch_costs.h"
#include "zlbench/batch_estimate.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/history.h"
#include "zlbench/json.h"
#include "zlbench/stats.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

static const char *const from_names[ZL_EST__COUNT] = {
	[ZL_EST_HISTORY] = "history",
	[ZL_EST_FILE] = "file median",
	[ZL_EST_KNOWN] = "known median",
	[ZL_EST_DEFAULT] = "default",
};

const char *zl_est_from_name(enum zl_est_from f)
{
	return f < ZL_EST__COUNT ? from_names[f] : "?";
}

void zl_batch_estimate_init(struct zl_batch_estimate *e)
{
	memset(e, 0, sizeof(*e));
}

void zl_batch_estimate_release(struct zl_batch_estimate *e)
{
	size_t i;

	for (i = 0; i < e->nr; i++) {
		free(e->v[i].op);
		strvec_clear(&e->v[i].files);
	}
	free(e->v);
	free(e->order);
	free(e->history_error);
	zl_batch_estimate_init(e);
}

struct zl_est_op *zl_batch_estimate_add(struct zl_batch_estimate *e, const char *op, const struct strvec *files)
{
	struct zl_est_op *o;

	ALLOC_GROW(e->v, e->nr + 1, e->alloc);
	o = &e->v[e->nr++];
	memset(o, 0, sizeof(*o));
	o->op = xstrdup(op);
	strvec_init(&o->files);
	if (files)
		strvec_pushv(&o->files, files->v);
	o->expect_s = -1;
	return o;
}

static double median(double *v, size_t n)
{
	zl_stats_sort(v, n);
	return zl_stats_quantile(v, n, 0.5);
}

static int shares_file(const struct zl_est_op *a, const struct zl_est_op *b)
{
	size_t i;

	for (i = 0; i < a->files.nr; i++)
		if (strvec_find(&b->files, a->files.v[i]) >= 0)
			return 1;
	return 0;
}

/* The guess for an op without history: its file's known ops, else every known op, else the default. */
static void guess(struct zl_batch_estimate *e, struct zl_est_op *o, const double *known_all, size_t nknown)
{
	double *peers = xcalloc(e->nr + 1, sizeof(*peers));
	size_t n = 0, i;

	for (i = 0; i < e->nr; i++)
		if (e->v[i].from == ZL_EST_HISTORY && e->v[i].expect_s >= 0 && shares_file(o, &e->v[i]))
			peers[n++] = e->v[i].expect_s;
	if (n) {
		o->from = ZL_EST_FILE;
		o->expect_s = median(peers, n);
		o->peers = n;
	} else if (nknown) {
		o->from = ZL_EST_KNOWN;
		o->expect_s = zl_stats_quantile(known_all, nknown, 0.5);
		o->peers = nknown;
	} else {
		o->from = ZL_EST_DEFAULT;
		o->expect_s = ZL_BATCH_OP_DEFAULT_S;
	}
	free(peers);
}

double zl_batch_lpt(const double *jobs, size_t n, double *load, size_t ndev)
{
	double *sorted, end = 0;
	size_t i, d;

	if (!ndev)
		return NAN;
	sorted = xcalloc(n + 1, sizeof(*sorted));
	memcpy(sorted, jobs, n * sizeof(*sorted));
	zl_stats_sort(sorted, n);
	/* sorted shortest first: take them from the end */
	for (i = n; i-- > 0;) {
		size_t best = 0;

		for (d = 1; d < ndev; d++)
			if (load[d] < load[best])
				best = d;
		load[best] += sorted[i];
	}
	for (d = 0; d < ndev; d++)
		if (load[d] > end)
			end = load[d];
	free(sorted);
	return end;
}

/* The makespan over ndev devices, each starting after one start-up when there are workers. */
static double makespan(const struct zl_batch_estimate *e, const double *jobs, size_t ndev)
{
	double *load = xcalloc(ndev + 1, sizeof(*load));
	double m;
	size_t d;

	for (d = 0; d < ndev; d++)
		load[d] = e->workers ? e->startup_s : 0;
	m = zl_batch_lpt(jobs, e->nr, load, ndev);
	free(load);
	return m;
}

void zl_batch_estimate_compute(struct zl_batch_estimate *e, const struct zl_op_durations *hist)
{
	double *known_all = xcalloc((hist ? hist->nr : 0) + 1, sizeof(*known_all));
	double *jobs = xcalloc(e->nr + 1, sizeof(*jobs));
	size_t nknown = 0, i, j;

	for (i = 0; hist && i < hist->nr; i++)
		if (hist->v[i].mean_s >= 0)
			known_all[nknown++] = hist->v[i].mean_s;
	zl_stats_sort(known_all, nknown);
	for (i = 0; i < e->nr; i++) {
		struct zl_est_op *o = &e->v[i];

		o->expect_s = -1;
		o->from = ZL_EST_DEFAULT;
		for (j = 0; hist && j < hist->nr; j++)
			if (hist->v[j].op && !strcmp(hist->v[j].op, o->op) && hist->v[j].mean_s >= 0) {
				o->expect_s = hist->v[j].mean_s;
				o->runs = hist->v[j].runs;
				o->from = ZL_EST_HISTORY;
			}
	}
	memset(e->by_from, 0, sizeof(e->by_from));
	e->sum_s = 0;
	for (i = 0; i < e->nr; i++) {
		if (e->v[i].from != ZL_EST_HISTORY)
			guess(e, &e->v[i], known_all, nknown);
		e->by_from[e->v[i].from]++;
		jobs[i] = e->v[i].expect_s;
		e->sum_s += jobs[i];
	}
	e->guesses = e->nr - e->by_from[ZL_EST_HISTORY];
	free(e->order);
	e->order = xcalloc(e->nr + 1, sizeof(*e->order));
	zl_batch_order(jobs, e->nr, e->order);
	e->makespan_s = e->devices ? makespan(e, jobs, e->devices) : NAN;
	e->goal_makespan_s = makespan(e, jobs, ZL_BATCH_GOAL_DEVICES);
	free(jobs);
	free(known_all);
}

/* ---- from the history ------------------------------------------------------------------- */

/* The batch directory a run directory of a batch sits in (<batch>/runs/<op>), or NULL. */
static char *batch_of_run(const char *run_dir)
{
	const char *slash = run_dir ? strrchr(run_dir, '/') : NULL;
	char *parent, *base, *batch = NULL;

	if (!slash || slash == run_dir)
		return NULL;
	parent = xstrndup(run_dir, (size_t)(slash - run_dir));
	base = zl_path_base_name(parent);
	if (!strcmp(base, "runs") && strrchr(parent, '/') && strrchr(parent, '/') != parent)
		batch = xstrndup(parent, (size_t)(strrchr(parent, '/') - parent));
	free(base);
	free(parent);
	return batch;
}

/*
 * The median worker start-up of the newest batches of this host and backend that the
 * history names (through their runs' directories), 0 samples when none recorded one.
 */
static void startup_from_history(struct zl_history *h, const char *backend, struct zl_batch_estimate *e)
{
	struct zl_history_filter f = ZL_HISTORY_FILTER_INIT;
	struct zl_history_list l = ZL_HISTORY_LIST_INIT;
	struct strvec seen = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	struct zl_batch_startups su;
	size_t i;
	char host[256] = "";

	zl_batch_startups_init(&su);
	f.backend = backend;
	f.limit = 200;
	if (gethostname(host, sizeof(host) - 1) || zl_history_query(h, &f, &l, &err))
		goto out;
	for (i = 0; i < l.nr && seen.nr < ZL_BATCH_STARTUP_BATCHES; i++) {
		const char *run_host = l.v[i].v[ZL_HCOL_HOST];
		char *batch;

		if (!run_host || strcmp(run_host, host))
			continue;
		batch = batch_of_run(l.v[i].v[ZL_HCOL_RUN_DIR]);
		if (batch && strvec_find(&seen, batch) < 0) {
			strvec_push(&seen, batch);
			zl_batch_startups_read(batch, &su);
		}
		free(batch);
	}
	if (su.nr) {
		e->startup_s = median(su.wall, su.nr);
		e->startup_samples = su.nr;
	}
out:
	zl_batch_startups_release(&su);
	strvec_clear(&seen);
	zl_history_list_release(&l);
	strbuf_release(&err);
}

void zl_batch_estimate_load(struct zl_batch_estimate *e, const struct zl_batch_config *c)
{
	struct zl_op_durations d = ZL_OP_DURATIONS_INIT;
	struct zl_history *h = NULL;
	struct strbuf err = STRBUF_INIT;
	char *path = NULL;
	int have = 0;

	e->workers = zl_batch_uses_workers(c);
	e->devices = zl_batch_is_slurm(c) ? 0 : c->devices.nr;
	e->startup_s = ZL_BATCH_STARTUP_DEFAULT_S;
	e->startup_samples = 0;
	/* never create a database just to read it */
	path = zl_history_disabled() ? NULL : zl_history_default_path();
	if (path && zl_is_file(path)) {
		if (zl_history_open_readonly(path, &h, &err) || zl_history_op_durations(h, c->backend, c->level, &d, &err)) {
			free(e->history_error);
			e->history_error = strbuf_detach(&err, NULL);
		} else {
			have = 1;
			if (e->workers)
				startup_from_history(h, c->backend, e);
		}
	}
	zl_batch_estimate_compute(e, have ? &d : NULL);
	zl_op_durations_release(&d);
	zl_history_close(h);
	strbuf_release(&err);
	free(path);
}

/* ---- the dry run's lines ---------------------------------------------------------------- */

void zl_batch_estimate_op_text(const struct zl_est_op *o, struct strbuf *sb)
{
	struct strbuf how = STRBUF_INIT;
	size_t i;

	switch (o->from) {
	case ZL_EST_HISTORY:
		strbuf_addf(&how, "history (%ld run%s)", o->runs, o->runs == 1 ? "" : "s");
		break;
	case ZL_EST_FILE:
		strbuf_addf(&how, "guess: median of %zu op%s of its file", o->peers, o->peers == 1 ? "" : "s");
		break;
	case ZL_EST_KNOWN:
		strbuf_addf(&how, "guess: median of %zu known op%s", o->peers, o->peers == 1 ? "" : "s");
		break;
	default:
		strbuf_addf(&how, "guess: default %g s", ZL_BATCH_OP_DEFAULT_S);
		break;
	}
	strbuf_addf(sb, "%8.1f s  %-36s ", o->expect_s, how.buf);
	for (i = 0; i < o->files.nr; i++)
		strbuf_addf(sb, "%s%s", i ? "," : "", o->files.v[i]);
	if (!o->files.nr)
		strbuf_addstr(sb, "(no file carries the mark)");
	strbuf_release(&how);
}

void zl_batch_estimate_print_ops(const struct zl_batch_estimate *e, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < e->nr; i++) {
		const struct zl_est_op *o = &e->v[e->order[i]];

		strbuf_reset(&sb);
		zl_batch_estimate_op_text(o, &sb);
		fprintf(out, "  %-24s %s\n", o->op, sb.buf);
	}
	strbuf_release(&sb);
}

void zl_batch_estimate_print_totals(const struct zl_batch_estimate *e, int whole_suite, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;

	fprintf(out, "estimate: %zu operator%s, %zu from their history, %zu guessed (%zu from their file's median, "
		     "%zu from the median of the known ops, %zu at the default of %g s)\n",
		e->nr, e->nr == 1 ? "" : "s", e->by_from[ZL_EST_HISTORY], e->guesses, e->by_from[ZL_EST_FILE],
		e->by_from[ZL_EST_KNOWN], e->by_from[ZL_EST_DEFAULT], ZL_BATCH_OP_DEFAULT_S);
	if (e->history_error)
		fprintf(out, "  history not read: %s\n", e->history_error);
	zl_batch_fmt_seconds(&sb, e->sum_s);
	fprintf(out, "  operators: %s of device time in all\n", sb.buf);
	strbuf_reset(&sb);
	if (e->workers) {
		zl_batch_fmt_seconds(&sb, e->startup_s);
		if (e->startup_samples)
			fprintf(out, "  worker start-up: %s per device (median of %zu in the newest batches of this host)\n",
				sb.buf, e->startup_samples);
		else
			fprintf(out, "  worker start-up: %s per device (default: none recorded in the history's batches)\n",
				sb.buf);
	} else {
		fprintf(out, "  start-up: each operator starts a fresh interpreter, inside its duration\n");
	}
	strbuf_reset(&sb);
	if (e->devices) {
		zl_batch_fmt_seconds(&sb, e->makespan_s);
		fprintf(out, "  makespan on %zu device%s: %s (longest first%s)\n", e->devices, e->devices == 1 ? "" : "s",
			sb.buf, e->workers ? ", after each device's worker start-up" : "");
	} else {
		fprintf(out, "  makespan: as many GPUs at once as Slurm grants (one task per operator)\n");
	}
	strbuf_reset(&sb);
	zl_batch_fmt_seconds(&sb, e->goal_makespan_s);
	fprintf(out, "  on %d devices: %s", ZL_BATCH_GOAL_DEVICES, sb.buf);
	if (whole_suite) {
		strbuf_reset(&sb);
		zl_batch_fmt_seconds(&sb, ZL_BATCH_SUITE_GOAL_S);
		fprintf(out, " (goal for the whole suite on %d GPUs: %s or less: %s)", ZL_BATCH_GOAL_DEVICES, sb.buf,
			e->goal_makespan_s <= ZL_BATCH_SUITE_GOAL_S ? "met" : "not met");
	}
	fputc('\n', out);
	strbuf_release(&sb);
}
