import collections

# As FlagGems' _ascend: the descriptor package imports a submodule of its own, so
# vendor detection (get_vendor_infos) loads _ascend.utils too.
from .utils import CORE_NUM  # noqa: F401

VendorInfo = collections.namedtuple("VendorInfo", "vendor_name device_name")
vendor_info = VendorInfo("ascend", "npu")
