#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"

static void test_strbuf_basic(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	assert_string_equal(sb.buf, "");
	strbuf_addstr(&sb, "  hello");
	strbuf_addf(&sb, " %d ", 42);
	strbuf_trim(&sb);
	assert_string_equal(sb.buf, "hello 42");
	assert_int_equal(sb.len, 8);
	strbuf_release(&sb);
	assert_int_equal(sb.len, 0);
}

static void test_strvec_split(void **state)
{
	struct strvec sv = STRVEC_INIT;
	(void)state;
	strvec_split(&sv, " 0, 2 ,,3", ',');
	assert_int_equal(sv.nr, 3);
	assert_string_equal(sv.v[1], "2");
	assert_null(sv.v[3]);
	assert_int_equal(strvec_find(&sv, "3"), 2);
	strvec_clear(&sv);
	assert_int_equal(sv.nr, 0);
}

static void test_parse_bool(void **state)
{
	(void)state;
	assert_int_equal(zl_parse_bool("YES"), 1);
	assert_int_equal(zl_parse_bool("off"), 0);
	assert_int_equal(zl_parse_bool("2"), -1);
	assert_int_equal(zl_parse_bool(""), -1);
}

static void test_edit_distance(void **state)
{
	(void)state;
	assert_int_equal(zl_edit_distance("mm", "bmm"), 1);
	assert_int_equal(zl_edit_distance("softmax", "sofmax"), 1);
	assert_int_equal(zl_edit_distance("", "abc"), 3);
}

static void test_add_printable(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	strbuf_add_printable(&sb, "a\nb\r\t\x1b[2J\x7fz");
	assert_string_equal(sb.buf, "a\\nb\\r\\t\\x1b[2J\\x7fz");
	assert_int_equal(zl_has_control_char("plain/path"), 0);
	assert_int_equal(zl_has_control_char("x\ny"), 1);
	assert_int_equal(zl_has_control_char("x\x7f"), 1);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strbuf_basic),
		cmocka_unit_test(test_strvec_split),
		cmocka_unit_test(test_parse_bool),
		cmocka_unit_test(test_edit_distance),
		cmocka_unit_test(test_add_printable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
