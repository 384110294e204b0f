/*
 * plugins/skips.json of a run directory (the zl_skips plugin's tests by outcome and skips),
 * read by zl_skips_load when a run ends with pytest's 0. Invariants: a loaded document has
 * counts of zero or more; a run it calls all skipped has a reason to give.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "zlbench/skips.h"
#include "zlbench/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *dir;
	struct zl_skips sk = ZL_SKIPS_INIT;
	struct strbuf err = STRBUF_INIT;
	char *reason;

	if (!dir)
		dir = fuzz_path("run");
	fuzz_write("run/plugins/skips.json", data, size);
	if (zl_skips_load(dir, &sk, &err)) {
		if (!err.len)
			fuzz_fail("a refused skips.json says nothing");
		if (sk.reasons.nr || sk.passed || sk.failed || sk.skipped)
			fuzz_fail("a refused skips.json left something behind");
	} else {
		if (sk.passed < 0 || sk.failed < 0 || sk.skipped < 0)
			fuzz_fail("a negative count");
		reason = zl_skips_reason(&sk);
		if (zl_skips_all_skipped(&sk) && !*reason)
			fuzz_fail("every test skipped, and no reason");
		free(reason);
	}
	zl_skips_release(&sk);
	strbuf_release(&err);
	return 0;
}
