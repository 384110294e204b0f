/* nvidia-smi --query-gpu CSV parser, on the outputs of a real two-GPU H200 host. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_enum_fixture.h"
#include "zlbench/banned.h"

#define DIR "nvidia-smi-h200x2"

static void check_h200x2(const struct zl_devlist *dl)
{
	assert_int_equal(dl->nr, 2);
	assert_int_equal(dl->v[0].index, 0);
	assert_int_equal(dl->v[1].index, 1);
	assert_string_equal(dl->v[0].name, "NVIDIA H200");
	assert_string_equal(dl->v[1].name, "NVIDIA H200");
	assert_string_equal(dl->v[0].uuid, "GPU-40eae92e-7184-a15d-5b9a-58a69d4e49b3");
	assert_string_equal(dl->v[1].uuid, "GPU-07a9c116-3155-df8f-d562-84890a359ef8");
	assert_string_equal(dl->v[0].bus_id, "00000000:00:06.0");
	assert_string_equal(dl->v[1].bus_id, "00000000:00:07.0");
	assert_int_equal(dl->v[0].memory_mib, 143771);
	assert_int_equal(dl->v[1].memory_mib, 143771);
	assert_string_equal(dl->v[0].driver, "580.159.04");
	assert_string_equal(dl->v[1].driver, "580.159.04");
}

/* The exact argv of the cuda row: index,name,uuid,pci.bus_id,memory.total,driver_version. */
static void test_noheader_nounits(void **state)
{
	struct zl_devlist dl = ZL_DEVLIST_INIT;
	(void)state;

	parse_fixture(zl_parse_nvidia_smi_csv, DIR, "query-gpu-noheader-nounits.csv", &dl);
	check_h200x2(&dl);
	zl_devlist_release(&dl);
}

/* With a header, columns are found by name, units are read, extra columns ignored. */
static void test_header_with_units(void **state)
{
	struct zl_devlist dl = ZL_DEVLIST_INIT;
	(void)state;

	parse_fixture(zl_parse_nvidia_smi_csv, DIR, "query-gpu-header.csv", &dl);
	check_h200x2(&dl);
	zl_devlist_release(&dl);
}

/*
 * The one-GPU H200 sample in SOURCE.md: another field order, units, and no index
 * column (rows count from 0).
 */
static void test_header_other_order(void **state)
{
	const char *out =
		"name, uuid, driver_version, memory.total [MiB]\n"
		"NVIDIA H200, GPU-5f2bb59f-386c-2c80-094a-ca0e528384af, 580.159.04, 143771 MiB\n";
	struct zl_devlist dl = ZL_DEVLIST_INIT;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(zl_parse_nvidia_smi_csv(out, &dl, &err), 0);
	assert_int_equal(dl.nr, 1);
	assert_int_equal(dl.v[0].index, 0);
	assert_string_equal(dl.v[0].name, "NVIDIA H200");
	assert_string_equal(dl.v[0].uuid, "GPU-5f2bb59f-386c-2c80-094a-ca0e528384af");
	assert_string_equal(dl.v[0].driver, "580.159.04");
	assert_int_equal(dl.v[0].memory_mib, 143771);
	assert_null(dl.v[0].bus_id);
	zl_devlist_release(&dl);
	strbuf_release(&err);
}

/* The tool's other formats are not this parser's: refused, not misread. */
static void test_other_formats_refused(void **state)
{
	static const char *const others[] = {
		"nvidia-smi.txt", "nvidia-smi-L.txt", "nvidia-smi-L-with-CUDA_VISIBLE_DEVICES-1.txt",
		"nvidia-smi-q.xml", "topo.txt", "dev-nodes.txt",
	};
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		struct zl_devlist dl = ZL_DEVLIST_INIT;
		struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

		read_fixture(&out, DIR, others[i]);
		if (!zl_parse_nvidia_smi_csv(out.buf, &dl, &err))
			fail_msg("%s parsed as query CSV (%zu devices)", others[i], dl.nr);
		assert_non_null(strstr(err.buf, "no devices in nvidia-smi output"));
		zl_devlist_release(&dl);
		strbuf_release(&out);
		strbuf_release(&err);
	}
}

/*
 * nvidia-smi prints "[N/A]" / "[Not Supported]" for fields a GPU lacks and may
 * print a WARNING line first; both are its documented spellings, the rows here
 * are built from the real H200 row.
 */
static void test_na_fields_and_warning(void **state)
{
	const char *out =
		"WARNING: infoROM is corrupted at gpu 00000000:00:07.0\n"
		"0, NVIDIA H200, GPU-40eae92e-7184-a15d-5b9a-58a69d4e49b3, 00000000:00:06.0, [N/A], 580.159.04\n"
		"1, [Not Supported], [N/A], 00000000:00:07.0, 143771, 580.159.04\r\n";
	struct zl_devlist dl = ZL_DEVLIST_INIT;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(zl_parse_nvidia_smi_csv(out, &dl, &err), 0);
	assert_int_equal(dl.nr, 2);
	assert_int_equal(dl.v[0].memory_mib, -1);
	assert_null(dl.v[1].name);
	assert_null(dl.v[1].uuid);
	assert_int_equal(dl.v[1].memory_mib, 143771);
	assert_string_equal(dl.v[1].driver, "580.159.04");
	zl_devlist_release(&dl);
	strbuf_release(&err);
}

static void test_truncated_and_duplicate_rows(void **state)
{
	struct zl_devlist dl = ZL_DEVLIST_INIT;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(zl_parse_nvidia_smi_csv("0, NVIDIA H200, GPU-40ea\n", &dl, &err), -1);
	assert_non_null(strstr(err.buf, "truncated"));
	zl_devlist_release(&dl);
	strbuf_reset(&err);
	assert_int_equal(zl_parse_nvidia_smi_csv(
		"0, A, GPU-a, 00000000:00:06.0, 1, 1\n0, B, GPU-b, 00000000:00:07.0, 1, 1\n", &dl, &err), -1);
	assert_non_null(strstr(err.buf, "twice"));
	zl_devlist_release(&dl);
	strbuf_release(&err);
}

static void test_garbage(void **state)
{
	struct strbuf out = STRBUF_INIT;
	(void)state;

	parse_garbage(zl_parse_nvidia_smi_csv);
	read_fixture(&out, DIR, "query-gpu-noheader-nounits.csv");
	parse_every_prefix(zl_parse_nvidia_smi_csv, out.buf, 2);
	strbuf_reset(&out);
	read_fixture(&out, DIR, "query-gpu-header.csv");
	parse_every_prefix(zl_parse_nvidia_smi_csv, out.buf, 2);
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_noheader_nounits),
		cmocka_unit_test(test_header_with_units),
		cmocka_unit_test(test_header_other_order),
		cmocka_unit_test(test_other_formats_refused),
		cmocka_unit_test(test_na_fields_and_warning),
		cmocka_unit_test(test_truncated_and_duplicate_rows),
		cmocka_unit_test(test_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
