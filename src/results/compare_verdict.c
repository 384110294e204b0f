/* The verdict engine of compare.h: one row's verdict from raw samples, or from interleaved pairs. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/compare.h"
#include "zlbench/stats.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

static const char *const verdict_names[] = {
	[ZL_VERDICT_SAME] = "same",
	[ZL_VERDICT_FASTER] = "faster",
	[ZL_VERDICT_SLOWER] = "slower",
	[ZL_VERDICT_UNSURE] = "unsure",
	[ZL_VERDICT_MISSING] = "missing",
};

static const char *const basis_names[] = {
	[ZL_BASIS_IQR] = "iqr",
	[ZL_BASIS_THRESHOLD] = "threshold",
	[ZL_BASIS_NONE] = "none",
	[ZL_BASIS_SAMPLES] = "samples",
};

static const char *const method_names[] = {
	[ZL_METHOD_SAMPLES] = "samples",
	[ZL_METHOD_MEDIANS] = "medians: no samples_ms",
	[ZL_METHOD_PAIRS] = "pairs",
	[ZL_METHOD_NONE] = "none",
};

static const char *const unsure_names[] = {
	[ZL_UNSURE_NONE] = "",
	[ZL_UNSURE_FEW_SAMPLES] = "too few samples",
	[ZL_UNSURE_BIMODAL] = "bimodal samples",
	[ZL_UNSURE_NOT_SIGNIFICANT] = "not significant",
	[ZL_UNSURE_OVERLAP] = "interval overlaps the threshold",
};

const char *zl_verdict_name(enum zl_verdict v)
{
	return (size_t)v < ZL_ARRAY_SIZE(verdict_names) ? verdict_names[v] : "?";
}

static const enum zl_color verdict_colors[] = {
	[ZL_VERDICT_SAME] = ZL_COLOR_NONE,
	[ZL_VERDICT_FASTER] = ZL_COLOR_GREEN,
	[ZL_VERDICT_SLOWER] = ZL_COLOR_RED,
	[ZL_VERDICT_UNSURE] = ZL_COLOR_YELLOW,
	[ZL_VERDICT_MISSING] = ZL_COLOR_YELLOW,
};

enum zl_color zl_verdict_color(enum zl_verdict v)
{
	return (size_t)v < ZL_ARRAY_SIZE(verdict_colors) ? verdict_colors[v] : ZL_COLOR_NONE;
}

const char *zl_noise_basis_name(enum zl_noise_basis b)
{
	return (size_t)b < ZL_ARRAY_SIZE(basis_names) ? basis_names[b] : "?";
}

const char *zl_method_name(enum zl_method m)
{
	return (size_t)m < ZL_ARRAY_SIZE(method_names) ? method_names[m] : "?";
}

const char *zl_unsure_name(enum zl_unsure u)
{
	return (size_t)u < ZL_ARRAY_SIZE(unsure_names) ? unsure_names[u] : "?";
}

/*
 * The run-to-run standard deviation of log(B/A) that one run's samples cannot show:
 * the calibrated spread, but never less than the floor implies (F / ZL_FLOOR_SIGMAS).
 */
static double run_sd_of(const struct zl_verdict_opts *o)
{
	double from_floor = log1p(o->floor_pct / 100) / ZL_FLOOR_SIGMAS;

	return isfinite(o->spread_rel) && o->spread_rel > from_floor ? o->spread_rel : from_floor;
}

static void verdict_init(struct zl_row_verdict *v, const struct zl_verdict_opts *o)
{
	memset(v, 0, sizeof(*v));
	v->verdict = ZL_VERDICT_UNSURE;
	v->method = ZL_METHOD_SAMPLES;
	v->unsure = ZL_UNSURE_FEW_SAMPLES;
	v->threshold_pct = o->threshold_pct > o->floor_pct ? o->threshold_pct : o->floor_pct;
	v->run_sd = run_sd_of(o);
	v->a_ms = v->b_ms = v->ratio = v->ci_low = v->ci_high = NAN;
	v->p_value = v->p_min = v->se_log = v->within_se_log = NAN;
	v->a_modes.sarle = v->b_modes.sarle = NAN;
}

/* Two modes matter when they are far enough apart to move the estimate by half the threshold. */
static int modes_matter(const struct zl_bimodal *m, double t)
{
	return m->bimodal && m->high_mean - m->low_mean >= t / 2 * m->low_mean;
}

/* The most a new mix of a side's two modes can move its estimate (their relative gap), or 0. */
static double mix_reach(const struct zl_bimodal *m, double t)
{
	return modes_matter(m, t) && m->low_mean > 0 ? (m->high_mean - m->low_mean) / m->low_mean : 0;
}

/*
 * The decision of docs/verdicts.md on the figures in v; NAN figures never pass a
 * test. same / slower / faster: the interval lies inside the threshold / beyond it
 * (and the samples differ significantly); anything in between is unsure. Two modes
 * block only a change: an interval inside the threshold is a fact about the
 * estimates whatever their mix (the trimmed means' errors carry the mixture's
 * spread), while a change may be no more than the mix of the modes moving. (On an
 * H200, 4096x4096 pointwise kernels put 20 % of their calls 4-10 % above the rest in
 * both runs of an A/A pair; calling them unsure helped nobody.)
 */
static void decide(struct zl_row_verdict *v, double alpha)
{
	double t = v->threshold_pct / 100;
	double reach = mix_reach(&v->a_modes, t) + mix_reach(&v->b_modes, t);

	v->unsure = ZL_UNSURE_NONE;
	if (v->ci_low >= 1 - t && v->ci_high <= 1 + t) {
		v->verdict = ZL_VERDICT_SAME;
		return;
	} else if (reach > 0 && fabs(log(v->ratio)) <= log1p(reach)) {
		/* a change no larger than the modes' gaps may be the mix moving; a larger one is not */
		v->unsure = ZL_UNSURE_BIMODAL;
	} else if (v->ci_low > 1 + t && v->p_value < alpha) {
		v->verdict = ZL_VERDICT_SLOWER;
		return;
	} else if (v->ci_high < 1 - t && v->p_value < alpha) {
		v->verdict = ZL_VERDICT_FASTER;
		return;
	} else if (!(v->p_min < alpha) || isnan(v->ci_low)) {
		v->unsure = ZL_UNSURE_FEW_SAMPLES;
	} else if (fabs(v->ratio - 1) > t && !(v->p_value < alpha)) {
		v->unsure = ZL_UNSURE_NOT_SIGNIFICANT;
	} else {
		v->unsure = ZL_UNSURE_OVERLAP;
	}
	v->verdict = ZL_VERDICT_UNSURE;
}

void zl_verdict_decide(struct zl_row_verdict *v, double alpha)
{
	decide(v, alpha);
}

static double *sorted_copy(const double *v, size_t n)
{
	double *s = xmalloc((n ? n : 1) * sizeof(*s));

	memcpy(s, v, n * sizeof(*v));
	zl_stats_sort(s, n);
	return s;
}

void zl_verdict_samples(const double *a, size_t na, const double *b, size_t nb,
			const struct zl_verdict_opts *o, struct zl_row_verdict *out)
{
	struct zl_trimmed ta, tb;
	struct zl_ratio_ci ci;
	struct zl_mwu m;
	double *sa, *sb;

	verdict_init(out, o);
	out->a_n = na;
	out->b_n = nb;
	if (!na || !nb)
		return;
	sa = sorted_copy(a, na);
	sb = sorted_copy(b, nb);
	zl_stats_trimmed(sa, na, o->trim, &ta);
	zl_stats_trimmed(sb, nb, o->trim, &tb);
	out->a_ms = ta.mean;
	out->b_ms = tb.mean;
	zl_stats_ratio_ci(&ta, &tb, out->run_sd, o->conf, &ci);
	out->ratio = ci.ratio;
	out->ci_low = ci.lo;
	out->ci_high = ci.hi;
	out->se_log = ci.se_log;
	if (ta.mean > 0 && tb.mean > 0)
		out->within_se_log = sqrt(ta.se2 / (ta.mean * ta.mean) + tb.se2 / (tb.mean * tb.mean));
	if (!zl_stats_mwu(sa, na, sb, nb, &m)) {
		out->p_value = m.p;
		out->p_min = m.p_min;
	}
	zl_stats_bimodality(sa, na, &out->a_modes);
	zl_stats_bimodality(sb, nb, &out->b_modes);
	free(sa);
	free(sb);
	if (na < 2 || nb < 2)
		return;
	decide(out, o->alpha);
}

/* All rounds' samples of one side in one sorted array; *n their count, *empty whether a round had none. */
static double *pool(const struct zl_sample_set *s, size_t pairs, size_t *n, int *empty)
{
	size_t i, k = 0;
	double *v;

	*n = 0;
	for (i = 0; i < pairs; i++) {
		*n += s[i].n;
		*empty |= !s[i].n;
	}
	v = xmalloc((*n ? *n : 1) * sizeof(*v));
	for (i = 0; i < pairs; i++) {
		memcpy(v + k, s[i].v, s[i].n * sizeof(*v));
		k += s[i].n;
	}
	zl_stats_sort(v, *n);
	return v;
}

/* Trimmed mean and the relative variance of it for one round. */
static double round_estimate(const struct zl_sample_set *s, double trim, double *rel_var)
{
	double *v = sorted_copy(s->v, s->n);
	struct zl_trimmed t;

	zl_stats_trimmed(v, s->n, trim, &t);
	free(v);
	*rel_var = t.mean > 0 ? t.se2 / (t.mean * t.mean) : NAN;
	return t.mean;
}

void zl_verdict_pairs(const struct zl_sample_set *a, const struct zl_sample_set *b, size_t pairs,
		      const struct zl_verdict_opts *o, struct zl_row_verdict *out)
{
	struct zl_trimmed ta, tb;
	struct zl_paired pr;
	struct zl_mwu m;
	double *pa, *pb, *logs, within = 0;
	size_t na, nb, i;
	int empty = 0;

	if (pairs == 1) {
		zl_verdict_samples(a[0].v, a[0].n, b[0].v, b[0].n, o, out);
		return;
	}
	verdict_init(out, o);
	out->method = ZL_METHOD_PAIRS;
	out->pairs = pairs;
	/* the pairs carry the run-to-run variation themselves */
	out->run_sd = 0;
	if (!pairs)
		return;
	pa = pool(a, pairs, &na, &empty);
	pb = pool(b, pairs, &nb, &empty);
	out->a_n = na;
	out->b_n = nb;
	if (!empty) {
		zl_stats_trimmed(pa, na, o->trim, &ta);
		zl_stats_trimmed(pb, nb, o->trim, &tb);
		out->a_ms = ta.mean;
		out->b_ms = tb.mean;
		if (!zl_stats_mwu(pa, na, pb, nb, &m)) {
			out->p_value = m.p;
			out->p_min = m.p_min;
		}
		zl_stats_bimodality(pa, na, &out->a_modes);
		zl_stats_bimodality(pb, nb, &out->b_modes);
	}
	free(pa);
	free(pb);
	if (empty)
		return;
	logs = xcalloc(pairs, sizeof(*logs));
	for (i = 0; i < pairs; i++) {
		double va, vb, ea = round_estimate(&a[i], o->trim, &va), eb = round_estimate(&b[i], o->trim, &vb);

		logs[i] = log(eb / ea);
		within += va + vb;
	}
	zl_stats_paired_logs(logs, pairs, o->conf, &pr);
	free(logs);
	out->ratio = pr.ratio;
	out->ci_low = pr.lo;
	out->ci_high = pr.hi;
	out->se_log = pr.se_log;
	out->within_se_log = sqrt(within / (double)pairs / (double)pairs);
	if (!(pr.p <= out->p_value))
		out->p_value = pr.p;
	decide(out, o->alpha);
}

void zl_verdict_reason(const struct zl_row_verdict *v, struct strbuf *sb)
{
	const struct zl_bimodal *m;

	if (v->verdict != ZL_VERDICT_UNSURE)
		return;
	strbuf_addstr(sb, zl_unsure_name(v->unsure));
	switch (v->unsure) {
	case ZL_UNSURE_FEW_SAMPLES:
		strbuf_addf(sb, ": %zu in A, %zu in B", v->a_n, v->b_n);
		if (isfinite(v->p_min))
			strbuf_addf(sb, "; Mann-Whitney p cannot go below %.2g with these (it must be < %g)",
				    v->p_min, ZL_VERDICT_ALPHA);
		break;
	case ZL_UNSURE_BIMODAL:
		m = modes_matter(&v->a_modes, v->threshold_pct / 100) ? &v->a_modes : &v->b_modes;
		strbuf_addf(sb, " in %s: %.0f%% of them near %.6g ms, the rest near %.6g ms (%+.1f%%); "
			    "the estimate depends on the mix", m == &v->a_modes ? "A" : "B",
			    m->high_frac * 100, m->high_mean, m->low_mean,
			    (m->high_mean / m->low_mean - 1) * 100);
		break;
	case ZL_UNSURE_NOT_SIGNIFICANT:
		strbuf_addf(sb, ": B/A %.4f is beyond ±%g%% but Mann-Whitney p = %.2g (it must be < %g)",
			    v->ratio, v->threshold_pct, v->p_value, ZL_VERDICT_ALPHA);
		break;
	case ZL_UNSURE_OVERLAP: {
		double t = v->threshold_pct / 100;
		int low = v->ci_low < 1 - t, high = v->ci_high > 1 + t;

		strbuf_addf(sb, ": %g%% CI [%.4f, %.4f] crosses %s%g%%", ZL_VERDICT_CONF * 100, v->ci_low,
			    v->ci_high, low ? "-" : "+", v->threshold_pct);
		if (low && high)
			strbuf_addf(sb, " and +%g%%", v->threshold_pct);
		break;
	}
	case ZL_UNSURE_NONE:
		break;
	}
}

void zl_verdict_advice(const struct zl_row_verdict *v, const char *op, int floor_calibrated,
		       struct strbuf *sb)
{
	int runs_dominate = v->run_sd >= v->within_se_log || isnan(v->within_se_log);

	if (v->verdict != ZL_VERDICT_UNSURE)
		return;
	switch (v->unsure) {
	case ZL_UNSURE_FEW_SAMPLES:
	case ZL_UNSURE_NOT_SIGNIFICANT:
		strbuf_addstr(sb, "more samples: run A and B again with --noise-target 0.002 (or a longer "
			      "--max-time-per-shape; with the direct timer, a larger --direct-repeat)");
		break;
	case ZL_UNSURE_BIMODAL:
		strbuf_addf(sb, "find what switches modes (SM clocks: clock_mhz in plugins/timer.jsonl, "
			    "autotune, other work on the device), then interleave A and B: "
			    "zlbench ab --op %s --rounds 4", op);
		break;
	case ZL_UNSURE_OVERLAP:
		if (!runs_dominate) {
			strbuf_addstr(sb, "more samples: run A and B again with --noise-target 0.002 (with the "
				      "direct timer, a larger --direct-repeat)");
			break;
		}
		strbuf_addf(sb, "the run-to-run floor dominates: interleave A and B (zlbench ab --op %s "
			    "--rounds 4)", op);
		if (!floor_calibrated)
			strbuf_addf(sb, ", or measure this machine's floor (zlbench calibrate --op %s) instead "
				    "of the fixed %g%%", op, ZL_FIXED_FLOOR_PCT);
		break;
	case ZL_UNSURE_NONE:
		break;
	}
}
