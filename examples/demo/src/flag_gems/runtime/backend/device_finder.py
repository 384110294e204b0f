"""DeviceDetector: which vendor FlagGems runs for.

FlagGems asks the environment first (GEMS_VENDOR, FLAGGEMS_VENDOR, GEMS_BACKEND,
FLAGGEMS_BACKEND), then torch and the vendors' query tools. The demo has no
hardware to ask: without those variables it is "nvidia".
"""

import os

from .. import backend
from ..common import vendors

DEFAULT_VENDOR = "nvidia"


class DeviceDetector:
    _instance = None

    def __new__(cls, *args, **kwargs):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __init__(self, vendor_name=None):
        if hasattr(self, "initialized"):
            return
        self.initialized = True
        self.vendor_list = vendors.get_all_vendors().keys()
        self.info = backend.get_vendor_info(vendor_name or self._get_vendor_from_env()
                                            or DEFAULT_VENDOR)
        self.vendor_name = self.info.vendor_name
        self.name = self.info.device_name
        self.dispatch_key = (self.name.upper() if self.info.dispatch_key is None
                             else self.info.dispatch_key)
        self.device_count = backend.gen_torch_device_object(self.vendor_name).device_count()
        self.support_fp64 = self.info.fp64_enabled
        self.support_bf16 = self.info.bf16_enabled
        self.support_int64 = self.info.int64_enabled

    @staticmethod
    def _get_vendor_from_env():
        for key in ("GEMS_VENDOR", "FLAGGEMS_VENDOR", "GEMS_BACKEND", "FLAGGEMS_BACKEND"):
            if key in os.environ:
                return os.environ[key].lower()
        return None

    def get_vendor_name(self):
        return self.vendor_name
