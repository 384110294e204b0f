"""Demo backend package for vendor 'nvidia' (CUDA devices)."""

from backend_utils import VendorDescriptor

vendor_info = VendorDescriptor(
    vendor_name="nvidia",
    device_name="cuda",
    device_query_cmd="",
    tle_enabled=True,
)

# compute capability major -> architecture package (FlagGems' ARCH_MAP)
ARCH_MAP = {
    "9": "hopper",
    "8": "ampere",
}

CUSTOMIZED_UNUSED_OPS = ()

__all__ = ["*"]
