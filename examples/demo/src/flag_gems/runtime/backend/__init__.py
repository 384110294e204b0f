"""Backend selection, as FlagGems does it: runtime/backend/_<vendor> is imported as a
top-level module `_<vendor>` (this directory is appended to sys.path), so the own
vendor's modules appear in sys.modules as `_nvidia`, `_nvidia.ops`, ... while an
explicit `import flag_gems.runtime.backend._nvidia...` loads a second, foreign copy.
"""

import importlib
import os
import sys

import cpuref


class BackendState:
    """Singleton holding the chosen vendor module and the device object."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
            cls._instance._initialized = False
        return cls._instance

    def __init__(self):
        if self._initialized:
            return
        self._initialized = True
        self.vendor_module = None
        self.device_name = None
        self.torch_device_object = None
        self.torch_device_fn_device = None


_state = BackendState()


def get_vendor_module(vendor_name, query=False):
    def get_module(name):
        current_dir_path = os.path.dirname(os.path.abspath(__file__))
        if current_dir_path not in sys.path:
            sys.path.append(current_dir_path)
        return importlib.import_module(name)

    if query:
        return get_module(vendor_name)
    if _state.vendor_module is None:
        _state.vendor_module = get_module("_" + vendor_name)
    return _state.vendor_module


def get_vendor_info(vendor_name=None, query=False):
    if query:
        return get_vendor_module(vendor_name, query).vendor_info
    get_vendor_module(vendor_name)
    return _state.vendor_module.vendor_info


class _CpuDeviceFn:
    """What torch.cuda is to FlagGems (torch_device_fn), for a CPU with one "device"."""

    @staticmethod
    def synchronize(device=None):
        pass

    @staticmethod
    def empty_cache():
        pass

    @staticmethod
    def current_device():
        return 0

    @staticmethod
    def device_count():
        return 1

    @staticmethod
    def is_available():
        return True

    @staticmethod
    def set_device(device):
        pass

    @staticmethod
    def memory_allocated(device=None):
        return cpuref.memory_allocated()


def set_torch_backend_device_fn(vendor_name=None):
    _state.device_name = _state.device_name or get_vendor_info(vendor_name).device_name
    _state.torch_device_fn_device = None


def get_torch_backend_device_fn():
    return _state.torch_device_fn_device


def gen_torch_device_object(vendor_name=None):
    if _state.torch_device_object is None:
        _state.device_name = _state.device_name or get_vendor_info(vendor_name).device_name
        _state.torch_device_object = _CpuDeviceFn()
    return _state.torch_device_object


def get_arch():
    """The architecture package of the vendor (e.g. 'hopper'), from the ARCH variable as
    FlagGems reads it ('sm_90' -> '9' -> ARCH_MAP['9']); the demo has no device to ask,
    so without ARCH there is none."""
    arch_map = getattr(_state.vendor_module, "ARCH_MAP", None)
    arch_string = os.environ.get("ARCH", "")
    if not arch_map or not arch_string:
        return None
    return arch_map.get(arch_string.split("_")[-1][0])
