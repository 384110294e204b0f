"""The demo's operators: CPU stand-in kernels launched through LibEntry / tuners."""

from .add import add
from .amax import amax, amin
from .mm import mm, mm_out
from .softmax import softmax
from .sum import sum, sum_dim

__all__ = ["add", "amax", "amin", "mm", "mm_out", "softmax", "sum", "sum_dim"]
