#!/usr/bin/env python3
"""On the GPU machine (wave 15): does a short spin after the L2 flush remove the second level
of torch's 25 us calls, and what does each choice cost a call? torch's 4096x4096 atan read
1.2 us (5 %) long in about one call of three (wave 14), so its rows needed 110-141 samples to
the 0.5 % target where FlagGems' of the same size needed 20. Waiting for the device after the
flush (wave 14) removed the long level but made every call pay its launch after the flush.
For calls of one kernel (torch's and FlagGems' atan, float16 and float32), windows of profiled
calls as the timer makes them (wait, flush, range, call) under each variant
  base:    Triton's flush (clear_cache: zero_), the timer's since wave 1;
  fill:    cache.fill_(0) on the same buffer (the same kernel, one torch op fewer);
  spinN:   the flush, then a spin kernel of N us (torch.cuda._sleep) before the call;
  wait:    the flush, then a wait for the device (wave 14's variant, for reference);
interleaved over ROUNDS rounds (VARIANTS=base,fill in the environment: only those). Per variant and call: the loop's wall, the session's stop, the
read (events() and kineto_series), events a call, the trimmed mean (and its change against
base), the share of calls on a long level (> 1.025 x the median), the winsorized relative
stddev a sample and the samples that would meet +-0.5 % at it.
usage: PYTHONPATH=plugins python3 scripts/gpu-drain-probe.py [ROUNDS]"""
import os
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
print("device %s, torch %s" % (props.name, torch.__version__))
tri_flush = zd.flusher(torch, dev)
cache = zd._cache["cache"]
MHZ = 1980.0


def spin_flush(us):
    cycles = int(us * MHZ)

    def f():
        tri_flush()
        dev._sleep(cycles)
    return f


def wait_flush():
    tri_flush()
    dev.synchronize()


def fill_flush():
    cache.fill_(0)


variants = [("base", tri_flush), ("fill", fill_flush), ("spin5", spin_flush(5)),
            ("spin10", spin_flush(10)), ("spin20", spin_flush(20)), ("spin40", spin_flush(40)),
            ("wait", wait_flush)]
# VARIANTS=base,fill (the environment) keeps only those
keep = [v for v in os.environ.get("VARIANTS", "").split(",") if v]
if keep:
    variants = [v for v in variants if v[0] in keep]

prof = pt._profiler_for(torch)
prof.start("cuda")

fns = atan_calls(torch, ((torch.float16, (64, 64)), (torch.float16, (1 << 20,)),
                         (torch.float16, (4096, 4096)), (torch.float16, (64, 512, 512)),
                         (torch.float32, (4096, 4096)), (torch.float16, (1 << 28,))),
                 dtype_in_label=True)

res = {}
rng = random.Random(15)
for rnd in range(rounds):
    for label, fn, numel in fns:
        order = variants[:]
        rng.shuffle(order)
        calls = 20 if numel >= 1 << 27 else 100
        for name, flush in order:
            (_, loop, exit_s, events_s, series_s), ev, s = timed_window(
                prof, fn, flush, calls, sync=dev.synchronize)
            r = res.setdefault((label, name), {"loop": [], "exit": [], "read": [], "ev": [],
                                               "samples": []})
            r["loop"].append(loop / calls * 1e6)
            r["exit"].append(exit_s / calls * 1e6)
            r["read"].append((events_s + series_s) / calls * 1e6)
            r["ev"].append(len(ev) / calls)
            # the first five calls of a window are a transient the timer's cut may take
            r["samples"] += s.samples[5:]


def wsd_rel(smp):
    s = sorted(smp)
    n = len(s)
    g = int(0.1 * n)
    w = [s[g]] * g + s[g:n - g] + [s[n - g - 1]] * g
    est = zc.trimmed_mean(smp, 0.1)
    return statistics.pstdev(w) / est if est else float("nan")


print("%-24s %-6s | %6s %6s %6s %5s | %10s %7s %6s %6s %5s" % (
    "fn", "var", "loop", "exit", "read", "ev", "tmean_ms", "vs base", "long", "wsd", "n05"))
for label, _, _ in fns:
    base = None
    for name, _ in variants:
        r = res.get((label, name))
        if r is None:
            continue
        smp = r["samples"]
        if not smp:
            print("%-24s %-6s | no samples" % (label, name))
            continue
        med = statistics.median(smp)
        tm = zc.trimmed_mean(smp, 0.1)
        if base is None:
            base = tm
        long_ = sum(1 for v in smp if v > 1.025 * med) / len(smp)
        w = wsd_rel(smp)
        n05 = (1.98 * w / 0.005) ** 2 / 0.8
        print("%-24s %-6s | %6.1f %6.1f %6.1f %5.1f | %10.5f %+6.2f%% %5.1f%% %5.2f%% %5.0f" % (
            label, name, statistics.median(r["loop"]), statistics.median(r["exit"]),
            statistics.median(r["read"]), statistics.median(r["ev"]), tm,
            (tm / base - 1) * 100, long_ * 100, w * 100, n05))

# per variant, over every (fn, round): its loop and its stop + read a call against base's in
# the same round (the windows of one round run back to back, in shuffled order)
for name, _ in variants[1:]:
    loop_r, sr_r = [], []
    for label, _, _ in fns:
        b, r = res.get((label, "base")), res.get((label, name))
        if not b or not r:
            continue
        for i in range(min(len(b["loop"]), len(r["loop"]))):
            loop_r.append(r["loop"][i] / b["loop"][i])
            sr_r.append((r["exit"][i] + r["read"][i]) / (b["exit"][i] + b["read"][i]))
    if loop_r:
        loop_r.sort()
        sr_r.sort()
        print("%-6s vs base over %d windows: loop x%.3f [q1 %.3f, q3 %.3f], stop+read x%.3f "
              "[q1 %.3f, q3 %.3f]" % (name, len(loop_r), statistics.median(loop_r),
                                      loop_r[len(loop_r) // 4], loop_r[3 * len(loop_r) // 4],
                                      statistics.median(sr_r), sr_r[len(sr_r) // 4],
                                      sr_r[3 * len(sr_r) // 4]))

# the shortest spin after which torch's 25 us rows (float16) have no long level left: at most
# 5 % of their calls long, and no more than the base's share
best = "none"
for us in (5, 10, 20, 40):
    ok = True
    for label in ("torch float16 4096x4096", "torch float16 64x512x512"):
        smp = res.get((label, "spin%d" % us), {}).get("samples")
        if not smp:
            ok = False
            break
        med = statistics.median(smp)
        if sum(1 for v in smp if v > 1.025 * med) > 0.05 * len(smp):
            ok = False
    if ok:
        best = str(us)
        break
print("best_spin", best)
