/*
 * A scan over JSON text as Python's json module writes it (NaN, Infinity and
 * -Infinity as values, whitespace anywhere), without building a tree: for files too
 * large to hold as a cJSON tree next to what is read from them (results.json: the
 * tree weighed about 4 times the text). The reader walks the containers it wants and
 * parses each small piece (a row) with pyjson.h, then frees it.
 *
 * zl_jscan_value validates strictly: standard JSON's grammar (numbers as RFC 8259
 * writes them), no raw control character in a string, escapes that cJSON decodes (a
 * \u escape of a UTF-16 surrogate must pair), nesting at most ZL_JSCAN_MAX_DEPTH. A
 * text it accepts, pyjson.h's parser reads as the same document; a reader falls back
 * to that parser for anything it refuses.
 *
 * Owner: the scan points into the caller's text; nothing is allocated but the strbuf
 * of zl_jscan_string.
 */
#ifndef ZLBENCH_JSCAN_H
#define ZLBENCH_JSCAN_H

#include <stddef.h>

#include "strbuf.h"

#define ZL_JSCAN_MAX_DEPTH 1000 /* cJSON's nesting limit */

struct zl_jscan {
	const char *p, *end;
	size_t nonfinite;        /* NaN/Infinity values passed by zl_jscan_value */
};

void zl_jscan_init(struct zl_jscan *s, const char *text, size_t len);
/* Skip whitespace; the byte there ('\0' at the end). */
char zl_jscan_peek(struct zl_jscan *s);
/* Skip one whole value, checking it; 0, or -1 (s->p then undefined). */
int zl_jscan_value(struct zl_jscan *s);
/*
 * Containers, for text zl_jscan_value accepted: zl_jscan_open('{' or '[') steps in;
 * then zl_jscan_more says whether another element follows (stepping over the ',' or
 * over the closing bracket when none does): 1 or 0. In an object, zl_jscan_key reads
 * the member's name (decoded into key) and its ':'.
 */
int zl_jscan_open(struct zl_jscan *s, char bracket);
int zl_jscan_more(struct zl_jscan *s, int *first);
int zl_jscan_key(struct zl_jscan *s, struct strbuf *key);

#endif
