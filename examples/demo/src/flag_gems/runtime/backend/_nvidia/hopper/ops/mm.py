"""router_gemm: x @ weight.T in float32; a Hopper-only kernel in FlagGems, a CPU
stand-in here. Benchmarks that import it from this path load `_nvidia` modules
whatever vendor the run is for."""

import cpuref

from flag_gems.ops.mm import mm


def router_gemm(x, weight):
    return mm(x, weight.t()).to(cpuref.float32)
