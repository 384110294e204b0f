/*
 * run_identity.json of a run directory: zl_run_load's identity fields, compare's caliber
 * check against a fixed run, batch's row from an identity (on --resume) and push's
 * document. Invariant: a loaded identity has its run_id.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "zlbench/batch.h"
#include "zlbench/compare.h"
#include "zlbench/push.h"
#include "zlbench/push_doc.h"
#include "zlbench/runload.h"
#include "zlbench/strbuf.h"

static const char other[] =
	"{\"schema_version\": 1, \"run_id\": \"20260101-000000-cuda-mm-fuzz00\", \"status\": \"passed\","
	" \"exit_code\": 0, \"backend\": \"cuda\", \"vendor\": \"nvidia\", \"level\": \"core\", \"op\": \"mm\","
	" \"devices\": [{\"index\": 0, \"name\": \"NVIDIA H200\"}], \"shape_mode\": \"upstream\","
	" \"autotune\": {\"mode\": \"replay\", \"replay_from\": \"/nonexistent\"},"
	" \"tuner_cache\": {\"mode\": \"shared\", \"winners_before\": 3}}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *dir, *other_dir;
	static struct zl_run b;
	struct strbuf err = STRBUF_INIT;
	struct zl_batch_row row;
	struct zl_run run;
	struct zl_caliber cal;
	char *doc = NULL, *name = NULL;

	if (!dir) {
		dir = fuzz_path("run");
		other_dir = fuzz_path("other");
		fuzz_write("other/run_identity.json", other, strlen(other));
		zl_run_init(&b);
		if (zl_run_load(other_dir, &b, &err))
			fuzz_fail("the fixed run did not load: %s", err.buf);
	}
	fuzz_write("run/run_identity.json", data, size);
	zl_run_init(&run);
	if (!zl_run_load(dir, &run, &err)) {
		if (!run.run_id)
			fuzz_fail("a run loaded without a run_id");
		zl_caliber_init(&cal);
		zl_caliber_check(&run, &b, &cal);
		zl_caliber_release(&cal);
		zl_caliber_init(&cal);
		zl_caliber_check(&b, &run, &cal);
		zl_caliber_release(&cal);
		zl_run_release(&run);
	}
	zl_batch_row_init(&row);
	(void)zl_batch_row_from_identity(&row, dir, &err);
	zl_batch_row_release(&row);
	if (!zl_push_build_document(dir, &doc, &name, &err) && (!doc || !name))
		fuzz_fail("push built no document");
	free(doc);
	free(name);
	strbuf_release(&err);
	return 0;
}
