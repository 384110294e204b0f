/*
 * Push (include/zlbench/push.h): what a push or a flush does with each document,
 * and its report. The document is push_doc.c's, the sending push_transport.c's,
 * the spool push_spool.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "zlbench/env.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/push.h"
#include "zlbench/push_doc.h"
#include "zlbench/push_spool.h"
#include "zlbench/push_transport.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

void zl_push_opts_init(struct zl_push_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->connect_timeout_ms = ZL_PUSH_DEFAULT_CONNECT_TIMEOUT_MS;
	o->max_time_ms = ZL_PUSH_DEFAULT_MAX_TIME_MS;
	o->retries = ZL_PUSH_DEFAULT_RETRIES;
	o->backoff_ms = ZL_PUSH_DEFAULT_BACKOFF_MS;
	o->backoff_budget_ms = ZL_PUSH_DEFAULT_BACKOFF_BUDGET_MS;
}

int zl_push_opts_from_env(struct zl_push_opts *o, struct strbuf *err)
{
	const char *v;

	v = zl_env(ZL_ENV_PUSH_URL);
	if (v)
		o->env_url = v;
	if (!o->url && v)
		o->url = v;
	v = zl_env(ZL_ENV_PUSH_TOKEN);
	if (v) {
		/* A line break would smuggle extra headers into the request. */
		if (strpbrk(v, "\r\n"))
			return zl_error(err, "ZL_PUSH_TOKEN contains a line break (value not shown)");
		o->token = v;
	}
	v = zl_env(ZL_ENV_PUSH_BACKOFF_MS);
	if (v) {
		long ms;
		if (zl_parse_long(v, &ms) || ms < 0 || ms > 60000)
			return zl_error(err, "invalid ZL_PUSH_BACKOFF_MS '%s': expected 0..60000 milliseconds", v);
		o->backoff_ms = ms;
	}
	return 0;
}

void zl_push_report_init(struct zl_push_report *r)
{
	memset(r, 0, sizeof(*r));
}

void zl_push_report_release(struct zl_push_report *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++) {
		free(r->items[i].name);
		free(r->items[i].source);
		free(r->items[i].url);
		free(r->items[i].detail);
	}
	free(r->items);
	zl_push_report_init(r);
}

int zl_push_report_ok(const struct zl_push_report *r)
{
	return !r->spooled && !r->rejected && !r->failed;
}

static struct zl_push_item *report_add(struct zl_push_report *r, const char *name,
				       const char *source)
{
	struct zl_push_item *it;

	ALLOC_GROW(r->items, r->nr + 1, r->alloc);
	it = &r->items[r->nr++];
	memset(it, 0, sizeof(*it));
	it->name = xstrdup(name);
	it->source = xstrdup(source);
	return it;
}

/* Record the outcome, count it, and say it: delivered to o->out, the rest on stderr. */
static void report_finish(struct zl_push_report *r, struct zl_push_item *it,
			  const struct zl_push_opts *o, enum zl_push_outcome outcome, char *detail)
{
	it->outcome = outcome;
	it->detail = detail;
	switch (outcome) {
	case ZL_PUSH_DELIVERED:
		r->delivered++;
		if (o->out && zl_verbosity >= 0)
			fprintf(o->out, "%s\n", detail);
		break;
	case ZL_PUSH_SPOOLED:
		r->spooled++;
		zl_print_error("%s", detail);
		break;
	case ZL_PUSH_REJECTED:
		r->rejected++;
		zl_print_error("%s", detail);
		break;
	case ZL_PUSH_FAILED:
		r->failed++;
		zl_print_error("%s", detail);
		break;
	case ZL_PUSH_PRINTED:
		r->printed++;
		break;
	}
}

/* Send one document; spool it when every attempt failed. */
static void push_one(struct zl_pusher *p, const char *name, const char *source, const char *doc,
		     struct zl_push_report *r)
{
	const struct zl_push_opts *o = p->o;
	struct zl_push_item *it = report_add(r, name, source);
	struct zl_send_info info = { 0, 0, STRBUF_INIT };
	struct strbuf err = STRBUF_INIT;
	enum zl_send_result res;
	char *spooled = NULL;

	it->url = zl_push_display_url(o->url);
	if (p->unusable) {
		/* nothing can be sent without libcurl: keep the payload for a later flush */
		res = ZL_SEND_FAILED;
		strbuf_addf(&info.why, "libcurl is unusable: %s", p->unusable);
	} else {
		res = zl_push_send(p, o->url, it->url, doc, &info, &err);
	}
	it->http_status = info.status;
	it->attempts = info.attempts;
	if (res == ZL_SEND_OK) {
		report_finish(r, it, o, ZL_PUSH_DELIVERED,
			      xstrfmt("delivered %s to %s (HTTP %ld, %d attempt%s)", name, it->url,
				      info.status, info.attempts, info.attempts == 1 ? "" : "s"));
	} else if (res == ZL_SEND_REJECTED) {
		report_finish(r, it, o, ZL_PUSH_REJECTED,
			      xstrfmt("%s rejected %s: %s (not retried, not spooled)", it->url, name,
				      info.why.buf));
	} else if (zl_spool_write(o, o->url, name, doc, &spooled, &err)) {
		report_finish(r, it, o, ZL_PUSH_FAILED,
			      xstrfmt("could not push %s to %s: %s; and could not spool it: %s "
				      "(the run directory '%s' still holds it)",
				      name, it->url, info.why.buf, err.buf, source));
	} else if (!info.attempts) {
		report_finish(r, it, o, ZL_PUSH_SPOOLED,
			      xstrfmt("could not push %s to %s: %s; spooled to '%s' (resend with "
				      "'zlbench push --flush-spool' where libcurl works)",
				      name, it->url, info.why.buf, spooled));
	} else {
		report_finish(r, it, o, ZL_PUSH_SPOOLED,
			      xstrfmt("could not push %s to %s after %d attempt%s: %s; spooled to '%s' "
				      "(resend with 'zlbench push --flush-spool')",
				      name, it->url, info.attempts, info.attempts == 1 ? "" : "s",
				      info.why.buf, spooled));
	}
	free(spooled);
	strbuf_release(&info.why);
	strbuf_release(&err);
}

static void print_document(const struct zl_push_opts *o, const char *doc, struct zl_push_report *r,
			   const char *name, const char *source)
{
	struct zl_push_item *it = report_add(r, name, source);

	if (o->out)
		fprintf(o->out, "%s\n", doc);
	report_finish(r, it, o, ZL_PUSH_PRINTED, xstrdup("printed"));
}

/*
 * The runs to push from dir: dir itself when it is a run (*lone set), else the
 * runs of the batch below it, its warm-up shards skipped, counted and said.
 */
static int collect_runs(const char *dir, struct zl_push_report *r, struct strvec *runs, int *lone,
			struct strbuf *err)
{
	size_t skipped = 0;

	*lone = zl_push_has_identity(dir);
	if (*lone) {
		strvec_push(runs, dir);
		return 0;
	}
	if (zl_push_find_runs(dir, 1, runs, &skipped, err))
		return -1;
	if (!runs->nr && !skipped)
		return zl_error(err, "'%s' is neither a run directory nor a batch directory "
				"(no run_identity.json in it or below it)", dir);
	r->skipped += skipped;
	if (skipped && zl_verbosity >= 0)
		fprintf(stderr, "zlbench: %s: skipped %zu warm-up shard run%s (warmup.role "
			"\"shard\": each op's timed run holds its figures)\n", dir, skipped,
			skipped == 1 ? "" : "s");
	return 0;
}

/*
 * Build one run's document and push it (print it on a dry run). A document that
 * cannot be built is a failed item; for a lone run it is the error instead.
 */
static int push_run(struct zl_pusher *p, const struct zl_push_opts *o, const char *run, int lone,
		    struct zl_push_report *r, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	char *doc, *name;

	if (zl_push_build_document(run, &doc, &name, &why)) {
		if (lone) {
			strbuf_reset(err);
			strbuf_addbuf(err, &why);
			strbuf_release(&why);
			return -1;
		}
		report_finish(r, report_add(r, run, run), o, ZL_PUSH_FAILED, strbuf_detach(&why, NULL));
		return 0;
	}
	if (o->dry_run)
		print_document(o, doc, r, name, run);
	else
		push_one(p, name, run, doc, r);
	free(doc);
	free(name);
	strbuf_release(&why);
	return 0;
}

int zl_push_dir(const char *dir, const struct zl_push_opts *o, struct zl_push_report *r,
		struct strbuf *err)
{
	struct strvec runs = STRVEC_INIT;
	struct zl_pusher p;
	int lone, rc = -1;
	size_t i;

	memset(&p, 0, sizeof(p));
	if (!o->dry_run && zl_push_check_url(o->url, err))
		return -1;
	if (!zl_is_dir(dir))
		return zl_error(err, "'%s' is not a directory (expected a run or batch directory)", dir);
	if (collect_runs(dir, r, &runs, &lone, err))
		goto out;
	if (!o->dry_run && zl_pusher_init(&p, o, err)) {
		/* a machine without a usable libcurl still loses nothing: spool, say why */
		p.unusable = strbuf_detach(err, NULL);
		p.o = o;
	}
	for (i = 0; i < runs.nr; i++)
		if (push_run(&p, o, runs.v[i], lone, r, err))
			goto out;
	rc = 0;
out:
	zl_pusher_release(&p);
	strvec_clear(&runs);
	return rc;
}

/* Report a resent spool file's outcome (it->source: its path); a delivered file leaves the spool. */
static void report_resend(struct zl_push_report *r, struct zl_push_item *it, const struct zl_push_opts *o,
			  enum zl_send_result res, const struct zl_send_info *info)
{
	const char *path = it->source;

	if (res == ZL_SEND_OK) {
		if (unlink(path) && errno != ENOENT)
			report_finish(r, it, o, ZL_PUSH_FAILED,
				      xstrfmt("delivered %s to %s, but cannot remove '%s' from the spool: %s "
					      "(remove it by hand, or it will be sent again)",
					      it->name, it->url, path, strerror(errno)));
		else
			report_finish(r, it, o, ZL_PUSH_DELIVERED,
				      xstrfmt("delivered %s to %s (HTTP %ld, %d attempt%s); removed '%s'",
					      it->name, it->url, info->status, info->attempts,
					      info->attempts == 1 ? "" : "s", path));
	} else if (res == ZL_SEND_REJECTED) {
		report_finish(r, it, o, ZL_PUSH_REJECTED,
			      xstrfmt("%s rejected %s: %s; left in the spool at '%s' "
				      "(delete it, or resend it elsewhere with --url)",
				      it->url, it->name, info->why.buf, path));
	} else {
		report_finish(r, it, o, ZL_PUSH_SPOOLED,
			      xstrfmt("could not resend %s to %s after %d attempt%s: %s; it stays in the spool at '%s'",
				      it->name, it->url, info->attempts, info->attempts == 1 ? "" : "s",
				      info->why.buf, path));
	}
}

/*
 * Resend one spool file. A URL that did not answer at all (no HTTP reply after
 * every retry) goes into down; later files for a URL in down are not tried, so a
 * flush against a collector that is down costs one retry schedule, not one per
 * file. Returns 1 when the file was left untried for that reason.
 */
static int flush_one(struct zl_pusher *p, const char *path, struct strvec *down,
		     struct zl_push_report *r)
{
	const struct zl_push_opts *o = p->o;
	struct zl_send_info info = { 0, 0, STRBUF_INIT };
	struct strbuf err = STRBUF_INIT;
	struct zl_spooled s;
	struct zl_push_item *it;
	enum zl_send_result res;
	const char *url;
	int untried = 0;

	if (zl_spool_read(path, &s, &err)) {
		it = report_add(r, path, path);
		report_finish(r, it, o, ZL_PUSH_FAILED,
			      xstrfmt("%s; left in the spool", err.buf));
		strbuf_release(&err);
		return 0;
	}
	url = o->url ? o->url : s.url;
	it = report_add(r, s.name, path);
	it->url = zl_push_display_url(url);
	if (!o->url && s.url_redacted) {
		/* its secrets were not stored: ZL_PUSH_URL holds them when it is the same URL */
		char *env_shown = o->env_url ? zl_push_display_url(o->env_url) : NULL;
		int same = env_shown && !strcmp(env_shown, s.url);

		free(env_shown);
		if (!same) {
			report_finish(r, it, o, ZL_PUSH_FAILED,
				      xstrfmt("spool file '%s' was for %s, whose credentials are not stored; give "
					      "that URL again with --url or ZL_PUSH_URL to resend it; left in the spool",
					      path, it->url));
			goto out;
		}
		url = o->env_url;
	}
	if (!o->url && zl_push_check_url(url, &err)) {
		report_finish(r, it, o, ZL_PUSH_FAILED,
			      xstrfmt("spool file '%s': %s; give --url to send it elsewhere", path, err.buf));
		goto out;
	}
	if (strvec_find(down, url) >= 0) {
		/* counted as still spooled; the caller says so once for all of them */
		it->outcome = ZL_PUSH_SPOOLED;
		it->detail = xstrfmt("not tried: %s did not answer earlier in this flush; it stays in "
				     "the spool at '%s'", it->url, path);
		r->spooled++;
		untried = 1;
		goto out;
	}
	res = zl_push_send(p, url, it->url, s.body, &info, &err);
	if (res == ZL_SEND_FAILED && !info.status)
		strvec_push(down, url);
	it->http_status = info.status;
	it->attempts = info.attempts;
	report_resend(r, it, o, res, &info);
out:
	zl_spooled_release(&s);
	strbuf_release(&info.why);
	strbuf_release(&err);
	return untried;
}

/*
 * Lock the spool against a second flush, which would deliver the same payload
 * twice: the lock's descriptor, or -1 with err set.
 */
static int lock_spool(const char *dir, struct strbuf *err)
{
	char *lock_path = zl_path_join(dir, ".lock");
	int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (lock < 0) {
		zl_error(err, "cannot open spool lock '%s': %s", lock_path, strerror(errno));
	} else if (flock(lock, LOCK_EX | LOCK_NB)) {
		if (errno == EWOULDBLOCK)
			zl_error(err, "another 'zlbench push --flush-spool' holds '%s'; try again later",
				 lock_path);
		else
			zl_error(err, "cannot lock '%s': %s", lock_path, strerror(errno));
		close(lock);
		lock = -1;
	}
	free(lock_path);
	return lock;
}

/* err held why the pusher could not start; it now says so and that the spool's payloads stay. */
static void spool_stays(struct strbuf *err, size_t files, const char *dir)
{
	struct strbuf why = STRBUF_INIT;

	strbuf_addbuf(&why, err);
	zl_error(err, "cannot resend the spool: %s; its %zu payload%s stay in '%s'", why.buf, files,
		 files == 1 ? "" : "s", dir);
	strbuf_release(&why);
}

int zl_push_flush(const struct zl_push_opts *o, struct zl_push_report *r, struct strbuf *err)
{
	struct strvec files = STRVEC_INIT, down = STRVEC_INIT;
	struct zl_pusher p;
	char *dir = zl_spool_path(o);
	int lock = -1, rc = -1;
	size_t i, untried = 0;

	memset(&p, 0, sizeof(p));
	if (!dir)
		return zl_error(err, "cannot locate the spool: set ZL_HOME or HOME");
	if (o->url && zl_push_check_url(o->url, err))
		goto out;
	if (!zl_is_dir(dir)) {
		rc = 0;
		goto out;
	}
	lock = lock_spool(dir, err);
	if (lock < 0 || zl_spool_files(dir, &files, err))
		goto out;
	if (files.nr && zl_pusher_init(&p, o, err)) {
		spool_stays(err, files.nr, dir);
		goto out;
	}
	for (i = 0; i < files.nr; i++)
		untried += flush_one(&p, files.v[i], &down, r);
	if (untried)
		zl_print_error("%zu more spooled payload%s not tried: %s collector did not answer earlier "
			       "in this flush; %s in the spool for the next --flush-spool", untried,
			       untried == 1 ? "" : "s", untried == 1 ? "its" : "their",
			       untried == 1 ? "it stays" : "they stay");
	rc = 0;
out:
	zl_pusher_release(&p);
	if (lock >= 0)
		close(lock);
	strvec_clear(&files);
	strvec_clear(&down);
	free(dir);
	return rc;
}

int zl_push_check_settings(const char *url, struct strbuf *err)
{
	struct zl_push_opts o;

	zl_push_opts_init(&o);
	o.url = url;
	return zl_push_opts_from_env(&o, err) || zl_push_check_url(o.url, err) ? -1 : 0;
}

int zl_push_simple(const char *dir, const char *url, struct strbuf *err)
{
	struct zl_push_opts o;
	struct zl_push_report r = ZL_PUSH_REPORT_INIT;
	int rc;

	zl_push_opts_init(&o);
	o.url = url;
	o.out = stderr;
	if (zl_push_opts_from_env(&o, err) || zl_push_dir(dir, &o, &r, err)) {
		zl_push_report_release(&r);
		return -1;
	}
	rc = zl_push_report_ok(&r) ? 0 : -1;
	if (rc) {
		char *shown = zl_push_display_url(o.url);
		zl_error(err, "push to '%s': %zu delivered, %zu spooled, %zu rejected, %zu failed",
			 shown, r.delivered, r.spooled, r.rejected, r.failed);
		free(shown);
	}
	zl_push_report_release(&r);
	return rc;
}
