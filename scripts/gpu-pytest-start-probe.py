#!/usr/bin/env python3
"""On the GPU machine (wave 11): where a worker op's pytest.main spends the time before its
first configure hook (0.23-0.32 s an op on the H200, the worker's log). In one interpreter that
imported what the worker imports, pytest.main over one op's benchmark file (--collect-only)
ROUNDS times, the zl plugins dropped from sys.modules between rounds as the worker drops a
session's modules; the second round under cProfile up to the first configure hook.
usage (cwd: FlagGems' checkout; PYTHONPATH: plugins, FlagGems' src, SQLAlchemy):
    python3 scripts/gpu-pytest-start-probe.py [ROUNDS]"""
import cProfile
import importlib.metadata
import io
import os
import pstats
import sys
import tempfile
import time

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 4
t0 = time.monotonic()
import torch  # noqa: E402,F401
import flag_gems  # noqa: E402,F401
sys.path.insert(0, os.getcwd())
import benchmark.conftest  # noqa: E402,F401
import pytest  # noqa: E402
print("imports %.2f s" % (time.monotonic() - t0))
t0 = time.monotonic()
dists = list(importlib.metadata.distributions())
t1 = time.monotonic()
eps = [ep for d in dists for ep in d.entry_points if ep.group == "pytest11"]
t2 = time.monotonic()
print("distributions: %d in %.3f s; their entry points read in %.3f s; pytest11: %s" % (
    len(dists), t1 - t0, t2 - t1, ", ".join(sorted(e.name for e in eps))))
run = tempfile.mkdtemp()
os.makedirs(os.path.join(run, "plugins"), exist_ok=True)
os.environ["ZL_RUN_DIR"] = run
args = ["benchmark/test_abs.py", "-m", "abs", "-p", "zl_vendor_guard", "-p", "zl_timer", "-p",
        "zl_profiler_timer", "-p", "zl_graph_timer", "-p", "zl_foreign_vendor", "-p",
        "zl_autotune", "-p", "zl_skips", "--level", "core", "--mode", "kernel", "--collect-only",
        "-q", "--dtypes", "float16"]
baseline = set(sys.modules)
for rnd in range(rounds):
    marks = {}
    prof = cProfile.Profile() if rnd == 1 else None

    class Clock:
        @pytest.hookimpl(tryfirst=True)
        def pytest_configure(self, config):
            marks.setdefault("configure", time.monotonic())
            if prof is not None:
                prof.disable()

    t0 = time.monotonic()
    if prof is not None:
        prof.enable()
    out = io.StringIO()
    saved = sys.stdout
    sys.stdout = out
    try:
        rc = pytest.main(args, plugins=[Clock()])
    finally:
        sys.stdout = saved
    t1 = time.monotonic()
    print("round %d: rc %s, to configure %.3f s, pytest.main %.3f s" % (
        rnd, rc, marks.get("configure", t1) - t0, t1 - t0))
    if prof is not None:
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(35)
        print(s.getvalue())
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(20)
        print(s.getvalue())
    for name in list(sys.modules):
        if name not in baseline and (name.startswith("zl_") or name.startswith("benchmark.")):
            sys.modules.pop(name, None)
