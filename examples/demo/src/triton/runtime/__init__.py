"""triton.runtime stand-in (see triton/__init__.py)."""

from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from .driver import driver
from .errors import AutotunerError, OutOfResources
from .jit import JITFunction, KernelInterface, jit

__all__ = [
    "Autotuner", "AutotunerError", "Config", "Heuristics", "JITFunction", "KernelInterface",
    "OutOfResources", "autotune", "driver", "heuristics", "jit",
]
