"""Fake FlagGems: vendor selection at import, use_gems(), vendor packages, and a few
ops built like FlagGems' (LibEntry + LibTuner, triton.autotune, no tuner)."""
import os
import time

from . import runtime

__version__ = "9.9.9+fake"
device = runtime.device.name
vendor_name = runtime.device.vendor_name
current_work_registrar = None


def enable(unused=None):
    global current_work_registrar
    current_work_registrar = ("registrar", unused)


class use_gems:
    """As FlagGems': enable() sets current_work_registrar, __exit__ deletes it. Entering and
    leaving each take FAKE_USE_GEMS_S seconds (FlagGems registers and unregisters about a
    thousand operators there)."""

    def __init__(self, exclude=None, include=None):
        self.exclude = exclude

    def __enter__(self):
        time.sleep(float(os.environ.get("FAKE_USE_GEMS_S") or 0))
        enable(self.exclude)

    def __exit__(self, exc_type, exc_val, exc_tb):
        global current_work_registrar
        time.sleep(float(os.environ.get("FAKE_USE_GEMS_S") or 0))
        del current_work_registrar


if runtime.torch is not None:
    from .ops import add, copy, mul, nonzero  # noqa: F401,E402
