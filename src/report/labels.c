/* Short labels and small conversions the report pages share. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zlbench/report/parts.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

static const struct {
	const char *long_name, *short_name;
} dtype_names[] = {
	{ "bfloat16", "bf16" }, { "float16", "f16" }, { "float32", "f32" }, { "float64", "f64" },
	{ "half", "f16" }, { "float", "f32" }, { "double", "f64" },
	{ "float8_e4m3fn", "f8e4m3" }, { "float8_e5m2", "f8e5m2" },
	{ "int8", "i8" }, { "int16", "i16" }, { "int32", "i32" }, { "int64", "i64" }, { "uint8", "u8" },
	{ "complex64", "c64" }, { "complex128", "c128" },
};

void zl_report_dtype(struct strbuf *sb, const char *dtype)
{
	size_t i;

	if (!dtype || !*dtype) {
		strbuf_addstr(sb, "?");
		return;
	}
	if (zl_starts_with(dtype, "torch."))
		dtype += strlen("torch.");
	for (i = 0; i < ZL_ARRAY_SIZE(dtype_names); i++)
		if (!strcmp(dtype, dtype_names[i].long_name)) {
			strbuf_addstr(sb, dtype_names[i].short_name);
			return;
		}
	strbuf_addstr(sb, dtype);
}

void zl_report_shape(struct strbuf *sb, const char *shape)
{
	int in_string = 0;
	char prev = 0;

	for (; shape && *shape; prev = *shape++) {
		if (*shape == '"' && prev != '\\')
			in_string = !in_string;
		if (*shape == ' ' && !in_string)
			continue;
		strbuf_addch(sb, *shape);
	}
}

/* Decimals that give v 3 significant digits, trailing zeros kept ("1.00", "12.3", "0.0445"). */
static int sig3_decimals(double v)
{
	int e, d;

	if (v == 0)
		return 2;
	e = (int)floor(log10(fabs(v)));
	d = 2 - e;
	/* 0.9996 rounds to 1.00, not 1.000: the rounding reached the next power of ten */
	if (d > 0 && d <= 9 && fabs(round(v * pow(10, d)) / pow(10, d)) >= pow(10, e + 1))
		d--;
	return d < 0 ? 0 : d > 9 ? 9 : d;
}

void zl_report_ratio(char buf[32], double r)
{
	if (!isfinite(r))
		snprintf(buf, 32, "-");
	else
		snprintf(buf, 32, "%.*f\xc3\x97", sig3_decimals(r), r);
}

int zl_report_ci_decimals(double lo, double hi)
{
	char a[48], b[48];
	int d;

	if (!isfinite(lo) || !isfinite(hi) || !(hi > lo))
		return -1;
	d = (int)floor(-log10(hi - lo));
	/* at least two significant digits of the smaller bound: 0.38 (0.20-0.66), never 0 (0-1) */
	if (lo > 0 && d < 1 - (int)floor(log10(lo)))
		d = 1 - (int)floor(log10(lo));
	d = d < 0 ? 0 : d > 6 ? 6 : d;
	for (;; d++) {
		snprintf(a, sizeof(a), "%.*f", d, lo);
		snprintf(b, sizeof(b), "%.*f", d, hi);
		if (strcmp(a, b) || d >= 9)
			return d;
	}
}

void zl_report_ratio_ci(struct strbuf *sb, double v, double lo, double hi)
{
	int d = zl_report_ci_decimals(lo, hi);
	char buf[32];

	if (!isfinite(v)) {
		strbuf_addch(sb, '-');
		return;
	}
	if (d < 0) {
		zl_report_ratio(buf, v);
		strbuf_addstr(sb, buf);
		return;
	}
	/* the bounds one digit finer than the value: where they lie, never two equal bounds */
	strbuf_addf(sb, "%.*f\xc3\x97 (95 %% interval %.*f\xc3\x97\xe2\x80\x93%.*f\xc3\x97)", d, v, d + 1, lo, d + 1, hi);
}

const char *zl_report_status_class(const char *status)
{
	static const char *const known[][2] = {
		{ "passed", "v-passed" }, { "failed", "v-failed" }, { "timeout", "v-timeout" },
		{ "crashed", "v-crashed" }, { "interrupted", "v-interrupted" },
		{ "preflight_failed", "v-preflight_failed" }, { "running", "v-running" }, { "skipped", "v-skipped" },
	};
	size_t i;

	for (i = 0; status && i < ZL_ARRAY_SIZE(known); i++)
		if (!strcmp(status, known[i][0]))
			return known[i][1];
	return "v-other";
}

const char *zl_plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

void zl_report_id(struct strbuf *sb, const char *prefix, const char *text)
{
	strbuf_addstr(sb, prefix);
	for (; text && *text; text++) {
		unsigned char c = (unsigned char)*text;
		strbuf_addch(sb, isalnum(c) || c == '-' || c == '_' ? c : '-');
	}
}

void zl_report_duration(char buf[32], double s)
{
	if (!isfinite(s))
		snprintf(buf, 32, "-");
	else if (s < 120)
		snprintf(buf, 32, "%.3g s", s);
	else if (s < 2 * 3600)
		snprintf(buf, 32, "%.3g min", s / 60);
	else
		snprintf(buf, 32, "%.3g h", s / 3600);
}

double zl_report_parse_time(const char *iso)
{
	struct tm tm;
	int y, mo, d, h, mi, n = 0;
	double sec;
	char z = 0;
	time_t t;

	if (!iso)
		return NAN;
	if (sscanf(iso, "%4d-%2d-%2dT%2d:%2d:%lf%c%n", &y, &mo, &d, &h, &mi, &sec, &z, &n) != 7 || z != 'Z' ||
	    iso[n] || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || !(sec >= 0 && sec < 61))
		return NAN;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	t = timegm(&tm);
	if (t == (time_t)-1)
		return NAN;
	return (double)t + sec;
}
