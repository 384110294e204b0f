/* The report's building blocks: axes and ticks, escaping, step detection, charts, schedule.jsonl. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "zlbench/batch_schedule.h"
#include "zlbench/fsutil.h"
#include "zlbench/report.h"
#include "zlbench/report/html.h"
#include "zlbench/report/parts.h"
#include "zlbench/report/svg.h"
#include "zlbench/util.h"
#include "../fixtures/runs/runfixture.h"

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (hay = strstr(hay, needle); hay; hay = strstr(hay + 1, needle))
		n++;
	return n;
}

static void test_axis_linear(void **state)
{
	struct zl_axis ax;
	static const double want[] = { 0, 2, 4, 6, 8, 10 };
	size_t i;

	(void)state;
	zl_axis_linear(&ax, 0, 9.3, 5);
	assert_float_equal(ax.lo, 0, 1e-12);
	assert_float_equal(ax.hi, 10, 1e-12);
	assert_int_equal(ax.nticks, ZL_ARRAY_SIZE(want));
	for (i = 0; i < ax.nticks; i++)
		assert_float_equal(ax.ticks[i], want[i], 1e-12);
	/* a negative start and a step of 0.1: no tick drifts off its multiple, zero is exact */
	zl_axis_linear(&ax, -0.12, 0.13, 6);
	assert_float_equal(ax.lo, -0.2, 1e-12);
	assert_float_equal(ax.hi, 0.2, 1e-12);
	assert_int_equal(ax.nticks, 5);
	assert_true(ax.ticks[2] == 0.0);
	assert_float_equal(ax.ticks[3], 0.1, 1e-15);
	/* one value: a band around it */
	zl_axis_linear(&ax, 4, 4, 5);
	assert_true(ax.lo < 4 && ax.hi > 4 && ax.nticks >= 2);
	assert_float_equal(zl_axis_pos(&ax, ax.lo, 10, 20), 10, 1e-12);
	assert_float_equal(zl_axis_pos(&ax, ax.hi, 10, 20), 20, 1e-12);
	assert_float_equal(zl_axis_pos(&ax, 1e9, 10, 20), 20, 1e-12); /* clamped */
}

static void test_axis_log(void **state)
{
	struct zl_axis ax;
	size_t i, ones = 0;

	(void)state;
	/* the real mm latencies: 0.0045 to 2.7 ms, about 3 decades: powers of ten */
	zl_axis_log(&ax, 0.0045, 2.7, 5);
	assert_true(ax.log && ax.lo < 0.0045 && ax.hi > 2.7);
	assert_true(ax.nticks >= 3);
	for (i = 0; i < ax.nticks; i++) {
		double e = log10(ax.ticks[i]);
		assert_float_equal(e, floor(e + 0.5), 1e-9);
		assert_true(i == 0 || ax.ticks[i] > ax.ticks[i - 1]);
	}
	/* 1.5 decades: 1, 2 and 5 times powers of ten */
	zl_axis_log(&ax, 0.03, 1.0, 5);
	for (i = 0; i < ax.nticks; i++) {
		double m = ax.ticks[i] / pow(10, floor(log10(ax.ticks[i]) + 1e-9));
		assert_true(fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9);
		ones += fabs(m - 1) < 1e-9;
	}
	assert_true(ones >= 1 && ax.nticks >= 4);
	/* one decade over a forest plot's width: more than 1-2-5's three ticks, as many as fit */
	zl_axis_log(&ax, 0.15, 1.6, 7);
	assert_true(ax.nticks >= 5 && ax.nticks <= 7);
	zl_axis_log(&ax, 0.15, 1.6, 5);
	assert_true(ax.nticks >= 4 && ax.nticks <= 5);
	/* ratios near 1: linear steps inside the log range, 1 among them */
	ones = 0;
	zl_axis_log(&ax, 0.9, 1.25, 5);
	assert_true(ax.nticks >= 3);
	for (i = 0; i < ax.nticks; i++)
		ones += fabs(ax.ticks[i] - 1) < 1e-9;
	assert_int_equal(ones, 1);
	/* the middle of a log axis is the geometric mean of its ends */
	assert_float_equal(zl_axis_pos(&ax, sqrt(ax.lo * ax.hi), 0, 100), 50, 1e-9);
	assert_float_equal(zl_axis_pos(&ax, -1, 0, 100), 0, 1e-12);
}

static void test_axis_label(void **state)
{
	char b[32];

	(void)state;
	zl_axis_label(b, 0.01);
	assert_string_equal(b, "0.01");
	zl_axis_label(b, 2.5);
	assert_string_equal(b, "2.5");
	zl_axis_label(b, 20000);
	assert_string_equal(b, "20k");
	zl_axis_label(b, 1.5e6);
	assert_string_equal(b, "1.5M");
	zl_axis_label(b, 0.1 + 0.2);
	assert_string_equal(b, "0.3");
}

static void test_html_escape(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	zl_html_escape(&sb, "<a href=\"x\">&'</a> plain");
	assert_string_equal(sb.buf, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt; plain");
	strbuf_reset(&sb);
	zl_html_textf(&sb, "%s=%d", "<b>", 3);
	assert_string_equal(sb.buf, "&lt;b&gt;=3");
	strbuf_reset(&sb);
	zl_html_cal(&sb, "noise target", NULL);
	assert_string_equal(sb.buf, "<div><b>noise target</b><span class=\"nr\">not recorded</span></div>\n");
	strbuf_release(&sb);
}

static void test_labels(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char b[32];

	(void)state;
	zl_report_dtype(&sb, "torch.bfloat16");
	strbuf_addch(&sb, ' ');
	zl_report_dtype(&sb, "torch.int4");
	strbuf_addch(&sb, ' ');
	zl_report_shape(&sb, "[[384, 384], {\"a b\": 1}]");
	assert_string_equal(sb.buf, "bf16 int4 [[384,384],{\"a b\":1}]");
	zl_report_ratio(b, 0.04449);
	assert_string_equal(b, "0.0445\xc3\x97");
	/* trailing zeros kept: 1.0004 is "1.00x", never "1x" */
	zl_report_ratio(b, 1.0004);
	assert_string_equal(b, "1.00\xc3\x97");
	zl_report_ratio(b, 123.4);
	assert_string_equal(b, "123\xc3\x97");
	/* the precision an interval supports, never two equal bounds */
	strbuf_reset(&sb);
	zl_report_ratio_ci(&sb, 1.0004, 1.0001, 1.0007);
	assert_string_equal(sb.buf, "1.000\xc3\x97 (95 % interval 1.0001\xc3\x97\xe2\x80\x93" "1.0007\xc3\x97)");
	strbuf_reset(&sb);
	zl_report_ratio_ci(&sb, 1.1, 1.05, 1.149);
	assert_string_equal(sb.buf, "1.10\xc3\x97 (95 % interval 1.050\xc3\x97\xe2\x80\x93" "1.149\xc3\x97)");
	strbuf_reset(&sb);
	zl_report_ratio_ci(&sb, 1.0625, 1.02, 1.10);
	assert_string_equal(sb.buf, "1.1\xc3\x97 (95 % interval 1.02\xc3\x97\xe2\x80\x93" "1.10\xc3\x97)");
	strbuf_reset(&sb);
	zl_report_ratio_ci(&sb, 1.5, NAN, NAN);
	assert_string_equal(sb.buf, "1.50\xc3\x97");
	assert_int_equal(zl_report_ci_decimals(0.8, 1.3), 2);
	assert_int_equal(zl_report_ci_decimals(0.2, 0.66), 2);
	assert_int_equal(zl_report_ci_decimals(0.9, 0.996), 2);
	zl_report_ratio(b, 0.9996);
	assert_string_equal(b, "1.00\xc3\x97");
	assert_int_equal(zl_report_ci_decimals(10, 15), 0);
	assert_int_equal(zl_report_ci_decimals(2, 2), -1);
	assert_string_equal(zl_plural(1, "op", "ops"), "op");
	assert_string_equal(zl_plural(0, "op", "ops"), "ops");
	zl_report_duration(b, 90);
	assert_string_equal(b, "90 s");
	zl_report_duration(b, 600);
	assert_string_equal(b, "10 min");
	strbuf_release(&sb);
}

static void test_parse_time(void **state)
{
	struct tm tm = { .tm_year = 126, .tm_mon = 10, .tm_mday = 29, .tm_hour = 10 };
	double want = (double)timegm(&tm);

	(void)state;
	assert_float_equal(zl_report_parse_time("2026-11-29T10:00:00Z"), want, 1e-9);
	assert_float_equal(zl_report_parse_time("2026-11-29T10:00:01.250Z"), want + 1.25, 1e-9);
	assert_true(isnan(zl_report_parse_time("2026-11-29 10:00:00")));
	assert_true(isnan(zl_report_parse_time("2026-13-29T10:00:00Z")));
	assert_true(isnan(zl_report_parse_time("2026-11-29T10:00:00Zjunk")));
	assert_true(isnan(zl_report_parse_time(NULL)));
}

/* A series around 1 ms with +-0.5 % noise from a fixed LCG. */
static void noisy(double *y, size_t n, unsigned long long seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		y[i] = 1.0 + 0.01 * ((double)(seed >> 11) / 9007199254740992.0 - 0.5);
	}
}

static void test_step_detect(void **state)
{
	double y[20];
	signed char s[20];
	size_t i;

	(void)state;
	/* flat: nothing */
	noisy(y, 20, 1);
	assert_int_equal(zl_step_detect(y, 20, ZL_STEP_FLOOR, s), 0);
	/* 20 % up from point 12: one shift, there */
	for (i = 12; i < 20; i++)
		y[i] *= 1.2;
	assert_int_equal(zl_step_detect(y, 20, ZL_STEP_FLOOR, s), 1);
	assert_int_equal(s[12], 1);
	/* and 30 % down again from point 5 */
	for (i = 5; i < 20; i++)
		y[i] *= 0.7;
	assert_int_equal(zl_step_detect(y, 20, ZL_STEP_FLOOR, s), 2);
	assert_int_equal(s[5], -1);
	assert_int_equal(s[12], 1);
	/* a single outlier inside the series is no step */
	noisy(y, 20, 2);
	y[9] *= 1.5;
	assert_int_equal(zl_step_detect(y, 20, ZL_STEP_FLOOR, s), 0);
	/* a step under the floor is no step, however quiet the series */
	for (i = 0; i < 20; i++)
		y[i] = i < 10 ? 1.0 : 1.03;
	assert_int_equal(zl_step_detect(y, 20, ZL_STEP_FLOOR, s), 0);
	assert_int_equal(zl_step_detect(y, 20, 0.01, s), 1);
	assert_int_equal(s[10], 1);
	/* gaps (NAN) are skipped: the shift lands on the first point after the gap */
	noisy(y, 10, 3);
	for (i = 5; i < 10; i++)
		y[i] *= 1.3;
	y[4] = y[5] = NAN;
	assert_int_equal(zl_step_detect(y, 10, ZL_STEP_FLOOR, s), 1);
	assert_int_equal(s[6], 1);
	/* wide noise hides a 10 % step: 4 sigma of +-10 % noise is more than the step */
	for (i = 0; i < 12; i++)
		y[i] = (i % 2 ? 1.1 : 0.9) * (i >= 6 ? 1.1 : 1.0);
	assert_int_equal(zl_step_detect(y, 12, ZL_STEP_FLOOR, s), 0);
	/* too short */
	y[0] = 1;
	y[1] = 2;
	assert_int_equal(zl_step_detect(y, 2, ZL_STEP_FLOOR, s), 0);
}

static void test_rowchart(void **state)
{
	struct zl_rowchart c;
	struct zl_chart_row *r;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	zl_rowchart_init(&c, "a <title>");
	zl_rowchart_panel(&c, 0, "latency", 1, NAN, 0.6);
	zl_rowchart_panel(&c, 1, "speedup", 1, 1.0, 0.4);
	r = zl_rowchart_add(&c, "f16 [[1,2]]", "0.5\xc3\x97", "nl", "tip & more");
	zl_row_mark(r, 0, ZL_MARK_DOT, 0.01, NAN, "g");
	zl_row_mark(r, 0, ZL_MARK_RING, 0.02, NAN, "t");
	zl_row_mark(r, 1, ZL_MARK_BAR, 0.5, NAN, "l");
	r = zl_rowchart_add(&c, "a label far longer than the label column allows, so it gets cut", NULL, NULL, NULL);
	zl_row_mark(r, 0, ZL_MARK_DOT, 0, NAN, "g");   /* not drawable on a log axis */
	zl_row_mark(r, 0, ZL_MARK_DOT, NAN, NAN, "g");
	zl_rowchart_svg(&c, &sb);
	assert_true(zl_starts_with(sb.buf, "<svg class=\"chart\" viewBox=\"0 0 720 "));
	assert_non_null(strstr(sb.buf, "<title>a &lt;title&gt;</title>"));
	assert_non_null(strstr(sb.buf, "<title>tip &amp; more</title>"));
	assert_int_equal(count(sb.buf, "<circle"), 2);
	assert_int_equal(count(sb.buf, "class=\"l\""), 1);
	assert_int_equal(count(sb.buf, "class=\"ref\""), 1);
	assert_non_null(strstr(sb.buf, "\xe2\x80\xa6</text>"));   /* the long label, cut */
	assert_non_null(strstr(sb.buf, "<title>a label far longer than the label column allows, so it gets cut</title>"));
	assert_true(zl_ends_with(sb.buf, "</svg>\n"));
	zl_rowchart_release(&c);
	strbuf_release(&sb);
}

static void test_timeline_trend_strips(void **state)
{
	struct zl_timeline t;
	struct zl_trend tr;
	struct zl_strips st;
	struct strbuf sb = STRBUF_INIT;
	double y[4] = { 1, 1.01, NAN, 1.3 }, v[1000];
	size_t i;

	(void)state;
	zl_timeline_init(&t, "schedule");
	zl_timeline_add(&t, zl_timeline_lane(&t, "device 0"), 100, 400, "mm", "mm on 0", "st-passed");
	zl_timeline_add(&t, zl_timeline_lane(&t, "device 1"), 150, 160, "softmax", NULL, "st-crashed");
	zl_timeline_add(&t, zl_timeline_lane(&t, "device 0"), 400, NAN, "lost", NULL, NULL); /* no end: left out */
	assert_int_equal(t.lanes.nr, 2);
	assert_int_equal(t.nr, 2);
	zl_timeline_svg(&t, &sb);
	assert_int_equal(count(sb.buf, "<rect"), 2);
	assert_non_null(strstr(sb.buf, "elapsed (min)"));   /* 300 s: minutes */
	assert_non_null(strstr(sb.buf, ">mm</text>"));       /* fits in its bar */
	assert_null(strstr(sb.buf, ">softmax</text>"));      /* does not */
	zl_timeline_release(&t);
	strbuf_reset(&sb);

	zl_trend_init(&tr, "trend", 4, 1, 400);
	strvec_push(&tr.xlabels, "a");
	strvec_push(&tr.xlabels, "b");
	strvec_push(&tr.xlabels, "c");
	strvec_push(&tr.xlabels, "d");
	zl_trend_series(&tr, "FlagGems", "g", y)->shift[3] = 1;
	zl_trend_break(&tr, 2, "commit", "FlagGems commit: a -> b");
	zl_trend_svg(&tr, &sb);
	assert_int_equal(count(sb.buf, "r=\"2.4\""), 3);  /* the NAN point is a gap */
	assert_non_null(strstr(sb.buf, "M"));
	assert_int_equal(count(sb.buf, "class=\"brk\""), 2);
	assert_non_null(strstr(sb.buf, "FlagGems shifted up here"));
	zl_trend_release(&tr);
	strbuf_reset(&sb);

	for (i = 0; i < 1000; i++)
		v[i] = 1 + (double)i / 1000;
	zl_strips_init(&st, "samples");
	zl_strips_add(&st, "A", "s", v, 1000);
	zl_strips_svg(&st, &sb);
	/* at most ZL_STRIP_MAX_DOTS dots; the quartiles from every sample */
	assert_true(count(sb.buf, "pt\"") <= ZL_STRIP_MAX_DOTS);
	assert_non_null(strstr(sb.buf, "n=1000 med 1.5"));
	zl_strips_release(&st);
	assert_float_equal(zl_quantile_sorted(v, 1000, 0.25), 1.24975, 1e-12);
	strbuf_release(&sb);
}

static void test_schedule(void **state)
{
	char *dir = fx_tmpdir(), *path = zl_path_join(dir, ZL_BATCH_SCHEDULE_FILE);
	struct zl_sched_line l = { .op = "mm", .attempt = 2, .role = "warmup_shard", .shard = 3, .device = "1",
				   .start_epoch = 1000.5, .end_epoch = 1012.25, .status = "passed", .exit_code = 0,
				   .run_dir = "warmup/mm.2/shard-3", .log = "logs/mm.2.warmup-3.log" };
	struct zl_schedule s;
	struct strbuf err = STRBUF_INIT;
	FILE *f;

	(void)state;
	zl_schedule_init(&s);
	assert_int_equal(zl_schedule_load(dir, &s, &err), 1);   /* absent */
	assert_int_equal(zl_schedule_append(dir, &l, &err), 0);
	l.op = "add";
	l.shard = 0;
	l.role = "run";
	l.exit_code = -1;
	l.status = NULL;
	assert_int_equal(zl_schedule_append(dir, &l, &err), 0);
	f = fopen(path, "a");
	assert_non_null(f);
	fputs("{\"op\":\"cut", f);   /* a line cut off while written */
	fclose(f);
	assert_int_equal(zl_schedule_load(dir, &s, &err), 0);
	assert_int_equal(s.nr, 2);
	assert_int_equal(s.skipped, 1);
	assert_string_equal(s.v[0].op, "mm");
	assert_string_equal(s.v[0].role, "warmup_shard");
	assert_int_equal(s.v[0].shard, 3);
	assert_int_equal(s.v[0].attempt, 2);
	assert_string_equal(s.v[0].device, "1");
	assert_float_equal(s.v[0].start_epoch, 1000.5, 1e-9);
	assert_float_equal(s.v[0].end_epoch, 1012.25, 1e-9);
	assert_int_equal(s.v[0].exit_code, 0);
	assert_string_equal(s.v[0].run_dir, "warmup/mm.2/shard-3");
	assert_int_equal(s.v[1].shard, 0);
	assert_int_equal(s.v[1].exit_code, -1);
	assert_null(s.v[1].status);
	zl_schedule_release(&s);
	strbuf_release(&err);
	free(path);
	fx_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_axis_linear),
		cmocka_unit_test(test_axis_log),
		cmocka_unit_test(test_axis_label),
		cmocka_unit_test(test_html_escape),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_parse_time),
		cmocka_unit_test(test_step_detect),
		cmocka_unit_test(test_rowchart),
		cmocka_unit_test(test_timeline_trend_strips),
		cmocka_unit_test(test_schedule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
