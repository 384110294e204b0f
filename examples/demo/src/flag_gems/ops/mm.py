"""mm: matrix product, tuned by LibTuner like FlagGems' mm.

The stand-in kernel's cost depends on BLOCK_M on purpose: a block that does not fit
M (ideal: 16 rows for M <= 16, else 32) repeats the work once per factor of two it is
off by. So tuning has a clear, deterministic winner per key: BLOCK_M=16 for M <= 16,
BLOCK_M=32 above.
"""

import operator

import cpuref
import triton
import triton.language as tl

from flag_gems import runtime
from flag_gems.utils import libentry, libtuner


def _passes(block_m, m):
    ideal = 16 if m <= 16 else 32
    return 1 + abs(block_m.bit_length() - ideal.bit_length())


@libentry()
@libtuner(
    configs=runtime.get_tuned_config("mm"),
    key=["M", "N", "K"],
    strategy=["align32", "align32", "align32"],
)
@triton.jit
def mm_kernel_cpu(A, B, C, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    a, b = A.data, B.data
    rows = [a[i * K:(i + 1) * K] for i in range(M)]
    cols = [b[j::N] for j in range(N)]
    mul = operator.mul
    for _ in range(_passes(BLOCK_M, M)):
        out = [sum(map(mul, r, c)) for r in rows for c in cols]
    C.data[:] = out


def mm(a, b, *, out=None):
    (m, k), (k2, n) = a.shape, b.shape
    if k != k2:
        raise ValueError(f"mm: shapes {list(a.shape)} and {list(b.shape)} cannot be multiplied")
    c = out if out is not None else cpuref.empty((m, n), a.dtype, a.device)
    grid = lambda meta: (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)  # noqa: E731
    mm_kernel_cpu[grid](a, b, c, m, n, k)
    return c


def mm_out(a, b, *, out):
    return mm(a, b, out=out)
