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
	const char *absent;     /* what a run without the field had, or NULL: not recorded */
} break_fields[] = {
	{ "commit", "FlagGems commit", "flaggems.commit", NULL },
	{ "timer", "timer plan", "timer.plan", NULL },
	{ "timer", "timer used", "timer.used", NULL },
	{ "noise", "noise target", "timer.noise_target", NULL },
	{ "device", "device", "devices.0.name", NULL },
	{ "backend", "backend", "backend", NULL },
	{ "level", "level", "level", NULL },
	{ "shapes", "shape file sha256", "shape_file.sha256", NULL },
	{ "mode", "FlagGems mode", "flaggems_mode", NULL },
	{ "triton", "Triton version", "vendor_guard.triton_version", NULL },
	{ "torch", "torch version", "vendor_guard.torch_version", NULL },
	{ "tuner", "tuner cache mode", "tuner_cache.mode", NULL },
	{ "autotune", "autotune mode", "autotune.mode", NULL },
	/* runs before --draw-inputs drew as FlagGems does: no break when the field appears */
	{ "inputs", "inputs drawn", "inputs.draw", "flaggems" },
};

/* The value of a break field as text ("" or its absent value when absent); devices.0.name reads the first device. */
static void break_value(struct strbuf *sb, const struct zl_run *run, const char *path, const char *absent)
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
	else if (absent)
		strbuf_addstr(sb, absent);
}

/* Breaks between consecutive runs of one op: label (first change) and tooltip (every change). */
static int run_break(const struct zl_run *prev, const struct zl_run *cur, struct strbuf *label, struct strbuf *tip)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	size_t i;

	strbuf_reset(label);
	strbuf_reset(tip);
	for (i = 0; i < ZL_ARRAY_SIZE(break_fields); i++) {
		break_value(&a, prev, break_fields[i].path, break_fields[i].absent);
		break_value(&b, cur, break_fields[i].path, break_fields[i].absent);
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

/* One series per backend and device: the runs' groups in first-seen order. */
struct run_groups {
	struct strvec keys;       /* "<backend> \xc2\xb7 <device name>" */
	size_t *of;               /* the group of each run */
};

static void groups_of(struct zl_run *const *runs, size_t n, struct run_groups *g)
{
	struct strbuf key = STRBUF_INIT;
	size_t i;

	strvec_init(&g->keys);
	g->of = xcalloc(n ? n : 1, sizeof(*g->of));
	for (i = 0; i < n; i++) {
		long k;

		strbuf_reset(&key);
		strbuf_addf(&key, "%s \xc2\xb7 %s", runs[i]->backend ? runs[i]->backend : "?",
			    runs[i]->device_name ? runs[i]->device_name : "device not recorded");
		k = strvec_find(&g->keys, key.buf);
		if (k < 0) {
			strvec_push(&g->keys, key.buf);
			k = (long)g->keys.nr - 1;
		}
		g->of[i] = (size_t)k;
	}
	strbuf_release(&key);
}

static void groups_release(struct run_groups *g)
{
	strvec_clear(&g->keys);
	free(g->of);
}

static int passed(const struct zl_run *run)
{
	return run->status && !strcmp(run->status, "passed");
}

/* The series classes of group k: FlagGems in its own colour, torch grey with its own dashes. */
static const char *group_cls(size_t k, int gems)
{
	static const char *const g[] = { "g", "g1", "g2", "g3" }, *const t[] = { "t", "t d1", "t d2", "t d3" };

	return gems ? g[k % ZL_ARRAY_SIZE(g)] : t[k % ZL_ARRAY_SIZE(t)];
}

/*
 * Labels that tell the runs apart: "11-29 10:00", with the year when the runs span
 * years, the seconds when two neighbours share a minute, "#k" when they share a second.
 */
static void set_xlabels(struct zl_trend *t, struct zl_run *const *runs, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	int years = 0, seconds = 0;
	size_t i;

	for (i = 1; i < n; i++) {
		const char *a = runs[i - 1]->started_at, *b = runs[i]->started_at;

		if (a && b && strlen(a) >= 19 && strlen(b) >= 19) {
			years |= strncmp(a, b, 4) != 0;
			seconds |= !strncmp(a, b, 16);
		}
	}
	for (i = 0; i < n; i++) {
		const char *iso = runs[i]->started_at;

		strbuf_reset(&sb);
		if (!iso || strlen(iso) < 19)
			strbuf_addf(&sb, "run %zu", i + 1);
		else
			strbuf_addf(&sb, "%.*s %.*s", years ? 10 : 5, iso + (years ? 0 : 5), seconds ? 8 : 5, iso + 11);
		if (i && !strncmp(t->xlabels.v[i - 1], sb.buf, sb.len) &&
		    (t->xlabels.v[i - 1][sb.len] == '\0' || t->xlabels.v[i - 1][sb.len] == ' '))
			strbuf_addf(&sb, " #%zu", i + 1);
		strvec_push(&t->xlabels, sb.buf);
	}
	strbuf_release(&sb);
}

/*
 * The caliber changes between consecutive runs of one group: a break at the later run,
 * and the group's series (series[k] .. series[k + per - 1] of group k) cut there. The
 * runs that did not pass are marks on the axis.
 */
static void add_breaks(struct zl_trend *t, struct zl_run *const *runs, size_t n, const struct run_groups *g,
		       struct zl_trend_series *const *series, size_t per)
{
	struct strbuf label = STRBUF_INIT, tip = STRBUF_INIT, full = STRBUF_INIT;
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		if (!passed(runs[i])) {
			const char *reason = zl_json_path_string(runs[i]->identity, "reason");

			strbuf_reset(&full);
			strbuf_addf(&full, "%s: %s%s%s", runs[i]->run_id, runs[i]->status ? runs[i]->status : "status not recorded",
				    reason ? ": " : "", reason ? reason : "");
			zl_trend_mark(t, i, full.buf);
			continue;
		}
		for (j = i; j-- > 0;)
			if (g->of[j] == g->of[i] && passed(runs[j]))
				break;
		if (j == (size_t)-1 || !run_break(runs[j], runs[i], &label, &tip))
			continue;
		strbuf_reset(&full);
		if (g->keys.nr > 1)
			strbuf_addf(&full, "%s: ", g->keys.v[g->of[i]]);
		strbuf_addbuf(&full, &tip);
		zl_trend_break(t, i, label.buf, full.buf);
		for (k = 0; k < per; k++)
			if (series[g->of[i] * per + k])
				series[g->of[i] * per + k]->cut[i] = 1;
	}
	strbuf_release(&label);
	strbuf_release(&tip);
	strbuf_release(&full);
}

/* "FlagGems speedup", or "FlagGems speedup, rocm · MI300X" when the runs have several groups. */
static void series_name(struct strbuf *sb, const char *what, const struct run_groups *g, size_t k)
{
	strbuf_reset(sb);
	strbuf_addstr(sb, what);
	if (g->keys.nr > 1)
		strbuf_addf(sb, ", %s", g->keys.v[k]);
}

static size_t op_speedup_trend(struct strbuf *out, const char *op, struct zl_run *const *runs, size_t n,
			       const struct run_groups *g)
{
	double *y = xcalloc(n, sizeof(*y));
	struct zl_trend t;
	struct zl_trend_series *series[ZL_TREND_SERIES] = { NULL };
	struct strbuf title = STRBUF_INIT, cap = STRBUF_INIT, id = STRBUF_INIT, name = STRBUF_INIT;
	size_t i, k, shifts = 0;

	strbuf_addf(&title, "%s: geomean speedup of FlagGems over torch per run", op);
	zl_trend_init(&t, title.buf, n, 1, 720);
	t.ylabel = "geomean speedup (log)";
	set_xlabels(&t, runs, n);
	for (k = 0; k < g->keys.nr && k < ZL_TREND_SERIES; k++) {
		for (i = 0; i < n; i++) {
			size_t shapes, losses;
			y[i] = g->of[i] == k && passed(runs[i]) ? zl_report_op_speedup(runs[i], op, &shapes, &losses) : NAN;
		}
		series_name(&name, "FlagGems speedup", g, k);
		series[k] = zl_trend_series(&t, name.buf, group_cls(k, 1), y);
		series[k]->up_good = 1;
		shifts += zl_step_detect(series[k]->y, n, ZL_STEP_FLOOR, series[k]->shift);
	}
	add_breaks(&t, runs, n, g, series, 1);
	zl_report_id(&id, "trend-", op);
	zl_html_figure_begin(out, id.buf);
	zl_trend_svg(&t, out);
	strbuf_addf(&cap, "%s over %zu %s, oldest first: the geomean of FlagGems' speedup over the op's shapes "
		    "(log scale)%s. Dashed amber lines (and diamonds on the axis) are caliber changes between two runs "
		    "(hover for what changed): the lines stop there. Triangles mark the %zu %s where a series shifted "
		    "beyond its noise (green better, red worse); a red x on the axis is a run that did not pass.",
		    op, n, zl_plural(n, "run", "runs"), g->keys.nr > 1 ? ", one line per backend and device" : "",
		    shifts, zl_plural(shifts, "point", "points"));
	zl_html_figure_end(out, cap.buf);
	zl_trend_release(&t);
	strbuf_release(&title);
	strbuf_release(&cap);
	strbuf_release(&id);
	strbuf_release(&name);
	free(y);
	return shifts;
}

/* One shape of one op across its runs. */
struct series_key {
	char *dtype, *shape;
	int occurrence;
};

/* The op's series (dtype, shape, occurrence) over the runs, in first-seen order; hashed, not scanned. */
static void keys_of(const char *op, struct zl_run *const *runs, size_t n, struct series_key **keys, size_t *nkeys)
{
	struct zl_strmap seen = ZL_STRMAP_INIT;
	struct strbuf key = STRBUF_INIT;
	size_t i, j, alloc = 0;

	*keys = NULL;
	*nkeys = 0;
	for (i = 0; i < n; i++)
		for (j = 0; j < runs[i]->nr_results; j++) {
			const struct zl_result *r = &runs[i]->results[j];
			int added;

			if (r->side != ZL_SIDE_GEMS || strcmp(r->op, op))
				continue;
			strbuf_reset(&key);
			strbuf_addf(&key, "%s\n%s\n%d", r->dtype, r->shape, r->occurrence);
			zl_strmap_put(&seen, key.buf, 0, &added);
			if (!added)
				continue;
			ALLOC_GROW(*keys, *nkeys + 1, alloc);
			(*keys)[*nkeys].dtype = xstrdup(r->dtype);
			(*keys)[*nkeys].shape = xstrdup(r->shape);
			(*keys)[(*nkeys)++].occurrence = r->occurrence;
		}
	zl_strmap_clear(&seen);
	strbuf_release(&key);
}

static size_t shape_trend(struct strbuf *out, const char *op, const struct series_key *key, struct zl_run *const *runs,
			  size_t n, const struct run_groups *g)
{
	double *y = xcalloc(n ? n : 1, sizeof(*y));
	static const char *const names[2] = { "torch", "FlagGems" };
	struct zl_trend_series *series[ZL_TREND_SERIES] = { NULL };
	struct zl_trend t;
	struct strbuf title = STRBUF_INIT, cap = STRBUF_INIT, name = STRBUF_INIT;
	size_t i, k, shifts = 0, points = 0;
	int s;

	zl_report_dtype(&title, key->dtype);
	strbuf_addch(&title, ' ');
	zl_report_shape(&title, key->shape);
	if (key->occurrence > 1)
		strbuf_addf(&title, " #%d", key->occurrence);
	zl_trend_init(&t, title.buf, n, 1, 400);
	t.ylabel = "ms (log)";
	set_xlabels(&t, runs, n);
	for (k = 0; k < g->keys.nr && 2 * k + 1 < ZL_TREND_SERIES; k++)
		for (s = 0; s < 2; s++) {
			struct zl_trend_series *se;

			for (i = 0; i < n; i++) {
				const struct zl_result *r = g->of[i] == k && passed(runs[i])
					? zl_run_find(runs[i], op, key->dtype, key->shape, key->occurrence,
						      s ? ZL_SIDE_GEMS : ZL_SIDE_TORCH) : NULL;
				y[i] = r && r->latency_ms > 0 ? r->latency_ms : NAN;
				points += s && isfinite(y[i]);
			}
			series_name(&name, names[s], g, k);
			se = series[2 * k + s] = zl_trend_series(&t, name.buf, group_cls(k, s), y);
			shifts += zl_step_detect(se->y, n, ZL_STEP_FLOOR, se->shift);
		}
	add_breaks(&t, runs, n, g, series, 2);
	strbuf_addstr(out, "<figure class=\"small\">");
	zl_trend_svg(&t, out);
	strbuf_addf(&cap, "%s %s: latency over %zu %s (log), torch grey, FlagGems %s; %zu %s beyond noise.", op,
		    title.buf, points, zl_plural(points, "run", "runs"),
		    g->keys.nr > 1 ? "in one colour per backend and device" : "blue", shifts,
		    zl_plural(shifts, "shift", "shifts"));
	zl_html_elem(out, "figcaption", NULL, cap.buf);
	strbuf_addstr(out, "</figure>\n");
	zl_trend_release(&t);
	strbuf_release(&title);
	strbuf_release(&cap);
	strbuf_release(&name);
	free(y);
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

/* What an op's section found, for the verdict on top. */
struct op_stats {
	size_t runs, changes, shifts, not_passed;
	double first, latest;      /* the speedup of its first and latest passed runs; NAN: none */
};

static void op_section(struct strbuf *out, const char *op, struct zl_run *const *all, size_t nall,
		       struct op_stats *st)
{
	struct zl_run **runs = xcalloc(nall ? nall : 1, sizeof(*runs));
	struct series_key *keys;
	struct run_groups g;
	struct strvec changes = STRVEC_INIT;
	struct strbuf label = STRBUF_INIT, tip = STRBUF_INIT, id = STRBUF_INIT;
	size_t n = 0, i, j, nkeys, shifts = 0;

	for (i = 0; i < nall; i++)
		if (has_op(all[i], op))
			runs[n++] = all[i];
	groups_of(runs, n, &g);
	memset(st, 0, sizeof(*st));
	st->first = st->latest = NAN;
	zl_report_id(&id, "op-", op);
	strbuf_addf(out, "<h2 id=\"%s\">", id.buf);
	zl_html_escape(out, op);
	strbuf_addstr(out, "</h2>\n");
	for (i = 0; i < n; i++) {
		size_t shapes, losses;
		double sp;

		if (!passed(runs[i])) {
			st->not_passed++;
			continue;
		}
		sp = zl_report_op_speedup(runs[i], op, &shapes, &losses);
		if (isfinite(sp)) {
			if (!isfinite(st->first))
				st->first = sp;
			st->latest = sp;
		}
		/* the run before it of its backend and device */
		for (j = i; j-- > 0;)
			if (g.of[j] == g.of[i] && passed(runs[j]))
				break;
		if (j != (size_t)-1 && run_break(runs[j], runs[i], &label, &tip)) {
			struct strbuf when = STRBUF_INIT;

			short_time(&when, runs[i]->started_at);
			strvec_pushf(&changes, "before %s (%s)%s%s: %s", runs[i]->run_id, when.buf, g.keys.nr > 1 ? ", " : "",
				     g.keys.nr > 1 ? g.keys.v[g.of[i]] : "", tip.buf + strlen("caliber change: "));
			strbuf_release(&when);
		}
	}
	zl_html_notes(out, "warn", "Caliber changes (breaks in every trend below)", &changes);
	shifts += op_speedup_trend(out, op, runs, n, &g);
	keys_of(op, runs, n, &keys, &nkeys);
	strbuf_addstr(out, "<div class=\"grid\">\n");
	for (i = 0; i < nkeys; i++)
		shifts += shape_trend(out, op, &keys[i], runs, n, &g);
	strbuf_addstr(out, "</div>\n");
	strbuf_addstr(out, "<p class=\"sub\">");
	zl_html_textf(out, "%s: %zu %s, %zu %s, %zu caliber %s, %zu %s beyond noise.", op, n,
		      zl_plural(n, "run", "runs"), nkeys, zl_plural(nkeys, "shape", "shapes"), changes.nr,
		      zl_plural(changes.nr, "change", "changes"), shifts, zl_plural(shifts, "shift", "shifts"));
	strbuf_addstr(out, "</p>\n");
	st->runs = n;
	st->changes = changes.nr;
	st->shifts = shifts;
	for (i = 0; i < nkeys; i++) {
		free(keys[i].dtype);
		free(keys[i].shape);
	}
	free(keys);
	free(runs);
	groups_release(&g);
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
		snprintf(buf, sizeof(buf), "%s", zl_report_status_class(r->status));
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
	struct zl_strmap seen = ZL_STRMAP_INIT;
	size_t i, j;
	int added;

	for (i = 0; i < n; i++) {
		struct strvec run_ops = STRVEC_INIT;

		if (runs[i]->op) {
			zl_strmap_put(&seen, runs[i]->op, 0, &added);
			if (added)
				strvec_push(ops, runs[i]->op);
			continue;
		}
		zl_report_run_ops(runs[i], &run_ops);
		for (j = 0; j < run_ops.nr; j++) {
			zl_strmap_put(&seen, run_ops.v[j], 0, &added);
			if (added)
				strvec_push(ops, run_ops.v[j]);
		}
		strvec_clear(&run_ops);
	}
	zl_strmap_clear(&seen);
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

/* The answer: how many runs of which ops, and per op where its speedup ended and what broke. */
static void history_verdict(struct strbuf *out, const struct history_runs *hr, const struct strvec *ops,
			    const struct op_stats *st)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	size_t i, failed = 0;

	for (i = 0; i < hr->n; i++)
		failed += !passed(hr->runs[i]);
	zl_report_verdict_begin(out);
	if (!hr->n) {
		strbuf_addstr(out, "No stored run matches.");
		zl_report_verdict_end(out);
		return;
	}
	short_time(&a, hr->runs[0]->started_at);
	short_time(&b, hr->runs[hr->n - 1]->started_at);
	zl_report_count(out, hr->n, "run", "runs", NULL);
	strbuf_addstr(out, " of ");
	zl_report_count(out, ops->nr, "op", "ops", NULL);
	zl_html_textf(out, ", %s to %s", a.buf, b.buf);
	if (failed) {
		strbuf_addstr(out, " (");
		zl_report_count(out, failed, "run", "runs", "v-failed");
		strbuf_addstr(out, " did not pass)");
	}
	strbuf_addstr(out, ".");
	for (i = 0; i < ops->nr && i < 5; i++) {
		char la[32], fi[32];

		zl_report_ratio(la, st[i].latest);
		zl_report_ratio(fi, st[i].first);
		strbuf_addch(out, ' ');
		zl_html_textf(out, "%s: FlagGems speedup ", ops->v[i]);
		strbuf_addf(out, "<strong class=\"%s\">", st[i].latest < 1 ? "v-slower" : "v-faster");
		zl_html_escape(out, la);
		strbuf_addstr(out, "</strong>");
		zl_html_textf(out, " in the latest run (first %s); ", fi);
		zl_report_count(out, st[i].changes, "caliber change", "caliber changes", st[i].changes ? "v-unsure" : NULL);
		strbuf_addstr(out, ", ");
		zl_report_count(out, st[i].shifts, "shift", "shifts", st[i].shifts ? "v-unsure" : NULL);
		strbuf_addstr(out, " beyond noise.");
	}
	if (ops->nr > 5)
		zl_html_textf(out, " And %zu more ops below.", ops->nr - 5);
	zl_report_verdict_end(out);
	strbuf_release(&a);
	strbuf_release(&b);
}

int zl_report_history_page(struct zl_history *h, const struct zl_history_filter *f, const char *now,
			   struct strbuf *out, struct strbuf *err)
{
	struct zl_history_list list = ZL_HISTORY_LIST_INIT;
	struct history_runs hr;
	struct strvec ops = STRVEC_INIT, notes = STRVEC_INIT;
	struct strbuf sub = STRBUF_INIT, body = STRBUF_INIT;
	struct op_stats *st;
	size_t i;

	if (zl_history_query(h, f, &list, err))
		return -1;
	load_runs(h, &list, &hr, &notes);
	runs_ops(hr.runs, hr.n, &ops);
	history_subtitle(&sub, hr.n, f, h);
	st = xcalloc(ops.nr ? ops.nr : 1, sizeof(*st));
	for (i = 0; i < ops.nr; i++)
		op_section(&body, ops.v[i], hr.runs, hr.n, &st[i]);
	zl_html_page_begin(out, "zlbench history", NULL);
	history_verdict(out, &hr, &ops, st);
	zl_html_elem(out, "p", "class=\"sub\"", sub.buf);
	zl_html_notes(out, "warn", "Runs left out", &notes);
	strbuf_addbuf(out, &body);
	if (hr.n) {
		runs_table(out, hr.runs, hr.n);
		history_caliber(out, &hr);
	}
	zl_html_page_end(out, now);
	history_runs_release(&hr);
	zl_history_list_release(&list);
	strvec_clear(&ops);
	strvec_clear(&notes);
	strbuf_release(&sub);
	strbuf_release(&body);
	free(st);
	return 0;
}
