/*
 * compare's rows against the hardware (efficiency.h): the section `compare --efficiency`
 * prints after the main table, and the fields every row of `compare --json` carries.
 * A row is timed by compare's own estimates (a_ms, b_ms); A is held against A's device
 * peaks, B against B's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "zlbench/compare.h"
#include "zlbench/efficiency.h"
#include "zlbench/json.h"
#include "zlbench/table.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* The counts of a compare row: its shape, with FlagGems' figures from A's row, else B's. */
static void row_counts(const struct zl_compare *c, const struct zl_compare_row *r, struct zl_eff_counts *out)
{
	const struct zl_result *x = c->a ? zl_run_find(c->a, r->op, r->dtype, r->shape, r->occurrence, r->side) : NULL;
	const struct zl_result *y = c->b ? zl_run_find(c->b, r->op, r->dtype, r->shape, r->occurrence, r->side) : NULL;
	double fb = x && x->fg_bytes > 0 ? x->fg_bytes : y ? y->fg_bytes : NAN;
	double ff = x && x->fg_flops > 0 ? x->fg_flops : y ? y->fg_flops : NAN;

	zl_eff_counts_init(out);
	zl_eff_count(r->op, r->dtype, r->shape, fb, ff, out);
}

static const struct zl_device_peak *run_peak(const struct zl_run *run, struct strbuf *why)
{
	return zl_eff_peak_of(run ? run->device_name : NULL, why);
}

/* ---- JSON ---------------------------------------------------------------------------------- */

static int rate_json(cJSON *o, const char *key, const struct zl_eff_rate *r)
{
	cJSON *x = cJSON_AddObjectToObject(o, key);

	return !x || zl_json_add_number(x, "ms", r->ms) || zl_json_add_number(x, "gbps", r->gbps) ||
	       zl_json_add_number(x, "tflops", r->tflops) || zl_json_add_number(x, "bw_frac", r->bw_frac) ||
	       zl_json_add_number(x, "flop_frac", r->flop_frac) ? -1 : 0;
}

int zl_compare_eff_row_json(cJSON *row, const struct zl_compare *c, const struct zl_compare_row *r)
{
	cJSON *o = cJSON_AddObjectToObject(row, "efficiency");
	const struct zl_device_peak *pa = run_peak(c->a, NULL), *pb = run_peak(c->b, NULL);
	struct zl_eff_counts n;
	struct zl_eff_rate ra, rb;
	int bad;

	row_counts(c, r, &n);
	zl_eff_rate(&n, r->a_ms, pa, r->dtype, &ra);
	zl_eff_rate(&n, r->b_ms, pb, r->dtype, &rb);
	bad = !o || zl_json_add_string(o, "family", zl_eff_family_name(n.family)) ||
	      zl_json_add_number(o, "bytes", n.bytes) || zl_json_add_string(o, "bytes_rule", n.bytes_rule) ||
	      zl_json_add_number(o, "flops", n.flops) || zl_json_add_string(o, "flops_rule", n.flops_rule) ||
	      zl_json_add_string(o, "note", n.note) ||
	      zl_json_add_string(o, "flops_peak", ra.peak_kind >= 0 ? zl_peak_kind_name(ra.peak_kind) : NULL) ||
	      rate_json(o, "a", &ra) || rate_json(o, "b", &rb);
	zl_eff_counts_release(&n);
	return bad ? -1 : 0;
}

static int peak_json(cJSON *o, const char *key, const struct zl_run *run)
{
	struct strbuf why = STRBUF_INIT;
	const struct zl_device_peak *p = run_peak(run, &why);
	cJSON *x = cJSON_AddObjectToObject(o, key), *t;
	int bad, k;

	bad = !x || zl_json_add_string(x, "device", run ? run->device_name : NULL) ||
	      zl_json_add_string(x, "model", p ? p->model : NULL) ||
	      zl_json_add_number(x, "hbm_gbps", p ? p->hbm_gbps : NAN) ||
	      zl_json_add_string(x, "source", p ? p->source : NULL) ||
	      zl_json_add_string(x, "unknown", p ? NULL : why.buf);
	if (!bad && p) {
		t = cJSON_AddObjectToObject(x, "tflops");
		bad = !t;
		for (k = 0; !bad && k < ZL_PEAK__COUNT; k++)
			bad = zl_json_add_number(t, zl_peak_kind_name(k), p->tflops[k] > 0 ? p->tflops[k] : NAN);
	}
	strbuf_release(&why);
	return bad ? -1 : 0;
}

int zl_compare_eff_json(cJSON *root, const struct zl_compare *c)
{
	cJSON *o = cJSON_AddObjectToObject(root, "device_peaks");

	return !o || peak_json(o, "a", c->a) || peak_json(o, "b", c->b) ? -1 : 0;
}

/* ---- text ---------------------------------------------------------------------------------- */

/* "H200 SXM: HBM 4.8 TB/s; dense fp32 67, tf32 494.5, ... TFLOP/s", or why there are none. */
static void peak_line(struct strbuf *sb, const struct zl_run *run)
{
	const struct zl_device_peak *p;
	struct strbuf why = STRBUF_INIT;
	int k, first = 1;

	p = run_peak(run, &why);
	if (!p) {
		strbuf_addf(sb, "unknown: %s", why.buf);
		strbuf_release(&why);
		return;
	}
	strbuf_addf(sb, "%s: HBM ", p->model);
	zl_eff_fmt_gbps(sb, p->hbm_gbps);
	strbuf_addstr(sb, "; dense");
	for (k = 0; k < ZL_PEAK__COUNT; k++)
		if (p->tflops[k] > 0) {
			strbuf_addf(sb, "%s %s %g", first ? "" : ",", zl_peak_kind_name(k), p->tflops[k]);
			first = 0;
		}
	strbuf_addstr(sb, " TFLOP/s");
	strbuf_release(&why);
}

static void print_devices(const struct zl_compare *c, FILE *out, int use_color)
{
	const struct zl_run *runs[2] = { c->a, c->b };
	struct strbuf sb = STRBUF_INIT;
	struct zl_table t;
	int s;

	zl_table_init(&t, 3, 0);
	zl_table_add(&t, "", ZL_COLOR_BOLD);
	zl_table_add(&t, "device", ZL_COLOR_BOLD);
	zl_table_add(&t, "peaks (datasheet)", ZL_COLOR_BOLD);
	for (s = 0; s < 2; s++) {
		const struct zl_device_peak *p = run_peak(runs[s], NULL);

		zl_table_add(&t, s ? "B" : "A", ZL_COLOR_NONE);
		zl_table_add(&t, runs[s] && runs[s]->device_name ? runs[s]->device_name : "(not recorded)",
			     ZL_COLOR_NONE);
		strbuf_reset(&sb);
		peak_line(&sb, runs[s]);
		zl_table_add(&t, sb.buf, p ? ZL_COLOR_NONE : ZL_COLOR_YELLOW);
		if (p) {
			zl_table_add(&t, "", ZL_COLOR_NONE);
			zl_table_add(&t, "", ZL_COLOR_NONE);
			zl_table_addf(&t, ZL_COLOR_NONE, "source: %s", p->source);
		}
	}
	zl_table_print(&t, out, use_color);
	zl_table_release(&t);
	strbuf_release(&sb);
}

static void add_rate_cells(struct zl_table *t, struct strbuf *sb, double v, double frac, int flops)
{
	strbuf_reset(sb);
	if (flops)
		zl_eff_fmt_tflops(sb, v);
	else
		zl_eff_fmt_gbps(sb, v);
	zl_table_add(t, isfinite(v) ? sb->buf : "-", ZL_COLOR_NONE);
	strbuf_reset(sb);
	zl_eff_fmt_pct(sb, frac);
	zl_table_add(t, isfinite(frac) ? sb->buf : "-", frac > 1 ? ZL_COLOR_YELLOW : ZL_COLOR_NONE);
}

/* The distinct rules, each with the ops it counted ("mm, bmm"). */
struct rule_use {
	struct strvec rules;         /* "bytes: <rule>" */
	struct strbuf *ops;          /* one per rule */
	size_t alloc;
};

static void note_rule(struct rule_use *u, const char *what, const char *rule, const char *op)
{
	char *key = xstrfmt("%s: %s", what, rule);
	long i = strvec_find(&u->rules, key);

	if (i < 0) {
		strvec_push(&u->rules, key);
		ALLOC_GROW(u->ops, u->rules.nr, u->alloc);
		i = (long)u->rules.nr - 1;
		strbuf_init(&u->ops[i], 0);
	}
	if (!strstr(u->ops[i].buf, op))
		strbuf_addf(&u->ops[i], "%s%s", u->ops[i].len ? ", " : "", op);
	free(key);
}

static void print_rows(const struct zl_compare *c, FILE *out, int use_color, struct rule_use *u)
{
	static const char *const head[] = { "op", "dtype", "shape", "side", "moves", "A GB/s", "A %HBM",
					    "B GB/s", "B %HBM", "does", "A TFLOP/s", "A %peak", "B TFLOP/s",
					    "B %peak" };
	const struct zl_device_peak *pa = run_peak(c->a, NULL), *pb = run_peak(c->b, NULL);
	struct strbuf sb = STRBUF_INIT;
	struct zl_table t;
	size_t i, k;

	zl_table_init(&t, ZL_ARRAY_SIZE(head), 0x3ff0ul);
	for (k = 0; k < ZL_ARRAY_SIZE(head); k++)
		zl_table_add(&t, head[k], ZL_COLOR_BOLD);
	for (i = 0; i < c->nr_rows; i++) {
		const struct zl_compare_row *r = &c->rows[i];
		struct zl_eff_counts n;
		struct zl_eff_rate ra, rb;

		row_counts(c, r, &n);
		zl_eff_rate(&n, r->a_ms, pa, r->dtype, &ra);
		zl_eff_rate(&n, r->b_ms, pb, r->dtype, &rb);
		zl_table_add(&t, r->op, ZL_COLOR_NONE);
		zl_table_add(&t, r->dtype, ZL_COLOR_NONE);
		strbuf_reset(&sb);
		strbuf_addstr(&sb, r->shape);
		if (r->occurrence > 1)
			strbuf_addf(&sb, " #%d", r->occurrence);
		zl_table_add(&t, sb.buf, ZL_COLOR_NONE);
		zl_table_add(&t, zl_side_name(r->side), ZL_COLOR_NONE);
		strbuf_reset(&sb);
		zl_eff_fmt_bytes(&sb, n.bytes);
		zl_table_add(&t, isfinite(n.bytes) ? sb.buf : "-", ZL_COLOR_NONE);
		add_rate_cells(&t, &sb, ra.gbps, ra.bw_frac, 0);
		add_rate_cells(&t, &sb, rb.gbps, rb.bw_frac, 0);
		strbuf_reset(&sb);
		zl_eff_fmt_flops(&sb, n.flops);
		zl_table_add(&t, isfinite(n.flops) ? sb.buf : "-", ZL_COLOR_NONE);
		add_rate_cells(&t, &sb, ra.tflops, ra.flop_frac, 1);
		add_rate_cells(&t, &sb, rb.tflops, rb.flop_frac, 1);
		note_rule(u, "bytes", n.bytes_rule, r->op);
		note_rule(u, "FLOPs", n.flops_rule, r->op);
		if (n.note)
			note_rule(u, "note", n.note, r->op);
		zl_eff_counts_release(&n);
	}
	zl_table_print(&t, out, use_color);
	zl_table_release(&t);
	strbuf_release(&sb);
}

void zl_compare_print_efficiency(const struct zl_compare *c, FILE *out, int use_color)
{
	struct rule_use u = { STRVEC_INIT, NULL, 0 };
	struct zl_table t;
	size_t i;

	fprintf(out, "\nHardware efficiency: what each row moves and computes (compulsory traffic: every "
		"input read once, every output written once), per second of A's and B's time, as a share "
		"of the device's peak\n");
	print_devices(c, out, use_color);
	fputc('\n', out);
	print_rows(c, out, use_color, &u);
	fprintf(out, "\ncounted by:\n");
	zl_table_init(&t, 2, 0);
	for (i = 0; i < u.rules.nr; i++) {
		zl_table_addf(&t, ZL_COLOR_NONE, "  %s", u.ops[i].buf);
		zl_table_add(&t, u.rules.v[i], ZL_COLOR_NONE);
		strbuf_release(&u.ops[i]);
	}
	zl_table_print(&t, out, use_color);
	zl_table_release(&t);
	strvec_clear(&u.rules);
	free(u.ops);
}
