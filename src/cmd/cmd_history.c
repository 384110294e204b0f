/* zlbench history: list the runs stored in the history database, or add runs to it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/backend.h"
#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/export.h"
#include "zlbench/history.h"
#include "zlbench/history_list.h"
#include "zlbench/options.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"
#include "zlbench/term.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

#define DEFAULT_LIMIT 20

static const char *opt_op, *opt_backend, *opt_since, *opt_limit, *opt_db;
static int opt_json, opt_csv, opt_ingest;
static struct zl_exports opt_exports;

static const struct zl_option history_options[] = {
	{ .type = ZL_OPT_STRING, .long_name = "op", .value = &opt_op, .argh = "OP", .help = "only runs of this operator",
	  .values = ZL_VALUES_OP },
	{ .type = ZL_OPT_STRING, .long_name = "backend", .short_name = 'b', .value = &opt_backend, .argh = "B",
	  .help = "only runs on this backend (name or alias)", .values = ZL_VALUES_BACKEND },
	{ .type = ZL_OPT_STRING, .long_name = "since", .value = &opt_since, .argh = "DATE",
	  .help = "only runs started at or after DATE (YYYY-MM-DD[THH:MM[:SS]] UTC, or an age: 12h, 7d, 2w)" },
	{ .type = ZL_OPT_STRING, .long_name = "limit", .short_name = 'n', .value = &opt_limit, .argh = "N",
	  .help = "at most N runs, newest first (default 20; 0: all)" },
	{ .type = ZL_OPT_FLAG, .long_name = "json", .value = &opt_json, .defval = 1, .help = "print a JSON array" },
	{ .type = ZL_OPT_FLAG, .long_name = "csv", .value = &opt_csv, .defval = 1,
	  .help = "print CSV (RFC 4180) with a header row" },
	ZL_OPT_JSON_OUT(&opt_exports),
	ZL_OPT_CSV_OUT(&opt_exports),
	{ .type = ZL_OPT_STRING, .long_name = "db", .value = &opt_db, .argh = "PATH",
	  .help = "history database (default $ZL_HISTORY_DB, else $ZL_HOME/history.db)" },
	{ .type = ZL_OPT_FLAG, .long_name = "ingest", .value = &opt_ingest, .defval = 1,
	  .help = "add the run directories given as arguments (replacing earlier copies)" },
	ZL_OPT_END_ROW
};

static int ingest(struct zl_history *h, const struct strvec *dirs)
{
	struct strbuf err = STRBUF_INIT;
	size_t i, failed = 0, not_runs = 0;

	for (i = 0; i < dirs->nr; i++) {
		struct zl_run run;

		zl_run_init(&run);
		if (zl_run_load(dirs->v[i], &run, &err)) {
			zl_print_error("%s", err.buf);
			not_runs++;
		} else if (zl_history_ingest_loaded(h, &run, &err)) {
			zl_print_error("%s", err.buf);
			failed++;
		} else if (zl_verbosity >= 0) {
			size_t n;

			printf("ingested %s (%s, %zu result rows) from %s\n", run.run_id,
			       run.status ? run.status : "no status", run.nr_results, run.dir);
			/* rows without figures (NaN in results.json) or a file not read are said, not hidden */
			for (n = 0; n < run.notes.nr; n++)
				zl_print_warning("%s: %s", run.run_id, run.notes.v[n]);
		}
		zl_run_release(&run);
	}
	strbuf_release(&err);
	/* a directory that is not a run is the caller's mistake; a failed write is not */
	return not_runs ? ZL_EXIT_USAGE : failed ? ZL_EXIT_FAILED : ZL_EXIT_OK;
}

/* The listing's filter from the options (since is the caller's to free). 0, or -1 after a message. */
static int make_filter(struct zl_history_filter *f, char **since)
{
	struct strbuf err = STRBUF_INIT;
	const struct zl_backend *b;

	f->limit = DEFAULT_LIMIT;
	if (opt_limit && (zl_parse_long(opt_limit, &f->limit) || f->limit < 0)) {
		zl_print_error("invalid --limit '%s': expected a whole number >= 0", opt_limit);
		return -1;
	}
	if (opt_since && !(*since = zl_history_since_value(opt_since, &err))) {
		zl_print_error("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	f->since = *since;
	f->op = opt_op;
	if (opt_backend) {
		b = zl_backend_find(opt_backend);
		if (!b) {
			zl_backend_choices(&err);
			zl_print_error("unknown backend '%s'; choices: %s", opt_backend, err.buf);
			strbuf_release(&err);
			return -1;
		}
		f->backend = b->name;
	}
	return 0;
}

static int render_format(enum zl_export_format f, const void *data, struct strbuf *sb, struct strbuf *err)
{
	if (f == ZL_EXPORT_JSON)
		return zl_history_list_json(data, sb, err);
	zl_history_list_csv(data, sb);
	return 0;
}

/* The runs the filter selects, in the format asked for, and the exports. The exit code. */
static int list_runs(struct zl_history *h, const struct zl_history_filter *f)
{
	struct zl_history_list list = ZL_HISTORY_LIST_INIT;
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
	int ret = ZL_EXIT_OK;

	if (zl_history_query(h, f, &list, &err)) {
		zl_print_error("%s", err.buf);
		ret = ZL_EXIT_FAILED;
		goto out;
	}
	if (opt_json || opt_csv)
		ret = render_format(opt_json ? ZL_EXPORT_JSON : ZL_EXPORT_CSV, &list, &sb, &err);
	else
		zl_history_list_print_text(&list, zl_history_path(h), f->limit, zl_term_width(1), stdout);
	if (ret) {
		zl_print_error("%s", err.buf);
		ret = ZL_EXIT_FAILED;
		goto out;
	}
	if (fwrite(sb.buf, 1, sb.len, stdout) != sb.len || fflush(stdout) || ferror(stdout)) {
		zl_print_error("cannot write the list to standard output");
		ret = ZL_EXIT_FAILED;
	} else if (zl_exports_write(&opt_exports, render_format, &list, &err)) {
		zl_print_error("%s", err.buf);
		ret = ZL_EXIT_FAILED;
	}
out:
	zl_history_list_release(&list);
	strbuf_release(&err);
	strbuf_release(&sb);
	return ret;
}

static int cmd_history(struct zl_cmd_ctx *ctx)
{
	struct zl_history_filter f = ZL_HISTORY_FILTER_INIT;
	const struct strvec *args = &ctx->args;
	struct strbuf err = STRBUF_INIT;
	struct zl_history *h = NULL;
	char *since = NULL;
	int ret = ZL_EXIT_USAGE;

	if (opt_json && opt_csv) {
		zl_print_error("--json and --csv cannot be combined");
		goto out;
	}
	if (opt_ingest && !args->nr) {
		zl_print_error("--ingest needs at least one run directory");
		goto out;
	}
	if (opt_ingest && (opt_exports.path[ZL_EXPORT_JSON] || opt_exports.path[ZL_EXPORT_CSV])) {
		zl_print_error("--json-out and --csv-out go with a listing, not with --ingest");
		goto out;
	}
	if (!opt_ingest && args->nr) {
		zl_print_error("unexpected argument '%s' (to add run directories use --ingest)", args->v[0]);
		goto out;
	}
	if (make_filter(&f, &since))
		goto out;
	if (zl_exports_check(&opt_exports, &err)) {
		zl_print_error("%s", err.buf);
		goto out;
	}
	/* listing only reads: a database on a read-only mount can still be listed */
	if ((opt_ingest ? zl_history_open : zl_history_open_readonly)(opt_db, &h, &err)) {
		zl_print_error("%s", err.buf);
		goto out;
	}
	ret = opt_ingest ? ingest(h, args) : list_runs(h, &f);
out:
	zl_history_close(h);
	free(since);
	strbuf_release(&err);
	return ret;
}

const struct zl_command zl_cmd_history = {
	.name = "history",
	.fn = cmd_history,
	.flags = ZL_CMD_OPERANDS,
	.options = history_options,
	.summary = "list stored runs from the history database",
	.usage = "[--op OP] [--backend B] [--since DATE] [--limit N]\n"
		 "                       [--json|--csv] [--json-out FILE] [--csv-out FILE] [--db PATH]\n"
		 "   or: zlbench history --ingest RUN_DIR... [--db PATH]",
	.description =
		"Lists the runs stored in the history database, newest first: run id, start,\n"
		"backend, device, op, level, status, duration, result rows and the geomean of\n"
		"FlagGems' speedup over torch. `zlbench run` adds every run it finishes; batch\n"
		"and Slurm collectors do too; --ingest adds run directories by hand (a run id\n"
		"already stored is replaced, so ingesting twice is harmless). The list starts with how many\n"
		"runs it shows of each status; its table fits $COLUMNS (else the terminal's width, else 80\n"
		"columns) by leaving out started_at, level, device and backend in that order (the run id\n"
		"names the time and the backend).\n",
	.notes =
		"Environment:\n"
		"  ZL_HISTORY_DB  history database of every command (run, batch, history, compare);\n"
		"                 --db overrides it (default $ZL_HOME/history.db)\n"
		"  ZL_HOME        data directory holding history.db (default $XDG_DATA_HOME/zlbench,\n"
		"                 else ~/.local/share/zlbench)\n"
		"  ZL_NO_HISTORY  set (not empty, not 0): `zlbench run` does not record its run (history itself ignores it)\n"
		"  COLUMNS        the width the table fits (else the terminal's, else 80)\n"
		"\nExit status:\n"
		"  0  listed, or every run directory ingested\n"
		"  1  the query or an ingest's write failed, the list could not be built or written, or an\n"
		"     ingest was refused: a copy with no result rows never replaces a run's stored rows\n"
		"  2  usage error (an impossible --since date too), a database that cannot be\n"
		"     opened, or a directory that is not a run\n"
		"\nExamples:\n"
		"  zlbench history --op mm --since 7d\n"
		"  zlbench history --backend musa --limit 0 --csv > runs.csv\n"
		"  zlbench history --ingest runs/20261129-101500-cuda-mm-1a2b3c\n",
};
