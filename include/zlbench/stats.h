/*
 * Statistics on raw timer samples: pure functions, no allocation unless stated,
 * no I/O. docs/verdicts.md says which of them compare's verdicts use and why.
 *
 * - Sorting: zl_stats_sort() (radix sort on the bits of doubles; the functions that take
 *   `sorted` arrays want ascending order and finite values).
 * - Trimmed mean and its standard error from the winsorized variance (Yuen 1974):
 *   g = floor(trim * n) values cut at each end, h = n - 2g kept,
 *   se^2 = (n - 1) * s_w^2 / (h * (h - 1)), s_w^2 the sample variance of the
 *   sample winsorized at g. trim 0.1 is the timer's "trimmed_mean_0.1".
 * - Yuen's two-sample test on trimmed means (Welch degrees of freedom), the same
 *   as scipy.stats.ttest_ind(a, b, equal_var=False, trim=...).
 * - Mann-Whitney U, two-sided: exact (Mann and Whitney's distribution of U) when
 *   neither sample has more than ZL_MWU_EXACT_MAX values and there are no ties,
 *   else the normal approximation with the tie correction and a 0.5 continuity
 *   correction (scipy.stats.mannwhitneyu's "asymptotic" method).
 * - Normal and Student t distribution functions and quantiles.
 * - The ratio B/A of two trimmed means with a confidence interval on the log scale
 *   (delta method), widened by an extra variance the samples cannot see.
 * - Bimodality: Sarle's coefficient plus a split-and-dip test (see below).
 */
#ifndef ZLBENCH_STATS_H
#define ZLBENCH_STATS_H

#include <stddef.h>

#define ZL_MWU_EXACT_MAX 20

/* Sort v ascending in place (NaN must not occur). */
void zl_stats_sort(double *v, size_t n);

/* Quantile q in [0, 1] of a sorted array, linear interpolation (R type 7, numpy's default). */
double zl_stats_quantile(const double *sorted, size_t n, double q);

struct zl_trimmed {
	size_t n;        /* values */
	size_t g;        /* cut at each end */
	double mean;     /* trimmed mean */
	double wvar;     /* winsorized sample variance (n - 1 denominator); NAN when n < 2 */
	double se2;      /* squared standard error of the trimmed mean; NAN when h < 2 */
};
/* Trimmed mean of a sorted array (trim in [0, 0.5)); 0, or -1 when n == 0. */
int zl_stats_trimmed(const double *sorted, size_t n, double trim, struct zl_trimmed *out);

struct zl_yuen {
	double t, df, p;  /* two-sided p; NAN when either side has h < 2 */
};
void zl_stats_yuen(const struct zl_trimmed *a, const struct zl_trimmed *b, struct zl_yuen *out);

struct zl_mwu {
	double u;         /* U of the first sample: pairs (x, y) with x > y, ties counted 1/2 */
	double z;         /* normal approximation's z (NAN when exact) */
	double p;         /* two-sided p-value */
	double p_min;     /* the smallest p this method could give for these sizes and ties */
	int exact;
};
/*
 * Mann-Whitney U of two sorted samples (O(na + nb) ranks by merging, plus
 * O(min(na,nb)^2 * max(na,nb)) for the exact distribution). -1 when a sample is empty.
 */
int zl_stats_mwu(const double *a, size_t na, const double *b, size_t nb, struct zl_mwu *out);

double zl_stats_norm_cdf(double z);
/* The z with norm_cdf(z) == p, 0 < p < 1 (Newton on erfc: full double precision). */
double zl_stats_norm_quantile(double p);
/* Student t with df > 0 degrees of freedom (df may be fractional: Welch). */
double zl_stats_t_cdf(double t, double df);
double zl_stats_t_quantile(double p, double df);
/*
 * Chi-square with df > 0 degrees of freedom (the regularized incomplete gamma
 * function): `zlbench calibrate`'s upper confidence bound of a measured spread.
 */
double zl_stats_chi2_cdf(double x, double df);
double zl_stats_chi2_quantile(double p, double df);

struct zl_ratio_ci {
	double ratio;     /* b.mean / a.mean */
	double se_log;    /* standard error of log(ratio), extra variance included */
	double df;        /* Welch-Satterthwaite; the extra variance counts as known (infinite df) */
	double lo, hi;    /* conf-level interval of the ratio */
};
/*
 * B/A with a confidence interval: log(ratio) +- t(df) * se_log, where
 * se_log^2 = se2_a / mean_a^2 + se2_b / mean_b^2 + extra_sd_log^2 (delta method).
 * extra_sd_log carries the run-to-run variation the samples of one run cannot show.
 * Fields are NAN when a mean is not positive or a se2 is unknown.
 */
void zl_stats_ratio_ci(const struct zl_trimmed *a, const struct zl_trimmed *b, double extra_sd_log,
		       double conf, struct zl_ratio_ci *out);

/*
 * Bimodality of a sorted sample. Sarle's coefficient b = (skew^2 + 1) /
 * (kurt + 3 (n-1)^2 / ((n-2)(n-3))) with bias-corrected skewness and excess
 * kurtosis (b > 5/9 hints at two modes, but a long tail raises it too). So the
 * sample is also split in two where the between-group variance is largest, and
 * the middle third between the two group means is counted: two modes leave it
 * nearly empty, one mode (with or without a tail) fills it about as a flat density
 * would. bimodal = b > 5/9, dip < ZL_BIMODAL_MAX_DIP and each group holds at least
 * ZL_BIMODAL_MIN_WEIGHT of the sample (a few outliers are no mode, and a 10 %
 * trimmed mean drops them anyway). Fewer than ZL_BIMODAL_MIN_N values: never.
 */
#define ZL_BIMODAL_MIN_N 30
#define ZL_BIMODAL_MIN_WEIGHT 0.1
#define ZL_BIMODAL_MAX_DIP 0.5
#define ZL_SARLE_LIMIT (5.0 / 9.0)
struct zl_bimodal {
	double sarle;      /* NAN when n < 4 or the sample is constant */
	double low_mean, high_mean;
	double high_frac;  /* share of the sample in the upper group */
	double dip;        /* observed / flat-density count in the middle third; NAN without split */
	int bimodal;
};
void zl_stats_bimodality(const double *sorted, size_t n, struct zl_bimodal *out);

/*
 * Paired log ratios (one per interleaved A/B pair): mean, and a t interval with
 * n - 1 degrees of freedom and its two-sided p for "mean log ratio == 0".
 * n < 2: mean only, the rest NAN.
 */
struct zl_paired {
	size_t n;
	double mean_log, sd_log, se_log, df;
	double ratio, lo, hi, p;
};
void zl_stats_paired_logs(const double *logs, size_t n, double conf, struct zl_paired *out);

#endif
