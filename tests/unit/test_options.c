/* The option parser and its help rendering (lib/options.c): one parser for every command. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "zlbench/options.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"

static int cb_seen;
static int count_cb(const struct zl_option *o, const char *arg, struct strbuf *err)
{
	(void)o; (void)arg; (void)err;
	cb_seen++;
	return 0;
}

static void test_options(void **state)
{
	const char *name = NULL;
	int flag = 0;
	struct strvec list = STRVEC_INIT, args = STRVEC_INIT, pass = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	const struct zl_option table[] = {
		{ .type = ZL_OPT_STRING, .long_name = "name", .short_name = 'n', .value = &name, .argh = "NAME",
		  .help = "a name" },
		{ .type = ZL_OPT_FLAG, .long_name = "flag", .value = &flag, .help = "a flag", .defval = 7 },
		{ .type = ZL_OPT_STRLIST, .long_name = "item", .value = &list, .argh = "X", .help = "items" },
		{ .type = ZL_OPT_CALLBACK, .long_name = "count", .help = "count", .cb = count_cb },
		ZL_OPT_END_ROW,
	};
	const struct zl_option *const tables[] = { table, NULL };
	const char *argv[] = { "--name=x", "pos", "--flag", "--item", "a", "--item=b", "--count",
			       "--", "--level", "x" };
	const char *bad[] = { "--nope" };
	const char *novalue[] = { "--name" };
	(void)state;

	assert_int_equal(zl_parse_options(10, argv, tables, &args, &pass, &err), 0);
	assert_string_equal(name, "x");
	assert_int_equal(flag, 7);
	assert_int_equal(list.nr, 2);
	assert_int_equal(cb_seen, 1);
	assert_int_equal(args.nr, 1);
	assert_int_equal(pass.nr, 2);
	assert_string_equal(pass.v[0], "--level");
	assert_int_equal(zl_parse_options(1, bad, tables, &args, &pass, &err), -1);
	assert_non_null(strstr(err.buf, "--nope"));
	assert_int_equal(zl_parse_options(1, novalue, tables, &args, &pass, &err), -1);
	assert_non_null(strstr(err.buf, "NAME"));
	/* released: every value as before parsing */
	zl_options_release(tables);
	assert_null(name);
	assert_int_equal(flag, 0);
	assert_int_equal(list.nr, 0);
	strvec_clear(&args);
	strvec_clear(&pass);
	strbuf_release(&err);
}

/* A string row's .env is its default; a flag beats it; the source says which; an empty variable is unset. */
static void test_env(void **state)
{
	const char *url = NULL, *mode = NULL;
	enum zl_source url_src = ZL_SRC_UNSET, mode_src = ZL_SRC_UNSET;
	struct strvec args = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	const struct zl_option table[] = {
		{ .type = ZL_OPT_STRING, .long_name = "url", .value = &url, .argh = "URL", .env = "ZL_TEST_OPT_URL",
		  .source = &url_src },
		{ .type = ZL_OPT_STRING, .long_name = "mode", .value = &mode, .argh = "M", .env = "ZL_TEST_OPT_MODE",
		  .source = &mode_src },
		ZL_OPT_END_ROW,
	};
	const struct zl_option *const tables[] = { table, NULL };
	const char *flag[] = { "--url", "http://flag" };
	(void)state;

	assert_int_equal(setenv("ZL_TEST_OPT_URL", "http://env", 1), 0);
	assert_int_equal(setenv("ZL_TEST_OPT_MODE", "", 1), 0);
	assert_int_equal(zl_parse_options(0, NULL, tables, &args, NULL, &err), 0);
	assert_string_equal(url, "http://env");
	assert_int_equal(url_src, ZL_SRC_ENV);
	assert_null(mode);
	assert_int_equal(mode_src, ZL_SRC_UNSET);
	zl_options_release(tables);
	assert_int_equal(url_src, ZL_SRC_UNSET);

	assert_int_equal(zl_parse_options(2, flag, tables, &args, NULL, &err), 0);
	assert_string_equal(url, "http://flag");
	assert_int_equal(url_src, ZL_SRC_FLAG);
	zl_options_release(tables);

	/* --help answers before the environment is read */
	{
		const char *help[] = { "--help" };

		assert_int_equal(zl_parse_options(1, help, tables, &args, NULL, &err), 1);
		assert_null(url);
	}
	unsetenv("ZL_TEST_OPT_URL");
	unsetenv("ZL_TEST_OPT_MODE");
	strvec_clear(&args);
	strbuf_release(&err);
}

/* Hidden rows parse and are not listed; doc-only rows are listed and never parse; env-only rows have no name. */
static void test_hidden_doc_only(void **state)
{
	int alias = 0, real = 0;
	const char *sock = NULL;
	struct strvec args = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	const struct zl_option own[] = {
		{ .type = ZL_OPT_FLAG, .long_name = "gpus", .value = &alias, .defval = 1, .flags = ZL_OPT_HIDDEN },
		{ .type = ZL_OPT_FLAG, .long_name = "real", .help = "said here, parsed below", .flags = ZL_OPT_DOC_ONLY },
		{ .type = ZL_OPT_STRING, .value = &sock, .env = "ZL_TEST_OPT_SOCK", .flags = ZL_OPT_HIDDEN },
		ZL_OPT_END_ROW,
	};
	const struct zl_option other[] = {
		{ .type = ZL_OPT_FLAG, .long_name = "real", .value = &real, .defval = 1, .help = "the parsing row" },
		ZL_OPT_END_ROW,
	};
	const struct zl_option *const tables[] = { own, other, NULL };
	const char *argv[] = { "--gpus", "--real" };
	const char *nameless[] = { "--=/tmp/x" };
	char *text = NULL;
	size_t size = 0;
	FILE *mem;
	(void)state;

	assert_int_equal(setenv("ZL_TEST_OPT_SOCK", "/tmp/s", 1), 0);
	assert_int_equal(zl_parse_options(2, argv, tables, &args, NULL, &err), 0);
	assert_int_equal(alias, 1);
	assert_int_equal(real, 1);
	assert_string_equal(sock, "/tmp/s");
	/* a row without a name is no option: no word reaches it */
	assert_int_equal(zl_parse_options(1, nameless, tables, &args, NULL, &err), -1);
	assert_non_null(strstr(err.buf, "unknown option '--'"));
	unsetenv("ZL_TEST_OPT_SOCK");

	mem = open_memstream(&text, &size);
	assert_non_null(mem);
	zl_options_usage(mem, tables);
	assert_int_equal(fclose(mem), 0);
	assert_null(strstr(text, "gpus"));
	assert_null(strstr(text, "ZL_TEST_OPT_SOCK"));
	assert_non_null(strstr(text, "--real"));
	assert_non_null(strstr(text, "said here, parsed below"));
	free(text);
	strvec_clear(&args);
	strbuf_release(&err);
}

/* The help layout: one column, further lines under the first, env and default in one bracket, groups as headings. */
static void test_usage_layout(void **state)
{
	const char *out = NULL, *wide = NULL;
	int json = 0;
	const struct zl_option table[] = {
		{ .type = ZL_OPT_STRING, .long_name = "out", .short_name = 'o', .value = &out, .argh = "DIR",
		  .help = "where it goes\nand why", .env = "ZL_OUT", .default_doc = "runs" },
		{ .type = ZL_OPT_GROUP, .help = "Output:" },
		{ .type = ZL_OPT_FLAG, .long_name = "json", .value = &json, .help = "one JSON document", .default_doc = "off" },
		{ .type = ZL_OPT_STRING, .long_name = "a-very-long-option-name", .value = &wide, .argh = "VALUE",
		  .help = "below" },
		ZL_OPT_END_ROW,
	};
	const struct zl_option *const tables[] = { table, NULL };
	char *text = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&text, &size);
	(void)state;

	assert_non_null(mem);
	zl_options_usage(mem, tables);
	assert_int_equal(fclose(mem), 0);
	assert_string_equal(text,
			    "  -o, --out DIR                 where it goes\n"
			    "                                and why [env ZL_OUT; default: runs]\n"
			    "\nOutput:\n"
			    "  --json                        one JSON document [default: off]\n"
			    "  --a-very-long-option-name VALUE\n"
			    "                                below\n");
	free(text);
}

/* Global options: the words up to the command's name. */
static void test_prefix(void **state)
{
	int verbosity = 0;
	struct strbuf err = STRBUF_INIT;
	const struct zl_option table[] = {
		{ .type = ZL_OPT_FLAG, .long_name = "quiet", .short_name = 'q', .value = &verbosity, .defval = -1 },
		ZL_OPT_END_ROW,
	};
	const struct zl_option *const tables[] = { table, NULL };
	const char *argv[] = { "-q", "run", "--op", "mm" };
	const char *bad[] = { "--loud", "run" };
	int used = -1;
	(void)state;

	assert_int_equal(zl_parse_options_prefix(4, argv, tables, &used, &err), 0);
	assert_int_equal(used, 1);
	assert_int_equal(verbosity, -1);
	assert_int_equal(zl_parse_options_prefix(1, argv, tables, &used, &err), 0);
	assert_int_equal(used, 1);
	assert_int_equal(zl_parse_options_prefix(2, bad, tables, &used, &err), -1);
	assert_non_null(strstr(err.buf, "--loud"));
	strbuf_release(&err);
}

/* Rows marked ZL_OPT_FORWARD are passed on as given, in table order. */
static void test_forward(void **state)
{
	const char *timeout = NULL, *start = NULL, *own = NULL;
	int flag = 0;
	struct strvec fwd = STRVEC_INIT;
	const struct zl_option table[] = {
		{ .type = ZL_OPT_STRING, .long_name = "own", .value = &own, .argh = "X" },
		{ .type = ZL_OPT_STRING, .long_name = "timeout-per-op", .value = &timeout, .argh = "S",
		  .flags = ZL_OPT_FORWARD },
		{ .type = ZL_OPT_STRING, .long_name = "start", .value = &start, .argh = "M", .flags = ZL_OPT_FORWARD },
		{ .type = ZL_OPT_FLAG, .long_name = "keep", .value = &flag, .defval = 1, .flags = ZL_OPT_FORWARD },
		ZL_OPT_END_ROW,
	};
	const struct zl_option *const tables[] = { table, NULL };
	(void)state;

	own = "x";
	start = "fresh";
	flag = 1;
	zl_options_forward(tables, &fwd);
	assert_int_equal(fwd.nr, 2);
	assert_string_equal(fwd.v[0], "--start=fresh");
	assert_string_equal(fwd.v[1], "--keep");
	strvec_clear(&fwd);
}


/* An unknown option names the nearest ones the tables list (not hidden ones), as close as the best. */
static void test_did_you_mean(void **state)
{
	const char *timer = NULL, *timeout = NULL, *out = NULL;
	int secret = 0;
	struct strvec args = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	const struct zl_option table[] = {
		{ .type = ZL_OPT_STRING, .long_name = "timer", .value = &timer, .argh = "NAME" },
		{ .type = ZL_OPT_STRING, .long_name = "timeout", .value = &timeout, .argh = "S" },
		{ .type = ZL_OPT_FLAG, .long_name = "timed", .value = &secret, .defval = 1, .flags = ZL_OPT_HIDDEN },
		ZL_OPT_END_ROW,
	};
	const struct zl_option more[] = {
		{ .type = ZL_OPT_STRING, .long_name = "out", .value = &out, .argh = "DIR" },
		ZL_OPT_END_ROW,
	};
	const struct zl_option *const tables[] = { table, more, NULL };
	const char *tmer[] = { "--tmer=x" };
	const char *tmeout[] = { "--tmeout", "3" };
	const char *time[] = { "--time" };
	const char *far[] = { "--frobnicate" };
	(void)state;

	assert_int_equal(zl_parse_options(1, tmer, tables, &args, NULL, &err), -1);
	assert_string_equal(err.buf, "unknown option '--tmer' (see --help); did you mean '--timer'?");
	/* "--out" is further from "--tmeout" than "--timeout": only the closest are named */
	assert_int_equal(zl_parse_options(2, tmeout, tables, &args, NULL, &err), -1);
	assert_string_equal(err.buf, "unknown option '--tmeout' (see --help); did you mean '--timeout'?");
	/* the hidden "--timed" is as close, and never named */
	assert_int_equal(zl_parse_options(1, time, tables, &args, NULL, &err), -1);
	assert_string_equal(err.buf, "unknown option '--time' (see --help); did you mean '--timer'?");
	assert_int_equal(zl_parse_options(1, far, tables, &args, NULL, &err), -1);
	assert_string_equal(err.buf, "unknown option '--frobnicate' (see --help)");
	zl_options_release(tables);
	strvec_clear(&args);
	strbuf_release(&err);
}

/* A string row's choices: a word's value and a variable's are checked after all the words, with a suggestion. */
static void test_choices(void **state)
{
	const char *start = NULL;
	enum zl_source src = ZL_SRC_UNSET;
	struct strvec args = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	const struct zl_option table[] = {
		{ .type = ZL_OPT_STRING, .long_name = "start", .value = &start, .argh = "MODE", .env = "ZL_TEST_OPT_START",
		  .source = &src, .choices = "worker fresh", .hidden_choices = "fork" },
		ZL_OPT_END_ROW,
	};
	const struct zl_option *const tables[] = { table, NULL };
	const char *good[] = { "--start", "fresh" };
	const char *typo[] = { "--start=frsh" };
	const char *far[] = { "--start=warm" };
	const char *hidden[] = { "--start=fork" };
	const char *help[] = { "--start=frsh", "--help" };
	(void)state;

	assert_int_equal(zl_parse_options(2, good, tables, &args, NULL, &err), 0);
	assert_string_equal(start, "fresh");
	zl_options_release(tables);
	assert_int_equal(zl_parse_options(1, typo, tables, &args, NULL, &err), -1);
	assert_string_equal(err.buf, "invalid value 'frsh' for --start: choose worker or fresh; did you mean 'fresh'?");
	zl_options_release(tables);
	assert_int_equal(zl_parse_options(1, far, tables, &args, NULL, &err), -1);
	assert_string_equal(err.buf, "invalid value 'warm' for --start: choose worker or fresh");
	zl_options_release(tables);
	/* taken, not offered: its owner refuses it with the reason */
	assert_int_equal(zl_parse_options(1, hidden, tables, &args, NULL, &err), 0);
	assert_string_equal(start, "fork");
	zl_options_release(tables);
	/* --help anywhere answers, whatever the values before it */
	assert_int_equal(zl_parse_options(2, help, tables, &args, NULL, &err), 1);
	zl_options_release(tables);
	/* the variable's value likewise, named by the variable */
	assert_int_equal(setenv("ZL_TEST_OPT_START", "wroker", 1), 0);
	assert_int_equal(zl_parse_options(0, NULL, tables, &args, NULL, &err), -1);
	assert_string_equal(err.buf, "invalid value 'wroker' for ZL_TEST_OPT_START: choose worker or fresh; "
				     "did you mean 'worker'?");
	zl_options_release(tables);
	/* a flag given wins over a bad variable: only what is used is checked */
	assert_int_equal(zl_parse_options(2, good, tables, &args, NULL, &err), 0);
	assert_int_equal(src, ZL_SRC_FLAG);
	zl_options_release(tables);
	unsetenv("ZL_TEST_OPT_START");
	assert_int_equal(zl_option_choice("a b c", "b", "--x", &err), 0);
	assert_int_equal(zl_option_choice("a b c", "d", "--x", &err), -1);
	assert_string_equal(err.buf, "invalid value 'd' for --x: choose a, b or c; did you mean 'a' or 'b'?");
	strvec_clear(&args);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_hidden_doc_only),
		cmocka_unit_test(test_usage_layout),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_forward),
		cmocka_unit_test(test_did_you_mean),
		cmocka_unit_test(test_choices),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
