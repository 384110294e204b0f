/*
 * The edges where strings from files leave zlbench (docs/architecture.md, "Edges"): one
 * function per medium, tested once here. Redaction (redact.h), the terminal
 * (strbuf_add_printable, the tables), CSV (OWASP's formula rule, read back exactly),
 * JSON (valid UTF-8 always), HTML (text, attributes and class names).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "zlbench/json.h"
#include "zlbench/redact.h"
#include "zlbench/report/html.h"
#include "zlbench/report/parts.h"
#include "zlbench/rowview.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"
#include "zlbench/table.h"
#include "zlbench/term.h"

static void expect_redacted(const char *in, const char *want)
{
	char *got = zl_redact_word(in);

	assert_string_equal(got, want);
	free(got);
}

static void test_redact(void **state)
{
	struct strvec out = STRVEC_INIT;
	static const char *const argv[] = { "zlbench", "batch", "--push", "https://u:p@h/x?key=k", NULL };
	char *s;
	(void)state;

	expect_redacted("https://bob:hunter2@perf.example:8443/api?token=abc&team=perf#top",
			"https://bob:***@perf.example:8443/api?token=***&team=perf#top");
	/* a password holding '@': the host follows the last one */
	expect_redacted("http://bob:p@ss@perf.example/x", "http://bob:***@perf.example/x");
	/* a lone user may be a token */
	expect_redacted("https://ghp_abc123@github.com/o/r", "https://***@github.com/o/r");
	expect_redacted("--push=https://h/x?access_token=a;sig=b&X-Amz-Signature=c&x=1",
			"--push=https://h/x?access_token=***;sig=***&X-Amz-Signature=***&x=1");
	/* design= is not sig=, a path is not a query */
	expect_redacted("https://h/sig/token?design=1", "https://h/sig/token?design=1");
	expect_redacted("ZL_API_TOKEN=abc", "ZL_API_TOKEN=<redacted>");
	expect_redacted("--b-env=zl_Password=abc", "--b-env=zl_Password=<redacted>");
	expect_redacted("--b-env=TRITON_F32_DEFAULT=ieee", "--b-env=TRITON_F32_DEFAULT=ieee");
	expect_redacted("--op=monkey", "--op=monkey");
	expect_redacted("plain text, no url", "plain text, no url");
	/* several URLs in one text */
	s = zl_redact_url_credentials("a http://x:1@h1/ b https://y:2@h2/?pwd=3 c");
	assert_string_equal(s, "a http://x:***@h1/ b https://y:***@h2/?pwd=*** c");
	free(s);
	s = zl_redact_env_value("ZL_MIRROR_KEY", "anything");
	assert_string_equal(s, ZL_REDACTED);
	free(s);
	s = zl_redact_env_value("ZL_MIRROR", "https://c:d@m/");
	assert_string_equal(s, "https://c:***@m/");
	free(s);
	zl_redact_argv(argv, &out);
	assert_int_equal(out.nr, 4);
	assert_string_equal(out.v[3], "https://u:***@h/x?key=***");
	strvec_clear(&out);
	assert_true(zl_name_is_secret("GITHUB_TOKEN"));
	assert_true(zl_name_is_secret("sig"));
	assert_false(zl_name_is_secret("design"));
	assert_false(zl_name_is_secret("ZL_BACKEND"));
}

static void test_terminal(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct zl_table t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	(void)state;

	/* C0, DEL, C1 (U+009B is CSI), bytes that are not UTF-8; UTF-8 text stays */
	strbuf_add_printable(&sb, "op\x1b]0;pwned\x07\x7f \xc2\x9b" "31m \xff\xc3 \xc3\x97 \xe2\x80\xa6");
	assert_string_equal(sb.buf, "op\\x1b]0;pwned\\x07\\x7f \\xc2\\x9b31m \\xff\\xc3 \xc3\x97 \xe2\x80\xa6");
	strbuf_release(&sb);
	assert_string_equal(zl_term_str("a\nb"), "a\\nb");
	assert_string_equal(zl_term_str(NULL), "");

	/* a table's cells: escaped, and aligned on what is shown */
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	zl_table_init(&t, 2, 0);
	zl_table_add(&t, "op", ZL_COLOR_NONE);
	zl_table_add(&t, "x", ZL_COLOR_NONE);
	zl_table_add(&t, "\x1b[2J", ZL_COLOR_NONE);
	zl_table_add(&t, "y", ZL_COLOR_NONE);
	zl_table_print(&t, f, 0);
	zl_table_release(&t);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "op       x\n\\x1b[2J  y\n");
	free(buf);
}

/* field written and read back: the same field */
static void csv_round_trip(const char *field, const char *want_written)
{
	struct strbuf sb = STRBUF_INIT;
	struct strvec fields = STRVEC_INIT;
	size_t pos = 0;

	zl_csv_field(&sb, field, 1);
	if (want_written)
		assert_string_equal(sb.buf, want_written);
	zl_csv_field(&sb, "next", 0);
	zl_csv_end_row(&sb);
	assert_int_equal(zl_csv_read_record(sb.buf, sb.len, &pos, &fields), 1);
	assert_int_equal(fields.nr, 2);
	assert_string_equal(fields.v[0], field);
	strvec_clear(&fields);
	strbuf_release(&sb);
}

static void test_csv(void **state)
{
	(void)state;
	csv_round_trip("=HYPERLINK(\"http://x\",\"y\")", "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
	csv_round_trip("+1+1", "\"'+1+1\"");
	csv_round_trip("-2+3", "\"'-2+3\"");
	csv_round_trip("@SUM(A1)", "\"'@SUM(A1)\"");
	csv_round_trip("\tx", "\"'\tx\"");
	csv_round_trip("\rx", "\"'\rx\"");
	/* numbers stay numbers */
	csv_round_trip("-1.5", "-1.5");
	csv_round_trip("+2e-3", "+2e-3");
	csv_round_trip("-", "\"'-\"");
	/* a ' of the data itself reads back as it was */
	csv_round_trip("'=x", "\"''=x\"");
	csv_round_trip("'plain", "'plain");
	csv_round_trip("''", "''");
	csv_round_trip("'NoneType' object, no attribute", NULL);
	csv_round_trip("plain", "plain");
	csv_round_trip("", "");
}

static void test_json_utf8(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	cJSON *doc = cJSON_CreateObject();
	cJSON *back;
	(void)state;

	assert_non_null(cJSON_AddStringToObject(doc, "op", "mm\xff\xfe" "x \xc3\x97 \xed\xa0\x80 \xc0\xaf"));
	assert_int_equal(zl_json_print(&sb, doc, 0, "test"), 0);
	/* 0xff, 0xfe; a surrogate (3 bytes); an overlong '/' (2 bytes): each byte one U+FFFD */
	assert_string_equal(sb.buf, "{\"op\":\"mm\xef\xbf\xbd\xef\xbf\xbdx \xc3\x97 \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd "
				    "\xef\xbf\xbd\xef\xbf\xbd\"}");
	back = cJSON_Parse(sb.buf);
	assert_non_null(back);
	cJSON_Delete(back);
	cJSON_Delete(doc);
	strbuf_release(&sb);
}

static void test_html(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	zl_html_escape(&sb, "<a href='x'>\"&");
	assert_string_equal(sb.buf, "&lt;a href=&#39;x&#39;&gt;&quot;&amp;");
	strbuf_reset(&sb);
	/* a status from a file names a class only when it is a known one */
	assert_string_equal(zl_report_status_class("passed"), "v-passed");
	assert_string_equal(zl_report_status_class("passed\" onload=\"x"), "v-other");
	assert_string_equal(zl_report_status_class(NULL), "v-other");
	/* a Markdown cell (a PR comment renders it as HTML): no markup, no column */
	zl_view_md_cell(&sb, "<img src=x onerror=alert(1)>|&x\n");
	assert_string_equal(sb.buf, " &lt;img src=x onerror=alert(1)&gt;\\|&amp;x  |");
	strbuf_reset(&sb);
	zl_html_td(&sb, "<b>", "v-\"><script>");
	assert_string_equal(sb.buf, "<td class=\"v-&quot;&gt;&lt;script&gt;\">&lt;b&gt;</td>");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_redact),
		cmocka_unit_test(test_terminal),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_json_utf8),
		cmocka_unit_test(test_html),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
