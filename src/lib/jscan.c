/* A scan over JSON text without a tree (include/zlbench/jscan.h). */
#include <string.h>

#include <cjson/cJSON.h>

#include "zlbench/jscan.h"
#include "zlbench/banned.h"

void zl_jscan_init(struct zl_jscan *s, const char *text, size_t len)
{
	s->p = text;
	s->end = text + len;
	s->nonfinite = 0;
}

static void ws(struct zl_jscan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

char zl_jscan_peek(struct zl_jscan *s)
{
	ws(s);
	return s->p < s->end ? *s->p : '\0';
}

static int hex4(const char *p, const char *end, unsigned *out)
{
	unsigned v = 0;
	int i;

	if (end - p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* At '"': past the closing quote. */
static int string(struct zl_jscan *s)
{
	const char *p = s->p + 1;

	while (p < s->end) {
		unsigned char c = (unsigned char)*p++;
		unsigned u, lo;

		if (c == '"') {
			s->p = p;
			return 0;
		}
		if (c < 0x20)
			return -1;
		if (c != '\\')
			continue;
		if (p >= s->end)
			return -1;
		c = (unsigned char)*p++;
		if (c != 'u') {
			if (!strchr("\"\\/bfnrt", c) || !c)
				return -1;
			continue;
		}
		if (hex4(p, s->end, &u))
			return -1;
		p += 4;
		/* as cJSON decodes: a low surrogate first, or a high one not followed by a low one, fails it */
		if (u >= 0xdc00 && u <= 0xdfff)
			return -1;
		if (u >= 0xd800 && u <= 0xdbff) {
			if (s->end - p < 6 || p[0] != '\\' || p[1] != 'u' || hex4(p + 2, s->end, &lo) || lo < 0xdc00 ||
			    lo > 0xdfff)
				return -1;
			p += 6;
		}
	}
	return -1;
}

static int digits(struct zl_jscan *s)
{
	const char *start = s->p;

	while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
		s->p++;
	return s->p > start ? 0 : -1;
}

/* A token ends where a value may end: a blank, ',', ']', '}' or the end of the text. */
static int token_end(const struct zl_jscan *s)
{
	return s->p >= s->end || strchr(" \t\n\r,]}", *s->p);
}

static int number(struct zl_jscan *s)
{
	if (*s->p == '-')
		s->p++;
	if (s->p < s->end && *s->p == '0')
		s->p++;
	else if (digits(s))
		return -1;
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		if (digits(s))
			return -1;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (digits(s))
			return -1;
	}
	return token_end(s) ? 0 : -1;
}

static int word(struct zl_jscan *s, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n))
		return -1;
	s->p += n;
	return token_end(s) ? 0 : -1;
}

static int value(struct zl_jscan *s, int depth)
{
	static const char *const nonfinite[] = { "NaN", "Infinity", "-Infinity" };
	size_t i;
	char c = zl_jscan_peek(s);

	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';
		int first = 1;

		if (depth >= ZL_JSCAN_MAX_DEPTH)
			return -1;
		s->p++;
		if (zl_jscan_peek(s) == close) {
			s->p++;
			return 0;
		}
		for (;;) {
			if (!first) {
				if (zl_jscan_peek(s) != ',')
					break;
				s->p++;
			}
			first = 0;
			if (c == '{') {
				if (zl_jscan_peek(s) != '"' || string(s) || zl_jscan_peek(s) != ':')
					return -1;
				s->p++;
			}
			if (value(s, depth + 1))
				return -1;
		}
		if (zl_jscan_peek(s) != close)
			return -1;
		s->p++;
		return 0;
	}
	if (c == '"')
		return string(s);
	for (i = 0; i < sizeof(nonfinite) / sizeof(*nonfinite); i++)
		if (!word(s, nonfinite[i])) {
			s->nonfinite++;
			return 0;
		}
	if (c == '-' || (c >= '0' && c <= '9'))
		return number(s);
	if (!word(s, "true") || !word(s, "false") || !word(s, "null"))
		return 0;
	return -1;
}

int zl_jscan_value(struct zl_jscan *s)
{
	return value(s, 0);
}

int zl_jscan_open(struct zl_jscan *s, char bracket)
{
	if (zl_jscan_peek(s) != bracket)
		return -1;
	s->p++;
	return 0;
}

int zl_jscan_more(struct zl_jscan *s, int *first)
{
	char c = zl_jscan_peek(s);

	if (c == '}' || c == ']') {
		s->p++;
		return 0;
	}
	if (!*first && c == ',')
		s->p++;
	*first = 0;
	return 1;
}

int zl_jscan_key(struct zl_jscan *s, struct strbuf *key)
{
	const char *start;
	cJSON *k;

	strbuf_reset(key);
	if (zl_jscan_peek(s) != '"')
		return -1;
	start = s->p;
	if (string(s))
		return -1;
	if (!memchr(start + 1, '\\', (size_t)(s->p - start - 2))) {
		strbuf_add(key, start + 1, (size_t)(s->p - start - 2));
	} else {
		/* escapes: cJSON decodes them as the tree reader would */
		k = cJSON_ParseWithLength(start, (size_t)(s->p - start));
		if (!cJSON_IsString(k)) {
			cJSON_Delete(k);
			return -1;
		}
		strbuf_addstr(key, k->valuestring);
		cJSON_Delete(k);
	}
	if (zl_jscan_peek(s) != ':')
		return -1;
	s->p++;
	return 0;
}
