import os

try:
    import torch
except ImportError:
    torch = None

from . import backend


class _Device:
    def __init__(self):
        # Like FlagGems' DeviceDetector: GEMS_VENDOR wins over detection.
        self.vendor_name = (os.environ.get("GEMS_VENDOR") or "nvidia").lower()
        self.name = backend.get_vendor_info(self.vendor_name).device_name


device = _Device()
torch_device_fn = torch.cuda if torch is not None else None

if os.environ.get("FAKE_IMPORT_ALL_VENDORS"):
    backend.get_vendor_infos()
