/* zlbench preflight: every named check, ok/FAILED each. */
#include <stdio.h>

#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/preflight.h"
#include "zlbench/settings.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

void help_preflight(FILE *out)
{
	fprintf(out,
		"usage: zlbench preflight [run options] [--json]\n\n"
		"Runs every named preflight check and prints ok/FAILED per check, in order:\n");
	{
		const struct zl_check *c;
		for (c = zl_checks; c->name; c++)
			fprintf(out, "  %-15s %s\n", c->name, c->hint);
	}
	fprintf(out, "\nOptions:\n"
		"  --json                          print {ok, checks: [{name, status, message, hint}]}\n");
	zl_settings_usage(out, 0);
	fprintf(out, "\nEnvironment: every run setting above has its variable; also ZL_DEV_ROOT (where device\n"
		"nodes are looked for) and ZL_QUERY_TIMEOUT (seconds a vendor query tool may run).\n\n"
		"Exit codes: 0 every check passed, 3 one failed (the first failure also prints\n"
		"PREFLIGHT_FAILED check=<name> on stderr, with --json too), 2 usage error (an invalid\n"
		"setting or operator name, or no --op, --op-file or --test-node at all, as for run).\n\n"
		"Examples:\n  zlbench preflight --backend cuda --flaggems-dir ~/FlagGems --op mm\n"
		"  zlbench preflight --backend musa --op mm --json\n");
}

int cmd_preflight(int argc, const char **argv)
{
	int json = 0;
	const struct zl_option extra[] = {
		{ .type = ZL_OPT_FLAG, .long_name = "json", .value = &json, .defval = 1, .help = "print the checks as JSON" },
		ZL_OPT_END_ROW,
	};
	struct zl_settings s;
	struct zl_preflight pf;
	const struct zl_check *failed = NULL;
	struct strbuf msg = STRBUF_INIT;
	int code = ZL_EXIT_OK;

	zl_settings_init(&s);
	zl_preflight_init(&pf, &s);
	if (zl_settings_setup(&s, argc, argv, extra, help_preflight, &code))
		goto out;
	/* as in run: no operator at all is a usage error, not a failed check */
	if (zl_settings_need_target(&s, &msg)) {
		zl_print_error("%s", msg.buf);
		code = ZL_EXIT_USAGE;
		goto out;
	}
	if (json) {
		code = zl_preflight_json(&pf, stdout, &failed, &msg);
		/* the stderr contract holds with --json too: batch scripts grep for it */
		if (failed)
			zl_preflight_report_failure(failed->name, msg.buf);
		goto out;
	}
	if (zl_preflight_run(&pf, 1, stdout, &failed, &msg)) {
		zl_preflight_report_failure(failed->name, msg.buf);
		code = ZL_EXIT_PREFLIGHT;
	}
	{
		size_t i;
		for (i = 0; i < pf.warnings.nr; i++)
			zl_print_warning("%s", pf.warnings.v[i]);
	}
out:
	zl_preflight_release(&pf);
	zl_settings_release(&s);
	strbuf_release(&msg);
	return code;
}
