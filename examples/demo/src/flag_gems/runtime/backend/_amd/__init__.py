"""Demo backend package for vendor 'amd' (ROCm devices, which torch calls cuda)."""

from backend_utils import VendorDescriptor

vendor_info = VendorDescriptor(
    vendor_name="amd",
    device_name="cuda",
    device_query_cmd="rocm-smi",
)

CUSTOMIZED_UNUSED_OPS = ()

__all__ = ["*"]
