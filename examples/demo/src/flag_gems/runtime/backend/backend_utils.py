"""VendorDescriptor: the facts each runtime/backend/_<vendor> package declares."""

from dataclasses import dataclass


@dataclass
class VendorDescriptor:
    vendor_name: str
    device_name: str
    device_query_cmd: str
    dispatch_key: str = None
    triton_extra_name: str = None
    trademark: str = None
    fp64_enabled: bool = True
    bf16_enabled: bool = True
    int64_enabled: bool = True
    tle_enabled: bool = False
