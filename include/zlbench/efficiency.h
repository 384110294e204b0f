/*
 * How close a measured kernel is to the hardware: from a row's op, dtype and shape
 * (runload.h's canonical shape: the op's arguments, tensors as lists of sizes) the
 * bytes it must move and the FLOPs it must do, each with the rule that counted it;
 * from a measured time the achieved GB/s and TFLOP/s; from the device's peaks
 * (backend.h's zl_device_peak_table) the fraction of each. docs/report.md has the
 * user's view.
 *
 * Where the counts come from, in this order (never a guess):
 *   1. zlbench's rule for the op's family, when the op is in the family table
 *      (efficiency.c: which op belongs to which family is a table) and its shape
 *      fits the family: pointwise (every tensor input read once, the broadcast
 *      output written once; FLOPs not counted: the work per element depends on the
 *      function), reduction and softmax (the input read once, the output written
 *      once), GEMM (mm, bmm, addmm, mv: A and B read once, C written once;
 *      2*M*N*K FLOPs, + M*N for addmm's bias). This is the compulsory traffic, the
 *      least any kernel must move: caches can only add to it.
 *   2. FlagGems' own figure, when the op has no family here: results.json's gbps x
 *      latency and tflops x FlagGems latency (runload.h's fg_bytes, fg_flops).
 *   3. Unknown, with the reason.
 * Where a family rule and FlagGems' figure both exist and differ by more than 1 %,
 * `note` says so (FlagGems' UnaryReductionBenchmark, for one, counts the input twice).
 *
 * Owner: the caller owns struct zl_eff_counts; zl_eff_counts_release() frees its strings.
 */
#ifndef ZLBENCH_EFFICIENCY_H
#define ZLBENCH_EFFICIENCY_H

#include <stddef.h>
#include <stdio.h>

#include "backend.h"
#include "strbuf.h"

enum zl_eff_family {
	ZL_FAM_NONE,
	ZL_FAM_POINTWISE,
	ZL_FAM_REDUCTION,
	ZL_FAM_SOFTMAX,
	ZL_FAM_GEMM,
};
/* "none", "pointwise", "reduction", "softmax", "gemm". */
const char *zl_eff_family_name(enum zl_eff_family f);

struct zl_eff_counts {
	enum zl_eff_family family;   /* the op's family in the table (NONE: not listed) */
	double bytes, flops;         /* NAN: unknown */
	char *bytes_rule, *flops_rule;  /* how each was counted, or why it is unknown (never NULL) */
	char *note;                  /* FlagGems' figure differs (see above), or NULL */
};

void zl_eff_counts_init(struct zl_eff_counts *c);
void zl_eff_counts_release(struct zl_eff_counts *c);
/*
 * Count one row: op as FlagGems names it, dtype ("torch.float16"), the canonical shape,
 * FlagGems' figures (NAN when absent). c must be freshly initialised.
 */
void zl_eff_count(const char *op, const char *dtype, const char *shape, double fg_bytes, double fg_flops,
		  struct zl_eff_counts *c);

/* The bytes of one element of dtype ("torch.bfloat16" or "bfloat16"); 0 when unknown. */
size_t zl_eff_dtype_size(const char *dtype);
/* The peak that FLOPs of dtype are held against; -1 when the table has none (float64, ints). */
int zl_eff_dtype_peak(const char *dtype);

/* What one measured time achieved. */
struct zl_eff_rate {
	double ms;
	double gbps;            /* bytes / time, 10^9 bytes/s; NAN when either is unknown */
	double tflops;          /* FLOPs / time, 10^12 FLOP/s */
	double peak_gbps;       /* the device's HBM peak; NAN when unknown */
	double peak_tflops;     /* the dtype's dense peak on the device; NAN when unknown */
	int peak_kind;          /* enum zl_peak_kind of peak_tflops, -1: none */
	double bw_frac;         /* gbps / peak_gbps; NAN when either is unknown */
	double flop_frac;       /* tflops / peak_tflops */
};

/* The rate of counts over ms on peak (NULL: an unknown device) for dtype. */
void zl_eff_rate(const struct zl_eff_counts *c, double ms, const struct zl_device_peak *peak, const char *dtype,
		 struct zl_eff_rate *out);

/*
 * The device peaks of a run's device names (runload.h's device_name: distinct names
 * joined by ", "): the row, or NULL with why (no name recorded, several models, a
 * model not in the table) in *why when why is not NULL.
 */
const struct zl_device_peak *zl_eff_peak_of(const char *device_names, struct strbuf *why);

/* ---- text ------------------------------------------------------------------------------ */

/* "4 GiB", "1.5 MiB", "96 KiB", "512 B" (binary units, 3 significant digits); "?" when NAN. */
void zl_eff_fmt_bytes(struct strbuf *sb, double bytes);
/* "137 GFLOP", "2.1 TFLOP" (decimal units); "?" when NAN. */
void zl_eff_fmt_flops(struct strbuf *sb, double flops);
/* "2.83 TB/s", "412 GB/s", "0.89 GB/s"; "?" when NAN. */
void zl_eff_fmt_gbps(struct strbuf *sb, double gbps);
/* "599 TFLOP/s", "0.81 TFLOP/s"; "?" when NAN. */
void zl_eff_fmt_tflops(struct strbuf *sb, double tflops);
/* "59 %", "4.2 %", "0.03 %"; "?" when NAN. */
void zl_eff_fmt_pct(struct strbuf *sb, double frac);
/*
 * One sentence for one side of a row: "at 1.515 ms moves 4 GiB: 2.83 TB/s, 59 % of the
 * 4.8 TB/s HBM peak" and, with FLOPs, "; 137 GFLOP: 599 TFLOP/s, 61 % of the 989.5 TFLOP/s
 * fp16 peak". What is unknown is said ("peak unknown", "bytes unknown: why").
 */
void zl_eff_sentence(struct strbuf *sb, const struct zl_eff_counts *c, const struct zl_eff_rate *r);

/* ---- compare's rows (results/compare_efficiency.c) ------------------------------------------- */

struct zl_compare;
struct zl_compare_row;
struct cJSON;
/* `compare --efficiency`: the devices and their peaks, a row per compare row, the rules used. */
void zl_compare_print_efficiency(const struct zl_compare *c, FILE *out, int use_color);
/* compare --json: a row's "efficiency" object; the document's "device_peaks". -1: out of memory. */
int zl_compare_eff_row_json(struct cJSON *row, const struct zl_compare *c, const struct zl_compare_row *r);
int zl_compare_eff_json(struct cJSON *root, const struct zl_compare *c);

#endif
