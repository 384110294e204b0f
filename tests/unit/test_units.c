/* lib/units (times for people), lib/table's fitting, lib/progress's ETA, lib/export's checks. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "zlbench/export.h"
#include "zlbench/progress.h"
#include "zlbench/table.h"
#include "zlbench/units.h"
#include "zlbench/util.h"

static void expect_time(double ms, enum zl_time_unit u, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	zl_fmt_time(&sb, ms, u);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
}

/* Three significant digits in the column's unit; 1000 and up keep their digits. */
static void test_fmt_time(void **state)
{
	(void)state;
	expect_time(0.00125, ZL_UNIT_US, "1.25");
	expect_time(0.0125, ZL_UNIT_US, "12.5");
	expect_time(0.125, ZL_UNIT_US, "125");
	expect_time(1.25, ZL_UNIT_US, "1250");
	expect_time(2.687056, ZL_UNIT_US, "2687");
	expect_time(0.006224, ZL_UNIT_US, "6.22");
	expect_time(0.00009996, ZL_UNIT_US, "0.100");
	expect_time(0.009996, ZL_UNIT_US, "10.0");
	expect_time(0.09996, ZL_UNIT_US, "100");
	expect_time(0.0000622, ZL_UNIT_US, "0.0622");
	expect_time(0.00125, ZL_UNIT_NS, "1250");
	expect_time(1500, ZL_UNIT_S, "1.50");
	expect_time(0, ZL_UNIT_MS, "0.00");
	expect_time(NAN, ZL_UNIT_MS, "-");
}

/* The unit in which the median lies in [1, 1000); none: ms. */
static void test_pick_unit(void **state)
{
	const double us[] = { 0.006, 0.14, 2.7, NAN, 0.2 };
	const double ns[] = { 0.0004, 0.0009, 0.0002 };
	const double ms[] = { 1.5, 20, 900 };
	const double s[] = { 1500, 2500, 900 };
	const double none[] = { NAN, -1, 0 };
	struct strbuf err = STRBUF_INIT;
	enum zl_time_unit u;

	(void)state;
	assert_int_equal(zl_time_unit_pick(us, ZL_ARRAY_SIZE(us)), ZL_UNIT_US);
	assert_int_equal(zl_time_unit_pick(ns, ZL_ARRAY_SIZE(ns)), ZL_UNIT_NS);
	assert_int_equal(zl_time_unit_pick(ms, ZL_ARRAY_SIZE(ms)), ZL_UNIT_MS);
	assert_int_equal(zl_time_unit_pick(s, ZL_ARRAY_SIZE(s)), ZL_UNIT_S);
	assert_int_equal(zl_time_unit_pick(none, ZL_ARRAY_SIZE(none)), ZL_UNIT_MS);
	assert_int_equal(zl_time_unit_parse("ns", &u, &err), 0);
	assert_int_equal(u, ZL_UNIT_NS);
	assert_int_equal(zl_time_unit_parse("auto", &u, &err), 0);
	assert_int_equal(u, ZL_UNIT_AUTO);
	assert_int_equal(zl_time_unit_parse("sec", &u, &err), -1);
	assert_string_equal(err.buf, "invalid value 'sec' for --time-unit: choose auto, ns, us, ms or s");
	strbuf_release(&err);
}

static void test_fmt_change_duration(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	zl_fmt_change(&sb, 1.2);
	strbuf_addch(&sb, ' ');
	zl_fmt_change(&sb, 0.996);
	strbuf_addch(&sb, ' ');
	zl_fmt_change(&sb, 50);
	strbuf_addch(&sb, ' ');
	zl_fmt_change(&sb, NAN);
	strbuf_addch(&sb, ' ');
	zl_fmt_duration(&sb, 42.4);
	strbuf_addch(&sb, ' ');
	zl_fmt_duration(&sb, 185);
	strbuf_addch(&sb, ' ');
	zl_fmt_duration(&sb, 3725);
	assert_string_equal(sb.buf, "+20.0% -0.4% +4900% - 42s 3m05s 1h02m");
	strbuf_release(&sb);
}

static void test_progress_eta(void **state)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	enum zl_progress_mode m;

	(void)state;
	assert_true(zl_progress_eta(0, 0, 8, 0) < 0);
	/* 2 of 8 runs in 60 s: 6 more at 30 s each, 10 s of the current one gone */
	assert_true(fabs(zl_progress_eta(60, 2, 8, 10) - 170) < 1e-9);
	assert_true(zl_progress_eta(60, 8, 8, 5) == 0);
	zl_progress_add_eta(&sb, 170);
	strbuf_addch(&sb, ' ');
	zl_progress_add_eta(&sb, -1);
	assert_string_equal(sb.buf, "ETA 2m50s ETA ?");
	assert_int_equal(zl_progress_mode_parse(NULL, &m, &err), 0);
	assert_int_equal(m, ZL_PROGRESS_AUTO);
	assert_int_equal(zl_progress_mode_parse("none", &m, &err), 0);
	assert_int_equal(m, ZL_PROGRESS_NONE);
	assert_int_equal(zl_progress_mode_parse("quiet", &m, &err), -1);
	assert_string_equal(err.buf, "invalid value 'quiet' for --progress: choose auto, live, plain or none");
	strbuf_release(&sb);
	strbuf_release(&err);
}

/* The lines a table prints, as one string. */
static char *printed(const struct zl_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	zl_table_print(t, f, 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Columns are hidden in the order given until the table fits; no line ends in blanks. */
static void test_table_fit(void **state)
{
	static const size_t drop[] = { 2, 1 };
	struct zl_table t;
	char *out;

	(void)state;
	zl_table_init(&t, 4, 1UL << 1);
	zl_table_add(&t, "name", ZL_COLOR_NONE);
	zl_table_add(&t, "n", ZL_COLOR_NONE);
	zl_table_add(&t, "interval", ZL_COLOR_NONE);
	zl_table_add(&t, "gate", ZL_COLOR_NONE);
	zl_table_add(&t, "mm", ZL_COLOR_NONE);
	zl_table_add(&t, "12", ZL_COLOR_NONE);
	zl_table_add(&t, "[0.9, 1.1]", ZL_COLOR_NONE);
	zl_table_add(&t, "", ZL_COLOR_RED);
	assert_int_equal(zl_table_width(&t), 4 + 2 + 2 + 2 + 10 + 2 + 4);
	out = printed(&t);
	assert_string_equal(out, "name   n  interval    gate\nmm    12  [0.9, 1.1]\n");
	free(out);
	assert_int_equal(zl_table_fit(&t, 100, drop, 2), 0);
	assert_int_equal(zl_table_fit(&t, 14, drop, 2), 1);
	assert_int_equal(zl_table_width(&t), 14);
	out = printed(&t);
	assert_string_equal(out, "name   n  gate\nmm    12\n");
	free(out);
	/* the list ends: what is left may overflow */
	assert_int_equal(zl_table_fit(&t, 5, drop, 2), 1);
	assert_int_equal(zl_table_width(&t), 10);
	zl_table_release(&t);
}

static void test_export_check(void **state)
{
	struct zl_exports e = { { NULL, NULL, NULL } };
	struct strbuf err = STRBUF_INIT;
	char dir[] = "/tmp/zl-export-XXXXXX", *file;

	(void)state;
	assert_non_null(mkdtemp(dir));
	file = xstrfmt("%s/out.json", dir);
	e.path[ZL_EXPORT_JSON] = file;
	assert_int_equal(zl_exports_check(&e, &err), 0);
	e.path[ZL_EXPORT_CSV] = "/nonexistent-dir-zl/x.csv";
	assert_int_equal(zl_exports_check(&e, &err), -1);
	assert_string_equal(err.buf, "--csv-out '/nonexistent-dir-zl/x.csv': no directory '/nonexistent-dir-zl'");
	strbuf_reset(&err);
	e.path[ZL_EXPORT_CSV] = NULL;
	e.path[ZL_EXPORT_MD] = dir;
	assert_int_equal(zl_exports_check(&e, &err), -1);
	assert_non_null(strstr(err.buf, "is not a regular file"));
	assert_int_equal(rmdir(dir), 0);
	free(file);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt_time),
		cmocka_unit_test(test_pick_unit),
		cmocka_unit_test(test_fmt_change_duration),
		cmocka_unit_test(test_progress_eta),
		cmocka_unit_test(test_table_fit),
		cmocka_unit_test(test_export_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
