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
"""

import sys


import zl_common as zc

# Module lines printed on stderr; the JSON lists them all.
MAX_PRINTED = 20

# Modules loaded before any test code ran (the plugin itself is imported by -p
# while pytest parses its arguments): nothing to attribute them to.
_baseline = set(sys.modules)
_state = {"first_seen": {}, "own": None, "finished": False}


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


def build_report(own, modules):
    vendors = sorted({m["vendor"] for m in modules})
    return {"own": zc.vendor_of_segment(own), "own_module": own, "vendors": vendors,
            "modules": modules}


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
        report = build_report(own, foreign_modules(mods, own, _state["first_seen"]))
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
