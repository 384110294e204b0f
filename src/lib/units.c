/* Times and durations for people (include/zlbench/units.h). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/error.h"
#include "zlbench/units.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

static const struct {
	const char *name;
	double per_ms;             /* units in one millisecond */
} units[] = {
	[ZL_UNIT_AUTO] = { "auto", 1 },
	[ZL_UNIT_NS] = { "ns", 1e6 },
	[ZL_UNIT_US] = { "us", 1e3 },
	[ZL_UNIT_MS] = { "ms", 1 },
	[ZL_UNIT_S] = { "s", 1e-3 },
};

const char *zl_time_unit_name(enum zl_time_unit u)
{
	return (size_t)u < ZL_ARRAY_SIZE(units) ? units[u].name : "?";
}

int zl_time_unit_parse(const char *s, enum zl_time_unit *out, struct strbuf *err)
{
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(units); i++)
		if (!strcmp(s, units[i].name)) {
			*out = (enum zl_time_unit)i;
			return 0;
		}
	return zl_error(err, "invalid value '%s' for --time-unit: choose auto, ns, us, ms or s", s);
}

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

enum zl_time_unit zl_time_unit_pick(const double *ms, size_t n)
{
	double *v = xcalloc(n ? n : 1, sizeof(*v)), median;
	size_t i, k = 0;
	enum zl_time_unit u;

	for (i = 0; i < n; i++)
		if (isfinite(ms[i]) && ms[i] > 0)
			v[k++] = ms[i];
	if (!k) {
		free(v);
		return ZL_UNIT_MS;
	}
	qsort(v, k, sizeof(*v), by_value);
	median = v[k / 2];
	free(v);
	/* the largest unit in which the median is at least 1 */
	for (u = ZL_UNIT_S; u > ZL_UNIT_NS; u--)
		if (median * units[u].per_ms >= 1)
			return u;
	return ZL_UNIT_NS;
}

void zl_fmt_time(struct strbuf *sb, double ms, enum zl_time_unit u)
{
	double x;
	int decimals;

	if (!isfinite(ms) || (size_t)u >= ZL_ARRAY_SIZE(units)) {
		strbuf_addch(sb, '-');
		return;
	}
	x = ms * units[u].per_ms;
	/* three significant digits: 1.25, 12.5, 125; 1250 keeps its digits */
	decimals = x == 0 ? 2 : 2 - (int)floor(log10(fabs(x)));
	if (decimals < 0)
		decimals = 0;
	if (decimals > 9)
		decimals = 9;
	/* 9.996 rounds to 10.00 with 2 decimals: one fewer keeps three digits */
	if (decimals > 0 && fabs(x) * pow(10, decimals) >= 999.5)
		decimals--;
	strbuf_addf(sb, "%.*f", decimals, x);
}

void zl_fmt_change(struct strbuf *sb, double ratio)
{
	double pct = (ratio - 1) * 100;

	if (!isfinite(ratio))
		strbuf_addch(sb, '-');
	else if (fabs(pct) >= 999.5)
		strbuf_addf(sb, "%+.0f%%", pct);
	else
		strbuf_addf(sb, "%+.1f%%", pct);
}

void zl_fmt_duration(struct strbuf *sb, double s)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		strbuf_addf(sb, "%ldh%02ldm", t / 3600, (t / 60) % 60);
	else if (t >= 60)
		strbuf_addf(sb, "%ldm%02lds", t / 60, t % 60);
	else
		strbuf_addf(sb, "%lds", t);
}

/* Plain decimal digits with at most one point: no hex, exponent, sign, inf or nan. */
static int decimal_text(const char *s)
{
	size_t digits = strspn(s, "0123456789");

	if (s[digits] == '.')
		return (digits || isdigit((unsigned char)s[digits + 1])) &&
		       !s[digits + 1 + strspn(s + digits + 1, "0123456789")];
	return digits && !s[digits];
}

int zl_parse_pct(const char *name, const char *s, double *out, struct strbuf *err)
{
	size_t len = strlen(s);
	char *num = xstrndup(s, len && s[len - 1] == '%' ? len - 1 : len);
	int bad = !decimal_text(num) || zl_parse_double(num, out) || *out < 0;

	free(num);
	if (bad)
		return zl_error(err, "invalid %s '%s': expected a decimal percentage >= 0 (e.g. 3, 2.5 or 5%%)",
				name, s);
	return 0;
}
