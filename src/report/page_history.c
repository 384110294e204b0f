/*
 * The history page: the runs of a history query in time order; per op the geomean
 * speedup over runs and, per shape, the torch and FlagGems latency over runs, with
 * the caliber changes between two runs as breaks and the points where a series
 * shifted beyond its noise (zl_step_detect) marked.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/history.h"
#include "zlbench/progress.h"
#include "zlbench/report.h"
#include "zlbench/report/html.h"
#include "zlbench/report/parts.h"
#include "zlbench/report/svg.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* What makes two runs' numbers incomparable: a change of any of these is a break in the trend. */
static const struct {
	const char *label;      /* short, drawn at the break */
	const char *name;       /* in the break's tooltip */
	const char *path;       /* in run_identity.json */
} break_fields[] = {
	{ "commit", "FlagGems commit", "flaggems.commit" },
	{ "timer", "timer plan", "timer.plan" },
	{ "timer", "timer used", "timer.used" },
	{ "noise", "noise target", "timer.noise_target" },
	{ "device", "device", "devices.0.name" },
	{ "backend", "backend", "backend" },
	{ "level", "level", "level" },
	{ "shapes", "shape file sha256", "shape_file.sha256" },
	{ "mode", "FlagGems mode", "flaggems_mode" },
	{ "triton", "Triton version", "vendor_guard.triton_version" },
	{ "torch", "torch version", "vendor_guard.torch_version" },
	{ "tuner", "tuner cache mode", "tuner_cache.mode" },
	{ "autotune", "autotune mode", "autotune.mode" },
};

/* The value of a break field as text ("" when absent); devices.0.name reads the first device. */
static void break_value(struct strbuf *sb, const struct zl_run *run, const char *path)
{
	const cJSON *it;

	strbuf_reset(sb);
	if (!strcmp(path, "devices.0.name"))
		it = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(zl_json_path(run->identity, "devices"), 0),
						      "name");
	else
		it = zl_json_path(run->identity, path);
	if (cJSON_IsString(it))
		strbuf_addstr(sb, it->valuestring);
	else if (it && !cJSON_IsNull(it))
		zl_json_canonical(sb, it);
}

/* Breaks between consecutive runs of one op: label (first change) and tooltip (every change). */
static int run_break(const struct zl_run *prev, const struct zl_run *cur, struct strbuf *label, struct strbuf *tip)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	size_t i;

	strbuf_reset(label);
	strbuf_reset(tip);
	for (i = 0; i < ZL_ARRAY_SIZE(break_fields); i++) {
		break_value(&a, prev, break_fields[i].path);
		break_value(&b, cur, break_fields[i].path);
		if (!strcmp(a.buf, b.buf))
			continue;
		if (!label->len)
			strbuf_addstr(label, break_fields[i].label);
		strbuf_addf(tip, "%s%s: %s \xe2\x86\x92 %s", tip->len ? "; " : "caliber change: ", break_fields[i].name,
			    a.len ? a.buf : ZL_HTML_NOT_RECORDED, b.len ? b.buf : ZL_HTML_NOT_RECORDED);
	}
	strbuf_release(&a);
	strbuf_release(&b);
	return label->len > 0;
}

/* "11-29 10:00" from "2026-11-29T10:00:00Z". */
static void short_time(struct strbuf *sb, const char *iso)
{
	if (iso && strlen(iso) >= 16)
		strbuf_addf(sb, "%.5s %.5s", iso + 5, iso + 11);
	else
		strbuf_addstr(sb, "?");
}

/* One shape of one op across its runs. */
struct series_key {
	char *dtype, *shape;
	int occurrence;
};

static void add_breaks(struct zl_trend *t, struct zl_run *const *runs, size_t n)
{
	struct strbuf label = STRBUF_INIT, tip = STRBUF_INIT;
	size_t i;

	for (i = 1; i < n; i++)
		if (run_break(runs[i - 1], runs[i], &label, &tip))
			zl_trend_break(t, i, label.buf, tip.buf);
	strbuf_release(&label);
	strbuf_release(&tip);
}

static void set_xlabels(struct zl_trend *t, struct zl_run *const *runs, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		strbuf_reset(&sb);
		short_time(&sb, runs[i]->started_at);
		strvec_push(&t->xlabels, sb.buf);
	}
	strbuf_release(&sb);
}

static size_t op_speedup_trend(struct strbuf *out, const char *op, struct zl_run *const *runs, size_t n)
{
	double *y = xcalloc(n, sizeof(*y));
	struct zl_trend t;
	struct zl_trend_series *s;
	struct strbuf title = STRBUF_INIT, cap = STRBUF_INIT, id = STRBUF_INIT;
	size_t i, shifts;

	for (i = 0; i < n; i++) {
		size_t shapes, losses;
		y[i] = zl_report_op_speedup(runs[i], op, &shapes, &losses);
	}
	strbuf_addf(&title, "%s: geomean speedup of FlagGems over torch per run", op);
	zl_trend_init(&t, title.buf, n, 1, 720);
	t.ylabel = "geomean speedup (log)";
	set_xlabels(&t, runs, n);
	s = zl_trend_series(&t, "FlagGems speedup", "g", y);
	s->up_good = 1;
	shifts = zl_step_detect(y, n, ZL_STEP_FLOOR, s->shift);
	add_breaks(&t, runs, n);
	zl_report_id(&id, "trend-", op);
	zl_html_figure_begin(out, id.buf);
	zl_trend_svg(&t, out);
	strbuf_addf(&cap, "%s over %zu runs, oldest first: the geomean of FlagGems' speedup over the op's shapes "
		    "(log scale). Dashed amber lines are caliber changes between two runs (hover for what changed); "
		    "triangles mark the %zu points where the series shifted beyond its noise (green better, red worse).",
		    op, n, shifts);
	zl_html_figure_end(out, cap.buf);
	zl_trend_release(&t);
	strbuf_release(&title);
	strbuf_release(&cap);
	strbuf_release(&id);
	free(y);
	return shifts;
}

static void keys_of(const char *op, struct zl_run *const *runs, size_t n, struct series_key **keys, size_t *nkeys)
{
	size_t i, j, k, alloc = 0;

	*keys = NULL;
	*nkeys = 0;
	for (i = 0; i < n; i++)
		for (j = 0; j < runs[i]->nr_results; j++) {
			const struct zl_result *r = &runs[i]->results[j];
			int seen = 0;

			if (r->side != ZL_SIDE_GEMS || strcmp(r->op, op))
				continue;
			for (k = 0; k < *nkeys && !seen; k++)
				seen = !strcmp((*keys)[k].dtype, r->dtype) && !strcmp((*keys)[k].shape, r->shape) &&
				       (*keys)[k].occurrence == r->occurrence;
			if (seen)
				continue;
			ALLOC_GROW(*keys, *nkeys + 1, alloc);
			(*keys)[*nkeys].dtype = xstrdup(r->dtype);
			(*keys)[*nkeys].shape = xstrdup(r->shape);
			(*keys)[(*nkeys)++].occurrence = r->occurrence;
		}
}

static size_t shape_trend(struct strbuf *out, const char *op, const struct series_key *key, struct zl_run *const *runs,
			  size_t n)
{
	double *y[2];
	static const char *const names[2] = { "torch", "FlagGems" };
	static const char *const cls[2] = { "t", "g" };
	struct zl_trend t;
	struct strbuf title = STRBUF_INIT, cap = STRBUF_INIT;
	size_t i, shifts = 0, points = 0;
	int s;

	for (s = 0; s < 2; s++) {
		y[s] = xcalloc(n, sizeof(*y[s]));
		for (i = 0; i < n; i++) {
			const struct zl_result *r = zl_run_find(runs[i], op, key->dtype, key->shape, key->occurrence,
							       s ? ZL_SIDE_GEMS : ZL_SIDE_TORCH);
			y[s][i] = r && r->latency_ms > 0 ? r->latency_ms : NAN;
			points += s && isfinite(y[s][i]);
		}
	}
	zl_report_dtype(&title, key->dtype);
	strbuf_addch(&title, ' ');
	zl_report_shape(&title, key->shape);
	if (key->occurrence > 1)
		strbuf_addf(&title, " #%d", key->occurrence);
	zl_trend_init(&t, title.buf, n, 1, 400);
	t.ylabel = "ms (log)";
	set_xlabels(&t, runs, n);
	for (s = 0; s < 2; s++) {
		struct zl_trend_series *se = zl_trend_series(&t, names[s], cls[s], y[s]);
		shifts += zl_step_detect(y[s], n, ZL_STEP_FLOOR, se->shift);
	}
	add_breaks(&t, runs, n);
	strbuf_addstr(out, "<figure class=\"small\">");
	zl_trend_svg(&t, out);
	strbuf_addf(&cap, "%s %s: latency over %zu runs (log), torch grey, FlagGems blue; %zu shift%s beyond noise.", op,
		    title.buf, points, shifts, shifts == 1 ? "" : "s");
	zl_html_elem(out, "figcaption", NULL, cap.buf);
	strbuf_addstr(out, "</figure>\n");
	zl_trend_release(&t);
	strbuf_release(&title);
	strbuf_release(&cap);
	free(y[0]);
	free(y[1]);
	return shifts;
}

static int has_op(const struct zl_run *run, const char *op)
{
	size_t i;

	if (run->op)
		return !strcmp(run->op, op);
	for (i = 0; i < run->nr_results; i++)
		if (!strcmp(run->results[i].op, op))
			return 1;
	return 0;
}

static void op_section(struct strbuf *out, const char *op, struct zl_run *const *all, size_t nall)
{
	struct zl_run **runs = xcalloc(nall ? nall : 1, sizeof(*runs));
	struct series_key *keys;
	struct strvec changes = STRVEC_INIT;
	struct strbuf label = STRBUF_INIT, tip = STRBUF_INIT, id = STRBUF_INIT;
	size_t n = 0, i, nkeys, shifts = 0;

	for (i = 0; i < nall; i++)
		if (has_op(all[i], op))
			runs[n++] = all[i];
	zl_report_id(&id, "op-", op);
	strbuf_addf(out, "<h2 id=\"%s\">", id.buf);
	zl_html_escape(out, op);
	strbuf_addstr(out, "</h2>\n");
	for (i = 1; i < n; i++)
		if (run_break(runs[i - 1], runs[i], &label, &tip)) {
			struct strbuf when = STRBUF_INIT;

			short_time(&when, runs[i]->started_at);
			strvec_pushf(&changes, "before %s (%s): %s", runs[i]->run_id, when.buf,
				     tip.buf + strlen("caliber change: "));
			strbuf_release(&when);
		}
	zl_html_notes(out, "warn", "Caliber changes (breaks in every trend below)", &changes);
	shifts += op_speedup_trend(out, op, runs, n);
	keys_of(op, runs, n, &keys, &nkeys);
	strbuf_addstr(out, "<div class=\"grid\">\n");
	for (i = 0; i < nkeys; i++)
		shifts += shape_trend(out, op, &keys[i], runs, n);
	strbuf_addstr(out, "</div>\n");
	strbuf_addstr(out, "<p class=\"sub\">");
	zl_html_textf(out, "%s: %zu runs, %zu shapes, %zu caliber changes, %zu shifts beyond noise.", op, n, nkeys,
		      changes.nr, shifts);
	strbuf_addstr(out, "</p>\n");
	for (i = 0; i < nkeys; i++) {
		free(keys[i].dtype);
		free(keys[i].shape);
	}
	free(keys);
	free(runs);
	strvec_clear(&changes);
	strbuf_release(&label);
	strbuf_release(&tip);
	strbuf_release(&id);
}

static void runs_table(struct strbuf *out, struct zl_run *const *runs, size_t n)
{
	static const char *const heads[] = { "started", "run", "op", "device", "timer", "FlagGems commit", "status",
					     "shapes", "FlagGems speedup" };
	size_t i;

	strbuf_addstr(out, "<h2>Runs</h2>\n");
	zl_html_table_begin(out, "oldest first", heads, ZL_ARRAY_SIZE(heads));
	for (i = 0; i < n; i++) {
		const struct zl_run *r = runs[i];
		const char *used = zl_json_path_string(r->identity, "timer.used");
		size_t shapes = 0, losses = 0;
		double g = zl_report_op_speedup(r, r->op ? r->op : "", &shapes, &losses);
		char buf[32];

		if (i)
			zl_html_tr(out);
		zl_html_td(out, r->started_at, NULL);
		zl_html_td(out, r->run_id, "mono");
		zl_html_td(out, r->op, NULL);
		zl_html_td(out, r->device_name, NULL);
		zl_html_td(out, used ? used : r->timer_plan, NULL);
		zl_html_td(out, r->flaggems_commit, "mono");
		snprintf(buf, sizeof(buf), "v-%s", r->status ? r->status : "");
		zl_html_td(out, r->status, buf);
		snprintf(buf, sizeof(buf), "%zu", shapes);
		zl_html_td(out, buf, "n");
		zl_report_ratio(buf, g);
		zl_html_td(out, buf, "n");
	}
	zl_html_table_end(out);
}

/* The runs of a query, loaded oldest first; owns loaded (runs[i] == &loaded[i], names[i] its run id). */
struct history_runs {
	struct zl_run *loaded;
	struct zl_run **runs;
	const char **names;
	size_t n;
};

static void history_runs_release(struct history_runs *hr)
{
	size_t i;

	for (i = 0; i < hr->n; i++)
		zl_run_release(&hr->loaded[i]);
	free(hr->loaded);
	free(hr->runs);
	free(hr->names);
}

/* The query is newest first; trends read oldest first. A run that does not load is a note. */
static void load_runs(struct zl_history *h, const struct zl_history_list *list, struct history_runs *hr,
		      struct strvec *notes)
{
	struct strbuf why = STRBUF_INIT;
	size_t i;

	hr->loaded = xcalloc(list->nr ? list->nr : 1, sizeof(*hr->loaded));
	hr->runs = xcalloc(list->nr ? list->nr : 1, sizeof(*hr->runs));
	hr->names = xcalloc(list->nr ? list->nr : 1, sizeof(*hr->names));
	hr->n = 0;
	for (i = list->nr; i-- > 0;) {
		const char *id = list->v[i].v[ZL_HCOL_RUN_ID];
		struct zl_run *run = &hr->loaded[hr->n];

		zl_progress_step("report: loading the history's runs", list->nr - 1 - i, list->nr);
		zl_run_init(run);
		strbuf_reset(&why);
		if (!id || zl_history_load_run(h, id, run, &why)) {
			strvec_pushf(notes, "run %s: %s", id ? id : "?", why.buf);
			continue;
		}
		hr->runs[hr->n] = run;
		hr->names[hr->n] = run->run_id;
		hr->n++;
	}
	strbuf_release(&why);
}

/* The ops of the runs in first-seen order: a run's own op, else every op in its results. */
static void runs_ops(struct zl_run *const *runs, size_t n, struct strvec *ops)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		struct strvec run_ops = STRVEC_INIT;

		if (runs[i]->op && strvec_find(ops, runs[i]->op) < 0)
			strvec_push(ops, runs[i]->op);
		zl_report_run_ops(runs[i], &run_ops);
		for (j = 0; !runs[i]->op && j < run_ops.nr; j++)
			if (strvec_find(ops, run_ops.v[j]) < 0)
				strvec_push(ops, run_ops.v[j]);
		strvec_clear(&run_ops);
	}
}

/* "9 runs of mm on cuda since ... · <db path>" */
static void history_subtitle(struct strbuf *sub, size_t n, const struct zl_history_filter *f,
			     const struct zl_history *h)
{
	strbuf_addf(sub, "%zu runs", n);
	if (f->op)
		strbuf_addf(sub, " of %s", f->op);
	if (f->backend)
		strbuf_addf(sub, " on %s", f->backend);
	if (f->since)
		strbuf_addf(sub, " since %s", f->since);
	strbuf_addf(sub, " \xc2\xb7 %s", zl_history_path(h));
}

/* The latest run's caliber and what differs among the runs (n > 0). */
static void history_caliber(struct strbuf *out, const struct history_runs *hr)
{
	struct strvec spread = STRVEC_INIT;

	strbuf_addstr(out, "<h2>Caliber</h2>\n");
	zl_html_elem(out, "p", "class=\"sub\"", "The latest run's caliber; below it what differs among the runs.");
	zl_report_caliber(out, hr->runs[hr->n - 1]);
	zl_report_caliber_spread((const struct zl_run *const *)hr->runs, hr->names, hr->n, &spread);
	zl_html_notes(out, "warn", "Where the runs' caliber differs", &spread);
	strvec_clear(&spread);
}

int zl_report_history_page(struct zl_history *h, const struct zl_history_filter *f, const char *now,
			   struct strbuf *out, struct strbuf *err)
{
	struct zl_history_list list = ZL_HISTORY_LIST_INIT;
	struct history_runs hr;
	struct strvec ops = STRVEC_INIT, notes = STRVEC_INIT;
	struct strbuf sub = STRBUF_INIT;
	size_t i;

	if (zl_history_query(h, f, &list, err))
		return -1;
	load_runs(h, &list, &hr, &notes);
	runs_ops(hr.runs, hr.n, &ops);
	history_subtitle(&sub, hr.n, f, h);
	zl_html_page_begin(out, "zlbench history", sub.buf);
	if (!hr.n)
		zl_html_elem(out, "p", NULL, "No stored run matches.");
	else
		history_caliber(out, &hr);
	zl_html_notes(out, "warn", "Runs left out", &notes);
	for (i = 0; i < ops.nr; i++)
		op_section(out, ops.v[i], hr.runs, hr.n);
	if (hr.n)
		runs_table(out, hr.runs, hr.n);
	zl_html_page_end(out, now);
	history_runs_release(&hr);
	zl_history_list_release(&list);
	strvec_clear(&ops);
	strvec_clear(&notes);
	strbuf_release(&sub);
	return 0;
}
