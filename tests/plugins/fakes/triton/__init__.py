"""Fake triton 3.6: the runtime pieces FlagGems and the plugins touch."""
__version__ = "3.6.0+fake"

from .runtime import (Autotuner, Config, Heuristics, JITFunction, KernelInterface,  # noqa: F401
                      autotune, heuristics)
from .runtime.jit import jit  # noqa: F401
from . import runtime  # noqa: F401
from . import testing  # noqa: F401
from . import backends  # noqa: F401
from . import language  # noqa: F401
