/* The backend table: names, aliases, visibility variables, capabilities, query argvs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "zlbench/backend.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* What each vendor's runtime reads (SOURCE.md files under tests/fixtures/devices). */
static const struct {
	const char *name, *vendor, *visibility, *tool;
	int graph;
} expected[] = {
	{ "cuda", "nvidia", "CUDA_VISIBLE_DEVICES", "nvidia-smi", 1 },
	{ "musa", "mthreads", "MUSA_VISIBLE_DEVICES", "mthreads-gmi", 0 },
	{ "rocm", "amd", "HIP_VISIBLE_DEVICES", "rocm-smi", 0 },
	{ "ascend", "ascend", "ASCEND_RT_VISIBLE_DEVICES", "npu-smi", 0 },
};
#define NEXPECTED (sizeof(expected) / sizeof(expected[0]))

static void test_count_and_rows(void **state)
{
	size_t i;
	(void)state;

	assert_int_equal(zl_backend_count(), NEXPECTED);
	for (i = 0; i < NEXPECTED; i++) {
		const struct zl_backend *b = zl_backend_find(expected[i].name);

		assert_non_null(b);
		assert_string_equal(b->name, expected[i].name);
		assert_string_equal(b->vendor_name, expected[i].vendor);
		assert_string_equal(b->visibility_var, expected[i].visibility);
		assert_string_equal(b->query_tool, expected[i].tool);
		assert_int_equal(zl_backend_has(b, ZL_CAP_GRAPH_CAPTURE), expected[i].graph);
	}
}

/* Upper-case, lower-case and mixed-case spellings of every name and alias. */
static void test_every_alias_resolves(void **state)
{
	const struct zl_backend *b;
	(void)state;

	for (b = zl_backend_table; b->name; b++) {
		const char *const *a;

		assert_ptr_equal(zl_backend_find(b->name), b);
		for (a = b->aliases; a && *a; a++) {
			char *upper = xstrdup(*a), *mixed = xstrdup(*a);
			size_t i;

			for (i = 0; upper[i]; i++) {
				upper[i] = (char)toupper((unsigned char)upper[i]);
				if (i % 2 == 0)
					mixed[i] = upper[i];
			}
			assert_ptr_equal(zl_backend_find(*a), b);
			assert_ptr_equal(zl_backend_find(upper), b);
			assert_ptr_equal(zl_backend_find(mixed), b);
			free(upper);
			free(mixed);
		}
	}
	assert_ptr_equal(zl_backend_find("NVIDIA"), zl_backend_find("cuda"));
	assert_ptr_equal(zl_backend_find("Moore"), zl_backend_find("musa"));
	assert_ptr_equal(zl_backend_find("HIP"), zl_backend_find("rocm"));
	assert_ptr_equal(zl_backend_find("npu"), zl_backend_find("ascend"));
}

static void test_unknown_backend(void **state)
{
	(void)state;
	assert_null(zl_backend_find(NULL));
	assert_null(zl_backend_find(""));
	assert_null(zl_backend_find("nvdia"));
	assert_null(zl_backend_find("cuda "));
	assert_null(zl_backend_find("xpu"));
}

/* No alias may name two backends, or the lookup order would decide silently. */
static void test_aliases_unique(void **state)
{
	const struct zl_backend *b, *c;
	(void)state;

	for (b = zl_backend_table; b->name; b++) {
		const char *const *a;

		for (a = b->aliases; a && *a; a++)
			for (c = zl_backend_table; c->name; c++)
				if (c != b)
					assert_false(zl_strcaseeq(c->name, *a));
	}
}

static void test_choices_lists_everything(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	const struct zl_backend *b;
	(void)state;

	zl_backend_choices(&sb);
	for (b = zl_backend_table; b->name; b++) {
		const char *const *a;

		assert_non_null(strstr(sb.buf, b->name));
		for (a = b->aliases; a && *a; a++)
			assert_non_null(strstr(sb.buf, *a));
	}
	assert_non_null(strstr(sb.buf, "cuda (nvidia, cu)"));
	strbuf_release(&sb);
}

/* Only cuda captures graphs; every capability bit has a name. */
static void test_capabilities(void **state)
{
	const struct zl_capability_def *c;
	const struct zl_backend *b;
	unsigned all = 0;
	(void)state;

	for (c = zl_capability_table; c->name; c++) {
		assert_int_not_equal(c->bit, 0);
		all |= c->bit;
	}
	assert_true(all & ZL_CAP_GRAPH_CAPTURE);
	for (b = zl_backend_table; b->name; b++) {
		assert_int_equal(b->caps & ~all, 0);
		assert_int_equal(zl_backend_has(b, ZL_CAP_GRAPH_CAPTURE), !strcmp(b->name, "cuda"));
	}
	assert_false(zl_backend_has(NULL, ZL_CAP_GRAPH_CAPTURE));
}

/*
 * The profiler timer where public code shows device kernel timestamps (cuda, rocm); a
 * row without it says why, a row with it needs no note; the clock source per row.
 */
static void test_kernel_profiler_and_notes(void **state)
{
	const struct zl_backend *b;
	const struct zl_capability_def *c;
	(void)state;

	assert_non_null(zl_capability_find(ZL_CAP_KERNEL_PROFILER));
	assert_string_equal(zl_capability_find(ZL_CAP_KERNEL_PROFILER)->name, "kernel_profiler");
	assert_null(zl_capability_find(1u << 30));
	for (b = zl_backend_table; b->name; b++) {
		int on = !strcmp(b->name, "cuda") || !strcmp(b->name, "rocm");
		const char *why = zl_backend_cap_note(b, ZL_CAP_KERNEL_PROFILER);

		assert_int_equal(zl_backend_has(b, ZL_CAP_KERNEL_PROFILER), on);
		if (on)
			assert_null(why);
		else
			assert_true(why && strlen(why) > 20);
		/* a note is never kept for a capability the row has */
		for (c = zl_capability_table; c->name; c++)
			if (zl_backend_has(b, c->bit))
				assert_null(zl_backend_cap_note(b, c->bit));
		assert_string_equal(zl_backend_clock_source(b), !strcmp(b->name, "cuda") ? "nvml" : "none");
	}
	assert_non_null(strstr(zl_backend_cap_note(zl_backend_find("musa"), ZL_CAP_KERNEL_PROFILER), "torch_musa"));
	assert_non_null(strstr(zl_backend_cap_note(zl_backend_find("ascend"), ZL_CAP_KERNEL_PROFILER), "torch_npu"));
	assert_null(zl_backend_cap_note(zl_backend_find("musa"), ZL_CAP_GRAPH_CAPTURE));
	assert_null(zl_backend_cap_note(NULL, ZL_CAP_KERNEL_PROFILER));
	assert_string_equal(zl_backend_clock_source(NULL), "none");
}

/* argv[0] is the tool the row names, and each query has its parser. */
static void test_query_rows_consistent(void **state)
{
	const struct zl_backend *b;
	(void)state;

	for (b = zl_backend_table; b->name; b++) {
		assert_non_null(b->query_argv);
		assert_string_equal(b->query_argv[0], b->query_tool);
		assert_non_null(b->parse);
		assert_non_null(b->dev_node_prefix);
		assert_non_null(b->vendor_module);
		assert_non_null(b->extra_visibility_vars);
		assert_non_null(b->slurm_sets);
		if (b->alt_query_tool) {
			assert_non_null(b->alt_query_argv);
			assert_string_equal(b->alt_query_argv[0], b->alt_query_tool);
			assert_non_null(b->alt_parse);
		} else {
			assert_null(b->alt_query_argv);
			assert_null(b->alt_parse);
		}
	}
}

/* The cuda query asks for exactly the columns the parser reads, in its order. */
static void test_cuda_query_fields(void **state)
{
	const struct zl_backend *b = zl_backend_find("cuda");
	(void)state;

	assert_string_equal(b->query_argv[1],
			    "--query-gpu=index,name,uuid,pci.bus_id,memory.total,driver_version");
	assert_string_equal(b->query_argv[2], "--format=csv,noheader,nounits");
	assert_null(b->query_argv[3]);
}

/* A vendor's visibility variable is never another vendor's. */
static void test_visibility_vars_distinct(void **state)
{
	const struct zl_backend *b, *c;
	(void)state;

	for (b = zl_backend_table; b->name; b++)
		for (c = b + 1; c->name; c++)
			assert_string_not_equal(b->visibility_var, c->visibility_var);
	assert_string_equal(zl_backend_find("rocm")->extra_visibility_vars[0], "ROCR_VISIBLE_DEVICES");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_and_rows),
		cmocka_unit_test(test_every_alias_resolves),
		cmocka_unit_test(test_unknown_backend),
		cmocka_unit_test(test_aliases_unique),
		cmocka_unit_test(test_choices_lists_everything),
		cmocka_unit_test(test_capabilities),
		cmocka_unit_test(test_kernel_profiler_and_notes),
		cmocka_unit_test(test_query_rows_consistent),
		cmocka_unit_test(test_cuda_query_fields),
		cmocka_unit_test(test_visibility_vars_distinct),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
