"""As FlagGems' runtime/backend: vendor packages are imported as top-level _<vendor>
modules after appending this directory to sys.path."""
import importlib
import os
import sys

VENDORS = ("nvidia", "mthreads", "mthreads_ext", "amd", "ascend")
_state = {"vendor_module": None}


def get_vendor_module(vendor_name, query=False):
    def get_module(name):
        sys.path.append(os.path.dirname(os.path.abspath(__file__)))
        return importlib.import_module(name)

    if query:
        return get_module(vendor_name)
    if _state["vendor_module"] is None:
        _state["vendor_module"] = get_module("_" + vendor_name)
        try:
            importlib.import_module("_%s.ops" % vendor_name)
        except ModuleNotFoundError:
            pass
    return _state["vendor_module"]


def get_vendor_info(vendor_name=None, query=False):
    if query:
        return get_vendor_module(vendor_name, query).vendor_info
    return get_vendor_module(vendor_name).vendor_info


def get_vendor_infos():
    infos = []
    for v in VENDORS:
        try:
            infos.append(get_vendor_info("_" + v, query=True))
        except Exception:
            continue
    return infos
