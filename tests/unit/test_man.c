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
	assert_non_null(strstr(text, ".SH SEE ALSO\n"));
	assert_null(strstr(text, "secret"));
	free(text);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_layout),
		cmocka_unit_test(test_leading_dot),
		cmocka_unit_test(test_render_page),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
