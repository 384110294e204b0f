#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "zlbench/cmd.h"
#include "zlbench/man.h"
#include "zlbench/strbuf.h"

/* A command table of its own: the page is built from whatever rows there are (hidden ones left out). */
static const char *level;

static const struct zl_option frob_options[] = {
	{ .type = ZL_OPT_STRING, .long_name = "level", .value = &level, .argh = "L", .help = "how hard\n(default 1)" },
	ZL_OPT_END_ROW,
};

static const struct zl_command frob = {
	.name = "frob",
	.options = frob_options,
	.summary = "frob a file",
	.usage = "[--level L] FILE",
	.description = "Frobs FILE.\n",
	.notes = "Examples:\n  zlbench frob x.yaml\n",
};

static const struct zl_command secret = {
	.name = "frob",
	.entry = "--secret",
	.flags = ZL_CMD_HIDDEN,
	.summary = "an internal entry point",
	.usage = "DIR",
};

static const struct zl_command *const table[] = { &frob, &secret, NULL };

const struct zl_command *const *zl_commands(void)
{
	return table;
}

static void main_usage(FILE *out)
{
	fputs("usage: zlbench [--version] <command>\n\nBenchmarks that explain themselves.\n\n"
	      "Commands:\n  frob   frob a file\n", out);
}

static void test_text_layout(void **state)
{
	struct strbuf page = STRBUF_INIT;
	(void)state;

	zl_man_add_text(&page,
			"usage: zlbench x [--out DIR]\n"
			"                 [--db PATH]\n\n"
			"First line of prose\n"
			"  continued, indented.\n"
			"2. A numbered point\n\n"
			"Options:\n"
			"  -q, --quiet    say less\n"
			"                 than usual\n"
			"  --out DIR      where (a\\b)\n\n"
			"Examples:\n"
			"  .hidden 'quoted' `cmd`\n");
	/* the usage block is kept as laid out, its continuation line included */
	assert_non_null(strstr(page.buf, ".PP\n.nf\nusage: zlbench x [\\-\\-out DIR]\n"
				     "                 [\\-\\-db PATH]\n.fi\n"));
	/* prose is filled, indentation dropped; a numbered point is its own paragraph */
	assert_non_null(strstr(page.buf, ".PP\nFirst line of prose\ncontinued, indented.\n.PP\n2. A numbered point\n"));
	assert_non_null(strstr(page.buf, ".PP\n\\fBOptions:\\fR\n"));
	/* option rows: the tag in bold, the deeper-indented line continues the description */
	assert_non_null(strstr(page.buf, ".TP\n\\fB\\-q, \\-\\-quiet\\fR\nsay less\nthan usual\n"));
	assert_non_null(strstr(page.buf, ".TP\n\\fB\\-\\-out DIR\\fR\nwhere (a\\eb)\n"));
	/* examples verbatim; quotes stay plain quotes */
	assert_non_null(strstr(page.buf, ".nf\n  .hidden \\(aqquoted\\(aq \\(gacmd\\(ga\n.fi\n"));
	strbuf_release(&page);
}

/* Items are options, variables, paths and exit codes; a tag of other words is no item. */
static void test_items(void **state)
{
	struct strbuf page = STRBUF_INIT;
	(void)state;

	zl_man_add_text(&page,
			"Environment:\n"
			"  ZL_HOME        where\n"
			"  $ZL_HOME/x.db  a file\n"
			"  ~/.flaggems/   a cache\n"
			"  128+N          a signal\n"
			"  OP=mm zlbench run  # an example, not an item\n");
	assert_non_null(strstr(page.buf, ".TP\n\\fBZL_HOME\\fR\nwhere\n"));
	assert_non_null(strstr(page.buf, ".TP\n\\fB$ZL_HOME/x.db\\fR\na file\n"));
	assert_non_null(strstr(page.buf, ".TP\n\\fB~/.flaggems/\\fR\na cache\n"));
	assert_non_null(strstr(page.buf, ".TP\n\\fB128+N\\fR\na signal\n"));
	assert_non_null(strstr(page.buf, ".nf\n  OP=mm zlbench run  # an example, not an item\n.fi\n"));
	strbuf_release(&page);
}

/* A word longer than a line may break after ',', '/' or '|' in filled text, never in verbatim text. */
static void test_long_words(void **state)
{
	struct strbuf page = STRBUF_INIT;
	(void)state;

	zl_man_add_text(&page,
			"POSTs {\"schema\":\"zlbench.push/1\",\"identity\":{run_identity.json},\"results\":{results.json}|null}\n"
			"short a,b and docs/x.md stay whole\n\n"
			"  {\"schema\":\"zlbench.push/1\",\"identity\":{run_identity.json},\"results\":{}}\n");
	assert_non_null(strstr(page.buf, "POSTs {\"schema\":\"zlbench.push/\\:1\",\\:\"identity\":{run_identity.json},\\:"
					 "\"results\":{results.json}|\\:null}\n"));
	assert_non_null(strstr(page.buf, "\nshort a,b and docs/x.md stay whole\n"));
	assert_non_null(strstr(page.buf, ".nf\n  {\"schema\":\"zlbench.push/1\",\"identity\""));
	strbuf_release(&page);
}

static void test_leading_dot(void **state)
{
	struct strbuf page = STRBUF_INIT;
	(void)state;

	/* a prose line that starts with '.' must not become a roff request */
	zl_man_add_text(&page, "Intro\n.zlbench-demo marks the demo\n");
	assert_non_null(strstr(page.buf, "\n\\&.zlbench\\-demo marks the demo\n"));
	strbuf_release(&page);
}

static void test_render_page(void **state)
{
	char *text = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&text, &size);
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_non_null(mem);
	assert_int_equal(zl_man_render(mem, main_usage, &err), 0);
	assert_int_equal(fclose(mem), 0);
	assert_non_null(strstr(text, ".TH ZLBENCH 1 \"\" \"zlbench " ZL_VERSION_STRING "\" \"User Commands\"\n"));
	assert_non_null(strstr(text, ".SH NAME\nzlbench \\- Benchmarks that explain themselves.\n"));
	assert_non_null(strstr(text, ".SH SYNOPSIS\n.PP\nzlbench [\\-\\-version] <command>\n"));
	assert_non_null(strstr(text, ".SH DESCRIPTION\n.PP\n\\fBCommands:\\fR\n"));
	assert_non_null(strstr(text, ".SH COMMANDS\n.SS \"zlbench frob\"\n.PP\n.nf\nusage: zlbench frob"));
	assert_non_null(strstr(text, ".TP\n\\fB\\-\\-level L\\fR\nhow hard\n(default 1)\n"));
	/* the topics are sections of their own, in the man page's order, before SEE ALSO */
	assert_non_null(strstr(text, ".SH \"EXIT STATUS\"\n"));
	assert_non_null(strstr(text, ".TP\n\\fB128+N\\fR\nthe child was killed by signal N"));
	assert_non_null(strstr(text, ".SH \"ENVIRONMENT\"\n"));
	assert_non_null(strstr(text, ".TP\n\\fBZL_HOME\\fR\nzlbench\\(aqs data directory"));
	assert_non_null(strstr(text, ".TP\n\\fBZL_TIMER\\fR\ntimer: profiler"));
	assert_non_null(strstr(text, ".SH \"FILES\"\n"));
	assert_non_null(strstr(text, ".TP\n\\fB$ZL_HOME/history.db\\fR\n"));
	assert_true(strstr(text, ".SH \"EXIT STATUS\"") < strstr(text, ".SH \"ENVIRONMENT\"") &&
		    strstr(text, ".SH \"ENVIRONMENT\"") < strstr(text, ".SH \"FILES\"") &&
		    strstr(text, ".SH \"FILES\"") < strstr(text, ".SH SEE ALSO\n"));
	assert_non_null(strstr(text, ".SH SEE ALSO\n"));
	assert_null(strstr(text, "secret"));
	free(text);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_layout),
		cmocka_unit_test(test_items),
		cmocka_unit_test(test_long_words),
		cmocka_unit_test(test_leading_dot),
		cmocka_unit_test(test_render_page),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
