/* rocm-smi (JSON and "GPU[i] : Key: value" text) and amd-smi list parsers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_enum_fixture.h"
#include "zlbench/banned.h"

#define DIR "rocm-smi"

static void test_json_rx7800xt(void **state)
{
	struct zl_devlist dl = ZL_DEVLIST_INIT;
	(void)state;

	parse_fixture(zl_parse_rocm_smi_json, DIR,
		      "rocm-smi-json_1x-RX7800XT_rocm6.2.4_pretty-printed_gpustack.json", &dl);
	assert_int_equal(dl.nr, 1);
	assert_int_equal(dl.v[0].index, 0);
	assert_string_equal(dl.v[0].name, "Navi 32 [Radeon RX 7700 XT / 7800 XT]");
	assert_string_equal(dl.v[0].uuid, "0x5c88007d760374f3");
	/* "VRAM Total Memory (B)": "17163091968" */
	assert_int_equal(dl.v[0].memory_mib, 17163091968LL / (1024 * 1024));
	assert_null(dl.v[0].driver);
	zl_devlist_release(&dl);
}

/* Only --showproductname: the name comes from "Card Series", nothing else is known. */
static void test_json_productname_only(void **state)
{
	struct zl_devlist dl = ZL_DEVLIST_INIT;
	(void)state;

	parse_fixture(zl_parse_rocm_smi_json, DIR,
		      "rocm-smi-showproductname-json_1x-MI250X-GCD_pretty-printed.json", &dl);
	assert_int_equal(dl.nr, 1);
	assert_string_equal(dl.v[0].name, "AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2");
	assert_null(dl.v[0].uuid);
	assert_int_equal(dl.v[0].memory_mib, -1);
	zl_devlist_release(&dl);
}

/*
 * The one-line JSON of the row's argv, as rocm_smi.py builds it: formatJson()
 * files each "Key: value" under "card<N>", printSysLog() the driver under
 * "system", json.dumps() prints it; a low-power WARNING can come first (seen
 * above rocm-smi output in public tests, see SOURCE.md). No verbatim one-line
 * sample exists, so this one is built: bus ids, driver and the N/A unique ids
 * follow the MI210 host of ROCm/ROCm#5480; the name and the 64 GiB are an
 * MI210's as an illustration. card1 comes first to check the ordering.
 */
static void test_json_full_argv(void **state)
{
	const char *out =
		"WARNING: AMD GPU device(s) is/are in a low-power state. Check power control/runtime_status\n\n"
		"{\"card1\": {\"Device Name\": \"Aldebaran/MI200 [Instinct MI210]\", \"Device ID\": \"0x740f\", "
		"\"Unique ID\": \"N/A\", \"PCI Bus\": \"0000:83:00.0\", \"VRAM Total Memory (B)\": \"68702699520\", "
		"\"VRAM Total Used Memory (B)\": \"10960896\", \"Card Series\": \"Aldebaran/MI200 [Instinct MI210]\"}, "
		"\"card0\": {\"Device Name\": \"Aldebaran/MI200 [Instinct MI210]\", \"Unique ID\": \"N/A\", "
		"\"PCI Bus\": \"0000:03:00.0\", \"VRAM Total Memory (B)\": \"68702699520\"}, "
		"\"system\": {\"Driver version\": \"6.10.5\"}}\n";
	struct zl_devlist dl = ZL_DEVLIST_INIT;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(zl_parse_rocm_smi_json(out, &dl, &err), 0);
	assert_int_equal(dl.nr, 2);
	assert_int_equal(zl_devlist_settle_ids(&dl, NULL), 0);
	assert_int_equal(dl.v[0].index, 0);
	assert_string_equal(dl.v[0].bus_id, "0000:03:00.0");
	assert_string_equal(dl.v[0].uuid, "0000:03:00.0");
	assert_string_equal(dl.v[1].uuid, "0000:83:00.0");
	assert_string_equal(dl.v[1].name, "Aldebaran/MI200 [Instinct MI210]");
	assert_int_equal(dl.v[1].memory_mib, 65520);
	assert_string_equal(dl.v[0].driver, "6.10.5");
	assert_string_equal(dl.v[1].driver, "6.10.5");
	zl_devlist_release(&dl);
	strbuf_release(&err);
}

/* Text output of the same show flags (ROCm 6.1.1 changelog samples, TAB-separated 6.3.3). */
static void test_text_pairs(void **state)
{
	struct zl_devlist dl = ZL_DEVLIST_INIT;
	size_t i;
	(void)state;

	parse_fixture(zl_parse_rocm_smi_json, DIR,
		      "rocm-smi-showproduct_4x-MI300A_rocm6.1.1_vendor-changelog.txt", &dl);
	assert_int_equal(dl.nr, 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(dl.v[i].index, (int)i);
		assert_string_equal(dl.v[i].name, "Aqua Vanjaram [Instinct MI300A]");
	}
	zl_devlist_release(&dl);

	parse_fixture(zl_parse_rocm_smi_json, DIR,
		      "rocm-smi-i_showid_4x-MI300A_rocm6.1.1_vendor-changelog.txt", &dl);
	assert_int_equal(dl.nr, 4);
	assert_string_equal(dl.v[3].name, "Aqua Vanjaram [Instinct MI300A]");
	zl_devlist_release(&dl);

	parse_fixture(zl_parse_rocm_smi_json, DIR, "rocm-smi-showuniqueid_1x-MI210_rocm6.3.3.txt", &dl);
	assert_int_equal(dl.nr, 1);
	assert_string_equal(dl.v[0].uuid, "0x67c63ac3c3c637f9");
	zl_devlist_release(&dl);

	/* the bug of ROCm/ROCm#5480: both unique ids N/A, so unknown, not "N/A" */
	parse_fixture(zl_parse_rocm_smi_json, DIR, "rocm-smi-showuniqueid_2x-MI210_NA_rocm6.3.3.txt", &dl);
	assert_int_equal(dl.nr, 2);
	assert_null(dl.v[0].uuid);
	assert_null(dl.v[1].uuid);
	zl_devlist_release(&dl);

	/* ROCm 4.0 prints the device id as "Card series": not a name */
	parse_fixture(zl_parse_rocm_smi_json, DIR, "rocm-smi-showproductname_1x-MI100_rocm4.0.0.txt", &dl);
	assert_int_equal(dl.nr, 1);
	assert_null(dl.v[0].name);
	zl_devlist_release(&dl);
}

/* The concise tables and CSVs hold no key/value pairs: refused, not misread. */
static void test_tables_refused(void **state)
{
	static const char *const tables[] = {
		"rocm-smi_2x-MI210_rocm6.3.3.txt",
		"rocm-smi_RX6800M-plus-iGPU_exception-map-at_rocm6.3.1.txt",
		"rocm-smi_8x-MI300X_jax-rocm-readme.txt",
		"rocm-smi_2x-Navi21-Navi22_rocm6.1.1_vendor-changelog.txt",
		"rocm-smi_1x-MI300A_pre6.1.1-stacked-format_vendor-changelog.txt",
		"rocm-smi-showhw_12x-MI300A-TPX_rocm6.1.1_vendor-changelog.txt",
		"rocm-smi-showproductname-csv_2x-MI100.csv",
		"rocm-smi-showdriverversion-csv.csv",
	};
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		struct zl_devlist dl = ZL_DEVLIST_INIT;
		struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

		read_fixture(&out, DIR, tables[i]);
		if (!zl_parse_rocm_smi_json(out.buf, &dl, &err))
			fail_msg("%s parsed into %zu devices", tables[i], dl.nr);
		assert_non_null(strstr(err.buf, "rocm-smi"));
		zl_devlist_release(&dl);
		strbuf_release(&out);
		strbuf_release(&err);
	}
}

static void test_amd_smi_list(void **state)
{
	struct zl_devlist dl = ZL_DEVLIST_INIT;
	size_t replaced = 99;
	(void)state;

	parse_fixture(zl_parse_amd_smi_list, DIR, "amd-smi-list_1x-MI210_rocm6.3.3.txt", &dl);
	assert_int_equal(dl.nr, 1);
	assert_string_equal(dl.v[0].uuid, "67ff740f-0000-1000-80c6-3ac3c3c637f9");
	assert_string_equal(dl.v[0].bus_id, "0000:03:00.0");
	assert_int_equal(zl_devlist_settle_ids(&dl, &replaced), 0);
	assert_int_equal(replaced, 0);
	assert_string_equal(dl.v[0].uuid, "67ff740f-0000-1000-80c6-3ac3c3c637f9");
	zl_devlist_release(&dl);

	parse_fixture(zl_parse_amd_smi_list, DIR, "amd-smi-list_2x-gpu_uuid-redacted_rocm6.3.0_vendor-changelog.txt", &dl);
	assert_int_equal(dl.nr, 2);
	assert_string_equal(dl.v[1].bus_id, "0000:26:00.0");
	zl_devlist_release(&dl);
}

/* Two MI210s reporting one UUID: the bus ids tell them apart. */
static void test_amd_smi_duplicate_uuid(void **state)
{
	struct zl_devlist dl = ZL_DEVLIST_INIT;
	size_t replaced = 0;
	(void)state;

	parse_fixture(zl_parse_amd_smi_list, DIR, "amd-smi-list_2x-MI210_dup-uuid_rocm6.3.3.txt", &dl);
	assert_int_equal(dl.nr, 2);
	assert_string_equal(dl.v[0].uuid, dl.v[1].uuid);
	assert_int_equal(zl_devlist_settle_ids(&dl, &replaced), 0);
	assert_int_equal(replaced, 2);
	assert_string_equal(dl.v[0].uuid, "0000:03:00.0");
	assert_string_equal(dl.v[1].uuid, "0000:83:00.0");
	zl_devlist_release(&dl);
}

/* Shared uuids and no bus id to fall back on: reported as still shared. */
static void test_settle_without_bus_ids(void **state)
{
	struct zl_devlist dl = ZL_DEVLIST_INIT;
	size_t replaced = 7;
	(void)state;

	zl_devlist_add(&dl, 1, NULL, "same", -1, NULL);
	zl_devlist_add(&dl, 0, NULL, "same", -1, NULL);
	zl_devlist_add(&dl, 2, NULL, "other", -1, NULL);
	assert_int_equal(zl_devlist_settle_ids(&dl, &replaced), 2);
	assert_int_equal(replaced, 0);
	assert_int_equal(dl.v[0].index, 0);
	assert_int_equal(dl.v[2].index, 2);
	zl_devlist_release(&dl);
}

static void test_garbage(void **state)
{
	static const char *const own[][2] = {
		{ "rocm-smi-json_1x-RX7800XT_rocm6.2.4_pretty-printed_gpustack.json", "1" },
		{ "rocm-smi-showproduct_4x-MI300A_rocm6.1.1_vendor-changelog.txt", "4" },
		{ "rocm-smi-showuniqueid_2x-MI210_NA_rocm6.3.3.txt", "2" },
	};
	struct strbuf out = STRBUF_INIT;
	size_t i;
	(void)state;

	parse_garbage(zl_parse_rocm_smi_json);
	parse_garbage(zl_parse_amd_smi_list);
	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		strbuf_reset(&out);
		read_fixture(&out, DIR, own[i][0]);
		parse_every_prefix(zl_parse_rocm_smi_json, out.buf, (size_t)atoi(own[i][1]));
	}
	strbuf_reset(&out);
	read_fixture(&out, DIR, "amd-smi-list_2x-MI210_dup-uuid_rocm6.3.3.txt");
	parse_every_prefix(zl_parse_amd_smi_list, out.buf, 2);
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_rx7800xt),
		cmocka_unit_test(test_json_productname_only),
		cmocka_unit_test(test_json_full_argv),
		cmocka_unit_test(test_text_pairs),
		cmocka_unit_test(test_tables_refused),
		cmocka_unit_test(test_amd_smi_list),
		cmocka_unit_test(test_amd_smi_duplicate_uuid),
		cmocka_unit_test(test_settle_without_bus_ids),
		cmocka_unit_test(test_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
