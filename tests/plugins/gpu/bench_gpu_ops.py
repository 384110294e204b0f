"""Benchmarks for the GPU check (copied over benchmark/test_ops.py of the tree)."""
import pytest
import torch

import flag_gems

from .base import Benchmark

SHAPES = [(1 << 16,), (1 << 24,)]


@pytest.mark.add
def test_add():
    Benchmark("add", torch.add, gems_op=flag_gems.add, shapes=SHAPES).run()


@pytest.mark.mul
def test_mul():
    Benchmark("mul", torch.mul, gems_op=flag_gems.mul, shapes=SHAPES).run()


@pytest.mark.copy
def test_copy():
    Benchmark("copy", lambda x, y: x.clone(), gems_op=lambda x, y: flag_gems.copy(x),
              shapes=SHAPES).run()


@pytest.mark.nonzero
def test_nonzero():
    Benchmark("nonzero", lambda x, y: torch.nonzero(x), gems_op=lambda x, y: flag_gems.nonzero(x),
              shapes=SHAPES[:1]).run()


def test_tune_outside_a_measurement():
    # The autotuner benchmarks its configs through triton.testing.do_bench: not measurements.
    x = torch.randn(1 << 20, dtype=torch.float16, device="cuda")
    flag_gems.mul(x, x)
