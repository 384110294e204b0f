"""zl_foreign_vendor: report FlagGems vendor packages of other vendors that got imported.

A run on musa should only execute flag_gems.runtime.backend._mthreads code. If a
test (or FlagGems itself) imports another vendor's package, its kernels or
configs may be what was measured. At session end this plugin lists every loaded
module that belongs to another vendor's package, prints

    FOREIGN_VENDOR_MODULE vendors=<comma list>
    FOREIGN_VENDOR_MODULE module=<m> vendor=<v> first_test=<where>

to stderr and writes <run>/plugins/foreign_vendor.json (always; empty lists
when none). It reports, never refuses.

Vendor packages are recognised by whole package segment (see
zl_common.vendor_segment): "_mthreads_ext" is vendor "mthreads_ext", not
"mthreads". To tell which test brought a module in, sys.modules is compared
after each conftest and test module is imported and after each test.

Probes are kept apart: when FlagGems cannot tell the vendor quickly (rocm:
no torch attribute names it, the device is not an NVIDIA one) its
DeviceDetector calls runtime.backend.get_vendor_infos(), which imports every
vendor's descriptor package as a top-level _<vendor> to read its
vendor_info. Modules imported while get_vendor_infos() runs are listed as
probed_modules / probed_vendors, not as foreign code; an observer on
sys.meta_path (it finds nothing, it only looks at the stack) tells them.
"""

import os
import sys

import zl_common as zc

# Module lines printed on stderr; the JSON lists them all.
MAX_PRINTED = 20

# In a zlbench worker (plugins/zl_worker.py) FlagGems was imported once, before
# this session: the worker says what a fresh pytest would have seen then.
_hint = getattr(sys.modules.get("zl_worker"), "FOREIGN_VENDOR_HINT", None) or {}
# Modules loaded before any test code ran (the plugin itself is imported by -p
# while pytest parses its arguments): nothing to attribute them to.
_baseline = set(_hint.get("baseline", sys.modules))
_state = {"first_seen": dict(_hint.get("first_seen", {})), "own": None, "finished": False}
# Modules whose import started inside FlagGems' vendor detection.
_probed = set(_hint.get("probed", ()))
# FlagGems' vendor detection: this function of runtime/backend/__init__.py.
PROBE_FUNCTION = "get_vendor_infos"
PROBE_FILE = "flag_gems/runtime/backend/__init__.py"


def own_segment(env_module, env_vendor, fg_vendor):
    """The own vendor package segment: ZL_VENDOR_MODULE, else "_" + ZL_EXPECTED_VENDOR,
    else "_" + flag_gems.vendor_name; None when nothing says."""
    if env_module:
        return env_module if env_module.startswith("_") else "_" + env_module
    vendor = env_vendor or fg_vendor
    return "_" + vendor if vendor else None


def foreign_modules(modules, own, first_seen):
    """[{"module","vendor","first_test"}] for modules of packages other than own,
    sorted by module name. modules: iterable of (name, file)."""
    out = []
    for name, path in modules:
        seg = zc.vendor_segment(name, path)
        if seg is None or not zc.is_foreign(seg, own):
            continue
        out.append({"module": name, "vendor": zc.vendor_of_segment(seg),
                    "first_test": first_seen.get(name)})
    out.sort(key=lambda m: m["module"])
    return out


def build_report(own, modules, probed=()):
    """modules: foreign modules; those whose name is in probed were only
    imported by FlagGems' vendor detection and are listed apart."""
    real = [m for m in modules if m["module"] not in probed]
    probes = [m for m in modules if m["module"] in probed]
    return {"own": zc.vendor_of_segment(own), "own_module": own,
            "vendors": sorted({m["vendor"] for m in real}), "modules": real,
            "probed_vendors": sorted({m["vendor"] for m in probes}), "probed_modules": probes}


def in_probe(frame, limit=200):
    """True when FlagGems' get_vendor_infos() is on the stack from frame up."""
    depth = 0
    while frame is not None and depth < limit:
        code = frame.f_code
        if code.co_name == PROBE_FUNCTION and \
                code.co_filename.replace(os.sep, "/").endswith(PROBE_FILE):
            return True
        frame = frame.f_back
        depth += 1
    return False


def may_be_vendor_module(name):
    """Cheap test on an imported name: could it be a vendor package module
    (top-level _<x>[...] or flag_gems.runtime.backend._<x>[...])?"""
    if name.startswith(zc.BACKEND_PACKAGE + "._"):
        return True
    return name.startswith("_") and not name.startswith("__")


class ProbeObserver:
    """A sys.meta_path entry that finds nothing: it notes which imports start
    inside FlagGems' vendor detection and lets the real finders do the rest."""

    def find_spec(self, name, path=None, target=None):
        try:
            if may_be_vendor_module(name) and in_probe(sys._getframe(1)):
                _probed.add(name)
        except Exception:
            pass
        return None

    def invalidate_caches(self):
        pass


_observer = ProbeObserver()
# Installed at import: zlbench loads this plugin with -p, before any conftest
# imports flag_gems (initial conftests are imported before pytest_configure).
sys.meta_path.insert(0, _observer)


def report_lines(report, limit=MAX_PRINTED):
    if not report["vendors"]:
        return []
    lines = ["FOREIGN_VENDOR_MODULE vendors=%s" % ",".join(report["vendors"])]
    for m in report["modules"][:limit]:
        lines.append("FOREIGN_VENDOR_MODULE module=%s vendor=%s first_test=%s"
                     % (m["module"], m["vendor"], m["first_test"] or "unknown"))
    rest = len(report["modules"]) - limit
    if rest > 0:
        lines.append("FOREIGN_VENDOR_MODULE ... %d more in plugins/foreign_vendor.json" % rest)
    return lines


def _note_new(where):
    """Attribute modules that appeared since the last look to `where`."""
    seen = _state["first_seen"]
    for name in list(sys.modules):
        if name in _baseline or name in seen:
            continue
        seen[name] = where


def _relative_paths(first_seen, root):
    """Conftest paths relative to the rootdir, like test node ids."""
    if not root:
        return
    prefix = root.rstrip("/") + "/"
    for name, where in first_seen.items():
        if where and where.startswith(prefix):
            first_seen[name] = where[len(prefix):]


def _finish():
    if _state["finished"]:
        return
    _state["finished"] = True
    try:
        _note_new(None)
        fg = sys.modules.get("flag_gems")
        own = own_segment(zc.env_str("ZL_VENDOR_MODULE"), zc.env_str("ZL_EXPECTED_VENDOR"),
                          getattr(fg, "vendor_name", None) if fg is not None else None)
        _relative_paths(_state["first_seen"], _state.get("root"))
        mods = [(name, zc.module_file(m)) for name, m in list(sys.modules.items())
                if m is not None]
        report = build_report(own, foreign_modules(mods, own, _state["first_seen"]), _probed)
        if own is None:
            report["note"] = "own vendor unknown (no ZL_VENDOR_MODULE, ZL_EXPECTED_VENDOR or flag_gems)"
        lines = report_lines(report)
        if lines:
            zc.emit_line("\n".join(lines))
    except Exception as e:
        zc.report_error("zl_foreign_vendor", "cannot scan modules", e)
        return
    path = zc.plugin_file("foreign_vendor.json")
    if path is not None:
        try:
            zc.write_json_atomic(path, report)
        except Exception as e:
            zc.report_error("zl_foreign_vendor", "cannot write foreign_vendor.json", e)


def pytest_plugin_registered(plugin, manager):
    # Conftest modules are registered right after their import.
    path = zc.module_file(plugin) if hasattr(plugin, "__dict__") else None
    if path and path.endswith("conftest.py"):
        _note_new(path)


def pytest_configure(config):
    _state["root"] = str(config.rootpath)
    # Imported while pytest started (plugins, initial conftests not yet noted).
    _note_new("startup")
    zc.unwind_on_sigterm()


def pytest_collectreport(report):
    # A module's report comes right after its import, before its children run.
    _note_new(report.nodeid or "collection")


def pytest_runtest_logfinish(nodeid, location):
    # After teardown: whatever the test (setup, call, teardown) imported.
    _note_new(nodeid)


def pytest_sessionfinish(session, exitstatus):
    _finish()


def pytest_unconfigure(config):
    _finish()
    try:
        sys.meta_path.remove(_observer)
    except ValueError:
        pass
    zc.restore_sigterm()
