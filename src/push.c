#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/home.h"
#include "zlbench/push.h"
#include "zlbench/runload.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

/* A collector's reply is only read for its message: keep a bounded prefix. */
#define RESPONSE_CAP (64 * 1024)
#define MESSAGE_CAP 300
/* A batch directory nests run directories at most this deep. */
#define BATCH_SEARCH_DEPTH 3
/* Spool files: a header line and the payload line (JSON Lines). */
#define ZL_SPOOL_SUFFIX ".jsonl"

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

	v = getenv("ZL_PUSH_URL");
	if (!o->url && v && *v)
		o->url = v;
	v = getenv("ZL_PUSH_TOKEN");
	if (v && *v) {
		/* A line break would smuggle extra headers into the request. */
		if (strpbrk(v, "\r\n"))
			return zl_error(err, "ZL_PUSH_TOKEN contains a line break (value not shown)");
		o->token = v;
	}
	v = getenv("ZL_PUSH_BACKOFF_MS");
	if (v && *v) {
		long ms;
		if (zl_parse_long(v, &ms) || ms < 0 || ms > 60000)
			return zl_error(err, "invalid ZL_PUSH_BACKOFF_MS '%s': expected 0..60000 milliseconds", v);
		o->backoff_ms = ms;
	}
	return 0;
}

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

/* Parse url into a CURLU handle (caller frees with curl_url_cleanup). */
static CURLU *parse_url(const char *url, CURLUcode *why)
{
	CURLU *u = curl_url();

	if (!u) {
		*why = CURLUE_OUT_OF_MEMORY;
		return NULL;
	}
	*why = curl_url_set(u, CURLUPART_URL, url, 0);
	if (*why != CURLUE_OK) {
		curl_url_cleanup(u);
		return NULL;
	}
	return u;
}

/* For URLs libcurl cannot parse: cut "user:password@" by hand. */
static char *redact_by_hand(const char *url)
{
	const char *start = strstr(url, "://"), *at, *slash;

	if (!start)
		return xstrdup(url);
	start += 3;
	at = strchr(start, '@');
	slash = strchr(start, '/');
	if (!at || (slash && slash < at))
		return xstrdup(url);
	return xstrfmt("%.*s***%s", (int)(start - url), url, at);
}

char *zl_push_display_url(const char *url)
{
	CURLUcode why;
	CURLU *u = parse_url(url, &why);
	char *shown = NULL, *copy;

	if (!u)
		return redact_by_hand(url);
	if (curl_url_set(u, CURLUPART_USER, NULL, 0) != CURLUE_OK ||
	    curl_url_set(u, CURLUPART_PASSWORD, NULL, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_URL, &shown, 0) != CURLUE_OK) {
		curl_url_cleanup(u);
		return xstrdup("(url not shown)");
	}
	copy = xstrdup(shown);
	curl_free(shown);
	curl_url_cleanup(u);
	return copy;
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
		char *shown = redact_by_hand(url);
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

/* Non-finite numbers Python's json module writes, and what strict JSON says instead. */
static const char *const non_finite[] = { "-Infinity", "Infinity", "NaN" };

/* A character of a number or a literal: two of them must not meet where blanks stood. */
static int word_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
	       c == '+' || c == '-';
}

int zl_push_json_compact(const char *in, size_t len, struct strbuf *out, size_t *replaced)
{
	size_t i = 0, k;
	int in_string = 0, blank = 0;

	*replaced = 0;
	while (i < len) {
		char c = in[i];

		if (in_string) {
			strbuf_addch(out, c);
			if (c == '\\' && i + 1 < len)
				strbuf_addch(out, in[++i]);
			else if (c == '"')
				in_string = 0;
			i++;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			blank = 1;
			i++;
			continue;
		}
		/* "1 2" is not JSON and "12" is: keep one blank between words, so no token is made */
		if (blank && word_char(c) && out->len && word_char(out->buf[out->len - 1]))
			strbuf_addch(out, ' ');
		blank = 0;
		if (c == '"')
			in_string = 1;
		for (k = 0; k < ZL_ARRAY_SIZE(non_finite); k++) {
			size_t n = strlen(non_finite[k]);
			if (len - i >= n && !memcmp(in + i, non_finite[k], n))
				break;
		}
		if (k < ZL_ARRAY_SIZE(non_finite)) {
			strbuf_addstr(out, "null");
			i += strlen(non_finite[k]);
			(*replaced)++;
			continue;
		}
		strbuf_addch(out, c);
		i++;
	}
	return in_string ? -1 : 0;
}

/*
 * Read path into text as one compact line of strict JSON holding an object, its
 * numbers byte for byte as written (cJSON's re-print would round them). Returns
 * 0, 1 when the file is missing and optional, -1 on error. *parsed (when asked
 * for) gets the parsed object; the caller deletes it.
 */
static int read_json_object(const char *path, int optional, struct strbuf *text, cJSON **parsed,
			    struct strbuf *err)
{
	struct strbuf raw = STRBUF_INIT;
	const char *end = NULL;
	size_t replaced;
	cJSON *j;

	if (zl_read_file(&raw, path, NULL, ZL_CAP_LARGE, err)) {
		int saved = errno;
		strbuf_release(&raw);
		if (optional && saved == ENOENT) {
			strbuf_reset(err);
			return 1;
		}
		return -1;
	}
	if (zl_push_json_compact(raw.buf, raw.len, text, &replaced)) {
		strbuf_release(&raw);
		return zl_error(err, "'%s' is not valid JSON (unterminated string)", path);
	}
	strbuf_release(&raw);
	/* the whole text, not a document at its start: text after it (a NUL byte) is not sent */
	j = cJSON_ParseWithLengthOpts(text->buf, text->len, &end, 0);
	if (j && end != text->buf + text->len) {
		cJSON_Delete(j);
		return zl_error(err, "'%s' is not valid JSON (more after the document, at byte %zu of its compact form)",
				path, (size_t)(end - text->buf));
	}
	if (!j)
		return zl_error(err, "'%s' is not valid JSON", path);
	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		return zl_error(err, "'%s' does not hold a JSON object", path);
	}
	if (replaced)
		zl_print_warning("'%s': %zu NaN/Infinity value(s) sent as null (not valid JSON)",
				 path, replaced);
	if (parsed)
		*parsed = j;
	else
		cJSON_Delete(j);
	return 0;
}

static char *base_name(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	const char *slash;

	strbuf_addstr(&sb, path);
	while (sb.len > 1 && sb.buf[sb.len - 1] == '/')
		strbuf_setlen(&sb, sb.len - 1);
	slash = strrchr(sb.buf, '/');
	if (slash && slash[1]) {
		char *b = xstrdup(slash + 1);
		strbuf_release(&sb);
		return b;
	}
	return strbuf_detach(&sb, NULL);
}

int zl_push_build_document(const char *run_dir, char **doc, char **name, struct strbuf *err)
{
	char *id_path = zl_path_join(run_dir, "run_identity.json");
	char *res_path = zl_path_join(run_dir, "results.json");
	struct strbuf identity = STRBUF_INIT, results = STRBUF_INIT, out = STRBUF_INIT;
	cJSON *parsed = NULL, *f;
	int rc = -1, have_results;

	*doc = NULL;
	*name = NULL;
	if (read_json_object(id_path, 0, &identity, &parsed, err))
		goto out;
	f = cJSON_GetObjectItemCaseSensitive(parsed, "run_id");
	*name = cJSON_IsString(f) && f->valuestring[0] ? xstrdup(f->valuestring) : base_name(run_dir);
	f = cJSON_GetObjectItemCaseSensitive(parsed, "status");
	/* A running run's identity is a draft: pushing it would store a wrong record. */
	if (cJSON_IsString(f) && !strcmp(f->valuestring, "running")) {
		zl_error(err, "run '%s' is still running (status \"running\" in '%s'); not pushed",
			 *name, id_path);
		goto out;
	}
	have_results = read_json_object(res_path, 1, &results, NULL, err);
	if (have_results < 0)
		goto out;
	strbuf_addstr(&out, "{\"schema\":\"" ZL_PUSH_SCHEMA "\",\"identity\":");
	strbuf_addbuf(&out, &identity);
	strbuf_addstr(&out, ",\"results\":");
	strbuf_addstr(&out, have_results == 0 ? results.buf : "null");
	strbuf_addch(&out, '}');
	*doc = strbuf_detach(&out, NULL);
	rc = 0;
out:
	if (rc) {
		free(*name);
		*name = NULL;
	}
	cJSON_Delete(parsed);
	strbuf_release(&identity);
	strbuf_release(&results);
	strbuf_release(&out);
	free(id_path);
	free(res_path);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int has_identity(const char *dir)
{
	char *p = zl_path_join(dir, "run_identity.json");
	int yes = zl_is_file(p);

	free(p);
	return yes;
}

/* Subdirectories of dir (not links, not hidden), sorted. */
static int list_subdirs(const char *dir, struct strvec *out, struct strbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct strvec names = STRVEC_INIT;
	size_t i;

	if (!d)
		return zl_error(err, "cannot read directory '%s': %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		struct stat st;
		char *p;

		if (de->d_name[0] == '.')
			continue;
		p = zl_path_join(dir, de->d_name);
		if (!lstat(p, &st) && S_ISDIR(st.st_mode))
			strvec_push(&names, p);
		free(p);
	}
	closedir(d);
	if (names.nr)
		qsort(names.v, names.nr, sizeof(*names.v), cmp_str);
	for (i = 0; i < names.nr; i++)
		strvec_push(out, names.v[i]);
	strvec_clear(&names);
	return 0;
}

/*
 * A batch's warm-up shard (warmup.role "shard"): a record run over a slice of the
 * shapes, whose figures the op's timed run supersedes. An unreadable identity is
 * not one: pushing it reports the damage.
 */
static int is_warmup_shard(const char *dir)
{
	char *path = zl_path_join(dir, "run_identity.json");
	struct strbuf text = STRBUF_INIT;
	cJSON *id = NULL;
	const char *role;
	int shard;

	if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL))
		id = cJSON_ParseWithLength(text.buf, text.len);
	role = id ? zl_json_path_string(id, "warmup.role") : NULL;
	shard = role && !strcmp(role, "shard");
	cJSON_Delete(id);
	strbuf_release(&text);
	free(path);
	return shard;
}

/* Run directories below dir, in name order; warm-up shards are counted in *skipped. */
static int find_runs(const char *dir, int depth, struct strvec *runs, size_t *skipped,
		     struct strbuf *err)
{
	struct strvec subs = STRVEC_INIT;
	size_t i;
	int rc = 0;

	if (list_subdirs(dir, &subs, err))
		return -1;
	for (i = 0; i < subs.nr && !rc; i++) {
		if (has_identity(subs.v[i])) {
			if (is_warmup_shard(subs.v[i]))
				(*skipped)++;
			else
				strvec_push(runs, subs.v[i]);
		} else if (depth < BATCH_SEARCH_DEPTH) {
			rc = find_runs(subs.v[i], depth + 1, runs, skipped, err);
		}
	}
	strvec_clear(&subs);
	return rc;
}

struct pusher {
	const struct zl_push_opts *o;
	CURL *h;
	struct curl_slist *headers;
	struct strbuf response;
	char errbuf[CURL_ERROR_SIZE];
	int warned_cleartext;
	char *unusable;      /* why libcurl cannot send (push spools everything), or NULL */
};

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

static int add_header(struct pusher *p, const char *line, struct strbuf *err)
{
	struct curl_slist *n = curl_slist_append(p->headers, line);

	if (!n)
		return zl_error(err, "out of memory adding an HTTP header");
	p->headers = n;
	return 0;
}

static void pusher_release(struct pusher *p)
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

static int pusher_init(struct pusher *p, const struct zl_push_opts *o, struct strbuf *err)
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
	pusher_release(p);
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

static unsigned random_u32(void)
{
	uint32_t v;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) == (ssize_t)sizeof(v))
		return v;
	return (unsigned)getpid() ^ (unsigned)time(NULL);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

enum send_result { SEND_OK, SEND_REJECTED, SEND_FAILED };

struct send_info {
	int attempts;
	long status;
	struct strbuf why;   /* the last failure, for people */
};

/* One POST; fills info->status and info->why. Returns the attempt's class. */
static enum send_result post_once(struct pusher *p, int *retryable, double *retry_after_s,
				  struct send_info *info)
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
		return SEND_FAILED;
	}
	if (curl_easy_getinfo(p->h, CURLINFO_RESPONSE_CODE, &info->status) != CURLE_OK) {
		*retryable = 1;
		strbuf_addstr(&info->why, "no HTTP status in the reply");
		return SEND_FAILED;
	}
	if (info->status >= 200 && info->status < 300)
		return SEND_OK;
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
	return *retryable ? SEND_FAILED : SEND_REJECTED;
}

/* POST body to url, retrying with backoff. info->why says why when not SEND_OK. */
static enum send_result send_with_retries(struct pusher *p, const char *url, const char *shown,
					  const char *body, struct send_info *info,
					  struct strbuf *err)
{
	const struct zl_push_opts *o = p->o;
	long spent = 0;
	int retry;

	if (SETOPT(p->h, CURLOPT_URL, url, err) ||
	    SETOPT(p->h, CURLOPT_POSTFIELDS, body, err) ||
	    SETOPT(p->h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body), err)) {
		strbuf_addbuf(&info->why, err);
		return SEND_FAILED;
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
		enum send_result res;
		long wait;

		info->attempts++;
		res = post_once(p, &retryable, &after_s, info);
		if (res != SEND_FAILED || !retryable || retry >= o->retries)
			return res;
		wait = zl_push_backoff_wait_ms(o->backoff_ms, retry, spent, o->backoff_budget_ms,
					       random_u32());
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

/* The spool directory's path (not created). Caller frees; NULL when unknown. */
static char *spool_path(const struct zl_push_opts *o)
{
	char *home, *dir;

	if (o->spool_dir)
		return xstrdup(o->spool_dir);
	home = zl_home_dir();
	if (!home)
		return NULL;
	dir = zl_path_join(home, "spool");
	free(home);
	return dir;
}

static int spool_ensure(const struct zl_push_opts *o, char **out, struct strbuf *err)
{
	*out = NULL;
	if (!o->spool_dir) {
		if (zl_home_subdir_ensure("spool", out, err))
			return -1;
	} else {
		if (zl_mkdir_p(o->spool_dir, err))
			return -1;
		*out = xstrdup(o->spool_dir);
	}
	/* Payloads and URLs (which may carry user:password) are for this user only. */
	if (chmod(*out, 0700))
		zl_print_warning("cannot make spool '%s' private: %s", *out, strerror(errno));
	return 0;
}

/* A file-name-safe copy of a run name. */
static void add_safe_name(struct strbuf *sb, const char *name)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	size_t i;

	for (i = 0; name[i] && i < 80; i++)
		strbuf_addch(sb, strchr(ok, name[i]) ? name[i] : '_');
}

/*
 * Make a rename into dir survive a crash: the file's data is synced by the
 * atomic write, the directory entry only by syncing the directory.
 */
static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		zl_print_warning("cannot open spool '%s' to sync it: %s", dir, strerror(errno));
		return;
	}
	if (fsync(fd))
		zl_print_warning("cannot sync spool '%s': %s", dir, strerror(errno));
	if (close(fd))
		zl_print_warning("cannot close spool '%s': %s", dir, strerror(errno));
}

/*
 * Spool (url, doc) as two lines: {"schema":...,"url":...} and the document as sent,
 * so that resending it sends the same bytes. *path_out gets the file (caller frees).
 */
static int spool_write(const struct zl_push_opts *o, const char *url, const char *name,
		       const char *doc, char **path_out, struct strbuf *err)
{
	char *dir = NULL, *header = NULL;
	char stamp[32];
	struct strbuf file = STRBUF_INIT, text = STRBUF_INIT;
	cJSON *root = cJSON_CreateObject();
	time_t now = time(NULL);
	struct tm tm;
	int rc = -1;

	*path_out = NULL;
	if (!root || !cJSON_AddStringToObject(root, "schema", ZL_SPOOL_SCHEMA) ||
	    !cJSON_AddStringToObject(root, "url", url) ||
	    !(header = cJSON_PrintUnformatted(root))) {
		zl_error(err, "out of memory building the spool file for '%s'", name);
		goto out;
	}
	strbuf_addf(&text, "%s\n%s\n", header, doc);
	if (spool_ensure(o, &dir, err))
		goto out;
	if (!gmtime_r(&now, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm))
		stamp[0] = '\0';
	/* Time first so that names sort oldest first; pid and random bits keep them unique. */
	strbuf_addf(&file, "%s/%s-", dir, stamp);
	add_safe_name(&file, name);
	strbuf_addf(&file, "-%ld-%08x" ZL_SPOOL_SUFFIX, (long)getpid(), random_u32());
	if (zl_write_file_atomic(file.buf, text.buf, text.len, err))
		goto out;
	sync_dir(dir);
	*path_out = strbuf_detach(&file, NULL);
	rc = 0;
out:
	if (header)
		cJSON_free(header);
	cJSON_Delete(root);
	strbuf_release(&file);
	strbuf_release(&text);
	free(dir);
	return rc;
}

/* The spool's payload files, sorted = oldest first. */
static int spool_files(const char *dir, struct strvec *out, struct strbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d) {
		if (errno == ENOENT)
			return 0;
		return zl_error(err, "cannot read spool directory '%s': %s", dir, strerror(errno));
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && zl_ends_with(de->d_name, ZL_SPOOL_SUFFIX))
			strvec_pushf(out, "%s/%s", dir, de->d_name);
	closedir(d);
	if (out->nr)
		qsort(out->v, out->nr, sizeof(*out->v), cmp_str);
	return 0;
}

struct spooled {
	char *url;
	char *name;
	char *body;
};

static void spooled_release(struct spooled *s)
{
	free(s->url);
	free(s->name);
	free(s->body);
	memset(s, 0, sizeof(*s));
}

static int spool_read(const char *path, struct spooled *s, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	cJSON *header = NULL, *payload = NULL, *url, *schema, *run_id;
	char *nl;
	int rc = -1;

	memset(s, 0, sizeof(*s));
	if (zl_read_file(&sb, path, "spool file", ZL_CAP_LARGE, err)) {
		strbuf_release(&sb);
		return -1;
	}
	strbuf_rtrim(&sb);
	nl = strchr(sb.buf, '\n');
	if (nl) {
		header = cJSON_ParseWithLength(sb.buf, (size_t)(nl - sb.buf));
		payload = cJSON_Parse(nl + 1);
	}
	schema = cJSON_GetObjectItemCaseSensitive(header, "schema");
	url = cJSON_GetObjectItemCaseSensitive(header, "url");
	if (!cJSON_IsString(schema) || strcmp(schema->valuestring, ZL_SPOOL_SCHEMA) ||
	    !cJSON_IsString(url) || !cJSON_IsObject(payload)) {
		zl_error(err, "'%s' is not a zlbench spool file (a {\"schema\":\"%s\",\"url\":...} line, "
			 "then the JSON payload)", path, ZL_SPOOL_SCHEMA);
		goto out;
	}
	s->url = xstrdup(url->valuestring);
	s->body = xstrdup(nl + 1);
	run_id = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(payload, "identity"),
						  "run_id");
	s->name = cJSON_IsString(run_id) ? xstrdup(run_id->valuestring) : base_name(path);
	rc = 0;
out:
	cJSON_Delete(header);
	cJSON_Delete(payload);
	strbuf_release(&sb);
	return rc;
}

long zl_push_spool_count(const struct zl_push_opts *o)
{
	struct strbuf err = STRBUF_INIT;
	struct strvec files = STRVEC_INIT;
	char *dir = spool_path(o);
	long n = -1;

	if (dir && !spool_files(dir, &files, &err))
		n = (long)files.nr;
	strvec_clear(&files);
	strbuf_release(&err);
	free(dir);
	return n;
}

int zl_push_list_spool(const struct zl_push_opts *o, FILE *out, size_t *count, struct strbuf *err)
{
	struct strvec files = STRVEC_INIT;
	char *dir = spool_path(o);
	size_t i;

	*count = 0;
	if (!dir)
		return zl_error(err, "cannot locate the spool: set ZL_HOME or HOME");
	if (spool_files(dir, &files, err)) {
		free(dir);
		return -1;
	}
	for (i = 0; i < files.nr; i++) {
		struct spooled s;
		struct strbuf why = STRBUF_INIT;

		if (spool_read(files.v[i], &s, &why)) {
			fprintf(out, "%s\tunreadable\t%s\n", files.v[i], why.buf);
		} else {
			char *shown = zl_push_display_url(s.url);
			fprintf(out, "%s\t%s\t%s\n", files.v[i], s.name, shown);
			free(shown);
		}
		spooled_release(&s);
		strbuf_release(&why);
	}
	*count = files.nr;
	strvec_clear(&files);
	free(dir);
	return 0;
}

/* Send one document; spool it when every attempt failed. */
static void push_one(struct pusher *p, const char *name, const char *source, const char *doc,
		     struct zl_push_report *r)
{
	const struct zl_push_opts *o = p->o;
	struct zl_push_item *it = report_add(r, name, source);
	struct send_info info = { 0, 0, STRBUF_INIT };
	struct strbuf err = STRBUF_INIT;
	enum send_result res;
	char *spooled = NULL;

	it->url = zl_push_display_url(o->url);
	if (p->unusable) {
		/* nothing can be sent without libcurl: keep the payload for a later flush */
		res = SEND_FAILED;
		strbuf_addf(&info.why, "libcurl is unusable: %s", p->unusable);
	} else {
		res = send_with_retries(p, o->url, it->url, doc, &info, &err);
	}
	it->http_status = info.status;
	it->attempts = info.attempts;
	if (res == SEND_OK) {
		report_finish(r, it, o, ZL_PUSH_DELIVERED,
			      xstrfmt("delivered %s to %s (HTTP %ld, %d attempt%s)", name, it->url,
				      info.status, info.attempts, info.attempts == 1 ? "" : "s"));
	} else if (res == SEND_REJECTED) {
		report_finish(r, it, o, ZL_PUSH_REJECTED,
			      xstrfmt("%s rejected %s: %s (not retried, not spooled)", it->url, name,
				      info.why.buf));
	} else if (spool_write(o, o->url, name, doc, &spooled, &err)) {
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

int zl_push_dir(const char *dir, const struct zl_push_opts *o, struct zl_push_report *r,
		struct strbuf *err)
{
	struct strvec runs = STRVEC_INIT;
	struct pusher p;
	int lone, rc = -1;
	size_t i, skipped = 0;

	memset(&p, 0, sizeof(p));
	if (!o->dry_run && zl_push_check_url(o->url, err))
		return -1;
	if (!zl_is_dir(dir))
		return zl_error(err, "'%s' is not a directory (expected a run or batch directory)", dir);
	lone = has_identity(dir);
	if (lone) {
		strvec_push(&runs, dir);
	} else {
		if (find_runs(dir, 1, &runs, &skipped, err))
			goto out;
		if (!runs.nr && !skipped) {
			zl_error(err, "'%s' is neither a run directory nor a batch directory "
				 "(no run_identity.json in it or below it)", dir);
			goto out;
		}
		r->skipped += skipped;
		if (skipped && zl_verbosity >= 0)
			fprintf(stderr, "zlbench: %s: skipped %zu warm-up shard run%s (warmup.role "
				"\"shard\": each op's timed run holds its figures)\n", dir, skipped,
				skipped == 1 ? "" : "s");
	}
	if (!o->dry_run && pusher_init(&p, o, err)) {
		/* a machine without a usable libcurl still loses nothing: spool, say why */
		p.unusable = strbuf_detach(err, NULL);
		p.o = o;
	}
	for (i = 0; i < runs.nr; i++) {
		struct strbuf why = STRBUF_INIT;
		char *doc, *name;

		if (zl_push_build_document(runs.v[i], &doc, &name, &why)) {
			if (lone) {
				strbuf_reset(err);
				strbuf_addbuf(err, &why);
				strbuf_release(&why);
				goto out;
			}
			report_finish(r, report_add(r, runs.v[i], runs.v[i]), o, ZL_PUSH_FAILED,
				      strbuf_detach(&why, NULL));
			continue;
		}
		if (o->dry_run)
			print_document(o, doc, r, name, runs.v[i]);
		else
			push_one(&p, name, runs.v[i], doc, r);
		free(doc);
		free(name);
		strbuf_release(&why);
	}
	rc = 0;
out:
	pusher_release(&p);
	strvec_clear(&runs);
	return rc;
}

/*
 * Resend one spool file. A URL that did not answer at all (no HTTP reply after
 * every retry) goes into down; later files for a URL in down are not tried, so a
 * flush against a collector that is down costs one retry schedule, not one per
 * file. Returns 1 when the file was left untried for that reason.
 */
static int flush_one(struct pusher *p, const char *path, struct strvec *down,
		     struct zl_push_report *r)
{
	const struct zl_push_opts *o = p->o;
	struct send_info info = { 0, 0, STRBUF_INIT };
	struct strbuf err = STRBUF_INIT;
	struct spooled s;
	struct zl_push_item *it;
	enum send_result res;
	const char *url;
	int untried = 0;

	if (spool_read(path, &s, &err)) {
		it = report_add(r, path, path);
		report_finish(r, it, o, ZL_PUSH_FAILED,
			      xstrfmt("%s; left in the spool", err.buf));
		strbuf_release(&err);
		return 0;
	}
	url = o->url ? o->url : s.url;
	it = report_add(r, s.name, path);
	it->url = zl_push_display_url(url);
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
	res = send_with_retries(p, url, it->url, s.body, &info, &err);
	if (res == SEND_FAILED && !info.status)
		strvec_push(down, url);
	it->http_status = info.status;
	it->attempts = info.attempts;
	if (res == SEND_OK) {
		if (unlink(path) && errno != ENOENT)
			report_finish(r, it, o, ZL_PUSH_FAILED,
				      xstrfmt("delivered %s to %s, but cannot remove '%s' from the spool: %s "
					      "(remove it by hand, or it will be sent again)",
					      s.name, it->url, path, strerror(errno)));
		else
			report_finish(r, it, o, ZL_PUSH_DELIVERED,
				      xstrfmt("delivered %s to %s (HTTP %ld, %d attempt%s); removed '%s'",
					      s.name, it->url, info.status, info.attempts,
					      info.attempts == 1 ? "" : "s", path));
	} else if (res == SEND_REJECTED) {
		report_finish(r, it, o, ZL_PUSH_REJECTED,
			      xstrfmt("%s rejected %s: %s; left in the spool at '%s' "
				      "(delete it, or resend it elsewhere with --url)",
				      it->url, s.name, info.why.buf, path));
	} else {
		report_finish(r, it, o, ZL_PUSH_SPOOLED,
			      xstrfmt("could not resend %s to %s after %d attempt%s: %s; it stays in the spool at '%s'",
				      s.name, it->url, info.attempts, info.attempts == 1 ? "" : "s",
				      info.why.buf, path));
	}
out:
	spooled_release(&s);
	strbuf_release(&info.why);
	strbuf_release(&err);
	return untried;
}

int zl_push_flush(const struct zl_push_opts *o, struct zl_push_report *r, struct strbuf *err)
{
	struct strvec files = STRVEC_INIT, down = STRVEC_INIT;
	struct pusher p;
	char *dir = spool_path(o), *lock_path = NULL;
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
	/* Two flushes at once would deliver the same payload twice. */
	lock_path = zl_path_join(dir, ".lock");
	lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lock < 0) {
		zl_error(err, "cannot open spool lock '%s': %s", lock_path, strerror(errno));
		goto out;
	}
	if (flock(lock, LOCK_EX | LOCK_NB)) {
		if (errno == EWOULDBLOCK)
			zl_error(err, "another 'zlbench push --flush-spool' holds '%s'; try again later",
				 lock_path);
		else
			zl_error(err, "cannot lock '%s': %s", lock_path, strerror(errno));
		goto out;
	}
	if (spool_files(dir, &files, err))
		goto out;
	if (files.nr && pusher_init(&p, o, err)) {
		struct strbuf why = STRBUF_INIT;

		strbuf_addbuf(&why, err);
		strbuf_reset(err);
		zl_error(err, "cannot resend the spool: %s; its %zu payload%s stay in '%s'", why.buf,
			 files.nr, files.nr == 1 ? "" : "s", dir);
		strbuf_release(&why);
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
	pusher_release(&p);
	if (lock >= 0)
		close(lock);
	strvec_clear(&files);
	strvec_clear(&down);
	free(lock_path);
	free(dir);
	return rc;
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
