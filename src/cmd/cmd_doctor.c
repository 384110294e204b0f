/* zlbench doctor: explain why an operator will not run (see include/zlbench/doctor.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "zlbench/cmd.h"
#include "zlbench/doctor.h"
#include "zlbench/json.h"
#include "zlbench/error.h"
#include "zlbench/resolve.h"
#include "zlbench/settings.h"
#include "zlbench/term.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

#define DOCTOR_TIMEOUT_DEFAULT 300

static int opt_json, opt_strict;
static const char *opt_step_timeout;
static enum zl_source step_timeout_source;
static struct strvec opt_shapes = STRVEC_INIT;

static const struct zl_option doctor_options[] = {
	{ .type = ZL_OPT_STRLIST, .long_name = "shape", .value = &opt_shapes, .argh = "SHAPE",
	  .help = "a shape you expect to run, e.g. 2,4096,4096,4096 (repeatable):\n"
		  "the shapes step fails when the level does not run it" },
	{ .type = ZL_OPT_FLAG, .long_name = "strict", .value = &opt_strict, .defval = 1,
	  .help = "a warning fails like an error" },
	{ .type = ZL_OPT_STRING, .long_name = "step-timeout", .value = &opt_step_timeout, .argh = "SECONDS",
	  .help = "bound of each step that starts Python", .env = "ZL_DOCTOR_TIMEOUT",
	  .default_doc = ZL_STR(DOCTOR_TIMEOUT_DEFAULT), .source = &step_timeout_source },
	{ .type = ZL_OPT_FLAG, .long_name = "json", .value = &opt_json, .defval = 1,
	  .help = "print {schema, op, backend, flaggems_dir, level, ok, failed_step, warnings,\n"
		  "steps: [{number, name, title, status, summary, evidence, fix, seen}],\n"
		  "commands}" },
	ZL_OPT_END_ROW,
};

/* The steps in the order they are walked. */
static void list_steps(FILE *out)
{
	const struct zl_doctor_step *st;
	int i = 1;

	for (st = zl_doctor_steps; st->name; st++)
		fprintf(out, "  %d %-15s %s\n", i++, st->name, st->title);
	fprintf(out, "\nA step that warns (a shared tuner cache holding winners, an op missing from the shape\n"
		"file) does not stop the walk unless --strict is given.\n");
}

static const char *const status_words[] = { "-", "ok", "WARN", "FAIL" };
static const enum zl_color status_colors[] = { ZL_COLOR_DIM, ZL_COLOR_GREEN, ZL_COLOR_YELLOW, ZL_COLOR_BOLD_RED };

static void print_lines(FILE *out, const char *label, const char *text)
{
	fprintf(out, "          %-9s %s\n", label, text);
}

/* What is diagnosed, in the words the user gave it. */
static const char *target_label(const struct zl_doctor *d)
{
	static const enum zl_setting_id ids[] = { ZL_SET_OP, ZL_SET_TEST_NODE, ZL_SET_OP_FILE };
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(ids); i++)
		if (d->s->v[ids[i]].raw)
			return d->s->v[ids[i]].raw;
	return "?";
}

static void print_text(const struct zl_doctor *d, FILE *out)
{
	int color = zl_use_color(fileno(out));
	size_t i, j, warnings = 0;

	if (zl_verbosity >= 0)
		fprintf(out, "zlbench doctor: %s on backend %s, FlagGems %s, level %s\n", target_label(d),
			d->s->backend->name, d->s->flaggems_dir, d->s->level);
	for (i = 0; i < ZL_DOCTOR_STEPS; i++) {
		const struct zl_doctor_result *r = &d->results[i];
		int detail = r->status == ZL_DOCTOR_WARN || r->status == ZL_DOCTOR_FAILED;

		warnings += r->status == ZL_DOCTOR_WARN;
		if (zl_verbosity < 0 && !detail)
			continue;
		fprintf(out, "  %s%-4s%s %zu %-15s %s\n", color ? zl_color_start(status_colors[r->status]) : "",
			status_words[r->status], color ? ZL_COLOR_RESET : "", i + 1, zl_doctor_steps[i].name,
			r->summary ? r->summary : "");
		if (!detail && zl_verbosity < 1)
			continue;
		for (j = 0; j < r->evidence.nr; j++)
			print_lines(out, j ? "" : "evidence:", r->evidence.v[j]);
		if (r->fix)
			print_lines(out, "fix:", r->fix);
		if (detail)
			print_lines(out, "seen:", zl_doctor_steps[i].seen);
	}
	if (zl_verbosity > 0)
		for (j = 0; j < d->commands.nr; j++)
			fprintf(out, "command: %s\n", d->commands.v[j]);
	if (d->failed >= 0)
		fprintf(out, "result: failed at step %d %s\n", d->failed + 1, zl_doctor_steps[d->failed].name);
	else if (zl_verbosity >= 0)
		fprintf(out, "result: no step failed (%zu warning%s)\n", warnings, warnings == 1 ? "" : "s");
}

static int print_json(const struct zl_doctor *d)
{
	cJSON *root = zl_doctor_to_json(d);
	int bad = !root || zl_json_fprint(stdout, root, "doctor --json");

	cJSON_Delete(root);
	if (bad) {
		zl_print_error("out of memory");
		return -1;
	}
	return 0;
}

/* Usage errors a run would also refuse: nothing named, or a name that is no operator name. */
static int check_target(const struct zl_settings *s)
{
	const char *op = s->v[ZL_SET_OP].raw;

	if (!op && !s->v[ZL_SET_OP_FILE].raw && !s->v[ZL_SET_TEST_NODE].raw) {
		zl_print_error("nothing to diagnose: give --op, --op-file or --test-node (or OP, OP_FILE, TEST_NODE)");
		return -1;
	}
	if (op && !zl_op_name_valid(op)) {
		zl_print_error("invalid operator name '%s': use letters, digits and '_' only", op);
		return -1;
	}
	return 0;
}

static int step_timeout(double *out)
{
	*out = DOCTOR_TIMEOUT_DEFAULT;
	if (!opt_step_timeout)
		return 0;
	if (zl_parse_double(opt_step_timeout, out) || *out <= 0) {
		zl_print_error("invalid value '%s' for %s: a number of seconds greater than 0", opt_step_timeout,
			       step_timeout_source == ZL_SRC_FLAG ? "--step-timeout" : "ZL_DOCTOR_TIMEOUT");
		return -1;
	}
	return 0;
}

static int cmd_doctor(struct zl_cmd_ctx *ctx)
{
	struct zl_doctor d;
	int code = ZL_EXIT_OK;
	size_t i;

	zl_doctor_init(&d, ctx->s);
	if (check_target(ctx->s) || step_timeout(&d.timeout_s)) {
		code = ZL_EXIT_USAGE;
		goto out;
	}
	d.strict = opt_strict;
	for (i = 0; i < opt_shapes.nr; i++)
		strvec_push(&d.want_shapes, opt_shapes.v[i]);
	if (zl_doctor_run(&d) && d.interrupted) {
		/* no report: the step that was running has no answer */
		zl_print_error("interrupted by %s: the diagnosis stopped", strsignal(d.interrupted));
		code = ZL_EXIT_SIGNAL_BASE + d.interrupted;
		goto out;
	}
	if (d.failed >= 0) {
		fprintf(stderr, "DOCTOR_FAILED step=%s\n", zl_doctor_steps[d.failed].name);
		code = ZL_EXIT_PREFLIGHT;
	}
	if (opt_json) {
		if (print_json(&d))
			code = ZL_EXIT_INTERNAL;
	} else {
		print_text(&d, stdout);
	}
out:
	zl_doctor_release(&d);
	return code;
}

const struct zl_command zl_cmd_doctor = {
	.name = "doctor",
	.fn = cmd_doctor,
	.flags = ZL_CMD_SETTINGS | ZL_CMD_RESOLVE,
	.options = doctor_options,
	/* a run's options can be pasted as they are: those of measuring are accepted and ignored */
	.ignored_settings = ZL_SETF_MEASURE,
	.summary = "explain why an operator will not run",
	.usage = "[--backend B] (--op OP | --op-file FILE | --test-node NODE) [run options]\n"
		 "                      [--shape SHAPE]... [--strict] [--step-timeout SECONDS] [--json] [-- <pytest args>]",
	.description =
		"Walks the checklist for an operator that will not run (or not as expected) and stops at\n"
		"the first step that fails, saying what is wrong, the evidence behind it and the fix.\n"
		"It starts pytest to collect the tests and to run them with FlagGems' Benchmark.run replaced\n"
		"(errors and skips before a benchmark starts, and the shapes it would run); nothing is measured.\n\n"
		"Steps, in order:\n",
	.describe = list_steps,
	.notes =
		"Environment: the run settings' variables above; ZL_PLUGINS_DIR (where zl_doctor.py is),\n"
		"FLAGGEMS_CACHE_DIR (the shared tuner cache inspected), NO_COLOR (no colour), TMPDIR (where its\n"
		"temporary directory goes).\n\n"
		"Output: one line per step (ok, WARN, FAIL, - for not checked); a failure also prints\n"
		"DOCTOR_FAILED step=<name> on stderr. Global --verbose adds the evidence of passing steps\n"
		"and the commands started, each a line to paste into a shell (with the run's environment and\n"
		"a fresh ZL_RUN_DIR); --quiet prints only the steps that warn or fail.\n\n"
		"Exit codes: 0 no step failed, 3 a step failed, 2 usage error, 128+N interrupted by signal N\n"
		"(130: SIGINT; the running step's processes end and the temporary directory is removed).\n\n"
		"Examples:\n"
		"  zlbench doctor --backend musa --flaggems-dir ~/FlagGems --op router_gemm\n"
		"  zlbench doctor --backend cuda --op mm --shape 1,512,14336,4096 --json\n",
};
