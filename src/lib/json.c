/* JSON helpers over cJSON: dotted-path reads, null-aware builders, atomic writes. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/json.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

long zl_json_long(const cJSON *item, long fallback)
{
	/* LONG_MIN is -2^63 exactly as a double; LONG_MAX rounds up to 2^63, outside the range */
	if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) ||
	    item->valuedouble < (double)LONG_MIN || item->valuedouble >= -(double)LONG_MIN)
		return fallback;
	return (long)item->valuedouble;
}

int zl_json_int(const cJSON *item, int fallback)
{
	long v = zl_json_long(item, fallback);

	return v < INT_MIN || v > INT_MAX ? fallback : (int)v;
}

const cJSON *zl_json_path(const cJSON *root, const char *path)
{
	const cJSON *cur = root;
	const char *p = path;

	while (cur && *p) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		char *key = xstrndup(p, len);

		cur = cJSON_IsObject(cur) ? cJSON_GetObjectItemCaseSensitive(cur, key) : NULL;
		free(key);
		p += len + (dot ? 1 : 0);
	}
	return cur;
}

const char *zl_json_path_string(const cJSON *root, const char *path)
{
	const cJSON *item = zl_json_path(root, path);

	return cJSON_IsString(item) ? item->valuestring : NULL;
}

char *zl_json_path_dup(const cJSON *root, const char *path)
{
	const char *s = zl_json_path_string(root, path);

	return s ? xstrdup(s) : NULL;
}

cJSON *zl_json_read_schema(const char *path, const char *schema, const char *hint, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	cJSON *doc = NULL;
	const char *got;

	if (zl_read_file(&text, path, NULL, ZL_CAP_DOC, err)) {
		if (hint)
			strbuf_addf(err, " (%s)", hint);
	} else if (!(doc = cJSON_ParseWithLength(text.buf, text.len)) || !cJSON_IsObject(doc) ||
		   !(got = zl_json_path_string(doc, "schema")) || strcmp(got, schema)) {
		zl_error(err, "'%s' is not a %s document", path, schema);
		cJSON_Delete(doc);
		doc = NULL;
	}
	strbuf_release(&text);
	return doc;
}

int zl_json_add_string(cJSON *obj, const char *key, const char *value)
{
	return (value ? cJSON_AddStringToObject(obj, key, value) : cJSON_AddNullToObject(obj, key))
	       ? 0 : -1;
}

int zl_json_add_number(cJSON *obj, const char *key, double value)
{
	return (isfinite(value) ? cJSON_AddNumberToObject(obj, key, value)
				: cJSON_AddNullToObject(obj, key)) ? 0 : -1;
}

int zl_json_add_bool(cJSON *obj, const char *key, int value)
{
	return cJSON_AddBoolToObject(obj, key, value ? 1 : 0) ? 0 : -1;
}

int zl_json_add_tristate(cJSON *obj, const char *key, int value)
{
	if (value < 0)
		return cJSON_AddNullToObject(obj, key) ? 0 : -1;
	return zl_json_add_bool(obj, key, value);
}

int zl_json_tristate(const cJSON *item)
{
	return cJSON_IsBool(item) ? cJSON_IsTrue(item) != 0 : -1;
}

int zl_json_add_item(cJSON *obj, const char *key, cJSON *item)
{
	cJSON_bool ok;

	if (!item)
		return -1;
	ok = key ? cJSON_AddItemToObject(obj, key, item) : cJSON_AddItemToArray(obj, item);
	if (!ok) {
		cJSON_Delete(item);
		return -1;
	}
	return 0;
}

cJSON *zl_json_strvec(const struct strvec *sv)
{
	/* cJSON_CreateStringArray checks every allocation and frees what it built */
	return cJSON_CreateStringArray(sv->v, (int)sv->nr);
}

int zl_json_to_strvec(const cJSON *array, struct strvec *sv)
{
	const cJSON *it;

	if (!cJSON_IsArray(array))
		return -1;
	cJSON_ArrayForEach(it, array) {
		if (!cJSON_IsString(it))
			return -1;
		strvec_push(sv, it->valuestring);
	}
	return 0;
}

size_t zl_utf8_make_valid(struct strbuf *out, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t replaced = 0, start = 0, i = 0;

	while (i < len) {
		size_t n = zl_utf8_seq_len(s + i, len - i);

		if (n) {
			i += n;
			continue;
		}
		strbuf_add(out, text + start, i - start);
		strbuf_addstr(out, "\xef\xbf\xbd"); /* U+FFFD */
		replaced++;
		start = ++i;
	}
	strbuf_add(out, text + start, len - start);
	return replaced;
}

int zl_json_print_valid(struct strbuf *sb, const cJSON *doc, int formatted, size_t *replaced)
{
	char *text = formatted ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc);

	if (!text)
		return -1;
	/* cJSON copies a string's bytes as they came: a file's invalid UTF-8 would pass through */
	*replaced += zl_utf8_make_valid(sb, text, strlen(text));
	cJSON_free(text);
	return 0;
}

void zl_json_warn_replaced(const char *what, size_t replaced)
{
	if (replaced)
		zl_print_warning("%s: %zu byte%s that %s not UTF-8 written as U+FFFD", what, replaced,
				 replaced == 1 ? "" : "s", replaced == 1 ? "was" : "were");
}

int zl_json_print(struct strbuf *sb, const cJSON *doc, int formatted, const char *what)
{
	size_t replaced = 0;

	if (zl_json_print_valid(sb, doc, formatted, &replaced))
		return -1;
	zl_json_warn_replaced(what, replaced);
	return 0;
}

int zl_json_fprint(FILE *out, const cJSON *doc, const char *what)
{
	struct strbuf text = STRBUF_INIT;
	int rc = zl_json_print(&text, doc, 1, what);

	if (!rc)
		fprintf(out, "%s\n", text.buf);
	strbuf_release(&text);
	return rc;
}

int zl_json_write_atomic(const char *path, const cJSON *doc, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	char *what = xstrfmt("'%s'", path);
	int rc;

	if (zl_json_print(&text, doc, 1, what))
		rc = zl_error(err, "out of memory printing '%s'", path);
	else
		rc = zl_write_file_atomic(path, text.buf, text.len, err);
	strbuf_release(&text);
	free(what);
	return rc;
}

static void add_json_string(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			strbuf_addf(sb, "\\%c", c);
		else if (c == '\n')
			strbuf_addstr(sb, "\\n");
		else if (c == '\t')
			strbuf_addstr(sb, "\\t");
		else if (c < 0x20)
			strbuf_addf(sb, "\\u%04x", c);
		else
			strbuf_addch(sb, c);
	}
	strbuf_addch(sb, '"');
}

/* Integers without a fraction, other numbers in the shortest form that reads back exactly. */
static void add_canonical_number(struct strbuf *sb, double d)
{
	char buf[64];
	int prec;

	if (!isfinite(d)) {
		strbuf_addstr(sb, "null");
		return;
	}
	if (d == floor(d) && fabs(d) < 9007199254740992.0) {
		strbuf_addf(sb, "%.0f", d);
		return;
	}
	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	strbuf_addstr(sb, buf);
}

void zl_json_canonical(struct strbuf *sb, const cJSON *item)
{
	const cJSON *child;
	const char *sep = "";

	if (!item || cJSON_IsNull(item) || cJSON_IsInvalid(item)) {
		strbuf_addstr(sb, "null");
	} else if (cJSON_IsBool(item)) {
		strbuf_addstr(sb, cJSON_IsTrue(item) ? "true" : "false");
	} else if (cJSON_IsNumber(item)) {
		add_canonical_number(sb, item->valuedouble);
	} else if (cJSON_IsString(item)) {
		add_json_string(sb, item->valuestring);
	} else if (cJSON_IsArray(item)) {
		strbuf_addch(sb, '[');
		cJSON_ArrayForEach(child, item) {
			strbuf_addstr(sb, sep);
			zl_json_canonical(sb, child);
			sep = ", ";
		}
		strbuf_addch(sb, ']');
	} else if (cJSON_IsObject(item)) {
		strbuf_addch(sb, '{');
		cJSON_ArrayForEach(child, item) {
			strbuf_addstr(sb, sep);
			add_json_string(sb, child->string ? child->string : "");
			strbuf_addstr(sb, ": ");
			zl_json_canonical(sb, child);
			sep = ", ";
		}
		strbuf_addch(sb, '}');
	} else {
		strbuf_addstr(sb, "null");
	}
}

char *zl_json_shape_text(const cJSON *item)
{
	struct strbuf sb = STRBUF_INIT;

	if (cJSON_IsString(item)) {
		cJSON *parsed = cJSON_Parse(item->valuestring);

		if (parsed)
			zl_json_canonical(&sb, parsed);
		else
			strbuf_addstr(&sb, item->valuestring);
		cJSON_Delete(parsed);
	} else {
		zl_json_canonical(&sb, item);
	}
	return strbuf_detach(&sb, NULL);
}
