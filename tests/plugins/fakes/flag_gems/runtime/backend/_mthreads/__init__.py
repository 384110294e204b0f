import collections

VendorInfo = collections.namedtuple("VendorInfo", "vendor_name device_name")
vendor_info = VendorInfo("mthreads", "musa")
