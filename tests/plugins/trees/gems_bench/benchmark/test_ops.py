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


def torch_mul(x, y):
    torch.cuda._launch(x.numel() * 3e-6, "torch_mul")
    return torch.empty(x.shape, dtype=x.dtype)


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
