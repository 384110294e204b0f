"""flag_gems.utils stand-in."""

from . import shape_utils
from .libentry import LibEntry, LibTuner, libentry, libtuner

__all__ = ["LibEntry", "LibTuner", "libentry", "libtuner", "shape_utils"]
