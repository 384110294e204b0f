#!/usr/bin/env python3
"""What one gc.collect() costs in a process that has imported torch and FlagGems, with and
without gc.freeze() (wave 9: FlagGems' benchmark loop collects after every shape, and the
timer plugin now freezes the heap that collection leaves; docs/validation.md). Run on the
GPU machine with FlagGems' src/ on PYTHONPATH: python3 scripts/probe-gc.py"""
import gc
import time

t0 = time.perf_counter()
import torch  # noqa: E402
import flag_gems  # noqa: E402

print("import torch and flag_gems: %.1f s" % (time.perf_counter() - t0))
x = torch.randn(1024, 1024, device="cuda")


def collect(label, n=7):
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        gc.collect()
        ts.append(time.perf_counter() - t)
    ts.sort()
    print("%-26s objects %8d, frozen %8d: gc.collect() median %6.1f ms (min %.1f, max %.1f)" % (
        label, len(gc.get_objects()), gc.get_freeze_count(), 1e3 * ts[len(ts) // 2],
        1e3 * ts[0], 1e3 * ts[-1]))


collect("after the imports")
with flag_gems.use_gems(exclude=["zero_"]):
    y = torch.abs(x)
torch.cuda.synchronize()
collect("after a use_gems")
gc.freeze()
collect("frozen (gc.freeze)")
gc.unfreeze()
collect("thawed")
