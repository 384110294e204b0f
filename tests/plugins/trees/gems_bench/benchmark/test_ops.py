"""Benchmarks over the fake ops. Which ones run is chosen with -k / node ids."""
import os

import pytest
import torch

import flag_gems

from .base import Benchmark, SubBenchmark


def _shapes():
    raw = os.environ.get("BENCH_SHAPES")
    if not raw:
        return None
    return [tuple(int(d) for d in s.split("x")) for s in raw.split(",")]


def torch_add(x, y):
    """The baseline: a fixed-cost "torch" kernel; FlagGems' add under use_gems()."""
    if getattr(flag_gems, "current_work_registrar", None) is not None:
        return flag_gems.add(x, y)
    torch.cuda._launch(x.numel() * 2e-6, "torch_add")
    return torch.empty(x.shape, dtype=x.dtype)


def torch_mm(x, y):
    """Like cuBLAS under aten::mm: a workspace memset beside the GEMM, one op around both."""
    with torch.cuda._op("aten::mm"):
        torch.cuda._launch(1e-4, "Memset", kind="memset")
        torch.cuda._launch(x.numel() * 4e-6, "sm90_xmma_gemm_f16f16")
    return torch.empty(x.shape, dtype=x.dtype)


def gems_two_kernels(x, y):
    """A FlagGems op that launches two kernels with no torch op around them."""
    flag_gems.copy(x)
    return flag_gems.mul(x, y)


def broken(x, y):
    raise RuntimeError("the op under test is broken")


def torch_mul(x, y):
    torch.cuda._launch(x.numel() * 3e-6, "torch_mul")
    return torch.empty(x.shape, dtype=x.dtype)


def _mul_with_backward(cost_per_element):
    """A forward whose output's node launches the backward kernel (cost_per_element ms an
    element) when torch.autograd.grad runs it on the engine's thread."""
    def op(x, y):
        torch.cuda._launch(x.numel() * 3e-6, "mul_forward")
        out = torch.empty(x.shape, dtype=x.dtype)
        out.grad_fn = torch.autograd._Node(
            "MulBackward0", lambda: torch.cuda._launch(x.numel() * cost_per_element,
                                                       "mul_backward_kernel"))
        return out
    return op


@pytest.mark.add
def test_add():
    Benchmark("add", torch_add, shapes=_shapes()).run()


@pytest.mark.mul
def test_mul():
    Benchmark("mul", torch_mul, gems_op=flag_gems.mul, shapes=_shapes()).run()


@pytest.mark.copy
def test_copy():
    SubBenchmark("copy", torch_mul, gems_op=lambda x, y: flag_gems.copy(x),
                 shapes=_shapes()).run()


@pytest.mark.nonzero
def test_nonzero():
    Benchmark("nonzero", torch_mul, gems_op=lambda x, y: flag_gems.nonzero(x),
              shapes=_shapes()).run()


@pytest.mark.mm
def test_mm():
    Benchmark("mm", torch_mm, gems_op=gems_two_kernels, shapes=_shapes()).run()


@pytest.mark.broken
def test_broken():
    Benchmark("broken", torch_mul, gems_op=broken, shapes=_shapes()).run()


@pytest.mark.mul_backward
def test_mul_backward():
    Benchmark("mul_backward", _mul_with_backward(5e-6), gems_op=_mul_with_backward(4e-6),
              shapes=_shapes(), is_backward=True).run()
