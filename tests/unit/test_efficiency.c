/* Bytes, FLOPs and fractions of the peak (efficiency.h), and the device peak table (backend.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "zlbench/backend.h"
#include "zlbench/efficiency.h"
#include "zlbench/runload.h"
#include "zlbench/strbuf.h"
#include "../fixtures/runs/runfixture.h"

static void count(const char *op, const char *dtype, const char *shape, double fg_bytes, double fg_flops,
		  struct zl_eff_counts *c)
{
	zl_eff_counts_init(c);
	zl_eff_count(op, dtype, shape, fg_bytes, fg_flops, c);
}

/* The sentence: arctan over 2**30 float16 elements on an H200 at 1.515 ms and 1.119 ms. */
static void test_arctan_h200(void **state)
{
	const struct zl_device_peak *h200 = zl_device_peak_find("NVIDIA H200");
	struct zl_eff_counts c;
	struct zl_eff_rate gems, torch;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_non_null(h200);
	assert_float_equal(h200->hbm_gbps, 4800, 0);
	assert_string_equal(h200->model, "H200 SXM");
	assert_non_null(strstr(h200->source, "datasheet"));
	count("arctan", "torch.float16", "[[1073741824]]", NAN, 1073741824.0 * 1.515e9 / 1.515e9, &c);
	assert_int_equal(c.family, ZL_FAM_POINTWISE);
	/* 2 bytes read and 2 written per element: 4 GiB */
	assert_float_equal(c.bytes, 4.0 * 1073741824.0, 0);
	assert_non_null(strstr(c.bytes_rule, "pointwise"));
	/* FlagGems' tflops for a pointwise op counts elements: not taken as FLOPs */
	assert_true(isnan(c.flops));
	assert_non_null(strstr(c.flops_rule, "not counted"));
	zl_eff_rate(&c, 1.515, h200, "torch.float16", &gems);
	zl_eff_rate(&c, 1.119, h200, "torch.float16", &torch);
	assert_float_equal(gems.gbps, 2835, 1);
	assert_float_equal(gems.bw_frac, 0.5906, 0.0005);
	assert_float_equal(torch.bw_frac, 0.7996, 0.0005);
	zl_eff_sentence(&sb, &c, &gems);
	assert_string_equal(sb.buf, "at 1.515 ms moves 4 GiB: 2.83 TB/s, 59 % of the 4.8 TB/s HBM peak");
	strbuf_release(&sb);
	zl_eff_counts_release(&c);
}

/* The real H200 mm run: FlagGems' tflops x latency is 2*M*N*K, which the GEMM rule gives too. */
static void test_gemm(void **state)
{
	const struct zl_device_peak *h200 = zl_device_peak_find("nvidia h200");
	struct zl_eff_counts c;
	struct zl_eff_rate r;
	struct strbuf sb = STRBUF_INIT;
	double fg = 599.1027161424339 * 0.22940799593925476 * 1e9;

	(void)state;
	count("mm", "torch.float16", "[[4096, 4096], [4096, 4096]]", NAN, fg, &c);
	assert_int_equal(c.family, ZL_FAM_GEMM);
	assert_float_equal(c.flops, 2.0 * 4096 * 4096 * 4096, 0);
	assert_float_equal(c.flops / fg, 1, 1e-9);
	assert_null(c.note);
	assert_float_equal(c.bytes, 3.0 * 4096 * 4096 * 2, 0);
	zl_eff_rate(&c, 0.22940799593925476, h200, "torch.float16", &r);
	assert_float_equal(r.tflops, 599.10, 0.01);
	assert_float_equal(r.peak_tflops, 989.5, 0);
	assert_int_equal(r.peak_kind, ZL_PEAK_FP16);
	zl_eff_sentence(&sb, &c, &r);
	assert_non_null(strstr(sb.buf, "does 137 GFLOP: 599 TFLOP/s, 61 % of the 990 TFLOP/s fp16 peak"));
	strbuf_release(&sb);
	zl_eff_counts_release(&c);
	/* float32 is held against the vector peak, bfloat16 against its tensor cores */
	count("mm", "torch.float32", "[[4096, 4096], [4096, 4096]]", NAN, NAN, &c);
	zl_eff_rate(&c, 2.1959519386291504, h200, "torch.float32", &r);
	assert_float_equal(r.peak_tflops, 67, 0);
	assert_float_equal(r.flop_frac, 62.587 / 67, 0.001);
	zl_eff_counts_release(&c);
	/* bmm, addmm (FlagGems' M*N*(2K+1)), mv; a shape that does not fit is unknown, not guessed */
	count("bmm", "torch.bfloat16", "[[8, 64, 32], [8, 32, 16]]", NAN, NAN, &c);
	assert_float_equal(c.flops, 2.0 * 8 * 64 * 16 * 32, 0);
	assert_float_equal(c.bytes, 8.0 * (64 * 32 + 32 * 16 + 64 * 16) * 2, 0);
	zl_eff_counts_release(&c);
	count("addmm", "torch.float16", "[[64, 16], [64, 32], [32, 16]]", NAN, NAN, &c);
	assert_float_equal(c.flops, 64.0 * 16 * (2 * 32 + 1), 0);
	assert_float_equal(c.bytes, (64.0 * 16 + 64 * 32 + 32 * 16 + 64 * 16) * 2, 0);
	zl_eff_counts_release(&c);
	count("addmm", "torch.float16", "[[16], [64, 32], [32, 16]]", NAN, NAN, &c);
	assert_float_equal(c.bytes, (16.0 + 64 * 32 + 32 * 16 + 64 * 16) * 2, 0);
	zl_eff_counts_release(&c);
	count("mv", "torch.float32", "[[128, 64], [64]]", NAN, NAN, &c);
	assert_float_equal(c.flops, 2.0 * 128 * 64, 0);
	assert_float_equal(c.bytes, (128.0 * 64 + 64 + 128) * 4, 0);
	zl_eff_counts_release(&c);
	count("mm", "torch.float16", "[[64, 32], [16, 8]]", NAN, NAN, &c);
	assert_true(isnan(c.bytes) && isnan(c.flops));
	assert_non_null(strstr(c.bytes_rule, "does not fit"));
	zl_eff_counts_release(&c);
	count("mm", "torch.float16", "[[[64, 32], [32, 8]], {\"out\": [64, 8]}]", NAN, NAN, &c);
	assert_true(isnan(c.bytes));
	zl_eff_counts_release(&c);
}

/* Every row of the real H200 mm run: FlagGems' tflops (read by runload) is the GEMM rule's count. */
static void test_real_mm_run(void **state)
{
	char *tmp = fx_tmpdir();
	cJSON *id = fx_identity("20261129-100000-cuda-mm-aaaaaa", "mm");
	struct zl_run run;
	struct strbuf err = STRBUF_INIT;
	size_t i, checked = 0;

	(void)state;
	fx_write_run(tmp, id, FX_MM, 1.0, NULL, -1, 0);
	cJSON_Delete(id);
	zl_run_init(&run);
	assert_int_equal(zl_run_load(tmp, &run, &err), 0);
	for (i = 0; i < run.nr_results; i++) {
		const struct zl_result *r = &run.results[i];
		struct zl_eff_counts c;

		assert_true(isnan(r->fg_bytes));   /* FlagGems' mm has no gbps */
		assert_true(r->fg_flops > 0);      /* both sides carry the shape's count */
		zl_eff_counts_init(&c);
		zl_eff_count(r->op, r->dtype, r->shape, r->fg_bytes, r->fg_flops, &c);
		assert_float_equal(c.flops / r->fg_flops, 1, 1e-9);
		assert_null(c.note);
		zl_eff_counts_release(&c);
		checked++;
	}
	assert_int_equal(checked, 30);
	zl_run_release(&run);
	strbuf_release(&err);
	fx_rmtree(tmp);
}

static void test_pointwise_reduction(void **state)
{
	struct zl_eff_counts c;

	(void)state;
	/* binary, broadcasting: [64,1,8] + [1,32,8] -> [64,32,8] */
	count("add", "torch.float32", "[[64, 1, 8], [1, 32, 8]]", NAN, NAN, &c);
	assert_float_equal(c.bytes, (64.0 * 8 + 32 * 8 + 64 * 32 * 8) * 4, 0);
	zl_eff_counts_release(&c);
	count("add", "torch.float32", "[[64, 3], [64, 2]]", NAN, NAN, &c);
	assert_true(isnan(c.bytes));
	assert_non_null(strstr(c.bytes_rule, "broadcast"));
	zl_eff_counts_release(&c);
	/* a scalar moves nothing; a comparison writes bools; in place writes the input's dtype */
	count("pow_scalar", "torch.bfloat16", "[0.001, [1024, 16]]", NAN, NAN, &c);
	assert_float_equal(c.bytes, 2.0 * 1024 * 16 * 2, 0);
	zl_eff_counts_release(&c);
	count("eq", "torch.float16", "[[1024], [1024]]", NAN, NAN, &c);
	assert_float_equal(c.bytes, 1024.0 * 2 * 2 + 1024, 0);
	zl_eff_counts_release(&c);
	count("eq_", "torch.float16", "[[1024], [1024]]", NAN, NAN, &c);
	assert_float_equal(c.bytes, 1024.0 * 2 * 3, 0);
	assert_non_null(strstr(c.bytes_rule, "in place"));
	zl_eff_counts_release(&c);
	/* reductions over dim 1, or everything */
	count("sum", "torch.float16", "[[64, 64], 1]", NAN, NAN, &c);
	assert_float_equal(c.bytes, 64.0 * 64 * 2 + 64 * 2, 0);
	zl_eff_counts_release(&c);
	count("sum", "torch.float32", "[[4096]]", NAN, NAN, &c);
	assert_float_equal(c.bytes, 4096.0 * 4 + 4, 0);
	zl_eff_counts_release(&c);
	count("argmax", "torch.float16", "[[8, 32, 32], 1]", NAN, NAN, &c);
	assert_float_equal(c.bytes, 8.0 * 32 * 32 * 2 + 8 * 32 * 8, 0);
	zl_eff_counts_release(&c);
	count("max", "torch.float16", "[[8, 32], -1]", NAN, NAN, &c);
	assert_float_equal(c.bytes, 8.0 * 32 * 2 + 8 * (2 + 8), 0);
	zl_eff_counts_release(&c);
	count("softmax", "torch.float32", "[[64, 64], 1]", NAN, NAN, &c);
	assert_float_equal(c.bytes, 2.0 * 64 * 64 * 4, 0);
	zl_eff_counts_release(&c);
	/* FlagGems' UnaryReductionBenchmark counts the input twice: the rule stands, the note says so */
	count("amax", "torch.float16", "[[1024, 1024], 1]", 2.0 * 1024 * 1024 * 2, NAN, &c);
	assert_float_equal(c.bytes, 1024.0 * 1024 * 2 + 1024 * 2, 0);
	assert_non_null(c.note);
	assert_non_null(strstr(c.note, "FlagGems' gbps implies 2x"));
	zl_eff_counts_release(&c);
	/* an in-place suffix on a reduction is not pointwise: no family */
	count("amin_", "torch.float16", "[[64, 64], 1]", NAN, NAN, &c);
	assert_int_equal(c.family, ZL_FAM_NONE);
	assert_true(isnan(c.bytes));
	zl_eff_counts_release(&c);
}

static void test_unknown_and_flaggems(void **state)
{
	struct zl_eff_counts c;
	struct zl_eff_rate r;
	struct strbuf why = STRBUF_INIT;

	(void)state;
	/* an op outside the table: FlagGems' figures when it has them, else unknown with why */
	count("index_select", "torch.float16", "[[1024, 64], 0, [128]]", 3e6, NAN, &c);
	assert_int_equal(c.family, ZL_FAM_NONE);
	assert_float_equal(c.bytes, 3e6, 0);
	assert_non_null(strstr(c.bytes_rule, "FlagGems' figure"));
	assert_true(isnan(c.flops));
	assert_string_equal(c.flops_rule, "op 'index_select' is in no family of zlbench's table, and results.json has no tflops");
	zl_eff_counts_release(&c);
	count("conv2d", "torch.float16", "[[1, 3, 8, 8]]", NAN, 1e9, &c);
	assert_float_equal(c.flops, 1e9, 0);
	assert_string_equal(c.bytes_rule, "op 'conv2d' is in no family of zlbench's table, and results.json has no gbps");
	zl_eff_counts_release(&c);
	count("add", "torch.weird", "[[8], [8]]", NAN, NAN, &c);
	assert_true(isnan(c.bytes));
	assert_non_null(strstr(c.bytes_rule, "no known element size"));
	zl_eff_counts_release(&c);
	count("add", "torch.float16", "not json", NAN, NAN, &c);
	assert_true(isnan(c.bytes));
	zl_eff_counts_release(&c);
	/* an unknown device: rates, but no fraction */
	count("exp", "torch.float32", "[[1000000]]", NAN, NAN, &c);
	assert_null(zl_eff_peak_of("NVIDIA H200 NVL", &why));
	assert_string_equal(why.buf, "device 'NVIDIA H200 NVL' is not in zlbench's table of peaks");
	strbuf_reset(&why);
	assert_null(zl_eff_peak_of("NVIDIA H200, NVIDIA H100 80GB HBM3", &why));
	assert_non_null(strstr(why.buf, "several device models"));
	strbuf_reset(&why);
	assert_null(zl_eff_peak_of(NULL, &why));
	zl_eff_rate(&c, 0.01, NULL, "torch.float32", &r);
	assert_float_equal(r.gbps, 800, 1e-9);
	assert_true(isnan(r.bw_frac));
	strbuf_reset(&why);
	zl_eff_sentence(&why, &c, &r);
	assert_string_equal(why.buf, "at 0.01 ms moves 7.63 MiB: 800 GB/s (device peak unknown)");
	zl_eff_counts_release(&c);
	strbuf_release(&why);
}

static void test_peak_table(void **state)
{
	const struct zl_device_peak *p;

	(void)state;
	for (p = zl_device_peak_table; p->model; p++) {
		assert_true(p->hbm_gbps > 0);
		assert_true(p->tflops[ZL_PEAK_FP32] > 0 && p->tflops[ZL_PEAK_FP16] >= p->tflops[ZL_PEAK_FP32]);
		assert_non_null(strstr(p->source, ".com/"));
		assert_non_null(p->names[0]);
		assert_ptr_equal(zl_device_peak_find(p->names[0]), p);
	}
	assert_float_equal(zl_device_peak_find("NVIDIA H100 80GB HBM3")->hbm_gbps, 3350, 0);
	assert_float_equal(zl_device_peak_find("AMD Instinct MI300X")->tflops[ZL_PEAK_BF16], 1307.4, 0);
	assert_string_equal(zl_peak_kind_name(ZL_PEAK_TF32), "tf32");
}

static void test_formats(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	zl_eff_fmt_bytes(&sb, 512);
	strbuf_addch(&sb, '|');
	zl_eff_fmt_bytes(&sb, 1536);
	strbuf_addch(&sb, '|');
	zl_eff_fmt_gbps(&sb, 412.3);
	strbuf_addch(&sb, '|');
	zl_eff_fmt_gbps(&sb, 3840);
	strbuf_addch(&sb, '|');
	zl_eff_fmt_tflops(&sb, 0.81);
	strbuf_addch(&sb, '|');
	zl_eff_fmt_pct(&sb, 0.042);
	strbuf_addch(&sb, '|');
	zl_eff_fmt_pct(&sb, 0.0003);
	strbuf_addch(&sb, '|');
	zl_eff_fmt_flops(&sb, NAN);
	assert_string_equal(sb.buf, "512 B|1.5 KiB|412 GB/s|3.84 TB/s|810 GFLOP/s|4.2 %|0.03 %|?");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arctan_h200),
		cmocka_unit_test(test_gemm),
		cmocka_unit_test(test_real_mm_run),
		cmocka_unit_test(test_pointwise_reduction),
		cmocka_unit_test(test_unknown_and_flaggems),
		cmocka_unit_test(test_peak_table),
		cmocka_unit_test(test_formats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
