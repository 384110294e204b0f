/*
 * Every captured output under tests/fixtures/devices fed to every parser: only
 * the parser of that tool and format may accept it; the others must refuse it
 * with a message (a vendor tool answering on the wrong backend, or a wrapper
 * printing another format, must not turn into a device list).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <dirent.h>
#include <cmocka.h>

#include "test_enum_fixture.h"
#include "zlbench/banned.h"

static const struct {
	const char *name;
	zl_devparse_fn fn;
} parsers[] = {
	{ "nvidia-smi csv", zl_parse_nvidia_smi_csv },
	{ "mthreads-gmi", zl_parse_mthreads_gmi },
	{ "rocm-smi", zl_parse_rocm_smi_json },
	{ "amd-smi list", zl_parse_amd_smi_list },
	{ "npu-smi info", zl_parse_npu_smi_info },
};
#define NPARSERS (sizeof(parsers) / sizeof(parsers[0]))

/* Which parser accepts which file (by directory and name prefix); the rest accept none. */
static const struct {
	const char *dir, *prefix;
	size_t parser;
} accepts[] = {
	{ "nvidia-smi-h200x2", "query-gpu-", 0 },
	{ "mthreads-gmi", "mthreads-gmi_", 1 },
	{ "rocm-smi", "rocm-smi-json_", 2 },
	{ "rocm-smi", "rocm-smi-showproductname-json_", 2 },
	{ "rocm-smi", "rocm-smi-showproduct_", 2 },
	{ "rocm-smi", "rocm-smi-showproductname_", 2 },
	{ "rocm-smi", "rocm-smi-showuniqueid_", 2 },
	{ "rocm-smi", "rocm-smi-i_showid_", 2 },
	{ "rocm-smi", "amd-smi-list_", 3 },
	{ "npu-smi", "npu-smi-info_", 4 },
};

static const char *const dirs[] = { "nvidia-smi-h200x2", "mthreads-gmi", "rocm-smi", "npu-smi" };

static int accepted_by(const char *dir, const char *file, size_t parser)
{
	size_t i;

	for (i = 0; i < sizeof(accepts) / sizeof(accepts[0]); i++)
		if (!strcmp(accepts[i].dir, dir) && zl_starts_with(file, accepts[i].prefix) &&
		    accepts[i].parser == parser)
			return 1;
	return 0;
}

static void test_crossfeed(void **state)
{
	const char *fixtures = getenv("ZL_FIXTURES_DIR");
	size_t d, files = 0;
	(void)state;

	assert_non_null(fixtures);
	for (d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		char *path = xstrfmt("%s/devices/%s", fixtures, dirs[d]);
		DIR *dh = opendir(path);
		struct dirent *de;

		if (!dh)
			fail_msg("cannot open '%s'", path);
		while ((de = readdir(dh))) {
			struct strbuf out = STRBUF_INIT;
			size_t p;

			if (de->d_name[0] == '.' || !strcmp(de->d_name, "SOURCE.md"))
				continue;
			read_fixture(&out, dirs[d], de->d_name);
			files++;
			for (p = 0; p < NPARSERS; p++) {
				struct zl_devlist dl = ZL_DEVLIST_INIT;
				struct strbuf err = STRBUF_INIT;
				int r = parsers[p].fn(out.buf, &dl, &err);

				if (accepted_by(dirs[d], de->d_name, p) && r)
					fail_msg("%s refused %s/%s: %s", parsers[p].name, dirs[d], de->d_name, err.buf);
				if (!accepted_by(dirs[d], de->d_name, p) && !r)
					fail_msg("%s read %zu devices from %s/%s", parsers[p].name, dl.nr,
						 dirs[d], de->d_name);
				if (r)
					assert_true(err.len > 0);
				zl_devlist_release(&dl);
				strbuf_release(&err);
			}
			strbuf_release(&out);
		}
		closedir(dh);
		free(path);
	}
	/* the fixture set holds 40 captured outputs; fewer means a directory went missing */
	assert_true(files >= 40);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crossfeed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
