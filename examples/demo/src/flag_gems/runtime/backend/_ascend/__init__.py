"""Demo backend package for vendor 'ascend' (Huawei Ascend NPUs)."""

from backend_utils import VendorDescriptor

vendor_info = VendorDescriptor(
    vendor_name="ascend",
    device_name="npu",
    device_query_cmd="npu-smi info",
    dispatch_key="PrivateUse1",
    fp64_enabled=False,
)

CUSTOMIZED_UNUSED_OPS = ()

__all__ = ["*"]
