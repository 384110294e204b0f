#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "zlbench/fsutil.h"
#include "zlbench/home.h"
#include "zlbench/push.h"
#include "zlbench/push_doc.h"
#include "zlbench/push_transport.h"
#include "zlbench/pyjson.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"

static char *tmpdir;

static int make_tmp(void **state)
{
	struct strbuf err = STRBUF_INIT;
	const char *base = getenv("TMPDIR");

	(void)state;
	if (zl_mkdtemp_in(base && *base ? base : "/tmp", "zl-test-push.", &tmpdir, &err))
		fail_msg("%s", err.buf);
	strbuf_release(&err);
	return 0;
}

static int remove_tmp(void **state)
{
	struct strbuf err = STRBUF_INIT;

	(void)state;
	if (zl_remove_tree(tmpdir, &err))
		fail_msg("%s", err.buf);
	free(tmpdir);
	strbuf_release(&err);
	return 0;
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char *p = zl_path_join(dir, name);
	struct strbuf err = STRBUF_INIT;

	if (zl_write_file_atomic(p, text, strlen(text), &err))
		fail_msg("%s", err.buf);
	strbuf_release(&err);
	free(p);
}

static void test_json_compact(void **state)
{
	static const char in[] =
		"{\n  \"a b\": \"x \\\" NaN y\",\n  \"n\": [1.2345678901234567e-05, NaN,\n"
		"  -Infinity, Infinity ],\t\"s\": \"tab\\\\\" }\n";
	struct strbuf out = STRBUF_INIT;
	size_t replaced;
	(void)state;

	assert_int_equal(zl_json_compact_python(in, strlen(in), &out, &replaced), 0);
	assert_string_equal(out.buf, "{\"a b\":\"x \\\" NaN y\",\"n\":[1.2345678901234567e-05,null,"
			    "null,null],\"s\":\"tab\\\\\"}");
	assert_int_equal(replaced, 3);
	strbuf_reset(&out);
	assert_int_equal(zl_json_compact_python("{\"open", 6, &out, &replaced), -1);
	/* blanks between two words stay one blank: invalid text must not become valid (fuzz) */
	strbuf_reset(&out);
	assert_int_equal(zl_json_compact_python("[6666 \n 6666, tr ue, 1 NaN, \"a\" \"b\"]", 36, &out, &replaced), 0);
	assert_string_equal(out.buf, "[6666 6666,tr ue,1 null,\"a\"\"b\"]");
	strbuf_release(&out);
}

static void test_server_message(void **state)
{
	struct strbuf m = STRBUF_INIT;
	char longbody[1000];
	(void)state;

	zl_push_server_message("{\"message\":\"no such project\"}", 29, &m);
	assert_string_equal(m.buf, "no such project");
	zl_push_server_message("{\"error\":\"bad token\",\"message\":\"\"}", 34, &m);
	assert_string_equal(m.buf, "bad token");
	zl_push_server_message("{\"error\":{\"code\":7,\"message\":\"quota\"}}", 38, &m);
	assert_string_equal(m.buf, "quota");
	zl_push_server_message("\n  \n  first line \nsecond\n", 25, &m);
	assert_string_equal(m.buf, "first line");
	zl_push_server_message("evil\x1b[31mred", 12, &m);
	assert_string_equal(m.buf, "evil?[31mred");
	zl_push_server_message("[1,2]", 5, &m);
	assert_string_equal(m.buf, "[1,2]");
	zl_push_server_message("", 0, &m);
	assert_string_equal(m.buf, "");
	memset(longbody, 'x', sizeof(longbody));
	zl_push_server_message(longbody, sizeof(longbody), &m);
	assert_int_equal(m.len, 300);
	strbuf_release(&m);
}

static void test_backoff(void **state)
{
	long total = 0, w;
	int i;
	(void)state;

	/* equal jitter: between half and all of base * 2^retry */
	assert_int_equal(zl_push_backoff_wait_ms(500, 0, 0, 30000, 0), 250);
	assert_int_equal(zl_push_backoff_wait_ms(500, 0, 0, 30000, 250), 500);
	assert_int_equal(zl_push_backoff_wait_ms(500, 0, 0, 30000, 251), 250);
	assert_int_equal(zl_push_backoff_wait_ms(500, 2, 0, 30000, 0), 1000);
	assert_int_equal(zl_push_backoff_wait_ms(500, 2, 0, 30000, 1000), 2000);
	/* the budget cuts the last wait and then stops them */
	assert_int_equal(zl_push_backoff_wait_ms(500, 3, 29900, 30000, 2000), 100);
	assert_int_equal(zl_push_backoff_wait_ms(500, 3, 30000, 30000, 2000), 0);
	assert_int_equal(zl_push_backoff_wait_ms(500, 3, 40000, 30000, 2000), 0);
	assert_int_equal(zl_push_backoff_wait_ms(0, 5, 0, 30000, 77), 0);
	/* no overflow for absurd retry numbers */
	assert_true(zl_push_backoff_wait_ms(500, 1000, 0, 30000, 0xffffffffu) <= 30000);
	/* the defaults: first wait at most 1 s, all of them together at most 30 s */
	assert_true(zl_push_backoff_wait_ms(ZL_PUSH_DEFAULT_BACKOFF_MS, 0, 0,
					    ZL_PUSH_DEFAULT_BACKOFF_BUDGET_MS, 0xffffffffu) <= 1000);
	for (i = 0; i < ZL_PUSH_MAX_RETRIES; i++) {
		w = zl_push_backoff_wait_ms(ZL_PUSH_DEFAULT_BACKOFF_MS, i, total,
					    ZL_PUSH_DEFAULT_BACKOFF_BUDGET_MS, 0xffffffffu);
		assert_true(w >= 0);
		total += w;
	}
	assert_true(total <= ZL_PUSH_DEFAULT_BACKOFF_BUDGET_MS);
}

static void test_status_retryable(void **state)
{
	static const struct { long status; int retry; } rows[] = {
		{ 500, 1 }, { 502, 1 }, { 503, 1 }, { 504, 1 }, { 408, 1 }, { 429, 1 },
		{ 400, 0 }, { 401, 0 }, { 403, 0 }, { 404, 0 }, { 422, 0 }, { 301, 0 },
	};
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		assert_int_equal(zl_push_status_retryable(rows[i].status), rows[i].retry);
}

static void test_urls(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *s;
	(void)state;

	/* the one redaction rule (redact.h): the user and host stay, the password goes */
	s = zl_push_display_url("https://bob:hunter2@perf.example:8443/api/runs?x=1");
	assert_string_equal(s, "https://bob:***@perf.example:8443/api/runs?x=1");
	free(s);
	s = zl_push_display_url("http://bob:hunter2@[nonsense/x");
	assert_string_equal(s, "http://bob:***@[nonsense/x");
	free(s);
	s = zl_push_display_url("https://perf.example/api?token=abc&x=1&Signature=zz#frag");
	assert_string_equal(s, "https://perf.example/api?token=***&x=1&Signature=***#frag");
	free(s);
	assert_int_equal(zl_push_check_url("http://127.0.0.1:8080/x", &err), 0);
	assert_int_equal(zl_push_check_url("https://perf.example/api", &err), 0);
	assert_int_equal(zl_push_check_url("ftp://perf.example/api", &err), -1);
	assert_non_null(strstr(err.buf, "only http:// and https://"));
	assert_int_equal(zl_push_check_url("file:///etc/passwd", &err), -1);
	assert_int_equal(zl_push_check_url("", &err), -1);
	assert_non_null(strstr(err.buf, "ZL_PUSH_URL"));
	assert_int_equal(zl_push_check_url(NULL, &err), -1);
	/* checked by hand, so that a machine without libcurl checks (and spools) alike */
	assert_int_equal(zl_push_check_url("HTTPS://Perf.Example/api", &err), 0);
	assert_int_equal(zl_push_check_url("http://[::1]:8080/x", &err), 0);
	assert_int_equal(zl_push_check_url("http://bob:p@ss@perf.example:8443", &err), 0);
	assert_int_equal(zl_push_check_url("http://perf.example?x=1", &err), 0);
	assert_int_equal(zl_push_check_url("http:///api", &err), -1);
	assert_non_null(strstr(err.buf, "no host"));
	assert_int_equal(zl_push_check_url("http://bob:hunter2@/api", &err), -1);
	assert_null(strstr(err.buf, "hunter2"));
	assert_int_equal(zl_push_check_url("http://perf.example:0/x", &err), -1);
	assert_non_null(strstr(err.buf, "port"));
	assert_int_equal(zl_push_check_url("http://perf.example:65536/x", &err), -1);
	assert_int_equal(zl_push_check_url("http://perf example/x", &err), -1);
	assert_int_equal(zl_push_check_url("http://[::1/x", &err), -1);
	assert_int_equal(zl_push_check_url("http://[::1]x/", &err), -1);
	assert_int_equal(zl_push_check_url("perf.example/api", &err), -1);
	strbuf_release(&err);
}

static void test_build_document(void **state)
{
	const char *fixtures = getenv("ZL_FIXTURES_DIR");
	char *fixture, *run, *doc, *name, *dst;
	struct strbuf raw = STRBUF_INIT, compact = STRBUF_INIT, err = STRBUF_INIT;
	size_t replaced;
	cJSON *j;
	(void)state;

	assert_non_null(fixtures);
	fixture = xstrfmt("%s/flaggems-runs/mm_core_kernel_h200.results.json", fixtures);
	assert_true(strbuf_read_file(&raw, fixture) > 0);
	run = zl_path_join(tmpdir, "run");
	assert_int_equal(zl_mkdir_p(run, &err), 0);
	write_file(run, "run_identity.json",
		   "{\n \"schema_version\": 1,\n \"run_id\": \"20260101-000000-cuda-mm-aaaaaa\",\n"
		   " \"status\": \"passed\"\n}\n");

	/* without results.json: results is null */
	assert_int_equal(zl_push_build_document(run, &doc, &name, &err), 0);
	assert_string_equal(name, "20260101-000000-cuda-mm-aaaaaa");
	assert_string_equal(doc, "{\"schema\":\"zlbench.push/1\",\"identity\":{\"schema_version\":1,"
			    "\"run_id\":\"20260101-000000-cuda-mm-aaaaaa\",\"status\":\"passed\"},"
			    "\"results\":null}");
	free(doc);
	free(name);

	/* with the real results.json: embedded byte for byte, whitespace aside */
	dst = zl_path_join(run, "results.json");
	assert_int_equal(zl_write_file_atomic(dst, raw.buf, raw.len, &err), 0);
	assert_int_equal(zl_json_compact_python(raw.buf, raw.len, &compact, &replaced), 0);
	assert_int_equal(zl_push_build_document(run, &doc, &name, &err), 0);
	assert_non_null(strstr(doc, compact.buf));
	assert_non_null(strstr(doc, "0.8096417317728881")); /* cJSON's re-print would round it */
	j = cJSON_Parse(doc);
	assert_non_null(j);
	assert_true(cJSON_IsObject(cJSON_GetObjectItem(j, "results")));
	cJSON_Delete(j);
	free(doc);
	free(name);

	/* a run still running is not pushed; a non-object identity is refused */
	write_file(run, "run_identity.json", "{\"run_id\":\"r1\",\"status\":\"running\"}");
	assert_int_equal(zl_push_build_document(run, &doc, &name, &err), -1);
	assert_non_null(strstr(err.buf, "still running"));
	assert_null(doc);
	assert_null(name);
	write_file(run, "run_identity.json", "[1,2]");
	assert_int_equal(zl_push_build_document(run, &doc, &name, &err), -1);
	assert_non_null(strstr(err.buf, "does not hold a JSON object"));
	/* a document followed by more, or made of words that blanks parted, is not valid JSON */
	write_file(run, "run_identity.json", "{\"run_id\":\"r1\",\"status\":\"passed\"}\n{\"x\": 1}\n");
	assert_int_equal(zl_push_build_document(run, &doc, &name, &err), -1);
	assert_non_null(strstr(err.buf, "is not valid JSON: text after the value, at byte 33 of its compact form"));
	write_file(run, "run_identity.json", "{\"run_id\":\"r1\",\"exit_code\": 1 2}");
	assert_int_equal(zl_push_build_document(run, &doc, &name, &err), -1);
	assert_non_null(strstr(err.buf, "is not valid JSON"));
	/* no run_id: the directory's name */
	write_file(run, "run_identity.json", "{\"status\":\"failed\"}");
	assert_int_equal(zl_push_build_document(run, &doc, &name, &err), 0);
	assert_string_equal(name, "run");
	free(doc);
	free(name);

	strbuf_release(&raw);
	strbuf_release(&compact);
	strbuf_release(&err);
	free(dst);
	free(run);
	free(fixture);
}

static void test_home_dir(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *h, *want;
	(void)state;

	setenv("ZL_HOME", "/zl/home", 1);
	setenv("XDG_DATA_HOME", "/xdg", 1);
	setenv("HOME", "/users/me", 1);
	h = zl_home_dir();
	assert_string_equal(h, "/zl/home");
	free(h);
	setenv("ZL_HOME", "", 1); /* empty counts as unset */
	h = zl_home_dir();
	assert_string_equal(h, "/xdg/zlbench");
	free(h);
	unsetenv("ZL_HOME");
	unsetenv("XDG_DATA_HOME");
	h = zl_home_dir();
	assert_string_equal(h, "/users/me/.local/share/zlbench");
	free(h);
	unsetenv("HOME");
	assert_null(zl_home_dir());
	assert_int_equal(zl_home_ensure(&h, &err), -1);
	assert_null(h);
	assert_non_null(strstr(err.buf, "ZL_HOME"));

	want = xstrfmt("%s/deep/zlhome", tmpdir);
	setenv("ZL_HOME", want, 1);
	assert_int_equal(zl_home_ensure(&h, &err), 0);
	assert_string_equal(h, want);
	assert_true(zl_is_dir(want));
	free(h);
	assert_int_equal(zl_home_subdir_ensure("spool", &h, &err), 0);
	assert_true(zl_is_dir(h));
	free(h);
	free(want);
	strbuf_release(&err);
}

static void test_opts_env(void **state)
{
	struct zl_push_opts o;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	zl_push_opts_init(&o);
	assert_int_equal(o.retries, ZL_PUSH_DEFAULT_RETRIES);
	assert_true(o.retries >= 3);
	setenv("ZL_PUSH_URL", "http://env.example/x", 1);
	setenv("ZL_PUSH_TOKEN", "tok-123", 1);
	setenv("ZL_PUSH_BACKOFF_MS", "7", 1);
	assert_int_equal(zl_push_opts_from_env(&o, &err), 0);
	assert_string_equal(o.url, "http://env.example/x");
	assert_string_equal(o.token, "tok-123");
	assert_int_equal(o.backoff_ms, 7);
	/* an explicit URL wins */
	zl_push_opts_init(&o);
	o.url = "http://flag.example/";
	assert_int_equal(zl_push_opts_from_env(&o, &err), 0);
	assert_string_equal(o.url, "http://flag.example/");
	setenv("ZL_PUSH_TOKEN", "tok\r\nX-Evil: 1", 1);
	assert_int_equal(zl_push_opts_from_env(&o, &err), -1);
	assert_null(strstr(err.buf, "tok"));
	setenv("ZL_PUSH_TOKEN", "", 1);
	setenv("ZL_PUSH_BACKOFF_MS", "-1", 1);
	assert_int_equal(zl_push_opts_from_env(&o, &err), -1);
	assert_non_null(strstr(err.buf, "ZL_PUSH_BACKOFF_MS"));
	unsetenv("ZL_PUSH_URL");
	unsetenv("ZL_PUSH_TOKEN");
	unsetenv("ZL_PUSH_BACKOFF_MS");
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_compact),
		cmocka_unit_test(test_server_message),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_status_retryable),
		cmocka_unit_test(test_urls),
		cmocka_unit_test(test_build_document),
		cmocka_unit_test(test_home_dir),
		cmocka_unit_test(test_opts_env),
	};
	return cmocka_run_group_tests(tests, make_tmp, remove_tmp);
}
