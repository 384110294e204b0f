/* zlbench ab's analysis: rows paired over interleaved rounds, verdicts from the pairs (ab.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/ab.h"
#include "zlbench/history.h"
#include "zlbench/json.h"
#include "zlbench/rowview.h"
#include "zlbench/stats.h"
#include "zlbench/table.h"
#include "zlbench/term.h"
#include "zlbench/units.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

/* Text and Markdown list at most this many unsure rows (JSON and CSV: all). */

void zl_ab_position(size_t k, int *arm, size_t *round)
{
	size_t pair = k / 2;

	*round = pair + 1;
	/* odd rounds run A first, even rounds B first */
	*arm = (int)(k % 2) ^ (int)(pair % 2);
}

static int positive(double v)
{
	return isfinite(v) && v > 0;
}

void zl_ab_moderated(const double *logs, size_t n, double prior_var, double conf, struct zl_paired *out)
{
	double sum = 0, ss = 0, var = 0, df, pooled, q;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->n = n;
	out->mean_log = out->sd_log = out->se_log = out->df = NAN;
	out->ratio = out->lo = out->hi = out->p = NAN;
	if (!n)
		return;
	for (i = 0; i < n; i++)
		sum += logs[i];
	out->mean_log = sum / (double)n;
	for (i = 0; i < n; i++)
		ss += (logs[i] - out->mean_log) * (logs[i] - out->mean_log);
	if (n > 1)
		var = ss / (double)(n - 1);
	if (!(prior_var >= 0))
		prior_var = 0;
	df = ZL_AB_PRIOR_DF + (double)n - 1;
	pooled = (ZL_AB_PRIOR_DF * prior_var + (double)(n - 1) * var) / df;
	out->df = df;
	out->sd_log = sqrt(pooled);
	out->se_log = sqrt(pooled / (double)n);
	out->ratio = exp(out->mean_log);
	q = zl_stats_t_quantile(0.5 + conf / 2, df);
	out->lo = exp(out->mean_log - q * out->se_log);
	out->hi = exp(out->mean_log + q * out->se_log);
	if (out->se_log > 0)
		out->p = 2 * zl_stats_t_cdf(-fabs(out->mean_log) / out->se_log, df);
	else
		out->p = out->mean_log == 0 ? 1 : 0;
}

/* The squared relative standard error of a median from the timer's IQR and sample count; 0 unknown. */
static double median_rel_var(double ms, double iqr, long count)
{
	double sd;

	if (!positive(ms) || !isfinite(iqr) || iqr < 0 || count < 2)
		return 0;
	sd = 1.2533 * (iqr / 1.349) / sqrt((double)count);
	return sd * sd / (ms * ms);
}

/* Trimmed mean of one round's samples and its squared relative standard error. */
static double round_trimmed(const double *v, size_t n, double trim, double *rel_var)
{
	double *s = xmalloc((n ? n : 1) * sizeof(*s));
	struct zl_trimmed t;

	memcpy(s, v, n * sizeof(*s));
	zl_stats_sort(s, n);
	zl_stats_trimmed(s, n, trim, &t);
	free(s);
	*rel_var = t.mean > 0 && isfinite(t.se2) ? t.se2 / (t.mean * t.mean) : 0;
	return t.mean;
}

/* Bimodality of one round's samples. */
static void round_modes(const double *v, size_t n, struct zl_bimodal *m)
{
	double *s = xmalloc((n ? n : 1) * sizeof(*s));

	memcpy(s, v, n * sizeof(*s));
	zl_stats_sort(s, n);
	zl_stats_bimodality(s, n, m);
	free(s);
}

/* Keep the round whose two modes lie furthest apart (the one that can move the estimate most). */
static void worst_modes(struct zl_bimodal *keep, const struct zl_bimodal *m)
{
	double gap = m->bimodal ? m->high_mean / m->low_mean : 0;
	double kept = keep->bimodal ? keep->high_mean / keep->low_mean : 0;

	if (m->bimodal && gap > kept)
		*keep = *m;
}

/* Mann-Whitney on every round's samples of each side pooled. */
static void pooled_mwu(const struct zl_ab_pair *p, size_t n, struct zl_mwu *m)
{
	size_t na = 0, nb = 0, i, ka = 0, kb = 0;
	double *a, *b;

	for (i = 0; i < n; i++) {
		na += p[i].a_n;
		nb += p[i].b_n;
	}
	a = xmalloc((na ? na : 1) * sizeof(*a));
	b = xmalloc((nb ? nb : 1) * sizeof(*b));
	for (i = 0; i < n; i++) {
		memcpy(a + ka, p[i].a_s, p[i].a_n * sizeof(*a));
		memcpy(b + kb, p[i].b_s, p[i].b_n * sizeof(*b));
		ka += p[i].a_n;
		kb += p[i].b_n;
	}
	zl_stats_sort(a, na);
	zl_stats_sort(b, nb);
	if (zl_stats_mwu(a, na, b, nb, m))
		m->p = m->p_min = NAN;
	free(a);
	free(b);
}

static double run_sd_of(const struct zl_verdict_opts *o)
{
	double from_floor = log1p(o->floor_pct / 100) / ZL_FLOOR_SIGMAS;

	return isfinite(o->spread_rel) && o->spread_rel > from_floor ? o->spread_rel : from_floor;
}

/* Every round of the row has two or more samples on both sides (and there is a round). */
static int rounds_have_samples(const struct zl_ab_pair *p, size_t n)
{
	int samples = n > 0;
	size_t i;

	for (i = 0; i < n; i++)
		samples &= p[i].a_s && p[i].a_n >= 2 && p[i].b_s && p[i].b_n >= 2;
	return samples;
}

/* The pooled counts and the method from every round's samples; interval, p and modes are replaced later. */
static void start_from_samples(const struct zl_ab_pair *p, size_t n, const struct zl_verdict_opts *o,
			       struct zl_row_verdict *out)
{
	struct zl_sample_set *sa = xcalloc(n, sizeof(*sa)), *sb = xcalloc(n, sizeof(*sb));
	size_t i;

	for (i = 0; i < n; i++) {
		sa[i] = (struct zl_sample_set){ p[i].a_s, p[i].a_n };
		sb[i] = (struct zl_sample_set){ p[i].b_s, p[i].b_n };
	}
	zl_verdict_pairs(sa, sb, n, o, out);
	free(sa);
	free(sb);
	memset(&out->a_modes, 0, sizeof(out->a_modes));
	memset(&out->b_modes, 0, sizeof(out->b_modes));
	out->a_modes.sarle = out->b_modes.sarle = NAN;
}

/* Without samples in every round: unsure for too few samples, each round counting as one. */
static void start_from_medians(size_t n, const struct zl_verdict_opts *o, struct zl_row_verdict *out)
{
	memset(out, 0, sizeof(*out));
	out->verdict = ZL_VERDICT_UNSURE;
	out->unsure = ZL_UNSURE_FEW_SAMPLES;
	out->method = ZL_METHOD_PAIRS;
	out->threshold_pct = o->threshold_pct > o->floor_pct ? o->threshold_pct : o->floor_pct;
	out->a_ms = out->b_ms = out->ratio = out->ci_low = out->ci_high = NAN;
	out->p_value = out->p_min = out->se_log = out->within_se_log = NAN;
	out->a_modes.sarle = out->b_modes.sarle = NAN;
	out->a_n = out->b_n = n;
	out->pairs = n;
}

/* One round's A and B estimates (ms) and their squared relative standard errors. */
struct round_est {
	double a, b, a_var, b_var;
};

/* A round's estimates: its samples' trimmed means (its modes join the row's worst), else its medians. */
static void round_estimate(const struct zl_ab_pair *p, int samples, const struct zl_verdict_opts *o,
			   struct zl_row_verdict *out, struct round_est *e)
{
	struct zl_bimodal ma, mb;

	if (!samples) {
		e->a = p->a_ms;
		e->b = p->b_ms;
		e->a_var = median_rel_var(e->a, p->a_iqr, p->a_count);
		e->b_var = median_rel_var(e->b, p->b_iqr, p->b_count);
		return;
	}
	e->a = round_trimmed(p->a_s, p->a_n, o->trim, &e->a_var);
	e->b = round_trimmed(p->b_s, p->b_n, o->trim, &e->b_var);
	round_modes(p->a_s, p->a_n, &ma);
	round_modes(p->b_s, p->b_n, &mb);
	worst_modes(&out->a_modes, &ma);
	worst_modes(&out->b_modes, &mb);
}

/* The moderated paired estimate over n > 0 rounds: the geometric means, B/A, its interval and p. */
static void moderate_rounds(const struct zl_ab_pair *p, size_t n, int samples,
			    const struct zl_verdict_opts *o, struct zl_row_verdict *out)
{
	double *logs = xcalloc(n, sizeof(*logs)), sum_w = 0, la = 0, lb = 0;
	struct zl_paired pr;
	size_t i;

	for (i = 0; i < n; i++) {
		struct round_est e;

		round_estimate(&p[i], samples, o, out, &e);
		logs[i] = log(e.b / e.a);
		la += log(e.a);
		lb += log(e.b);
		sum_w += e.a_var + e.b_var;
	}
	zl_ab_moderated(logs, n, out->run_sd * out->run_sd + sum_w / (double)n, o->conf, &pr);
	free(logs);
	out->a_ms = exp(la / (double)n);
	out->b_ms = exp(lb / (double)n);
	out->ratio = pr.ratio;
	out->ci_low = pr.lo;
	out->ci_high = pr.hi;
	out->se_log = pr.se_log;
	out->within_se_log = sqrt(sum_w / (double)n / (double)n);
	out->p_value = pr.p;
	out->p_min = 0;
}

int zl_ab_row_verdict(const struct zl_ab_pair *p, size_t n, const struct zl_verdict_opts *o,
		      struct zl_row_verdict *out)
{
	int samples = rounds_have_samples(p, n);
	struct zl_mwu m;

	if (samples && n == 1) {
		zl_verdict_samples(p[0].a_s, p[0].a_n, p[0].b_s, p[0].b_n, o, out);
		return 1;
	}
	if (samples)
		start_from_samples(p, n, o, out);
	else
		start_from_medians(n, o, out);
	out->run_sd = run_sd_of(o);
	if (!n)
		return samples;
	moderate_rounds(p, n, samples, o, out);
	if (samples) {
		pooled_mwu(p, n, &m);
		if (!(m.p <= out->p_value))
			out->p_value = m.p;
		out->p_min = m.p_min;
	}
	zl_verdict_decide(out, o->alpha);
	return samples;
}

/* ---- rows ------------------------------------------------------------------- */

void zl_ab_init(struct zl_ab *ab)
{
	struct zl_compare_opts o = ZL_COMPARE_OPTS_INIT;

	memset(ab, 0, sizeof(*ab));
	ab->opts = o;
	ab->gems.geomean = ab->gems.lo = ab->gems.hi = ab->gems.p = NAN;
	ab->torch = ab->gems;
	strvec_init(&ab->gate_reasons);
}

void zl_ab_release(struct zl_ab *ab)
{
	size_t i;

	for (i = 0; i < ab->nr_rows; i++) {
		struct zl_ab_row *r = &ab->rows[i];

		free(r->op);
		free(r->dtype);
		free(r->shape);
		free(r->pair_ratio);
		free(r->unsure_reason);
		free(r->advice);
	}
	free(ab->rows);
	free(ab->gems.pair);
	free(ab->torch.pair);
	free(ab->floor_summary);
	strvec_clear(&ab->gate_reasons);
	zl_ab_init(ab);
}

struct keyed {
	char *key;
	const struct zl_result *r;
	size_t order;
};

static int by_key(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	int c = strcmp(a->key, b->key);

	return c ? c : (a->order > b->order) - (a->order < b->order);
}

static int by_order(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;

	return (a->order > b->order) - (a->order < b->order);
}

/* Every row key of every run, once each, in the order the rounds first show it. */
static struct keyed *row_keys(const struct zl_run *const *a, const struct zl_run *const *b, size_t pairs,
			      size_t *nr)
{
	struct keyed *v = NULL;
	size_t alloc = 0, n = 0, i, j, k, order = 0;

	for (i = 0; i < pairs; i++)
		for (k = 0; k < 2; k++) {
			const struct zl_run *run = k ? b[i] : a[i];

			for (j = 0; j < run->nr_results; j++) {
				const struct zl_result *r = &run->results[j];

				ALLOC_GROW(v, n + 1, alloc);
				v[n].key = xstrfmt("%s\x1f%s\x1f%s\x1f%d\x1f%d", r->op, r->dtype, r->shape, r->occurrence,
						   (int)r->side);
				v[n].r = r;
				v[n++].order = order++;
			}
		}
	if (n)
		qsort(v, n, sizeof(*v), by_key);
	for (i = 0, k = 0; i < n; i++) {
		if (k && !strcmp(v[k - 1].key, v[i].key)) {
			free(v[i].key);
			continue;
		}
		v[k++] = v[i];
	}
	if (k)
		qsort(v, k, sizeof(*v), by_order);
	*nr = k;
	return v;
}

static void ab_advice(const struct zl_ab_row *r, size_t pairs, struct strbuf *sb)
{
	const struct zl_row_verdict *v = &r->v;

	switch (v->unsure) {
	case ZL_UNSURE_BIMODAL:
		zl_verdict_advice(v, r->op, r->floor_calibrated, sb);
		return;
	case ZL_UNSURE_FEW_SAMPLES:
	case ZL_UNSURE_NOT_SIGNIFICANT:
	case ZL_UNSURE_OVERLAP:
		strbuf_addf(sb, "more rounds: zlbench ab again with --rounds %zu", pairs * 2 > 4 ? pairs * 2 : 4);
		if (r->samples && v->unsure != ZL_UNSURE_OVERLAP)
			strbuf_addstr(sb, " (or more samples per run: --noise-target 0.002)");
		if (!r->floor_calibrated)
			strbuf_addf(sb, "; or measure this machine's floor first (zlbench calibrate --op %s) instead "
				    "of the fixed %g%%", r->op, ZL_FIXED_FLOOR_PCT);
		return;
	case ZL_UNSURE_NONE:
		return;
	}
}

static void judge(struct zl_ab *ab, struct zl_ab_row *row, const struct zl_ab_pair *p, size_t n, double a_ms)
{
	struct zl_verdict_opts vo = ZL_VERDICT_OPTS_INIT;
	struct strbuf sb = STRBUF_INIT;
	double spread;

	row->floor_pct = zl_compare_floor(&ab->opts, a_ms, &spread, &row->floor_calibrated);
	row->floor_class = (int)zl_size_class_of(a_ms);
	vo.threshold_pct = ab->opts.threshold_pct;
	vo.floor_pct = row->floor_pct;
	vo.spread_rel = spread;
	row->samples = zl_ab_row_verdict(p, n, &vo, &row->v);
	if (!n) {
		row->v.verdict = ZL_VERDICT_MISSING;
		row->v.unsure = ZL_UNSURE_NONE;
		return;
	}
	ab->rows_samples += row->samples;
	if (row->v.verdict != ZL_VERDICT_UNSURE)
		return;
	if (row->v.unsure == ZL_UNSURE_NOT_SIGNIFICANT)
		/* compare's text names Mann-Whitney alone; here p is also (or only) the pairs' t test */
		strbuf_addf(&sb, "%s: B/A %.4f is beyond ±%g%% but p = %.2g (%s; it must be < %g)",
			    zl_unsure_name(row->v.unsure), row->v.ratio, row->v.threshold_pct, row->v.p_value,
			    row->samples ? "the larger of the pairs' t test and Mann-Whitney's on the pooled samples"
					 : "the pairs' t test", ZL_VERDICT_ALPHA);
	else
		zl_verdict_reason(&row->v, &sb);
	row->unsure_reason = strbuf_detach(&sb, NULL);
	ab_advice(row, ab->pairs, &sb);
	row->advice = strbuf_detach(&sb, NULL);
}

static void add_row(struct zl_ab *ab, const struct zl_result *key, const struct zl_run *const *a,
		    const struct zl_run *const *b)
{
	struct zl_ab_pair *p = xcalloc(ab->pairs ? ab->pairs : 1, sizeof(*p));
	struct zl_ab_row *row;
	double a_any = NAN;
	size_t i, n = 0;

	ALLOC_GROW(ab->rows, ab->nr_rows + 1, ab->alloc_rows);
	row = &ab->rows[ab->nr_rows++];
	memset(row, 0, sizeof(*row));
	row->op = xstrdup(key->op);
	row->dtype = xstrdup(key->dtype);
	row->shape = xstrdup(key->shape);
	row->occurrence = key->occurrence;
	row->side = key->side;
	row->pair_ratio = xcalloc(ab->pairs ? ab->pairs : 1, sizeof(*row->pair_ratio));
	for (i = 0; i < ab->pairs; i++) {
		const struct zl_result *ra = zl_run_find(a[i], key->op, key->dtype, key->shape, key->occurrence, key->side);
		const struct zl_result *rb = zl_run_find(b[i], key->op, key->dtype, key->shape, key->occurrence, key->side);
		int ha = ra && positive(ra->latency_ms), hb = rb && positive(rb->latency_ms);

		row->in_a |= ha;
		row->in_b |= hb;
		if (ha && !isfinite(a_any))
			a_any = ra->latency_ms;
		if (!ha || !hb)
			continue;
		p[n] = (struct zl_ab_pair){ ra->latency_ms, rb->latency_ms, ra->iqr_ms, rb->iqr_ms, ra->samples, rb->samples,
					    ra->samples_ms, rb->samples_ms, ra->nr_samples_ms, rb->nr_samples_ms };
		row->pair_ratio[n] = rb->latency_ms / ra->latency_ms;
		n++;
	}
	row->pairs = n;
	row->lost_in_b = row->side == ZL_SIDE_GEMS && row->in_a && !row->in_b;
	judge(ab, row, p, n, n ? p[0].a_ms : a_any);
	/* with samples the pairs' ratios are those of the trimmed means the verdict used */
	for (i = 0; row->samples && i < n; i++) {
		double wa, wb;

		row->pair_ratio[i] = round_trimmed(p[i].b_s, p[i].b_n, ZL_VERDICT_TRIM, &wb) /
				     round_trimmed(p[i].a_s, p[i].a_n, ZL_VERDICT_TRIM, &wa);
	}
	ab->counts[row->v.verdict]++;
	free(p);
}

static int by_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The geomean of one side over its rows, with the moderated interval over the pairs' geomeans. */
static void side_geomean(struct zl_ab *ab, enum zl_side side, struct zl_ab_geomean *g)
{
	double *logs = xcalloc(ab->pairs ? ab->pairs : 1, sizeof(*logs));
	double *priors = xcalloc(ab->nr_rows ? ab->nr_rows : 1, sizeof(*priors));
	double sum = 0;
	size_t i, k, all = 0;
	struct zl_paired pr;

	g->pair = xcalloc(ab->pairs ? ab->pairs : 1, sizeof(*g->pair));
	for (k = 0; k < ab->pairs; k++)
		g->pair[k] = NAN;
	/* rows complete in every pair: the same rows in each pair's geomean */
	for (i = 0; i < ab->nr_rows; i++) {
		const struct zl_ab_row *r = &ab->rows[i];

		if (r->side != side || r->v.verdict == ZL_VERDICT_MISSING || !positive(r->v.ratio))
			continue;
		g->rows++;
		sum += log(r->v.ratio);
		if (r->pairs != ab->pairs)
			continue;
		for (k = 0; k < ab->pairs; k++)
			logs[k] += log(r->pair_ratio[k]);
		priors[all++] = r->v.run_sd * r->v.run_sd + (double)r->pairs * r->v.within_se_log * r->v.within_se_log;
	}
	if (g->rows)
		g->geomean = exp(sum / (double)g->rows);
	if (all && ab->pairs) {
		for (k = 0; k < ab->pairs; k++) {
			logs[k] /= (double)all;
			g->pair[k] = exp(logs[k]);
		}
		qsort(priors, all, sizeof(*priors), by_double);
		zl_ab_moderated(logs, ab->pairs, priors[all / 2], ZL_VERDICT_CONF, &pr);
		g->pairs = all;
		g->geomean = pr.ratio;
		g->lo = pr.lo;
		g->hi = pr.hi;
		g->p = pr.p;
		g->rows = all;
	}
	free(logs);
	free(priors);
}

static void gate(struct zl_ab *ab)
{
	double pct = ab->opts.fail_pct, lim = 1 + pct / 100;
	size_t i;

	if (pct < 0)
		return;
	if (ab->gems.geomean > lim) {
		ab->gate_failed = 1;
		strvec_pushf(&ab->gate_reasons, "gems geomean B/A %.4f is more than %g%% slower", ab->gems.geomean, pct);
	}
	if (!ab->gems.rows) {
		ab->gate_failed = 1;
		strvec_push(&ab->gate_reasons, "no gems row has a latency in a pair of rounds");
	}
	for (i = 0; i < ab->nr_rows; i++) {
		struct zl_ab_row *r = &ab->rows[i];
		const char *why = NULL;

		if (r->side != ZL_SIDE_GEMS)
			continue;
		if (r->lost_in_b)
			why = "no latency in any B round";
		else if (r->v.verdict == ZL_VERDICT_SLOWER && r->v.ratio > lim)
			why = "slower";
		else if (ab->opts.fail_on_unsure && r->v.verdict == ZL_VERDICT_UNSURE && !(r->v.ci_high <= lim))
			why = "unsure and may be slower";
		if (!why)
			continue;
		r->gate_failed = 1;
		ab->gate_failed = 1;
		strvec_pushf(&ab->gate_reasons, "%s %s %s: %s (B/A %.4f)", r->op, r->dtype, r->shape, why, r->v.ratio);
	}
}

void zl_ab_gate_add(struct zl_ab *ab, const char *reason)
{
	strvec_push(&ab->gate_reasons, reason);
	if (ab->opts.fail_pct >= 0)
		ab->gate_failed = 1;
}

void zl_ab_analyse(const struct zl_run *const *a, const struct zl_run *const *b, size_t pairs,
		   const struct zl_compare_opts *opts, struct zl_ab *out)
{
	struct strbuf sb = STRBUF_INIT;
	struct keyed *keys;
	size_t nr, i, c, present = 0;

	out->pairs = pairs;
	out->opts = *opts;
	keys = row_keys(a, b, pairs, &nr);
	for (i = 0; i < nr; i++) {
		add_row(out, keys[i].r, a, b);
		free(keys[i].key);
	}
	free(keys);
	side_geomean(out, ZL_SIDE_GEMS, &out->gems);
	side_geomean(out, ZL_SIDE_TORCH, &out->torch);
	gate(out);
	if (opts->calibration) {
		const struct zl_calibration *cal = opts->calibration;

		zl_calibration_describe(cal, &sb);
		strbuf_addch(&sb, ':');
		for (c = 0; c < ZL_SIZE__COUNT; c++) {
			if (!cal->cls[c].present)
				continue;
			strbuf_addf(&sb, "%s %s %g%%", present++ ? "," : "", zl_size_class_name((enum zl_size_class)c),
				    cal->cls[c].floor_pct);
		}
		if (present < ZL_SIZE__COUNT)
			strbuf_addf(&sb, "; other classes: fixed %g%%", ZL_FIXED_FLOOR_PCT);
		out->calibration_id = cal->id;
	} else {
		strbuf_addf(&sb, "fixed %g%%", ZL_FIXED_FLOOR_PCT);
		if (opts->floor_note && *opts->floor_note)
			strbuf_addf(&sb, " (%s)", opts->floor_note);
	}
	out->floor_summary = strbuf_detach(&sb, NULL);
	out->opts.calibration = NULL;
	out->opts.floor_note = NULL;
}

size_t zl_ab_caliber(const struct zl_run *a, const struct zl_run *b, const struct strvec *allowed,
		     struct strvec *refusals)
{
	struct zl_caliber cal;
	size_t i, n = 0;

	zl_caliber_init(&cal);
	zl_caliber_check(a, b, &cal);
	for (i = 0; i < cal.mismatches.nr; i++, n++)
		strvec_pushf(refusals, "%s: %s vs %s", cal.mismatches.v[i].field, cal.mismatches.v[i].a,
			     cal.mismatches.v[i].b);
	for (i = 0; i < cal.variables.nr; i++) {
		const struct zl_diff *d = &cal.variables.v[i];

		if (strvec_find(allowed, d->field) >= 0)
			continue;
		strvec_pushf(refusals, "%s: %s vs %s", d->field, d->a, d->b);
		n++;
	}
	zl_caliber_release(&cal);
	return n;
}

/* ---- output ------------------------------------------------------------------ */

static const char *method_of(const struct zl_ab_row *r)
{
	if (r->v.verdict == ZL_VERDICT_MISSING)
		return "none";
	if (r->pairs == 1 && r->samples)
		return "samples";
	return r->samples ? "pairs" : "pairs: no samples_ms";
}

static void floor_source(const struct zl_ab *ab, const struct zl_ab_row *r, struct strbuf *sb)
{
	if (r->floor_calibrated)
		strbuf_addf(sb, "calibration %ld", ab->calibration_id);
	else
		strbuf_addstr(sb, "fixed");
}

static void pair_list(struct strbuf *sb, const struct zl_ab_row *r, const char *sep)
{
	size_t i;

	for (i = 0; i < r->pairs; i++)
		strbuf_addf(sb, "%s%.4f", i ? sep : "", r->pair_ratio[i]);
}

static void ci_text(struct strbuf *sb, double lo, double hi)
{
	if (isfinite(lo) && isfinite(hi))
		strbuf_addf(sb, "[%.4f, %.4f]", lo, hi);
	else
		strbuf_addch(sb, '-');
}

static void counts_line(const struct zl_ab *ab, struct strbuf *sb)
{
	static const enum zl_verdict order[] = { ZL_VERDICT_SLOWER, ZL_VERDICT_FASTER, ZL_VERDICT_SAME,
						 ZL_VERDICT_UNSURE, ZL_VERDICT_MISSING };
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(order); i++)
		strbuf_addf(sb, "%s%zu %s", i ? ", " : "", ab->counts[order[i]], zl_verdict_name(order[i]));
	strbuf_addf(sb, " (%zu of %zu rows on samples, the rest on the runs' latencies)", ab->rows_samples,
		    ab->nr_rows);
}

static void geomean_text(struct strbuf *sb, const struct zl_ab_geomean *g, size_t pairs)
{
	size_t k;

	if (!g->rows) {
		strbuf_addstr(sb, "none");
		return;
	}
	strbuf_addf(sb, "%.4f ", g->geomean);
	ci_text(sb, g->lo, g->hi);
	strbuf_addf(sb, " over %zu rows", g->rows);
	if (!g->pairs)
		return;
	strbuf_addstr(sb, "; per round:");
	for (k = 0; k < pairs; k++)
		strbuf_addf(sb, " %.4f", g->pair[k]);
}

/* The lines under the table: verdict counts, both geomeans, the gate and the runs that did not pass. */
static void print_totals(const struct zl_ab *ab, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	counts_line(ab, &sb);
	fprintf(out, "verdicts: %s\n", sb.buf);
	strbuf_reset(&sb);
	geomean_text(&sb, &ab->gems, ab->pairs);
	fprintf(out, "geomean B/A, gems: %s\n", sb.buf);
	strbuf_reset(&sb);
	geomean_text(&sb, &ab->torch, ab->pairs);
	fprintf(out, "geomean B/A, torch (the baseline): %s\n", sb.buf);
	if (ab->opts.fail_pct >= 0)
		fprintf(out, "gate (--fail-on-regression %g%s): %s\n", ab->opts.fail_pct,
			ab->opts.fail_on_unsure ? ", --fail-on-unsure" : "", ab->gate_failed ? "FAILED" : "passed");
	else if (ab->gate_reasons.nr)
		fprintf(out, "runs that did not pass:\n");
	for (i = 0; i < ab->gate_reasons.nr; i++)
		fprintf(out, "  %s\n", zl_term_str(ab->gate_reasons.v[i]));
	strbuf_release(&sb);
}

/* The people's view of the rows: each row's figures, its method and B/A per round. */
static void ab_view(const struct zl_ab *ab, const struct zl_view_opts *o, struct zl_view *v)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	zl_view_init(v);
	v->method = 1;
	v->extra_head = "B/A per round";
	v->gate = ab->opts.fail_pct >= 0;
	for (i = 0; i < ab->nr_rows; i++) {
		const struct zl_ab_row *r = &ab->rows[i];
		struct zl_view_row *w = zl_view_add(v);

		w->op = r->op;
		w->dtype = r->dtype;
		w->shape = r->shape;
		w->occurrence = r->occurrence;
		w->side = r->side;
		w->a_ms = r->v.a_ms;
		w->b_ms = r->v.b_ms;
		w->ratio = r->v.ratio;
		w->ci_low = r->v.ci_low;
		w->ci_high = r->v.ci_high;
		w->p_value = r->v.p_value;
		w->verdict = r->v.verdict;
		w->unsure = r->v.unsure;
		w->advice = r->advice;
		w->gate_failed = r->gate_failed;
		w->method = xstrdup(method_of(r));
		strbuf_reset(&sb);
		pair_list(&sb, r, " ");
		w->extra = xstrdup(sb.len ? sb.buf : "-");
	}
	zl_view_settle(v, o);
	strbuf_release(&sb);
}

/* The answer in one line: the gate, each side's counts, the gems geomean over the rounds. */
static void verdict_line(const struct zl_ab *ab, const struct zl_view *v, struct strbuf *sb, const char *on,
			 const char *off)
{
	const struct zl_ab_geomean *g = &ab->gems;

	if (ab->opts.fail_pct >= 0)
		strbuf_addf(sb, "gate (--fail-on-regression %g%%): %s%s%s; ", ab->opts.fail_pct, on,
			    ab->gate_failed ? "FAILED" : "passed", off);
	strbuf_addstr(sb, "gems: ");
	zl_view_counts(v, ZL_SIDE_GEMS, sb);
	if (g->rows && isfinite(g->geomean)) {
		strbuf_addf(sb, "; geomean B/A %.4f (", g->geomean);
		zl_fmt_change(sb, g->geomean);
		strbuf_addstr(sb, ") ");
		ci_text(sb, g->lo, g->hi);
	} else {
		strbuf_addstr(sb, "; geomean B/A: none");
	}
	strbuf_addf(sb, " over %zu round%s; torch: ", ab->pairs, ab->pairs == 1 ? "" : "s");
	zl_view_counts(v, ZL_SIDE_TORCH, sb);
}

void zl_ab_print_answer(const struct zl_ab *ab, const struct zl_view_opts *opts, FILE *out)
{
	struct zl_view_opts defaults = ZL_VIEW_OPTS_INIT;
	const struct zl_view_opts *o = opts ? opts : &defaults;
	const char *on = o->use_color ? zl_color_start(ab->gate_failed ? ZL_COLOR_BOLD_RED : ZL_COLOR_GREEN) : "";
	struct strbuf sb = STRBUF_INIT;
	struct zl_view v;

	ab_view(ab, o, &v);
	verdict_line(ab, &v, &sb, on, o->use_color ? ZL_COLOR_RESET : "");
	fprintf(out, "%s\n\n", sb.buf);
	zl_view_print_changed(&v, o, out);
	zl_view_print_unsure(&v, o, out);
	zl_view_print_rest(&v, o, out);
	zl_view_release(&v);
	strbuf_release(&sb);
}

void zl_ab_print_details(const struct zl_ab *ab, FILE *out)
{
	fprintf(out, "floor: %s\n", ab->floor_summary ? ab->floor_summary : "-");
	print_totals(ab, out);
}

static cJSON *geomean_json(const struct zl_ab_geomean *g, size_t pairs)
{
	cJSON *o = cJSON_CreateObject(), *arr = cJSON_CreateArray();
	size_t k;
	int bad = !o || !arr;

	for (k = 0; !bad && g->pairs && k < pairs; k++)
		bad = zl_json_add_item(arr, NULL, cJSON_CreateNumber(g->pair[k]));
	if (bad) {
		cJSON_Delete(arr);
		cJSON_Delete(o);
		return NULL;
	}
	/* zl_json_add_item deletes what it cannot attach: arr belongs to o from here */
	if (zl_json_add_item(o, "per_round", arr) || zl_json_add_number(o, "rows", (double)g->rows) ||
	    zl_json_add_number(o, "geomean", g->geomean) || zl_json_add_number(o, "ci_low", g->lo) ||
	    zl_json_add_number(o, "ci_high", g->hi) || zl_json_add_number(o, "p_value", g->p)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* NULL (JSON null) for a row with no A time: no class chose its floor */
static const char *row_class_name(const struct zl_ab_row *r)
{
	return r->floor_class >= 0 && r->floor_class < ZL_SIZE__COUNT
		       ? zl_size_class_name((enum zl_size_class)r->floor_class)
		       : NULL;
}

static cJSON *row_json(const struct zl_ab *ab, const struct zl_ab_row *r)
{
	cJSON *o = cJSON_CreateObject(), *fl = cJSON_CreateObject(), *pr = cJSON_CreateArray(), *s;
	struct strbuf src = STRBUF_INIT;
	size_t i;
	int bad = !o || !fl || !pr;

	for (i = 0; !bad && i < r->pairs; i++)
		bad = zl_json_add_item(pr, NULL, cJSON_CreateNumber(r->pair_ratio[i]));
	floor_source(ab, r, &src);
	bad = bad || zl_json_add_number(fl, "pct", r->floor_pct) || zl_json_add_string(fl, "source", src.buf) ||
	      zl_json_add_string(fl, "size_class", row_class_name(r));
	strbuf_release(&src);
	if (bad) {
		cJSON_Delete(o);
		cJSON_Delete(fl);
		cJSON_Delete(pr);
		return NULL;
	}
	/* zl_json_add_item deletes what it cannot attach: fl and pr belong to o from here */
	if (zl_json_add_item(o, "floor", fl) || zl_json_add_item(o, "pairs", pr) ||
	    zl_json_add_string(o, "op", r->op) || zl_json_add_string(o, "dtype", r->dtype) ||
	    zl_json_add_string(o, "shape", r->shape) || zl_json_add_number(o, "occurrence", r->occurrence) ||
	    zl_json_add_string(o, "side", zl_side_name(r->side)) || zl_json_add_number(o, "a_ms", r->v.a_ms) ||
	    zl_json_add_number(o, "b_ms", r->v.b_ms) || zl_json_add_number(o, "ratio", r->v.ratio) ||
	    zl_json_add_number(o, "ci_low", r->v.ci_low) || zl_json_add_number(o, "ci_high", r->v.ci_high) ||
	    zl_json_add_number(o, "p_value", r->v.p_value) ||
	    zl_json_add_string(o, "verdict", zl_verdict_name(r->v.verdict)) ||
	    zl_json_add_string(o, "method", method_of(r)) ||
	    zl_json_add_number(o, "threshold_pct", r->v.verdict == ZL_VERDICT_MISSING ? NAN : r->v.threshold_pct) ||
	    zl_json_add_string(o, "unsure_reason", r->unsure_reason) || zl_json_add_string(o, "advice", r->advice) ||
	    zl_json_add_number(o, "n_pairs", (double)r->pairs) || zl_json_add_bool(o, "lost_in_b", r->lost_in_b) ||
	    zl_json_add_bool(o, "gate_failed", r->gate_failed) || !(s = cJSON_AddObjectToObject(o, "detail")) ||
	    zl_json_add_number(s, "a_n", r->pairs ? (double)r->v.a_n : NAN) ||
	    zl_json_add_number(s, "b_n", r->pairs ? (double)r->v.b_n : NAN) ||
	    zl_json_add_number(s, "p_min", r->pairs ? r->v.p_min : NAN) ||
	    zl_json_add_number(s, "se_log", r->v.se_log) ||
	    zl_json_add_number(s, "within_se_log", r->v.within_se_log) ||
	    zl_json_add_number(s, "run_sd_log", r->pairs ? r->v.run_sd : NAN) ||
	    zl_json_add_bool(s, "a_bimodal", r->v.a_modes.bimodal) ||
	    zl_json_add_bool(s, "b_bimodal", r->v.b_modes.bimodal)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

int zl_ab_json(const struct zl_ab *ab, cJSON *doc)
{
	cJSON *rows = cJSON_CreateArray(), *v, *g, *gate;
	size_t i;

	if (!rows)
		return -1;
	for (i = 0; i < ab->nr_rows; i++)
		if (zl_json_add_item(rows, NULL, row_json(ab, &ab->rows[i]))) {
			cJSON_Delete(rows);
			return -1;
		}
	if (zl_json_add_item(doc, "rows", rows) || !(v = cJSON_AddObjectToObject(doc, "verdicts")) ||
	    !(g = cJSON_AddObjectToObject(doc, "geomean")) || !(gate = cJSON_AddObjectToObject(doc, "gate")))
		return -1;
	for (i = 0; i <= ZL_VERDICT_MISSING; i++)
		if (zl_json_add_number(v, zl_verdict_name((enum zl_verdict)i), (double)ab->counts[i]))
			return -1;
	return zl_json_add_number(v, "rows_samples", (double)ab->rows_samples) ||
	       zl_json_add_number(v, "alpha", ZL_VERDICT_ALPHA) ||
	       zl_json_add_number(v, "prior_df", ZL_AB_PRIOR_DF) ||
	       zl_json_add_string(v, "floor", ab->floor_summary) ||
	       zl_json_add_number(v, "calibration", ab->calibration_id > 0 ? (double)ab->calibration_id : NAN) ||
	       zl_json_add_item(g, "gems", geomean_json(&ab->gems, ab->pairs)) ||
	       zl_json_add_item(g, "torch", geomean_json(&ab->torch, ab->pairs)) ||
	       zl_json_add_number(gate, "fail_pct", ab->opts.fail_pct >= 0 ? ab->opts.fail_pct : NAN) ||
	       zl_json_add_bool(gate, "fail_on_unsure", ab->opts.fail_on_unsure) ||
	       zl_json_add_bool(gate, "failed", ab->gate_failed) ||
	       zl_json_add_item(gate, "reasons", zl_json_strvec(&ab->gate_reasons)) ? -1 : 0;
}

void zl_ab_render_csv(const struct zl_ab *ab, struct strbuf *sb)
{
	static const char *const head[] = { "op", "dtype", "shape", "occurrence", "side", "a_ms", "b_ms", "ratio",
					    "ci_low", "ci_high", "p_value", "verdict", "method", "floor_pct",
					    "floor_source", "threshold_pct", "n_pairs", "pair_ratios", "unsure_reason",
					    "advice", "gate_failed", "gate_result", "gems_geomean" };
	struct strbuf f = STRBUF_INIT;
	size_t i, k;

	for (k = 0; k < ZL_ARRAY_SIZE(head); k++)
		zl_csv_field(sb, head[k], !k);
	zl_csv_end_row(sb);
	for (i = 0; i < ab->nr_rows; i++) {
		const struct zl_ab_row *r = &ab->rows[i];
		const double nums[] = { r->v.a_ms, r->v.b_ms, r->v.ratio, r->v.ci_low, r->v.ci_high, r->v.p_value };

		zl_csv_field(sb, r->op, 1);
		zl_csv_field(sb, r->dtype, 0);
		zl_csv_field(sb, r->shape, 0);
		strbuf_reset(&f);
		strbuf_addf(&f, "%d", r->occurrence);
		zl_csv_field(sb, f.buf, 0);
		zl_csv_field(sb, zl_side_name(r->side), 0);
		for (k = 0; k < ZL_ARRAY_SIZE(nums); k++) {
			strbuf_reset(&f);
			if (isfinite(nums[k]))
				strbuf_addf(&f, "%.17g", nums[k]);
			zl_csv_field(sb, f.buf, 0);
		}
		zl_csv_field(sb, zl_verdict_name(r->v.verdict), 0);
		zl_csv_field(sb, method_of(r), 0);
		strbuf_reset(&f);
		strbuf_addf(&f, "%g", r->floor_pct);
		zl_csv_field(sb, f.buf, 0);
		strbuf_reset(&f);
		floor_source(ab, r, &f);
		zl_csv_field(sb, f.buf, 0);
		strbuf_reset(&f);
		if (r->v.verdict != ZL_VERDICT_MISSING)
			strbuf_addf(&f, "%g", r->v.threshold_pct);
		zl_csv_field(sb, f.buf, 0);
		strbuf_reset(&f);
		strbuf_addf(&f, "%zu", r->pairs);
		zl_csv_field(sb, f.buf, 0);
		strbuf_reset(&f);
		pair_list(&f, r, " ");
		zl_csv_field(sb, f.buf, 0);
		zl_csv_field(sb, r->unsure_reason ? r->unsure_reason : "", 0);
		zl_csv_field(sb, r->advice ? r->advice : "", 0);
		zl_csv_field(sb, r->gate_failed ? "1" : "0", 0);
		zl_csv_field(sb, ab->opts.fail_pct < 0 ? "off" : ab->gate_failed ? "failed" : "passed", 0);
		strbuf_reset(&f);
		if (isfinite(ab->gems.geomean))
			strbuf_addf(&f, "%.17g", ab->gems.geomean);
		zl_csv_field(sb, f.buf, 0);
		zl_csv_end_row(sb);
	}
	strbuf_release(&f);
}

/* The lines under the Markdown tables: floor, verdicts, both geomeans and the gate. */
static void md_header(const struct zl_ab *ab, struct strbuf *sb)
{
	struct strbuf f = STRBUF_INIT;
	size_t i;

	strbuf_addf(sb, "- floor: %s\n", ab->floor_summary ? ab->floor_summary : "-");
	counts_line(ab, &f);
	strbuf_addf(sb, "- verdicts: %s\n", f.buf);
	strbuf_reset(&f);
	geomean_text(&f, &ab->gems, ab->pairs);
	strbuf_addf(sb, "- geomean B/A, gems: %s\n", f.buf);
	strbuf_reset(&f);
	geomean_text(&f, &ab->torch, ab->pairs);
	strbuf_addf(sb, "- geomean B/A, torch (the baseline): %s\n", f.buf);
	if (ab->opts.fail_pct >= 0)
		strbuf_addf(sb, "- gate (--fail-on-regression %g): **%s**\n", ab->opts.fail_pct,
			    ab->gate_failed ? "FAILED" : "passed");
	for (i = 0; i < ab->gate_reasons.nr; i++)
		strbuf_addf(sb, "  - %s\n", ab->gate_reasons.v[i]);
	strbuf_release(&f);
}

void zl_ab_render_markdown(const struct zl_ab *ab, const struct zl_view_opts *opts, struct strbuf *sb)
{
	struct zl_view_opts defaults = ZL_VIEW_OPTS_INIT;
	const struct zl_view_opts *o = opts ? opts : &defaults;
	struct zl_view v;

	ab_view(ab, o, &v);
	strbuf_addf(sb, "**zlbench ab**: %zu interleaved rounds (ABBA)\n\n**Verdict:** ", ab->pairs);
	verdict_line(ab, &v, sb, "**", "**");
	strbuf_addstr(sb, "\n\n");
	zl_view_markdown(&v, o, sb);
	md_header(ab, sb);
	zl_view_release(&v);
}
