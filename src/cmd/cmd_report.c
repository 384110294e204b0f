/* zlbench report: one self-contained HTML page for a run, a batch, an A/B directory, a comparison or the history. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/backend.h"
#include "zlbench/calibrate.h"
#include "zlbench/cmd.h"
#include "zlbench/compare.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/history.h"
#include "zlbench/options.h"
#include "zlbench/progress.h"
#include "zlbench/report.h"
#include "zlbench/runload.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

#define DEFAULT_OUTPUT "report.html"

static const char *opt_out, *opt_op, *opt_since, *opt_backend, *opt_db, *opt_fail, *opt_threshold, *opt_progress;
static int opt_compare, opt_history, opt_allow;

static const struct zl_option report_options[] = {
	{ .type = ZL_OPT_STRING, .long_name = "output", .short_name = 'o', .value = &opt_out, .argh = "FILE",
	  .help = "write the page to FILE (default " DEFAULT_OUTPUT "; - for standard output)" },
	{ .type = ZL_OPT_STRING, .long_name = "progress", .value = &opt_progress, .argh = "MODE",
	  .help = "a line with an ETA on stderr while many runs load: auto (on a terminal),\n"
		  "live, none, or plain (as none: a report has no steps to list)",
	  .choices = ZL_PROGRESS_CHOICES },
	{ .type = ZL_OPT_GROUP, .help = "What to report (default: the directory given):" },
	{ .type = ZL_OPT_FLAG, .long_name = "compare", .value = &opt_compare, .defval = 1,
	  .help = "compare two runs, A and B (directories or run ids)" },
	{ .type = ZL_OPT_FLAG, .long_name = "history", .value = &opt_history, .defval = 1,
	  .help = "trends of the runs in the history database" },
	{ .type = ZL_OPT_GROUP, .help = "History (with --history):" },
	{ .type = ZL_OPT_STRING, .long_name = "op", .value = &opt_op, .argh = "OP", .help = "only runs of this operator",
	  .values = ZL_VALUES_OP },
	{ .type = ZL_OPT_STRING, .long_name = "since", .value = &opt_since, .argh = "DATE",
	  .help = "only runs started at or after DATE (YYYY-MM-DD[THH:MM[:SS]] UTC, or an age: 12h, 7d, 2w)" },
	{ .type = ZL_OPT_STRING, .long_name = "backend", .short_name = 'b', .value = &opt_backend, .argh = "B",
	  .help = "only runs on this backend", .values = ZL_VALUES_BACKEND },
	{ .type = ZL_OPT_GROUP, .help = "Comparisons (with --compare, or an A/B directory):" },
	{ .type = ZL_OPT_STRING, .long_name = "fail-on-regression", .value = &opt_fail, .argh = "PCT",
	  .help = "show compare's gate at PCT % on top (the exit status does not follow it)" },
	{ .type = ZL_OPT_STRING, .long_name = "threshold", .value = &opt_threshold, .argh = "PCT",
	  .help = "compare's threshold: the larger of PCT and the floor (a matching calibration's, else 5)" },
	{ .type = ZL_OPT_FLAG, .long_name = "allow-caliber-mismatch", .value = &opt_allow, .defval = 1,
	  .help = "draw two runs whose caliber differs (the page says so on top)" },
	{ .type = ZL_OPT_GROUP, .help = "Runs:" },
	{ .type = ZL_OPT_STRING, .long_name = "db", .value = &opt_db, .argh = "PATH",
	  .help = "history database (default $ZL_HISTORY_DB, else $ZL_HOME/history.db)" },
	ZL_OPT_END_ROW
};

/* "5", "2.5" or "5%": a percentage >= 0. */
static int parse_pct(const char *name, const char *s, double *out)
{
	size_t len = strlen(s);
	char *num = xstrndup(s, len && s[len - 1] == '%' ? len - 1 : len);
	int bad = zl_parse_double(num, out) || !(*out >= 0) || *out > 1e6;

	free(num);
	if (bad)
		zl_print_error("invalid %s '%s': expected a percentage >= 0 (e.g. 3, 2.5 or 5%%)", name, s);
	return bad ? -1 : 0;
}

static int open_history(struct zl_history **h, int must_exist, struct strbuf *err)
{
	char *path;
	int rc;

	if (*h)
		return 0;
	path = opt_db ? xstrdup(opt_db) : zl_history_default_path();
	if (must_exist && (!path || !zl_is_file(path))) {
		zl_error(err, "no history database at '%s'", path ? path : "$ZL_HOME/history.db");
		free(path);
		return -1;
	}
	rc = zl_history_open(path, h, err);
	free(path);
	return rc;
}

/* A run directory, else a run id (or unique prefix) from the history: its directory, or what was stored. */
static int load_run_arg(const char *arg, struct zl_history **h, struct zl_run *run, struct strbuf *err)
{
	char *dir = NULL;
	int rc;

	if (zl_is_dir(arg))
		return zl_run_load(arg, run, err);
	if (open_history(h, 1, err)) {
		struct strbuf why = STRBUF_INIT;

		strbuf_addbuf(&why, err);
		strbuf_reset(err);
		zl_error(err, "'%s' is neither a run directory nor a run id: %s", arg, why.buf);
		strbuf_release(&why);
		return -1;
	}
	if (!zl_history_find_run(*h, arg, &dir, err) && dir && zl_is_dir(dir)) {
		rc = zl_run_load(dir, run, err);
		free(dir);
		return rc;
	}
	free(dir);
	strbuf_reset(err);
	return zl_history_load_run(*h, arg, run, err);
}

static int page_compare(const struct strvec *args, const struct zl_compare_opts *opts, const char *now,
			struct strbuf *page)
{
	struct strbuf err = STRBUF_INIT, sub = STRBUF_INIT, floor_note = STRBUF_INIT;
	struct zl_compare_opts o = *opts;
	struct zl_calibration cal;
	struct zl_history *h = NULL;
	struct zl_run a, b;
	struct zl_compare cmp;
	struct zl_report_cmp rc;
	int ret = ZL_EXIT_USAGE;
	size_t i;

	zl_run_init(&a);
	zl_run_init(&b);
	zl_calibration_init(&cal);
	zl_compare_init(&cmp);
	zl_report_cmp_init(&rc);
	if (load_run_arg(args->v[0], &h, &a, &err) || load_run_arg(args->v[1], &h, &b, &err)) {
		zl_print_error("%s", err.buf);
		goto out;
	}
	/* the floor compare would take: a matching calibration, else the fixed one */
	if (zl_calibration_lookup(opt_db, &h, &a, &b, &cal, &floor_note))
		o.calibration = &cal;
	else
		o.floor_note = floor_note.buf;
	zl_compare_runs(&a, &b, &o, &cmp);
	if (cmp.caliber.mismatches.nr && !opts->allow_mismatch) {
		for (i = 0; i < cmp.caliber.mismatches.nr; i++) {
			const struct zl_diff *d = &cmp.caliber.mismatches.v[i];
			zl_print_error("caliber mismatch: %s: %s vs %s", d->field, d->a, d->b);
		}
		fprintf(stderr, "hint: A and B were not measured alike; use --allow-caliber-mismatch to draw them anyway\n");
		goto out;
	}
	zl_report_cmp_from_compare(&cmp, &rc);
	strbuf_addf(&sub, "A %s \xc2\xb7 B %s", a.run_id, b.run_id);
	zl_report_compare_page(&rc, &a, &b, "zlbench compare: B against A", sub.buf, now, page);
	ret = ZL_EXIT_OK;
out:
	zl_report_cmp_release(&rc);
	zl_compare_release(&cmp);
	zl_calibration_release(&cal);
	strbuf_release(&floor_note);
	zl_run_release(&a);
	zl_run_release(&b);
	zl_history_close(h);
	strbuf_release(&err);
	strbuf_release(&sub);
	return ret;
}

static int page_history(const char *now, struct strbuf *page)
{
	struct zl_history_filter f = ZL_HISTORY_FILTER_INIT;
	struct strbuf err = STRBUF_INIT;
	struct zl_history *h = NULL;
	char *since = NULL;
	int ret = ZL_EXIT_USAGE;

	if (opt_since && !(since = zl_history_since_value(opt_since, &err)))
		goto fail;
	if (opt_backend) {
		const struct zl_backend *b = zl_backend_find(opt_backend);

		if (!b) {
			zl_backend_choices(&err);
			zl_print_error("unknown backend '%s'; choices: %s", opt_backend, err.buf);
			goto out;
		}
		f.backend = b->name;
	}
	f.op = opt_op;
	f.since = since;
	f.limit = 0;
	if (open_history(&h, 1, &err))
		goto fail;
	if (zl_report_history_page(h, &f, now, page, &err)) {
		ret = ZL_EXIT_FAILED;
		goto fail;
	}
	ret = ZL_EXIT_OK;
	goto out;
fail:
	zl_print_error("%s", err.buf);
out:
	zl_history_close(h);
	free(since);
	strbuf_release(&err);
	return ret;
}

/* A directory: a run (run_identity.json), a batch (batch.json) or an A/B directory (ab.json). */
static int page_dir(const char *dir, const struct zl_compare_opts *opts, const char *now, struct strbuf *page)
{
	static const char *const markers[] = { "run_identity.json", "batch.json", "ab.json" };
	struct strbuf err = STRBUF_INIT;
	int kind = -1, ret = ZL_EXIT_USAGE;
	size_t i;

	if (!zl_is_dir(dir)) {
		zl_print_error("'%s' is not a directory (a run, batch or A/B directory; --compare A B or --history "
			       "for the others)", dir);
		return ZL_EXIT_USAGE;
	}
	for (i = 0; i < ZL_ARRAY_SIZE(markers) && kind < 0; i++) {
		char *p = zl_path_join(dir, markers[i]);

		if (zl_is_file(p))
			kind = (int)i;
		free(p);
	}
	if (kind == 0) {
		struct zl_run run;

		zl_run_init(&run);
		if (!zl_run_load(dir, &run, &err)) {
			zl_report_run_page(&run, now, page);
			ret = ZL_EXIT_OK;
		}
		zl_run_release(&run);
	} else if (kind == 1) {
		ret = zl_report_batch_page(dir, now, page, &err) ? ZL_EXIT_USAGE : ZL_EXIT_OK;
	} else if (kind == 2) {
		ret = zl_report_ab_page(dir, opts, now, page, &err) ? ZL_EXIT_USAGE : ZL_EXIT_OK;
	} else {
		zl_error(&err, "'%s' is neither a run, a batch nor an A/B directory (no run_identity.json, batch.json "
			 "or ab.json)", dir);
	}
	if (ret)
		zl_print_error("%s", err.buf);
	strbuf_release(&err);
	return ret;
}

static int write_page(const struct strbuf *page)
{
	struct strbuf err = STRBUF_INIT;
	const char *path = opt_out ? opt_out : DEFAULT_OUTPUT;

	if (!strcmp(path, "-")) {
		if (fwrite(page->buf, 1, page->len, stdout) != page->len || fflush(stdout) || ferror(stdout)) {
			zl_print_error("cannot write the page to standard output");
			return ZL_EXIT_FAILED;
		}
		return ZL_EXIT_OK;
	}
	if (zl_write_file_atomic(path, page->buf, page->len, &err)) {
		zl_print_error("%s", err.buf);
		strbuf_release(&err);
		return ZL_EXIT_FAILED;
	}
	if (zl_verbosity >= 0)
		printf("wrote %s (%.0f KiB)\n", path, (double)page->len / 1024);
	strbuf_release(&err);
	return ZL_EXIT_OK;
}

static int cmd_report(struct zl_cmd_ctx *ctx)
{
	struct zl_compare_opts opts = ZL_COMPARE_OPTS_INIT;
	const struct strvec *args = &ctx->args;
	struct strbuf page = STRBUF_INIT, err = STRBUF_INIT;
	enum zl_progress_mode progress;
	char now[32];
	int ret = ZL_EXIT_USAGE;
	size_t want;

	if (opt_compare && opt_history) {
		zl_print_error("choose one of --compare and --history");
		goto out;
	}
	if (!opt_history && (opt_op || opt_since || opt_backend)) {
		zl_print_error("--op, --since and --backend select runs for --history only");
		goto out;
	}
	want = opt_compare ? 2 : opt_history ? 0 : 1;
	if (args->nr != want) {
		if (opt_history)
			zl_print_error("--history takes no directory (got '%s')", args->v[0]);
		else if (opt_compare)
			zl_print_error("--compare needs two runs, A and B (got %zu)", args->nr);
		else
			zl_print_error("report needs one run, batch or A/B directory (got %zu); see 'zlbench report --help'",
				       args->nr);
		goto out;
	}
	if ((opt_fail && parse_pct("--fail-on-regression", opt_fail, &opts.fail_pct)) ||
	    (opt_threshold && parse_pct("--threshold", opt_threshold, &opts.threshold_pct)))
		goto out;
	opts.allow_mismatch = opt_allow;
	if (zl_progress_mode_parse(opt_progress, &progress, &err)) {
		zl_print_error("%s", err.buf);
		goto out;
	}
	zl_progress_global_start(progress);
	zl_utc_iso8601(now, zl_now_epoch());
	if (opt_compare)
		ret = page_compare(args, &opts, now, &page);
	else if (opt_history)
		ret = page_history(now, &page);
	else
		ret = page_dir(args->v[0], &opts, now, &page);
	zl_progress_global_stop();
	if (ret == ZL_EXIT_OK)
		ret = write_page(&page);
out:
	strbuf_release(&page);
	strbuf_release(&err);
	return ret;
}

const struct zl_command zl_cmd_report = {
	.name = "report",
	.fn = cmd_report,
	.flags = ZL_CMD_OPERANDS,
	.options = report_options,
	.summary = "write one self-contained HTML page of a run, batch, comparison or history",
	.usage = "RUN_DIR|BATCH_DIR|AB_DIR [-o FILE] [--progress MODE]\n"
		 "   or: zlbench report --compare A B [--fail-on-regression PCT] [--threshold PCT]\n"
		 "                      [--allow-caliber-mismatch] [-o FILE]\n"
		 "   or: zlbench report --history [--op OP] [--since DATE] [--backend B] [-o FILE]",
	.description =
		"Writes one self-contained HTML page: inline CSS and SVG charts drawn by zlbench,\n"
		"no script, nothing fetched; light and dark, printable, readable on a phone.\n"
		"Every page opens with its answer, one line under the title: the counts, the\n"
		"geomean with its 95% interval (at the precision the interval supports), the\n"
		"gate when asked. Then its charts, then the caliber of its runs (backend,\n"
		"devices, level, shapes, timer and noise target, clocks, tuner cache, autotune,\n"
		"FlagGems commit, torch and Triton) and the warnings that apply; a field a run\n"
		"did not record reads \"not recorded\". docs/report.md shows each page.\n\n"
		"  run       per op: torch and FlagGems latency per shape (log scale) and the speedup,\n"
		"            losses first; how close each shape is to the hardware (a roofline, or\n"
		"            GB/s against the HBM peak); the numbers in tables\n"
		"  batch     the op table first (status, speedup, the reason in full), every op's\n"
		"            speedup, the caliber, the schedule as a timeline per device, the\n"
		"            ops_status table, and each op's run as above\n"
		"  A/B dir   (holding ab.json) its rounds compared as below\n"
		"  compare   per row B/A with its interval as a forest plot coloured by verdict, how\n"
		"            close A and B are to the hardware, the samples of the rows that moved\n"
		"  history   per op and shape the trend over runs, one line per backend and device,\n"
		"            stopping at caliber changes, runs that did not pass marked, the points\n"
		"            where a series shifted beyond its noise\n",
	.notes =
		"Environment:\n"
		"  ZL_HISTORY_DB  history database for --history and run ids when --db is not given\n"
		"  ZL_HOME        data directory holding history.db\n"
		"\nExit status:\n"
		"  0  the page was written (whatever the runs or the gate say)\n"
		"  1  the page could not be written\n"
		"  2  usage, a directory that is no run, batch or A/B directory, a run that cannot be\n"
		"     loaded, a caliber mismatch without --allow-caliber-mismatch, no history database\n"
		"\nExamples:\n"
		"  zlbench report runs/20261129-101500-cuda-mm-1a2b3c -o mm.html\n"
		"  zlbench report batches/nightly -o nightly.html\n"
		"  zlbench report --compare runs/A runs/B --fail-on-regression 3 -o ab.html\n"
		"  zlbench report --history --op mm --since 30d -o mm-trend.html\n",
};
