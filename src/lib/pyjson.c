#include <string.h>

#include "zlbench/error.h"
#include "zlbench/pyjson.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* Non-finite numbers Python's json module writes, and what strict JSON says instead. */
static const char *const non_finite[] = { "-Infinity", "Infinity", "NaN" };

/* A character of a number or a literal: two of them must not meet where blanks stood. */
static int word_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
	       c == '+' || c == '-';
}

int zl_json_compact_python(const char *in, size_t len, struct strbuf *out, size_t *replaced)
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
		/* "1 2" is not JSON and "12" is: keep one blank between words, so no token is made (fuzz) */
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

/* The offset of the first byte JSON never holds raw (NUL anywhere, a control character in a string), or len. */
static size_t first_raw_control(const char *in, size_t len, int *in_string_at)
{
	size_t i;
	int in_string = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];

		if (!c || (in_string && c < 0x20))
			break;
		if (in_string && c == '\\')
			i++;
		else if (c == '"')
			in_string = !in_string;
	}
	*in_string_at = in_string;
	return i;
}

cJSON *zl_json_parse_python(const char *in, size_t len, struct strbuf *compact, size_t *nonfinite,
			    struct strbuf *err)
{
	struct strbuf own = STRBUF_INIT;
	struct strbuf *text = compact ? compact : &own;
	size_t replaced = 0, bad;
	const char *end = NULL;
	cJSON *doc = NULL;
	int in_string;

	if (nonfinite)
		*nonfinite = 0;
	bad = first_raw_control(in, len, &in_string);
	if (bad < len) {
		zl_error(err, "not valid JSON: %s at byte %zu", in[bad] ? "a control character in a string"
				: "a NUL byte", bad);
		goto out;
	}
	strbuf_reset(text);
	if (zl_json_compact_python(in, len, text, &replaced)) {
		zl_error(err, "not valid JSON: a string is not closed");
		goto out;
	}
	if (!text->len) {
		zl_error(err, "not valid JSON: empty");
		goto out;
	}
	doc = cJSON_ParseWithLengthOpts(text->buf, text->len, &end, 0);
	if (!doc || end != text->buf + text->len) {
		if (doc)
			zl_error(err, "not valid JSON: text after the value, at byte %zu of its compact form",
				 (size_t)(end - text->buf));
		else
			zl_error(err, "not valid JSON");
		cJSON_Delete(doc);
		doc = NULL;
		goto out;
	}
	if (nonfinite)
		*nonfinite = replaced;
out:
	strbuf_release(&own);
	return doc;
}
