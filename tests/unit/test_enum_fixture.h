/*
 * Helpers for the device-enumeration tests (tests/unit/test_enum_*.c): read a
 * captured tool output from tests/fixtures/devices ($ZL_FIXTURES_DIR), parse it, and
 * feed a parser every prefix of an output (a truncated capture) and other garbage.
 * Include after <cmocka.h>.
 */
#ifndef ZL_TEST_ENUM_FIXTURE_H
#define ZL_TEST_ENUM_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "zlbench/backend.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"
#include "../../backends/parsers.h"

/* The fixture's text; fails the test when it cannot be read. Caller releases sb. */
static inline void read_fixture(struct strbuf *sb, const char *dir, const char *file)
{
	const char *fixtures = getenv("ZL_FIXTURES_DIR");
	char *path;

	assert_non_null(fixtures);
	path = xstrfmt("%s/devices/%s/%s", fixtures, dir, file);
	if (strbuf_read_file(sb, path) < 0)
		fail_msg("cannot read fixture '%s'", path);
	free(path);
}

/* Parse a fixture with fn; asserts success and returns the device count. */
static inline size_t parse_fixture(zl_devparse_fn fn, const char *dir, const char *file,
				   struct zl_devlist *dl)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

	read_fixture(&out, dir, file);
	if (fn(out.buf, dl, &err))
		fail_msg("parsing %s/%s failed: %s", dir, file, err.buf);
	strbuf_release(&out);
	strbuf_release(&err);
	return dl->nr;
}

/*
 * Every prefix of text, and text with each line cut short, must parse or fail
 * cleanly (ASan/UBSan watch the memory); a success never yields more devices
 * than the whole text, and a failure always says why.
 */
static inline void parse_every_prefix(zl_devparse_fn fn, const char *text, size_t full_count)
{
	size_t len = strlen(text), n;

	for (n = 0; n <= len; n++) {
		struct zl_devlist dl = ZL_DEVLIST_INIT;
		struct strbuf err = STRBUF_INIT;
		char *cut = xstrndup(text, n);
		int r = fn(cut, &dl, &err);

		if (r)
			assert_true(err.len > 0);
		else
			assert_true(dl.nr >= 1 && dl.nr <= full_count);
		zl_devlist_release(&dl);
		strbuf_release(&err);
		free(cut);
	}
}

/* Inputs no tool prints: each must fail with a message, never crash. */
static inline void parse_garbage(zl_devparse_fn fn)
{
	static const char *const junk[] = {
		"", "\n", "\n\n\n", " ", "|", "||||\n", "{", "}", "{}", "[]", "{\"card0\":",
		"GPU[", "GPU[]", "GPU[0", "GPU: ", ":", ": : :", ",,,,,", "0,", "0\n",
		"+----+\n| |\n", "\xff\xfe\x00", "Driver Version:", "Version:", "npu-smi Version:",
		"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
		"No devices were found\n",
	};
	size_t i;

	for (i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		struct zl_devlist dl = ZL_DEVLIST_INIT;
		struct strbuf err = STRBUF_INIT;

		if (!fn(junk[i], &dl, &err))
			fail_msg("garbage input %zu ('%s') parsed into %zu devices", i, junk[i], dl.nr);
		assert_true(err.len > 0);
		zl_devlist_release(&dl);
		strbuf_release(&err);
	}
}

#endif
