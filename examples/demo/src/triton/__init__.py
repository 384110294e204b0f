"""A stand-in for Triton, only inside the zlbench demo tree (pure Python, CPU).

Not Triton. It keeps the names and call paths that FlagGems and zlbench's pytest
plugins use with Triton 3.6 -- triton.jit, triton.Config, triton.autotune,
triton.heuristics, triton.runtime.Autotuner, triton.testing.do_bench -- so that the
demo's FlagGems stand-in and the plugins run unchanged without a GPU. A "kernel"
is a Python function that handles the whole launch grid in one call.
"""

__version__ = "3.6.0+zlbench.demo"

from . import knobs, language, runtime, testing  # noqa: E402
from .runtime import (  # noqa: E402
    Autotuner,
    Config,
    Heuristics,
    JITFunction,
    KernelInterface,
    OutOfResources,
    autotune,
    heuristics,
    jit,
)


def cdiv(x, y):
    return (x + y - 1) // y


def next_power_of_2(n):
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


__all__ = [
    "Autotuner", "Config", "Heuristics", "JITFunction", "KernelInterface", "OutOfResources",
    "autotune", "cdiv", "heuristics", "jit", "knobs", "language", "next_power_of_2",
    "runtime", "testing",
]
