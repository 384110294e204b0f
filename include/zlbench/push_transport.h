/*
 * Push's transport: checking and showing collector URLs, and POSTing one document
 * with libcurl (bound at first use: src/results/curl_shim.c), retried with
 * backoff as push.h describes. The bearer token goes into a header only.
 */
#ifndef ZLBENCH_PUSH_TRANSPORT_H
#define ZLBENCH_PUSH_TRANSPORT_H

#include <stddef.h>
#include <curl/curl.h>

#include "push.h"
#include "strbuf.h"

/*
 * One libcurl handle set up for o (headers, timeouts, TLS, http(s) only), reused
 * for every document of a push or flush. Owner: the caller; zl_pusher_release().
 */
struct zl_pusher {
	const struct zl_push_opts *o;
	CURL *h;
	struct curl_slist *headers;
	struct strbuf response;
	char errbuf[CURL_ERROR_SIZE];
	int warned_cleartext;
	char *unusable;      /* why libcurl cannot send (push spools everything), or NULL */
};

/* 0, or -1 with err (libcurl missing or too old, an option refused); p is then released. */
int zl_pusher_init(struct zl_pusher *p, const struct zl_push_opts *o, struct strbuf *err);
void zl_pusher_release(struct zl_pusher *p);

enum zl_send_result { ZL_SEND_OK, ZL_SEND_REJECTED, ZL_SEND_FAILED };

struct zl_send_info {
	int attempts;
	long status;
	struct strbuf why;   /* the last failure, for people */
};

/*
 * POST body to url (shown: its display form), retrying with backoff. info->why
 * says why when not ZL_SEND_OK. REJECTED: the server refused it (final); FAILED:
 * every attempt failed (spool it).
 */
enum zl_send_result zl_push_send(struct zl_pusher *p, const char *url, const char *shown,
				 const char *body, struct zl_send_info *info,
				 struct strbuf *err);

/* The URL as shown or stored (redact.h: its password and secret query values as ***). Caller frees. */
char *zl_push_display_url(const char *url);
/*
 * The wait before retry number retry (0 = the first retry): backoff_ms * 2^retry,
 * with "equal jitter" (half fixed, half from rnd), cut to what is left of the budget.
 */
long zl_push_backoff_wait_ms(long backoff_ms, int retry, long spent_ms, long budget_ms,
			     unsigned rnd);
/* 1 when an HTTP status is worth retrying (5xx, 408, 429). */
int zl_push_status_retryable(long status);
/*
 * The server's message from a response body: a JSON "message" or "error" field
 * (or error.message), else the first non-blank line; control characters become
 * '?' and it is cut to 300 bytes. Empty when the body says nothing.
 */
void zl_push_server_message(const char *body, size_t len, struct strbuf *out);

#endif
