"""A flag_gems stand-in with real Triton kernels, for the GPU check of the plugins."""
import os

import torch
import triton
import triton.language as tl

from . import runtime

__version__ = "0.0+gpu-check"
device = "cuda"
vendor_name = runtime.vendor_name
current_work_registrar = None


def enable(unused=None):
    global current_work_registrar
    current_work_registrar = ("registrar", unused)


class use_gems:
    def __init__(self, exclude=None, include=None):
        self.exclude = exclude

    def __enter__(self):
        enable(self.exclude)

    def __exit__(self, exc_type, exc_val, exc_tb):
        global current_work_registrar
        del current_work_registrar


_CONFIGS = [triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((256, 2), (1024, 4), (4096, 8))]


@triton.autotune(configs=_CONFIGS, key=["n"])
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.autotune(configs=_CONFIGS, key=["n"])
@triton.jit
def mul_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


def _binary(kernel, x, y):
    out = torch.empty_like(x)
    n = x.numel()
    kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, out, n)
    return out


def add(x, y):
    return _binary(add_kernel, x, y)


def mul(x, y):
    return _binary(mul_kernel, x, y)


def copy(x):
    out = torch.empty_like(x)
    n = x.numel()
    copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out


def nonzero(x):
    return torch.nonzero(x)


if os.environ.get("GPU_CHECK_IMPORT_FOREIGN"):
    import flag_gems.runtime.backend._mthreads  # noqa: F401
