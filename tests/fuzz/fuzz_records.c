/*
 * Autotune records (<run>/autotune_records/<kernel>.json, plugins/zl_autotune.py), as the C
 * side reads them: batch's warm-up merge of the shards' records (zl_batch_merge_records).
 * The input is one shard's record; a second shard holds a fixed record of the same kernel,
 * so that entries are merged. Invariant: what the merge writes is JSON that reads back.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "zlbench/batch.h"
#include "zlbench/fsutil.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"

static const char fixed[] =
	"{\"format\": \"zlbench-autotune-record\", \"version\": 1, \"kernel\": \"flag_gems.ops.mm.mm_kernel\","
	" \"entries\": [{\"key\": \"[384, 384, 384]\", \"key_values\": [384, 384, 384],"
	" \"config\": {\"kwargs\": {\"BLOCK_M\": 64}, \"all_kwargs\": {\"BLOCK_M\": 64, \"num_warps\": 4},"
	" \"num_warps\": 4, \"num_stages\": 3, \"num_ctas\": 1, \"maxnreg\": null},"
	" \"source\": \"tuned\", \"tuning_time_s\": 0.5, \"in_config_space\": true, \"first_test\": \"t\"}]}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct strvec shards = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	struct zl_merge_stats st;
	char *merged, *summary;

	if (!shards.nr) {
		char *a = fuzz_path("shard1"), *b = fuzz_path("shard2");

		strvec_push(&shards, a);
		strvec_push(&shards, b);
		free(a);
		free(b);
		fuzz_write("shard2/autotune_records/flag_gems.ops.mm.mm_kernel.json", fixed, strlen(fixed));
	}
	fuzz_write("shard1/autotune_records/flag_gems.ops.mm.mm_kernel.json", data, size);
	merged = fuzz_path("merged");
	if (zl_remove_tree(merged, &err))
		fuzz_fail("%s", err.buf);
	zl_merge_stats_init(&st);
	if (!zl_batch_merge_records(&shards, merged, &st, &err)) {
		cJSON *doc;

		summary = zl_path_join(merged, "merge.json");
		if (zl_read_file(&text, summary, NULL, ZL_CAP_DOC, &err))
			fuzz_fail("the merge wrote no merge.json: %s", err.buf);
		doc = cJSON_ParseWithLength(text.buf, text.len);
		if (!cJSON_IsObject(doc))
			fuzz_fail("merge.json is not a JSON object");
		cJSON_Delete(doc);
		free(summary);
		/* the merged record of the kernel, when the input named the same one */
		summary = zl_path_join(merged, "autotune_records/flag_gems.ops.mm.mm_kernel.json");
		strbuf_reset(&text);
		if (!zl_read_file(&text, summary, NULL, ZL_CAP_DOC, NULL)) {
			doc = cJSON_ParseWithLength(text.buf, text.len);
			if (!cJSON_IsObject(doc))
				fuzz_fail("the merged record is not a JSON object:\n%s", text.buf);
			cJSON_Delete(doc);
		}
		free(summary);
	} else if (!err.len) {
		fuzz_fail("a failed merge says nothing");
	}
	zl_merge_stats_release(&st);
	free(merged);
	strbuf_release(&err);
	strbuf_release(&text);
	return 0;
}
