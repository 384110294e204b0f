"""flag_gems.runtime stand-in: the vendor, the device object and the tuned configs."""

from . import backend, common
from .backend.device_finder import DeviceDetector
from .configs_loader import TunedConfigLoader

config_loader = TunedConfigLoader()
device = DeviceDetector()

# FlagGems: torch_device_fn is torch.cuda (or torch.musa, torch.npu...); here a CPU stand-in.
backend.set_torch_backend_device_fn(device.vendor_name)
torch_device_fn = backend.gen_torch_device_object()
torch_backend_device = backend.get_torch_backend_device_fn()


def get_tuned_config(op_name):
    return config_loader.get_tuned_config(op_name)


def get_heuristic_config(op_name):
    return config_loader.get_heuristics_config(op_name)


__all__ = [
    "DeviceDetector", "TunedConfigLoader", "backend", "common", "config_loader", "device",
    "get_heuristic_config", "get_tuned_config", "torch_backend_device", "torch_device_fn",
]
