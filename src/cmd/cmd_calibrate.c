/* zlbench calibrate: the command line read into a request, the session run (calibrate_session.h), its result rendered. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/calibrate_session.h"
#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/export.h"
#include "zlbench/options.h"
#include "zlbench/progress.h"
#include "zlbench/settings.h"
#include "zlbench/term.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

struct calibrate_opts {
	struct strvec ops;
	const char *runs;
	const char *resume;
	const char *db;
	int json;
	int dry_run;
	const char *progress;
	struct zl_exports exports;
	const char *timeout_per_op;  /* batch options each round's batch gets as given */
	const char *start;
};

static struct calibrate_opts co = { .ops = STRVEC_INIT };

static const struct zl_option calibrate_options[] = {
	{ .type = ZL_OPT_STRLIST, .long_name = "ops", .value = &co.ops, .argh = "LIST",
	  .help = "operators, comma-separated (repeatable); --op OP adds one", .values = ZL_VALUES_OP_LIST },
	{ .type = ZL_OPT_STRING, .long_name = "runs", .value = &co.runs, .argh = "K",
	  .help = "identical runs of each op, 2 to " ZL_STR(ZL_CALIBRATE_MAX_RUNS), .default_doc = ZL_STR(ZL_CALIBRATE_DEFAULT_RUNS) },
	/* the settings' own rows parse these two; what they mean to a calibration is said here */
	{ .type = ZL_OPT_STRING, .long_name = "out", .argh = "DIR", .flags = ZL_OPT_DOC_ONLY,
	  .help = "calibration directory (absent or empty)",
	  .default_doc = "$ZL_RUNS_DIR/<UTC stamp>-<backend>-calibrate" },
	{ .type = ZL_OPT_STRING, .long_name = "devices", .argh = "D", .flags = ZL_OPT_DOC_ONLY,
	  .help = "the one device to measure", .default_doc = "the first the backend enumerates" },
	/* batch options a round's batch gets as given (a batch option added later is one more row) */
	{ .type = ZL_OPT_STRING, .long_name = "timeout-per-op", .value = &co.timeout_per_op, .argh = "SECONDS",
	  .help = "each run's timeout (batch's --timeout-per-op)", .flags = ZL_OPT_FORWARD },
	{ .type = ZL_OPT_STRING, .long_name = "start", .value = &co.start, .argh = "MODE",
	  .help = "how each run's interpreter starts: worker or fresh (batch's --start)", .flags = ZL_OPT_FORWARD,
	  .choices = "worker fresh",
	  .hidden_choices = "fork" },
	{ .type = ZL_OPT_STRING, .long_name = "resume", .value = &co.resume, .argh = "DIR",
	  .help = "continue a calibration: finish its rounds (batch --resume), then measure", .values = ZL_VALUES_DIR },
	{ .type = ZL_OPT_STRING, .long_name = "db", .value = &co.db, .argh = "PATH",
	  .help = "history database for the calibration (and the runs)",
	  .default_doc = "$ZL_HISTORY_DB, else $ZL_HOME/history.db" },
	{ .type = ZL_OPT_FLAG, .long_name = "json", .value = &co.json, .defval = 1,
	  .help = "one JSON document on stdout (also DIR/calibration.json)" },
	ZL_OPT_JSON_OUT(&co.exports),
	{ .type = ZL_OPT_STRING, .long_name = "progress", .value = &co.progress, .argh = "MODE",
	  .help = ZL_PROGRESS_HELP, .choices = ZL_PROGRESS_CHOICES },
	{ .type = ZL_OPT_FLAG, .long_name = "dry-run", .value = &co.dry_run, .defval = 1,
	  .help = "print the plan and each round's batch argv; start nothing" },
	ZL_OPT_END_ROW,
};
static const struct zl_option *const calibrate_tables[] = { calibrate_options, NULL };

/*
 * The request from the command line: a new calibration (no setting it refuses, --runs in
 * range, the settings resolved) or a resumed one (nothing that would change its saved
 * plan). 0, or -1 after a message.
 */
static int read_request(struct zl_cmd_ctx *ctx, struct zl_calibrate_request *req, struct strvec *forwarded)
{
	struct zl_settings *s = ctx->s;
	struct strbuf err = STRBUF_INIT;
	const struct zl_setting_value *v;

	zl_options_forward(calibrate_tables, forwarded);
	if (zl_progress_mode_parse(co.progress, &req->progress, &err) || zl_exports_check(&co.exports, &err)) {
		zl_print_error("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	req->ops = &co.ops;
	req->runs = ZL_CALIBRATE_DEFAULT_RUNS;
	req->resume = co.resume;
	req->db = co.db;
	req->dry_run = co.dry_run;
	req->forwarded = forwarded;
	req->argc = ctx->argc;
	req->argv = ctx->argv;
	if (co.resume) {
		if (co.ops.nr || co.runs || s->passthrough.nr || zl_settings_given(s, ZL_SETF_ALL) || forwarded->nr) {
			zl_print_error("--resume uses the settings saved in the calibration directory; run settings, "
				       "--ops, --runs, batch options and pytest arguments cannot change them");
			return -1;
		}
		return 0;
	}
	v = zl_settings_given(s, ctx->cmd->refused_settings);
	if (v) {
		zl_print_error("%s names one run; a calibration takes --ops LIST (or --op OP)", v->from);
		return -1;
	}
	if (co.runs && (zl_parse_long(co.runs, &req->runs) || req->runs < 2 || req->runs > ZL_CALIBRATE_MAX_RUNS)) {
		zl_print_error("invalid value '%s' for --runs: a whole number from 2 to %d (pairs of identical runs)",
			       co.runs, ZL_CALIBRATE_MAX_RUNS);
		return -1;
	}
	if (zl_settings_resolve(s, &err)) {
		zl_print_error("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	return 0;
}

/* The result document (calibrate has JSON only). */
static int render_format(enum zl_export_format f, const void *data, struct strbuf *sb, struct strbuf *err)
{
	cJSON *doc = zl_calibrate_session_json(data);
	int bad = !doc || zl_json_print(sb, doc, 1, "calibrate --json");

	(void)f;
	if (!bad)
		strbuf_addch(sb, '\n');
	cJSON_Delete(doc);
	return bad ? zl_error(err, "cannot build the calibration's JSON: out of memory") : 0;
}

/* The result on stdout (the text or the JSON), then the exports. 0, or -1 after a message. */
static int render(const struct zl_calibrate_session *st)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	int ret = 0;

	if (co.json)
		ret = render_format(ZL_EXPORT_JSON, st, &sb, &err);
	else
		zl_calibrate_session_print_text(st, zl_term_width(1), stdout);
	if (ret || fwrite(sb.buf, 1, sb.len, stdout) != sb.len || fflush(stdout) || ferror(stdout)) {
		zl_print_error("cannot write the calibration to standard output%s%s", ret ? ": " : "", err.buf);
		ret = -1;
	}
	if (!ret && zl_exports_write(&co.exports, render_format, st, &err)) {
		zl_print_error("%s", err.buf);
		ret = -1;
	}
	strbuf_release(&sb);
	strbuf_release(&err);
	return ret;
}

static int cmd_calibrate(struct zl_cmd_ctx *ctx)
{
	struct zl_calibrate_request req;
	struct zl_calibrate_session st;
	struct strvec forwarded = STRVEC_INIT;
	int code = ZL_EXIT_USAGE;

	memset(&req, 0, sizeof(req));
	zl_calibrate_session_init(&st);
	if (read_request(ctx, &req, &forwarded))
		goto out;
	code = zl_calibrate_session_run(&st, &req, ctx->s);
	if (req.dry_run && !code)
		zl_calibrate_session_print_plan(&st, stdout);
	else if (st.measured && render(&st))
		code = ZL_EXIT_FAILED;
out:
	zl_calibrate_session_release(&st);
	strvec_clear(&forwarded);
	return code;
}

const struct zl_command zl_cmd_calibrate = {
	.name = "calibrate",
	.fn = cmd_calibrate,
	.flags = ZL_CMD_SETTINGS | ZL_CMD_PYTEST,
	.options = calibrate_options,
	/* a calibration names its operators (--ops, or --op OP): a file or a node names one run */
	.refused_settings = ZL_SETF_NODE,
	.summary = "measure this machine's run-to-run noise: the floor compare uses",
	.usage = "[--backend B] (--ops LIST | --op OP) [--runs K] [--devices D] [--out DIR]\n"
		 "                         [--json] [--json-out FILE] [--db PATH] [--progress MODE]\n"
		 "                         [run settings] [-- <pytest args>]\n"
		 "       zlbench calibrate --resume DIR [--json] [--json-out FILE] [--db PATH] [--progress MODE]",
	.description =
		"Measures how far identical runs land apart on this machine, and stores the floor that\n"
		"`zlbench compare` and `zlbench ab` then use for it. The ops run K times (default " ZL_STR(ZL_CALIBRATE_DEFAULT_RUNS) ") with\n"
		"identical settings on one device: K rounds, each one `zlbench batch` over the ops in\n"
		"DIR/round-<k>/ (device pinning, timeouts, ops_status.csv and run directories as batch has\n"
		"them). Then every pair of an op's runs is compared with compare's own verdict engine, and\n"
		"per size class of kernel time (<5us, 5-50us, 50-500us, >=500us; a row's class is that of\n"
		"its A side) it reports: the A/A rows, the run-to-run spread (root mean square of\n"
		"log(B/A)) with its 95% upper bound, the tail of |B/A-1|, the share of rows compare would\n"
		"call faster or slower with its floor at 1, 2 and 5%, and the floor it recommends: the\n"
		"smallest floor of at least 3 x the upper spread (and 0.5%) at which compare calls at most\n"
		"0.1% of the class's A/A rows faster or slower (docs/calibrate.md).\n\n"
		"The result is stored in the history database keyed by backend, device name, timer and\n"
		"FlagGems commit; compare names it (\"floor: calibration <id> ...\") for runs of that\n"
		"set-up. It cannot be stored without a device name (the backend's query tool) or a\n"
		"FlagGems commit (a git checkout): then it is printed and written to DIR only.\n"
		"DIR/calibration.json holds the figures; the last line on stdout is CALIBRATE_DIR=<path>\n"
		"(with --json, stdout is the JSON document alone). The output puts the answer first: stored\n"
		"or not (and why), the floor per size class, then the table (fitted to $COLUMNS, else the\n"
		"terminal's width, else 80) and how it was measured. While the rounds go, a line on stderr\n"
		"says which round, its ops done and what is left (ETA) when stderr is a terminal; else a\n"
		"line per round (--progress).\n",
	.notes =
		"The run settings are given to every run of every round (--op-file and --test-node are refused:\n"
		"a calibration names its ops). Environment: as for batch (ZL_KILL_GRACE, ZL_HISTORY_DB, ZL_HOME,\n"
		"ZL_NO_HISTORY=1: nothing is stored unless --db names a database).\n\n"
		"Exit codes: 0 measured and stored, 1 a run failed or the calibration could not be stored\n"
		"(the figures are still printed), 2 usage, 3 every op of a round failed preflight,\n"
		"130 interrupted (128+N for signal N; the rounds' directories say what ran).\n\n"
		"Examples:\n"
		"  zlbench calibrate --backend cuda --ops abs,add,exp,sum,softmax,layer_norm -- --dtypes float16\n"
		"  zlbench calibrate --backend cuda --op mm --runs 5 --devices 3 --out runs/cal-mm\n"
		"  zlbench calibrate --resume runs/cal-mm\n",
};
