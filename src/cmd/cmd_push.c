/* zlbench push: POST run or batch directories to a collector; --flush-spool resends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/options.h"
#include "zlbench/push.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

struct push_args {
	const char *url;
	const char *connect_timeout;
	const char *max_time;
	const char *retries;
	int insecure;
	int flush;
	int list;
	int dry_run;
};

static struct push_args args;
static enum zl_source url_source;

static const struct zl_option push_options[] = {
	{ .type = ZL_OPT_STRING, .long_name = "url", .value = &args.url, .argh = "URL",
	  .help = "collector endpoint (http or https)", .env = "ZL_PUSH_URL", .source = &url_source },
	{ .type = ZL_OPT_FLAG, .long_name = "flush-spool", .value = &args.flush, .defval = 1,
	  .help = "resend every spooled payload (to its recorded URL unless --url)" },
	{ .type = ZL_OPT_FLAG, .long_name = "list-spool", .value = &args.list, .defval = 1,
	  .help = "list the spooled payloads and exit" },
	{ .type = ZL_OPT_FLAG, .long_name = "dry-run", .value = &args.dry_run, .defval = 1,
	  .help = "print the documents (one JSON per line) instead of sending them" },
	{ .type = ZL_OPT_GROUP, .help = "Connection:" },
	{ .type = ZL_OPT_STRING, .long_name = "connect-timeout", .value = &args.connect_timeout, .argh = "SECONDS",
	  .help = "give up connecting after SECONDS (default 10)" },
	{ .type = ZL_OPT_STRING, .long_name = "max-time", .value = &args.max_time, .argh = "SECONDS",
	  .help = "give up one request after SECONDS (default 60)" },
	{ .type = ZL_OPT_STRING, .long_name = "retries", .value = &args.retries, .argh = "N",
	  .help = "retries after a connection error or 5xx (default 3)" },
	{ .type = ZL_OPT_FLAG, .long_name = "insecure", .value = &args.insecure, .defval = 1,
	  .help = "do not verify the server's TLS certificate" },
	ZL_OPT_END_ROW
};

/* SECONDS (may be fractional) into milliseconds, 1 ms .. 1 day. */
static int parse_seconds_ms(const char *opt, const char *s, long *ms, struct strbuf *err)
{
	double v;

	if (!s)
		return 0;
	if (zl_parse_double(s, &v) || v <= 0 || v > 86400)
		return zl_error(err, "invalid --%s '%s': expected seconds in (0, 86400]", opt, s);
	*ms = (long)(v * 1000.0 + 0.5);
	if (*ms < 1)
		*ms = 1;
	return 0;
}

static int apply_args(struct zl_push_opts *o, struct strbuf *err)
{
	long n;

	if (args.url)
		o->url = args.url;
	if (zl_push_opts_from_env(o, err) ||
	    parse_seconds_ms("connect-timeout", args.connect_timeout, &o->connect_timeout_ms, err) ||
	    parse_seconds_ms("max-time", args.max_time, &o->max_time_ms, err))
		return -1;
	/* ZL_PUSH_URL is where new runs go; spooled payloads keep their own URL. */
	if (args.flush)
		o->url = url_source == ZL_SRC_FLAG ? args.url : NULL;
	if (args.retries) {
		if (zl_parse_long(args.retries, &n) || n < 0 || n > ZL_PUSH_MAX_RETRIES)
			return zl_error(err, "invalid --retries '%s': expected 0..%d", args.retries,
					ZL_PUSH_MAX_RETRIES);
		o->retries = (int)n;
	}
	o->insecure = args.insecure;
	o->dry_run = args.dry_run;
	o->out = stdout;
	return 0;
}

static int exit_for(const struct zl_push_report *r)
{
	return zl_push_report_ok(r) ? ZL_EXIT_OK : ZL_EXIT_FAILED;
}

static int do_list(const struct zl_push_opts *o)
{
	struct strbuf err = STRBUF_INIT;
	size_t count;

	if (zl_push_list_spool(o, stdout, &count, &err)) {
		zl_print_error("%s", err.buf);
		strbuf_release(&err);
		return ZL_EXIT_FAILED;
	}
	if (!count && zl_verbosity >= 0)
		printf("the spool is empty\n");
	strbuf_release(&err);
	return ZL_EXIT_OK;
}

static int do_flush(const struct zl_push_opts *o)
{
	struct zl_push_report r = ZL_PUSH_REPORT_INIT;
	struct strbuf err = STRBUF_INIT;
	int rc;

	if (o->url && zl_push_check_url(o->url, &err)) {
		zl_print_error("%s", err.buf);
		strbuf_release(&err);
		return ZL_EXIT_USAGE;
	}
	if (zl_push_flush(o, &r, &err)) {
		zl_print_error("%s", err.buf);
		rc = ZL_EXIT_FAILED;
	} else {
		if (zl_verbosity >= 0) {
			if (!r.nr)
				printf("the spool is empty\n");
			else
				printf("flushed the spool: %zu delivered, %zu still spooled, %zu rejected, %zu unreadable\n",
				       r.delivered, r.spooled, r.rejected, r.failed);
		}
		rc = exit_for(&r);
	}
	zl_push_report_release(&r);
	strbuf_release(&err);
	return rc;
}

static int do_push(const struct zl_push_opts *o, const struct strvec *dirs)
{
	struct zl_push_report r = ZL_PUSH_REPORT_INIT;
	struct strbuf err = STRBUF_INIT;
	int usage = 0, rc;
	long waiting;
	size_t i;

	/* Everything that makes the whole command pointless is checked before sending. */
	if (!o->dry_run && zl_push_check_url(o->url, &err)) {
		zl_print_error("%s", err.buf);
		strbuf_release(&err);
		return ZL_EXIT_USAGE;
	}
	for (i = 0; i < dirs->nr; i++) {
		if (!zl_is_dir(dirs->v[i])) {
			zl_print_error("'%s' is not a directory (expected a run or batch directory)",
				       dirs->v[i]);
			strbuf_release(&err);
			return ZL_EXIT_USAGE;
		}
	}
	for (i = 0; i < dirs->nr; i++) {
		if (zl_push_dir(dirs->v[i], o, &r, &err)) {
			zl_print_error("%s", err.buf);
			usage = 1;
		}
	}
	if (!o->dry_run && (r.nr > 1 || r.skipped) && zl_verbosity >= 0) {
		printf("pushed %zu runs: %zu delivered, %zu spooled, %zu rejected, %zu failed",
		       r.nr, r.delivered, r.spooled, r.rejected, r.failed);
		if (r.skipped)
			printf("; %zu warm-up shard%s skipped", r.skipped, r.skipped == 1 ? "" : "s");
		putchar('\n');
	}
	waiting = o->dry_run ? 0 : zl_push_spool_count(o);
	if (waiting > (long)r.spooled && zl_verbosity >= 0)
		fprintf(stderr, "zlbench: %ld earlier payload(s) wait in the spool; "
			"'zlbench push --flush-spool' resends them\n", waiting - (long)r.spooled);
	rc = usage ? ZL_EXIT_USAGE : exit_for(&r);
	zl_push_report_release(&r);
	strbuf_release(&err);
	return rc;
}

static int cmd_push(struct zl_cmd_ctx *ctx)
{
	const struct strvec *dirs = &ctx->args;
	struct strbuf err = STRBUF_INIT;
	struct zl_push_opts o;
	int rc;

	zl_push_opts_init(&o);
	if (apply_args(&o, &err)) {
		zl_print_error("%s", err.buf);
		rc = ZL_EXIT_USAGE;
		goto out;
	}
	if (args.flush + args.list + (dirs->nr > 0) > 1 || (args.dry_run && (args.flush || args.list))) {
		zl_print_error("give directories, --flush-spool or --list-spool, one at a time (see --help)");
		rc = ZL_EXIT_USAGE;
		goto out;
	}
	if (args.list)
		rc = do_list(&o);
	else if (args.flush)
		rc = do_flush(&o);
	else if (dirs->nr)
		rc = do_push(&o, dirs);
	else {
		zl_print_error("nothing to push: give a run or batch directory (see --help)");
		rc = ZL_EXIT_USAGE;
	}
out:
	strbuf_release(&err);
	return rc;
}

const struct zl_command zl_cmd_push = {
	.name = "push",
	.fn = cmd_push,
	.flags = ZL_CMD_OPERANDS,
	.options = push_options,
	.summary = "POST a run or batch to a collector (spools on failure)",
	.usage = "[<options>] RUN_DIR|BATCH_DIR...\n"
		 "   or: zlbench push --flush-spool [--url URL]\n"
		 "   or: zlbench push --list-spool",
	.description =
		"POSTs each run as one JSON document\n"
		"  {\"schema\":\"" ZL_PUSH_SCHEMA "\",\"identity\":{run_identity.json},\"results\":{results.json}|null}\n"
		"A batch directory is searched for run directories; each run is its own document.\n"
		"Connection errors, 5xx, 408 and 429 are retried with exponential backoff; when every\n"
		"retry fails the payload is saved in $ZL_HOME/spool/ and --flush-spool resends it\n"
		"(it leaves the spool only after a 2xx). Other 3xx/4xx replies are final.\n",
	.notes =
		"Environment:\n"
		"  ZL_PUSH_URL          collector URL when --url is not given\n"
		"  ZL_PUSH_TOKEN        bearer token for the Authorization header (never printed or stored)\n"
		"  ZL_PUSH_BACKOFF_MS   first retry wait in ms, doubled each retry (default 500; tests use 1)\n"
		"  ZL_HOME              data directory; the spool is $ZL_HOME/spool\n"
		"  ZL_CURL_LIB          for tests: load this file as libcurl (a missing one: no libcurl)\n"
		"\nlibcurl 7.19.4 or newer is loaded when sending; without a usable one every\n"
		"document is spooled.\n"
		"\nExit status:\n"
		"  0  every document delivered (or printed by --dry-run; or the spool was empty)\n"
		"  1  something was spooled, rejected by the server, or could not be read or spooled\n"
		"  2  usage: no URL, bad URL, not a run or batch directory, bad option\n"
		"\nExamples:\n"
		"  ZL_PUSH_TOKEN=... zlbench push runs/20260101-120000-musa-mm-a1b2c3 --url https://perf.example/api/runs\n"
		"  zlbench push --flush-spool\n",
};
