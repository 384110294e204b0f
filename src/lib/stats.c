#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/stats.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* ---- sorting ---------------------------------------------------------------- */

static void insertion_sort(double *v, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		double x = v[i];

		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* A double's bits as an unsigned key that sorts in the same order (-0 before +0). */
static uint64_t sort_key(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u >> 63 ? ~u : u | UINT64_C(0x8000000000000000);
}

static double key_value(uint64_t k)
{
	uint64_t u = k >> 63 ? k & ~UINT64_C(0x8000000000000000) : ~k;
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

/*
 * LSD radix sort on the keys, 8 bits a pass, skipping the passes whose byte is the
 * same in every key (timer samples share their sign and most of their exponent).
 * Comparison sorts mispredict about every other branch on random samples: this is
 * several times faster than qsort for the 10,000 rows x 2,000 samples of a compare.
 */
static void radix_sort(double *v, size_t n)
{
	uint64_t *k = xmalloc(2 * n * sizeof(*k)), *src = k, *dst = k + n, *t;
	size_t count[256], i, pass;

	for (i = 0; i < n; i++)
		src[i] = sort_key(v[i]);
	for (pass = 0; pass < 8; pass++) {
		unsigned shift = (unsigned)(8 * pass);
		size_t sum = 0;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(src[i] >> shift) & 0xff]++;
		if (count[(src[0] >> shift) & 0xff] == n)
			continue;
		for (i = 0; i < 256; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 0xff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	for (i = 0; i < n; i++)
		v[i] = key_value(src[i]);
	free(k);
}

void zl_stats_sort(double *v, size_t n)
{
	if (n <= 64)
		insertion_sort(v, n);
	else
		radix_sort(v, n);
}

double zl_stats_quantile(const double *sorted, size_t n, double q)
{
	double pos, frac;
	size_t k;

	if (!n)
		return NAN;
	pos = q * (double)(n - 1);
	k = (size_t)floor(pos);
	if (k >= n - 1)
		return sorted[n - 1];
	frac = pos - (double)k;
	return sorted[k] + frac * (sorted[k + 1] - sorted[k]);
}

/* ---- trimmed mean, Yuen ----------------------------------------------------- */

int zl_stats_trimmed(const double *sorted, size_t n, double trim, struct zl_trimmed *out)
{
	double sum = 0, wsum = 0, wmean, ss = 0, lo, hi;
	size_t g, h, i;

	if (!n)
		return -1;
	/* the epsilon keeps 0.1 * 30 = 3.0000000000000004 and its cousins below from losing a value */
	g = (size_t)floor(trim * (double)n + 1e-9);
	if (2 * g >= n)
		g = (n - 1) / 2;
	h = n - 2 * g;
	for (i = g; i < n - g; i++)
		sum += sorted[i];
	lo = sorted[g];
	hi = sorted[n - 1 - g];
	wsum = sum + (double)g * (lo + hi);
	wmean = wsum / (double)n;
	for (i = 0; i < n; i++) {
		double w = sorted[i] < lo ? lo : sorted[i] > hi ? hi : sorted[i];
		ss += (w - wmean) * (w - wmean);
	}
	out->n = n;
	out->g = g;
	out->mean = sum / (double)h;
	out->wvar = n >= 2 ? ss / (double)(n - 1) : NAN;
	out->se2 = h >= 2 ? (double)(n - 1) * out->wvar / ((double)h * (double)(h - 1)) : NAN;
	return 0;
}

static size_t kept(const struct zl_trimmed *t)
{
	return t->n - 2 * t->g;
}

/* Welch-Satterthwaite degrees of freedom of va + vb (+ a known part), INFINITY when all are 0. */
static double welch_df(double va, size_t ha, double vb, size_t hb, double known)
{
	double den = va * va / (double)(ha - 1) + vb * vb / (double)(hb - 1);
	double tot = va + vb + known;

	return den > 0 ? tot * tot / den : INFINITY;
}

static double t_sf(double t, double df);

void zl_stats_yuen(const struct zl_trimmed *a, const struct zl_trimmed *b, struct zl_yuen *out)
{
	double se;

	out->t = out->df = out->p = NAN;
	if (kept(a) < 2 || kept(b) < 2 || !isfinite(a->se2) || !isfinite(b->se2))
		return;
	se = sqrt(a->se2 + b->se2);
	out->df = welch_df(a->se2, kept(a), b->se2, kept(b), 0);
	if (se == 0) {
		out->t = a->mean == b->mean ? 0 : copysign(INFINITY, a->mean - b->mean);
		out->p = a->mean == b->mean ? 1 : 0;
		return;
	}
	out->t = (a->mean - b->mean) / se;
	out->p = 2 * t_sf(fabs(out->t), out->df);
	if (out->p > 1)
		out->p = 1;
}

/* ---- Mann-Whitney U ---------------------------------------------------------- */

/*
 * P(U >= u) for sizes m, n without ties: U's counts are the coefficients of the
 * Gaussian binomial [m+n choose m](q) = prod_{k=1..m} (1 - q^(n+k)) / (1 - q^k),
 * built one factor at a time (each partial product is a polynomial of degree k n).
 */
static double mwu_exact_sf(size_t m, size_t n, size_t u, double *total)
{
	size_t deg = 0, k, i, len = m * n + m + 1;
	double *c = xcalloc(len, sizeof(*c)), tail = 0, sum = 0;

	c[0] = 1;
	for (k = 1; k <= m; k++) {
		size_t step = n + k;

		for (i = deg + step; i >= step; i--)
			c[i] -= c[i - step];
		deg += step;
		for (i = k; i <= deg; i++)
			c[i] += c[i - k];
		deg -= k;
	}
	for (i = 0; i <= deg; i++) {
		sum += c[i];
		if (i >= u)
			tail += c[i];
	}
	free(c);
	*total = sum;
	return tail / sum;
}

int zl_stats_mwu(const double *a, size_t na, const double *b, size_t nb, struct zl_mwu *out)
{
	double rank = 0, ra = 0, ties = 0, mn, mu, var, umax;
	size_t i = 0, j = 0, big = na > nb ? na : nb;

	if (!na || !nb)
		return -1;
	/* midranks by merging the two sorted samples */
	while (i < na || j < nb) {
		double v = j >= nb || (i < na && a[i] <= b[j]) ? a[i] : b[j];
		size_t ca = 0, cb = 0, c;

		while (i < na && a[i] == v) {
			i++;
			ca++;
		}
		while (j < nb && b[j] == v) {
			j++;
			cb++;
		}
		c = ca + cb;
		ra += (double)ca * (rank + ((double)c + 1) / 2);
		if (c > 1)
			ties += (double)c * (double)c * (double)c - (double)c;
		rank += (double)c;
	}
	mn = (double)na * (double)nb;
	out->u = ra - (double)na * ((double)na + 1) / 2;
	mu = mn / 2;
	umax = out->u > mn - out->u ? out->u : mn - out->u;
	out->exact = ties == 0 && big <= ZL_MWU_EXACT_MAX;
	if (out->exact) {
		double total;

		out->z = NAN;
		out->p = 2 * mwu_exact_sf(na, nb, (size_t)llround(umax), &total);
		out->p_min = 2 / total;
	} else {
		double n = (double)(na + nb);

		var = mn / 12 * ((n + 1) - ties / (n * (n - 1)));
		if (var <= 0) {
			/* every value equal: nothing to tell apart */
			out->z = 0;
			out->p = out->p_min = 1;
			return 0;
		}
		out->z = (out->u - mu) / sqrt(var);
		out->p = erfc((umax - mu - 0.5) / sqrt(var) / M_SQRT2);
		out->p_min = erfc((mn - mu - 0.5) / sqrt(var) / M_SQRT2);
	}
	if (out->p > 1)
		out->p = 1;
	if (out->p_min > 1)
		out->p_min = 1;
	return 0;
}

/* ---- distributions ---------------------------------------------------------- */

double zl_stats_norm_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

/* Lower-tail z for 0 < p <= 0.5: Abramowitz-Stegun 26.2.23 (|error| < 4.5e-4), then Halley. */
static double norm_quantile_lower(double p)
{
	double t = sqrt(-2 * log(p)), z;
	int k;

	z = -(t - (2.515517 + 0.802853 * t + 0.010328 * t * t) /
		      (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t));
	for (k = 0; k < 4; k++) {
		double e = 0.5 * erfc(-z / M_SQRT2) - p;
		double u = e * sqrt(2 * M_PI) * exp(z * z / 2);

		z -= u / (1 + z * u / 2);
	}
	return z;
}

double zl_stats_norm_quantile(double p)
{
	if (!(p > 0 && p < 1))
		return p == 0 ? -INFINITY : p == 1 ? INFINITY : NAN;
	return p <= 0.5 ? norm_quantile_lower(p) : -norm_quantile_lower(1 - p);
}

/* Continued fraction of the incomplete beta function (modified Lentz). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;
	int m;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 1000; m++) {
		double m2 = 2.0 * m, num, del;

		num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		c = 1 + num / c;
		if (fabs(d) < tiny)
			d = tiny;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		if (fabs(d) < tiny)
			d = tiny;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-16)
			break;
	}
	return h;
}

/* Regularized incomplete beta I_x(a, b). */
static double inc_beta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

/* P(T > t) for t >= 0. */
static double t_sf(double t, double df)
{
	if (isinf(df))
		return 0.5 * erfc(t / M_SQRT2);
	if (isinf(t))
		return 0;
	/* I_x(df/2, 1/2) with x = df / (df + t^2), through 1 - x = t^2 / (df + t^2) when x is near 1 */
	if (t * t < df)
		return 0.5 - 0.5 * inc_beta(0.5, df / 2, t * t / (df + t * t));
	return 0.5 * inc_beta(df / 2, 0.5, df / (df + t * t));
}

static double t_pdf(double t, double df)
{
	return exp(lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * M_PI) -
		   (df + 1) / 2 * log1p(t * t / df));
}

double zl_stats_t_cdf(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	return t >= 0 ? 1 - t_sf(t, df) : t_sf(-t, df);
}

/* The t >= 0 with P(T > t) = q, 0 < q <= 0.5: Newton inside a bracket, bisection when it leaves. */
static double t_upper(double q, double df)
{
	double lo = 0, hi, t;
	int k;

	if (isinf(df) || df > 1e7)
		return -norm_quantile_lower(q);
	t = -norm_quantile_lower(q);
	hi = t > 1 ? t : 1;
	while (t_sf(hi, df) > q)
		hi *= 2;
	for (k = 0; k < 200; k++) {
		double f = t_sf(t, df) - q, next;

		if (f > 0)
			lo = t;
		else
			hi = t;
		next = t + f / t_pdf(t, df);
		if (!(next > lo && next < hi))
			next = (lo + hi) / 2;
		if (fabs(next - t) <= 1e-15 * (t > 1 ? t : 1))
			return next;
		t = next;
	}
	return t;
}

double zl_stats_t_quantile(double p, double df)
{
	if (!(p > 0 && p < 1) || !(df > 0))
		return p == 0 ? -INFINITY : p == 1 ? INFINITY : NAN;
	if (p == 0.5)
		return 0;
	return p > 0.5 ? t_upper(1 - p, df) : -t_upper(p, df);
}

/* Regularized lower incomplete gamma P(a, x): its series below a + 1, else 1 - the continued fraction. */
static double inc_gamma_p(double a, double x)
{
	const double tiny = 1e-300;
	double front, sum, term, b, c, d, h;
	int n;

	if (!(x > 0))
		return 0;
	front = exp(a * log(x) - x - lgamma(a));
	if (x < a + 1) {
		sum = term = 1 / a;
		for (n = 1; n < 10000 && fabs(term) > fabs(sum) * 1e-16; n++) {
			term *= x / (a + n);
			sum += term;
		}
		return front * sum;
	}
	/* modified Lentz on the continued fraction of Q(a, x) */
	b = x + 1 - a;
	c = 1 / tiny;
	d = 1 / b;
	h = d;
	for (n = 1; n < 10000; n++) {
		double an = -n * (n - a), del;

		b += 2;
		d = an * d + b;
		if (fabs(d) < tiny)
			d = tiny;
		c = b + an / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-16)
			break;
	}
	return 1 - front * h;
}

double zl_stats_chi2_cdf(double x, double df)
{
	if (isnan(x) || !(df > 0))
		return NAN;
	return inc_gamma_p(df / 2, x / 2);
}

double zl_stats_chi2_quantile(double p, double df)
{
	double lo = 0, hi = df > 1 ? df : 1;
	int k;

	if (!(p > 0 && p < 1) || !(df > 0))
		return p == 0 && df > 0 ? 0 : p == 1 && df > 0 ? INFINITY : NAN;
	while (zl_stats_chi2_cdf(hi, df) < p)
		hi *= 2;
	/* bisection: the lower quantiles of few degrees of freedom are tiny, Newton overshoots there */
	for (k = 0; k < 400 && hi - lo > 1e-15 * hi; k++) {
		double mid = (lo + hi) / 2;

		if (zl_stats_chi2_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* ---- ratio interval --------------------------------------------------------- */

void zl_stats_ratio_ci(const struct zl_trimmed *a, const struct zl_trimmed *b, double extra_sd_log,
		       double conf, struct zl_ratio_ci *out)
{
	double va, vb, known = extra_sd_log > 0 ? extra_sd_log * extra_sd_log : 0, q;

	out->ratio = out->se_log = out->df = out->lo = out->hi = NAN;
	if (!(a->mean > 0) || !(b->mean > 0))
		return;
	out->ratio = b->mean / a->mean;
	if (!isfinite(a->se2) || !isfinite(b->se2) || kept(a) < 2 || kept(b) < 2)
		return;
	va = a->se2 / (a->mean * a->mean);
	vb = b->se2 / (b->mean * b->mean);
	out->se_log = sqrt(va + vb + known);
	out->df = welch_df(va, kept(a), vb, kept(b), known);
	q = zl_stats_t_quantile(0.5 + conf / 2, out->df);
	out->lo = out->ratio * exp(-q * out->se_log);
	out->hi = out->ratio * exp(q * out->se_log);
}

/* ---- bimodality ------------------------------------------------------------- */

static void sarle(const double *v, size_t n, struct zl_bimodal *out)
{
	double mean = 0, m2 = 0, m3 = 0, m4 = 0, dn = (double)n, g1, g2;
	size_t i;

	out->sarle = NAN;
	if (n < 4)
		return;
	for (i = 0; i < n; i++)
		mean += v[i];
	mean /= dn;
	for (i = 0; i < n; i++) {
		double d = v[i] - mean, d2 = d * d;

		m2 += d2;
		m3 += d2 * d;
		m4 += d2 * d2;
	}
	m2 /= dn;
	m3 /= dn;
	m4 /= dn;
	if (!(m2 > 0) || m2 < 1e-24 * mean * mean)
		return;
	g1 = sqrt(dn * (dn - 1)) / (dn - 2) * m3 / pow(m2, 1.5);
	g2 = (dn - 1) / ((dn - 2) * (dn - 3)) * ((dn + 1) * m4 / (m2 * m2) - 3 * (dn - 1));
	out->sarle = (g1 * g1 + 1) / (g2 + 3 * (dn - 1) * (dn - 1) / ((dn - 2) * (dn - 3)));
}

void zl_stats_bimodality(const double *sorted, size_t n, struct zl_bimodal *out)
{
	size_t k, best = 0, between = 0, middle = 0, i;
	double total = 0, left = 0, best_score = -1, lo3, hi3, low_frac;

	out->low_mean = out->high_mean = out->high_frac = out->dip = NAN;
	out->bimodal = 0;
	sarle(sorted, n, out);
	if (n < ZL_BIMODAL_MIN_N || isnan(out->sarle))
		return;
	for (i = 0; i < n; i++)
		total += sorted[i];
	/* split after k values: maximise k (n - k) (mean_high - mean_low)^2 */
	for (k = 1; k < n; k++) {
		double ml, mh, score;

		left += sorted[k - 1];
		ml = left / (double)k;
		mh = (total - left) / (double)(n - k);
		score = (double)k * (double)(n - k) * (mh - ml) * (mh - ml);
		if (score > best_score) {
			best_score = score;
			best = k;
			out->low_mean = ml;
			out->high_mean = mh;
		}
	}
	if (!best || !(out->high_mean > out->low_mean))
		return;
	out->high_frac = (double)(n - best) / (double)n;
	lo3 = out->low_mean + (out->high_mean - out->low_mean) / 3;
	hi3 = out->high_mean - (out->high_mean - out->low_mean) / 3;
	for (i = 0; i < n; i++) {
		between += sorted[i] >= out->low_mean && sorted[i] <= out->high_mean;
		middle += sorted[i] >= lo3 && sorted[i] <= hi3;
	}
	out->dip = between ? (double)middle / ((double)between / 3) : 0;
	low_frac = 1 - out->high_frac;
	out->bimodal = out->sarle > ZL_SARLE_LIMIT && out->dip < ZL_BIMODAL_MAX_DIP &&
		       out->high_frac >= ZL_BIMODAL_MIN_WEIGHT && low_frac >= ZL_BIMODAL_MIN_WEIGHT;
}

/* ---- pairs ---------------------------------------------------------------------- */

void zl_stats_paired_logs(const double *logs, size_t n, double conf, struct zl_paired *out)
{
	double sum = 0, ss = 0, q;
	size_t i;

	out->n = n;
	out->mean_log = out->sd_log = out->se_log = out->df = NAN;
	out->ratio = out->lo = out->hi = out->p = NAN;
	if (!n)
		return;
	for (i = 0; i < n; i++)
		sum += logs[i];
	out->mean_log = sum / (double)n;
	out->ratio = exp(out->mean_log);
	if (n < 2)
		return;
	for (i = 0; i < n; i++)
		ss += (logs[i] - out->mean_log) * (logs[i] - out->mean_log);
	out->sd_log = sqrt(ss / (double)(n - 1));
	out->se_log = out->sd_log / sqrt((double)n);
	out->df = (double)(n - 1);
	if (out->se_log == 0) {
		out->p = out->mean_log == 0 ? 1 : 0;
		out->lo = out->hi = out->ratio;
		return;
	}
	out->p = 2 * t_sf(fabs(out->mean_log) / out->se_log, out->df);
	if (out->p > 1)
		out->p = 1;
	q = zl_stats_t_quantile(0.5 + conf / 2, out->df);
	out->lo = exp(out->mean_log - q * out->se_log);
	out->hi = exp(out->mean_log + q * out->se_log);
}
