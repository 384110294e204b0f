/*
 * plugins/timer.jsonl of a run directory (the timer plugin's per-measurement records),
 * read by zl_run_load beside a fixed results.json (a real H200 mm run). Invariants: every
 * row is still found by its own key, and a row's timer figures come from a record.
 */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "zlbench/fsutil.h"
#include "zlbench/runload.h"
#include "zlbench/strbuf.h"

/* a real FlagGems results.json */
#define RESULTS ZL_SOURCE_DIR "/tests/fixtures/flaggems-runs/mm_core_kernel_h200.results.json"

static const char identity[] =
	"{\"schema_version\": 1, \"run_id\": \"20260101-000000-cuda-mm-fuzz00\", \"status\": \"passed\"}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *dir;
	struct strbuf err = STRBUF_INIT;
	struct zl_run run;
	size_t i;

	if (!dir) {
		struct strbuf results = STRBUF_INIT;

		if (zl_read_file(&results, RESULTS, NULL, ZL_CAP_DOC, &err))
			fuzz_fail("%s", err.buf);
		dir = fuzz_path("run");
		fuzz_write("run/run_identity.json", identity, strlen(identity));
		fuzz_write("run/results.json", results.buf, results.len);
		strbuf_release(&results);
	}
	fuzz_write("run/plugins/timer.jsonl", data, size);
	zl_run_init(&run);
	if (zl_run_load(dir, &run, &err))
		fuzz_fail("the run did not load: %s", err.buf);
	if (!run.nr_results)
		fuzz_fail("the fixed results.json lost its rows");
	for (i = 0; i < run.nr_results; i++) {
		const struct zl_result *r = &run.results[i];

		if (zl_run_find(&run, r->op, r->dtype, r->shape, r->occurrence, r->side) != r)
			fuzz_fail("row %zu is not found by its own key", i);
		if (!run.has_timer && (r->timer || r->samples != -1 || !isnan(r->median_ms)))
			fuzz_fail("row %zu has timer figures without a timer file", i);
	}
	zl_run_release(&run);
	strbuf_release(&err);
	return 0;
}
