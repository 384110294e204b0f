/*
 * JSON helpers over cJSON, for every module: reading by dotted path, building
 * output documents where NULL and non-finite numbers become null, string arrays
 * to and from strvec, schema-checked reads and atomic writes.
 *
 * Ownership: getters return pointers into the document (valid while it lives);
 * the _dup, _strvec and _read_schema results belong to the caller.
 */
#ifndef ZLBENCH_JSON_H
#define ZLBENCH_JSON_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "strbuf.h"
#include "strvec.h"

/*
 * Read a string at a dotted path ("tuner_cache.mode") in a cJSON object.
 * Returns the string (owned by the document), or NULL when absent or not a string.
 */
const char *zl_json_path_string(const cJSON *root, const char *path);
/* The item at a dotted path, or NULL. */
const cJSON *zl_json_path(const cJSON *root, const char *path);
/* A copy of the string at a dotted path (caller frees), or NULL. */
char *zl_json_path_dup(const cJSON *root, const char *path);
/*
 * A number as a whole long or int: its integer part, or fallback when item is no number,
 * not finite or outside what the type holds (a file's 1e64 is no count; casting it would
 * be undefined behaviour).
 */
long zl_json_long(const cJSON *item, long fallback);
int zl_json_int(const cJSON *item, int fallback);
/* A JSON boolean as 1 or 0; anything else (null, absent, another type) as -1. */
int zl_json_tristate(const cJSON *item);
/*
 * Read and parse the JSON object at path whose "schema" is schema. NULL with err
 * set when it cannot be read (hint, when given, is added in parentheses: what the
 * path should have been) or is not such a document; the caller frees the result.
 */
cJSON *zl_json_read_schema(const char *path, const char *schema, const char *hint, struct strbuf *err);

/*
 * cJSON builders for output documents: a NULL string or a non-finite number
 * becomes null. 0, or -1 when cJSON could not allocate.
 */
int zl_json_add_string(cJSON *obj, const char *key, const char *value);
int zl_json_add_number(cJSON *obj, const char *key, double value);
int zl_json_add_bool(cJSON *obj, const char *key, int value);
/* A fact that may be unknown: 1 true, 0 false, -1 (any negative) null. */
int zl_json_add_tristate(cJSON *obj, const char *key, int value);
/*
 * Attach item under key in obj (key NULL: append it to the array obj). The
 * container owns item from then on; when item is NULL (its creation failed) or
 * cannot be attached, it is deleted and -1 returned, so callers write
 *     if (zl_json_add_item(o, "list", zl_json_strvec(&sv))) goto oom;
 */
int zl_json_add_item(cJSON *obj, const char *key, cJSON *item);

/* A JSON array of sv's strings (NULL when cJSON could not allocate). */
cJSON *zl_json_strvec(const struct strvec *sv);
/* Push an array's strings onto sv; -1 when it is not an array of strings. */
int zl_json_to_strvec(const cJSON *array, struct strvec *sv);
/*
 * The JSON edge (docs/architecture.md, "Edges"): append doc printed (formatted: indented)
 * to sb as valid UTF-8 always: a byte of a string that is not UTF-8 (cJSON keeps a file's
 * bytes as they were) becomes U+FFFD, and a warning on stderr counts them, naming what
 * ("compare --json", a file's path). 0, or -1 when cJSON could not allocate.
 */
int zl_json_print(struct strbuf *sb, const cJSON *doc, int formatted, const char *what);
/* The same in pieces (a document streamed a part at a time): count into *replaced, then warn once. */
int zl_json_print_valid(struct strbuf *sb, const cJSON *doc, int formatted, size_t *replaced);
void zl_json_warn_replaced(const char *what, size_t replaced);
/* doc printed (zl_json_print, indented) to out with a newline: the --json of a command. 0, or -1 (out of memory). */
int zl_json_fprint(FILE *out, const cJSON *doc, const char *what);
/* Append text[0..len) to out with each byte that starts no valid UTF-8 character as U+FFFD; returns how many. */
size_t zl_utf8_make_valid(struct strbuf *out, const char *text, size_t len);
/* Print doc (zl_json_print) and write it to path atomically. */
int zl_json_write_atomic(const char *path, const cJSON *doc, struct strbuf *err);

/*
 * Append the canonical rendering of a JSON value to sb: ", " and ": " separators,
 * integers without a fraction, other numbers in the shortest form that reads back
 * exactly (runload.h's shape strings, e.g. "[[384, 384], [384, 384]]").
 */
void zl_json_canonical(struct strbuf *sb, const cJSON *item);

/*
 * A shape as results and samples are keyed by: the value rendered canonically, or, for a
 * string holding JSON text (a plugin may write the shape either way), that text parsed
 * and rendered so; a string that is no JSON stays as it is. The caller owns the result.
 */
char *zl_json_shape_text(const cJSON *item);

#endif
