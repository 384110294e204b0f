#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "zlbench/pyjson.h"
#include "zlbench/strbuf.h"

/* in (len bytes) is refused with an error containing why. */
static void expect_refused(const char *in, size_t len, const char *why)
{
	struct strbuf err = STRBUF_INIT;
	size_t nonfinite = 99;
	cJSON *doc = zl_json_parse_python(in, len, NULL, &nonfinite, &err);

	assert_null(doc);
	assert_non_null(strstr(err.buf, why));
	strbuf_release(&err);
}

static void test_nonfinite_are_null(void **state)
{
	static const char in[] = "{\"a\": [NaN, Infinity, -Infinity, 1.5], \"s\": \"NaN stays\"}\n";
	struct strbuf compact = STRBUF_INIT, err = STRBUF_INIT;
	size_t nonfinite = 0;
	cJSON *doc;
	(void)state;

	doc = zl_json_parse_python(in, strlen(in), &compact, &nonfinite, &err);
	assert_non_null(doc);
	assert_int_equal(nonfinite, 3);
	assert_string_equal(compact.buf, "{\"a\":[null,null,null,1.5],\"s\":\"NaN stays\"}");
	assert_true(cJSON_IsNull(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "a"), 0)));
	assert_string_equal(cJSON_GetObjectItem(doc, "s")->valuestring, "NaN stays");
	cJSON_Delete(doc);
	strbuf_release(&compact);
	strbuf_release(&err);
}

static void test_not_one_value(void **state)
{
	(void)state;
	expect_refused("{\"a\":1}\0garbage", 15, "a NUL byte at byte 7");
	expect_refused("{\"a\":\0}", 7, "a NUL byte at byte 5");
	expect_refused("{\"a\":\"x\ny\"}", 11, "a control character in a string at byte 7");
	expect_refused("{\"a\":1} {\"b\":2}", 15, "text after the value");
	expect_refused("{\"a\":\"open", 10, "not closed");
	expect_refused("  \n", 3, "empty");
	expect_refused("{\"a\":1", 6, "not valid JSON");
}

static void test_escapes_kept(void **state)
{
	static const char in[] = "{\"q\": \"a\\\"b\\\\\", \"t\": \"\\t\"}";
	struct strbuf compact = STRBUF_INIT;
	cJSON *doc;
	(void)state;

	doc = zl_json_parse_python(in, strlen(in), &compact, NULL, NULL);
	assert_non_null(doc);
	assert_string_equal(compact.buf, "{\"q\":\"a\\\"b\\\\\",\"t\":\"\\t\"}");
	assert_string_equal(cJSON_GetObjectItem(doc, "q")->valuestring, "a\"b\\");
	cJSON_Delete(doc);
	strbuf_release(&compact);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nonfinite_are_null),
		cmocka_unit_test(test_not_one_value),
		cmocka_unit_test(test_escapes_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
