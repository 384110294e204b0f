/*
 * src/stats.c against published values: scipy's documentation (mannwhitneyu,
 * ttest_ind with trim, trim_mean), R's wilcox.test example on airquality, t and
 * normal table values; the rest against figures worked out by hand in the comments.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "zlbench/stats.h"

#define close_to(x, want, tol) assert_true(fabs((x) - (want)) <= (tol))

static uint64_t mix_state;

static double uniform01(void)
{
	uint64_t z = (mix_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(uniform01())) * cos(2 * M_PI * uniform01());
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static void check_sort(double *v, size_t n)
{
	double *ref = malloc((n ? n : 1) * sizeof(*ref));

	memcpy(ref, v, n * sizeof(*v));
	qsort(ref, n, sizeof(*ref), cmp_double);
	zl_stats_sort(v, n);
	assert_memory_equal(v, ref, n * sizeof(*v));
	free(ref);
}

static void test_sort(void **state)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 16, 17, 100, 1000, 5003 };
	size_t s, i;
	double *v = malloc(5003 * sizeof(*v));
	(void)state;

	mix_state = 1;
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		int pattern;

		for (pattern = 0; pattern < 6; pattern++) {
			for (i = 0; i < n; i++) {
				switch (pattern) {
				case 0: v[i] = uniform01(); break;                     /* random */
				case 1: v[i] = (double)i; break;                         /* sorted */
				case 2: v[i] = (double)(n - i); break;                   /* reversed */
				case 3: v[i] = 7; break;                                 /* all equal */
				case 4: v[i] = (double)(i < n / 2 ? i : n - i); break;  /* organ pipe */
				default: v[i] = floor(uniform01() * 4); break;           /* few distinct */
				}
			}
			check_sort(v, n);
		}
	}
	free(v);
}

static void test_quantile_and_trimmed(void **state)
{
	double v[30], w[] = { 1.0, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 2.0, 2.2, 5.0 };
	struct zl_trimmed t;
	size_t i;
	(void)state;

	for (i = 0; i < 30; i++)
		v[i] = (double)i;
	/* numpy.quantile(np.arange(20), [0.25, 0.5]) = 4.75, 9.5 */
	close_to(zl_stats_quantile(v, 20, 0.25), 4.75, 1e-15);
	close_to(zl_stats_quantile(v, 20, 0.5), 9.5, 1e-15);
	close_to(zl_stats_quantile(v, 20, 1.0), 19, 0);
	/* scipy.stats.trim_mean(np.arange(20), 0.1) = 9.5 (docs) */
	assert_int_equal(zl_stats_trimmed(v, 20, 0.1, &t), 0);
	assert_int_equal(t.g, 2);
	close_to(t.mean, 9.5, 1e-15);
	/*
	 * w trimmed 10 %: drop 1.0 and 5.0, mean of the 8 others = 12.9 / 8 = 1.6125;
	 * winsorized at 1.2 and 2.2 its variance is 0.149, so se^2 = 9 * 0.149 / (8 * 7)
	 */
	assert_int_equal(zl_stats_trimmed(w, 10, 0.1, &t), 0);
	close_to(t.mean, 1.6125, 1e-15);
	close_to(t.wvar, 0.149, 1e-15);
	close_to(t.se2, 9 * 0.149 / 56, 1e-15);
	/* 70 * 0.1 is 7.000000000000001 and 30 * 0.1 is 3.0000000000000004: 3 cut each side */
	assert_int_equal(zl_stats_trimmed(v, 30, 0.1, &t), 0);
	assert_int_equal(t.g, 3);
	close_to(t.mean, 14.5, 1e-15);
	/* one value: a mean, no spread */
	assert_int_equal(zl_stats_trimmed(v, 1, 0.1, &t), 0);
	close_to(t.mean, 0, 0);
	assert_true(isnan(t.wvar) && isnan(t.se2));
	assert_int_equal(zl_stats_trimmed(v, 0, 0.1, &t), -1);
}

static void test_yuen_scipy(void **state)
{
	/*
	 * the trimmed-test example of scipy.stats.ttest_ind's docs, as Yuen's test (Welch
	 * degrees of freedom): ttest_ind(a, b, trim=.2, equal_var=False) gives statistic
	 * 4.591598691181999, p 0.00998909252078421 (the docs' 3.446 is the equal-variance form)
	 */
	double a[] = { 56, 128.6, 12, 123.8, 64.34, 78, 763.3 }, b[] = { 1.1, 2.9, 4.2 };
	struct zl_trimmed ta, tb;
	struct zl_yuen y;
	(void)state;

	zl_stats_sort(a, 7);
	zl_stats_sort(b, 3);
	zl_stats_trimmed(a, 7, 0.2, &ta);
	zl_stats_trimmed(b, 3, 0.2, &tb);
	zl_stats_yuen(&ta, &tb, &y);
	close_to(y.t, 4.591598691181999, 1e-12);
	close_to(y.p, 0.00998909252078421, 1e-13);
	/* df: (vn1 + vn2)^2 / (vn1^2 / 4 + vn2^2 / 2), vn = winsorized SS / (h (h - 1)) */
	close_to(y.df, (ta.se2 + tb.se2) * (ta.se2 + tb.se2) / (ta.se2 * ta.se2 / 4 + tb.se2 * tb.se2 / 2),
		 1e-12);
}

static void test_mwu_exact_scipy(void **state)
{
	/* scipy.stats.mannwhitneyu docs: males vs females, U1 = 17, exact p = 0.1111 (= 14/126) */
	double males[] = { 16, 19, 22, 24, 29 }, females[] = { 11, 12, 17, 20 };
	struct zl_mwu m;
	(void)state;

	assert_int_equal(zl_stats_mwu(males, 5, females, 4, &m), 0);
	assert_true(m.exact);
	close_to(m.u, 17, 0);
	close_to(m.p, 14.0 / 126.0, 1e-15);
	close_to(m.p_min, 2.0 / 126.0, 1e-15);
	/* symmetric: the other way round U2 = 3, same p */
	assert_int_equal(zl_stats_mwu(females, 4, males, 5, &m), 0);
	close_to(m.u, 3, 0);
	close_to(m.p, 14.0 / 126.0, 1e-15);
	/* completely separated 10 vs 10: p = 2 / C(20, 10) = 2 / 184756 */
	{
		double x[10], y[10];
		int i;

		for (i = 0; i < 10; i++) {
			x[i] = i;
			y[i] = 100 + i;
		}
		assert_int_equal(zl_stats_mwu(x, 10, y, 10, &m), 0);
		close_to(m.u, 0, 0);
		close_to(m.p, 2.0 / 184756.0, 1e-18);
		close_to(m.p_min, m.p, 1e-18);
	}
}

static void test_mwu_ties_r(void **state)
{
	/*
	 * R: wilcox.test(Ozone ~ Month, data = airquality, subset = Month %in% c(5, 8)):
	 * W = 127.5, p-value = 0.0001208 (normal approximation, tie and continuity
	 * corrections; scipy's asymptotic method gives 0.00012080783076877434).
	 */
	double may[] = { 41, 36, 12, 18, 28, 23, 19, 8, 7, 16, 11, 14, 18, 14, 34, 6, 30, 11, 1, 11, 4, 32,
			 23, 45, 115, 37 };
	double aug[] = { 39, 9, 16, 78, 35, 66, 122, 89, 110, 44, 28, 65, 22, 59, 23, 31, 44, 21, 9, 45,
			 168, 73, 76, 118, 84, 85 };
	struct zl_mwu m;
	(void)state;

	zl_stats_sort(may, 26);
	zl_stats_sort(aug, 26);
	assert_int_equal(zl_stats_mwu(may, 26, aug, 26, &m), 0);
	assert_false(m.exact);
	close_to(m.u, 127.5, 0);
	close_to(m.p, 0.00012080783076877434, 1e-15);
	assert_true(m.z < 0);
	/* all equal: no evidence either way */
	{
		double x[30], y[30];
		int i;

		for (i = 0; i < 30; i++)
			x[i] = y[i] = 1.5;
		assert_int_equal(zl_stats_mwu(x, 30, y, 30, &m), 0);
		close_to(m.p, 1, 0);
	}
	assert_int_equal(zl_stats_mwu(may, 0, aug, 26, &m), -1);
}

/* chi-square where closed forms exist: df 2 (1 - exp(-x/2)), even df (a finite sum), df 1 (a squared normal) */
static double chi2_cdf_even(double x, int df)
{
	double term = 1, sum = 1;
	int k;

	for (k = 1; k < df / 2; k++) {
		term *= x / 2 / k;
		sum += term;
	}
	return 1 - exp(-x / 2) * sum;
}

static void test_chi2(void **state)
{
	static const int even[] = { 2, 4, 10, 100, 1000 };
	static const double ps[] = { 0.001, 0.05, 0.5, 0.95 };
	size_t i, j;
	(void)state;

	close_to(zl_stats_chi2_quantile(0.05, 2), -2 * log(0.95), 1e-14);
	for (i = 0; i < sizeof(even) / sizeof(even[0]); i++)
		for (j = 0; j < sizeof(ps) / sizeof(ps[0]); j++) {
			double q = zl_stats_chi2_quantile(ps[j], even[i]);

			close_to(chi2_cdf_even(q, even[i]), ps[j], 1e-12);
			close_to(zl_stats_chi2_cdf(q, even[i]), ps[j], 1e-12);
		}
	/* df 1: the square of a normal; the tables give 0.00393214; df 10 and 100: 3.940299, 77.929465 */
	close_to(zl_stats_chi2_quantile(0.05, 1), pow(zl_stats_norm_quantile(0.525), 2), 1e-15);
	close_to(zl_stats_chi2_quantile(0.95, 1), pow(zl_stats_norm_quantile(0.975), 2), 1e-12);
	close_to(zl_stats_chi2_quantile(0.05, 1), 0.00393214, 1e-8);
	close_to(zl_stats_chi2_quantile(0.05, 10), 3.940299, 1e-6);
	close_to(zl_stats_chi2_quantile(0.05, 100), 77.929465, 1e-6);
	/* fractional df between its neighbours; edges */
	assert_true(zl_stats_chi2_quantile(0.05, 10) < zl_stats_chi2_quantile(0.05, 10.5) &&
		    zl_stats_chi2_quantile(0.05, 10.5) < zl_stats_chi2_quantile(0.05, 11));
	assert_true(zl_stats_chi2_quantile(0, 3) == 0 && isinf(zl_stats_chi2_quantile(1, 3)));
	assert_true(isnan(zl_stats_chi2_quantile(0.5, 0)) && isnan(zl_stats_chi2_cdf(1, -1)));
	assert_true(zl_stats_chi2_cdf(0, 3) == 0);
}

static void test_distributions(void **state)
{
	(void)state;
	/*
	 * t quantiles where closed forms exist (even df: the cdf is a finite sum, solved to
	 * 50 digits; df 1: tan(pi (p - 1/2)); df 2: (2p - 1) / sqrt(2 p (1 - p))). Table
	 * values: 2.228 and 12.706 and 4.303; scipy 1.10's t.ppf is off by 2e-11 here.
	 */
	close_to(zl_stats_t_quantile(0.975, 10), 2.2281388519862747, 1e-14);
	close_to(zl_stats_t_quantile(0.975, 1), 12.7062047361747, 1e-11);
	close_to(zl_stats_t_quantile(0.975, 2), 4.3026527297494639, 1e-14);
	close_to(zl_stats_t_quantile(0.025, 10), -2.2281388519862747, 1e-14);
	close_to(zl_stats_norm_quantile(0.975), 1.959963984540054, 1e-14);
	close_to(zl_stats_norm_quantile(1e-10), -6.361340902404056, 1e-12);
	/* fractional df (Welch): scipy's t.ppf(0.9995, 3.5) and t.cdf(-2.5, 7.3) */
	close_to(zl_stats_t_quantile(0.9995, 3.5), 10.204828631660773, 1e-8);
	close_to(zl_stats_t_cdf(zl_stats_t_quantile(0.9995, 3.5), 3.5), 0.9995, 1e-15);
	close_to(zl_stats_t_cdf(-2.5, 7.3), 0.019825117332800207, 1e-15);
	close_to(zl_stats_t_cdf(0, 3), 0.5, 1e-15);
	/* infinite df is the normal distribution */
	close_to(zl_stats_t_quantile(0.975, INFINITY), 1.959963984540054, 1e-14);
	close_to(zl_stats_norm_cdf(1.959963984540054), 0.975, 1e-15);
	assert_true(isnan(zl_stats_t_quantile(0.5, -1)));
}

static void test_ratio_ci(void **state)
{
	struct zl_trimmed a = { 100, 10, 2.0, 0, 0.0004, }, b = { 100, 10, 2.2, 0, 0.0004, };
	struct zl_ratio_ci r;
	double va = 0.0004 / 4, vb = 0.0004 / 4.84, se, df, q;
	(void)state;

	/* delta method: se_log^2 = se2_a / a^2 + se2_b / b^2, Welch df over h = 80 kept each */
	zl_stats_ratio_ci(&a, &b, 0, 0.95, &r);
	se = sqrt(va + vb);
	df = (va + vb) * (va + vb) / (va * va / 79 + vb * vb / 79);
	q = zl_stats_t_quantile(0.975, df);
	close_to(r.ratio, 1.1, 1e-15);
	close_to(r.se_log, se, 1e-15);
	close_to(r.df, df, 1e-9);
	close_to(r.lo, 1.1 * exp(-q * se), 1e-14);
	close_to(r.hi, 1.1 * exp(q * se), 1e-14);
	/* the run-to-run part widens it and raises df (it counts as known) */
	zl_stats_ratio_ci(&a, &b, 0.02, 0.95, &r);
	close_to(r.se_log, sqrt(va + vb + 0.0004), 1e-15);
	assert_true(r.df > df);
	assert_true(r.hi / r.lo > exp(2 * 1.9599 * 0.02));
	/* no variance at all with an extra part: a normal interval of exactly that width */
	a.se2 = b.se2 = 0;
	zl_stats_ratio_ci(&a, &b, 0.01, 0.95, &r);
	assert_true(isinf(r.df));
	close_to(r.hi, 1.1 * exp(1.959963984540054 * 0.01), 1e-14);
	/* a non-positive mean has no ratio */
	a.mean = 0;
	zl_stats_ratio_ci(&a, &b, 0.01, 0.95, &r);
	assert_true(isnan(r.ratio) && isnan(r.lo));
}

static void fill_normal(double *v, size_t n, double mean, double sd)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = mean + sd * gauss();
}

static void test_bimodality(void **state)
{
	double two[40], v[2000];
	struct zl_bimodal bm;
	size_t i;
	(void)state;

	/*
	 * {1 x 5, 3 x 5}: skew 0, excess kurtosis -2.5714 (scipy, bias=False), so
	 * b = 1 / (-2.5714 + 3 * 81 / 56) = 0.56566; n = 10 is too few to call it
	 */
	for (i = 0; i < 10; i++)
		two[i] = i < 5 ? 1 : 3;
	zl_stats_bimodality(two, 10, &bm);
	close_to(bm.sarle, 0.5656565656565655, 1e-12);
	assert_false(bm.bimodal);
	/* the same two values 20 + 20: split 50/50, nothing in between */
	for (i = 0; i < 40; i++)
		two[i] = i < 20 ? 1 : 3;
	zl_stats_bimodality(two, 40, &bm);
	assert_true(bm.bimodal);
	close_to(bm.low_mean, 1, 0);
	close_to(bm.high_mean, 3, 0);
	close_to(bm.high_frac, 0.5, 0);
	close_to(bm.dip, 0, 0);

	mix_state = 42;
	/* one normal mode: not bimodal (the middle third is as full as a flat density's) */
	fill_normal(v, 2000, 1.0, 0.01);
	zl_stats_sort(v, 2000);
	zl_stats_bimodality(v, 2000, &bm);
	assert_false(bm.bimodal);
	assert_true(bm.dip > 0.9);
	/* a lognormal tail (sigma 0.5): one mode */
	for (i = 0; i < 2000; i++)
		v[i] = exp(0.5 * gauss());
	zl_stats_sort(v, 2000);
	zl_stats_bimodality(v, 2000, &bm);
	assert_false(bm.bimodal);
	assert_true(bm.dip > ZL_BIMODAL_MAX_DIP);
	/* 3 % of calls at twice the time: Sarle alone would say bimodal; outliers are no mode */
	fill_normal(v, 2000, 1.0, 0.01);
	for (i = 0; i < 60; i++)
		v[i] = 2.0 + 0.01 * gauss();
	zl_stats_sort(v, 2000);
	zl_stats_bimodality(v, 2000, &bm);
	assert_true(bm.sarle > ZL_SARLE_LIMIT);
	assert_true(bm.high_frac < ZL_BIMODAL_MIN_WEIGHT);
	assert_false(bm.bimodal);
	/* 30 % of calls 20 % slower: two modes */
	fill_normal(v, 2000, 1.0, 0.01);
	for (i = 0; i < 600; i++)
		v[i] = 1.2 + 0.012 * gauss();
	zl_stats_sort(v, 2000);
	zl_stats_bimodality(v, 2000, &bm);
	assert_true(bm.bimodal);
	close_to(bm.high_frac, 0.3, 0.01);
	close_to(bm.low_mean, 1.0, 0.005);
	close_to(bm.high_mean, 1.2, 0.005);
	/* a constant sample has no shape */
	for (i = 0; i < 100; i++)
		v[i] = 2.5;
	zl_stats_bimodality(v, 100, &bm);
	assert_true(isnan(bm.sarle));
	assert_false(bm.bimodal);
}

static void test_paired(void **state)
{
	/* scipy.stats.ttest_1samp([0.01, 0.03, 0.02], 0): t = 3.4641, p = 0.07417990022744853 */
	const double logs[] = { 0.01, 0.03, 0.02 };
	struct zl_paired p;
	(void)state;

	zl_stats_paired_logs(logs, 3, 0.95, &p);
	close_to(p.mean_log, 0.02, 1e-15);
	close_to(p.sd_log, 0.01, 1e-15);
	close_to(p.p, 0.07417990022744853, 1e-13);
	close_to(p.lo, exp(0.02 - 4.302652729911275 * 0.01 / sqrt(3)), 1e-12);
	close_to(p.hi, exp(0.02 + 4.302652729911275 * 0.01 / sqrt(3)), 1e-12);
	zl_stats_paired_logs(logs, 1, 0.95, &p);
	close_to(p.ratio, exp(0.01), 1e-15);
	assert_true(isnan(p.p) && isnan(p.lo));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_quantile_and_trimmed),
		cmocka_unit_test(test_yuen_scipy),
		cmocka_unit_test(test_mwu_exact_scipy),
		cmocka_unit_test(test_mwu_ties_r),
		cmocka_unit_test(test_distributions),
		cmocka_unit_test(test_chi2),
		cmocka_unit_test(test_ratio_ci),
		cmocka_unit_test(test_bimodality),
		cmocka_unit_test(test_paired),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
