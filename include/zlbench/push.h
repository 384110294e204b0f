/*
 * Push: POST runs to a collector over HTTP(S) with libcurl, and a spool that
 * loses nothing.
 *
 * One JSON document per run directory:
 *     {"schema":"zlbench.push/1","identity":{run_identity.json},"results":{results.json}|null}
 * A batch directory (no run_identity.json of its own) is searched for run
 * directories, each posted as its own document, in name order; its warm-up
 * shards (warmup.role "shard") are skipped and counted. A shard directory
 * given by itself is pushed.
 *
 * A 2xx delivers; a 3xx or 4xx (but 408 and 429) is final and "rejected" with the
 * server's message; 5xx, 408, 429 and transport errors are retried with
 * exponential backoff, and when every retry fails the document is "spooled":
 * written atomically to $ZL_HOME/spool/<time>-<run>-<pid>-<hex>.jsonl as two
 * lines, {"schema":"zlbench.spool/1","url":URL} and the document as it was sent.
 * zl_push_flush() resends them and removes a file only after a 2xx.
 *
 * The files' JSON is embedded byte for byte (whitespace removed), not parsed and
 * re-printed, so that numbers reach the collector exactly as FlagGems wrote them;
 * only Python's non-standard NaN/Infinity become null (pyjson.h). A file that is
 * not exactly one JSON value (a NUL byte, text after the value) is not sent.
 *
 * The bearer token goes into the Authorization header only: it is never
 * printed, logged nor written to any file (spool files hold URL + payload).
 *
 * Modules (src/results/): push.c runs a push or a flush and keeps the report;
 * push_doc.h builds the documents, push_transport.h sends them (URLs, libcurl,
 * retries), push_spool.h keeps what could not be sent.
 */
#ifndef ZLBENCH_PUSH_H
#define ZLBENCH_PUSH_H

#include <stdio.h>
#include <stddef.h>
#include "strbuf.h"

#define ZL_PUSH_SCHEMA "zlbench.push/1"
#define ZL_SPOOL_SCHEMA "zlbench.spool/1"

/* Defaults, documented in docs/commands/push.md. */
#define ZL_PUSH_DEFAULT_CONNECT_TIMEOUT_MS 10000L
#define ZL_PUSH_DEFAULT_MAX_TIME_MS 60000L
#define ZL_PUSH_DEFAULT_RETRIES 3
#define ZL_PUSH_DEFAULT_BACKOFF_MS 500L
#define ZL_PUSH_DEFAULT_BACKOFF_BUDGET_MS 30000L
#define ZL_PUSH_MAX_RETRIES 100

/*
 * Settings of one push. The strings are borrowed: the caller keeps them alive
 * for the duration of the call. Nothing to release.
 */
struct zl_push_opts {
	const char *url;          /* target; for flush NULL means each file's recorded URL */
	const char *env_url;      /* ZL_PUSH_URL: flush sends a file whose stored URL lost its secrets
				     (push_spool.h) to it when it redacts to that same URL */
	const char *token;        /* bearer token or NULL: header only, never printed/stored */
	int insecure;             /* skip TLS verification (--insecure) */
	long connect_timeout_ms;
	long max_time_ms;         /* whole request, per attempt */
	int retries;              /* retries after the first attempt */
	long backoff_ms;          /* first wait; each next one doubles */
	long backoff_budget_ms;   /* all waits of one document together */
	const char *spool_dir;    /* NULL: $ZL_HOME/spool */
	int dry_run;              /* print the documents to out instead of sending */
	FILE *out;                /* "delivered" lines and --dry-run documents; NULL: silent */
};

/* Built-in defaults; reads no environment. */
void zl_push_opts_init(struct zl_push_opts *o);
/*
 * Apply the environment: ZL_PUSH_URL (o->env_url; o->url too when it is NULL), ZL_PUSH_TOKEN,
 * ZL_PUSH_BACKOFF_MS. Returns -1 when a value is invalid (message in err never
 * quotes the token).
 */
int zl_push_opts_from_env(struct zl_push_opts *o, struct strbuf *err);
/* Check the URL (http or https, parseable); -1 with a message otherwise. */
int zl_push_check_url(const char *url, struct strbuf *err);

enum zl_push_outcome {
	ZL_PUSH_DELIVERED,   /* 2xx (flush: and removed from the spool) */
	ZL_PUSH_SPOOLED,     /* every attempt failed; the payload is in the spool */
	ZL_PUSH_REJECTED,    /* the server refused it (3xx/4xx); flush leaves it in the spool */
	ZL_PUSH_FAILED,      /* not sent: unreadable run or spool file, or could not spool */
	ZL_PUSH_PRINTED      /* --dry-run */
};

struct zl_push_item {
	char *name;          /* run_id (or the directory / spool file name) */
	char *source;        /* run directory or spool file */
	char *url;           /* where it went (display form, without user:password) */
	enum zl_push_outcome outcome;
	long http_status;    /* last HTTP status; 0 when none came back */
	int attempts;
	char *detail;        /* rejected: server message; spooled: spool path + why; failed: why */
};

/* Outcome of one push or flush. Owner: the caller; zl_push_report_release() frees it. */
struct zl_push_report {
	struct zl_push_item *items;
	size_t nr, alloc;
	size_t delivered, spooled, rejected, failed, printed;
	size_t skipped;      /* batch warm-up shards (warmup.role "shard"), not pushed */
};
#define ZL_PUSH_REPORT_INIT { NULL, 0, 0, 0, 0, 0, 0, 0, 0 }
void zl_push_report_init(struct zl_push_report *r);
void zl_push_report_release(struct zl_push_report *r);
/* 1 when every document was delivered (or printed) and nothing failed. */
int zl_push_report_ok(const struct zl_push_report *r);

/*
 * Push a run directory or a batch directory. Returns -1 (message in err) only for
 * usage-level problems found before anything is sent: no URL, bad URL, dir is
 * neither a run nor a batch directory, a lone run whose files are not JSON.
 * Otherwise 0, and each document's outcome is in r (appended; r may hold earlier
 * items). Outcome lines: "delivered" to o->out, the others on stderr.
 */
int zl_push_dir(const char *dir, const struct zl_push_opts *o, struct zl_push_report *r,
		struct strbuf *err);

/*
 * Resend every spooled payload (oldest first) to o->url, or to its recorded URL
 * when o->url is NULL. Returns -1 when the spool cannot be read or another flush
 * holds its lock; otherwise 0 with the outcomes in r.
 */
int zl_push_flush(const struct zl_push_opts *o, struct zl_push_report *r, struct strbuf *err);

/* Print one line per spooled payload (file, run, URL) to out; *count gets their number. */
int zl_push_list_spool(const struct zl_push_opts *o, FILE *out, size_t *count, struct strbuf *err);
/* Number of payloads waiting in the spool (0 when it does not exist; -1 on error). */
long zl_push_spool_count(const struct zl_push_opts *o);

/*
 * For `run --push URL` and `batch --push URL`: push dir with the defaults and the
 * environment, outcome lines on stderr. Returns 0 when everything was delivered,
 * else -1 with a one-line summary in err (what was spooled where, or rejected).
 */
int zl_push_simple(const char *dir, const char *url, struct strbuf *err);

/*
 * What zl_push_simple() will refuse, checked before a run or batch starts: the URL and
 * the environment (a line break in ZL_PUSH_TOKEN). 0, or -1 with err (a usage error).
 */
int zl_push_check_settings(const char *url, struct strbuf *err);

#endif
