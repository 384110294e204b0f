/*
 * Bytes, FLOPs and the fraction of the device's peak of one measured row
 * (efficiency.h). The families and their ops are tables; a rule never guesses:
 * an op, dtype or shape it does not know is "unknown" with the reason.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "zlbench/efficiency.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* The most dimensions a tensor argument may have (FlagGems' shapes have at most 5). */
#define MAX_DIMS 8
/* The most arguments a row's shape may list. */
#define MAX_ARGS 8

/* ---- dtypes ----------------------------------------------------------------------------- */

static const struct {
	const char *name;
	size_t size;
	int peak;               /* enum zl_peak_kind, -1: none in the peak table */
} dtypes[] = {
	{ "float16", 2, ZL_PEAK_FP16 }, { "half", 2, ZL_PEAK_FP16 },
	{ "bfloat16", 2, ZL_PEAK_BF16 },
	{ "float32", 4, ZL_PEAK_FP32 }, { "float", 4, ZL_PEAK_FP32 },
	{ "float64", 8, -1 }, { "double", 8, -1 },
	{ "float8_e4m3fn", 1, ZL_PEAK_FP8 }, { "float8_e5m2", 1, ZL_PEAK_FP8 },
	{ "float8_e4m3fnuz", 1, ZL_PEAK_FP8 }, { "float8_e5m2fnuz", 1, ZL_PEAK_FP8 },
	{ "int8", 1, -1 }, { "uint8", 1, -1 }, { "bool", 1, -1 },
	{ "int16", 2, -1 }, { "int32", 4, -1 }, { "int64", 8, -1 },
	{ "complex64", 8, -1 }, { "complex128", 16, -1 },
};

static int dtype_index(const char *dtype)
{
	size_t i;

	if (!dtype)
		return -1;
	if (zl_starts_with(dtype, "torch."))
		dtype += strlen("torch.");
	for (i = 0; i < ZL_ARRAY_SIZE(dtypes); i++)
		if (!strcmp(dtype, dtypes[i].name))
			return (int)i;
	return -1;
}

size_t zl_eff_dtype_size(const char *dtype)
{
	int i = dtype_index(dtype);

	return i < 0 ? 0 : dtypes[i].size;
}

int zl_eff_dtype_peak(const char *dtype)
{
	int i = dtype_index(dtype);

	return i < 0 ? -1 : dtypes[i].peak;
}

/* ---- the family table -------------------------------------------------------------------- */

/* What a pointwise or reduction op writes, per output element. */
enum out_kind {
	OUT_SAME,          /* one element of the row's dtype */
	OUT_BOOL,          /* one byte (torch.bool) */
	OUT_INT64,         /* an index (argmax, argmin) */
	OUT_VALUE_INDEX,   /* max/min over a dim: the value and its int64 index; over all: the value */
	OUT_TWO,           /* two outputs of the row's dtype (var_mean) */
};

/* The shape rules of GEMM-like ops. */
enum gemm_kind { GEMM_NONE, GEMM_MM, GEMM_BMM, GEMM_ADDMM, GEMM_MV };

struct family_row {
	const char *op;            /* FlagGems' op_name */
	enum zl_eff_family family;
	enum out_kind out;
	enum gemm_kind gemm;
};

/*
 * Which op is in which family. Built from FlagGems' benchmark/test_*.py at ed2508bc: the
 * ops benchmarked by UnaryPointwiseBenchmark, BinaryPointwiseBenchmark,
 * ScalarBinaryPointwiseBenchmark (args: tensors of the row's dtype and scalars),
 * UnaryReductionBenchmark ((input,) or (input, 1)) and BlasBenchmark / MvBenchmark,
 * leaving out those whose inputs or outputs are not of the row's dtype in a way the
 * shape cannot tell (frexp, angle, polar, where, dropout's mask, the *_backward ops,
 * copies and views). An op with a trailing "_" not listed here is the in-place form of
 * a listed pointwise op (pointwise only: it writes into its first input).
 */
static const struct family_row families[] = {
	/* pointwise, unary, output of the input's dtype */
	{ "abs", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "absolute", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "acos", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "acosh", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "arccos", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "arccosh", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "arcsin", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "arcsinh", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "arctan", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "arctanh", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "asin", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "asinh", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "atan", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "atanh", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "bitwise_not", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "ceil", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "celu", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "cos", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "cosh", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "deg2rad", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "digamma", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "elu", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "erf", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "erfc", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "erfinv", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "exp", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "exp2", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "expm1", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "fix", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "floor", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "frac", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "gelu", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "hardshrink", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "hardsigmoid", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "hardswish", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "i0", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "leaky_relu", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "lgamma", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "log", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "log10", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "log1p", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "log2", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "log_sigmoid", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "mish", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "neg", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "negative", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "rad2deg", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "reciprocal", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "relu", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "relu6", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "round", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "rsqrt", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "selu", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "sgn", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "sigmoid", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "sign", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "silu", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "sin", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "sinc", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "sinh", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "softplus", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "softshrink", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "sqrt", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "square", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "tan", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "tanh", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "trunc", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	/* pointwise, unary, a bool out */
	{ "isfinite", ZL_FAM_POINTWISE, OUT_BOOL, 0 }, { "isinf", ZL_FAM_POINTWISE, OUT_BOOL, 0 },
	{ "isnan", ZL_FAM_POINTWISE, OUT_BOOL, 0 }, { "isneginf", ZL_FAM_POINTWISE, OUT_BOOL, 0 },
	{ "isposinf", ZL_FAM_POINTWISE, OUT_BOOL, 0 }, { "logical_not", ZL_FAM_POINTWISE, OUT_BOOL, 0 },
	{ "signbit", ZL_FAM_POINTWISE, OUT_BOOL, 0 },
	/* pointwise, binary (or a scalar and a tensor), output of the inputs' dtype */
	{ "add", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "add_relu", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "arctan2", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "atan2", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "bitwise_and_tensor", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "bitwise_or_tensor", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "bitwise_xor_tensor", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "copysign", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "div_tensor", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "floor_divide", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "floor_divide_tensor", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "fmax", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "fmin", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "gcd", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "hypot", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "lcm", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "logaddexp", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "logaddexp2", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "lshift", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "maximum", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "minimum", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "mul", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "multiply", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "nextafter", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "pow_scalar", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "pow_tensor_tensor", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "remainder", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "remainder_tensor", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "sub", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "subtract", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	{ "true_divide", ZL_FAM_POINTWISE, OUT_SAME, 0 }, { "xor", ZL_FAM_POINTWISE, OUT_SAME, 0 },
	/* pointwise, binary, a bool out */
	{ "eq", ZL_FAM_POINTWISE, OUT_BOOL, 0 }, { "ne", ZL_FAM_POINTWISE, OUT_BOOL, 0 },
	{ "not_equal", ZL_FAM_POINTWISE, OUT_BOOL, 0 }, { "ge", ZL_FAM_POINTWISE, OUT_BOOL, 0 },
	{ "gt", ZL_FAM_POINTWISE, OUT_BOOL, 0 }, { "le", ZL_FAM_POINTWISE, OUT_BOOL, 0 },
	{ "lt", ZL_FAM_POINTWISE, OUT_BOOL, 0 }, { "greater", ZL_FAM_POINTWISE, OUT_BOOL, 0 },
	{ "greater_equal", ZL_FAM_POINTWISE, OUT_BOOL, 0 }, { "less", ZL_FAM_POINTWISE, OUT_BOOL, 0 },
	{ "less_equal", ZL_FAM_POINTWISE, OUT_BOOL, 0 }, { "isclose", ZL_FAM_POINTWISE, OUT_BOOL, 0 },
	{ "logical_and", ZL_FAM_POINTWISE, OUT_BOOL, 0 }, { "logical_or", ZL_FAM_POINTWISE, OUT_BOOL, 0 },
	{ "logical_xor", ZL_FAM_POINTWISE, OUT_BOOL, 0 },
	/* reductions over dim 1 (or everything, for a 1-d input) */
	{ "sum", ZL_FAM_REDUCTION, OUT_SAME, 0 }, { "sum_dim", ZL_FAM_REDUCTION, OUT_SAME, 0 },
	{ "mean", ZL_FAM_REDUCTION, OUT_SAME, 0 }, { "prod", ZL_FAM_REDUCTION, OUT_SAME, 0 },
	{ "amax", ZL_FAM_REDUCTION, OUT_SAME, 0 }, { "amin", ZL_FAM_REDUCTION, OUT_SAME, 0 },
	{ "std", ZL_FAM_REDUCTION, OUT_SAME, 0 }, { "var", ZL_FAM_REDUCTION, OUT_SAME, 0 },
	{ "var_mean", ZL_FAM_REDUCTION, OUT_TWO, 0 },
	{ "all", ZL_FAM_REDUCTION, OUT_BOOL, 0 }, { "all_dim", ZL_FAM_REDUCTION, OUT_BOOL, 0 },
	{ "any", ZL_FAM_REDUCTION, OUT_BOOL, 0 }, { "any_dim", ZL_FAM_REDUCTION, OUT_BOOL, 0 },
	{ "argmax", ZL_FAM_REDUCTION, OUT_INT64, 0 }, { "argmin", ZL_FAM_REDUCTION, OUT_INT64, 0 },
	{ "max", ZL_FAM_REDUCTION, OUT_VALUE_INDEX, 0 }, { "max_dim", ZL_FAM_REDUCTION, OUT_VALUE_INDEX, 0 },
	{ "min", ZL_FAM_REDUCTION, OUT_VALUE_INDEX, 0 }, { "min_dim", ZL_FAM_REDUCTION, OUT_VALUE_INDEX, 0 },
	/* softmax over dim 1: the output has the input's shape */
	{ "softmax", ZL_FAM_SOFTMAX, OUT_SAME, 0 },
	/* GEMM */
	{ "mm", ZL_FAM_GEMM, OUT_SAME, GEMM_MM }, { "bmm", ZL_FAM_GEMM, OUT_SAME, GEMM_BMM },
	{ "addmm", ZL_FAM_GEMM, OUT_SAME, GEMM_ADDMM }, { "mv", ZL_FAM_GEMM, OUT_SAME, GEMM_MV },
};

const char *zl_eff_family_name(enum zl_eff_family f)
{
	static const char *const names[] = {
		[ZL_FAM_NONE] = "none", [ZL_FAM_POINTWISE] = "pointwise", [ZL_FAM_REDUCTION] = "reduction",
		[ZL_FAM_SOFTMAX] = "softmax", [ZL_FAM_GEMM] = "gemm",
	};

	return (size_t)f < ZL_ARRAY_SIZE(names) ? names[f] : "?";
}

/* The op's row; *inplace set when it is the in-place form ("add_") of a pointwise op. */
static const struct family_row *family_find(const char *op, int *inplace)
{
	size_t i, len = op ? strlen(op) : 0;

	*inplace = 0;
	for (i = 0; len && i < ZL_ARRAY_SIZE(families); i++)
		if (!strcmp(op, families[i].op))
			return &families[i];
	if (len < 2 || op[len - 1] != '_')
		return NULL;
	for (i = 0; i < ZL_ARRAY_SIZE(families); i++)
		if (families[i].family == ZL_FAM_POINTWISE && strlen(families[i].op) == len - 1 &&
		    !strncmp(op, families[i].op, len - 1)) {
			*inplace = 1;
			return &families[i];
		}
	return NULL;
}

/* ---- the shape: FlagGems' arguments ------------------------------------------------------- */

struct arg {
	int tensor;              /* 1: a tensor of dims[0..ndims); 0: a scalar */
	double dims[MAX_DIMS];
	int ndims;
	double scalar;
};

struct args {
	struct arg v[MAX_ARGS];
	int n, tensors;
};

static double numel(const struct arg *a)
{
	double n = 1;
	int i;

	for (i = 0; i < a->ndims; i++)
		n *= a->dims[i];
	return n;
}

/* A whole number in [0, 2^53): a size or an index. */
static int whole(const cJSON *it)
{
	return cJSON_IsNumber(it) && it->valuedouble >= 0 && it->valuedouble < 9007199254740992.0 &&
	       it->valuedouble == floor(it->valuedouble);
}

/* The shape as a list of tensors (lists of sizes) and scalars; -1 with why when it is not one. */
static int parse_args(const char *shape, struct args *out, struct strbuf *why)
{
	cJSON *doc = shape ? cJSON_Parse(shape) : NULL;
	const cJSON *it;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsArray(doc)) {
		strbuf_addf(why, "the shape '%s' is not a list of arguments", shape ? shape : "");
		goto out;
	}
	cJSON_ArrayForEach(it, doc) {
		struct arg *a;
		const cJSON *d;

		if (out->n == MAX_ARGS) {
			strbuf_addf(why, "the shape lists more than %d arguments", MAX_ARGS);
			goto out;
		}
		a = &out->v[out->n++];
		if (cJSON_IsNumber(it)) {
			a->scalar = it->valuedouble;
			continue;
		}
		if (!cJSON_IsArray(it)) {
			strbuf_addstr(why, "the shape has an argument that is neither a tensor's sizes nor a number");
			goto out;
		}
		a->tensor = 1;
		out->tensors++;
		cJSON_ArrayForEach(d, it) {
			if (!whole(d) || a->ndims == MAX_DIMS) {
				strbuf_addstr(why, "the shape has an argument that is not a list of sizes");
				goto out;
			}
			a->dims[a->ndims++] = d->valuedouble;
		}
	}
	ret = 0;
out:
	cJSON_Delete(doc);
	return ret;
}

/* The broadcast shape of the tensor arguments (numpy's rule); -1 when they do not broadcast. */
static int broadcast(const struct args *a, struct arg *out)
{
	int i, k;

	memset(out, 0, sizeof(*out));
	out->tensor = 1;
	for (i = 0; i < a->n; i++)
		if (a->v[i].tensor && a->v[i].ndims > out->ndims)
			out->ndims = a->v[i].ndims;
	for (k = 0; k < out->ndims; k++)
		out->dims[k] = 1;
	for (i = 0; i < a->n; i++) {
		const struct arg *t = &a->v[i];

		if (!t->tensor)
			continue;
		for (k = 0; k < t->ndims; k++) {
			double d = t->dims[t->ndims - 1 - k], *o = &out->dims[out->ndims - 1 - k];

			if (d == *o || d == 1)
				continue;
			if (*o != 1)
				return -1;
			*o = d;
		}
	}
	return 0;
}

/* ---- the rules --------------------------------------------------------------------------- */

struct rule_ctx {
	const struct family_row *row;
	int inplace;
	double es;               /* the row's element size */
	const struct args *args;
	struct zl_eff_counts *c;
	struct strbuf why;
};

static void set_rule(char **slot, const char *text)
{
	free(*slot);
	*slot = xstrdup(text);
}

static void pointwise(struct rule_ctx *x)
{
	static const double out_size[] = { [OUT_BOOL] = 1 };
	struct arg out;
	double in = 0, out_es;
	int i;

	if (!x->args->tensors) {
		strbuf_addstr(&x->why, "pointwise: the shape lists no tensor");
		return;
	}
	if (broadcast(x->args, &out)) {
		strbuf_addstr(&x->why, "pointwise: the tensors' sizes do not broadcast");
		return;
	}
	for (i = 0; i < x->args->n; i++)
		if (x->args->v[i].tensor)
			in += numel(&x->args->v[i]) * x->es;
	/* in place, the result goes into the first input, in its dtype */
	out_es = x->inplace || x->row->out != OUT_BOOL ? x->es : out_size[OUT_BOOL];
	x->c->bytes = in + numel(&out) * out_es;
	set_rule(&x->c->bytes_rule, x->inplace ? "pointwise, in place: each tensor input read once, the result "
						  "written once into the first"
						: x->row->out == OUT_BOOL
						? "pointwise: each tensor input read once, the broadcast bool "
						  "output written once"
						: "pointwise: each tensor input read once, the broadcast output "
						  "written once");
}

/* The reduced dim of (input) or (input, dim): -1 for all of it; -2 when the shape is none of these. */
static int reduced_dim(const struct args *a)
{
	const struct arg *t = &a->v[0];
	double d;

	if (a->n < 1 || !t->tensor || a->n > 2)
		return -2;
	if (a->n == 1)
		return -1;
	if (a->v[1].tensor || a->v[1].scalar != floor(a->v[1].scalar))
		return -2;
	d = a->v[1].scalar < 0 ? a->v[1].scalar + t->ndims : a->v[1].scalar;
	return d >= 0 && d < t->ndims ? (int)d : -2;
}

static void reduction(struct rule_ctx *x)
{
	const struct arg *t = &x->args->v[0];
	int dim = reduced_dim(x->args);
	double in, out_n, per;

	if (dim == -2) {
		strbuf_addstr(&x->why, x->row->family == ZL_FAM_SOFTMAX
				       ? "softmax: the shape is not (input) or (input, dim)"
				       : "reduction: the shape is not (input) or (input, dim)");
		return;
	}
	in = numel(t) * x->es;
	if (x->row->family == ZL_FAM_SOFTMAX) {
		x->c->bytes = 2 * in;
		set_rule(&x->c->bytes_rule, "softmax: the input read once, the output (of its size) written once");
		return;
	}
	out_n = dim < 0 ? 1 : (t->dims[dim] > 0 ? numel(t) / t->dims[dim] : 0);
	switch (x->row->out) {
	case OUT_BOOL: per = 1; break;
	case OUT_INT64: per = 8; break;
	case OUT_VALUE_INDEX: per = dim < 0 ? x->es : x->es + 8; break;
	case OUT_TWO: per = 2 * x->es; break;
	default: per = x->es; break;
	}
	x->c->bytes = in + out_n * per;
	set_rule(&x->c->bytes_rule, dim < 0 ? "reduction: the input read once, the one result written once"
					    : "reduction: the input read once, the output over the other dims "
					      "written once");
}

/* 2-d sizes of arg i: rows, cols; 0 when it is not a matrix. */
static int matrix(const struct args *a, int i, double *r, double *c)
{
	if (i >= a->n || !a->v[i].tensor || a->v[i].ndims != 2)
		return 0;
	*r = a->v[i].dims[0];
	*c = a->v[i].dims[1];
	return 1;
}

static void gemm(struct rule_ctx *x)
{
	const struct args *a = x->args;
	double m, k, k2, n, b = 1, bias = 0, flops;
	const char *fl, *by;
	struct arg out;

	switch (x->row->gemm) {
	case GEMM_MM:
		if (a->n != 2 || !matrix(a, 0, &m, &k) || !matrix(a, 1, &k2, &n) || k != k2)
			goto misfit;
		flops = 2 * m * n * k;
		fl = "GEMM: 2*M*N*K (a multiply and an add per term)";
		by = "GEMM: A (MxK) and B (KxN) read once, C (MxN) written once";
		break;
	case GEMM_BMM:
		if (a->n != 2 || !a->v[0].tensor || !a->v[1].tensor || a->v[0].ndims != 3 || a->v[1].ndims != 3 ||
		    a->v[0].dims[0] != a->v[1].dims[0] || a->v[0].dims[2] != a->v[1].dims[1])
			goto misfit;
		b = a->v[0].dims[0];
		m = a->v[0].dims[1];
		k = a->v[0].dims[2];
		n = a->v[1].dims[2];
		flops = 2 * b * m * n * k;
		fl = "batched GEMM: 2*B*M*N*K";
		by = "batched GEMM: A (BxMxK) and B (BxKxN) read once, C (BxMxN) written once";
		break;
	case GEMM_ADDMM: {
		struct args mn;

		if (a->n != 3 || !a->v[0].tensor || !matrix(a, 1, &m, &k) || !matrix(a, 2, &k2, &n) || k != k2)
			goto misfit;
		/* the bias broadcasts to MxN */
		memset(&mn, 0, sizeof(mn));
		mn.n = mn.tensors = 2;
		mn.v[0] = a->v[0];
		mn.v[1].tensor = 1;
		mn.v[1].ndims = 2;
		mn.v[1].dims[0] = m;
		mn.v[1].dims[1] = n;
		if (broadcast(&mn, &out) || out.ndims != 2 || out.dims[0] != m || out.dims[1] != n)
			goto misfit;
		bias = numel(&a->v[0]);
		flops = 2 * m * n * k + m * n;
		fl = "GEMM with a bias: 2*M*N*K + M*N (FlagGems' BlasBenchmark count)";
		by = "GEMM with a bias: the bias, A (MxK) and B (KxN) read once, C (MxN) written once";
		break;
	}
	case GEMM_MV:
		if (a->n != 2 || !matrix(a, 0, &m, &k) || !a->v[1].tensor || a->v[1].ndims != 1 ||
		    a->v[1].dims[0] != k)
			goto misfit;
		n = 1;
		flops = 2 * m * k;
		fl = "matrix-vector: 2*M*N";
		by = "matrix-vector: A (MxN) and x (N) read once, y (M) written once";
		break;
	default:
		goto misfit;
	}
	x->c->bytes = (bias + b * (m * k + k * n + m * n)) * x->es;
	x->c->flops = flops;
	set_rule(&x->c->bytes_rule, by);
	set_rule(&x->c->flops_rule, fl);
	return;
misfit:
	strbuf_addf(&x->why, "%s: the shape does not fit its arguments (%s)", x->row->op,
		    x->row->gemm == GEMM_MM ? "[M,K], [K,N]" : x->row->gemm == GEMM_BMM ? "[B,M,K], [B,K,N]"
		    : x->row->gemm == GEMM_ADDMM ? "bias, [M,K], [K,N]" : "[M,N], [N]");
}

/* ---- counting ----------------------------------------------------------------------------- */

void zl_eff_counts_init(struct zl_eff_counts *c)
{
	memset(c, 0, sizeof(*c));
	c->bytes = c->flops = NAN;
}

void zl_eff_counts_release(struct zl_eff_counts *c)
{
	free(c->bytes_rule);
	free(c->flops_rule);
	free(c->note);
	zl_eff_counts_init(c);
}

/* Why a count is unknown; for an op without a family, also that FlagGems' figure is missing. */
static void unknown_rule(char **slot, const struct strbuf *why, const char *figure)
{
	free(*slot);
	if (figure)
		*slot = xstrfmt("%s, and results.json has no %s", why->buf, figure);
	else
		*slot = xstrdup(why->len ? why->buf : "unknown");
}

/* Where the family rule gave no count, FlagGems' figure; then say where they disagree. */
static void flaggems_fallback(struct zl_eff_counts *c, double fg_bytes, double fg_flops, int flops_ruled)
{
	struct strbuf note = STRBUF_INIT;

	if (!isfinite(c->bytes) && fg_bytes > 0) {
		c->bytes = fg_bytes;
		set_rule(&c->bytes_rule, "FlagGems' figure: results.json gbps x latency");
	} else if (isfinite(c->bytes) && fg_bytes > 0 && fabs(fg_bytes / c->bytes - 1) > 0.01) {
		strbuf_addf(&note, "FlagGems' gbps implies %.3gx these bytes", fg_bytes / c->bytes);
	}
	if (!isfinite(c->flops) && !flops_ruled && fg_flops > 0) {
		c->flops = fg_flops;
		set_rule(&c->flops_rule, "FlagGems' figure: results.json tflops x FlagGems latency");
	} else if (isfinite(c->flops) && fg_flops > 0 && fabs(fg_flops / c->flops - 1) > 0.01) {
		strbuf_addf(&note, "%sFlagGems' tflops implies %.3gx these FLOPs", note.len ? "; " : "",
			    fg_flops / c->flops);
	}
	if (note.len)
		c->note = strbuf_detach(&note, NULL);
	strbuf_release(&note);
}

void zl_eff_count(const char *op, const char *dtype, const char *shape, double fg_bytes, double fg_flops,
		  struct zl_eff_counts *c)
{
	struct rule_ctx x;
	struct args args;
	int flops_ruled = 0;

	memset(&x, 0, sizeof(x));
	strbuf_init(&x.why, 0);
	x.c = c;
	x.args = &args;
	x.row = family_find(op, &x.inplace);
	x.es = (double)zl_eff_dtype_size(dtype);
	c->family = x.row ? x.row->family : ZL_FAM_NONE;
	if (!x.row)
		strbuf_addf(&x.why, "op '%s' is in no family of zlbench's table", op ? op : "");
	else if (!x.es)
		strbuf_addf(&x.why, "dtype '%s' has no known element size", dtype ? dtype : "");
	else if (!parse_args(shape, &args, &x.why)) {
		if (x.row->family == ZL_FAM_POINTWISE)
			pointwise(&x);
		else if (x.row->family == ZL_FAM_GEMM)
			gemm(&x);
		else
			reduction(&x);
	}
	if (x.row && x.row->family != ZL_FAM_GEMM) {
		/* a rule that moves bytes does no FLOPs we can count: say so rather than borrow a proxy */
		flops_ruled = 1;
		set_rule(&c->flops_rule, x.row->family == ZL_FAM_POINTWISE
					 ? "not counted: a pointwise op's work per element depends on its function"
					   " (FlagGems' tflops counts elements)"
					 : "not counted: the work per element depends on the op");
	}
	if (!c->bytes_rule)
		unknown_rule(&c->bytes_rule, &x.why, x.row ? NULL : "gbps");
	if (!c->flops_rule)
		unknown_rule(&c->flops_rule, &x.why, x.row ? NULL : "tflops");
	flaggems_fallback(c, fg_bytes, fg_flops, flops_ruled);
	strbuf_release(&x.why);
}

/* ---- rates and peaks --------------------------------------------------------------------- */

void zl_eff_rate(const struct zl_eff_counts *c, double ms, const struct zl_device_peak *peak, const char *dtype,
		 struct zl_eff_rate *out)
{
	int kind = zl_eff_dtype_peak(dtype);

	out->ms = ms;
	out->gbps = ms > 0 && c->bytes >= 0 ? c->bytes / ms / 1e6 : NAN;
	out->tflops = ms > 0 && c->flops >= 0 ? c->flops / ms / 1e9 : NAN;
	out->peak_gbps = peak && peak->hbm_gbps > 0 ? peak->hbm_gbps : NAN;
	out->peak_kind = peak && kind >= 0 && peak->tflops[kind] > 0 ? kind : -1;
	out->peak_tflops = out->peak_kind >= 0 ? peak->tflops[kind] : NAN;
	out->bw_frac = out->gbps / out->peak_gbps;
	out->flop_frac = out->tflops / out->peak_tflops;
}

const struct zl_device_peak *zl_eff_peak_of(const char *device_names, struct strbuf *why)
{
	const struct zl_device_peak *p;

	if (!device_names || !*device_names) {
		if (why)
			strbuf_addstr(why, "no device name recorded");
		return NULL;
	}
	if (strstr(device_names, ", ")) {
		if (why)
			strbuf_addf(why, "several device models (%s)", device_names);
		return NULL;
	}
	p = zl_device_peak_find(device_names);
	if (!p && why)
		strbuf_addf(why, "device '%s' is not in zlbench's table of peaks", device_names);
	return p;
}

/* ---- text -------------------------------------------------------------------------------- */

/* v scaled to the first unit it reaches (units[i] = base^i), with 3 significant digits. */
static void fmt_scaled(struct strbuf *sb, double v, double base, const char *const *units, size_t n)
{
	size_t i = 0;

	if (!isfinite(v)) {
		strbuf_addch(sb, '?');
		return;
	}
	while (i + 1 < n && fabs(v) >= base * 0.9995) {
		v /= base;
		i++;
	}
	strbuf_addf(sb, "%.3g %s", v, units[i]);
}

void zl_eff_fmt_bytes(struct strbuf *sb, double bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };

	fmt_scaled(sb, bytes, 1024, units, ZL_ARRAY_SIZE(units));
}

void zl_eff_fmt_flops(struct strbuf *sb, double flops)
{
	static const char *const units[] = { "FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP" };

	fmt_scaled(sb, flops, 1000, units, ZL_ARRAY_SIZE(units));
}

void zl_eff_fmt_gbps(struct strbuf *sb, double gbps)
{
	static const char *const units[] = { "GB/s", "TB/s" };

	fmt_scaled(sb, gbps, 1000, units, ZL_ARRAY_SIZE(units));
}

void zl_eff_fmt_tflops(struct strbuf *sb, double tflops)
{
	if (!isfinite(tflops))
		strbuf_addch(sb, '?');
	else if (tflops < 1)
		strbuf_addf(sb, "%.3g GFLOP/s", tflops * 1000);
	else
		strbuf_addf(sb, "%.3g TFLOP/s", tflops);
}

void zl_eff_fmt_pct(struct strbuf *sb, double frac)
{
	double p = frac * 100;

	if (!isfinite(p))
		strbuf_addch(sb, '?');
	else if (p >= 9.95)
		strbuf_addf(sb, "%.0f %%", p);
	else if (p >= 0.995)
		strbuf_addf(sb, "%.1f %%", p);
	else
		strbuf_addf(sb, "%.2g %%", p);
}

void zl_eff_sentence(struct strbuf *sb, const struct zl_eff_counts *c, const struct zl_eff_rate *r)
{
	strbuf_addf(sb, "at %.4g ms ", r->ms);
	if (!isfinite(r->gbps)) {
		strbuf_addf(sb, "moves bytes unknown (%s)", c->bytes_rule);
	} else {
		strbuf_addstr(sb, "moves ");
		zl_eff_fmt_bytes(sb, c->bytes);
		strbuf_addstr(sb, ": ");
		zl_eff_fmt_gbps(sb, r->gbps);
		if (isfinite(r->bw_frac)) {
			strbuf_addstr(sb, ", ");
			zl_eff_fmt_pct(sb, r->bw_frac);
			strbuf_addstr(sb, " of the ");
			zl_eff_fmt_gbps(sb, r->peak_gbps);
			strbuf_addstr(sb, " HBM peak");
		} else {
			strbuf_addstr(sb, " (device peak unknown)");
		}
	}
	if (isfinite(r->tflops)) {
		strbuf_addstr(sb, "; does ");
		zl_eff_fmt_flops(sb, c->flops);
		strbuf_addstr(sb, ": ");
		zl_eff_fmt_tflops(sb, r->tflops);
		if (isfinite(r->flop_frac)) {
			strbuf_addstr(sb, ", ");
			zl_eff_fmt_pct(sb, r->flop_frac);
			strbuf_addstr(sb, " of the ");
			zl_eff_fmt_tflops(sb, r->peak_tflops);
			strbuf_addf(sb, " %s peak", zl_peak_kind_name((enum zl_peak_kind)r->peak_kind));
		} else {
			strbuf_addstr(sb, " (no peak for this dtype)");
		}
	}
}
