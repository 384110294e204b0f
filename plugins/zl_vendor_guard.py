"""zl_vendor_guard: stop the run before any benchmark when FlagGems picked another vendor.

FlagGems chooses its vendor at import (flag_gems.vendor_name; GEMS_VENDOR and
friends override it). zlbench knows which vendor the backend expects
(ZL_EXPECTED_VENDOR). When they differ every number of the run would come from
the wrong code path, so the guard writes <run>/plugins/vendor.json
(match=false), prints "VENDOR_MISMATCH expected=<v> detected=<w>" on its own line
to stderr and ends the session with exit status 3, which zlbench reports as
PREFLIGHT_FAILED check=vendor.

The check runs as soon as flag_gems is imported: at configure time when a
conftest imported it (FlagGems' benchmark/conftest.py does), else after
collection (test modules import it), else before the first test. When nothing
imported it by the end of collection and it is installed, the guard imports it.
vendor.json is always written, also on a match: which flag_gems file was
imported, torch and triton versions, device name and capability as the
framework sees them (null when torch is absent).
"""

import importlib
import importlib.util
import sys

import pytest

import zl_common as zc

EXIT_VENDOR_MISMATCH = 3
# Variables through which FlagGems lets a user force its vendor; recorded so a
# mismatch explains itself. zlbench never sets them.
FLAGGEMS_VENDOR_VARS = ("GEMS_VENDOR", "FLAGGEMS_VENDOR", "GEMS_BACKEND", "FLAGGEMS_BACKEND")

_state = {"done": False, "record": None}


def compare(expected, detected):
    """True/False when both are known, None when either is unknown."""
    if expected is None or detected is None:
        return None
    return expected == detected


def mismatch_line(expected, detected):
    return "VENDOR_MISMATCH expected=%s detected=%s" % (expected, detected)


def _versions_and_device(fg):
    out = {"torch_version": None, "triton_version": None, "device_name": None,
           "capability": None}
    torch = sys.modules.get("torch")
    if torch is None and fg is None and importlib.util.find_spec("torch") is not None:
        try:
            torch = importlib.import_module("torch")
        except Exception:
            torch = None
    if torch is not None:
        out["torch_version"] = str(getattr(torch, "__version__", None))
    triton = sys.modules.get("triton")
    if triton is not None:
        out["triton_version"] = str(getattr(triton, "__version__", None))
    if torch is None:
        return out
    dev = None
    runtime = getattr(fg, "runtime", None) if fg is not None else None
    if runtime is not None:
        dev = getattr(runtime, "torch_device_fn", None)
    if dev is None:
        dev = getattr(torch, "cuda", None)
    try:
        if dev is not None and dev.is_available():
            index = dev.current_device()
            out["device_name"] = str(dev.get_device_name(index))
            cap = getattr(dev, "get_device_capability", None)
            if cap is not None:
                out["capability"] = list(cap(index))
    except Exception as e:
        out["device_error"] = zc.one_line(e)
    return out


def inspect_flag_gems(import_if_missing):
    """(flag_gems module or None, error line or None)."""
    fg = sys.modules.get("flag_gems")
    if fg is not None or not import_if_missing:
        return fg, None
    if importlib.util.find_spec("flag_gems") is None:
        return None, "flag_gems is not installed"
    try:
        return importlib.import_module("flag_gems"), None
    except Exception as e:
        return None, "import flag_gems failed: %s" % zc.one_line(e)


def build_record(expected, fg, error):
    detected = getattr(fg, "vendor_name", None) if fg is not None else None
    rec = {"expected": expected, "detected": detected, "match": compare(expected, detected),
           "flag_gems_file": zc.module_file(fg) if fg is not None else None,
           "flag_gems_version": str(getattr(fg, "__version__", None)) if fg is not None else None,
           "flag_gems_device": getattr(fg, "device", None) if fg is not None else None}
    rec.update(_versions_and_device(fg))
    rec["vendor_env"] = {k: zc.env_str(k) for k in FLAGGEMS_VENDOR_VARS if zc.env_str(k)}
    rec["error"] = error
    return rec


def check(stage, import_if_missing=False):
    """Run the guard once flag_gems is there (or at the last stage)."""
    if _state["done"]:
        return
    fg, error = inspect_flag_gems(import_if_missing)
    if fg is None and not import_if_missing:
        return
    _state["done"] = True
    rec = build_record(zc.env_str("ZL_EXPECTED_VENDOR"), fg, error)
    rec["checked_at"] = stage
    _state["record"] = rec
    path = zc.plugin_file("vendor.json")
    if path is not None:
        try:
            zc.write_json_atomic(path, rec)
        except Exception as e:
            zc.report_error("zl_vendor_guard", "cannot write vendor.json", e)
    if rec["match"] is False:
        zc.emit_line(mismatch_line(rec["expected"], rec["detected"]))
        pytest.exit("FlagGems vendor '%s' is not the expected '%s'"
                    % (rec["detected"], rec["expected"]), returncode=EXIT_VENDOR_MISMATCH)


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    check("configure")


def pytest_collection_finish(session):
    check("collection", import_if_missing=True)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    check("runtest", import_if_missing=True)
