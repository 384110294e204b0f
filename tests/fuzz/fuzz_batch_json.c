/*
 * A batch's batch.json, read on --resume: zl_batch_config_load, then what resume does with
 * it (the child's argv, a new session appended). Invariant: a loaded config has a backend,
 * a FlagGems directory and operators.
 */
#include <stdlib.h>

#include "fuzz.h"
#include "zlbench/batch.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *dir;
	struct zl_batch_config c;
	struct strbuf err = STRBUF_INIT;
	struct strvec argv = STRVEC_INIT;
	static const char *const session[] = { "zlbench", "batch", "--resume", "x", NULL };

	if (!dir)
		dir = fuzz_path("batch");
	fuzz_write("batch/batch.json", data, size);
	zl_batch_config_init(&c);
	if (!zl_batch_config_load(&c, dir, &err)) {
		if (!c.backend || !c.flaggems_dir || !c.ops.nr)
			fuzz_fail("a batch.json loaded without backend, flaggems_dir or ops");
		zl_batch_child_argv(&c, "/bin/false", c.ops.v[0], c.devices.nr ? c.devices.v[0] : "0", "runs/x",
				    NULL, &argv);
		(void)zl_batch_is_slurm(&c);
		(void)zl_batch_config_add_session(&c, session, 1, &err);
	} else if (!err.len) {
		fuzz_fail("a refused batch.json says nothing");
	}
	zl_batch_config_release(&c);
	strvec_clear(&argv);
	strbuf_release(&err);
	return 0;
}
