/* zlbench history: list the runs stored in the history database, or add runs to it. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "zlbench/backend.h"
#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/history.h"
#include "zlbench/options.h"
#include "zlbench/schema.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"
#include "zlbench/table.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

#define DEFAULT_LIMIT 20

static const char *opt_op, *opt_backend, *opt_since, *opt_limit, *opt_db;
static int opt_json, opt_csv, opt_ingest;

static const struct zl_option history_options[] = {
	{ .type = ZL_OPT_STRING, .long_name = "op", .value = &opt_op, .argh = "OP", .help = "only runs of this operator" },
	{ .type = ZL_OPT_STRING, .long_name = "backend", .short_name = 'b', .value = &opt_backend, .argh = "B",
	  .help = "only runs on this backend (name or alias)" },
	{ .type = ZL_OPT_STRING, .long_name = "since", .value = &opt_since, .argh = "DATE",
	  .help = "only runs started at or after DATE (YYYY-MM-DD[THH:MM[:SS]] UTC, or an age: 12h, 7d, 2w)" },
	{ .type = ZL_OPT_STRING, .long_name = "limit", .short_name = 'n', .value = &opt_limit, .argh = "N",
	  .help = "at most N runs, newest first (default 20; 0: all)" },
	{ .type = ZL_OPT_FLAG, .long_name = "json", .value = &opt_json, .defval = 1, .help = "print a JSON array" },
	{ .type = ZL_OPT_FLAG, .long_name = "csv", .value = &opt_csv, .defval = 1,
	  .help = "print CSV (RFC 4180) with a header row" },
	{ .type = ZL_OPT_STRING, .long_name = "db", .value = &opt_db, .argh = "PATH",
	  .help = "history database (default $ZL_HISTORY_DB, else $ZL_HOME/history.db)" },
	{ .type = ZL_OPT_FLAG, .long_name = "ingest", .value = &opt_ingest, .defval = 1,
	  .help = "add the run directories given as arguments (replacing earlier copies)" },
	ZL_OPT_END_ROW
};

static int leap_year(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/*
 * YYYY-MM-DD[(T| )HH:MM[:SS]][Z] as the stored form YYYY-MM-DDTHH:MM:SSZ (what
 * identities hold, so that a text comparison is a time comparison), or NULL
 * when it is no such date or names a day or time that does not exist.
 */
static char *normalise_date(const char *s)
{
	static const char pattern[] = "dddd-dd-ddTdd:dd:dd";
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, mo, d, h = 0, mi = 0, sec = 0;
	size_t len = strlen(s), i;

	if (len && s[len - 1] == 'Z')
		len--;
	if (len != 10 && len != 16 && len != 19)
		return NULL;
	for (i = 0; i < len; i++) {
		if (pattern[i] == 'd' ? !isdigit((unsigned char)s[i]) :
		    s[i] != pattern[i] && !(i == 10 && s[i] == ' '))
			return NULL;
	}
	y = atoi(s);
	mo = atoi(s + 5);
	d = atoi(s + 8);
	if (len > 10) {
		h = atoi(s + 11);
		mi = atoi(s + 14);
	}
	if (len > 16)
		sec = atoi(s + 17);
	if (mo < 1 || mo > 12 || d < 1 || d > days[mo - 1] + (mo == 2 && leap_year(y)) ||
	    h > 23 || mi > 59 || sec > 59)
		return NULL;
	return xstrfmt("%.4d-%.2d-%.2dT%.2d:%.2d:%.2dZ", y, mo, d, h, mi, sec);
}

static const struct {
	char unit;
	double seconds;
} age_units[] = {
	{ 'h', 3600 },
	{ 'd', 86400 },
	{ 'w', 7 * 86400 },
};

/* --since: a date in the stored form; an age becomes the UTC time that long ago (history.h). */
char *zl_history_since_value(const char *s, struct strbuf *err)
{
	size_t len = strlen(s), i;
	char *date = normalise_date(s);

	if (date)
		return date;
	for (i = 0; len > 1 && i < ZL_ARRAY_SIZE(age_units); i++) {
		if (s[len - 1] == age_units[i].unit) {
			char *num = xstrndup(s, len - 1);
			long n;
			int bad = zl_parse_long(num, &n) || n < 0;
			char buf[32];

			free(num);
			if (bad)
				break;
			zl_utc_iso8601(buf, zl_now_epoch() - (double)n * age_units[i].seconds);
			return xstrdup(buf);
		}
	}
	zl_error(err, "invalid --since '%s': use an existing UTC date and time, "
		 "YYYY-MM-DD[THH:MM[:SS]], or an age like 12h, 7d, 2w", s);
	return NULL;
}

static int print_json_list(const struct zl_history_list *l)
{
	cJSON *arr = cJSON_CreateArray();
	char *text = NULL;
	size_t i;
	int c;

	for (i = 0; arr && i < l->nr; i++) {
		const struct zl_history_entry *e = &l->v[i];
		cJSON *o = cJSON_CreateObject();

		if (zl_json_add_item(arr, NULL, o) || zl_json_add_schema(o, ZL_SCHEMA_HISTORY_RUN))
			goto oom;
		for (c = 0; c < ZL_HCOL__COUNT; c++) {
			const char *v = e->v[c];
			int bad;

			if (zl_history_columns[c].type == ZL_COL_TEXT || !v)
				bad = zl_json_add_string(o, zl_history_columns[c].name, v);
			else
				bad = zl_json_add_number(o, zl_history_columns[c].name, strtod(v, NULL));
			if (bad)
				goto oom;
		}
		if (zl_json_add_number(o, "results", (double)e->results) ||
		    zl_json_add_number(o, "speedup_geomean", e->speedup_geomean))
			goto oom;
	}
	if (!arr || !(text = cJSON_Print(arr)))
		goto oom;
	printf("%s\n", text);
	cJSON_free(text);
	cJSON_Delete(arr);
	return 0;
oom:
	cJSON_Delete(arr);
	zl_print_error("cannot build the json list: out of memory");
	return -1;
}

static void print_csv_list(const struct zl_history_list *l)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int c;

	for (c = 0; c < ZL_HCOL__COUNT; c++)
		zl_csv_field(&sb, zl_history_columns[c].name, c == 0);
	zl_csv_field(&sb, "results", 0);
	zl_csv_field(&sb, "speedup_geomean", 0);
	zl_csv_end_row(&sb);
	for (i = 0; i < l->nr; i++) {
		const struct zl_history_entry *e = &l->v[i];
		char num[64];

		for (c = 0; c < ZL_HCOL__COUNT; c++)
			zl_csv_field(&sb, e->v[c], c == 0);
		snprintf(num, sizeof(num), "%ld", e->results);
		zl_csv_field(&sb, num, 0);
		if (isfinite(e->speedup_geomean))
			snprintf(num, sizeof(num), "%.10g", e->speedup_geomean);
		else
			num[0] = '\0';
		zl_csv_field(&sb, num, 0);
		zl_csv_end_row(&sb);
	}
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
}

static void print_text_list(const struct zl_history_list *l, const char *db_path)
{
	static const char *const head[] = { "run_id", "started_at", "backend", "device", "op",
					    "level", "status", "duration", "rows", "speedup" };
	static const enum zl_history_col cols[] = { ZL_HCOL_RUN_ID, ZL_HCOL_STARTED_AT,
		ZL_HCOL_BACKEND, ZL_HCOL_DEVICE_NAME, ZL_HCOL_OP, ZL_HCOL_LEVEL, ZL_HCOL_STATUS };
	struct zl_table t;
	size_t i, c;

	if (!l->nr) {
		printf("no runs in '%s'\n", db_path);
		return;
	}
	zl_table_init(&t, ZL_ARRAY_SIZE(head), (1ul << 7) | (1ul << 8) | (1ul << 9));
	for (c = 0; c < ZL_ARRAY_SIZE(head); c++)
		zl_table_add(&t, head[c], ZL_COLOR_NONE);
	for (i = 0; i < l->nr; i++) {
		const struct zl_history_entry *e = &l->v[i];
		const char *dur = e->v[ZL_HCOL_DURATION_S];

		for (c = 0; c < ZL_ARRAY_SIZE(cols); c++)
			zl_table_add(&t, e->v[cols[c]] ? e->v[cols[c]] : "-", ZL_COLOR_NONE);
		if (dur)
			zl_table_addf(&t, ZL_COLOR_NONE, "%.1fs", strtod(dur, NULL));
		else
			zl_table_add(&t, "-", ZL_COLOR_NONE);
		zl_table_addf(&t, ZL_COLOR_NONE, "%ld", e->results);
		if (isfinite(e->speedup_geomean))
			zl_table_addf(&t, ZL_COLOR_NONE, "%.3fx", e->speedup_geomean);
		else
			zl_table_add(&t, "-", ZL_COLOR_NONE);
	}
	zl_table_print(&t, stdout, 0);
	zl_table_release(&t);
}

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

/* The runs the filter selects, in the format asked for. The exit code. */
static int list_runs(struct zl_history *h, const struct zl_history_filter *f)
{
	struct zl_history_list list = ZL_HISTORY_LIST_INIT;
	struct strbuf err = STRBUF_INIT;
	int ret = ZL_EXIT_OK;

	if (zl_history_query(h, f, &list, &err)) {
		zl_print_error("%s", err.buf);
		ret = ZL_EXIT_FAILED;
		goto out;
	}
	if (opt_json)
		ret = print_json_list(&list) ? ZL_EXIT_FAILED : ZL_EXIT_OK;
	else if (opt_csv)
		print_csv_list(&list);
	else
		print_text_list(&list, zl_history_path(h));
	if (fflush(stdout) || ferror(stdout)) {
		zl_print_error("cannot write the list to standard output");
		ret = ZL_EXIT_FAILED;
	}
out:
	zl_history_list_release(&list);
	strbuf_release(&err);
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
	if (!opt_ingest && args->nr) {
		zl_print_error("unexpected argument '%s' (to add run directories use --ingest)", args->v[0]);
		goto out;
	}
	if (make_filter(&f, &since))
		goto out;
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
		 "                       [--json|--csv] [--db PATH]\n"
		 "   or: zlbench history --ingest RUN_DIR... [--db PATH]",
	.description =
		"Lists the runs stored in the history database, newest first: run id, start,\n"
		"backend, device, op, level, status, duration, result rows and the geomean of\n"
		"FlagGems' speedup over torch. `zlbench run` adds every run it finishes; batch\n"
		"and Slurm collectors do too; --ingest adds run directories by hand (a run id\n"
		"already stored is replaced, so ingesting twice is harmless).\n",
	.notes =
		"Environment:\n"
		"  ZL_HISTORY_DB  history database of every command (run, batch, history, compare);\n"
		"                 --db overrides it (default $ZL_HOME/history.db)\n"
		"  ZL_HOME        data directory holding history.db (default $XDG_DATA_HOME/zlbench,\n"
		"                 else ~/.local/share/zlbench)\n"
		"  ZL_NO_HISTORY  set (not empty, not 0): `zlbench run` does not record its run (history itself ignores it)\n"
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
