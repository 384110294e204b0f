/* plugins/skips.json: the session's tests by outcome and its skips (zl_skips, plugins/README.md). */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/json.h"
#include "zlbench/skips.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* At most this many reasons are kept, and at most this many are named in the run's reason. */
#define MAX_REASONS 64
#define NAMED_REASONS 3

void zl_skips_release(struct zl_skips *s)
{
	strvec_clear(&s->reasons);
	s->passed = s->failed = s->skipped = 0;
	s->unsupported_dtype = 0;
}

/* A count: a whole number from 0 up. */
static int count(const cJSON *doc, const char *key, long *out, struct strbuf *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);
	long n = zl_json_long(v, -1);

	if (n < 0 || (double)n != v->valuedouble)
		return zl_error(err, "'%s' is not a count", key);
	*out = n;
	return 0;
}

static int parse(const cJSON *doc, struct zl_skips *out, struct strbuf *err)
{
	const cJSON *skips, *s;

	if (!cJSON_IsObject(doc))
		return zl_error(err, "not a JSON object");
	if (count(doc, "passed", &out->passed, err) || count(doc, "failed", &out->failed, err) ||
	    count(doc, "skipped", &out->skipped, err))
		return -1;
	skips = cJSON_GetObjectItemCaseSensitive(doc, "skips");
	if (!cJSON_IsArray(skips))
		return zl_error(err, "'skips' is not an array");
	cJSON_ArrayForEach(s, skips) {
		const char *reason = zl_json_path_string(s, "reason");
		const cJSON *dtype = cJSON_IsObject(s) ? cJSON_GetObjectItemCaseSensitive(s, "unsupported_dtype") : NULL;

		if (!cJSON_IsObject(s) || !reason)
			return zl_error(err, "a skip without a 'reason' string");
		if (cJSON_IsTrue(dtype))
			out->unsupported_dtype++;
		if (out->reasons.nr < MAX_REASONS && strvec_find(&out->reasons, reason) < 0)
			strvec_push(&out->reasons, reason);
	}
	return 0;
}

int zl_skips_parse(const char *text, size_t len, struct zl_skips *out, struct strbuf *err)
{
	cJSON *doc = cJSON_ParseWithLength(text, len);
	int rc;

	zl_skips_release(out);
	rc = doc ? parse(doc, out, err) : zl_error(err, "not JSON");
	if (rc)
		zl_skips_release(out);
	cJSON_Delete(doc);
	return rc;
}

int zl_skips_load(const char *run_dir, struct zl_skips *out, struct strbuf *err)
{
	char *path = zl_path_join(run_dir, "plugins/skips.json");
	struct strbuf text = STRBUF_INIT, why = STRBUF_INIT;
	int rc = zl_read_file(&text, path, "skips file", ZL_CAP_DOC, err);

	if (!rc && (rc = zl_skips_parse(text.buf, text.len, out, &why)))
		zl_error(err, "skips file '%s': %s", path, why.buf);
	strbuf_release(&text);
	strbuf_release(&why);
	free(path);
	return rc;
}

int zl_skips_all_skipped(const struct zl_skips *s)
{
	return s->skipped > 0 && !s->passed && !s->failed;
}

char *zl_skips_reason(const struct zl_skips *s)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < s->reasons.nr && i < NAMED_REASONS; i++)
		strbuf_addf(&sb, "%s%s", i ? "; " : "", s->reasons.v[i]);
	if (s->reasons.nr > NAMED_REASONS)
		strbuf_addf(&sb, "; and %zu more", s->reasons.nr - NAMED_REASONS);
	if (!sb.len)
		strbuf_addf(&sb, "%ld test%s skipped", s->skipped, s->skipped == 1 ? "" : "s");
	return strbuf_detach(&sb, NULL);
}
