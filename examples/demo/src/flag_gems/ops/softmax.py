"""softmax along one dim, tuned by a plain triton.autotune (as some FlagGems kernels are).

Cost depends on TILE_N on purpose: the ideal tile is N rounded up to a power of two
within [32, 128]; each factor of two away repeats the work once. Winner: TILE_N=32
for N <= 32, 64 for N <= 64, else 128.
"""

import math

import cpuref
import triton
import triton.language as tl

from flag_gems import runtime
from flag_gems.utils import libentry


def _passes(tile_n, n):
    ideal = min(max(triton.next_power_of_2(n), 32), 128)
    return 1 + abs(tile_n.bit_length() - ideal.bit_length())


@libentry()
@triton.autotune(configs=runtime.get_tuned_config("softmax"), key=["M", "N"])
@triton.jit
def softmax_kernel_cpu(OUT, X, M, N, K, TILE_N: tl.constexpr):
    d, o = X.data, OUT.data
    exp = math.exp
    for _ in range(_passes(TILE_N, N)):
        for i in range(M):
            for j in range(K):
                base = i * N * K + j
                col = d[base: base + N * K: K]
                top = max(col)
                e = [exp(v - top) for v in col]
                s = sum(e)
                o[base: base + N * K: K] = [v / s for v in e]


def softmax(x, dim=-1, dtype=None):
    m, n, k = cpuref.reduction_layout(x.shape, dim)
    out = cpuref.empty(x.shape, dtype or x.dtype, x.device)
    softmax_kernel_cpu[lambda meta: (m * k,)](out, x, m, n, k)
    return out
