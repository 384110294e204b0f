"""zl_inputs: draw the benchmarks' integer and bool inputs on the device.

Loaded by `zlbench run --draw-inputs device` (ZL_DRAW_INPUTS=device) only. FlagGems'
generate_tensor_input (benchmark/base.py and benchmark/utils.py) draws integer and bool
tensors with torch.randint(..., device="cpu") and copies them over: for the 2**30-element
core shapes that is most of an integer op's wall (on an H200, floor_divide_tensor_ spent
90 s of its 101 s making inputs, docs/validation.md "Wave 6"). This plugin puts in its
place a function that draws the same dtypes from the same ranges with torch.randint on
the device the benchmark asked for; every other dtype (float, complex, and what FlagGems'
function returns nothing for) is still FlagGems' own call. The values differ from the
CPU's, so run_identity.json records the mode (inputs.draw) and compare refuses to pair
such a run with one whose inputs FlagGems drew.

What is replaced: after collection, each plain function named generate_tensor_input that
a module under the session's root defines and whose globals hold FlagGems' `consts` (with
INT_DTYPES and BOOL_DTYPES) and `torch` (the replacement draws with that torch). Every module global bound to such a function (base.py's own,
and a test module's `from .base import generate_tensor_input`) is rebound; pytest_unconfigure
binds the originals back. A test that calls torch.randint(..., device="cpu") itself is
left alone (FlagGems has about 20 such files: gcd, remainder, cumprod, ...).

Writes <run>/plugins/inputs.json: {"draw": "device", "replaced": ["module.name", ...],
"bindings": n, "drawn_on_device": n, "drawn_bytes": n, "left_to_flaggems": n,
"by_dtype": {"int32": n, ...}}.
"""

import functools
import os
import sys
import types

import zl_common as zc

REPORT = "inputs.json"
NAME = "generate_tensor_input"

_state = None


# ---------------------------------------------------------------------------
# pure logic


def _consts_of(fn):
    """FlagGems' consts module as fn sees it, or None."""
    consts = getattr(fn, "__globals__", {}).get("consts")
    if consts is None or not all(hasattr(consts, a) for a in ("INT_DTYPES", "BOOL_DTYPES")):
        return None
    return consts


def _torch_of(fn):
    """The torch fn draws with (its module's own import), or None."""
    torch = getattr(fn, "__globals__", {}).get("torch")
    if torch is None or not all(hasattr(torch, a) for a in ("randint", "iinfo")):
        return None
    return torch


def _under(path, root):
    if not isinstance(path, str) or not root:
        return False
    path, root = os.path.realpath(path), os.path.realpath(root)
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def originals(modules, root):
    """{id(fn): (fn, defining module name)} of FlagGems' generate_tensor_input functions
    defined by modules under root (their module imports consts and torch)."""
    found = {}
    for name, mod in list(modules.items()):
        d = getattr(mod, "__dict__", None) if mod is not None else None
        fn = d.get(NAME) if isinstance(d, dict) else None
        # the cheap tests first: a process holds thousands of modules, and _under resolves paths
        if (isinstance(fn, types.FunctionType) and fn.__module__ == name
                and not hasattr(fn, "_zl_inputs_orig") and _consts_of(fn) is not None
                and _torch_of(fn) is not None and _under(zc.module_file(mod), root)):
            found[id(fn)] = (fn, name)
    return found


def device_draw(orig, counts):
    """generate_tensor_input drawing FlagGems' integer and bool dtypes on `device` with
    orig's own torch (same ranges as FlagGems: [iinfo.min, iinfo.max) and {0, 1});
    anything else is orig's."""
    consts, torch = _consts_of(orig), _torch_of(orig)

    @functools.wraps(orig)
    def generate_tensor_input(shape, dtype, device):
        if dtype in consts.INT_DTYPES:
            info = torch.iinfo(dtype)
            out = torch.randint(info.min, info.max, shape, dtype=dtype, device=device)
        elif dtype in consts.BOOL_DTYPES:
            out = torch.randint(0, 2, size=shape, dtype=dtype, device=device)
        else:
            counts["left_to_flaggems"] += 1
            return orig(shape, dtype, device)
        counts["drawn_on_device"] += 1
        try:
            counts["drawn_bytes"] += int(out.numel()) * int(out.element_size())
        except Exception:
            pass
        key = str(dtype).replace("torch.", "")
        counts["by_dtype"][key] = counts["by_dtype"].get(key, 0) + 1
        return out

    generate_tensor_input._zl_inputs_orig = orig
    return generate_tensor_input


def rebind(modules, replacements):
    """Every module global that is one of the originals now names its replacement.
    Returns [(module dict, name, original)] to undo it."""
    undo = []
    for mod in list(modules.values()):
        d = getattr(mod, "__dict__", None) if mod is not None else None
        if not isinstance(d, dict):
            continue
        for key, value in list(d.items()):
            new = replacements.get(id(value))
            if new is not None and value is new[0]:
                d[key] = new[1]
                undo.append((d, key, value))
    return undo


def unbind(undo):
    for d, key, value in reversed(undo):
        try:
            d[key] = value
        except Exception:
            pass


# ---------------------------------------------------------------------------
# hooks


def pytest_configure(config):
    global _state
    _state = {"root": str(getattr(config, "rootpath", None) or config.rootdir), "replaced": [],
              "undo": [], "written": False,
              "counts": {"drawn_on_device": 0, "drawn_bytes": 0, "left_to_flaggems": 0, "by_dtype": {}}}


def pytest_collection_finish(session):
    if _state is None:
        return
    try:
        found = originals(sys.modules, _state["root"])
        replacements = {k: (fn, device_draw(fn, _state["counts"])) for k, (fn, _) in found.items()}
        _state["undo"] = rebind(sys.modules, replacements)
        _state["replaced"] = sorted(name for _, name in found.values())
    except Exception as e:
        zc.report_error("zl_inputs", "cannot replace FlagGems' %s" % NAME, e)
    if not _state["replaced"]:
        zc.emit_line("zl_inputs: no FlagGems %s (a function whose module imports torch and consts) "
                     "found under %s: inputs are drawn as FlagGems draws them" % (NAME, _state["root"]))


def _write():
    path = zc.plugin_file(REPORT)
    if path is None or _state["written"]:
        return
    _state["written"] = True
    doc = {"draw": "device", "replaced": _state["replaced"], "bindings": len(_state["undo"])}
    doc.update(_state["counts"])
    try:
        zc.write_json_atomic(path, doc)
    except Exception as e:
        zc.report_error("zl_inputs", "cannot write %s" % path, e)


def pytest_sessionfinish(session, exitstatus):
    if _state is not None:
        _write()


def pytest_unconfigure(config):
    global _state
    if _state is None:
        return
    unbind(_state["undo"])
    _state = None
