#!/usr/bin/env python3
"""On the GPU machine (wave 16): what torch's profile() object adds to a window's fixed cost.
A window of the profiler timer is one torch.autograd.profiler.profile session: a new object,
__enter__ (_prepare_profiler, _enable_profiler and Python bookkeeping), the calls, __exit__
(a device synchronize, _disable_profiler, stats) and kineto_results.events(). The raw way
calls torch.autograd._prepare_profiler/_enable_profiler/_disable_profiler with the config and
activities of one profile object made once. Windows of each size, both ways interleaved over
ROUNDS rounds (default 5), torch's atan of 64x64 float16 with the timer's flush and range;
per part a least-squares fit as a fixed cost plus a cost a call, and whether both ways
attribute every call. Writes torch's profile methods' source to SRC (when set).
usage: PYTHONPATH=plugins python3 scripts/gpu-window-probe.py [CALLS...]"""
import inspect
import os
import sys

import torch

import zl_device as zd
import zl_profiler_timer as pt
from gpu_probe import PARTS, fit, timed_window

sizes = [int(a) for a in sys.argv[1:]] or [10, 40]
rounds = int(os.environ.get("ROUNDS", "5"))
torch_, dev = zd.device_api()
flush = zd.flusher(torch, dev)
prof = pt._profiler_for(torch)
prof.start("cuda")
P = torch.autograd.profiler.profile
if os.environ.get("SRC"):
    with open(os.environ["SRC"], "w") as f:
        for name in ("__init__", "__enter__", "_prepare_trace", "_start_trace", "__exit__",
                     "config"):
            m = getattr(P, name, None)
            if m is not None:
                try:
                    f.write(inspect.getsource(m) + "\n")
                except (OSError, TypeError) as e:
                    f.write("%s: %s\n" % (name, e))
ag = torch.autograd
raw_ok = all(hasattr(ag, n) for n in ("_prepare_profiler", "_enable_profiler",
                                      "_disable_profiler"))
p0 = prof.session("cuda")
cfg, acts = p0.config(), p0.kineto_activities
x = torch.randn(64, 64, device="cuda", dtype=torch.float16)


def fn():
    torch.atan(x)


def raw_start():
    ag._prepare_profiler(cfg, acts)
    ag._enable_profiler(cfg, acts)


def window(way, calls):
    """The seconds of PARTS, the series and the events' count of one window: a profile
    session (the timer's way) or the raw calls."""
    if way == "profile":
        secs, ev, s = timed_window(prof, fn, flush, calls, sync=dev.synchronize)
    else:
        secs, ev, s = timed_window(prof, fn, flush, calls, sync=dev.synchronize,
                                   start=raw_start, stop=ag._disable_profiler)
    return secs, s, len(ev)


fn()
torch.cuda.synchronize()
ways = ["profile", "raw"] if raw_ok else ["profile"]
print("raw way available:", raw_ok)
points = {w: {part: [] for part in PARTS} for w in ways}
bad = {w: 0 for w in ways}
events = {w: [] for w in ways}
for rnd in range(rounds + 1):
    for calls in sizes:
        for w in (ways if rnd % 2 == 0 else ways[::-1]):
            secs, s, nev = window(w, calls)
            if rnd == 0:
                continue            # warm-up round
            for part, v in zip(PARTS, secs):
                points[w][part].append((calls, v))
            if s.missing or len(s.samples) != calls:
                bad[w] += 1
            events[w].append(nev / calls)
for w in ways:
    print("way %-8s windows %d, every call attributed in %d, events a call %.1f" % (
        w, len(points[w]["loop"]), len(points[w]["loop"]) - bad[w],
        sum(events[w]) / max(1, len(events[w]))))
    tot_fixed = 0.0
    for part in PARTS:
        fixed, per = fit(points[w][part])
        tot_fixed += fixed
        print("  %-7s fixed %7.3f ms  a call %6.1f us" % (part, fixed * 1e3, per * 1e6))
    print("  window's fixed cost %.3f ms" % (tot_fixed * 1e3))
