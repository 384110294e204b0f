/*
 * The backend table: one row per vendor. Adding a vendor is adding a row here
 * and its output parser (backends/parse_<tool>.c).
 */
#include <stdlib.h>
#include <string.h>

#include "zlbench/backend.h"
#include "zlbench/util.h"
#include "backends/parsers.h"
#include "zlbench/banned.h"

static const char *const cuda_aliases[] = { "nvidia", "cu", NULL };
static const char *const musa_aliases[] = { "mthreads", "mt", "moore", NULL };
static const char *const rocm_aliases[] = { "amd", "hip", NULL };
static const char *const ascend_aliases[] = { "npu", "huawei", NULL };

static const char *const none[] = { NULL };
static const char *const rocm_extra_vis[] = { "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", NULL };

/* nvidia-smi numbers GPUs in PCI bus order; CUDA defaults to fastest first */
static const char *const cuda_pin_env[] = { "CUDA_DEVICE_ORDER=PCI_BUS_ID", NULL };
/* Variables that change what the vendor's compiler or runtime does: an A/B variable when they differ. */
static const char *const cuda_env[] = { "CUDA_", "NVIDIA_", "PTXAS_", "NVCC_", NULL };
static const char *const musa_env[] = { "MUSA_", "MTGPU_", "MCC_", NULL };
static const char *const rocm_env[] = { "HIP_", "ROCM_", "HSA_", "AMD_", "ROCR_", NULL };
static const char *const ascend_env[] = { "ASCEND_", "NPU_", "HCCL_", "TORCH_NPU_", NULL };
static const char *const cuda_slurm[] = { "CUDA_VISIBLE_DEVICES", NULL };
static const char *const rocm_slurm[] = { "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", NULL };

/*
 * Query argvs: the output format each parser reads most reliably. nvidia-smi's
 * CSV is stable across driver versions (and ignores CUDA_VISIBLE_DEVICES: it
 * always lists every GPU). mthreads-gmi has no machine-readable mode with
 * verbatim samples, so its default table is read. rocm-smi's JSON carries the
 * same pairs as its text but in one parseable object. npu-smi info's table is the
 * only output that names the product, bus id and memory of every chip.
 */
static const char *const cuda_query[] = { "nvidia-smi",
	"--query-gpu=" ZL_NVSMI_QUERY_FIELDS, "--format=csv,noheader,nounits", NULL };
static const char *const musa_query[] = { "mthreads-gmi", NULL };
static const char *const rocm_query[] = { "rocm-smi", "--showid", "--showproductname",
	"--showuniqueid", "--showbus", "--showmeminfo", "vram", "--showdriverversion", "--json", NULL };
/* ROCm's newer tool: no product or memory, but present where rocm-smi is not installed */
static const char *const rocm_alt_query[] = { "amd-smi", "list", NULL };
static const char *const ascend_query[] = { "npu-smi", "info", NULL };

const struct zl_capability_def zl_capability_table[] = {
	{ ZL_CAP_GRAPH_CAPTURE, "graph_capture",
	  "device graphs: the graph timer can capture and replay a kernel" },
	{ ZL_CAP_KERNEL_PROFILER, "kernel_profiler",
	  "torch's in-process profiler reports device kernel timestamps with correlation ids: the profiler timer" },
	{ ZL_CAP_FORK_SERVER, "fork_server",
	  "importing FlagGems leaves the device untouched: a fork server may import it once and fork per op" },
	{ 0, NULL, NULL },
};

/*
 * Why the profiler timer is off where it is (docs/timer.md cites the code). rocm has it:
 * PyTorch's ROCm build reports device activities through Kineto's rocprofiler/roctracer
 * path (torch/csrc/autograd/init.cpp _supported_activities; kineto RocprofActivity.h).
 */
static const struct zl_cap_note musa_notes[] = {
	{ ZL_CAP_KERNEL_PROFILER, "torch_musa records MUSA kernels through its own profiler "
	  "(torch_musa.profiler, MUPTI), which the profiler timer does not drive; not verified on MUSA hardware" },
	{ 0, NULL },
};
static const struct zl_cap_note ascend_notes[] = {
	{ ZL_CAP_KERNEL_PROFILER, "torch_npu collects NPU kernel timings through its own profiler "
	  "(torch_npu.profiler, msprof), written to files and parsed after the session; "
	  "torch's in-process profiler returns no NPU kernel events" },
	{ 0, NULL },
};

const struct zl_backend zl_backend_table[] = {
	{
		.name = "cuda",
		.env_prefixes = cuda_env,
		.aliases = cuda_aliases,
		.vendor_name = "nvidia",
		.vendor_module = "_nvidia",
		.visibility_var = "CUDA_VISIBLE_DEVICES",
		.extra_visibility_vars = none,
		.slurm_sets = cuda_slurm,
		.query_tool = "nvidia-smi",
		.query_argv = cuda_query,
		.parse = zl_parse_nvidia_smi_csv,
		.dev_node_prefix = "nvidia",
		.dev_node_probe = "nvidiactl",
		.pin_env = cuda_pin_env,
		.caps = ZL_CAP_GRAPH_CAPTURE | ZL_CAP_KERNEL_PROFILER,
		.clock_source = "nvml",
	},
	{
		.name = "musa",
		.env_prefixes = musa_env,
		.aliases = musa_aliases,
		.vendor_name = "mthreads",
		.vendor_module = "_mthreads",
		.visibility_var = "MUSA_VISIBLE_DEVICES",
		.extra_visibility_vars = none,
		.slurm_sets = none,
		.query_tool = "mthreads-gmi",
		.query_argv = musa_query,
		.parse = zl_parse_mthreads_gmi,
		.dev_node_prefix = "mtgpu.",
		.dev_node_probe = NULL,
		.caps = 0,
		.cap_notes = musa_notes,
	},
	{
		.name = "rocm",
		.env_prefixes = rocm_env,
		.aliases = rocm_aliases,
		.vendor_name = "amd",
		.vendor_module = "_amd",
		.visibility_var = "HIP_VISIBLE_DEVICES",
		.extra_visibility_vars = rocm_extra_vis,
		.slurm_sets = rocm_slurm,
		.query_tool = "rocm-smi",
		.query_argv = rocm_query,
		.parse = zl_parse_rocm_smi_json,
		.alt_query_tool = "amd-smi",
		.alt_query_argv = rocm_alt_query,
		.alt_parse = zl_parse_amd_smi_list,
		.dev_node_prefix = "dri/renderD",
		.dev_node_probe = "kfd",
		.dev_node_note = "render nodes of other vendors' GPUs are counted too",
		.caps = ZL_CAP_KERNEL_PROFILER,
	},
	{
		.name = "ascend",
		.env_prefixes = ascend_env,
		.aliases = ascend_aliases,
		.vendor_name = "ascend",
		.vendor_module = "_ascend",
		.visibility_var = "ASCEND_RT_VISIBLE_DEVICES",
		.extra_visibility_vars = none,
		.slurm_sets = none,
		.query_tool = "npu-smi",
		.query_argv = ascend_query,
		.parse = zl_parse_npu_smi_info,
		.dev_node_prefix = "davinci",
		.dev_node_probe = "davinci_manager",
		.caps = 0,
		.cap_notes = ascend_notes,
	},
	{ .name = NULL },
};

size_t zl_backend_count(void)
{
	size_t n = 0;

	while (zl_backend_table[n].name)
		n++;
	return n;
}

const struct zl_backend *zl_backend_find(const char *name)
{
	const struct zl_backend *b;

	if (!name)
		return NULL;
	for (b = zl_backend_table; b->name; b++) {
		const char *const *a;

		if (zl_strcaseeq(b->name, name))
			return b;
		for (a = b->aliases; a && *a; a++)
			if (zl_strcaseeq(*a, name))
				return b;
	}
	return NULL;
}

void zl_backend_choices(struct strbuf *sb)
{
	const struct zl_backend *b;

	for (b = zl_backend_table; b->name; b++) {
		const char *const *a;

		if (b != zl_backend_table)
			strbuf_addstr(sb, ", ");
		strbuf_addstr(sb, b->name);
		if (b->aliases && *b->aliases) {
			strbuf_addstr(sb, " (");
			for (a = b->aliases; *a; a++)
				strbuf_addf(sb, "%s%s", a == b->aliases ? "" : ", ", *a);
			strbuf_addch(sb, ')');
		}
	}
}

void zl_backend_names(struct strvec *sv)
{
	const struct zl_backend *b;
	const char *const *a;

	for (b = zl_backend_table; b->name; b++) {
		strvec_push(sv, b->name);
		for (a = b->aliases; a && *a; a++)
			strvec_push(sv, *a);
	}
}

int zl_backend_has(const struct zl_backend *b, unsigned cap)
{
	return b && (b->caps & cap) == cap;
}

const struct zl_capability_def *zl_capability_find(unsigned bit)
{
	const struct zl_capability_def *c;

	for (c = zl_capability_table; c->name; c++)
		if (c->bit == bit)
			return c;
	return NULL;
}

const char *zl_backend_cap_note(const struct zl_backend *b, unsigned cap)
{
	const struct zl_cap_note *n;

	if (!b || zl_backend_has(b, cap))
		return NULL;
	for (n = b->cap_notes; n && n->bit; n++)
		if (n->bit == cap)
			return n->why;
	return NULL;
}

const char *zl_backend_clock_source(const struct zl_backend *b)
{
	return b && b->clock_source ? b->clock_source : "none";
}

/*
 * Device peaks (backend.h). Dense figures: the datasheets print tensor-core FLOP/s with
 * 2:4 sparsity ("*" in NVIDIA's tables), halved here. Bandwidth in GB/s as printed
 * (TB/s x 1000). The names are what nvidia-smi and rocm-smi print for the part.
 */
static const char *const h200_names[] = { "NVIDIA H200", NULL };
static const char *const h100_sxm_names[] = { "NVIDIA H100 80GB HBM3", NULL };
static const char *const h100_pcie_names[] = { "NVIDIA H100 PCIe", NULL };
static const char *const a100_sxm80_names[] = { "NVIDIA A100-SXM4-80GB", NULL };
static const char *const a100_sxm40_names[] = { "NVIDIA A100-SXM4-40GB", NULL };
static const char *const a100_pcie80_names[] = { "NVIDIA A100 80GB PCIe", NULL };
static const char *const a100_pcie40_names[] = { "NVIDIA A100-PCIE-40GB", NULL };
static const char *const mi300x_names[] = { "AMD Instinct MI300X", "AMD Instinct MI300X OAM",
					    "Aqua Vanjaram [Instinct MI300X]", NULL };

#define NV_H200_SHEET "NVIDIA H200 Tensor Core GPU datasheet, www.nvidia.com/en-us/data-center/h200/"
#define NV_H100_SHEET "NVIDIA H100 Tensor Core GPU datasheet, www.nvidia.com/en-us/data-center/h100/"
#define NV_A100_SHEET "NVIDIA A100 Tensor Core GPU datasheet, www.nvidia.com/content/dam/en-zz/" \
	"Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"
#define NV_A100_PAPER "NVIDIA A100 Tensor Core GPU Architecture whitepaper, images.nvidia.com/aem-dam/" \
	"en-zz/Solutions/data-center/nvidia-ampere-architecture-whitepaper.pdf"
#define AMD_MI300X_SHEET "AMD Instinct MI300X accelerator data sheet, www.amd.com/content/dam/amd/en/" \
	"documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf"

const struct zl_device_peak zl_device_peak_table[] = {
	{
		.model = "H200 SXM",
		.names = h200_names,
		.hbm_gbps = 4800,
		.tflops = { [ZL_PEAK_FP32] = 67, [ZL_PEAK_TF32] = 494.5, [ZL_PEAK_FP16] = 989.5,
			    [ZL_PEAK_BF16] = 989.5, [ZL_PEAK_FP8] = 1979 },
		.source = NV_H200_SHEET " (H200 SXM column; tensor figures with sparsity halved)",
	},
	{
		.model = "H100 SXM",
		.names = h100_sxm_names,
		.hbm_gbps = 3350,
		.tflops = { [ZL_PEAK_FP32] = 67, [ZL_PEAK_TF32] = 494.5, [ZL_PEAK_FP16] = 989.5,
			    [ZL_PEAK_BF16] = 989.5, [ZL_PEAK_FP8] = 1979 },
		.source = NV_H100_SHEET " (H100 SXM column; tensor figures with sparsity halved)",
	},
	{
		.model = "H100 PCIe",
		.names = h100_pcie_names,
		.hbm_gbps = 2000,
		.tflops = { [ZL_PEAK_FP32] = 51, [ZL_PEAK_TF32] = 378, [ZL_PEAK_FP16] = 756.5,
			    [ZL_PEAK_BF16] = 756.5, [ZL_PEAK_FP8] = 1513 },
		.source = NV_H100_SHEET " (H100 PCIe column; tensor figures with sparsity halved)",
	},
	{
		.model = "A100 SXM4 80GB",
		.names = a100_sxm80_names,
		.hbm_gbps = 2039,
		.tflops = { [ZL_PEAK_FP32] = 19.5, [ZL_PEAK_TF32] = 156, [ZL_PEAK_FP16] = 312, [ZL_PEAK_BF16] = 312 },
		.source = NV_A100_SHEET " (A100 80GB SXM column)",
	},
	{
		.model = "A100 SXM4 40GB",
		.names = a100_sxm40_names,
		.hbm_gbps = 1555,
		.tflops = { [ZL_PEAK_FP32] = 19.5, [ZL_PEAK_TF32] = 156, [ZL_PEAK_FP16] = 312, [ZL_PEAK_BF16] = 312 },
		.source = NV_A100_PAPER " (A100 40GB SXM4: 1555 GB/s; the datasheet's compute figures)",
	},
	{
		.model = "A100 PCIe 80GB",
		.names = a100_pcie80_names,
		.hbm_gbps = 1935,
		.tflops = { [ZL_PEAK_FP32] = 19.5, [ZL_PEAK_TF32] = 156, [ZL_PEAK_FP16] = 312, [ZL_PEAK_BF16] = 312 },
		.source = NV_A100_SHEET " (A100 80GB PCIe column)",
	},
	{
		.model = "A100 PCIe 40GB",
		.names = a100_pcie40_names,
		.hbm_gbps = 1555,
		.tflops = { [ZL_PEAK_FP32] = 19.5, [ZL_PEAK_TF32] = 156, [ZL_PEAK_FP16] = 312, [ZL_PEAK_BF16] = 312 },
		.source = NV_A100_PAPER " (A100 40GB PCIe: 1555 GB/s; the datasheet's compute figures)",
	},
	{
		.model = "MI300X",
		.names = mi300x_names,
		.hbm_gbps = 5300,
		.tflops = { [ZL_PEAK_FP32] = 163.4, [ZL_PEAK_TF32] = 653.7, [ZL_PEAK_FP16] = 1307.4,
			    [ZL_PEAK_BF16] = 1307.4, [ZL_PEAK_FP8] = 2614.9 },
		.source = AMD_MI300X_SHEET " (dense figures)",
	},
	{ .model = NULL },
};

const char *zl_peak_kind_name(enum zl_peak_kind k)
{
	static const char *const names[ZL_PEAK__COUNT] = {
		[ZL_PEAK_FP32] = "fp32", [ZL_PEAK_TF32] = "tf32", [ZL_PEAK_FP16] = "fp16",
		[ZL_PEAK_BF16] = "bf16", [ZL_PEAK_FP8] = "fp8",
	};

	return (size_t)k < ZL_ARRAY_SIZE(names) ? names[k] : "?";
}

const struct zl_device_peak *zl_device_peak_find(const char *device_name)
{
	const struct zl_device_peak *p;

	if (!device_name)
		return NULL;
	for (p = zl_device_peak_table; p->model; p++) {
		const char *const *n;

		for (n = p->names; n && *n; n++)
			if (zl_strcaseeq(*n, device_name))
				return p;
	}
	return NULL;
}
