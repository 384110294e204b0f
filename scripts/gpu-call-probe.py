#!/usr/bin/env python3
"""On the GPU machine (wave 11): what each per-call cost of the profiler timer buys. For
calls of one kernel (torch's and FlagGems' atan at four sizes, float16), windows of profiled
calls under every combination of
  flush: tri256 (Triton's 256 MB buffer, the timer's flush since wave 1), l2 (a buffer of the
         device's L2 size, as nvbench's l2flush), l2x2 (twice that);
  scope: all (every op and the fast range, the timer's way since wave 8), user (only
         user-scope ranges recorded: record_function's range, no torch op events);
  sync:  1 (a wait for the device before every call), 0 (none);
interleaved over ROUNDS rounds, and per combination and call: the loop's wall, the session's
stop, events() and kineto_series, the events recorded, and the samples' median and trimmed
mean (whether a cheaper flush or no wait changes what is measured).
usage: PYTHONPATH=plugins python3 scripts/gpu-call-probe.py [ROUNDS]"""
import itertools
import random
import statistics
import sys

import torch

import zl_common as zc
import zl_device as zd
import zl_profiler_timer as pt
from gpu_probe import atan_calls, timed_window

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
torch_, dev = zd.device_api()
props = torch.cuda.get_device_properties(0)
l2 = int(getattr(props, "L2_cache_size", 0) or 50 * 2**20)
print("device %s, L2 %d bytes, torch %s" % (props.name, l2, torch.__version__))
tri_flush = zd.flusher(torch, dev)
bufs = {"l2": torch.empty(l2, dtype=torch.int8, device="cuda"),
        "l2x2": torch.empty(2 * l2, dtype=torch.int8, device="cuda")}
flushes = {"tri256": tri_flush, "l2": bufs["l2"].zero_, "l2x2": bufs["l2x2"].zero_}

# the flushes' own device time (CUDA events over 200 back-to-back flushes)
for name, f in flushes.items():
    f()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(200):
        f()
    b.record()
    torch.cuda.synchronize()
    print("flush %-6s %.1f us a flush" % (name, a.elapsed_time(b) / 200 * 1e3))

prof = pt._profiler_for(torch)
prof.start("cuda")

import torch.autograd.profiler as ap  # noqa: E402
scope_cls = None
for mod in ("torch._C._profiler", "torch._C._autograd", "torch.autograd"):
    try:
        m = __import__(mod, fromlist=["RecordScope"])
        scope_cls = getattr(m, "RecordScope", None)
        if scope_cls is not None:
            print("RecordScope from", mod, [s for s in dir(scope_cls) if s.isupper()][:12])
            break
    except Exception as e:  # noqa: BLE001
        print("no RecordScope in", mod, e)
orig_enable = ap._enable_profiler
print("_enable_profiler doc:", (getattr(orig_enable, "__doc__", "") or "")[:300])
state = {"user": False}


def enable(config, activities, *rest):
    if state["user"]:
        return orig_enable(config, activities, {scope_cls.USER_SCOPE})
    return orig_enable(config, activities, *rest)


ap._enable_profiler = enable
enter = torch.ops.profiler._record_function_enter_new
exit_ = torch.ops.profiler._record_function_exit._RecordFunction


class UserRange:
    __slots__ = ("name", "h")

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.h = enter(self.name, None)

    def __exit__(self, *a):
        exit_(self.h)


fns = atan_calls(torch, [(torch.float16, s) for s in ((64, 64), (1 << 20,), (4096, 4096),
                                                      (1 << 28,))])

combos = list(itertools.product(("tri256", "l2", "l2x2"), ("all", "user"), (1, 0)))
res = {}
rng = random.Random(11)
for rnd in range(rounds):
    for label, fn, numel in fns:
        order = combos[:]
        rng.shuffle(order)
        calls = 20 if numel >= 1 << 27 else 100
        for combo in order:
            fl, scope, sync = combo
            flush = flushes[fl]
            state["user"] = scope == "user"
            rec = UserRange if scope == "user" else prof.record
            (_, loop, exit_s, events_s, series_s), ev, s = timed_window(
                prof, fn, flush, calls, sync=dev.synchronize if sync else None, record=rec)
            state["user"] = False
            r = res.setdefault((label, combo), {"loop": [], "exit": [], "read": [], "ev": [],
                                                "n": [], "samples": []})
            r["loop"].append(loop / calls * 1e6)
            r["exit"].append(exit_s / calls * 1e6)
            r["read"].append((events_s + series_s) / calls * 1e6)
            r["ev"].append(len(ev) / calls)
            r["n"].append(len(s.samples))
            r["samples"] += s.samples

print("%-16s %-6s %-5s %4s | %7s %7s %7s %5s %6s | %10s %10s" % (
    "fn", "flush", "scope", "sync", "loop", "exit", "read", "ev", "n", "median_ms",
    "tmean_ms"))
for label, _, _ in fns:
    base = None
    for combo in combos:
        r = res[(label, combo)]
        smp = r["samples"]
        med = statistics.median(smp) if smp else float("nan")
        tm = zc.trimmed_mean(smp, 0.1) if smp else float("nan")
        if base is None:
            base = tm
        print("%-16s %-6s %-5s %4d | %7.1f %7.1f %7.1f %5.1f %6.1f | %10.5f %10.5f %+6.2f%%" % (
            label, combo[0], combo[1], combo[2], statistics.median(r["loop"]),
            statistics.median(r["exit"]), statistics.median(r["read"]),
            statistics.median(r["ev"]), statistics.mean(r["n"]), med, tm,
            (tm / base - 1) * 100 if base else 0.0))
