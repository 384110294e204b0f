"""sum over all elements or one dim; BLOCK_N comes from a heuristic, no tuner."""

import builtins

import cpuref
import triton
import triton.language as tl

from flag_gems import runtime
from flag_gems.utils import libentry


# This module's sum() is the operator; the kernel needs the builtin.
_bsum = builtins.sum


@libentry()
@triton.heuristics(runtime.get_heuristic_config("sum"))
@triton.jit
def sum_kernel_cpu(X, OUT, M, N, K, BLOCK_N: tl.constexpr):
    d = X.data
    if K == 1:
        OUT.data[:] = [_bsum(d[i * N:(i + 1) * N]) for i in range(M)]
    else:
        OUT.data[:] = [_bsum(d[i * N * K + j:(i + 1) * N * K:K]) for i in range(M)
                       for j in range(K)]


def _launch(x, dim):
    if dim is None or dim == () or dim == []:
        m, n, k, shape = 1, x.numel(), 1, ()
    else:
        if isinstance(dim, (list, tuple)):
            (dim,) = dim
        m, n, k = cpuref.reduction_layout(x.shape, dim)
        shape = [s for i, s in enumerate(x.shape) if i != dim % x.ndim]
    out = cpuref.empty(shape, x.dtype, x.device)
    sum_kernel_cpu[lambda meta: (m * k,)](x, out, m, n, k)
    return out


def sum(x, dim=None, keepdim=False, *, dtype=None):  # noqa: A001 - named like torch.sum
    return _launch(x, dim)


def sum_dim(x, dim, keepdim=False, *, dtype=None):
    return _launch(x, dim)
