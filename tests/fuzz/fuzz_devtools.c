/*
 * The vendors' query tools' output (backends/): the first byte picks the parser, the rest
 * is the captured output. Invariants: a parser that succeeds found at least one device, and
 * settling the ids leaves every device with its fields as strings or NULL.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "backends/parsers.h"
#include "fuzz.h"
#include "zlbench/backend.h"
#include "zlbench/strbuf.h"

static int (*const parsers[])(const char *, struct zl_devlist *, struct strbuf *) = {
	zl_parse_nvidia_smi_csv,
	zl_parse_mthreads_gmi,
	zl_parse_rocm_smi_json,
	zl_parse_amd_smi_list,
	zl_parse_npu_smi_info,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zl_devlist dl = ZL_DEVLIST_INIT;
	struct strbuf err = STRBUF_INIT;
	char *text;
	size_t replaced, i;
	cJSON *json;

	if (!size)
		return 0;
	text = fuzz_cstr(data + 1, size - 1);
	if (!parsers[data[0] % (sizeof(parsers) / sizeof(parsers[0]))](text, &dl, &err)) {
		if (!dl.nr)
			fuzz_fail("a parser succeeded without a device");
		(void)zl_devlist_settle_ids(&dl, &replaced);
		for (i = 0; i < dl.nr; i++) {
			json = zl_device_to_json(&dl.v[i]);
			if (!json)
				fuzz_fail("device %zu has no JSON form", i);
			cJSON_Delete(json);
		}
	}
	zl_devlist_release(&dl);
	strbuf_release(&err);
	free(text);
	return 0;
}
