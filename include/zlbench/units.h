/*
 * Kernel times for people: a column of times (milliseconds, as results.json keeps them)
 * shown in one unit, ns, us, ms or s, picked so that the column's median lies in
 * [1, 1000), each value with three significant digits (more for 1000 and up: 1250, never
 * 1.25e3), and durations of whole runs ("42s", "3m05s", "1h02m").
 */
#ifndef ZLBENCH_UNITS_H
#define ZLBENCH_UNITS_H

#include <stddef.h>

#include "strbuf.h"

enum zl_time_unit { ZL_UNIT_AUTO = 0, ZL_UNIT_NS, ZL_UNIT_US, ZL_UNIT_MS, ZL_UNIT_S };

/* "auto", "ns", "us", "ms", "s". */
const char *zl_time_unit_name(enum zl_time_unit u);
/* A --time-unit value: 0, or -1 with err naming the choices. */
int zl_time_unit_parse(const char *s, enum zl_time_unit *out, struct strbuf *err);
/* The unit of a column of n times in ms (values not finite or <= 0 left out; none: ms). */
enum zl_time_unit zl_time_unit_pick(const double *ms, size_t n);
/* ms in unit u (not AUTO) with three significant digits; "-" when not finite. */
void zl_fmt_time(struct strbuf *sb, double ms, enum zl_time_unit u);
/* A change B/A - 1 as a signed percentage, "+20.0%", "-0.4%", "+1234%"; "-" when not finite. */
void zl_fmt_change(struct strbuf *sb, double ratio);
/*
 * A percentage as --threshold and --fail-on-regression take it: "5", "2.5", ".5", "5." or
 * "5%" (decimal digits with at most one point: no sign, exponent, hex, inf or nan).
 * 0, or -1 with err naming the option (name) and the value.
 */
int zl_parse_pct(const char *name, const char *s, double *out, struct strbuf *err);
/* A duration in seconds: "42s", "3m05s", "1h02m" (rounded to the second). */
void zl_fmt_duration(struct strbuf *sb, double s);

#endif
