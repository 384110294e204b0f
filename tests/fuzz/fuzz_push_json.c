/*
 * What push reads from outside: a run's JSON files as it sends them (zl_json_compact_python:
 * whitespace dropped, NaN/Infinity sent as null) and the collector's response body
 * (zl_push_server_message). Invariants: compacting lengthens the text only by the NaNs made
 * null (one byte each); without NaNs, text is valid JSON (for cJSON, as a whole) exactly when
 * its compacted form is, and both are the same document; the server message is at most 300
 * bytes of printable text.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "zlbench/push_transport.h"
#include "zlbench/pyjson.h"
#include "zlbench/runload.h"
#include "zlbench/strbuf.h"

/* cJSON's parse of the whole text (JSON blanks may end it), or NULL. */
static cJSON *parse_whole(const char *text, size_t len)
{
	const char *end = NULL;
	cJSON *j = cJSON_ParseWithLengthOpts(text, len, &end, 0);

	while (j && end < text + len && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
		end++;
	if (j && end != text + len) {
		cJSON_Delete(j);
		j = NULL;
	}
	return j;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf out = STRBUF_INIT, msg = STRBUF_INIT, a = STRBUF_INIT, b = STRBUF_INIT;
	size_t replaced = 0, i;
	cJSON *before, *after;

	if (!zl_json_compact_python((const char *)data, size, &out, &replaced)) {
		if (out.len > size + replaced)
			fuzz_fail("compacting %zu bytes (%zu NaN/Infinity) gave %zu", size, replaced, out.len);
		before = parse_whole((const char *)data, size);
		after = parse_whole(out.buf, out.len);
		/* without NaN to replace, compacting keeps valid JSON valid and invalid invalid */
		if (before && !after)
			fuzz_fail("the compacted form of valid JSON is not valid:\n%s", out.buf);
		if (after && !before && !replaced)
			fuzz_fail("compacting made invalid JSON valid:\n%s", out.buf);
		if (before && after && !replaced) {
			zl_json_canonical(&a, before);
			zl_json_canonical(&b, after);
			if (strcmp(a.buf, b.buf))
				fuzz_fail("compacting changed the document:\n%s\n%s", a.buf, b.buf);
		}
		cJSON_Delete(before);
		cJSON_Delete(after);
	}
	zl_push_server_message((const char *)data, size, &msg);
	if (msg.len > 300 + 3)
		fuzz_fail("a server message of %zu bytes", msg.len);
	for (i = 0; i < msg.len; i++)
		if ((unsigned char)msg.buf[i] < 0x20 || msg.buf[i] == 0x7f)
			fuzz_fail("a control character in the server message");
	strbuf_release(&out);
	strbuf_release(&msg);
	strbuf_release(&a);
	strbuf_release(&b);
	return 0;
}
