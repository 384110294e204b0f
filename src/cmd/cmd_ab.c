/* zlbench ab: the command line read into a request, the session run (ab_session.h), its result rendered. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/ab.h"
#include "zlbench/ab_session.h"
#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/export.h"
#include "zlbench/fsutil.h"
#include "zlbench/json.h"
#include "zlbench/progress.h"
#include "zlbench/rowview.h"
#include "zlbench/settings.h"
#include "zlbench/term.h"
#include "zlbench/units.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

#define DEFAULT_ROUNDS 2

struct ab_opts {
	struct strvec env[2];      /* --a-env, --b-env: NAME=value */
	const char *dir[2];        /* --a-flaggems-dir, --b-flaggems-dir */
	const char *python[2];     /* --a-python, --b-python */
	const char *rounds;
	const char *fail;
	const char *threshold;
	const char *db;
	const char *progress;
	int fail_on_unsure, allow_mismatch, json, csv, markdown, dry_run;
	struct zl_exports exports;
	struct zl_view_args view;
};

static struct ab_opts ao = { .env = { STRVEC_INIT, STRVEC_INIT } };

static const struct zl_option ab_options[] = {
	{ .type = ZL_OPT_STRLIST, .long_name = "a-env", .value = &ao.env[0], .argh = "NAME=VALUE",
	  .help = "an environment variable for A's runs (repeatable)" },
	{ .type = ZL_OPT_STRLIST, .long_name = "b-env", .value = &ao.env[1], .argh = "NAME=VALUE",
	  .help = "an environment variable for B's runs (repeatable)" },
	{ .type = ZL_OPT_STRING, .long_name = "a-flaggems-dir", .value = &ao.dir[0], .argh = "DIR",
	  .help = "A's FlagGems checkout (two commits of FlagGems)", .values = ZL_VALUES_DIR },
	{ .type = ZL_OPT_STRING, .long_name = "b-flaggems-dir", .value = &ao.dir[1], .argh = "DIR",
	  .help = "B's FlagGems checkout", .values = ZL_VALUES_DIR },
	{ .type = ZL_OPT_STRING, .long_name = "a-python", .value = &ao.python[0], .argh = "PATH",
	  .help = "A's interpreter (two Triton or torch installs)" },
	{ .type = ZL_OPT_STRING, .long_name = "b-python", .value = &ao.python[1], .argh = "PATH",
	  .help = "B's interpreter" },
	{ .type = ZL_OPT_STRING, .long_name = "rounds", .value = &ao.rounds, .argh = "R",
	  .help = "interleaved rounds, 1 to " ZL_STR(ZL_AB_MAX_ROUNDS),
	  .default_doc = ZL_STR(DEFAULT_ROUNDS) " (A1 B1 B2 A2)" },
	/* the settings' own row parses it; what it means to an ab is said here */
	{ .type = ZL_OPT_STRING, .long_name = "out", .argh = "DIR", .flags = ZL_OPT_DOC_ONLY,
	  .help = "ab directory (absent or empty)", .default_doc = "$ZL_RUNS_DIR/<UTC stamp>-<backend>-<op>-ab" },
	{ .type = ZL_OPT_FLAG, .long_name = "json", .value = &ao.json, .defval = 1,
	  .help = "the result as one JSON document" },
	{ .type = ZL_OPT_FLAG, .long_name = "csv", .value = &ao.csv, .defval = 1, .help = "the result as CSV rows" },
	{ .type = ZL_OPT_FLAG, .long_name = "markdown", .value = &ao.markdown, .defval = 1,
	  .help = "the result as Markdown" },
	ZL_OPT_JSON_OUT(&ao.exports),
	ZL_OPT_CSV_OUT(&ao.exports),
	ZL_OPT_MD_OUT(&ao.exports),
	ZL_VIEW_OPTION_ROWS(&ao.view),
	{ .type = ZL_OPT_STRING, .long_name = "fail-on-regression", .value = &ao.fail, .argh = "PCT",
	  .help = "exit 1 when the gate fails (see 4.)" },
	{ .type = ZL_OPT_FLAG, .long_name = "fail-on-unsure", .value = &ao.fail_on_unsure, .defval = 1,
	  .help = "the gate also fails on unsure gems rows that may be slower" },
	{ .type = ZL_OPT_STRING, .long_name = "threshold", .value = &ao.threshold, .argh = "PCT",
	  .help = "the smallest change that counts; never below the floor" },
	{ .type = ZL_OPT_FLAG, .long_name = "allow-caliber-mismatch", .value = &ao.allow_mismatch, .defval = 1,
	  .help = "go on when something besides the named variables differs" },
	{ .type = ZL_OPT_STRING, .long_name = "db", .value = &ao.db, .argh = "PATH",
	  .help = "history database for the calibration (and the runs)",
	  .default_doc = "$ZL_HISTORY_DB, else $ZL_HOME/history.db" },
	{ .type = ZL_OPT_STRING, .long_name = "progress", .value = &ao.progress, .argh = "MODE",
	  .help = ZL_PROGRESS_HELP, .choices = ZL_PROGRESS_CHOICES },
	{ .type = ZL_OPT_FLAG, .long_name = "dry-run", .value = &ao.dry_run, .defval = 1,
	  .help = "print the plan: order, each run's argv and environment" },
	ZL_OPT_END_ROW,
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

/* NAME=VALUE with NAME a shell-style variable name. */
static int check_env(const struct strvec *env, const char *opt)
{
	size_t i;

	for (i = 0; i < env->nr; i++) {
		const char *e = env->v[i], *eq = strchr(e, '=');
		size_t k, n = eq ? (size_t)(eq - e) : 0;
		int ok = n > 0 && !isdigit((unsigned char)e[0]);

		for (k = 0; ok && k < n; k++)
			ok = isalnum((unsigned char)e[k]) || e[k] == '_';
		if (!ok) {
			zl_print_error("invalid value '%s' for %s: expected NAME=VALUE (NAME: letters, digits and '_')", e,
				       opt);
			return -1;
		}
	}
	return 0;
}

/* ab's own options, then the settings (resolved here: ab's own mistakes are named first). 0, or -1. */
static int check_options(struct zl_settings *s, const struct zl_cmd_ctx *ctx, struct zl_ab_request *req,
			 struct zl_view_opts *view)
{
	struct strbuf err = STRBUF_INIT;
	long rounds = DEFAULT_ROUNDS;
	int arm;

	if (ao.json + ao.csv + ao.markdown > 1) {
		zl_print_error("choose one of --json, --csv and --markdown");
		return -1;
	}
	if ((ao.fail && parse_pct("--fail-on-regression", ao.fail, &req->fail_pct)) ||
	    (ao.threshold && parse_pct("--threshold", ao.threshold, &req->threshold_pct)))
		return -1;
	if (ao.rounds && (zl_parse_long(ao.rounds, &rounds) || rounds < 1 || rounds > ZL_AB_MAX_ROUNDS)) {
		zl_print_error("invalid value '%s' for --rounds: a whole number from 1 to %d", ao.rounds, ZL_AB_MAX_ROUNDS);
		return -1;
	}
	if (check_env(&ao.env[0], "--a-env") || check_env(&ao.env[1], "--b-env"))
		return -1;
	if (zl_progress_mode_parse(ao.progress, &req->progress, &err) || zl_view_opts_read(&ao.view, 1, view, &err) ||
	    zl_exports_check(&ao.exports, &err)) {
		zl_print_error("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	for (arm = 0; arm < 2; arm++)
		if (ao.dir[arm] && !zl_is_dir(ao.dir[arm])) {
			zl_print_error("--%c-flaggems-dir '%s' is not a directory", arm ? 'b' : 'a', ao.dir[arm]);
			return -1;
		}
	if (s->v[ZL_SET_OP].source != ZL_SRC_FLAG) {
		zl_print_error("ab needs the operator: --op OP");
		return -1;
	}
	if (zl_settings_resolve(s, &err)) {
		zl_print_error("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	/* a key tuned on a miss is tuned in each run on its own: A and B would not share it */
	if (s->replay_miss && !strcmp(s->replay_miss, "tune")) {
		zl_print_error("%s tunes a missed key in each run on its own, so A and B would not run the same "
			       "configs: an A/B replays with --replay-miss fail", s->v[ZL_SET_REPLAY_MISS].from);
		return -1;
	}
	for (arm = 0; arm < 2; arm++) {
		req->env[arm] = ao.env[arm];
		req->dir[arm] = ao.dir[arm];
		req->python[arm] = ao.python[arm];
	}
	req->rounds = (size_t)rounds;
	req->fail_on_unsure = ao.fail_on_unsure;
	req->allow_mismatch = ao.allow_mismatch;
	req->db = ao.db;
	req->dry_run = ao.dry_run;
	req->argc = ctx->argc;
	req->argv = ctx->argv;
	return 0;
}

/* A document of the result: JSON (ab.json's), CSV or Markdown (of the view). */
struct export_data {
	const struct zl_ab_session *st;
	const struct zl_view_opts *view;
};

static int render_format(enum zl_export_format f, const void *data, struct strbuf *sb, struct strbuf *err)
{
	const struct export_data *d = data;
	cJSON *doc;
	int bad;

	switch (f) {
	case ZL_EXPORT_CSV:
		zl_ab_render_csv(&d->st->ab, sb);
		return 0;
	case ZL_EXPORT_MD:
		zl_ab_render_markdown(&d->st->ab, d->view, sb);
		return 0;
	case ZL_EXPORT_JSON:
	case ZL_EXPORT__COUNT:
		break;
	}
	doc = zl_ab_session_json(d->st);
	bad = !doc || zl_json_print(sb, doc, 1, "ab --json");
	if (!bad)
		strbuf_addch(sb, '\n');
	cJSON_Delete(doc);
	return bad ? zl_error(err, "cannot build the result's JSON: out of memory") : 0;
}

/* The result in the chosen format, then the exports; 0, or -1 after a message. */
static int render(const struct zl_ab_session *st, const struct zl_view_opts *view)
{
	struct export_data d = { st, view };
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	int ret = 0;

	if (ao.json || ao.csv || ao.markdown)
		ret = render_format(ao.json ? ZL_EXPORT_JSON : ao.csv ? ZL_EXPORT_CSV : ZL_EXPORT_MD, &d, &sb, &err);
	else
		zl_ab_session_print_text(st, view, stdout);
	if (ret || fwrite(sb.buf, 1, sb.len, stdout) != sb.len || fflush(stdout) || ferror(stdout)) {
		zl_print_error("cannot write the result to standard output%s%s", ret ? ": " : "", err.buf);
		ret = -1;
	}
	if (!ret && zl_exports_write(&ao.exports, render_format, &d, &err)) {
		zl_print_error("%s", err.buf);
		ret = -1;
	}
	strbuf_release(&sb);
	strbuf_release(&err);
	return ret;
}

static int cmd_ab(struct zl_cmd_ctx *ctx)
{
	struct zl_ab_request req = { .fail_pct = -1 };
	struct zl_view_opts view = ZL_VIEW_OPTS_INIT;
	struct zl_ab_session st;
	int code;

	zl_ab_session_init(&st);
	if (check_options(ctx->s, ctx, &req, &view)) {
		code = ZL_EXIT_USAGE;
		goto out;
	}
	code = zl_ab_session_run(&st, &req, ctx->s);
	if (req.dry_run) {
		if (!code)
			zl_ab_session_print_plan(&st, stdout);
		goto out;
	}
	if (st.analysed && render(&st, &view))
		code = ZL_EXIT_FAILED;
	if (!st.claimed)
		goto out;
	if (ao.json || ao.csv || ao.markdown)
		fprintf(stderr, "AB_DIR=%s\n", st.dir);
	else
		printf("AB_DIR=%s\n", st.dir);
	fflush(stdout);
out:
	zl_ab_session_release(&st);
	return code;
}

const struct zl_command zl_cmd_ab = {
	.name = "ab",
	.fn = cmd_ab,
	.flags = ZL_CMD_SETTINGS | ZL_CMD_PYTEST,
	.options = ab_options,
	.summary = "run A and B interleaved (ABBA), one variable apart, and compare the pairs",
	.usage = "--op OP [--a-env NAME=VALUE]... [--b-env NAME=VALUE]...\n"
		 "                  [--a-flaggems-dir DIR] [--b-flaggems-dir DIR] [--a-python PATH] [--b-python PATH]\n"
		 "                  [--rounds R] [--out DIR] [--json|--csv|--markdown] [--json-out FILE] [--csv-out FILE]\n"
		 "                  [--md-out FILE] [--sort change|name|time] [--only-changed|--all] [--time-unit UNIT]\n"
		 "                  [--fail-on-regression PCT] [--fail-on-unsure] [--threshold PCT]\n"
		 "                  [--allow-caliber-mismatch] [--db PATH] [--progress MODE] [--dry-run]\n"
		 "                  [run settings] [-- <pytest args>]",
	.description =
		"Runs one operator as A and as B, one variable apart, alternately in ABBA order for R\n"
		"rounds: A1 B1 B2 A2 for R=2, A1 B1 B2 A2 A3 B3 for R=3, A1 B1 B2 A2 A3 B3 B4 A4 for R=4\n"
		"(odd rounds start with A, even rounds with B: a drift linear in time falls on both alike).\n"
		"Each run is a normal `zlbench run` with the run settings given here, in DIR/A1, DIR/B1, ...;\n"
		"A runs get the --a-* values, B runs the --b-* ones (an --a-/--b- option left out: the common\n"
		"setting). Without any, A and B are the same set-up: an A/A measurement of the noise.\n\n"
		"1. Caliber: after A1 and B1, and for every pair at the end, compare's caliber check must find\n"
		"   nothing that differs but what the named variables explain (env NAME for --a/b-env NAME;\n"
		"   FlagGems commit, dirty state and directory for --a/b-flaggems-dir; Python, Triton and\n"
		"   torch versions for --a/b-python); anything else is refused (exit 2) unless\n"
		"   --allow-caliber-mismatch. A FlagGems imported from outside a named directory is refused too.\n"
		"2. Autotune: each side tunes once, in its first run (A1, B1), and replays its own records\n"
		"   after that (--replay-from its first run); every run gets an isolated tuner cache unless\n"
		"   --shared-tuner-cache (or ZL_ISOLATE_TUNER_CACHE) says otherwise, so that B does not find\n"
		"   A's winners. --replay-from RUN replays RUN in every run; --no-autotune-records replays nothing.\n"
		"3. Rows are paired round by round: per row the B/A of each round, their geomean, a 95% CI\n"
		"   and p from the pairs, the pairs' spread pooled with the run-to-run noise compare would\n"
		"   assume for one pair (the floor's, or a calibration's spread: a moderated t with 4 prior\n"
		"   degrees of freedom, so that 2 rounds do not give a 1-degree-of-freedom interval), then\n"
		"   compare's verdicts: same, faster, slower, unsure (docs/ab.md, docs/verdicts.md). The floor\n"
		"   is that of a matching calibration (zlbench calibrate), else the fixed 5%.\n"
		"4. Gate (--fail-on-regression PCT) as compare's: the gems geomean, gems rows called slower by\n"
		"   more than PCT %, (--fail-on-unsure) unsure ones that may be, lost shapes, failed rounds.\n\n"
		"The result puts the answer first, as compare's does: the verdict line (gate, verdict counts,\n"
		"gems geomean with its CI), the changed rows largest first, the unsure rows grouped by why with\n"
		"one piece of advice per group, (--all) the rest; then the set-up and each run, the floor, the\n"
		"geomeans per round and the gate's reasons. The table fits $COLUMNS (else the terminal's width,\n"
		"else 80) by leaving out the 95% CI column first, then p, B/A per round and method.\n"
		"While the runs go, a line on stderr says which runs and what is left (ETA) when stderr is a\n"
		"terminal; else a line per run (--progress).\n\n"
		"The last line on stdout is AB_DIR=<path>; with --json, --csv or --markdown stdout holds the\n"
		"document alone and AB_DIR=<path> goes to stderr. DIR/ab.json holds the rounds, rows and\n"
		"gate (`zlbench report DIR` draws it); DIR/logs/<run>.log what each run printed.\n",
	.notes =
		"Environment: as for run (ZL_KILL_GRACE, ZL_HISTORY_DB, ZL_HOME, ZL_NO_HISTORY, NO_COLOR);\n"
		"COLUMNS, the width the table fits.\n\n"
		"Exit codes: 0 every run passed (and the gate, if any, passed), 1 a run failed or the gate\n"
		"failed, 2 usage or a caliber refusal, 3 a run failed preflight (the ab stops there),\n"
		"130 interrupted (128+N for signal N; the run directories and ab.json say what ran).\n\n"
		"Examples:\n"
		"  zlbench ab --backend cuda --op softmax --b-env TRITON_F32_DEFAULT=ieee -- --dtypes float32\n"
		"  zlbench ab --backend cuda --op prod --a-flaggems-dir ~/FlagGems --b-flaggems-dir ~/FlagGems-old --rounds 3\n"
		"  zlbench ab --backend cuda --op abs --markdown --fail-on-regression 3   # A/A: the noise\n",
};
