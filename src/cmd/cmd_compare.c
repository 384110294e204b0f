/* zlbench compare: check two runs' caliber, then compare them shape by shape. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/calibrate.h"
#include "zlbench/cmd.h"
#include "zlbench/compare.h"
#include "zlbench/efficiency.h"
#include "zlbench/error.h"
#include "zlbench/export.h"
#include "zlbench/fsutil.h"
#include "zlbench/history.h"
#include "zlbench/options.h"
#include "zlbench/rowview.h"
#include "zlbench/runload.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"
#include "zlbench/term.h"
#include "zlbench/units.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

static const char *opt_fail, *opt_threshold, *opt_db;
static int opt_json, opt_csv, opt_markdown, opt_allow, opt_allow_missing, opt_fail_on_unsure, opt_efficiency;
static struct zl_exports opt_exports;
static struct zl_view_args opt_view;

static const struct zl_option compare_options[] = {
	{ .type = ZL_OPT_GROUP, .help = "Options:" },
	{ .type = ZL_OPT_GROUP, .help = "Output (default: a table for the terminal):" },
	{ .type = ZL_OPT_FLAG, .long_name = "json", .value = &opt_json, .defval = 1, .help = "one JSON document" },
	{ .type = ZL_OPT_FLAG, .long_name = "csv", .value = &opt_csv, .defval = 1,
	  .help = "CSV (RFC 4180), one line per row" },
	{ .type = ZL_OPT_FLAG, .long_name = "markdown", .value = &opt_markdown, .defval = 1,
	  .help = "Markdown for a pull-request comment" },
	{ .type = ZL_OPT_FLAG, .long_name = "efficiency", .value = &opt_efficiency, .defval = 1,
	  .help = "after the table, each row's bytes, FLOPs, GB/s and TFLOP/s against the device's peaks "
		  "(--json always has them)" },
	ZL_OPT_JSON_OUT(&opt_exports),
	ZL_OPT_CSV_OUT(&opt_exports),
	ZL_OPT_MD_OUT(&opt_exports),
	{ .type = ZL_OPT_GROUP, .help = "The view (the table and Markdown; JSON and CSV keep every row in the runs' order):" },
	ZL_VIEW_OPTION_ROWS(&opt_view),
	{ .type = ZL_OPT_GROUP, .help = "Judgement:" },
	{ .type = ZL_OPT_STRING, .long_name = "fail-on-regression", .value = &opt_fail, .argh = "PCT",
	  .help = "exit 1 when the geomean, or a gems shape called slower, is > PCT % slower (see 4.)" },
	{ .type = ZL_OPT_FLAG, .long_name = "fail-on-unsure", .value = &opt_fail_on_unsure, .defval = 1,
	  .help = "the gate also fails on unsure gems shapes that may be > PCT % slower" },
	{ .type = ZL_OPT_STRING, .long_name = "threshold", .value = &opt_threshold, .argh = "PCT",
	  .help = "the smallest change that counts; never below the floor (default: the floor)" },
	{ .type = ZL_OPT_FLAG, .long_name = "allow-missing-shapes", .value = &opt_allow_missing, .defval = 1,
	  .help = "gate: warn about gems shapes of A that B lacks instead of failing" },
	{ .type = ZL_OPT_FLAG, .long_name = "allow-caliber-mismatch", .value = &opt_allow, .defval = 1,
	  .help = "compare even when the caliber differs (every output says so)" },
	{ .type = ZL_OPT_GROUP, .help = "Runs:" },
	{ .type = ZL_OPT_STRING, .long_name = "db", .value = &opt_db, .argh = "PATH",
	  .help = "history database for run ids (default $ZL_HISTORY_DB, else $ZL_HOME/history.db)" },
	ZL_OPT_END_ROW
};

/* "5", "2.5" or "5%": a decimal percentage >= 0 (units.h). 0, or -1 after a message. */
static int parse_pct(const char *name, const char *s, double *out)
{
	struct strbuf err = STRBUF_INIT;
	int ret = zl_parse_pct(name, s, out, &err);

	if (ret)
		zl_print_error("%s", err.buf);
	strbuf_release(&err);
	return ret;
}

/*
 * A run directory as given, else a run from the history database (by id, id prefix
 * or recorded directory): its directory while it exists, else what the database stored.
 */
static int load_side(const char *arg, struct zl_history **h, struct zl_run *run)
{
	struct strbuf err = STRBUF_INIT;
	char *dir = NULL;
	int ret = -1;

	if (zl_is_dir(arg) || zl_path_exists(arg)) {
		/* something of that name is there (a loop or dangling link too): it says what is wrong */
		if (zl_run_load(arg, run, &err))
			goto fail;
		ret = 0;
		goto out;
	}
	if (!*h) {
		char *path = opt_db ? xstrdup(opt_db) : zl_history_default_path();
		int absent = !path || !zl_is_file(path);

		if (absent) {
			zl_error(&err, "'%s' is neither a run directory nor a run id: no history database at '%s'",
				 arg, path ? path : "$ZL_HOME/history.db");
			free(path);
			goto fail;
		}
		ret = zl_history_open_readonly(path, h, &err);
		free(path);
		if (ret)
			goto fail;
	}
	if (!zl_history_find_run(*h, arg, &dir, &err) && dir && zl_is_dir(dir)) {
		if (zl_run_load(dir, run, &err))
			goto fail;
		ret = 0;
		goto out;
	}
	strbuf_reset(&err);
	if (zl_history_load_run(*h, arg, run, &err)) {
		zl_print_error("'%s' is not a run directory, and %s", arg, err.buf);
		ret = -1;
		goto out;
	}
	ret = 0;
	goto out;
fail:
	zl_print_error("%s", err.buf);
	ret = -1;
out:
	free(dir);
	strbuf_release(&err);
	return ret;
}

/* An export's document: JSON, CSV or the Markdown of the view. */
struct export_data {
	const struct zl_compare *c;
	const struct zl_view_opts *view;
};

static int render_format(enum zl_export_format f, const void *data, struct strbuf *sb, struct strbuf *err)
{
	const struct export_data *d = data;

	switch (f) {
	case ZL_EXPORT_JSON:
		return zl_compare_render_json(d->c, sb, err);
	case ZL_EXPORT_CSV:
		zl_compare_render_csv(d->c, sb);
		return 0;
	case ZL_EXPORT_MD:
	case ZL_EXPORT__COUNT:
		break;
	}
	zl_compare_render_markdown(d->c, d->view, sb);
	return 0;
}

/* Standard output in the format asked for, then the exports. 0, or -1 after a message. */
static int render(const struct zl_compare *c, const struct zl_view_opts *view)
{
	struct export_data d = { c, view };
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	int ret = 0;

	/* JSON and CSV go out as they are made: a million rows are not held as one text */
	if (opt_json)
		ret = zl_compare_write_json(c, stdout, &err);
	else if (opt_csv)
		ret = zl_compare_write_csv(c, stdout) ? zl_error(&err, "cannot write the comparison to standard output") : 0;
	else if (opt_markdown)
		ret = render_format(ZL_EXPORT_MD, &d, &sb, &err);
	else
		zl_compare_print_text(c, view, stdout);
	if (opt_efficiency && !opt_json && !opt_csv && !opt_markdown)
		zl_compare_print_efficiency(c, stdout, zl_use_color(1));
	if (ret) {
		zl_print_error("%s", err.buf);
	} else if (fwrite(sb.buf, 1, sb.len, stdout) != sb.len || fflush(stdout) || ferror(stdout)) {
		zl_print_error("cannot write the comparison to standard output");
		ret = -1;
	}
	if (!ret && zl_exports_write(&opt_exports, render_format, &d, &err)) {
		zl_print_error("%s", err.buf);
		ret = -1;
	}
	strbuf_release(&sb);
	strbuf_release(&err);
	return ret;
}

/* The view's options and the exports' files. 0, or -1 after a message. */
static int read_view(struct zl_view_opts *view)
{
	struct strbuf err = STRBUF_INIT;
	int bad = zl_view_opts_read(&opt_view, 1, view, &err) || zl_exports_check(&opt_exports, &err);

	if (bad)
		zl_print_error("%s", err.buf);
	strbuf_release(&err);
	return bad ? -1 : 0;
}

/* The options and operands checked, opts filled; -1 with the usage error printed. */
static int read_opts(const struct strvec *args, struct zl_compare_opts *opts)
{
	if (opt_json + opt_csv + opt_markdown > 1) {
		zl_print_error("choose one of --json, --csv and --markdown");
		return -1;
	}
	if (opt_efficiency && (opt_csv || opt_markdown)) {
		zl_print_error("--efficiency adds a section to the terminal table; --json always has the figures");
		return -1;
	}
	if (args->nr != 2) {
		zl_print_error("compare needs two runs, A and B (got %zu); see 'zlbench compare --help'",
			       args->nr);
		return -1;
	}
	if ((opt_fail && parse_pct("--fail-on-regression", opt_fail, &opts->fail_pct)) ||
	    (opt_threshold && parse_pct("--threshold", opt_threshold, &opts->threshold_pct)))
		return -1;
	opts->allow_mismatch = opt_allow;
	opts->allow_missing = opt_allow_missing;
	opts->fail_on_unsure = opt_fail_on_unsure;
	return 0;
}

/*
 * A and B were not measured alike: each difference, and the way to compare anyway; or,
 * when they ran no operator in common, which operators each ran.
 */
static void print_mismatches(const struct zl_compare *cmp)
{
	struct strvec alerts = STRVEC_INIT;
	size_t i;

	if (zl_compare_disjoint_ops(cmp)) {
		zl_compare_alerts(cmp, &alerts);
		zl_print_error("%s", alerts.v[alerts.nr - 1]);
		fprintf(stderr, "hint: compare two runs of the same operators (their caliber differs too: ");
		for (i = 0; i < cmp->caliber.mismatches.nr; i++)
			fprintf(stderr, "%s%s", i ? ", " : "", cmp->caliber.mismatches.v[i].field);
		fprintf(stderr, ")\n");
		strvec_clear(&alerts);
		return;
	}
	for (i = 0; i < cmp->caliber.mismatches.nr; i++) {
		const struct zl_diff *d = &cmp->caliber.mismatches.v[i];
		zl_print_error("caliber mismatch: %s: %s vs %s", d->field, d->a, d->b);
	}
	fprintf(stderr, "hint: A and B were not measured alike; use --allow-caliber-mismatch "
		"to compare anyway\n");
}

static int cmd_compare(struct zl_cmd_ctx *ctx)
{
	struct zl_compare_opts opts = ZL_COMPARE_OPTS_INIT;
	struct zl_view_opts view = ZL_VIEW_OPTS_INIT;
	const struct strvec *args = &ctx->args;
	struct zl_history *h = NULL;
	struct zl_calibration cal;
	struct strbuf floor_note = STRBUF_INIT;
	struct zl_run a, b;
	struct zl_compare cmp;
	int ret = ZL_EXIT_USAGE;

	zl_run_init(&a);
	zl_run_init(&b);
	zl_calibration_init(&cal);
	zl_compare_init(&cmp);
	if (read_opts(args, &opts) || read_view(&view))
		goto out;
	if (load_side(args->v[0], &h, &a) || load_side(args->v[1], &h, &b))
		goto out;
	if (zl_calibration_lookup(opt_db, &h, &a, &b, &cal, &floor_note))
		opts.calibration = &cal;
	else
		opts.floor_note = floor_note.buf;
	zl_compare_runs(&a, &b, &opts, &cmp);
	if (cmp.caliber.mismatches.nr && !opts.allow_mismatch) {
		print_mismatches(&cmp);
		goto out;
	}
	if (render(&cmp, &view)) {
		ret = ZL_EXIT_FAILED;
		goto out;
	}
	ret = cmp.gate_failed ? ZL_EXIT_FAILED : ZL_EXIT_OK;
out:
	zl_compare_release(&cmp);
	zl_calibration_release(&cal);
	strbuf_release(&floor_note);
	zl_run_release(&a);
	zl_run_release(&b);
	zl_history_close(h);
	return ret;
}

const struct zl_command zl_cmd_compare = {
	.name = "compare",
	.fn = cmd_compare,
	.flags = ZL_CMD_OPERANDS,
	.options = compare_options,
	.summary = "compare two runs after checking their caliber",
	.usage = "A B [--json|--csv|--markdown] [--json-out FILE] [--csv-out FILE] [--md-out FILE]\n"
		 "                       [--sort change|name|time] [--only-changed|--all] [--time-unit UNIT]\n"
		 "                       [--fail-on-regression PCT] [--fail-on-unsure] [--threshold PCT]\n"
		 "                       [--allow-missing-shapes] [--allow-caliber-mismatch] [--efficiency]\n"
		 "                       [--db PATH]",
	.description =
		"Compares run B against run A. A and B are run directories, or run ids (or a\n"
		"unique prefix) looked up in the history database. A run whose directory is\n"
		"gone is rebuilt from what the database stored (identity and result rows, not\n"
		"the raw samples), and the output says \"loaded from history: directory gone\".\n\n"
		"1. Caliber first. These must match: backend, vendor, device name, level, shape\n"
		"   mode and shape sha256, test node, FlagGems mode, timer plan, tuner-cache mode,\n"
		"   profiler call mode (synced; a run without it counts as queued), profiler\n"
		"   settling (batches; a run without it counts as unrecorded).\n"
		"   A mismatch is refused (exit 2, one line per field) unless\n"
		"   --allow-caliber-mismatch. The autotune set-up is named: \"B replays A's\n"
		"   records\" (zlbench run --replay-from A) is the proper A/B; record vs record is\n"
		"   flagged, and flagged as cache inheritance on a shared tuner cache when the\n"
		"   earlier run stored tuner winners, the later one found winners stored and its\n"
		"   kernels used a tuner (when both runs name their tuned kernels: a shared one).\n"
		"   The usual A/B variables (FlagGems commit, Triton/torch version,\n"
		"   TRITON_*/ZL_*/FLAGGEMS_* environment) are listed.\n"
		"2. Per op, dtype, shape and side (torch, gems): A, B, B/A with its 95% CI, p and\n"
		"   a verdict: faster, slower, same, or unsure (with the reason and what to run).\n"
		"   The threshold of a row is max(--threshold, floor); the floor is that of the\n"
		"   newest calibration (zlbench calibrate) in the history database for A's\n"
		"   backend, device, timer and FlagGems commit (else B's commit) for the row's\n"
		"   size class of kernel time, else a fixed 5%; the output names it.\n"
		"   With raw samples (samples_ms in plugins/timer.jsonl) on both sides, the 95%\n"
		"   CI of B/A (trimmed means, widened by the run-to-run noise the floor implies)\n"
		"   decides: same when it lies inside +-threshold, faster or slower when it lies\n"
		"   beyond it and Mann-Whitney p < 0.0001; otherwise unsure (too few samples,\n"
		"   not significant, CI overlapping the threshold, two modes).\n"
		"   Without samples (older runs): \"medians: no samples_ms\", the earlier rule:\n"
		"   same when |B-A| <= max((IQR_A+IQR_B)/2, threshold * A) with timer IQRs, else\n"
		"   when |B/A-1| <= threshold. docs/verdicts.md has the details.\n"
		"3. Geomean of the gems-side B/A per op and overall, with a 95% bootstrap\n"
		"   confidence interval over shapes (2000 resamples, fixed seed: reproducible).\n"
		"   When A and B ran the same torch version, the torch side is a control: its\n"
		"   geomean is shown, gems/torch per shape too, and \"machine drift\" is reported\n"
		"   when the torch side moved (CI clear of 1, at least 1% away).\n"
		"4. Gate (--fail-on-regression PCT): fails when the overall gems geomean is more\n"
		"   than PCT % slower, or a gems shape is \"slower\" and more than PCT % slower\n"
		"   (--fail-on-unsure: also an unsure one whose CI reaches beyond PCT %). A PCT\n"
		"   below the floor cannot be decided: such shapes come out unsure. It also fails\n"
		"   when A's or B's status is not \"passed\", when no gems shape has a latency on\n"
		"   both sides, and when a gems shape of A has no latency in B (failed, crashed,\n"
		"   dropped; with --allow-missing-shapes only a warning). The output names each\n"
		"   failing shape and why (a gate column, the gate's lines; CSV: gate_result).\n"
		"5. Hardware efficiency (--efficiency; always in --json): per row the bytes it\n"
		"   must move and the FLOPs it must do (zlbench's rule for the op's family:\n"
		"   pointwise, reduction, softmax, GEMM; else FlagGems' own gbps/tflops; else\n"
		"   unknown), the GB/s and TFLOP/s A's and B's times achieve, and their share of\n"
		"   the device's datasheet peaks (HBM bandwidth, dense FLOP/s of the dtype).\n\n"
		"The table puts the answer first: one verdict line (the gate, each side's verdict\n"
		"counts, the gems geomean with its CI), warnings when A and B are the same run or ran\n"
		"different operators, the changed rows (faster, slower, missing on a side), the unsure\n"
		"rows grouped by why, with one piece of advice per group, then (--all) the rest; how A\n"
		"and B were measured and judged comes after. Within each, gems rows come before the\n"
		"torch rows (the baseline), sorted by --sort. Times are in one unit, three significant\n"
		"digits; the table fits $COLUMNS (else the terminal's width, else 80 columns) by\n"
		"leaving out the 95% CI column first, then p, floor and method.\n",
	.notes =
		"Environment:\n"
		"  ZL_HISTORY_DB  history database for run ids when --db is not given\n"
		"  ZL_HOME        data directory holding history.db\n"
		"  NO_COLOR       no colour (colour is used only on a terminal anyway)\n"
		"  COLUMNS        the width the table fits (else the terminal's, else 80)\n"
		"\nExit status:\n"
		"  0  compared (and the gate, if any, passed)\n"
		"  1  --fail-on-regression: the gate failed (also: the output could not be written)\n"
		"  2  usage, a run that cannot be loaded, or a caliber mismatch\n"
		"\nExamples:\n"
		"  zlbench compare runs/A runs/B\n"
		"  zlbench compare 20261129-101500-cuda-mm-1a2b3c 20261129-113000-cuda-mm-4d5e6f --markdown\n"
		"  zlbench compare runs/A runs/B --fail-on-regression 3 --fail-on-unsure\n"
		"  zlbench compare runs/A runs/B --fail-on-regression 3 --json-out compare.json --md-out pr.md\n",
};
