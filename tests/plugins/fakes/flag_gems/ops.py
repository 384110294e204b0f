"""Fake ops. Kernel bodies return their cost in ms: n elements at 1e-6 ms each,
1.5x slower unless BLOCK is FAKE_BEST_BLOCK (default 128)."""
import os

import torch
import triton
import triton.language as tl

from flag_gems.utils.libentry import libentry, libtuner


def _cost(n, block):
    best = int(os.environ.get("FAKE_BEST_BLOCK", "128"))
    return n * 1e-6 * (1.0 if block == best else 1.5)


@libentry()
@libtuner(configs=[triton.Config({"BLOCK": b}, num_warps=w, num_stages=s)
                   for b, w, s in ((64, 4, 2), (128, 4, 3), (256, 8, 3))],
          key=["n"], strategy=["log"])
@triton.jit
def add_kernel(x, y, n, BLOCK: tl.constexpr):
    return _cost(n, BLOCK)


def add(x, y):
    add_kernel[(1,)](x, y, x.numel())
    return torch.empty(x.shape, dtype=x.dtype)


@triton.autotune(configs=[triton.Config({"BLOCK": b}) for b in (64, 128, 256)], key=["n"])
@triton.jit
def mul_kernel(x, n, BLOCK: tl.constexpr):
    return 2 * _cost(n, BLOCK)


def mul(x, y):
    mul_kernel[(1,)](x, x.numel())
    return torch.empty(x.shape, dtype=x.dtype)


@libentry()
@triton.jit
def copy_kernel(x, n):
    return n * 1e-6


def copy(x):
    copy_kernel[(1,)](x, x.numel())
    return torch.empty(x.shape, dtype=x.dtype)


# Like FlagGems' pointwise_dynamic: the kernel is made at an op's first call and held by a
# cache, no module's global (zl_autotune finds it among the objects the collector tracks).
_generated = {}


def _gen_copy_body(x, n):
    return n * 1e-6


def gen_copy(x):
    k = _generated.get("copy")
    if k is None:
        k = _generated["copy"] = libentry()(triton.jit(_gen_copy_body))
    k[(1,)](x, x.numel())
    return torch.empty(x.shape, dtype=x.dtype)


def nonzero(x):
    """Reads a count back to the host, like torch.nonzero: cannot be captured."""
    copy_kernel[(1,)](x, x.numel())
    torch.cuda.synchronize()
    return torch.empty((x.numel(), x.dim()), dtype=torch.int64)
