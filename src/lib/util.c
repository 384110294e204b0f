#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

static void oom(size_t size)
{
	fprintf(stderr, "zlbench: fatal: out of memory allocating %zu bytes\n", size);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		oom(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (!p)
		oom(size);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void *xgrow(void *ptr, size_t elt, size_t nr, size_t *alloc)
{
	size_t want;

	if (nr <= *alloc)
		return ptr;
	want = *alloc < 8 ? 8 : *alloc + *alloc / 2;
	if (want < nr)
		want = nr;
	if (want > SIZE_MAX / elt)
		oom(SIZE_MAX);
	*alloc = want;
	return xrealloc(ptr, want * elt);
}

char *xstrvfmt(const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	char *p;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0) {
		fprintf(stderr, "zlbench: fatal: bad format '%s'\n", fmt);
		abort();
	}
	p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

void xstrvfmt_set(char **slot, const char *fmt, va_list ap)
{
	char *s = xstrvfmt(fmt, ap);

	free(*slot);
	*slot = s;
}

char *xstrfmt(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xstrvfmt(fmt, ap);
	va_end(ap);
	return p;
}

int zl_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int zl_ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

int zl_strcaseeq(const char *a, const char *b)
{
	return strcasecmp(a, b) == 0;
}

int zl_parse_bool(const char *s)
{
	static const struct { const char *word; int value; } words[] = {
		{ "1", 1 }, { "true", 1 }, { "yes", 1 }, { "on", 1 },
		{ "0", 0 }, { "false", 0 }, { "no", 0 }, { "off", 0 },
	};
	size_t i;

	if (!s)
		return -1;
	for (i = 0; i < ZL_ARRAY_SIZE(words); i++)
		if (!strcasecmp(s, words[i].word))
			return words[i].value;
	return -1;
}

int zl_parse_long(const char *s, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int zl_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

double zl_now_monotonic(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double zl_now_epoch(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts))
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void zl_utc_iso8601(char out[32], double epoch_seconds)
{
	time_t t = (time_t)epoch_seconds;
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, 32, "1970-01-01T00:00:00Z");
}

size_t zl_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t *row = xcalloc(lb + 1, sizeof(*row));
	size_t result;

	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t best = diag + cost;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	result = row[lb];
	free(row);
	return result;
}

struct candidate {
	const char *name;
	size_t distance, prefix;
};

static int by_closeness(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	if (x->distance != y->distance)
		return x->distance < y->distance ? -1 : 1;
	if (x->prefix != y->prefix)
		return x->prefix > y->prefix ? -1 : 1; /* "mmm" is closer to "mm" than to "bmm" */
	return strcmp(x->name, y->name);
}

void zl_suggest(const char *word, const struct strvec *names, size_t max, struct strvec *out)
{
	size_t limit = strlen(word) / 3 + 1, i, n = 0;
	struct candidate *c = xcalloc(names->nr + 1, sizeof(*c));

	if (limit < 2)
		limit = 2;
	for (i = 0; i < names->nr; i++) {
		size_t d = zl_edit_distance(word, names->v[i]), p = 0;

		if (d > limit || !strcmp(word, names->v[i]))
			continue;
		while (word[p] && word[p] == names->v[i][p])
			p++;
		c[n++] = (struct candidate){ names->v[i], d, p };
	}
	qsort(c, n, sizeof(*c), by_closeness);
	for (i = 0; i < n && out->nr < max; i++)
		if (strvec_find(out, c[i].name) < 0)
			strvec_push(out, c[i].name);
	free(c);
}

void zl_did_you_mean(struct strbuf *sb, const char *prefix, const char *word, const struct strvec *names)
{
	struct strvec near = STRVEC_INIT;

	zl_suggest(word, names, 2, &near);
	/* a second name only as close as the first: "--tmeout" is "--timeout", not "--out" */
	if (near.nr == 2 && zl_edit_distance(word, near.v[1]) > zl_edit_distance(word, near.v[0]))
		strvec_pop(&near);
	if (near.nr == 1)
		strbuf_addf(sb, "; did you mean '%s%s'?", prefix, near.v[0]);
	else if (near.nr == 2)
		strbuf_addf(sb, "; did you mean '%s%s' or '%s%s'?", prefix, near.v[0], prefix, near.v[1]);
	strvec_clear(&near);
}

int zl_exit_from_pytest(int pytest_status)
{
	switch (pytest_status) {
	case 0: return ZL_EXIT_OK;
	case 1: return ZL_EXIT_FAILED;
	case 2: return ZL_EXIT_INTERRUPTED;
	case 3: return ZL_EXIT_INTERNAL;
	case 4: return ZL_EXIT_PYTEST_USAGE;
	case 5: return ZL_EXIT_NO_TESTS;
	default: return pytest_status;
	}
}

unsigned zl_random_u32(void)
{
	uint32_t v;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) == (ssize_t)sizeof(v))
		return v;
	return (unsigned)getpid() ^ (unsigned)time(NULL);
}
