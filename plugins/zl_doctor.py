"""zl_doctor: what `zlbench doctor` needs to see from inside pytest and Python.

Three uses, each writing one JSON file that zlbench reads:

ZL_DOCTOR_MODE=collect (pytest --collect-only -p zl_doctor):
    <ZL_RUN_DIR>/plugins/doctor.json holds every item collected *before* the -m/-k
    filters (node id, file, marker names), the node ids left after them, the
    skip/skipif verdict of each of those (evaluated as pytest would before the
    test runs), the collection errors and the modules that skipped themselves
    while imported (pytest.skip(allow_module_level=True), pytest.importorskip).
    zlbench tells from it which filter removed everything and why the tests
    would skip.

ZL_DOCTOR_MODE=probe (pytest -p zl_doctor, tests run):
    FlagGems' Benchmark.run is replaced before any test runs: each benchmark a
    test builds reports its shapes at every level (init_user_config() under each
    BenchLevel, as FlagGems would choose them) and the test skips. Nothing is
    measured. <ZL_RUN_DIR>/plugins/doctor_probe.json lists the benchmarks, the
    tests that failed before reaching one (exception, file:line) and the tests that
    called pytest.skip() while they ran. When no Benchmark class can be found,
    test bodies are not run at all.

python -m zl_doctor vendor OUT:
    imports flag_gems the way a run would and writes its vendor_name, file and
    version (or the import error) to OUT.

Like the other plugins: no import of torch, triton or flag_gems at module top level,
and a failure of the plugin never becomes a pytest INTERNALERROR.
"""

import json
import os
import sys
import traceback

import pytest

import zl_common as zc

# Shapes kept per level in the probe file (FlagGems' comprehensive lists stay far below).
MAX_SHAPES = 500
# Variables through which FlagGems lets a user force its vendor (as zl_vendor_guard).
FLAGGEMS_VENDOR_VARS = ("GEMS_VENDOR", "FLAGGEMS_VENDOR", "GEMS_BACKEND", "FLAGGEMS_BACKEND")
PROBE_SKIP = "zl_doctor: shapes probed, nothing measured"
NO_BENCHMARK_SKIP = "zl_doctor: no FlagGems Benchmark class found; the test body is not run"
# Frames of a failure's traceback kept (the last ones: where it was raised).
MAX_TRACE = 5

_state = {"items": [], "selected": [], "deselected": [], "errors": [], "module_skips": [],
          "benchmarks": [], "test_errors": [], "runtime_skips": [], "patched": 0, "current": None,
          "rootdir": None, "written": False}


def mode():
    return zc.env_str("ZL_DOCTOR_MODE", "collect")


# ---------------------------------------------------------------------------
# pure helpers


def shape_key(shape):
    """The comparable text of one shape: its compact JSON without the outer
    brackets, e.g. (2, 384, 384, 384) -> "2,384,384,384", ((640, 1536), 0, False)
    -> "[640,1536],0,false". zlbench normalises a --shape the same way."""
    text = json.dumps(zc.jsonable(shape), separators=(",", ":"))
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    return text


def level_names(bench_level):
    """(enum class or None, [level values]) for a Config.bench_level that is a
    FlagGems BenchLevel member or a plain string."""
    cls = type(bench_level)
    members = getattr(cls, "__members__", None)
    if members:
        return cls, [m.value for m in members.values()]
    return None, ["core", "comprehensive"]


def method_owner(obj, name):
    """Name of the class in obj's MRO that defines method `name`."""
    for cls in type(obj).__mro__:
        if name in cls.__dict__:
            return cls.__name__
    return None


def first_lines(text, limit=3):
    lines = [ln.rstrip() for ln in str(text).strip().splitlines() if ln.strip()]
    if len(lines) > limit:
        lines = lines[-limit:]
    return [zc.one_line(ln) for ln in lines]


def where(path, lineno, rootdir=None):
    """"path:lineno", path relative to rootdir when it lies inside it; None without a path."""
    if not path:
        return None
    path = str(path)
    if rootdir and os.path.isabs(path):
        rel = os.path.relpath(path, str(rootdir))
        if not rel.startswith(".."):
            path = rel
    return "%s:%s" % (path, lineno) if lineno is not None else path


def skip_reason(message):
    """pytest's "Skipped: why" (a skip's longrepr message) -> "why"."""
    text = str(message or "").strip()
    if text.startswith("Skipped:"):
        text = text[len("Skipped:"):].strip()
    return text or "(no reason given)"


def skip_of(longrepr, rootdir=None):
    """{"reason", "at"} of a skipped report: pytest keeps (path, lineno, "Skipped: why")."""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        path, lineno, message = longrepr
        return {"reason": skip_reason(message), "at": where(path, lineno, rootdir)}
    return {"reason": skip_reason(getattr(longrepr, "message", longrepr)), "at": None}


def _last_error_line(text):
    """The exception line pytest marks "E   ..." in a failure's text, else its last line."""
    lines = [ln.strip() for ln in str(text or "").splitlines() if ln.strip()]
    for ln in reversed(lines):
        if ln.startswith("E "):
            return ln[1:].strip()
    return lines[-1] if lines else None


def failure_of(longrepr, text="", rootdir=None):
    """{"error": "Type: message", "at": "file:line", "trace": [file:line, ...]} of a failed
    report, from what pytest kept (the crash entry, the traceback's entries)."""
    out = {"error": None, "at": None, "trace": []}
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None:
        out["error"] = zc.one_line(getattr(crash, "message", "") or "") or None
        out["at"] = where(getattr(crash, "path", None), getattr(crash, "lineno", None), rootdir)
    tb = getattr(longrepr, "reprtraceback", None)
    for entry in getattr(tb, "reprentries", None) or []:
        loc = getattr(entry, "reprfileloc", None)
        if loc is not None and getattr(loc, "path", None):
            out["trace"].append(where(loc.path, getattr(loc, "lineno", None), rootdir))
    out["trace"] = out["trace"][-MAX_TRACE:]
    # a fixture that does not exist: pytest's own repr, no exception behind it
    if out["error"] is None and getattr(longrepr, "errorstring", None):
        out["error"] = "fixture error: " + zc.one_line(longrepr.errorstring)
        lineno = getattr(longrepr, "firstlineno", None)
        out["at"] = where(getattr(longrepr, "filename", None),
                          lineno + 1 if isinstance(lineno, int) else None, rootdir)
    if out["error"] is None:
        out["error"] = _last_error_line(text) or "(no message)"
    if out["at"] is None and out["trace"]:
        out["at"] = out["trace"][-1]
    return out


def classify(outcome, reason=None, marked=False, wasxfail=None):
    """What the probe keeps of one phase of a test: "error", "skip" (a pytest.skip() or an
    xfail while it ran) or None (passed, the probe's own skips, a skip/skipif mark that
    the collection already reported)."""
    if outcome == "failed":
        return "error"
    if outcome != "skipped":
        return None
    if wasxfail is not None:
        return "skip"
    if marked or (reason or "").startswith("zl_doctor:"):
        return None
    return "skip"


# ---------------------------------------------------------------------------
# collect mode


def _item_file(item):
    path = getattr(item, "path", None) or getattr(item, "fspath", None)
    return str(path) if path is not None else None


def _skip_verdict(item):
    """{"reason", "mark"} when pytest would skip the item before running it, else None."""
    try:
        from _pytest.skipping import evaluate_skip_marks
    except ImportError:
        evaluate_skip_marks = None
    try:
        if evaluate_skip_marks is not None:
            skip = evaluate_skip_marks(item)
            if skip is None:
                return None
            mark = "skip" if item.get_closest_marker("skipif") is None else "skipif"
            return {"reason": skip.reason, "mark": mark}
        # older pytest: boolean conditions only
        for mark in item.iter_markers(name="skip"):
            return {"reason": mark.kwargs.get("reason", mark.args[0] if mark.args else "unconditional skip"),
                    "mark": "skip"}
        for mark in item.iter_markers(name="skipif"):
            if mark.args and mark.args[0] is True:
                return {"reason": mark.kwargs.get("reason", ""), "mark": "skipif"}
    except Exception as e:
        return {"reason": "cannot evaluate skip marks: %s" % zc.one_line(e), "mark": "error"}
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    # tryfirst: the list as collected, before -m and -k deselect anything
    try:
        _state["items"] = [{"nodeid": it.nodeid, "file": _item_file(it),
                            "markers": sorted({m.name for m in it.iter_markers()})} for it in items]
    except Exception as e:
        zc.report_error("zl_doctor", "cannot list collected items", e)


def pytest_deselected(items):
    _state["deselected"].extend(it.nodeid for it in items)


def pytest_sessionstart(session):
    _state["rootdir"] = str(getattr(session.config, "rootpath", "") or "") or None


def pytest_collectreport(report):
    if report.failed:
        _state["errors"].append({"nodeid": report.nodeid,
                                 "message": first_lines(report.longreprtext, 6)})
    elif report.skipped:
        # a module that skipped itself while imported: no item is left to carry the reason
        try:
            rec = {"nodeid": report.nodeid}
            rec.update(skip_of(report.longrepr, _state["rootdir"]))
            _state["module_skips"].append(rec)
        except Exception as e:
            zc.report_error("zl_doctor", "cannot read a skipped collection", e)


def pytest_collection_finish(session):
    if mode() == "probe":
        _patch_benchmarks()
        return
    try:
        _state["selected"] = [{"nodeid": it.nodeid, "skip": _skip_verdict(it)} for it in session.items]
    except Exception as e:
        zc.report_error("zl_doctor", "cannot evaluate skip marks", e)


# ---------------------------------------------------------------------------
# probe mode


def _patch_benchmarks():
    try:
        for base in zc.benchmark_classes():
            for cls in zc.class_tree(base):
                if "run" in cls.__dict__:
                    cls.run = _probe_run
                    _state["patched"] += 1
    except Exception as e:
        zc.report_error("zl_doctor", "cannot replace Benchmark.run", e)


def _find_config(bench):
    for cls in type(bench).__mro__:
        mod = sys.modules.get(cls.__module__)
        cfg = getattr(mod, "Config", None) if mod is not None else None
        if cfg is not None and hasattr(cfg, "bench_level"):
            return cfg
    return None


def _shapes_at(bench, cfg, level_cls, value):
    saved = cfg.bench_level
    try:
        cfg.bench_level = level_cls(value) if level_cls is not None else value
        if hasattr(bench, "init_user_config"):
            bench.init_user_config()
        else:
            bench.set_shapes(cfg.shape_file)
        shapes = list(bench.shapes or [])
        return {"count": len(shapes), "shapes": [shape_key(s) for s in shapes[:MAX_SHAPES]]}
    except BaseException as e:  # pytest.skip() inside init_user_config is a BaseException
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        return {"count": None, "error": "%s: %s" % (type(e).__name__, zc.one_line(e))}
    finally:
        cfg.bench_level = saved


def _probe_run(self, *args, **kwargs):
    rec = {"nodeid": _state["current"], "op_name": getattr(self, "op_name", None),
           "class": type(self).__name__,
           "mro": [c.__name__ for c in type(self).__mro__ if c is not object],
           "set_shapes_owner": method_owner(self, "set_shapes"),
           "set_more_shapes_owner": method_owner(self, "set_more_shapes"),
           "levels": {}}
    cfg = _find_config(self)
    if cfg is None:
        rec["error"] = "no FlagGems Config with bench_level next to %s" % type(self).__name__
    else:
        level_cls, values = level_names(cfg.bench_level)
        cur = cfg.bench_level
        rec["level"] = getattr(cur, "value", cur)
        rec["shape_file"] = str(getattr(cfg, "shape_file", None))
        for value in values:
            rec["levels"][value] = _shapes_at(self, cfg, level_cls, value)
    _state["benchmarks"].append(rec)
    pytest.skip(PROBE_SKIP)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _state["current"] = item.nodeid
    if mode() == "probe" and not _state["patched"]:
        pytest.skip(NO_BENCHMARK_SKIP)


def _note_report(item, report):
    reason = None
    if report.skipped:
        reason = skip_of(report.longrepr, _state["rootdir"])["reason"]
    # a skip/skipif mark skips at setup; the collection reported it with its reason
    marked = report.skipped and report.when == "setup" and _skip_verdict(item) is not None
    kind = classify(report.outcome, reason, marked, getattr(report, "wasxfail", None))
    if kind == "error":
        rec = {"nodeid": report.nodeid, "when": report.when,
               "message": first_lines(report.longreprtext, 3)}
        rec.update(failure_of(report.longrepr, report.longreprtext, _state["rootdir"]))
        _state["test_errors"].append(rec)
    elif kind == "skip":
        rec = {"nodeid": report.nodeid, "when": report.when}
        rec.update(skip_of(report.longrepr, _state["rootdir"]))
        if getattr(report, "wasxfail", None) is not None:
            rec["reason"] = "xfail: %s" % (report.wasxfail or "(no reason given)")
        _state["runtime_skips"].append(rec)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if mode() != "probe":
        return
    try:
        _note_report(item, outcome.get_result())
    except Exception as e:
        zc.report_error("zl_doctor", "cannot read a test report", e)


# ---------------------------------------------------------------------------
# the file


def _write(session, exitstatus):
    if _state["written"]:
        return
    _state["written"] = True
    config = session.config
    if mode() == "probe":
        name = "doctor_probe.json"
        doc = {"mode": "probe", "patched": _state["patched"], "benchmarks": _state["benchmarks"],
               "errors": _state["errors"], "module_skips": _state["module_skips"],
               "test_errors": _state["test_errors"], "runtime_skips": _state["runtime_skips"]}
    else:
        name = "doctor.json"
        doc = {"mode": "collect", "rootdir": str(config.rootpath),
               "markexpr": config.option.markexpr or None,
               "keyword": config.option.keyword or None,
               "items": _state["items"], "selected": _state["selected"],
               "deselected": _state["deselected"], "errors": _state["errors"],
               "module_skips": _state["module_skips"]}
    doc["exitstatus"] = int(exitstatus)
    path = zc.plugin_file(name)
    if path is None:
        return
    try:
        zc.write_json_atomic(path, doc)
    except Exception as e:
        zc.report_error("zl_doctor", "cannot write %s" % name, e)


def pytest_sessionfinish(session, exitstatus):
    _write(session, exitstatus)


# ---------------------------------------------------------------------------
# python -m zl_doctor vendor OUT


def module_version(module):
    """The module's __version__ as text, or None when it has none (FlagGems from a checkout)."""
    version = getattr(module, "__version__", None)
    return None if version is None else str(version)


def vendor_record():
    rec = {"python": sys.executable, "python_version": sys.version.split()[0],
           "vendor_env": {k: zc.env_str(k) for k in FLAGGEMS_VENDOR_VARS if zc.env_str(k)}}
    try:
        import flag_gems
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        rec["error"] = "%s: %s" % (type(e).__name__, zc.one_line(e))
        tb = traceback.extract_tb(e.__traceback__)
        if tb:
            rec["error_at"] = "%s:%d" % (tb[-1].filename, tb[-1].lineno)
        return rec
    rec["vendor_name"] = getattr(flag_gems, "vendor_name", None)
    rec["device"] = zc.jsonable(getattr(flag_gems, "device", None))
    rec["version"] = module_version(flag_gems)
    rec["file"] = zc.module_file(flag_gems)
    return rec


def main(argv):
    if len(argv) != 3 or argv[1] != "vendor":
        sys.stderr.write("usage: python -m zl_doctor vendor OUT.json\n")
        return 2
    zc.write_json_atomic(argv[2], vendor_record())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
