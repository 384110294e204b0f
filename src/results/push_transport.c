/*
 * Push's transport: URLs, and POSTing one document with libcurl (bound at first
 * use, src/results/curl_shim.c) with retries and backoff.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "zlbench/error.h"
#include "zlbench/push.h"
#include "zlbench/push_transport.h"
#include "zlbench/redact.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

/* A collector's reply is only read for its message: keep a bounded prefix. */
#define RESPONSE_CAP (64 * 1024)
#define MESSAGE_CAP 300

static int curl_ready;

static int global_init(struct strbuf *err)
{
	CURLcode c;

	if (curl_ready)
		return 0;
	c = curl_global_init(CURL_GLOBAL_DEFAULT);
	if (c != CURLE_OK)
		return zl_error(err, "cannot initialise libcurl: %s", curl_easy_strerror(c));
	curl_ready = 1;
	if (atexit(curl_global_cleanup))
		zl_print_warning("cannot register libcurl clean-up at exit");
	return 0;
}

static int setopt_ok(CURLcode c, const char *name, struct strbuf *err)
{
	if (c == CURLE_OK)
		return 0;
	return zl_error(err, "cannot set libcurl option %s: %s", name, curl_easy_strerror(c));
}
/* Every curl_easy_setopt is checked; the option's name goes into the message. */
#define SETOPT(h, opt, val, err) setopt_ok(curl_easy_setopt((h), (opt), (val)), #opt, (err))

/* One redaction rule for every URL zlbench shows or stores (redact.h). */
char *zl_push_display_url(const char *url)
{
	return zl_redact_url_credentials(url);
}

/*
 * Split an http(s) URL by hand: libcurl may be missing or too old, and a URL must
 * be checked (and a payload spooled under it) all the same. *https says which
 * scheme; host gets the host (an IPv6 address with its brackets). 0, or -1 with
 * why (not naming the URL) filled.
 */
static int split_url(const char *url, int *https, struct strbuf *host, struct strbuf *why)
{
	const char *p, *auth, *end, *at, *h, *port;

	for (p = url; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return zl_error(why, "it contains a space or a control character");
	p = strstr(url, "://");
	if (!p)
		return zl_error(why, "no scheme: expected http:// or https://");
	if ((size_t)(p - url) == 4 && !strncasecmp(url, "http", 4))
		*https = 0;
	else if ((size_t)(p - url) == 5 && !strncasecmp(url, "https", 5))
		*https = 1;
	else
		return zl_error(why, "only http:// and https:// are supported");
	auth = p + 3;
	end = auth + strcspn(auth, "/?#");
	/* the password may hold '@': the host follows the last one */
	for (at = NULL, h = auth; h < end; h++)
		if (*h == '@')
			at = h;
	h = at ? at + 1 : auth;
	if (*h == '[') {
		const char *close = memchr(h, ']', (size_t)(end - h));

		if (!close || close - h < 3)
			return zl_error(why, "an IPv6 host without its closing ']'");
		if (strspn(h + 1, "0123456789abcdefABCDEF:.") != (size_t)(close - h - 1))
			return zl_error(why, "a bracketed host that is not an IPv6 address");
		port = close + 1;
		if (port < end && *port != ':')
			return zl_error(why, "text after the IPv6 host's ']'");
	} else {
		port = memchr(h, ':', (size_t)(end - h));
		if (!port)
			port = end;
	}
	strbuf_reset(host);
	strbuf_add(host, h, (size_t)(port - h));
	if (!host->len)
		return zl_error(why, "no host");
	if (*h != '[' && strcspn(host->buf, "<>\"{}|\\^`[]") != host->len)
		return zl_error(why, "the host '%s' holds a character that no host name has", host->buf);
	if (port < end) {
		size_t digits = strspn(port + 1, "0123456789");
		if (port + 1 + digits != end || digits > 5 || (digits && atol(port + 1) > 65535) ||
		    (digits && !atol(port + 1)))
			return zl_error(why, "the port is not a number from 1 to 65535");
	}
	return 0;
}

int zl_push_check_url(const char *url, struct strbuf *err)
{
	struct strbuf host = STRBUF_INIT, why = STRBUF_INIT;
	int https, rc = 0;

	if (!url || !*url)
		return zl_error(err, "no collector URL: give --url URL or set ZL_PUSH_URL");
	if (split_url(url, &https, &host, &why)) {
		char *shown = zl_redact_url_credentials(url);
		rc = zl_error(err, "invalid push URL '%s': %s", shown, why.buf);
		free(shown);
	}
	strbuf_release(&host);
	strbuf_release(&why);
	return rc;
}

/* 1 when the URL is plain http to a host other than this machine. */
static int cleartext_remote(const char *url)
{
	static const char *const loopback[] = { "localhost", "[::1]" };
	struct strbuf host = STRBUF_INIT, why = STRBUF_INIT;
	int https, remote = 0;
	size_t i;

	if (!split_url(url, &https, &host, &why) && !https) {
		remote = !zl_starts_with(host.buf, "127.");
		for (i = 0; i < ZL_ARRAY_SIZE(loopback); i++)
			if (zl_strcaseeq(host.buf, loopback[i]))
				remote = 0;
	}
	strbuf_release(&host);
	strbuf_release(&why);
	return remote;
}

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct strbuf *sb = userdata;
	size_t n = size * nmemb;

	if (sb->len < RESPONSE_CAP)
		strbuf_add(sb, ptr, n < RESPONSE_CAP - sb->len ? n : RESPONSE_CAP - sb->len);
	return n;
}

static void wipe(struct strbuf *sb)
{
	if (sb->alloc)
		explicit_bzero(sb->buf, sb->alloc);
	strbuf_release(sb);
}

static int add_header(struct zl_pusher *p, const char *line, struct strbuf *err)
{
	struct curl_slist *n = curl_slist_append(p->headers, line);

	if (!n)
		return zl_error(err, "out of memory adding an HTTP header");
	p->headers = n;
	return 0;
}

void zl_pusher_release(struct zl_pusher *p)
{
	if (p->h)
		curl_easy_cleanup(p->h);
	curl_slist_free_all(p->headers);
	strbuf_release(&p->response);
	free(p->unusable);
	p->h = NULL;
	p->headers = NULL;
	p->unusable = NULL;
}

/* The oldest libcurl that push works with: CURLOPT_PROTOCOLS came in 7.19.4. */
#define CURL_MIN_VERSION_NUM 0x071304
#define CURL_MIN_VERSION "7.19.4"

static int curl_new_enough(struct strbuf *err)
{
	const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);

	if (!v)
		return zl_error(err, "libcurl could not be loaded");
	if (v->version_num < CURL_MIN_VERSION_NUM)
		return zl_error(err, "libcurl %s is too old (push needs %s or newer)",
				v->version ? v->version : "?", CURL_MIN_VERSION);
	return 0;
}

/*
 * Only http and https, never a redirect elsewhere: CURLOPT_PROTOCOLS_STR from
 * libcurl 7.85, the bitmask CURLOPT_PROTOCOLS (deprecated since) before it.
 */
static int only_http(CURL *h, struct strbuf *err)
{
	CURLcode c = curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");

	if (c == CURLE_UNKNOWN_OPTION || c == CURLE_NOT_BUILT_IN) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
		c = curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#pragma GCC diagnostic pop
		return setopt_ok(c, "CURLOPT_PROTOCOLS", err);
	}
	return setopt_ok(c, "CURLOPT_PROTOCOLS_STR", err);
}

int zl_pusher_init(struct zl_pusher *p, const struct zl_push_opts *o, struct strbuf *err)
{
	static const char *const fixed_headers[] = {
		"Content-Type: application/json",
		"Accept: application/json",
		/* Without this, curl waits for "100 Continue" before sending larger bodies. */
		"Expect:",
	};
	long verify = o->insecure ? 0L : 1L;
	size_t i;

	memset(p, 0, sizeof(*p));
	p->o = o;
	strbuf_init(&p->response, 0);
	if (global_init(err) || curl_new_enough(err))
		return -1;
	p->h = curl_easy_init();
	if (!p->h)
		return zl_error(err, "cannot create a libcurl handle");
	for (i = 0; i < ZL_ARRAY_SIZE(fixed_headers); i++)
		if (add_header(p, fixed_headers[i], err))
			goto fail;
	if (o->token) {
		struct strbuf auth = STRBUF_INIT;
		int rc;

		strbuf_addf(&auth, "Authorization: Bearer %s", o->token);
		rc = add_header(p, auth.buf, err);
		wipe(&auth);
		if (rc)
			goto fail;
	}
	/* CURLOPT_VERBOSE stays off: its trace would print the Authorization header. */
	if (SETOPT(p->h, CURLOPT_HTTPHEADER, p->headers, err) ||
	    SETOPT(p->h, CURLOPT_POST, 1L, err) ||
	    SETOPT(p->h, CURLOPT_WRITEFUNCTION, on_body, err) ||
	    SETOPT(p->h, CURLOPT_WRITEDATA, &p->response, err) ||
	    SETOPT(p->h, CURLOPT_ERRORBUFFER, p->errbuf, err) ||
	    only_http(p->h, err) ||
	    SETOPT(p->h, CURLOPT_FOLLOWLOCATION, 0L, err) ||
	    SETOPT(p->h, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms, err) ||
	    SETOPT(p->h, CURLOPT_TIMEOUT_MS, o->max_time_ms, err) ||
	    SETOPT(p->h, CURLOPT_SSL_VERIFYPEER, verify, err) ||
	    SETOPT(p->h, CURLOPT_SSL_VERIFYHOST, verify ? 2L : 0L, err) ||
	    SETOPT(p->h, CURLOPT_USERAGENT, "zlbench/" ZL_VERSION_STRING, err))
		goto fail;
	return 0;
fail:
	zl_pusher_release(p);
	return -1;
}

/* Transport errors that the same request cannot cure by waiting: configuration. */
static const CURLcode final_curl_errors[] = {
	CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_NOT_BUILT_IN,
	CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM,
	CURLE_SSL_CIPHER, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
	CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
	CURLE_LOGIN_DENIED, CURLE_OUT_OF_MEMORY, CURLE_TOO_MANY_REDIRECTS,
	CURLE_BAD_FUNCTION_ARGUMENT, CURLE_UNKNOWN_OPTION,
};

static int curl_error_retryable(CURLcode c)
{
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(final_curl_errors); i++)
		if (final_curl_errors[i] == c)
			return 0;
	return 1;
}

int zl_push_status_retryable(long status)
{
	return status >= 500 || status == 408 || status == 429;
}

long zl_push_backoff_wait_ms(long backoff_ms, int retry, long spent_ms, long budget_ms,
			     unsigned rnd)
{
	long wait = backoff_ms, left = budget_ms - spent_ms;
	int i;

	for (i = 0; i < retry && wait < budget_ms; i++)
		wait *= 2;
	if (wait > 1)
		wait = wait - wait / 2 + (long)(rnd % (unsigned long)(wait / 2 + 1));
	if (left < 0)
		left = 0;
	return wait < left ? wait : left;
}

static void add_clean(struct strbuf *out, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len && out->len < MESSAGE_CAP; i++) {
		unsigned char c = (unsigned char)s[i];
		/* Server text reaches a terminal: no escape sequences through. */
		strbuf_addch(out, c < 0x20 || c == 0x7f ? '?' : c);
	}
}

static const char *json_message(const cJSON *j)
{
	static const char *const keys[] = { "message", "error", "detail", "title" };
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(keys); i++) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, keys[i]);
		if (cJSON_IsString(f) && f->valuestring[0])
			return f->valuestring;
		if (cJSON_IsObject(f)) {
			const char *inner = json_message(f);
			if (inner)
				return inner;
		}
	}
	return NULL;
}

void zl_push_server_message(const char *body, size_t len, struct strbuf *out)
{
	cJSON *j;
	const char *p = body, *end = body + len;

	strbuf_reset(out);
	if (!len)
		return;
	j = cJSON_ParseWithLength(body, len);
	if (j) {
		const char *m = cJSON_IsObject(j) ? json_message(j) : NULL;
		if (m)
			add_clean(out, m, strlen(m));
		cJSON_Delete(j);
		if (m)
			return;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		struct strbuf line = STRBUF_INIT;

		strbuf_add(&line, p, (size_t)(eol - p));
		strbuf_trim(&line);
		if (line.len) {
			add_clean(out, line.buf, line.len);
			strbuf_release(&line);
			return;
		}
		strbuf_release(&line);
		p = eol + 1;
	}
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* One POST; fills info->status and info->why. Returns the attempt's class. */
static enum zl_send_result post_once(struct zl_pusher *p, int *retryable, double *retry_after_s,
				  struct zl_send_info *info)
{
	CURLcode c;
	curl_off_t after = -1;
	struct strbuf msg = STRBUF_INIT;

	strbuf_reset(&p->response);
	p->errbuf[0] = '\0';
	info->status = 0;
	*retry_after_s = 0;
	strbuf_reset(&info->why);
	c = curl_easy_perform(p->h);
	if (c != CURLE_OK) {
		*retryable = curl_error_retryable(c);
		strbuf_addstr(&info->why, p->errbuf[0] ? p->errbuf : curl_easy_strerror(c));
		strbuf_rtrim(&info->why);
		if (c == CURLE_PEER_FAILED_VERIFICATION || c == CURLE_SSL_CACERT_BADFILE)
			strbuf_addstr(&info->why, " (TLS verification failed; --insecure skips it)");
		return ZL_SEND_FAILED;
	}
	if (curl_easy_getinfo(p->h, CURLINFO_RESPONSE_CODE, &info->status) != CURLE_OK) {
		*retryable = 1;
		strbuf_addstr(&info->why, "no HTTP status in the reply");
		return ZL_SEND_FAILED;
	}
	if (info->status >= 200 && info->status < 300)
		return ZL_SEND_OK;
	zl_push_server_message(p->response.buf, p->response.len, &msg);
	strbuf_addf(&info->why, "HTTP %ld", info->status);
	if (info->status >= 300 && info->status < 400) {
		char *loc = NULL;
		if (curl_easy_getinfo(p->h, CURLINFO_REDIRECT_URL, &loc) == CURLE_OK && loc) {
			strbuf_addstr(&info->why, ": redirected to '");
			add_clean(&info->why, loc, strlen(loc));
			strbuf_addstr(&info->why, "' (push to that URL instead)");
		}
	} else if (msg.len) {
		strbuf_addf(&info->why, ": %s", msg.buf);
	}
	strbuf_release(&msg);
	*retryable = zl_push_status_retryable(info->status);
	if (*retryable && curl_easy_getinfo(p->h, CURLINFO_RETRY_AFTER, &after) == CURLE_OK && after > 0)
		*retry_after_s = (double)after;
	return *retryable ? ZL_SEND_FAILED : ZL_SEND_REJECTED;
}

/* POST body to url, retrying with backoff. info->why says why when not ZL_SEND_OK. */
enum zl_send_result zl_push_send(struct zl_pusher *p, const char *url, const char *shown,
				 const char *body, struct zl_send_info *info,
				 struct strbuf *err)
{
	const struct zl_push_opts *o = p->o;
	long spent = 0;
	int retry;

	if (SETOPT(p->h, CURLOPT_URL, url, err) ||
	    SETOPT(p->h, CURLOPT_POSTFIELDS, body, err) ||
	    SETOPT(p->h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body), err)) {
		strbuf_addbuf(&info->why, err);
		return ZL_SEND_FAILED;
	}
	if (o->token && !p->warned_cleartext && cleartext_remote(url)) {
		p->warned_cleartext = 1;
		zl_print_warning("sending ZL_PUSH_TOKEN over plain http to '%s'", shown);
	}
	if (zl_verbosity > 0)
		fprintf(stderr, "zlbench: POST %s (%zu bytes)\n", shown, strlen(body));
	for (retry = 0; ; retry++) {
		int retryable = 0;
		double after_s;
		enum zl_send_result res;
		long wait;

		info->attempts++;
		res = post_once(p, &retryable, &after_s, info);
		if (res != ZL_SEND_FAILED || !retryable || retry >= o->retries)
			return res;
		wait = zl_push_backoff_wait_ms(o->backoff_ms, retry, spent, o->backoff_budget_ms,
					       zl_random_u32());
		/* The server's Retry-After wins over our schedule, within the same budget. */
		if (after_s * 1000.0 > (double)wait) {
			long left = o->backoff_budget_ms - spent;
			wait = after_s * 1000.0 < (double)left ? (long)(after_s * 1000.0) : left;
		}
		if (wait <= 0 && o->backoff_ms > 0) {
			strbuf_addstr(&info->why, " (retry budget spent)");
			return res;
		}
		zl_print_warning("POST %s: %s (attempt %d of %d); retrying in %ld ms", shown,
				 info->why.buf, info->attempts, o->retries + 1, wait);
		sleep_ms(wait);
		spent += wait;
	}
}
