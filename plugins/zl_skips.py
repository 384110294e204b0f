"""zl_skips: a dtype the benchmark does not support is a skip with its reason, and the run
knows its skips.

FlagGems' `Benchmark.set_dtypes` (benchmark/base.py) raises
`ValueError("Given dtype(s) 'torch.float16'can't be supported by this op 'gcd_'")` when
`--dtypes` names a dtype outside the benchmark's own list (its `dtypes=`). A batch-wide
`-- --dtypes float16` meets it on every int-only and float32-only op. That is no failure of
the op: the test is reported skipped, with the reason
`dtype float16 not supported by this op; it supports int16, int32` (what the benchmark
supports is its own `self.dtypes`, read from the frame that raised).

At the end of the session `<run>/plugins/skips.json` counts the tests by outcome and lists
every skip with its reason (FlagGems' own skipif marks too):

    {"passed": 0, "failed": 0, "skipped": 1,
     "skips": [{"nodeid": "...", "reason": "...", "unsupported_dtype": true}]}

zlbench reads it for the run's status: a run whose tests were all skipped, none passed or
failed, is `skipped`, with the reasons (src/run/skips.c).
"""

import re

import pytest

import zl_common as zc

PLUGIN = "zl_skips"
# FlagGems' message has no blank between the quote and "can't"; a later fix may add one
FLAGGEMS_MESSAGE = re.compile(r"^Given dtype\(s\) '(?P<given>[^']*)'\s*can't be supported by this op '(?P<op>[^']*)'")
# at most this many skips are listed in skips.json (the counts stay whole)
MAX_SKIPS = 200

_state = {"tests": {}, "order": []}


def dtype_name(dtype):
    """torch.float16 -> float16 (real torch and the fakes print dtypes alike)."""
    text = str(dtype)
    return text[len("torch."):] if text.startswith("torch.") else text


def supported_dtypes(tb):
    """The dtypes of the Benchmark whose set_dtypes raised (the deepest such frame), or None."""
    found = None
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "set_dtypes":
            dtypes = getattr(frame.f_locals.get("self"), "dtypes", None)
            if dtypes is not None:
                try:
                    found = [dtype_name(d) for d in dtypes]
                except TypeError:
                    pass
        tb = tb.tb_next
    return found


def unsupported_dtype_reason(exc):
    """The skip reason for FlagGems' unsupported-dtype ValueError (or one it caused), else None."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, ValueError):
            m = FLAGGEMS_MESSAGE.match(str(exc))
            if m:
                given = [dtype_name(d.strip()) for d in m.group("given").split(",") if d.strip()]
                supported = supported_dtypes(exc.__traceback__)
                head = "dtype%s %s not supported by this op" % ("s" if len(given) > 1 else "", ", ".join(given))
                if supported:
                    return "%s; it supports %s" % (head, ", ".join(supported))
                return "%s (FlagGems' op '%s'; its dtypes are not known here)" % (head, m.group("op"))
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None


def skip_reason(longrepr):
    """A skip report's reason without pytest's "Skipped: " prefix."""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        text = str(longrepr[2])
    else:
        text = str(longrepr)
    return text[len("Skipped: "):] if text.startswith("Skipped: ") else text


def outcome_of(current, report):
    """A test's outcome over its phases: failed wins, then skipped; passed needs the call."""
    if current == "failed" or report.failed:
        return "failed"
    if current == "skipped" or report.skipped:
        return "skipped"
    if report.when == "call" and report.passed:
        return "passed"
    return current


def summary(tests, order):
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    skips = []
    for nodeid in order:
        t = tests[nodeid]
        if t["outcome"] in counts:
            counts[t["outcome"]] += 1
        if t["outcome"] == "skipped" and len(skips) < MAX_SKIPS:
            skips.append({"nodeid": nodeid, "reason": t["reason"], "unsupported_dtype": t["dtype"]})
    counts["skips"] = skips
    return counts


def pytest_configure(config):
    # a batch worker runs many sessions in one interpreter: each starts empty
    _state["tests"] = {}
    _state["order"] = []


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_makereport(item, call):
    if call.excinfo is None or call.when not in ("setup", "call"):
        return None
    try:
        reason = unsupported_dtype_reason(call.excinfo.value)
        if reason is None:
            return None
        report = pytest.TestReport.from_item_and_call(item, call)
        path, lineno, _ = item.location
        report.outcome = "skipped"
        report.longrepr = (str(path), (lineno or 0) + 1, "Skipped: " + reason)
        report.zl_unsupported_dtype = True
        return report
    except Exception as e:
        zc.report_error(PLUGIN, "unsupported dtype", e)
        return None


def pytest_runtest_logreport(report):
    tests, order = _state["tests"], _state["order"]
    t = tests.get(report.nodeid)
    if t is None:
        t = tests[report.nodeid] = {"outcome": None, "reason": None, "dtype": False}
        order.append(report.nodeid)
    before = t["outcome"]
    t["outcome"] = outcome_of(before, report)
    if report.skipped and before != "skipped":
        t["reason"] = zc.one_line(skip_reason(report.longrepr))
        t["dtype"] = bool(getattr(report, "zl_unsupported_dtype", False))


def pytest_sessionfinish(session, exitstatus):
    path = zc.plugin_file("skips.json")
    if path is None:
        return
    try:
        zc.write_json_atomic(path, summary(_state["tests"], _state["order"]))
    except Exception as e:
        zc.report_error(PLUGIN, "write skips.json", e)
