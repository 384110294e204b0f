from .jit import JITFunction, KernelInterface, jit  # noqa: F401
from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics  # noqa: F401
from .driver import driver  # noqa: F401
