/* mthreads-gmi table parser, on public outputs of four tool versions (old and new layouts). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_enum_fixture.h"
#include "zlbench/banned.h"

#define DIR "mthreads-gmi"

static const struct {
	const char *file;
	size_t count;
	const char *name, *driver, *bus0, *bus_last;
	long long mib;
} cases[] = {
	/* old 63-column layout, with a process table whose rows also start with "0" */
	{ "mthreads-gmi_1x-MTT-S80_gmi1.14.0_drv2.7.0_gpustack-docs.txt", 1,
	  "MTT S80", "2.7.0", "00000000:01:00.0", "00000000:01:00.0", 16384 },
	{ "mthreads-gmi_8x-MTT-S5000_gmi2.4.1_drv5.1.0-server.txt", 8,
	  "MTT S5000", "5.1.0-server", "00000000:18:00.0", "00000000:da:00.0", 81920 },
	/* trailing blanks as the real tool prints them */
	{ "mthreads-gmi_MTT-S4000_gmi2.2.0_drv3.0.0_trailing-blanks.partial.txt", 2,
	  "MTT S4000", "3.0.0", "00000000:08:00.0", "00000000:09:00.0", 49152 },
	{ "mthreads-gmi_MTT-S5000_gmi2.3.2_drv3.3.5-server_trailing-blanks.partial.txt", 2,
	  "MTT S5000", "3.3.5-server", "00000000:2a:00.0", "00000000:3a:00.0", 81920 },
};

static void test_fixtures(void **state)
{
	size_t i, j;
	(void)state;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct zl_devlist dl = ZL_DEVLIST_INIT;

		assert_int_equal(parse_fixture(zl_parse_mthreads_gmi, DIR, cases[i].file, &dl),
				 cases[i].count);
		for (j = 0; j < dl.nr; j++) {
			assert_int_equal(dl.v[j].index, (int)j);
			assert_string_equal(dl.v[j].name, cases[i].name);
			assert_string_equal(dl.v[j].driver, cases[i].driver);
			assert_int_equal(dl.v[j].memory_mib, cases[i].mib);
			/* mthreads-gmi's table has no uuid: the bus id stands in after settling */
			assert_null(dl.v[j].uuid);
		}
		assert_string_equal(dl.v[0].bus_id, cases[i].bus0);
		assert_string_equal(dl.v[dl.nr - 1].bus_id, cases[i].bus_last);
		assert_int_equal(zl_devlist_settle_ids(&dl, NULL), 0);
		assert_string_equal(dl.v[0].uuid, cases[i].bus0);
		zl_devlist_release(&dl);
	}
}

static void test_garbage(void **state)
{
	size_t i;
	(void)state;

	parse_garbage(zl_parse_mthreads_gmi);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf out = STRBUF_INIT;

		read_fixture(&out, DIR, cases[i].file);
		parse_every_prefix(zl_parse_mthreads_gmi, out.buf, cases[i].count);
		strbuf_release(&out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
