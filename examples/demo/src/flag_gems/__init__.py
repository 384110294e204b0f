"""A stand-in for FlagGems inside the zlbench demo tree: CPU kernels in pure Python.

Not FlagGems. It keeps what FlagGems' benchmarks and zlbench's plugins look at:
flag_gems.vendor_name and flag_gems.device (vendor from GEMS_VENDOR, FLAGGEMS_VENDOR,
GEMS_BACKEND or FLAGGEMS_BACKEND, default "nvidia"), flag_gems.runtime (the vendor's
backend package, torch_device_fn), flag_gems.utils.libentry (LibEntry, LibTuner and the
tuner database), and use_gems(), which routes the reference operators in `cpuref`
(the demo's "torch") to these kernels the way FlagGems registers into torch's aten.
"""

import os

import cpuref

from flag_gems import runtime
from flag_gems.ops import add, amax, amin, mm, mm_out, softmax, sum, sum_dim  # noqa: A004
from flag_gems.utils import slowdown as _slowdown

__version__ = "0.0.0+zlbench.demo"

device = runtime.device.name
vendor_name = runtime.device.vendor_name
backend_info = runtime.device
aten_lib = cpuref.library.Library("aten", "IMPL")

# FLAGGEMS_DEMO_SLOWDOWN (utils/slowdown.py): named kernels made slower on purpose
for _name, _times in _slowdown.parse(os.environ.get(_slowdown.VAR), (
        "add", "amax", "amin", "mm", "softmax", "sum")).items():
    globals()[_name] = _slowdown.slowed(globals()[_name], _times)

# (operator name, implementation) pairs registered by enable()
_FULL_CONFIG = (
    ("add.Tensor", add),
    ("amax", amax),
    ("amin", amin),
    ("mm", mm),
    ("softmax.int", softmax),
    ("sum", sum),
)


class GeneralOpRegistrar:
    """Registers the chosen (name, function) pairs into a library."""

    def __init__(self, config, user_include_ops=None, user_exclude_ops=None,
                 cpp_patched_ops=None, lib=None):
        include = set(user_include_ops or ())
        exclude = set(user_exclude_ops or ())
        self.config = [(name, fn) for name, fn in config
                       if (not include or name in include or fn.__name__ in include)
                       and name not in exclude and fn.__name__ not in exclude]
        self.lib = lib
        for name, fn in self.config:
            lib.impl(name, fn, "CPU")

    def get_all_ops(self):
        return [fn.__name__ for _, fn in self.config]

    def get_all_keys(self):
        return [name for name, _ in self.config]


registrar = GeneralOpRegistrar
current_work_registrar = None


def _names(setting):
    if setting is None or setting == "default":
        return []
    if isinstance(setting, str):
        return [setting]
    return list(setting)


def enable(lib=aten_lib, unused=None, registrar=registrar, record=False, once=False, path=None):
    """Register every demo kernel except those in `unused`."""
    global current_work_registrar
    current_work_registrar = registrar(_FULL_CONFIG, user_include_ops=[],
                                       user_exclude_ops=_names(unused), lib=lib)


def only_enable(include=None, lib=aten_lib, registrar=registrar, record=False, once=False,
                path=None):
    """Register only the kernels named in `include`."""
    global current_work_registrar
    current_work_registrar = registrar(_FULL_CONFIG, user_include_ops=_names(include),
                                       user_exclude_ops=[], lib=lib)


class use_gems:  # noqa: N801 - FlagGems' spelling
    """with flag_gems.use_gems(): the cpuref operators run the demo kernels.

    As in FlagGems, leaving the block deletes the module attribute
    current_work_registrar (read it with getattr(flag_gems, "current_work_registrar", None)).
    """

    def __init__(self, exclude=None, include=None, record=False, once=False, path=None):
        self.lib = cpuref.library.Library("aten", "IMPL")
        self.exclude = exclude if isinstance(exclude, (list, tuple, set, str)) else []
        self.include = include if isinstance(include, (list, tuple, set, str)) else []
        self.registrar = GeneralOpRegistrar
        self.record = record
        self.once = once
        self.path = path

    def __enter__(self):
        if self.include:
            only_enable(include=self.include, lib=self.lib, registrar=self.registrar)
        else:
            enable(lib=self.lib, unused=self.exclude, registrar=self.registrar)

    def __exit__(self, exc_type, exc_val, exc_tb):
        global current_work_registrar
        self.lib._destroy()
        del self.lib
        del self.exclude
        del self.include
        del self.registrar
        del current_work_registrar


def all_registered_ops():
    return current_work_registrar.get_all_ops()


def all_registered_keys():
    return current_work_registrar.get_all_keys()


__all__ = [
    "add", "all_registered_keys", "all_registered_ops", "amax", "amin", "device", "enable",
    "mm", "mm_out", "only_enable", "runtime", "softmax", "sum", "sum_dim", "use_gems",
    "vendor_name",
]
