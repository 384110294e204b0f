/*
 * The linear-time helpers of issue 27: strmap (a hashed name -> number map) and jscan (a
 * checking scan over JSON text without a tree, which runload walks results.json with).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "zlbench/jscan.h"
#include "zlbench/strbuf.h"
#include "zlbench/strmap.h"
#include "zlbench/util.h"

static void test_strmap(void **state)
{
	struct zl_strmap m = ZL_STRMAP_INIT;
	char key[32];
	size_t i;
	int added;
	(void)state;

	assert_null(zl_strmap_get(&m, "x"));
	for (i = 0; i < 10000; i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		assert_int_equal(*zl_strmap_put(&m, key, i, &added), i);
		assert_true(added);
	}
	assert_int_equal(*zl_strmap_put(&m, "k17", 99, &added), 17);
	assert_false(added);
	for (i = 0; i < 10000; i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		assert_non_null(zl_strmap_get(&m, key));
		assert_int_equal(*zl_strmap_get(&m, key), i);
	}
	assert_null(zl_strmap_get(&m, "k10000"));
	assert_int_equal(m.nr, 10000);
	assert_true(2 * m.nr <= m.mask + 1);
	zl_strmap_clear(&m);
	assert_null(zl_strmap_get(&m, "k1"));
}

static int scans(const char *text, size_t *nonfinite)
{
	struct zl_jscan s;

	zl_jscan_init(&s, text, strlen(text));
	if (zl_jscan_value(&s) || zl_jscan_peek(&s) || s.p != s.end)
		return 0;
	if (nonfinite)
		*nonfinite = s.nonfinite;
	return 1;
}

static void test_jscan(void **state)
{
	static const char *const good[] = {
		"{}", "[]", " {\"a\": [1, -2.5e-3, 0, true, false, null, \"x\\n\\u00e9\\ud83d\\ude00\"]} ",
		"{\"a\":{\"b\":[{},[]]}}", "\"\"", "-0.0E+5", "[NaN, Infinity, -Infinity]",
	};
	static const char *const bad[] = {
		"", "{", "[1,]", "[,1]", "{\"a\" 1}", "{\"a\":}", "01", "1.", ".5", "-", "1e", "[1 2]", "truex",
		"\"\\x\"", "\"\\ud800\"", "\"\\udc00\"", "\"a\nb\"", "[NaNx]", "{1:2}", "[1]]", "nan", "\"open",
	};
	struct strbuf deep = STRBUF_INIT, key = STRBUF_INIT;
	struct zl_jscan s;
	size_t i, nf = 0;
	int first = 1;
	(void)state;

	for (i = 0; i < sizeof(good) / sizeof(*good); i++)
		if (!scans(good[i], NULL))
			fail_msg("refused: %s", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (scans(bad[i], NULL))
			fail_msg("accepted: %s", bad[i]);
	assert_true(scans("[NaN, 1, Infinity, {\"x\": -Infinity}]", &nf));
	assert_int_equal(nf, 3);
	/* cJSON's nesting limit */
	for (i = 0; i < ZL_JSCAN_MAX_DEPTH; i++)
		strbuf_addch(&deep, '[');
	for (i = 0; i < ZL_JSCAN_MAX_DEPTH; i++)
		strbuf_addch(&deep, ']');
	assert_true(scans(deep.buf, NULL));
	strbuf_reset(&key);
	strbuf_addch(&key, '[');
	strbuf_addbuf(&key, &deep);
	strbuf_addch(&key, ']');
	assert_false(scans(key.buf, NULL));
	/* walking an object: names decoded as cJSON decodes them */
	zl_jscan_init(&s, "{\"d\\u0065tails\": [1], \"x\": 2}", 29);
	assert_int_equal(zl_jscan_open(&s, '{'), 0);
	assert_int_equal(zl_jscan_more(&s, &first), 1);
	assert_int_equal(zl_jscan_key(&s, &key), 0);
	assert_string_equal(key.buf, "details");
	assert_int_equal(zl_jscan_value(&s), 0);
	assert_int_equal(zl_jscan_more(&s, &first), 1);
	assert_int_equal(zl_jscan_key(&s, &key), 0);
	assert_string_equal(key.buf, "x");
	assert_int_equal(zl_jscan_value(&s), 0);
	assert_int_equal(zl_jscan_more(&s, &first), 0);
	strbuf_release(&deep);
	strbuf_release(&key);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strmap),
		cmocka_unit_test(test_jscan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
