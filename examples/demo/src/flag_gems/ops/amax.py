"""amax / amin over all elements or one dim; plain kernels, no tuner."""

import cpuref
import triton
import triton.language as tl

from flag_gems.utils import libentry


@libentry()
@triton.jit
def amax_kernel_cpu(X, OUT, M, N, K, BLOCK_N: tl.constexpr):
    d = X.data
    OUT.data[:] = [max(d[i * N * K + j:(i + 1) * N * K:K]) for i in range(M) for j in range(K)]


@libentry()
@triton.jit
def amin_kernel_cpu(X, OUT, M, N, K, BLOCK_N: tl.constexpr):
    d = X.data
    OUT.data[:] = [min(d[i * N * K + j:(i + 1) * N * K:K]) for i in range(M) for j in range(K)]


def _launch(kernel, x, dim):
    if dim is None or dim == () or dim == []:
        m, n, k, shape = 1, x.numel(), 1, ()
    else:
        if isinstance(dim, (list, tuple)):
            (dim,) = dim
        m, n, k = cpuref.reduction_layout(x.shape, dim)
        shape = [s for i, s in enumerate(x.shape) if i != dim % x.ndim]
    out = cpuref.empty(shape, x.dtype, x.device)
    kernel[lambda meta: (m * k,)](x, out, m, n, k, BLOCK_N=triton.next_power_of_2(n))
    return out


def amax(x, dim=(), keepdim=False):
    return _launch(amax_kernel_cpu, x, dim)


def amin(x, dim=(), keepdim=False):
    return _launch(amin_kernel_cpu, x, dim)
