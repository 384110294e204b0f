/* Step detection for the history page's trends (the rule is documented in report.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/report.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of v[0..n) (n >= 1), using tmp as scratch. */
static double median(const double *v, size_t n, double *tmp)
{
	memcpy(tmp, v, n * sizeof(*v));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

static double mean(const double *v, size_t n)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += v[i];
	return sum / (double)n;
}

/* The window at present point i: min(ZL_STEP_WINDOW, points before i, points from i on). */
static size_t window(size_t i, size_t m)
{
	size_t w = ZL_STEP_WINDOW;

	if (w > i)
		w = i;
	if (w > m - i)
		w = m - i;
	return w;
}

size_t zl_step_detect(const double *y, size_t n, double floor_rel, signed char *shift)
{
	double *x = xcalloc(n ? n : 1, sizeof(*x)), *d = xcalloc(n ? n : 1, sizeof(*d));
	double *tmp = xcalloc(n ? n : 1, sizeof(*tmp)), s, floor_log = log1p(fmax(floor_rel, 0));
	size_t *at = xcalloc(n ? n : 1, sizeof(*at)), m = 0, i, found = 0;

	memset(shift, 0, n * sizeof(*shift));
	for (i = 0; i < n; i++)
		if (isfinite(y[i]) && y[i] > 0) {
			x[m] = log(y[i]);
			at[m++] = i;
		}
	if (m < 3)
		goto out;
	/*
	 * The point-to-point noise: the median absolute successive difference (around 0,
	 * their mean for a level series), scaled to one point's sd.
	 */
	for (i = 1; i < m; i++)
		d[i - 1] = fabs(x[i] - x[i - 1]);
	s = 1.4826 * median(d, m - 1, tmp) / sqrt(2.0);
	/* d[i]: the jump of the medians at present point i, 0 where i is no candidate */
	d[0] = 0;
	for (i = 1; i < m; i++) {
		size_t w = window(i, m);
		double jump = median(x + i, w, tmp) - median(x + i - w, w, tmp);

		d[i] = fabs(jump) > fmax(ZL_STEP_SIGMAS * s * sqrt(2.0 / (double)w), floor_log) ? jump : 0;
	}
	/*
	 * A clean step makes its neighbours candidates too (a window of medians straddles
	 * it); the jump of the means peaks where the step is, so it picks one per run.
	 */
	for (i = 1; i < m; i++) {
		size_t j, best = i, w;
		double best_score = -1;

		if (!d[i])
			continue;
		for (j = i; j < m && d[j]; j++) {
			double score;

			w = window(j, m);
			score = fabs(mean(x + j, w) - mean(x + j - w, w));
			if (score > best_score) {
				best_score = score;
				best = j;
			}
		}
		shift[at[best]] = d[best] > 0 ? 1 : -1;
		found++;
		i = j - 1;
	}
out:
	free(x);
	free(d);
	free(tmp);
	free(at);
	return found;
}
