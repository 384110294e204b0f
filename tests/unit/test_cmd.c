/* The dispatcher (src/cmd/dispatch.c) over a command table of its own: set-up done once, from the rows. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/settings.h"
#include "zlbench/strvec.h"
#include "zlbench/zlbench.h"

static int loud, calls, inner_calls;
static const char *name;
static enum zl_source name_source;
static struct strvec seen_args = STRVEC_INIT, seen_pass = STRVEC_INIT;
static char *seen_level, *seen_name;
static enum zl_source seen_source;
static int seen_verbosity;

static const struct zl_option echo_options[] = {
	{ .type = ZL_OPT_FLAG, .long_name = "loud", .value = &loud, .defval = 1, .help = "louder" },
	{ .type = ZL_OPT_STRING, .long_name = "name", .value = &name, .argh = "N", .help = "a name",
	  .env = "ZL_TEST_CMD_NAME", .source = &name_source },
	ZL_OPT_END_ROW,
};

/* What the command saw: the dispatcher empties the values after it. */
static int echo(struct zl_cmd_ctx *ctx)
{
	size_t i;

	calls++;
	seen_verbosity = zl_verbosity;
	strvec_clear(&seen_args);
	for (i = 0; i < ctx->args.nr; i++)
		strvec_push(&seen_args, ctx->args.v[i]);
	free(seen_name);
	seen_name = name ? strdup(name) : NULL;
	seen_source = name_source;
	return loud ? 7 : 0;
}

static int inner(struct zl_cmd_ctx *ctx)
{
	inner_calls++;
	assert_int_equal(ctx->args.nr, 1);
	return 0;
}

static int settle(struct zl_cmd_ctx *ctx)
{
	calls++;
	seen_verbosity = zl_verbosity;
	assert_non_null(ctx->s);
	assert_non_null(ctx->s->backend);
	free(seen_level);
	seen_level = strdup(ctx->s->level);
	strvec_clear(&seen_pass);
	strvec_pushv(&seen_pass, ctx->s->passthrough.v);
	return 0;
}

static const struct zl_command cmd_echo = {
	.name = "echo", .fn = echo, .flags = ZL_CMD_OPERANDS, .options = echo_options,
	.summary = "say it", .usage = "[--loud] WORDS",
};
static const struct zl_command cmd_inner = {
	.name = "echo", .entry = "--inner", .fn = inner, .flags = ZL_CMD_HIDDEN | ZL_CMD_OPERANDS,
	.summary = "an internal entry point", .usage = "DIR",
};
static const struct zl_command cmd_quiet = {
	.name = "quiet", .fn = echo, .summary = "takes nothing", .usage = "",
};
static const struct zl_command cmd_settle = {
	.name = "settle", .fn = settle, .flags = ZL_CMD_SETTINGS | ZL_CMD_RESOLVE,
	.summary = "the run settings", .usage = "[run settings] [-- <pytest args>]",
};
static const struct zl_command *const table[] = { &cmd_echo, &cmd_inner, &cmd_quiet, &cmd_settle, NULL };

const struct zl_command *const *zl_commands(void)
{
	return table;
}

static int dispatch(const char *const *words)
{
	int argc = 0;

	while (words[argc])
		argc++;
	return zl_command_dispatch(argc, (const char **)words);
}

static void test_dispatch(void **state)
{
	const char *const run[] = { "echo", "a", "--loud", "b", NULL };
	(void)state;

	calls = 0;
	assert_int_equal(dispatch(run), 7);
	assert_int_equal(calls, 1);
	assert_int_equal(seen_args.nr, 2);
	assert_string_equal(seen_args.v[1], "b");
	/* emptied after the command: the next dispatch starts clean */
	assert_int_equal(loud, 0);
	assert_null(name);
	strvec_clear(&seen_args);
}

/* Usage errors and --help answer without calling the command. */
static void test_refusals(void **state)
{
	const char *const unknown[] = { "frob", NULL };
	const char *const word[] = { "quiet", "extra", NULL };
	const char *const help[] = { "echo", "--help", NULL };
	const char *const bad_option[] = { "echo", "--soft", NULL };
	const char *const hidden_by_name[] = { "--inner", NULL };
	(void)state;

	calls = 0;
	assert_int_equal(dispatch(unknown), ZL_EXIT_USAGE);
	assert_int_equal(dispatch(word), ZL_EXIT_USAGE);
	assert_int_equal(dispatch(help), ZL_EXIT_OK);
	assert_int_equal(dispatch(bad_option), ZL_EXIT_USAGE);
	assert_int_equal(dispatch(hidden_by_name), ZL_EXIT_USAGE);
	assert_int_equal(calls, 0);
}

/* A hidden row is reached through its entry word only, and find() does not list it. */
static void test_hidden(void **state)
{
	const char *const entry[] = { "echo", "--inner", "DIR", NULL };
	(void)state;

	inner_calls = 0;
	assert_int_equal(dispatch(entry), 0);
	assert_int_equal(inner_calls, 1);
	assert_ptr_equal(zl_command_find("echo"), &cmd_echo);
	assert_null(zl_command_find("--inner"));
}

/* A row's string option reads its variable when not given, and the source says so. */
static void test_env(void **state)
{
	const char *const run[] = { "echo", NULL };
	const char *const flag[] = { "echo", "--name", "from-flag", NULL };
	(void)state;

	assert_int_equal(setenv("ZL_TEST_CMD_NAME", "from-env", 1), 0);
	assert_int_equal(dispatch(run), 0);
	assert_string_equal(seen_name, "from-env");
	assert_int_equal(seen_source, ZL_SRC_ENV);
	assert_null(name); /* emptied after; the source too */
	assert_int_equal(name_source, ZL_SRC_UNSET);
	assert_int_equal(dispatch(flag), 0);
	assert_string_equal(seen_name, "from-flag");
	assert_int_equal(seen_source, ZL_SRC_FLAG);
	unsetenv("ZL_TEST_CMD_NAME");
	free(seen_name);
	seen_name = NULL;
}

/* ZL_CMD_SETTINGS | ZL_CMD_RESOLVE: settings parsed and resolved before, pytest arguments kept. */
static void test_settings(void **state)
{
	const char *const run[] = { "settle", "--backend", "cuda", "--level", "comprehensive", "--", "-x", NULL };
	const char *const bad[] = { "settle", "--backend", "cuda", "--level", "everything", NULL };
	(void)state;

	calls = 0;
	assert_int_equal(dispatch(run), 0);
	assert_int_equal(calls, 1);
	assert_string_equal(seen_level, "comprehensive");
	assert_int_equal(seen_pass.nr, 1);
	assert_string_equal(seen_pass.v[0], "-x");
	/* a bad value is a usage error; the command never runs */
	assert_int_equal(dispatch(bad), ZL_EXIT_USAGE);
	assert_int_equal(calls, 1);
	free(seen_level);
	seen_level = NULL;
	strvec_clear(&seen_pass);
}


/* stderr of fn(words) while it runs, as a string (caller frees); *code its exit code. */
static char *stderr_of(const char *const *words, int *code)
{
	char path[] = "/tmp/zl-test-cmd-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	char *text = calloc(1, 4096);
	FILE *f;

	assert_true(fd >= 0 && saved >= 0 && text);
	fflush(stderr);
	assert_int_equal(dup2(fd, 2), 2);
	*code = dispatch(words);
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	close(fd);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_true(fread(text, 1, 4095, f) < 4095);
	fclose(f);
	unlink(path);
	return text;
}

/* The global options after the command as before it, up to "--": what follows goes to pytest. */
static void test_global_anywhere(void **state)
{
	const char *const after[] = { "echo", "word", "-q", NULL };
	const char *const verbose[] = { "echo", "--verbose", "word", NULL };
	const char *const passed[] = { "settle", "--backend", "cuda", "--", "-q", NULL };
	(void)state;

	zl_verbosity = 0;
	assert_int_equal(dispatch(after), 0);
	assert_int_equal(seen_verbosity, -1);
	assert_int_equal(seen_args.nr, 1);
	zl_verbosity = 0;
	assert_int_equal(dispatch(verbose), 0);
	assert_int_equal(seen_verbosity, 1);
	zl_verbosity = 0;
	assert_int_equal(dispatch(passed), 0);
	assert_int_equal(seen_verbosity, 0);
	assert_int_equal(seen_pass.nr, 1);
	assert_string_equal(seen_pass.v[0], "-q");
	strvec_clear(&seen_args);
	strvec_clear(&seen_pass);
	free(seen_level);
	seen_level = NULL;
	zl_verbosity = 0;
}

/* A mistyped command or option names the nearest one. */
static void test_did_you_mean(void **state)
{
	const char *const command[] = { "ehco", "x", NULL };
	const char *const option[] = { "echo", "--lowd", NULL };
	const char *const far[] = { "frobnicate", NULL };
	int code;
	char *err;
	(void)state;

	err = stderr_of(command, &code);
	assert_int_equal(code, ZL_EXIT_USAGE);
	assert_string_equal(err, "zlbench: error: unknown command 'ehco' (see 'zlbench help'); did you mean 'echo'?\n");
	free(err);
	err = stderr_of(option, &code);
	assert_int_equal(code, ZL_EXIT_USAGE);
	assert_string_equal(err, "zlbench: error: unknown option '--lowd' (see --help); did you mean '--loud'?\n");
	free(err);
	err = stderr_of(far, &code);
	assert_string_equal(err, "zlbench: error: unknown command 'frobnicate' (see 'zlbench help')\n");
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dispatch),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_hidden),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_global_anywhere),
		cmocka_unit_test(test_did_you_mean),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
