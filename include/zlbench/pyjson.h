/*
 * JSON as Python's json module writes it. FlagGems and the plugins write with
 * json.dump, whose default (allow_nan=True) puts NaN, Infinity and -Infinity
 * in the text: not JSON, so cJSON refuses the whole document. Every reader of
 * such a file (results.json, the plugins' files) goes through here, so that
 * one non-finite number is a missing value, never a file read as empty.
 */
#ifndef ZLBENCH_PYJSON_H
#define ZLBENCH_PYJSON_H

#include <stddef.h>
#include <cjson/cJSON.h>

#include "strbuf.h"

/*
 * Append JSON text to out without whitespace outside strings, with NaN, Infinity
 * and -Infinity outside strings replaced by null (*replaced counts them). Does not
 * validate, but keeps one blank where blanks parted two numbers or literals ("1 2"
 * stays invalid rather than becoming 12); -1 when a string is left open.
 */
int zl_json_compact_python(const char *in, size_t len, struct strbuf *out, size_t *replaced);

/*
 * Parse in[0..len) as one JSON value written by Python: compacted as above into
 * compact (when not NULL; the strict JSON text, numbers byte for byte), then
 * parsed whole. -1 with err (naming the byte offset) when it is not exactly one
 * value: a NUL byte, a raw control character in a string, an open string,
 * invalid JSON, or anything after the value. *nonfinite (may be NULL) counts the
 * NaN/Infinity read as null. Returns the document (the caller deletes it), or NULL.
 */
cJSON *zl_json_parse_python(const char *in, size_t len, struct strbuf *compact, size_t *nonfinite,
			    struct strbuf *err);

#endif
