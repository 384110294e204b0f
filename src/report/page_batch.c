/*
 * The batch page: the verdict (how the ops ended, FlagGems against torch over them),
 * the op table (status, speedup, the reason in full), the speedup of every op, the
 * batch's settings and its runs' caliber, the schedule as a timeline per device, the
 * ops_status table, then each op's run (the run page's chart).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/batch.h"
#include "zlbench/batch_schedule.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/progress.h"
#include "zlbench/redact.h"
#include "zlbench/report.h"
#include "zlbench/report/html.h"
#include "zlbench/report/parts.h"
#include "zlbench/report/svg.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* Warning lines shown for the whole batch before "... more" */
#define MAX_BATCH_WARNINGS 60

static const char *const status_classes[] = {
	"passed", "failed", "timeout", "crashed", "interrupted", "preflight_failed", "running",
};

/* The timeline class of a status: "st-<status>", "st-other" for anything else. */
static const char *status_class(const char *status, int shard)
{
	static const char *const plain[] = { "st-passed", "st-failed", "st-timeout", "st-crashed", "st-interrupted",
					     "st-preflight_failed", "st-running" };
	static const char *const light[] = { "st-passed shard", "st-failed shard", "st-timeout shard",
					     "st-crashed shard", "st-interrupted shard", "st-preflight_failed shard",
					     "st-running shard" };
	size_t i;

	for (i = 0; status && i < ZL_ARRAY_SIZE(status_classes); i++)
		if (!strcmp(status, status_classes[i]))
			return shard ? light[i] : plain[i];
	return shard ? "st-other shard" : "st-other";
}

struct op_view {
	const char *op;
	const struct zl_batch_row *last;  /* the op's last row, or NULL: not run */
	struct zl_run run;
	int loaded;
	double speedup;                   /* geomean; NAN without results */
	size_t shapes, losses;
};

struct batch_view {
	const char *dir;
	struct zl_batch_config c;
	struct zl_batch_rows rows;
	struct zl_schedule sched;
	int have_sched;
	struct op_view *ops;
	size_t nops;
	struct strvec notes;
};

static void view_release(struct batch_view *v)
{
	size_t i;

	for (i = 0; i < v->nops; i++)
		zl_run_release(&v->ops[i].run);
	free(v->ops);
	zl_batch_config_release(&v->c);
	zl_batch_rows_release(&v->rows);
	zl_schedule_release(&v->sched);
	strvec_clear(&v->notes);
}

static int view_load(struct batch_view *v, const char *dir, struct strbuf *err)
{
	char *status_path = zl_path_join(dir, ZL_BATCH_STATUS_FILE);
	struct strbuf text = STRBUF_INIT, why = STRBUF_INIT;
	size_t complete, i;
	int rc = -1;

	if (zl_batch_config_load(&v->c, dir, err))
		goto out;
	if (!zl_is_file(status_path) || strbuf_read_file(&text, status_path) < 0)
		strvec_pushf(&v->notes, "no %s: no op has ended yet", ZL_BATCH_STATUS_FILE);
	else if (zl_batch_rows_parse(text.buf, text.len, &v->rows, &complete, &why))
		strvec_pushf(&v->notes, "%s", why.buf);
	strbuf_reset(&why);
	rc = zl_schedule_load(dir, &v->sched, &why);
	v->have_sched = rc == 0;
	if (rc < 0)
		strvec_pushf(&v->notes, "%s", why.buf);
	if (v->sched.skipped)
		strvec_pushf(&v->notes, "%s: %zu %s skipped (cut off or not a schedule line)",
			     ZL_BATCH_SCHEDULE_FILE, v->sched.skipped, v->sched.skipped == 1 ? "line was" : "lines were");
	v->ops = xcalloc(v->c.ops.nr ? v->c.ops.nr : 1, sizeof(*v->ops));
	v->nops = v->c.ops.nr;
	for (i = 0; i < v->nops; i++) {
		struct op_view *o = &v->ops[i];
		const char *rel;

		zl_progress_step("report: loading the batch's runs", i, v->nops);
		o->op = v->c.ops.v[i];
		o->last = zl_batch_rows_last(&v->rows, o->op);
		o->speedup = NAN;
		zl_run_init(&o->run);
		rel = o->last ? o->last->v[ZL_BCOL_RUN_DIR] : NULL;
		if (rel && !zl_path_is_inside(rel)) {
			/* ops_status.csv is read like user input: its runs are the batch's own */
			strvec_pushf(&v->notes, "%s: its run '%s' is not a directory inside the batch: not loaded", o->op,
				     rel);
		} else if (rel) {
			char *run_dir = zl_path_join(dir, rel);

			strbuf_reset(&why);
			if (zl_is_dir(run_dir) && !zl_run_load(run_dir, &o->run, &why))
				o->loaded = 1;
			else
				strvec_pushf(&v->notes, "%s: cannot load its run '%s'%s%s", o->op, rel, why.len ? ": " : "",
					     why.buf);
			free(run_dir);
		}
		if (o->loaded)
			o->speedup = zl_report_op_speedup(&o->run, o->op, &o->shapes, &o->losses);
	}
	rc = 0;
out:
	strbuf_release(&text);
	strbuf_release(&why);
	free(status_path);
	return rc;
}

/* The answer: how many ops ended how, then FlagGems against torch over the ops with results. */
static void verdict(struct strbuf *out, const struct batch_view *v)
{
	struct zl_batch_outcome oc;
	const struct {
		const char *name;
		size_t n;
	} parts[] = {
		{ "passed", 0 }, { "failed", 0 }, { "crashed", 0 }, { "timeout", 0 }, { "preflight_failed", 0 },
		{ "interrupted", 0 }, { "not run", 0 }, { "skipped", 0 },
	};
	size_t counts[ZL_ARRAY_SIZE(parts)], i, n = 0, any = 0;
	double *sp = xcalloc(v->nops ? v->nops : 1, sizeof(*sp));

	memset(&oc, 0, sizeof(oc));
	zl_batch_outcome_count(&v->c, &v->rows, &oc);
	counts[0] = oc.passed;
	counts[1] = oc.failed;
	counts[2] = oc.crashed;
	counts[3] = oc.timeout;
	counts[4] = oc.preflight_failed;
	counts[5] = oc.interrupted;
	counts[6] = oc.not_run;
	counts[7] = oc.skipped;   /* a skip's reason is in the ops table */
	zl_report_verdict_begin(out);
	zl_report_count(out, oc.total, "op", "ops", NULL);
	strbuf_addch(out, ':');
	for (i = 0; i < ZL_ARRAY_SIZE(parts); i++)
		if (counts[i]) {
			strbuf_addf(out, "%s <span class=\"v-%s\">%zu %s</span>", any++ ? "," : "", parts[i].name,
				    counts[i], parts[i].name);
		}
	strbuf_addstr(out, ". ");
	for (i = 0; i < v->nops; i++)
		if (isfinite(v->ops[i].speedup))
			sp[n++] = v->ops[i].speedup;
	if (n) {
		zl_report_speedups(out, sp, n, "op", "ops");
		strbuf_addstr(out, " (each op's geomean over its shapes).");
	}
	zl_report_verdict_end(out);
	free(sp);
}

static void settings(struct strbuf *out, const struct batch_view *v)
{
	struct strbuf t = STRBUF_INIT;
	size_t i;

	zl_html_cal_begin(out);
	zl_html_cal(out, "backend", v->c.backend);
	zl_html_cal(out, "launcher", v->c.launcher ? v->c.launcher : "local");
	for (i = 0; i < v->c.devices.nr; i++)
		strbuf_addf(&t, "%s%s", i ? ", " : "", v->c.devices.v[i]);
	zl_html_cal(out, "devices", t.len ? t.buf : NULL);
	zl_html_cal(out, "level", v->c.level);
	zl_html_cal(out, "shape file", v->c.shape_file ? v->c.shape_file : v->c.shape_mode_file ? NULL : "upstream");
	strbuf_reset(&t);
	if (v->c.timeout_s > 0)
		strbuf_addf(&t, "%g s per op", v->c.timeout_s);
	zl_html_cal(out, "timeout", t.len ? t.buf : "none");
	strbuf_reset(&t);
	if (v->c.warmup_devices)
		strbuf_addf(&t, "%d devices", v->c.warmup_devices);
	zl_html_cal(out, "warm-up sharding", t.len ? t.buf : "off");
	zl_html_cal(out, "FlagGems dir", v->c.flaggems_dir);
	zl_html_cal(out, "created", v->c.created_at);
	strbuf_reset(&t);
	for (i = 0; i < v->c.argv.nr; i++) {
		strbuf_addstr(&t, i ? " " : "");
		zl_redact_add(&t, v->c.argv.v[i]); /* a batch.json of an older zlbench may hold a secret */
	}
	zl_html_cal(out, "command", t.len ? t.buf : NULL);
	zl_html_cal_end(out);
	strbuf_release(&t);
}

/*
 * Each distinct warning of the runs once, with the ops it applies to ("mm, add and 3
 * more: ..."), in first-seen order; at most MAX_BATCH_WARNINGS lines.
 */
static void group_warnings(const struct zl_run *const *runs, const char *const *names, size_t n,
			   struct strvec *out)
{
	struct strvec texts = STRVEC_INIT;
	struct strvec *who = NULL;
	size_t alloc = 0, i, j, dropped = 0;

	for (i = 0; i < n; i++) {
		struct strvec w = STRVEC_INIT;

		zl_report_run_warnings(runs[i], &w);
		for (j = 0; j < w.nr; j++) {
			long k = strvec_find(&texts, w.v[j]);

			if (k < 0) {
				strvec_push(&texts, w.v[j]);
				ALLOC_GROW(who, texts.nr, alloc);
				strvec_init(&who[texts.nr - 1]);
				k = (long)texts.nr - 1;
			}
			if (strvec_find(&who[k], names[i]) < 0)
				strvec_push(&who[k], names[i]);
		}
		strvec_clear(&w);
	}
	for (i = 0; i < texts.nr; i++) {
		struct strbuf line = STRBUF_INIT;

		for (j = 0; j < who[i].nr && j < 4; j++)
			strbuf_addf(&line, "%s%s", j ? ", " : "", who[i].v[j]);
		if (who[i].nr > 4)
			strbuf_addf(&line, " and %zu more", who[i].nr - 4);
		if (out->nr < MAX_BATCH_WARNINGS)
			strvec_pushf(out, "%s: %s", line.buf, texts.v[i]);
		else
			dropped++;
		strbuf_release(&line);
		strvec_clear(&who[i]);
	}
	if (dropped)
		strvec_pushf(out, "... and %zu more distinct warnings (each op's section below has its own)", dropped);
	free(who);
	strvec_clear(&texts);
}

static void caliber(struct strbuf *out, const struct batch_view *v)
{
	const struct zl_run **runs = xcalloc(v->nops ? v->nops : 1, sizeof(*runs));
	const char **names = xcalloc(v->nops ? v->nops : 1, sizeof(*names));
	struct strvec spread = STRVEC_INIT, warnings = STRVEC_INIT;
	size_t n = 0, i;

	for (i = 0; i < v->nops; i++)
		if (v->ops[i].loaded) {
			runs[n] = &v->ops[i].run;
			names[n++] = v->ops[i].op;
		}
	strbuf_addstr(out, "<h2>Caliber</h2>\n");
	settings(out, v);
	if (n) {
		strbuf_addstr(out, "<h3>");
		zl_html_textf(out, "The runs' caliber (of %s's run; %zu %s loaded)", names[0], n, zl_plural(n, "run", "runs"));
		strbuf_addstr(out, "</h3>\n");
		zl_report_caliber(out, runs[0]);
		zl_report_caliber_spread(runs, names, n, &spread);
		if (spread.nr)
			zl_html_notes(out, "warn", "Where the runs' caliber differs", &spread);
		else if (n > 1)
			zl_html_elem(out, "p", "class=\"sub\"", "Every run of the batch shares this caliber (run ids, "
				     "start times and statuses aside).");
	}
	for (i = 0; i < v->notes.nr; i++)
		strvec_push(&warnings, v->notes.v[i]);
	group_warnings(runs, names, n, &warnings);
	zl_html_notes(out, "warn", "Warnings", &warnings);
	strvec_clear(&spread);
	strvec_clear(&warnings);
	free(runs);
	free(names);
}

static int by_speedup(const void *x, const void *y)
{
	const struct op_view *a = *(const struct op_view *const *)x, *b = *(const struct op_view *const *)y;
	int na = !isfinite(a->speedup), nb = !isfinite(b->speedup);

	if (na != nb)
		return na - nb;
	if (!na && a->speedup != b->speedup)
		return a->speedup < b->speedup ? -1 : 1;
	return strcmp(a->op, b->op);
}

/* A reason in full: inline when short, else its first line and the rest on click. */
static void reason_cell(struct strbuf *out, const char *reason)
{
	size_t first;

	if (!reason || !*reason) {
		zl_html_td(out, "", NULL);
		return;
	}
	first = strcspn(reason, "\n");
	if (first > 90) {
		first = 90;
		/* never in the middle of a UTF-8 character */
		while (first > 0 && ((unsigned char)reason[first] & 0xc0) == 0x80)
			first--;
	}
	strbuf_addstr(out, "<td class=\"wrap\">");
	if (!reason[first]) {
		zl_html_escape(out, reason);
	} else {
		strbuf_addstr(out, "<details><summary>");
		zl_html_escape_len(out, reason, first);
		strbuf_addstr(out, "\xe2\x80\xa6</summary><pre class=\"why\">");
		zl_html_escape(out, reason);
		strbuf_addstr(out, "</pre></details>");
	}
	strbuf_addstr(out, "</td>");
}

/* The ops that did not pass first, then by speedup (losses first), then those without results. */
static int by_attention(const void *x, const void *y)
{
	const struct op_view *a = *(const struct op_view *const *)x, *b = *(const struct op_view *const *)y;
	const char *sa = a->last ? a->last->v[ZL_BCOL_STATUS] : NULL, *sb = b->last ? b->last->v[ZL_BCOL_STATUS] : NULL;
	int pa = sa && !strcmp(sa, "passed"), pb = sb && !strcmp(sb, "passed");

	if (pa != pb)
		return pa - pb;
	return by_speedup(x, y);
}

/* The op table the page opens with: status, speedup, attempts and the reason in full. */
static void op_table(struct strbuf *out, const struct batch_view *v)
{
	static const char *const heads[] = { "op", "status", "FlagGems speedup", "shapes slower", "attempts",
					     "reason" };
	struct op_view **ord = xcalloc(v->nops ? v->nops : 1, sizeof(*ord));
	struct strbuf id = STRBUF_INIT;
	size_t i, k;

	for (i = 0; i < v->nops; i++)
		ord[i] = &v->ops[i];
	if (v->nops)
		qsort(ord, v->nops, sizeof(*ord), by_attention);
	strbuf_addstr(out, "<h2>Ops</h2>\n");
	zl_html_table_begin(out, "the ops that did not pass first, then by speedup, losses first; a long reason "
			    "opens on click", heads, ZL_ARRAY_SIZE(heads));
	for (i = 0; i < v->nops; i++) {
		const struct op_view *o = ord[i];
		const char *status = o->last ? o->last->v[ZL_BCOL_STATUS] : NULL;
		char buf[48];
		size_t attempts = 0;

		if (i)
			zl_html_tr(out);
		strbuf_reset(&id);
		zl_report_id(&id, "op-", o->op);
		strbuf_addf(out, "<td><a href=\"#%s\">", id.buf);
		zl_html_escape(out, o->op);
		strbuf_addstr(out, "</a></td>");
		zl_html_td(out, status ? status : "not run", status ? zl_report_status_class(status) : "v-missing");
		zl_report_ratio(buf, o->speedup);
		zl_html_td(out, buf, !isfinite(o->speedup) ? "n" : o->speedup < 1 ? "n v-slower" : "n v-faster");
		if (o->shapes)
			snprintf(buf, sizeof(buf), "%zu of %zu", o->losses, o->shapes);
		else
			snprintf(buf, sizeof(buf), "-");
		zl_html_td(out, buf, "n");
		for (k = 0; k < v->rows.nr; k++)
			attempts += v->rows.v[k].v[ZL_BCOL_OP] && !strcmp(v->rows.v[k].v[ZL_BCOL_OP], o->op);
		snprintf(buf, sizeof(buf), "%zu", attempts);
		zl_html_td(out, buf, "n");
		reason_cell(out, o->last ? o->last->v[ZL_BCOL_REASON] : status ? NULL : "not run yet");
	}
	zl_html_table_end(out);
	strbuf_release(&id);
	free(ord);
}

static void overview(struct strbuf *out, struct op_view *const *sorted, size_t n)
{
	struct zl_rowchart c;
	struct strbuf tip = STRBUF_INIT, cap = STRBUF_INIT;
	size_t i, losing = 0, with = 0;

	strbuf_addstr(out, "<h2>Speedup per op</h2>\n");
	zl_rowchart_init(&c, "Geomean speedup of FlagGems over torch per op");
	zl_rowchart_panel(&c, 0, "geomean speedup over the op's shapes (log)", 1, 1.0, 1);
	for (i = 0; i < n; i++) {
		const struct op_view *o = sorted[i];
		const char *status = o->last ? o->last->v[ZL_BCOL_STATUS] : "not run";
		char ratio[32], note[64];
		struct zl_chart_row *row;

		strbuf_reset(&tip);
		zl_report_ratio(ratio, o->speedup);
		if (isfinite(o->speedup)) {
			with++;
			losing += o->speedup < 1;
			snprintf(note, sizeof(note), "%s %zu/%zu", ratio, o->losses, o->shapes);
			strbuf_addf(&tip, "%s: geomean speedup %s over %zu shapes, FlagGems slower on %zu; %s", o->op, ratio,
				    o->shapes, o->losses, status ? status : "?");
			row = zl_rowchart_add(&c, o->op, note, o->speedup < 1 ? "nl" : "nw", tip.buf);
			zl_row_mark(row, 0, ZL_MARK_BAR, o->speedup, NAN, o->speedup < 1 ? "l" : "w");
		} else {
			strbuf_addf(&tip, "%s: no speedup (%s)", o->op, status ? status : "?");
			zl_rowchart_add(&c, o->op, status ? status : "?", "nu", tip.buf);
		}
	}
	zl_html_figure_begin(out, "speedup-per-op");
	zl_rowchart_svg(&c, out);
	strbuf_addf(&cap, "Geomean of FlagGems' speedup (torch latency / FlagGems latency) over each op's shapes, log "
		    "scale, sorted so the losses come first: %zu of %zu %s with results lose to torch (red). The note "
		    "counts the shapes where FlagGems is slower; ops without results are listed last with their status.",
		    losing, with, zl_plural(with, "op", "ops"));
	zl_html_figure_end(out, cap.buf);
	zl_rowchart_release(&c);
	strbuf_release(&tip);
	strbuf_release(&cap);
}

/* One bar per child from schedule.jsonl (warm-up shards lighter); returns the bars added. */
static size_t spans_from_schedule(struct zl_timeline *t, const struct zl_schedule *sched)
{
	struct strbuf lane = STRBUF_INIT, tip = STRBUF_INIT, label = STRBUF_INIT;
	size_t i;

	for (i = 0; i < sched->nr; i++) {
		const struct zl_sched_entry *e = &sched->v[i];
		int shard = e->shard > 0;
		char dur[32];

		strbuf_reset(&lane);
		strbuf_reset(&tip);
		strbuf_reset(&label);
		strbuf_addf(&lane, "device %s", e->device ? e->device : "?");
		strbuf_addstr(&label, e->op);
		if (shard)
			strbuf_addf(&label, " shard %d", e->shard);
		zl_report_duration(dur, e->end_epoch - e->start_epoch);
		strbuf_addf(&tip, "%s attempt %d, %s%s on %s: %s", e->op, e->attempt, e->role ? e->role : "run",
			    shard ? "" : "", lane.buf, e->status ? e->status : "?");
		if (shard)
			strbuf_addf(&tip, " (warm-up shard %d)", e->shard);
		strbuf_addf(&tip, ", %s", dur);
		if (e->exit_code >= 0)
			strbuf_addf(&tip, ", exit %d", e->exit_code);
		zl_timeline_add(t, zl_timeline_lane(t, lane.buf), e->start_epoch, e->end_epoch, label.buf, tip.buf,
				status_class(e->status, shard));
	}
	strbuf_release(&lane);
	strbuf_release(&tip);
	strbuf_release(&label);
	return sched->nr;
}

/* A batch without schedule.jsonl: one bar per ops_status.csv row, from its times; returns the bars added. */
static size_t spans_from_status(struct zl_timeline *t, const struct zl_batch_rows *rows)
{
	struct strbuf lane = STRBUF_INIT, tip = STRBUF_INIT;
	size_t i, spans = 0;

	for (i = 0; i < rows->nr; i++) {
		const struct zl_batch_row *r = &rows->v[i];
		double end = zl_report_parse_time(r->v[ZL_BCOL_FINISHED_AT]);
		double start = zl_report_parse_time(r->v[ZL_BCOL_STARTED_AT]);
		double wall = r->v[ZL_BCOL_WALL_S] ? strtod(r->v[ZL_BCOL_WALL_S], NULL) : NAN;
		double dur = r->v[ZL_BCOL_DURATION_S] ? strtod(r->v[ZL_BCOL_DURATION_S], NULL) : NAN;
		char d[32];

		if (isfinite(end) && isfinite(wall))
			start = end - wall;
		else if (!isfinite(end) && isfinite(start))
			end = start + (isfinite(wall) ? wall : dur);
		if (!isfinite(start) || !isfinite(end) || !r->v[ZL_BCOL_OP])
			continue;
		strbuf_reset(&lane);
		strbuf_reset(&tip);
		strbuf_addf(&lane, "device %s", r->v[ZL_BCOL_DEVICE] ? r->v[ZL_BCOL_DEVICE] : "?");
		zl_report_duration(d, end - start);
		strbuf_addf(&tip, "%s attempt %s on %s: %s, %s", r->v[ZL_BCOL_OP],
			    r->v[ZL_BCOL_ATTEMPT] ? r->v[ZL_BCOL_ATTEMPT] : "?", lane.buf,
			    r->v[ZL_BCOL_STATUS] ? r->v[ZL_BCOL_STATUS] : "?", d);
		zl_timeline_add(t, zl_timeline_lane(t, lane.buf), start, end, r->v[ZL_BCOL_OP], tip.buf,
				status_class(r->v[ZL_BCOL_STATUS], 0));
		spans++;
	}
	strbuf_release(&lane);
	strbuf_release(&tip);
	return spans;
}

static void timeline(struct strbuf *out, const struct batch_view *v)
{
	struct zl_timeline t;
	struct strbuf lane = STRBUF_INIT, cap = STRBUF_INIT;
	size_t i, spans;

	strbuf_addstr(out, "<h2>Schedule</h2>\n");
	zl_timeline_init(&t, "What ran on which device, when, and how it ended");
	for (i = 0; i < v->c.devices.nr; i++) {
		strbuf_reset(&lane);
		strbuf_addf(&lane, "device %s", v->c.devices.v[i]);
		zl_timeline_lane(&t, lane.buf);
	}
	spans = v->have_sched ? spans_from_schedule(&t, &v->sched) : spans_from_status(&t, &v->rows);
	strbuf_addstr(out, "<div class=\"legend\">");
	for (i = 0; i < ZL_ARRAY_SIZE(status_classes) - 1; i++)
		strbuf_addf(out, "<span class=\"c-%s\">\xe2\x96\xa0 %s</span> ", status_classes[i], status_classes[i]);
	strbuf_addstr(out, "</div>\n");
	zl_html_figure_begin(out, "schedule");
	zl_timeline_svg(&t, out);
	if (v->have_sched)
		strbuf_addf(&cap, "Every `zlbench run` child the batch started (%zu, warm-up shards lighter), from %s: "
			    "one lane per device, a bar from the child's start to its end as the scheduler saw them, "
			    "coloured by how it ended; hover a bar for the op, attempt and duration.", spans,
			    ZL_BATCH_SCHEDULE_FILE);
	else
		strbuf_addf(&cap, "Each op's attempt (%zu) from %s (this batch has no %s: written before it existed, "
			    "or run through Slurm): its end and wall time as recorded, in whole seconds; warm-up "
			    "shards are not shown.", spans, ZL_BATCH_STATUS_FILE, ZL_BATCH_SCHEDULE_FILE);
	zl_html_figure_end(out, cap.buf);
	zl_timeline_release(&t);
	strbuf_release(&lane);
	strbuf_release(&cap);
}

static void status_table(struct strbuf *out, const struct batch_view *v)
{
	static const enum zl_batch_col cols[] = {
		ZL_BCOL_OP, ZL_BCOL_ATTEMPT, ZL_BCOL_STATUS, ZL_BCOL_EXIT_CODE, ZL_BCOL_DEVICE, ZL_BCOL_TIMER,
		ZL_BCOL_DURATION_S, ZL_BCOL_WALL_S, ZL_BCOL_STARTED_AT, ZL_BCOL_FINISHED_AT, ZL_BCOL_WARMUP_SHARDS,
		ZL_BCOL_RUN_DIR, ZL_BCOL_REASON,
	};
	const char *heads[ZL_ARRAY_SIZE(cols)];
	size_t i, c;

	for (c = 0; c < ZL_ARRAY_SIZE(cols); c++)
		heads[c] = zl_batch_columns[cols[c]];
	strbuf_addstr(out, "<h2>ops_status.csv</h2>\n");
	zl_html_table_begin(out, "one row per attempt, in the order they ended", heads, ZL_ARRAY_SIZE(heads));
	for (i = 0; i < v->rows.nr; i++) {
		const struct zl_batch_row *r = &v->rows.v[i];

		if (i)
			zl_html_tr(out);
		for (c = 0; c < ZL_ARRAY_SIZE(cols); c++) {
			char cls[48];
			const char *val = r->v[cols[c]];

			if (cols[c] == ZL_BCOL_STATUS && val)
				snprintf(cls, sizeof(cls), "%s", zl_report_status_class(val));
			else if (cols[c] == ZL_BCOL_REASON)
				snprintf(cls, sizeof(cls), "wrap");
			else if (cols[c] == ZL_BCOL_DURATION_S || cols[c] == ZL_BCOL_WALL_S || cols[c] == ZL_BCOL_EXIT_CODE)
				snprintf(cls, sizeof(cls), "n");
			else
				cls[0] = '\0';
			zl_html_td(out, val, cls[0] ? cls : NULL);
		}
	}
	zl_html_table_end(out);
}

static void op_sections(struct strbuf *out, struct op_view *const *sorted, size_t n)
{
	struct strbuf id = STRBUF_INIT;
	size_t i;

	strbuf_addstr(out, "<h2>Each op</h2>\n");
	for (i = 0; i < n; i++) {
		const struct op_view *o = sorted[i];
		struct strvec w = STRVEC_INIT;
		const char *status = o->last ? o->last->v[ZL_BCOL_STATUS] : "not run";

		strbuf_reset(&id);
		zl_report_id(&id, "op-", o->op);
		strbuf_addf(out, "<h3 id=\"%s\">", id.buf);
		zl_html_escape(out, o->op);
		strbuf_addf(out, " <span class=\"%s\">", zl_report_status_class(status));
		zl_html_escape(out, status ? status : "?");
		strbuf_addstr(out, "</span></h3>\n");
		if (!o->loaded) {
			const char *reason = o->last ? o->last->v[ZL_BCOL_REASON] : NULL;

			zl_html_elem(out, "p", "class=\"sub\"", reason ? reason : "no run directory to show");
			continue;
		}
		zl_report_caliber_line(out, &o->run);
		zl_report_run_warnings(&o->run, &w);
		zl_html_notes(out, "warn", NULL, &w);
		strvec_clear(&w);
		strbuf_reset(&id);
		zl_report_id(&id, "chart-", o->op);
		if (!zl_report_op_chart(out, &o->run, o->op, id.buf))
			zl_html_elem(out, "p", "class=\"sub\"", "no results for this op in its run");
	}
	strbuf_release(&id);
}

int zl_report_batch_page(const char *batch_dir, const char *now, struct strbuf *out, struct strbuf *err)
{
	struct batch_view v;
	struct op_view **sorted;
	struct strbuf title = STRBUF_INIT, sub = STRBUF_INIT;
	const char *base;
	size_t i;

	memset(&v, 0, sizeof(v));
	zl_batch_config_init(&v.c);
	zl_schedule_init(&v.sched);
	strvec_init(&v.notes);
	if (view_load(&v, batch_dir, err)) {
		view_release(&v);
		return -1;
	}
	sorted = xcalloc(v.nops ? v.nops : 1, sizeof(*sorted));
	for (i = 0; i < v.nops; i++)
		sorted[i] = &v.ops[i];
	if (v.nops)
		qsort(sorted, v.nops, sizeof(*sorted), by_speedup);
	base = strrchr(v.c.dir ? v.c.dir : batch_dir, '/');
	strbuf_addf(&title, "zlbench batch: %s", base && base[1] ? base + 1 : batch_dir);
	strbuf_addf(&sub, "%s \xc2\xb7 %zu %s \xc2\xb7 %zu %s \xc2\xb7 level %s \xc2\xb7 created %s",
		    v.c.backend ? v.c.backend : "?", v.nops, zl_plural(v.nops, "op", "ops"), v.c.devices.nr,
		    zl_plural(v.c.devices.nr, "device", "devices"), v.c.level ? v.c.level : "?",
		    v.c.created_at ? v.c.created_at : "?");
	zl_html_page_begin(out, title.buf, NULL);
	verdict(out, &v);
	zl_html_elem(out, "p", "class=\"sub\"", sub.buf);
	op_table(out, &v);
	overview(out, sorted, v.nops);
	caliber(out, &v);
	timeline(out, &v);
	status_table(out, &v);
	op_sections(out, sorted, v.nops);
	zl_html_page_end(out, now);
	free(sorted);
	view_release(&v);
	strbuf_release(&title);
	strbuf_release(&sub);
	return 0;
}
