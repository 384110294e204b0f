#!/usr/bin/env python3
"""On the GPU machine: what one window of the profiler timer records per call, and where
its stop and read go (wave 10; wave 8 measured 45 us a call of torch's stop and 101 us of
reading, against 25 us of parsing 13 fake events a call on CPU, bench/bench_profiler_timer.py).
For torch's atan and FlagGems' (when importable) of 64x64 float16: events a call by kind and
name, and the seconds of profile.__enter__, the calls, profile.__exit__,
kineto_results.events() and kineto_series(). With several CALLS (wave 15), windows of each
size, interleaved over three rounds, and per part a least-squares fit of its seconds as a
window's fixed cost plus a cost a call: what a window costs whatever its size.
usage: PYTHONPATH=plugins python3 scripts/gpu-event-count.py [CALLS...]"""
import collections
import os
import sys
import time

import torch

import zl_device as zd
import zl_profiler_timer as pt
from gpu_probe import PARTS, fit, timed_window

sizes = [int(a) for a in sys.argv[1:]] or [100]
torch_, dev = zd.device_api()
flush = zd.flusher(torch, dev)
prof = pt._profiler_for(torch)
prof.start("cuda")
x = torch.randn(64, 64, device="cuda", dtype=torch.float16)
fns = [("torch.atan", lambda: torch.atan(x))]
try:
    import flag_gems
    fns.append(("flag_gems atan", lambda: flag_gems.ops.atan(x) if hasattr(flag_gems.ops, "atan")
                else flag_gems.atan(x)))
except Exception as e:  # noqa: BLE001
    print("flag_gems: not measured (%s)" % e)


for label, fn in fns:
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        print(label, "failed:", e)
        continue
    torch.cuda.synchronize()
    points = {part: [] for part in PARTS}
    for rnd in range(3):
        for calls in sizes:
            parts, ev, s = timed_window(prof, fn, flush, calls, sync=dev.synchronize)
            for part, secs in zip(PARTS, parts):
                points[part].append((calls, secs))
            if calls != sizes[0]:
                continue
            kinds = collections.Counter((str(e.device_type()).split(".")[-1], e.name()[:48])
                                        for e in ev)
            print("%s round %d: %d calls, %d events (%.1f a call), samples %d, median %.4f ms" % (
                label, rnd, calls, len(ev), len(ev) / calls, len(s.samples),
                sorted(s.samples)[len(s.samples) // 2] if s.samples else float("nan")))
            enter_s, _, exit_s, events_s, series_s = parts
            print("  per call: enter %.1f us, exit %.1f us, events() %.1f us, kineto_series %.1f us"
                  % (enter_s / calls * 1e6, exit_s / calls * 1e6, events_s / calls * 1e6,
                     series_s / calls * 1e6))
            if rnd == 0:
                for (kind, name), k in kinds.most_common():
                    print("    %5.2f a call  %-6s %s" % (k / calls, kind, name))
    if len(set(sizes)) > 1:
        print("  %s, windows of %s calls, 3 rounds: a window's fixed cost + a call's" % (
            label, "/".join(map(str, sizes))))
        total_fixed = total_call = 0.0
        for part in PARTS:
            fixed, per = fit(points[part])
            total_fixed += fixed
            total_call += per
            print("    %-7s %8.3f ms + %7.1f us a call" % (part, fixed * 1e3, per * 1e6))
        print("    %-7s %8.3f ms + %7.1f us a call" % ("all", total_fixed * 1e3, total_call * 1e6))

# ACCESSORS=1 (wave 15): what each of _KinetoEvent's accessors costs an event on this host, over
# one window of 200 calls of the first function: kineto_series reads 4-6 of them per event, and
# on an H100 it took 30-47 us a call of 8-9 events against 7-10 us for the same work on the
# bench's Python stand-ins.
if os.environ.get("ACCESSORS") and fns:
    label, fn = fns[0]
    _, ev, _ = timed_window(prof, fn, flush, 200, sync=dev.synchronize)
    k = type(ev[0])
    cpu = prof.cpu
    dtype = k.device_type

    def best(body, rounds=5):
        out = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            body()
            out.append(time.perf_counter() - t0)
        return min(out) / len(ev) * 1e9

    cases = [("empty loop", lambda: [None for e in ev])]
    for m in ("device_type", "name", "correlation_id", "linked_correlation_id", "start_ns",
              "end_ns", "start_thread_id", "is_user_annotation", "device_index",
              "device_resource_id", "is_async"):
        f = getattr(k, m, None)
        if f is not None:
            cases.append((m + "()", lambda f=f: [f(e) for e in ev]))
    cases += [("device_type() == CPU", lambda: [dtype(e) == cpu for e in ev]),
              ("int(device_type())", lambda: [int(dtype(e)) for e in ev]),
              ("device_type() in a set", lambda s={cpu}: [dtype(e) in s for e in ev]),
              ("kineto_series (per event)", lambda: pt.kineto_series(ev, cpu, 200))]
    print("%s: accessors over %d events (%.1f a call), ns an event, best of 5:" % (
        label, len(ev), len(ev) / 200))
    for name, body in cases:
        try:
            print("    %-28s %8.0f" % (name, best(body)))
        except Exception as e:  # noqa: BLE001
            print("    %-28s failed: %s" % (name, e))
