#!/usr/bin/env python3
"""On the GPU machine: what one window of the profiler timer records per call, and where
its stop and read go (wave 10; wave 8 measured 45 us a call of torch's stop and 101 us of
reading, against 25 us of parsing 13 fake events a call on CPU, bench/bench_profiler_timer.py).
For torch's atan and FlagGems' (when importable) of 64x64 float16: events a call by kind and
name, and the seconds of profile.__exit__, kineto_results.events() and kineto_series().
usage: PYTHONPATH=plugins python3 scripts/gpu-event-count.py [CALLS]"""
import collections
import sys
import time

import torch

import zl_device as zd
import zl_profiler_timer as pt

calls = int(sys.argv[1]) if len(sys.argv) > 1 else 100
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
    for rnd in range(3):
        p = prof.session("cuda")
        p.__enter__()
        for i in range(calls):
            dev.synchronize()
            flush()
            with prof.record(pt.RANGE_PREFIX + str(i)):
                fn()
        t0 = time.perf_counter()
        p.__exit__(None, None, None)
        t1 = time.perf_counter()
        ev = p.kineto_results.events()
        t2 = time.perf_counter()
        s = pt.kineto_series(ev, prof.cpu, calls)
        t3 = time.perf_counter()
        kinds = collections.Counter((str(e.device_type()).split(".")[-1], e.name()[:48]) for e in ev)
        print("%s round %d: %d calls, %d events (%.1f a call), samples %d, median %.4f ms" % (
            label, rnd, calls, len(ev), len(ev) / calls, len(s.samples),
            sorted(s.samples)[len(s.samples) // 2] if s.samples else float("nan")))
        print("  per call: exit %.1f us, events() %.1f us, kineto_series %.1f us" % (
            (t1 - t0) / calls * 1e6, (t2 - t1) / calls * 1e6, (t3 - t2) / calls * 1e6))
        if rnd == 0:
            for (kind, name), k in kinds.most_common():
                print("    %5.2f a call  %-6s %s" % (k / calls, kind, name))
