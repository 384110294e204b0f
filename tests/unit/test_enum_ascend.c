/* npu-smi info table parser: one device per chip, on public outputs of five npu-smi versions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_enum_fixture.h"
#include "zlbench/banned.h"

#define DIR "npu-smi"

static const struct {
	const char *file;
	size_t count;
	const char *name, *driver, *bus0, *bus_last;
	long long mib;
} cases[] = {
	/* A3: 8 NPUs x 2 chips, chips of one NPU split by a +----+ rule */
	{ "npu-smi-info_A3-8npu-16chip_Ascend910_npu-smi24.1.rc3.7.txt", 16,
	  "Ascend910", "24.1.rc3.7", "0000:9D:00.0", "0000:83:00.0", 65536 },
	/* NPU ids 12-15 in a container: the devices are still 0-3; "52675/ 65536" has no blank */
	{ "npu-smi-info_4x-910B2C_npu-smi23.0.3_ids12-15_with-processes.txt", 4,
	  "910B2C", "23.0.3", "0000:D9:00.0", "0000:C9:00.0", 65536 },
	/* 910A: DDR 15077 MB and HBM 32768 MB; the HBM is the device memory */
	{ "npu-smi-info_atlas800-9010_8x-910A_npu-smi22.0.3.1_huawei-doc.txt", 8,
	  "910A", "22.0.3.1", "0000:61:00.0", "0000:3D:00.0", 32768 },
	{ "npu-smi-info_atlas800-9010_8x-910_npu-smi24.1.RC2_with-processes_huawei-doc.txt", 8,
	  "xxx", "24.1.RC2", "0000:C1:00.0", "0000:02:00.0", 32768 },
	/* one 310 card (NPU 215) with four chips; old "Chip Device" layout, DDR only */
	{ "npu-smi-info_atlas800-3000_4x-310_npu-smi20.2.0_huawei-doc.txt", 4,
	  "310", "20.2.0", "0000:DA:00.0", "0000:DB:00.0", 8192 },
	{ "npu-smi-info_atlas800-3000_4x-310_npu-smi21.0.4_huawei-doc.txt", 4,
	  "310", "21.0.4.B030", "0000:89:00.0", "0000:8C:00.0", 8192 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static void test_fixtures(void **state)
{
	size_t i, j;
	(void)state;

	for (i = 0; i < NCASES; i++) {
		struct zl_devlist dl = ZL_DEVLIST_INIT;

		assert_int_equal(parse_fixture(zl_parse_npu_smi_info, DIR, cases[i].file, &dl),
				 cases[i].count);
		for (j = 0; j < dl.nr; j++) {
			assert_int_equal(dl.v[j].index, (int)j);
			assert_string_equal(dl.v[j].name, cases[i].name);
			assert_string_equal(dl.v[j].driver, cases[i].driver);
			assert_int_equal(dl.v[j].memory_mib, cases[i].mib);
			assert_non_null(dl.v[j].bus_id);
		}
		assert_string_equal(dl.v[0].bus_id, cases[i].bus0);
		assert_string_equal(dl.v[dl.nr - 1].bus_id, cases[i].bus_last);
		assert_int_equal(zl_devlist_settle_ids(&dl, NULL), 0);
		assert_string_equal(dl.v[0].uuid, cases[i].bus0);
		zl_devlist_release(&dl);
	}
}

/* `npu-smi info -m` and `-l` are other commands' outputs: refused, not misread. */
static void test_other_commands_refused(void **state)
{
	static const char *const others[] = {
		"npu-smi-info-l_16npu_910B.partial.txt",
		"npu-smi-info-m_atlas800-3000_4x-310-plus-mcu_npu-smi21.0.4_huawei-doc.txt",
		"npu-smi-info-m_atlas800-3000_4x-310_npu-smi20.2.0_huawei-doc.txt",
		"npu-smi-info-m_atlas800-9010_8x-910A_npu-smi22.0.3.1_huawei-doc.txt",
		"npu-smi-info-m_atlas800-9010_8x-910A_npu-smi24.1.RC2_huawei-doc.txt",
	};
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		struct zl_devlist dl = ZL_DEVLIST_INIT;
		struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

		read_fixture(&out, DIR, others[i]);
		if (!zl_parse_npu_smi_info(out.buf, &dl, &err))
			fail_msg("%s parsed into %zu devices", others[i], dl.nr);
		assert_non_null(strstr(err.buf, "no devices in npu-smi output"));
		zl_devlist_release(&dl);
		strbuf_release(&out);
		strbuf_release(&err);
	}
}

static void test_garbage(void **state)
{
	size_t i;
	(void)state;

	parse_garbage(zl_parse_npu_smi_info);
	for (i = 0; i < NCASES; i++) {
		struct strbuf out = STRBUF_INIT;

		read_fixture(&out, DIR, cases[i].file);
		parse_every_prefix(zl_parse_npu_smi_info, out.buf, cases[i].count);
		strbuf_release(&out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_other_commands_refused),
		cmocka_unit_test(test_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
