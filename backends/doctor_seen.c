/*
 * The instances behind doctor's skips and foreign_vendor steps (include/zlbench/doctor_seen.h),
 * quoted as README.md's checklist gives them: FlagGems' own skip reason, the device it ran on.
 */
#include "zlbench/doctor_seen.h"

const char zl_doctor_seen_skips[] =
	"router_gemm skipped its only test with FlagGems' reason \"router_gemm benchmark requires Cambricon or "
	"NVIDIA Hopper backend\": its guarded `from flag_gems.runtime.backend._nvidia.hopper.ops.mm import "
	"router_gemm` had failed";

const char zl_doctor_seen_foreign[] =
	"on an MTT S5000, router_gemm imported the NVIDIA Hopper module, ran its kernel and died in the JIT with "
	"\"dynamic_func() missing 4 required positional arguments\"; gating the import on flag_gems.vendor_name "
	"made it run: 10 shapes, 10 kernels";
