/*
 * amd-smi list: one block per GPU,
 *
 *   GPU: 0
 *       BDF: 0000:03:00.0
 *       UUID: 00ff740f-0000-1000-8000-000000000000
 *       KFD_ID: 22303
 *
 * It names neither product nor memory. ROCm 6.3 can report the same UUID for
 * every GPU (ROCm/ROCm#5480); zl_devlist_settle_ids() then falls back to the BDF.
 */
#include <stdlib.h>
#include <string.h>

#include "backends/parsers.h"
#include "zlbench/error.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

enum amd_field { A_GPU, A_BDF, A_UUID };

static const struct { const char *key; enum amd_field field; } amd_keys[] = {
	{ "GPU", A_GPU },
	{ "BDF", A_BDF },
	{ "UUID", A_UUID },
};

int zl_parse_amd_smi_list(const char *output, struct zl_devlist *dl, struct strbuf *err)
{
	struct strbuf line = STRBUF_INIT;
	const char *pos = output;
	struct zl_device *cur = NULL;
	size_t before = dl->nr;
	int ret = 0;

	while (!ret && zl_next_line(&pos, &line)) {
		const char *colon;
		size_t klen, i;
		char **slot = NULL;
		int index;

		strbuf_trim(&line);
		colon = strchr(line.buf, ':');
		if (!colon)
			continue;
		klen = (size_t)(colon - line.buf);
		for (i = 0; i < ZL_ARRAY_SIZE(amd_keys); i++)
			if (strlen(amd_keys[i].key) == klen && !strncmp(amd_keys[i].key, line.buf, klen))
				break;
		if (i == ZL_ARRAY_SIZE(amd_keys))
			continue;
		switch (amd_keys[i].field) {
		case A_GPU:
			if (zl_parse_index(colon + 1, strlen(colon + 1), &index))
				ret = zl_error(err, "amd-smi list: bad gpu line '%s'", line.buf);
			else if (zl_devlist_find(dl, index))
				ret = zl_error(err, "amd-smi list: gpu %d listed twice", index);
			else
				cur = zl_devlist_add(dl, index, NULL, NULL, -1, NULL);
			continue;
		case A_BDF:
			slot = cur ? &cur->bus_id : NULL;
			break;
		case A_UUID:
			slot = cur ? &cur->uuid : NULL;
			break;
		}
		if (slot) {
			free(*slot);
			*slot = zl_field_dup(colon + 1, strlen(colon + 1));
		}
	}
	if (!ret && dl->nr == before)
		ret = zl_parse_none(err, "amd-smi", output);
	strbuf_release(&line);
	return ret;
}
