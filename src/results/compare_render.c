/*
 * compare's output: the text report, JSON, CSV and Markdown of a struct zl_compare that
 * compare.c built (the caliber check, the rows and their verdicts, drift, the gate).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/compare.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/history.h"
#include "zlbench/efficiency.h"
#include "zlbench/json.h"
#include "zlbench/rowview.h"
#include "zlbench/schema.h"
#include "zlbench/table.h"
#include "zlbench/units.h"
#include "zlbench/term.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

#define NONE_TEXT ZL_COMPARE_NONE_TEXT

/* ---- rendering -------------------------------------------------------------- */

static int has_mismatch(const struct zl_compare *c)
{
	return c->caliber.mismatches.nr > 0;
}

static void mismatch_summary(const struct zl_compare *c, struct strbuf *sb, const char *sep)
{
	size_t i;

	for (i = 0; i < c->caliber.mismatches.nr; i++) {
		const struct zl_diff *d = &c->caliber.mismatches.v[i];
		strbuf_addf(sb, "%s%s: %s vs %s", i ? sep : "", d->field, d->a, d->b);
	}
}

/* "calibration 3" or "fixed": the contract's floor source of a row. */
static void floor_source(const struct zl_compare *c, const struct zl_compare_row *r, struct strbuf *sb)
{
	if (r->floor_calibrated)
		strbuf_addf(sb, "calibration %ld", c->opts.calibration->id);
	else
		strbuf_addstr(sb, "fixed");
}

/* Where the floor comes from, one line. */
void zl_compare_floor_summary(const struct zl_compare *c, struct strbuf *sb)
{
	const struct zl_calibration *cal = c->opts.calibration;
	size_t i, missing = 0;
	const char *sep = ": ";

	if (!cal) {
		strbuf_addf(sb, "fixed %g%%", ZL_FIXED_FLOOR_PCT);
		if (c->opts.floor_note)
			strbuf_addf(sb, " (%s)", c->opts.floor_note);
	} else {
		zl_calibration_describe(cal, sb);
		for (i = 0; i < ZL_SIZE__COUNT; i++) {
			if (!cal->cls[i].present) {
				missing++;
				continue;
			}
			strbuf_addf(sb, "%s%s %g%%", sep, zl_size_class_name((enum zl_size_class)i),
				    cal->cls[i].floor_pct);
			sep = ", ";
		}
		if (missing)
			strbuf_addf(sb, "; other size classes: fixed %g%%", ZL_FIXED_FLOOR_PCT);
	}
	if (c->opts.threshold_pct > 0)
		strbuf_addf(sb, "; --threshold %g%%: each row's threshold is max(%g%%, its floor)",
			    c->opts.threshold_pct, c->opts.threshold_pct);
}

static const char *sides_text(size_t a, size_t b)
{
	return a && b ? "A and B" : a ? "A" : "B";
}

/* The medians rows: how many by timer IQR, how many by the threshold alone, and why. */
static void medians_summary(const struct zl_compare *c, struct strbuf *sb)
{
	strbuf_addf(sb, "%s (in %s): ", zl_method_name(ZL_METHOD_MEDIANS),
		    sides_text(c->a_without_samples, c->b_without_samples));
	if (c->rows_iqr)
		strbuf_addf(sb, "%zu rows by timer IQR (same when |B-A| <= max((IQR_A+IQR_B)/2, "
			    "threshold * A))", c->rows_iqr);
	if (c->rows_iqr && c->rows_threshold)
		strbuf_addstr(sb, "; ");
	if (c->rows_threshold) {
		strbuf_addf(sb, "%zu rows by the threshold (no timer IQR from 2 or more samples",
			    c->rows_threshold);
		if (!c->a->has_timer || !c->b->has_timer)
			strbuf_addf(sb, ": no plugins/timer.jsonl in %s",
				    sides_text(!c->a->has_timer, !c->b->has_timer));
		strbuf_addch(sb, ')');
	}
}

static void verdict_summary(const struct zl_compare *c, struct strbuf *sb)
{
	if (c->rows_samples)
		strbuf_addf(sb, "%zu rows on samples (same: the %g%% CI of B/A inside ±threshold; "
			    "faster/slower: the CI beyond it and Mann-Whitney p < %g; otherwise unsure)",
			    c->rows_samples, ZL_VERDICT_CONF * 100, ZL_VERDICT_ALPHA);
	if (c->rows_samples && c->rows_iqr + c->rows_threshold)
		strbuf_addstr(sb, "; ");
	if (c->rows_iqr + c->rows_threshold)
		medians_summary(c, sb);
	if (!c->rows_samples && !c->rows_iqr && !c->rows_threshold)
		strbuf_addstr(sb, "no comparable rows");
	if (c->rows_unsure)
		strbuf_addf(sb, "; %zu unsure", c->rows_unsure);
}

static void gate_rule(const struct zl_compare *c, struct strbuf *sb)
{
	strbuf_addf(sb, "fails when the overall gems geomean is more than %g%% slower, or a gems shape "
		    "is slower (beyond its threshold, max(--threshold, floor)) and more than %g%% slower",
		    c->opts.fail_pct, c->opts.fail_pct);
	if (c->opts.fail_on_unsure)
		strbuf_addf(sb, ", or unsure with a %g%% CI reaching beyond %g%% slower (--fail-on-unsure)",
			    ZL_VERDICT_CONF * 100, c->opts.fail_pct);
	strbuf_addf(sb, "; also when A or B did not pass, no gems shape is on both sides%s",
		    c->opts.allow_missing ? "" : ", or B lacks a gems shape of A");
}

/* The drift line: only when the torch side moved. */
static void drift_line(const struct zl_compare *c, struct strbuf *sb)
{
	const struct zl_drift *d = &c->drift;

	strbuf_addf(sb, "machine drift: torch side geomean %.4f [%.4f, %.4f] over %zu shapes (torch %s in "
		    "A and B: the same library calls)", d->torch.geomean, d->torch.lo, d->torch.hi,
		    d->torch.n, d->torch_a);
	if (c->overall.norm_n)
		strbuf_addf(sb, "; gems/torch geomean %.4f [%.4f, %.4f] next to gems-only %.4f [%.4f, %.4f]",
			    c->overall.norm, c->overall.norm_lo, c->overall.norm_hi, c->overall.geomean,
			    c->overall.lo, c->overall.hi);
}

/* Why the torch side is no control, or NULL when it is one. */
static const char *no_control_reason(const struct zl_compare *c, struct strbuf *sb)
{
	const struct zl_drift *d = &c->drift;

	if (d->control)
		return NULL;
	if (d->torch_a && d->torch_b)
		strbuf_addf(sb, "torch %s in A, %s in B: the torch side changed too", d->torch_a, d->torch_b);
	else
		strbuf_addf(sb, "the torch version of %s is unknown", sides_text(!d->torch_a, !d->torch_b));
	return sb->buf;
}

/* "samples 2000/2000", "medians iqr ±0.000123", "medians ±5%". */
static void fmt_method(struct strbuf *sb, const struct zl_compare_row *r)
{
	if (r->method == ZL_METHOD_SAMPLES)
		strbuf_addf(sb, "samples %zu/%zu", r->detail.a_n, r->detail.b_n);
	else if (r->basis == ZL_BASIS_IQR)
		strbuf_addf(sb, "medians iqr ±%.6f", r->band_ms);
	else if (r->basis == ZL_BASIS_THRESHOLD)
		strbuf_addf(sb, "medians ±%g%%", r->threshold_pct);
	else
		strbuf_addch(sb, '-');
}

static void fmt_geomean(struct strbuf *sb, const struct zl_geomean *g)
{
	if (!g->n)
		strbuf_addstr(sb, "-");
	else
		strbuf_addf(sb, "%.4f", g->geomean);
}

static void fmt_ci(struct strbuf *sb, const struct zl_geomean *g)
{
	if (g->n)
		strbuf_addf(sb, "[%.4f, %.4f]", g->lo, g->hi);
	else
		strbuf_addch(sb, '-');
}

static void fmt_norm(struct strbuf *sb, const struct zl_geomean *g, int ci)
{
	if (!g->norm_n)
		strbuf_addch(sb, '-');
	else if (ci)
		strbuf_addf(sb, "[%.4f, %.4f]", g->norm_lo, g->norm_hi);
	else
		strbuf_addf(sb, "%.4f", g->norm);
}

static void print_diffs(FILE *out, const char *title, const struct zl_diffs *d)
{
	size_t i;

	if (!d->nr)
		return;
	fprintf(out, "%s\n", title);
	for (i = 0; i < d->nr; i++)
		fprintf(out, "  %s: %s -> %s\n", zl_term_str(d->v[i].field), zl_term_str(d->v[i].a),
			zl_term_str(d->v[i].b));
}

static void print_geomeans(const struct zl_compare *c, FILE *out, int use_color)
{
	int norm = c->drift.control;
	size_t ncols = norm ? 6 : 4, i;
	struct zl_table t;
	struct strbuf sb = STRBUF_INIT;

	fprintf(out, "geomean of B/A (95%% bootstrap CI over shapes, %d resamples):\n", c->opts.resamples);
	zl_table_init(&t, ncols, (1ul << 1) | (1ul << 3) | (1ul << 4));
	zl_table_add(&t, "", ZL_COLOR_BOLD);
	zl_table_add(&t, "gems", ZL_COLOR_BOLD);
	zl_table_add(&t, "95% CI", ZL_COLOR_BOLD);
	zl_table_add(&t, "shapes", ZL_COLOR_BOLD);
	if (norm) {
		zl_table_add(&t, "gems/torch", ZL_COLOR_BOLD);
		zl_table_add(&t, "95% CI", ZL_COLOR_BOLD);
	}
	for (i = 0; i <= c->nr_ops + (size_t)norm; i++) {
		const struct zl_geomean *g = i < c->nr_ops ? &c->ops[i] :
					     i == c->nr_ops ? &c->overall : &c->drift.torch;
		enum zl_color color = !g->n ? ZL_COLOR_NONE :
				      g->hi < 1 ? ZL_COLOR_GREEN : g->lo > 1 ? ZL_COLOR_RED : ZL_COLOR_NONE;

		zl_table_addf(&t, ZL_COLOR_NONE, "  %s", i < c->nr_ops ? g->op :
			      i == c->nr_ops ? "overall" : "torch side (control)");
		strbuf_reset(&sb);
		fmt_geomean(&sb, g);
		zl_table_add(&t, sb.buf, i > c->nr_ops ? ZL_COLOR_NONE : color);
		strbuf_reset(&sb);
		fmt_ci(&sb, g);
		zl_table_add(&t, sb.buf, ZL_COLOR_NONE);
		zl_table_addf(&t, ZL_COLOR_NONE, "n=%zu", g->n);
		if (norm) {
			strbuf_reset(&sb);
			if (i <= c->nr_ops)
				fmt_norm(&sb, g, 0);
			zl_table_add(&t, sb.buf, ZL_COLOR_NONE);
			strbuf_reset(&sb);
			if (i <= c->nr_ops)
				fmt_norm(&sb, g, 1);
			zl_table_add(&t, sb.buf, ZL_COLOR_NONE);
		}
	}
	zl_table_print(&t, out, use_color);
	zl_table_release(&t);
	strbuf_release(&sb);
}

static void print_run_line(FILE *out, const char *side, const struct zl_run *r, const char *warn,
			   const char *reset)
{
	const char *note = zl_history_loaded_note(r);

	fprintf(out, "%s: %s  %s  %s\n", side, zl_term_str(r->run_id), zl_term_str(r->status ? r->status : "?"),
		zl_term_str(r->dir ? r->dir : NONE_TEXT));
	if (note)
		fprintf(out, "%s   %s%s\n", warn, zl_term_str(note), reset);
}

/* The caliber lines: ok or the mismatches, autotune, the flags and the A/B variables. */
static void print_caliber(const struct zl_compare *c, FILE *out, const char *warn, const char *reset)
{
	size_t i;

	if (!c->caliber.mismatches.nr)
		fprintf(out, "caliber: ok (backend %s, device %s, level %s, shape mode %s, timer plan %s, "
			"tuner cache %s)\n", zl_term_str(c->a->backend ? c->a->backend : NONE_TEXT),
			zl_term_str(c->a->device_name ? c->a->device_name : NONE_TEXT),
			zl_term_str(c->a->level ? c->a->level : NONE_TEXT),
			zl_term_str(c->a->shape_mode ? c->a->shape_mode : NONE_TEXT),
			zl_term_str(c->a->timer_plan ? c->a->timer_plan : NONE_TEXT),
			zl_term_str(c->a->tuner_cache_mode ? c->a->tuner_cache_mode : NONE_TEXT));
	else
		print_diffs(out, "caliber: MISMATCH (allowed)", &c->caliber.mismatches);
	fprintf(out, "autotune: %s\n", zl_term_str(c->caliber.autotune));
	for (i = 0; i < c->caliber.flags.nr; i++)
		fprintf(out, "%sflag: %s%s\n", warn, zl_term_str(c->caliber.flags.v[i]), reset);
	print_diffs(out, "A/B variables:", &c->caliber.variables);
}

/* The gate's verdict, its rule, its reasons and the failed row count; nothing without a gate. */
static void print_gate(const struct zl_compare *c, FILE *out, int use_color)
{
	const char *red = use_color ? zl_color_start(ZL_COLOR_RED) : "";
	const char *green = use_color ? zl_color_start(ZL_COLOR_GREEN) : "";
	const char *reset = use_color ? ZL_COLOR_RESET : "";
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	if (c->opts.fail_pct < 0)
		return;
	fprintf(out, "\ngate (--fail-on-regression %g%%) in detail: %s%s%s\n", c->opts.fail_pct,
		c->gate_failed ? red : green, c->gate_failed ? "FAILED" : "passed", reset);
	gate_rule(c, &sb);
	fprintf(out, "  rule: %s\n", sb.buf);
	for (i = 0; i < c->gate_reasons.nr; i++)
		fprintf(out, "  %s\n", zl_term_str(c->gate_reasons.v[i]));
	fprintf(out, "  %zu of %zu gems shapes failed the gate%s\n", c->gate_rows, c->gems_rows,
		c->gate_rows ? " (FAILED in the gate column)" : "");
	strbuf_release(&sb);
}

/* The people's view of the rows: each row's figures, its method, floor and advice. */
static void compare_view(const struct zl_compare *c, const struct zl_view_opts *o, struct zl_view *v)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	zl_view_init(v);
	v->method = 1;
	v->extra_head = "floor";
	v->gate = c->opts.fail_pct >= 0;
	for (i = 0; i < c->nr_rows; i++) {
		const struct zl_compare_row *r = &c->rows[i];
		struct zl_view_row *w = zl_view_add(v);

		w->op = r->op;
		w->dtype = r->dtype;
		w->shape = r->shape;
		w->occurrence = r->occurrence;
		w->side = r->side;
		w->a_ms = r->a_ms;
		w->b_ms = r->b_ms;
		w->ratio = r->ratio;
		w->ci_low = r->ci_low;
		w->ci_high = r->ci_high;
		w->p_value = r->p_value;
		w->verdict = r->verdict;
		w->unsure = r->detail.unsure;
		w->advice = r->advice;
		w->gate_failed = r->gate_failed;
		strbuf_reset(&sb);
		fmt_method(&sb, r);
		w->method = xstrdup(sb.buf);
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%g%% ", r->floor_pct);
		floor_source(c, r, &sb);
		w->extra = xstrdup(sb.buf);
	}
	zl_view_settle(v, o);
	strbuf_release(&sb);
}

/*
 * The answer in one line: the gate, each side's verdict counts, the gems geomean with its
 * interval. bold/red/green/reset frame the gate's word (colour, or Markdown's **).
 */
static void verdict_line(const struct zl_compare *c, const struct zl_view *v, struct strbuf *sb, const char *on,
			 const char *off)
{
	const struct zl_geomean *g = &c->overall;

	if (c->opts.fail_pct >= 0)
		strbuf_addf(sb, "gate (--fail-on-regression %g%%): %s%s%s; ", c->opts.fail_pct, on,
			    c->gate_failed ? "FAILED" : "passed", off);
	strbuf_addstr(sb, "gems: ");
	zl_view_counts(v, ZL_SIDE_GEMS, sb);
	if (g->n) {
		strbuf_addf(sb, "; geomean B/A %.4f (", g->geomean);
		zl_fmt_change(sb, g->geomean);
		strbuf_addf(sb, ") [%.4f, %.4f]", g->lo, g->hi);
	} else {
		strbuf_addstr(sb, "; geomean B/A: none (no gems shape on both sides)");
	}
	strbuf_addstr(sb, "; torch: ");
	zl_view_counts(v, ZL_SIDE_TORCH, sb);
}

/* The first line of the text: the verdict. */
static void print_verdict(const struct zl_compare *c, const struct zl_view *v, int use_color, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	const char *on = use_color ? zl_color_start(c->gate_failed ? ZL_COLOR_BOLD_RED : ZL_COLOR_GREEN) : "";

	verdict_line(c, v, &sb, on, use_color ? ZL_COLOR_RESET : "");
	fprintf(out, "%s\n", sb.buf);
	strbuf_release(&sb);
}

/* What qualifies every figure: the same run twice, operators on one side, an allowed mismatch. */
static void print_alerts(const struct zl_compare *c, FILE *out, const char *warn, const char *reset)
{
	struct strvec lines = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	zl_compare_alerts(c, &lines);
	for (i = 0; i < lines.nr; i++)
		fprintf(out, "%swarning: %s%s\n", warn, zl_term_str(lines.v[i]), reset);
	if (has_mismatch(c)) {
		mismatch_summary(c, &sb, "; ");
		fprintf(out, "%sWARNING: caliber mismatch allowed (--allow-caliber-mismatch): %s%s\n", warn,
			zl_term_str(sb.buf), reset);
	}
	fputc('\n', out);
	strvec_clear(&lines);
	strbuf_release(&sb);
}

/* How A and B were measured and judged: the runs, the caliber, the floor, the rules. */
static void print_setup(const struct zl_compare *c, FILE *out, const char *warn, const char *reset)
{
	struct strbuf sb = STRBUF_INIT;

	print_run_line(out, "A", c->a, warn, reset);
	print_run_line(out, "B", c->b, warn, reset);
	print_caliber(c, out, warn, reset);
	zl_compare_floor_summary(c, &sb);
	fprintf(out, "floor: %s\n", sb.buf);
	strbuf_reset(&sb);
	verdict_summary(c, &sb);
	fprintf(out, "verdicts: %s\n\n", sb.buf);
	strbuf_release(&sb);
}

/* The drift line, or why the torch side is no control; then the comparison's warnings. */
static void print_warnings(const struct zl_compare *c, FILE *out, const char *warn, const char *reset)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	if (c->drift.moved) {
		drift_line(c, &sb);
		fprintf(out, "%s%s%s\n", warn, sb.buf, reset);
	} else if (no_control_reason(c, &sb)) {
		fprintf(out, "drift control: none (%s)\n", sb.buf);
	}
	for (i = 0; i < c->warnings.nr; i++)
		fprintf(out, "%swarning: %s%s\n", warn, zl_term_str(c->warnings.v[i]), reset);
	strbuf_release(&sb);
}

void zl_compare_print_text(const struct zl_compare *c, const struct zl_view_opts *opts, FILE *out)
{
	struct zl_view_opts defaults = ZL_VIEW_OPTS_INIT;
	const struct zl_view_opts *o = opts ? opts : &defaults;
	const char *warn = o->use_color ? zl_color_start(ZL_COLOR_YELLOW) : "";
	const char *reset = o->use_color ? ZL_COLOR_RESET : "";
	struct zl_view v;

	compare_view(c, o, &v);
	print_verdict(c, &v, o->use_color, out);
	print_alerts(c, out, warn, reset);
	zl_view_print_changed(&v, o, out);
	zl_view_print_unsure(&v, o, out);
	zl_view_print_rest(&v, o, out);
	print_setup(c, out, warn, reset);
	print_geomeans(c, out, o->use_color);
	print_warnings(c, out, warn, reset);
	print_gate(c, out, o->use_color);
	if (has_mismatch(c))
		fprintf(out, "%sWARNING: A and B differ in caliber; the figures above may not be "
			"comparable%s\n", warn, reset);
	zl_view_release(&v);
}

/* JSON */

static cJSON *diffs_json(const struct zl_diffs *d)
{
	cJSON *arr = cJSON_CreateArray();
	size_t i;

	for (i = 0; arr && i < d->nr; i++) {
		cJSON *o = cJSON_CreateObject();

		if (zl_json_add_item(arr, NULL, o)) {
			break;
		}
		if (zl_json_add_string(o, "field", d->v[i].field) ||
		    zl_json_add_string(o, "a", d->v[i].a) || zl_json_add_string(o, "b", d->v[i].b))
			break;
	}
	if (arr && i < d->nr) {
		cJSON_Delete(arr);
		return NULL;
	}
	return arr;
}

static int run_json(cJSON *root, const char *key, const struct zl_run *r)
{
	cJSON *o = cJSON_AddObjectToObject(root, key);

	return !o || zl_json_add_string(o, "run_id", r->run_id) ||
	       zl_json_add_string(o, "dir", r->dir) || zl_json_add_string(o, "status", r->status) ||
	       zl_json_add_string(o, "started_at", r->started_at) ||
	       zl_json_add_bool(o, "has_results", r->has_results) ||
	       zl_json_add_bool(o, "has_timer", r->has_timer) ||
	       zl_json_add_number(o, "rows_with_samples", (double)r->rows_with_samples) ||
	       zl_json_add_string(o, "history", zl_history_loaded_note(r)) ? -1 : 0;
}

static int caliber_json(cJSON *root, const struct zl_compare *c)
{
	const struct zl_caliber *cal = &c->caliber;
	cJSON *o = cJSON_AddObjectToObject(root, "caliber");

	return !o || zl_json_add_bool(o, "ok", !cal->mismatches.nr) ||
	       zl_json_add_bool(o, "mismatch_allowed", cal->mismatches.nr > 0) ||
	       zl_json_add_item(o, "mismatches", diffs_json(&cal->mismatches)) ||
	       zl_json_add_string(o, "autotune", cal->autotune) ||
	       zl_json_add_bool(o, "autotune_proper", cal->autotune_proper) ||
	       zl_json_add_bool(o, "cache_inheritance", cal->cache_inheritance) ||
	       zl_json_add_item(o, "flags", zl_json_strvec(&cal->flags)) ||
	       zl_json_add_item(o, "variables", diffs_json(&cal->variables)) ? -1 : 0;
}

static int modes_json(cJSON *o, const char *key, const struct zl_bimodal *m)
{
	cJSON *x = cJSON_AddObjectToObject(o, key);

	return !x || zl_json_add_bool(x, "bimodal", m->bimodal) ||
	       zl_json_add_number(x, "sarle", m->sarle) ||
	       zl_json_add_number(x, "low_mean_ms", m->low_mean) ||
	       zl_json_add_number(x, "high_mean_ms", m->high_mean) ||
	       zl_json_add_number(x, "high_frac", m->high_frac) || zl_json_add_number(x, "dip", m->dip) ? -1 : 0;
}

static int row_json(cJSON *arr, const struct zl_compare *c, const struct zl_compare_row *r)
{
	cJSON *o = cJSON_CreateObject(), *fl;
	struct strbuf src = STRBUF_INIT;
	int bad;

	if (zl_json_add_item(arr, NULL, o)) {
		return -1;
	}
	floor_source(c, r, &src);
	fl = cJSON_AddObjectToObject(o, "floor");
	bad = zl_json_add_string(o, "op", r->op) || zl_json_add_string(o, "dtype", r->dtype) ||
	      zl_json_add_string(o, "shape", r->shape) ||
	      zl_json_add_number(o, "occurrence", r->occurrence) ||
	      zl_json_add_string(o, "side", zl_side_name(r->side)) ||
	      zl_json_add_number(o, "a_ms", r->a_ms) || zl_json_add_number(o, "b_ms", r->b_ms) ||
	      zl_json_add_number(o, "ratio", r->ratio) ||
	      zl_json_add_number(o, "ci_low", r->ci_low) || zl_json_add_number(o, "ci_high", r->ci_high) ||
	      zl_json_add_number(o, "p_value", r->p_value) ||
	      zl_json_add_string(o, "verdict", zl_verdict_name(r->verdict)) ||
	      zl_json_add_string(o, "method", zl_method_name(r->method)) ||
	      !fl || zl_json_add_number(fl, "pct", r->floor_pct) || zl_json_add_string(fl, "source", src.buf) ||
	      zl_json_add_string(fl, "size_class", (size_t)r->floor_class < ZL_SIZE__COUNT
							   ? zl_size_class_name((enum zl_size_class)r->floor_class)
							   : NULL) ||
	      zl_json_add_number(o, "threshold_pct", r->threshold_pct) ||
	      zl_json_add_string(o, "unsure_reason", r->unsure_reason) ||
	      zl_json_add_string(o, "advice", r->advice) ||
	      zl_json_add_string(o, "basis", zl_noise_basis_name(r->basis)) ||
	      zl_json_add_number(o, "band_ms", r->band_ms) ||
	      zl_json_add_number(o, "a_iqr_ms", r->a_iqr) || zl_json_add_number(o, "b_iqr_ms", r->b_iqr) ||
	      zl_json_add_number(o, "a_samples", r->a_samples < 0 ? NAN : (double)r->a_samples) ||
	      zl_json_add_number(o, "b_samples", r->b_samples < 0 ? NAN : (double)r->b_samples) ||
	      zl_json_add_number(o, "a_clock_mhz", r->a_clock_mhz) ||
	      zl_json_add_number(o, "b_clock_mhz", r->b_clock_mhz) ||
	      zl_json_add_string(o, "a_kernels", r->a_kernels) ||
	      zl_json_add_string(o, "b_kernels", r->b_kernels) ||
	      zl_json_add_tristate(o, "a_host_bound", r->a_host_bound) ||
	      zl_json_add_tristate(o, "b_host_bound", r->b_host_bound) ||
	      zl_json_add_tristate(o, "a_no_device_work", r->a_no_device_work) ||
	      zl_json_add_tristate(o, "b_no_device_work", r->b_no_device_work) ||
	      zl_json_add_number(o, "gems_torch_ratio", r->norm_ratio) ||
	      zl_json_add_bool(o, "gate_failed", r->gate_failed) || zl_compare_eff_row_json(o, c, r);
	if (!bad && r->method == ZL_METHOD_SAMPLES) {
		cJSON *s = cJSON_AddObjectToObject(o, "samples");

		bad = !s || zl_json_add_number(s, "a_n", (double)r->detail.a_n) ||
		      zl_json_add_number(s, "b_n", (double)r->detail.b_n) ||
		      zl_json_add_number(s, "p_min", r->detail.p_min) ||
		      zl_json_add_number(s, "se_log", r->detail.se_log) ||
		      zl_json_add_number(s, "within_se_log", r->detail.within_se_log) ||
		      zl_json_add_number(s, "run_sd_log", r->detail.run_sd) ||
		      modes_json(s, "a_modes", &r->detail.a_modes) || modes_json(s, "b_modes", &r->detail.b_modes);
	}
	strbuf_release(&src);
	return bad ? -1 : 0;
}

static int geomean_json(cJSON *o, const struct zl_geomean *g, int norm)
{
	cJSON *n;

	if ((g->op && zl_json_add_string(o, "op", g->op)) ||
	    zl_json_add_number(o, "n", (double)g->n) || zl_json_add_number(o, "geomean", g->geomean) ||
	    zl_json_add_number(o, "ci_low", g->lo) || zl_json_add_number(o, "ci_high", g->hi))
		return -1;
	if (!norm)
		return 0;
	n = cJSON_AddObjectToObject(o, "gems_torch");
	return !n || zl_json_add_number(n, "n", (double)g->norm_n) ||
	       zl_json_add_number(n, "geomean", g->norm_n ? g->norm : NAN) ||
	       zl_json_add_number(n, "ci_low", g->norm_n ? g->norm_lo : NAN) ||
	       zl_json_add_number(n, "ci_high", g->norm_n ? g->norm_hi : NAN) ? -1 : 0;
}

static int geomeans_json(cJSON *root, const struct zl_compare *c)
{
	cJSON *o = cJSON_AddObjectToObject(root, "geomean");
	cJSON *overall, *ops;
	char seed[32];
	size_t i;

	/* as text: a 64-bit seed does not survive a JSON number */
	snprintf(seed, sizeof(seed), "0x%" PRIx64, c->opts.seed);
	if (!o || zl_json_add_string(o, "side", "gems") ||
	    zl_json_add_number(o, "confidence", 0.95) ||
	    zl_json_add_number(o, "resamples", c->opts.resamples) ||
	    zl_json_add_string(o, "seed", seed))
		return -1;
	overall = cJSON_AddObjectToObject(o, "overall");
	ops = cJSON_AddArrayToObject(o, "ops");
	if (!overall || !ops || geomean_json(overall, &c->overall, c->drift.control))
		return -1;
	for (i = 0; i < c->nr_ops; i++) {
		cJSON *g = cJSON_CreateObject();
		if (zl_json_add_item(ops, NULL, g)) {
			return -1;
		}
		if (geomean_json(g, &c->ops[i], c->drift.control))
			return -1;
	}
	return 0;
}

static int calibration_json(cJSON *o, const struct zl_calibration *cal)
{
	cJSON *x, *classes;
	size_t i, k;

	if (!cal)
		return cJSON_AddNullToObject(o, "calibration") ? 0 : -1;
	x = cJSON_AddObjectToObject(o, "calibration");
	if (!x || zl_json_add_number(x, "id", (double)cal->id) ||
	    zl_json_add_string(x, "backend", cal->backend) ||
	    zl_json_add_string(x, "device_name", cal->device_name) ||
	    zl_json_add_string(x, "timer", cal->timer) ||
	    zl_json_add_string(x, "flaggems_commit", cal->flaggems_commit) ||
	    zl_json_add_string(x, "created_at", cal->created_at) ||
	    !(classes = cJSON_AddObjectToObject(x, "classes")))
		return -1;
	for (i = 0; i < ZL_SIZE__COUNT; i++) {
		const struct zl_calibration_class *cc = &cal->cls[i];
		cJSON *c, *ff;

		if (!cc->present)
			continue;
		c = cJSON_AddObjectToObject(classes, zl_size_class_name((enum zl_size_class)i));
		if (!c || zl_json_add_number(c, "floor_pct", cc->floor_pct) ||
		    zl_json_add_number(c, "spread_rel", cc->spread_rel) ||
		    zl_json_add_number(c, "rows", (double)cc->rows) ||
		    !(ff = cJSON_AddObjectToObject(c, "false_flag")))
			return -1;
		for (k = 0; k < ZL_CALIBRATION_LEVELS; k++) {
			char key[16];

			snprintf(key, sizeof(key), "%g", zl_calibration_levels_pct[k]);
			if (zl_json_add_number(ff, key, cc->false_flag[k]))
				return -1;
		}
	}
	return 0;
}

static int verdicts_json(cJSON *root, const struct zl_compare *c)
{
	cJSON *v = cJSON_AddObjectToObject(root, "verdicts");
	cJSON *fl = cJSON_AddObjectToObject(root, "floor");
	struct strbuf sb = STRBUF_INIT;
	int bad;

	verdict_summary(c, &sb);
	bad = !v || zl_json_add_string(v, "summary", sb.buf) ||
	      zl_json_add_number(v, "alpha", ZL_VERDICT_ALPHA) ||
	      zl_json_add_number(v, "confidence", ZL_VERDICT_CONF) ||
	      zl_json_add_number(v, "trim", ZL_VERDICT_TRIM) ||
	      zl_json_add_number(v, "floor_sigmas", ZL_FLOOR_SIGMAS) ||
	      zl_json_add_number(v, "threshold_pct", c->opts.threshold_pct > 0 ? c->opts.threshold_pct : NAN) ||
	      zl_json_add_number(v, "rows_samples", (double)c->rows_samples) ||
	      zl_json_add_number(v, "rows_medians", (double)(c->rows_iqr + c->rows_threshold)) ||
	      zl_json_add_number(v, "rows_unsure", (double)c->rows_unsure);
	strbuf_reset(&sb);
	zl_compare_floor_summary(c, &sb);
	bad = bad || !fl || zl_json_add_number(fl, "fixed_pct", ZL_FIXED_FLOOR_PCT) ||
	      zl_json_add_string(fl, "summary", sb.buf) || zl_json_add_string(fl, "note", c->opts.floor_note) ||
	      calibration_json(fl, c->opts.calibration);
	strbuf_release(&sb);
	return bad ? -1 : 0;
}

static int drift_json(cJSON *root, const struct zl_compare *c)
{
	const struct zl_drift *d = &c->drift;
	cJSON *o = cJSON_AddObjectToObject(root, "drift"), *t;
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
	int bad;

	if (d->moved)
		drift_line(c, &sb);
	bad = !o || zl_json_add_bool(o, "control", d->control) ||
	      zl_json_add_string(o, "torch_a", d->torch_a) || zl_json_add_string(o, "torch_b", d->torch_b) ||
	      zl_json_add_string(o, "no_control", no_control_reason(c, &why)) ||
	      zl_json_add_bool(o, "moved", d->moved) ||
	      zl_json_add_string(o, "line", d->moved ? sb.buf : NULL) ||
	      !(t = cJSON_AddObjectToObject(o, "torch")) || geomean_json(t, &d->torch, 0);
	strbuf_release(&sb);
	strbuf_release(&why);
	return bad ? -1 : 0;
}

/* "warning": the allowed caliber mismatch, only when there is one. */
static int mismatch_json(cJSON *root, const struct zl_compare *c)
{
	struct strbuf w = STRBUF_INIT;
	int bad;

	if (!c->caliber.mismatches.nr)
		return 0;
	strbuf_addstr(&w, "caliber mismatch allowed (--allow-caliber-mismatch): ");
	mismatch_summary(c, &w, "; ");
	bad = zl_json_add_string(root, "warning", w.buf);
	strbuf_release(&w);
	return bad ? -1 : 0;
}

static int noise_json(cJSON *root, const struct zl_compare *c)
{
	cJSON *noise = cJSON_AddObjectToObject(root, "noise");

	return !noise || zl_json_add_string(noise, "rule", "medians without samples_ms: iqr: same when "
					    "|B-A| <= max((IQR_A+IQR_B)/2, threshold * A); threshold: same "
					    "when |B/A-1| <= threshold") ||
	       zl_json_add_number(noise, "rows_iqr", (double)c->rows_iqr) ||
	       zl_json_add_number(noise, "rows_threshold", (double)c->rows_threshold) ? -1 : 0;
}


static int gate_json(cJSON *root, const struct zl_compare *c)
{
	cJSON *gate = cJSON_AddObjectToObject(root, "gate");
	struct strbuf rule = STRBUF_INIT;
	int bad;

	if (c->opts.fail_pct >= 0)
		gate_rule(c, &rule);
	bad = !gate || zl_json_add_number(gate, "fail_pct", c->opts.fail_pct >= 0 ? c->opts.fail_pct : NAN) ||
	      zl_json_add_bool(gate, "fail_on_unsure", c->opts.fail_on_unsure) ||
	      zl_json_add_string(gate, "rule", c->opts.fail_pct >= 0 ? rule.buf : NULL) ||
	      zl_json_add_bool(gate, "failed", c->gate_failed) ||
	      zl_json_add_number(gate, "failed_rows", (double)c->gate_rows) ||
	      zl_json_add_item(gate, "reasons", zl_json_strvec(&c->gate_reasons));
	strbuf_release(&rule);
	return bad ? -1 : 0;
}

/* What is compared with what: the same run twice, operators on one side only. */
static int alerts_json(cJSON *root, const struct zl_compare *c)
{
	struct strvec lines = STRVEC_INIT;
	int bad;

	zl_compare_alerts(c, &lines);
	bad = zl_json_add_bool(root, "same_run", c->same_run) ||
	      zl_json_add_item(root, "ops_only_a", zl_json_strvec(&c->ops_only_a)) ||
	      zl_json_add_item(root, "ops_only_b", zl_json_strvec(&c->ops_only_b)) ||
	      zl_json_add_item(root, "alerts", zl_json_strvec(&lines));
	strvec_clear(&lines);
	return bad ? -1 : 0;
}

/* Output written as it is made: sb goes to out (when given) each time it holds this much. */
#define STREAM_CHUNK (1 << 20)

static int flush_to(struct strbuf *sb, FILE *out, size_t at_least)
{
	if (!out || sb->len < at_least)
		return 0;
	if (fwrite(sb->buf, 1, sb->len, out) != sb->len)
		return -1;
	strbuf_reset(sb);
	return 0;
}

/*
 * The document: everything but the rows built as one cJSON object, then "rows" last,
 * each row built, printed and freed in turn, so that a comparison of a million rows
 * never holds their tree (about 3 KiB a row) nor, with out given, their text.
 */
static int json_doc(const struct zl_compare *c, struct strbuf *sb, FILE *out, struct strbuf *err)
{
	cJSON *root = cJSON_CreateObject(), *rows = NULL;
	size_t replaced = 0, i;

	if (!root || zl_json_add_schema(root, ZL_SCHEMA_COMPARE) || alerts_json(root, c) ||
	    run_json(root, "a", c->a) || run_json(root, "b", c->b) || caliber_json(root, c) ||
	    mismatch_json(root, c) || verdicts_json(root, c) || noise_json(root, c) || geomeans_json(root, c) ||
	    drift_json(root, c) || gate_json(root, c) || zl_compare_eff_json(root, c) ||
	    zl_json_add_item(root, "warnings", zl_json_strvec(&c->warnings)) || zl_json_print_valid(sb, root, 1, &replaced))
		goto oom;
	/* cJSON ends an indented object with "\n}": the rows go before that */
	if (sb->len < 2 || strcmp(sb->buf + sb->len - 2, "\n}"))
		goto oom;
	strbuf_setlen(sb, sb->len - 2);
	strbuf_addstr(sb, ",\n\t\"rows\":\t[");
	for (i = 0; i < c->nr_rows; i++) {
		if (!(rows = cJSON_CreateArray()) || row_json(rows, c, &c->rows[i]))
			goto oom;
		strbuf_addstr(sb, i ? ",\n\t\t" : "\n\t\t");
		if (zl_json_print_valid(sb, cJSON_GetArrayItem(rows, 0), 0, &replaced))
			goto oom;
		cJSON_Delete(rows);
		rows = NULL;
		if (flush_to(sb, out, STREAM_CHUNK))
			goto write_error;
	}
	strbuf_addstr(sb, c->nr_rows ? "\n\t]\n}\n" : "]\n}\n");
	zl_json_warn_replaced("compare --json", replaced);
	cJSON_Delete(root);
	if (flush_to(sb, out, 0))
		return zl_error(err, "cannot write the json comparison: %s", strerror(errno));
	return 0;
write_error:
	cJSON_Delete(root);
	return zl_error(err, "cannot write the json comparison: %s", strerror(errno));
oom:
	cJSON_Delete(rows);
	cJSON_Delete(root);
	return zl_error(err, "cannot build the json comparison: out of memory");
}

int zl_compare_render_json(const struct zl_compare *c, struct strbuf *sb, struct strbuf *err)
{
	return json_doc(c, sb, NULL, err);
}

int zl_compare_write_json(const struct zl_compare *c, FILE *out, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	int rc = json_doc(c, &sb, out, err);

	strbuf_release(&sb);
	return rc;
}

/* The gate's verdict with its reasons on one line: empty without a gate. */
static void gate_summary(const struct zl_compare *c, struct strbuf *sb)
{
	size_t i;

	if (c->opts.fail_pct < 0)
		return;
	strbuf_addstr(sb, c->gate_failed ? "failed" : "passed");
	for (i = 0; i < c->gate_reasons.nr; i++)
		strbuf_addf(sb, "%s%s", i ? "; " : ": ", c->gate_reasons.v[i]);
}

static void csv_num(struct strbuf *sb, struct strbuf *cell, double v)
{
	strbuf_reset(cell);
	if (isfinite(v))
		strbuf_addf(cell, "%.10g", v);
	zl_csv_field(sb, cell->buf, 0);
}

/* The CSV's last columns carry the run's facts into every row. */
enum { RUN_COLUMNS = 6 };

/* The run-level columns' values, in the order of zl_compare_render_csv's head. */
static void csv_run_columns(const struct zl_compare *c, struct strbuf runcols[RUN_COLUMNS])
{
	size_t i;

	if (c->caliber.mismatches.nr) {
		strbuf_addstr(&runcols[0], "mismatch allowed: ");
		mismatch_summary(c, &runcols[0], "; ");
	} else {
		strbuf_addstr(&runcols[0], "ok");
	}
	gate_summary(c, &runcols[1]);
	strbuf_addstr(&runcols[2], c->caliber.autotune ? c->caliber.autotune : "");
	for (i = 0; i < c->caliber.flags.nr; i++)
		strbuf_addf(&runcols[3], "%s%s", i ? "; " : "", c->caliber.flags.v[i]);
	zl_compare_floor_summary(c, &runcols[4]);
	if (c->drift.moved)
		drift_line(c, &runcols[5]);
}

/* One row's own fields, up to the run-level columns; cell is scratch. */
static void csv_row(struct strbuf *sb, const struct zl_compare *c, const struct zl_compare_row *r,
		    struct strbuf *cell)
{
	zl_csv_field(sb, r->op, 1);
	zl_csv_field(sb, r->dtype, 0);
	zl_csv_field(sb, r->shape, 0);
	strbuf_reset(cell);
	strbuf_addf(cell, "%d", r->occurrence);
	zl_csv_field(sb, cell->buf, 0);
	zl_csv_field(sb, zl_side_name(r->side), 0);
	csv_num(sb, cell, r->a_ms);
	csv_num(sb, cell, r->b_ms);
	csv_num(sb, cell, r->ratio);
	csv_num(sb, cell, isfinite(r->ratio) ? (r->ratio - 1) * 100 : NAN);
	csv_num(sb, cell, r->ci_low);
	csv_num(sb, cell, r->ci_high);
	csv_num(sb, cell, r->p_value);
	zl_csv_field(sb, zl_verdict_name(r->verdict), 0);
	zl_csv_field(sb, zl_method_name(r->method), 0);
	csv_num(sb, cell, r->floor_pct);
	strbuf_reset(cell);
	floor_source(c, r, cell);
	zl_csv_field(sb, cell->buf, 0);
	csv_num(sb, cell, r->threshold_pct);
	zl_csv_field(sb, r->unsure_reason ? r->unsure_reason : "", 0);
	zl_csv_field(sb, r->advice ? r->advice : "", 0);
	zl_csv_field(sb, zl_noise_basis_name(r->basis), 0);
	csv_num(sb, cell, r->band_ms);
	csv_num(sb, cell, r->norm_ratio);
	/* empty without a gate, and on rows the gate does not judge (torch, new in B) */
	zl_csv_field(sb, c->opts.fail_pct < 0 || r->side != ZL_SIDE_GEMS ? "" :
			 r->gate_failed ? "failed" : r->verdict != ZL_VERDICT_MISSING ? "passed" : "", 0);
}

/*
 * CSV: one line per row; the run-level columns (caliber, gate_result, autotune,
 * flags, floor_summary, drift) carry the run's facts into every row. With no row
 * at all, one line with empty row fields still carries them.
 */
/* The CSV into sb, going to out (when given) a chunk at a time; -1 when out refused it. */
static int csv_doc(const struct zl_compare *c, struct strbuf *sb, FILE *out)
{
	int bad = 0;
	static const char *const head[] = { "op", "dtype", "shape", "occurrence", "side", "a_ms",
					    "b_ms", "ratio", "change_pct", "ci_low", "ci_high",
					    "p_value", "verdict", "method", "floor_pct", "floor_source",
					    "threshold_pct", "unsure_reason", "advice", "basis", "band_ms",
					    "gems_torch_ratio", "gate",
					    /* run-level */
					    "caliber", "gate_result", "autotune", "flags", "floor_summary",
					    "drift" };
	struct strbuf cell = STRBUF_INIT, runcols[RUN_COLUMNS];
	size_t i, k;

	for (k = 0; k < RUN_COLUMNS; k++)
		strbuf_init(&runcols[k], 0);
	csv_run_columns(c, runcols);
	for (i = 0; i < ZL_ARRAY_SIZE(head); i++)
		zl_csv_field(sb, head[i], i == 0);
	zl_csv_end_row(sb);
	if (!c->nr_rows) {
		for (i = 0; i < ZL_ARRAY_SIZE(head) - RUN_COLUMNS; i++)
			zl_csv_field(sb, "", i == 0);
		for (k = 0; k < RUN_COLUMNS; k++)
			zl_csv_field(sb, runcols[k].buf, 0);
		zl_csv_end_row(sb);
	}
	for (i = 0; i < c->nr_rows && !bad; i++) {
		csv_row(sb, c, &c->rows[i], &cell);
		for (k = 0; k < RUN_COLUMNS; k++)
			zl_csv_field(sb, runcols[k].buf, 0);
		zl_csv_end_row(sb);
		bad = flush_to(sb, out, STREAM_CHUNK);
	}
	strbuf_release(&cell);
	for (k = 0; k < RUN_COLUMNS; k++)
		strbuf_release(&runcols[k]);
	return bad || flush_to(sb, out, 0) ? -1 : 0;
}

void zl_compare_render_csv(const struct zl_compare *c, struct strbuf *sb)
{
	csv_doc(c, sb, NULL);
}

int zl_compare_write_csv(const struct zl_compare *c, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	int rc = csv_doc(c, &sb, out);

	strbuf_release(&sb);
	return rc;
}

/*
 * s as a Markdown code span: a fence of one backtick more than the longest run
 * inside, padded with a blank when s starts or ends with a backtick (CommonMark).
 */
static void md_code(struct strbuf *sb, const char *s)
{
	size_t longest = 0, run = 0, i, len = strlen(s);
	int pad;

	for (i = 0; i < len; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	pad = len && (s[0] == '`' || s[len - 1] == '`');
	for (i = 0; i <= longest; i++)
		strbuf_addch(sb, '`');
	strbuf_addstr(sb, pad ? " " : "");
	strbuf_addstr(sb, s);
	strbuf_addstr(sb, pad ? " " : "");
	for (i = 0; i <= longest; i++)
		strbuf_addch(sb, '`');
}

static void md_geomeans(const struct zl_compare *c, struct strbuf *sb)
{
	int norm = c->drift.control;
	struct strbuf cell = STRBUF_INIT;
	size_t i;

	strbuf_addf(sb, "**Geomean of B/A** (95%% bootstrap CI over shapes, %d resamples)\n\n",
		    c->opts.resamples);
	strbuf_addstr(sb, norm ? "| op | gems B/A | 95% CI | shapes | gems/torch | 95% CI |\n"
				 "|---|---:|---:|---:|---:|---:|\n" :
				 "| op | gems B/A | 95% CI | shapes |\n|---|---:|---:|---:|\n");
	for (i = 0; i <= c->nr_ops + (size_t)norm; i++) {
		const struct zl_geomean *g = i < c->nr_ops ? &c->ops[i] :
					     i == c->nr_ops ? &c->overall : &c->drift.torch;

		strbuf_addch(sb, '|');
		strbuf_reset(&cell);
		if (i < c->nr_ops)
			strbuf_addstr(&cell, g->op);
		else
			strbuf_addstr(&cell, i == c->nr_ops ? "**overall**" : "torch side (control)");
		zl_view_md_cell(sb, cell.buf);
		strbuf_reset(&cell);
		fmt_geomean(&cell, g);
		zl_view_md_cell(sb, cell.buf);
		strbuf_reset(&cell);
		fmt_ci(&cell, g);
		zl_view_md_cell(sb, cell.buf);
		strbuf_addf(sb, " %zu |", g->n);
		if (norm) {
			strbuf_reset(&cell);
			if (i <= c->nr_ops)
				fmt_norm(&cell, g, 0);
			zl_view_md_cell(sb, cell.buf);
			strbuf_reset(&cell);
			if (i <= c->nr_ops)
				fmt_norm(&cell, g, 1);
			zl_view_md_cell(sb, cell.buf);
		}
		strbuf_addch(sb, '\n');
	}
	strbuf_release(&cell);
}

/* The title (A → B) and the notes on how each run was loaded. */
static void md_title(const struct zl_compare *c, struct strbuf *sb)
{
	size_t i;

	strbuf_addstr(sb, "### zlbench compare: ");
	md_code(sb, c->a->run_id ? c->a->run_id : NONE_TEXT);
	strbuf_addstr(sb, " → ");
	md_code(sb, c->b->run_id ? c->b->run_id : NONE_TEXT);
	strbuf_addstr(sb, "\n\n");
	for (i = 0; i < 2; i++) {
		const char *note = zl_history_loaded_note(i ? c->b : c->a);
		if (note)
			strbuf_addf(sb, "> %s: %s\n\n", i ? "B" : "A", note);
	}
}

/* The caliber (ok or the allowed mismatch), autotune, the flags and the A/B variables. */
static void md_caliber(const struct zl_compare *c, struct strbuf *sb)
{
	size_t i;

	if (c->caliber.mismatches.nr) {
		strbuf_addstr(sb, "> **Warning: caliber mismatch allowed** (`--allow-caliber-mismatch`): ");
		mismatch_summary(c, sb, "; ");
		strbuf_addstr(sb, ". The figures may not be comparable.\n\n");
	} else {
		strbuf_addf(sb, "**Caliber:** ok (%s, %s, level %s, timer plan %s)\n\n",
			    c->a->backend ? c->a->backend : NONE_TEXT,
			    c->a->device_name ? c->a->device_name : NONE_TEXT,
			    c->a->level ? c->a->level : NONE_TEXT,
			    c->a->timer_plan ? c->a->timer_plan : NONE_TEXT);
	}
	strbuf_addf(sb, "**Autotune:** %s\n\n", c->caliber.autotune);
	for (i = 0; i < c->caliber.flags.nr; i++)
		strbuf_addf(sb, "- :warning: %s\n", c->caliber.flags.v[i]);
	if (c->caliber.flags.nr)
		strbuf_addch(sb, '\n');
	if (!c->caliber.variables.nr)
		return;
	strbuf_addstr(sb, "**A/B variables:**\n\n");
	for (i = 0; i < c->caliber.variables.nr; i++) {
		strbuf_addf(sb, "- %s: ", c->caliber.variables.v[i].field);
		md_code(sb, c->caliber.variables.v[i].a);
		strbuf_addstr(sb, " → ");
		md_code(sb, c->caliber.variables.v[i].b);
		strbuf_addch(sb, '\n');
	}
	strbuf_addch(sb, '\n');
}

/* The gate's verdict, its reasons and its rule; nothing without a gate. */
static void md_gate(const struct zl_compare *c, struct strbuf *sb)
{
	struct strbuf rule = STRBUF_INIT;
	size_t i;

	if (c->opts.fail_pct < 0)
		return;
	strbuf_addf(sb, "**Gate** (`--fail-on-regression %g`): %s\n", c->opts.fail_pct,
		    c->gate_failed ? "**FAILED**" : "passed");
	for (i = 0; i < c->gate_reasons.nr; i++)
		strbuf_addf(sb, "- %s\n", c->gate_reasons.v[i]);
	gate_rule(c, &rule);
	strbuf_addf(sb, "\nThe gate %s.\n", rule.buf);
	strbuf_release(&rule);
}

/* The verdict line, then the lines that qualify every figure. */
static void md_verdict(const struct zl_compare *c, const struct zl_view *v, struct strbuf *sb)
{
	struct strvec lines = STRVEC_INIT;
	size_t i;

	strbuf_addstr(sb, "**Verdict:** ");
	verdict_line(c, v, sb, "**", "**");
	strbuf_addstr(sb, "\n\n");
	zl_compare_alerts(c, &lines);
	for (i = 0; i < lines.nr; i++)
		strbuf_addf(sb, "> :warning: **%s**\n\n", lines.v[i]);
	strvec_clear(&lines);
}

void zl_compare_render_markdown(const struct zl_compare *c, const struct zl_view_opts *opts, struct strbuf *sb)
{
	struct zl_view_opts defaults = ZL_VIEW_OPTS_INIT;
	const struct zl_view_opts *o = opts ? opts : &defaults;
	struct strbuf cell = STRBUF_INIT;
	struct zl_view v;
	size_t i;

	compare_view(c, o, &v);
	md_title(c, sb);
	md_verdict(c, &v, sb);
	zl_view_markdown(&v, o, sb);
	md_caliber(c, sb);
	zl_compare_floor_summary(c, &cell);
	strbuf_addf(sb, "**Floor:** %s\n\n", cell.buf);
	strbuf_reset(&cell);
	verdict_summary(c, &cell);
	strbuf_addf(sb, "**Verdicts:** %s.\n\n", cell.buf);
	md_geomeans(c, sb);
	strbuf_reset(&cell);
	if (c->drift.moved) {
		drift_line(c, &cell);
		strbuf_addf(sb, "\n> :warning: **%s**\n", cell.buf);
	} else if (no_control_reason(c, &cell)) {
		strbuf_addf(sb, "\nDrift control: none (%s).\n", cell.buf);
	}
	strbuf_addch(sb, '\n');
	for (i = 0; i < c->warnings.nr; i++)
		strbuf_addf(sb, "- warning: %s\n", c->warnings.v[i]);
	if (c->warnings.nr)
		strbuf_addch(sb, '\n');
	md_gate(c, sb);
	zl_view_release(&v);
	strbuf_release(&cell);
}
