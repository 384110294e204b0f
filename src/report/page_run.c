/* The run page, and the per-op latency/speedup chart that the batch page shows too. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/report.h"
#include "zlbench/report/html.h"
#include "zlbench/report/parts.h"
#include "zlbench/report/svg.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

void zl_report_run_ops(const struct zl_run *run, struct strvec *ops)
{
	struct zl_strmap seen = ZL_STRMAP_INIT;
	size_t i;
	int added;

	for (i = 0; i < ops->nr; i++)
		zl_strmap_put(&seen, ops->v[i], 0, NULL);
	for (i = 0; i < run->nr_results; i++) {
		zl_strmap_put(&seen, run->results[i].op, 0, &added);
		if (added)
			strvec_push(ops, run->results[i].op);
	}
	zl_strmap_clear(&seen);
}

/* FlagGems' speedup of a gems row, else torch / gems when both are there. */
static double row_speedup(const struct zl_result *r)
{
	if (isfinite(r->speedup) && r->speedup > 0)
		return r->speedup;
	if (r->latency_ms > 0 && r->latency_base_ms > 0)
		return r->latency_base_ms / r->latency_ms;
	return NAN;
}

struct keyed {
	double key;
	size_t idx;
};

static int by_key(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int nx = !isfinite(x->key), ny = !isfinite(y->key);

	if (nx != ny)
		return nx - ny;      /* rows without a speedup last */
	if (!nx && x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The gems rows of op, sorted by speedup, losses first; caller frees. */
static struct keyed *sorted_rows(const struct zl_run *run, const char *op, size_t *n)
{
	struct keyed *v = NULL;
	size_t i, alloc = 0;

	*n = 0;
	for (i = 0; i < run->nr_results; i++) {
		const struct zl_result *r = &run->results[i];

		if (r->side != ZL_SIDE_GEMS || strcmp(r->op, op))
			continue;
		ALLOC_GROW(v, *n + 1, alloc);
		v[*n].key = row_speedup(r);
		v[*n].idx = i;
		(*n)++;
	}
	if (*n)
		qsort(v, *n, sizeof(*v), by_key);
	return v;
}

static void row_label(struct strbuf *sb, const struct zl_result *r)
{
	zl_report_dtype(sb, r->dtype);
	strbuf_addch(sb, ' ');
	zl_report_shape(sb, r->shape);
	if (r->occurrence > 1)
		strbuf_addf(sb, " #%d", r->occurrence);
}

double zl_report_op_speedup(const struct zl_run *run, const char *op, size_t *n, size_t *losses)
{
	double sum = 0;
	size_t i;

	*n = 0;
	*losses = 0;
	for (i = 0; i < run->nr_results; i++) {
		const struct zl_result *r = &run->results[i];
		double s;

		if (r->side != ZL_SIDE_GEMS || strcmp(r->op, op))
			continue;
		s = row_speedup(r);
		if (!isfinite(s))
			continue;
		sum += log(s);
		(*n)++;
		*losses += s < 1;
	}
	return *n ? exp(sum / (double)*n) : NAN;
}

/* One shape's row of the op chart: latency link, ring and dot, and its speedup bar; returns 1 when drawn. */
static int add_shape_row(struct zl_rowchart *c, const char *op, const struct zl_result *r, double s)
{
	struct strbuf label = STRBUF_INIT, tip = STRBUF_INIT;
	const char *cls = s < 1 ? "l" : "w";
	char ratio[32], tms[32], gms[32];
	struct zl_chart_row *row;
	int drawn = 0;

	row_label(&label, r);
	zl_fmt_ms(tms, r->latency_base_ms);
	zl_fmt_ms(gms, r->latency_ms);
	zl_report_ratio(ratio, s);
	strbuf_addf(&tip, "%s %s %s: torch %s ms, FlagGems %s ms, speedup %s", op, r->dtype, r->shape, tms, gms,
		    ratio);
	if (r->timer)
		strbuf_addf(&tip, "; timer %s", r->timer);
	if (r->samples >= 0)
		strbuf_addf(&tip, ", %ld samples", r->samples);
	if (r->error_msg)
		strbuf_addf(&tip, "; error: %s", r->error_msg);
	if (!isfinite(s)) {
		zl_rowchart_add(c, label.buf, r->error_msg ? "error" : "no latency", "nu", tip.buf);
	} else {
		row = zl_rowchart_add(c, label.buf, ratio, s < 1 ? "nl" : "nw", tip.buf);
		zl_row_mark(row, 0, ZL_MARK_LINK, r->latency_base_ms, r->latency_ms, cls);
		zl_row_mark(row, 0, ZL_MARK_RING, r->latency_base_ms, NAN, "t");
		zl_row_mark(row, 0, ZL_MARK_DOT, r->latency_ms, NAN, "g");
		zl_row_mark(row, 1, ZL_MARK_BAR, s, NAN, cls);
		drawn = 1;
	}
	strbuf_release(&label);
	strbuf_release(&tip);
	return drawn;
}

size_t zl_report_op_chart(struct strbuf *sb, const struct zl_run *run, const char *op, const char *fig_id)
{
	struct zl_rowchart c;
	struct strbuf cap = STRBUF_INIT, title = STRBUF_INIT;
	size_t n, i, losses = 0, drawn = 0;
	struct keyed *rows = sorted_rows(run, op, &n);

	if (!n) {
		free(rows);
		return 0;
	}
	strbuf_addf(&title, "%s: latency of torch and FlagGems per shape, and FlagGems' speedup", op);
	zl_rowchart_init(&c, title.buf);
	zl_rowchart_panel(&c, 0, "latency, ms (log)", 1, NAN, 0.62);
	zl_rowchart_panel(&c, 1, "speedup (log)", 1, 1.0, 0.38);
	for (i = 0; i < n; i++)
		if (add_shape_row(&c, op, &run->results[rows[i].idx], rows[i].key)) {
			losses += rows[i].key < 1;
			drawn++;
		}
	zl_html_figure_begin(sb, fig_id);
	strbuf_addstr(sb, "<div class=\"legend\"><span class=\"lt\">\xe2\x97\x8b torch</span> "
		      "<span class=\"lg\">\xe2\x97\x8f FlagGems</span> <span class=\"v-slower\">\xe2\x96\xa0 FlagGems "
		      "slower</span> <span class=\"v-faster\">\xe2\x96\xa0 FlagGems faster</span></div>\n");
	zl_rowchart_svg(&c, sb);
	strbuf_addf(&cap, "%s: %zu shapes sorted by speedup, FlagGems' losses first (%zu with speedup below 1, in red). "
		    "Left: latency per shape on a log scale, torch as a ring, FlagGems as a dot. Right: speedup = "
		    "torch latency / FlagGems latency (FlagGems' own figure), log scale; the dashed line is 1.", op, n,
		    losses);
	if (drawn < n)
		strbuf_addf(&cap, " %zu shapes have no latency (error or missing).", n - drawn);
	zl_html_figure_end(sb, cap.buf);
	zl_rowchart_release(&c);
	strbuf_release(&cap);
	strbuf_release(&title);
	free(rows);
	return n;
}

void zl_report_op_table(struct strbuf *sb, const struct zl_run *run, const char *op)
{
	static const char *const heads[] = { "dtype", "shape", "torch ms", "FlagGems ms", "speedup", "timer",
					     "samples", "torch IQR ms", "FlagGems IQR ms", "error" };
	struct strbuf t = STRBUF_INIT;
	size_t n, i;
	struct keyed *rows = sorted_rows(run, op, &n);

	if (!n) {
		free(rows);
		return;
	}
	strbuf_addstr(sb, "<details><summary>the numbers</summary>\n");
	zl_html_table_begin(sb, NULL, heads, ZL_ARRAY_SIZE(heads));
	for (i = 0; i < n; i++) {
		const struct zl_result *g = &run->results[rows[i].idx];
		const struct zl_result *tr = zl_run_find(run, g->op, g->dtype, g->shape, g->occurrence, ZL_SIDE_TORCH);
		char buf[32];

		if (i)
			zl_html_tr(sb);
		zl_html_td(sb, g->dtype, NULL);
		strbuf_reset(&t);
		zl_report_shape(&t, g->shape);
		if (g->occurrence > 1)
			strbuf_addf(&t, " #%d", g->occurrence);
		zl_html_td(sb, t.buf, "mono");
		zl_fmt_ms(buf, g->latency_base_ms);
		zl_html_td(sb, buf, "n");
		zl_fmt_ms(buf, g->latency_ms);
		zl_html_td(sb, buf, "n");
		zl_report_ratio(buf, rows[i].key);
		zl_html_td(sb, buf, !isfinite(rows[i].key) ? "n" : rows[i].key < 1 ? "n v-slower" : "n v-faster");
		zl_html_td(sb, g->timer ? g->timer : "-", NULL);
		if (g->samples >= 0)
			snprintf(buf, sizeof(buf), "%ld", g->samples);
		else
			snprintf(buf, sizeof(buf), "-");
		zl_html_td(sb, buf, "n");
		zl_fmt_ms(buf, tr ? tr->iqr_ms : NAN);
		zl_html_td(sb, buf, "n");
		zl_fmt_ms(buf, g->iqr_ms);
		zl_html_td(sb, buf, "n");
		zl_html_td(sb, g->error_msg ? g->error_msg : "", "wrap");
	}
	zl_html_table_end(sb);
	strbuf_addstr(sb, "</details>\n");
	strbuf_release(&t);
	free(rows);
}

/* The efficiency of op's shapes: torch and FlagGems per shape, in the chart's order. */
static void op_efficiency(struct strbuf *out, const struct zl_run *run, const char *op)
{
	struct zl_report_eff e;
	struct strbuf label = STRBUF_INIT, id = STRBUF_INIT;
	size_t n, i;
	struct keyed *rows = sorted_rows(run, op, &n);

	zl_report_eff_init(&e, "torch", "FlagGems", run->device_name, run->device_name);
	for (i = 0; i < n; i++) {
		const struct zl_result *g = &run->results[rows[i].idx];
		struct zl_report_eff_row *r;

		strbuf_reset(&label);
		row_label(&label, g);
		r = zl_report_eff_add(&e, label.buf, g->op, g->dtype, g->shape, g->fg_bytes, g->fg_flops);
		r->ms[0] = g->latency_base_ms > 0 ? g->latency_base_ms : NAN;
		r->ms[1] = g->latency_ms > 0 ? g->latency_ms : NAN;
	}
	if (e.nr) {
		strbuf_addstr(out, "<h3>");
		zl_html_textf(out, "%s: how close to the hardware", op);
		strbuf_addstr(out, "</h3>\n");
		zl_report_id(&id, "eff-", op);
		zl_report_eff_section(out, &e, op, id.buf);
	}
	zl_report_eff_release(&e);
	strbuf_release(&label);
	strbuf_release(&id);
	free(rows);
}

/* The run's answer: its status when not passed, then FlagGems against torch over every shape. */
static void run_verdict(struct strbuf *out, const struct zl_run *run, const struct strvec *ops)
{
	double *sp = xcalloc(run->nr_results ? run->nr_results : 1, sizeof(*sp));
	const char *reason = zl_json_path_string(run->identity, "reason");
	size_t i, n = 0;

	for (i = 0; i < run->nr_results; i++)
		if (run->results[i].side == ZL_SIDE_GEMS)
			sp[n++] = row_speedup(&run->results[i]);
	zl_report_verdict_begin(out);
	if (run->status && strcmp(run->status, "passed")) {
		strbuf_addf(out, "<strong class=\"%s\">", zl_report_status_class(run->status));
		zl_html_textf(out, "%s%s%s.", run->status, reason ? ": " : "", reason ? reason : "");
		strbuf_addstr(out, "</strong> ");
	}
	if (!n) {
		zl_html_textf(out, "%s", run->has_results ? "results.json holds no rows."
							  : "No results: the run left no readable results.json.");
	} else {
		if (ops->nr > 1) {
			zl_report_count(out, ops->nr, "op", "ops", NULL);
			strbuf_addstr(out, ": ");
		}
		zl_report_speedups(out, sp, n, "shape", "shapes");
		strbuf_addch(out, '.');
	}
	zl_report_verdict_end(out);
	free(sp);
}

void zl_report_run_page(const struct zl_run *run, const char *now, struct strbuf *out)
{
	struct strbuf title = STRBUF_INIT, sub = STRBUF_INIT, id = STRBUF_INIT;
	struct strvec warnings = STRVEC_INIT, ops = STRVEC_INIT;
	size_t i;

	strbuf_addf(&title, "zlbench run: %s", run->op ? run->op : run->run_id);
	strbuf_addf(&sub, "%s \xc2\xb7 %s \xc2\xb7 %s \xc2\xb7 %s", run->run_id, run->backend ? run->backend : "?",
		    run->device_name ? run->device_name : "device " ZL_HTML_NOT_RECORDED,
		    run->status ? run->status : "status " ZL_HTML_NOT_RECORDED);
	zl_report_run_ops(run, &ops);
	zl_html_page_begin(out, title.buf, NULL);
	run_verdict(out, run, &ops);
	zl_html_elem(out, "p", "class=\"sub\"", sub.buf);
	zl_report_run_warnings(run, &warnings);
	zl_html_notes(out, run->status && strcmp(run->status, "passed") ? "bad" : "warn", "Warnings", &warnings);
	for (i = 0; i < ops.nr; i++) {
		size_t n, losses;
		double g = zl_report_op_speedup(run, ops.v[i], &n, &losses);
		char ratio[32];

		strbuf_addstr(out, "<h2>");
		zl_html_escape(out, ops.v[i]);
		strbuf_addstr(out, "</h2>\n<p>");
		zl_report_ratio(ratio, g);
		zl_html_textf(out, "Geomean speedup of FlagGems over torch: %s over %zu %s; FlagGems is slower on %zu.",
			      ratio, n, zl_plural(n, "shape", "shapes"), losses);
		strbuf_addstr(out, "</p>\n");
		strbuf_reset(&id);
		zl_report_id(&id, "chart-", ops.v[i]);
		zl_report_op_chart(out, run, ops.v[i], id.buf);
		zl_report_op_table(out, run, ops.v[i]);
		op_efficiency(out, run, ops.v[i]);
	}
	strbuf_addstr(out, "<h2>Caliber</h2>\n");
	zl_report_caliber(out, run);
	zl_html_page_end(out, now);
	strvec_clear(&warnings);
	strvec_clear(&ops);
	strbuf_release(&title);
	strbuf_release(&sub);
	strbuf_release(&id);
}
