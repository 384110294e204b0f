#!/usr/bin/env python3
"""On the GPU machine: why do two-kernel calls (FlagGems' 1-D sum/mean) step between two
levels inside one profiler measurement (docs/validation.md, wave 2, issue 13)?

Runs zl_profiler_timer.measure() on chosen calls under several variants of the timer
(as shipped; a device sync before each call; no hold; both) and, for every profiled call,
splits the sample into its parts: first kernel, gap, second kernel; plus how long the first
kernel waited after its launch (the depth of the queue) and the hold before it. Prints one
summary line per measurement and, per variant, the parts of the low and the high samples;
writes every call's row to DETAIL.
usage: PYTHONPATH=plugins:<flag_gems src> python3 scripts/gpu-step-probe.py DETAIL [REPS]"""
import statistics as st
import sys
import time

import torch
import flag_gems

import zl_clock
import zl_profiler_timer as pt
import zl_sampling

detail = open(sys.argv[1], "w")
REPS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
STASH = []
_orig = pt.from_kineto


def _stash(events, cpu_type, prefix=pt.RANGE_PREFIX):
    out = _orig(events, cpu_type, prefix)
    STASH.append(out)
    return out


pt.from_kineto = _stash
_holder = pt.holder


def parts(events):
    """Per call: dict of its parts (us) from one session's neutral events."""
    ranges = sorted((e.start, e.end, pt.range_index(e.name)) for e in events
                    if e.kind == "cpu" and pt.range_index(e.name) is not None)
    launch = {}
    for e in events:
        if e.kind == "cpu" and pt._API_CALL.match(e.name):
            launch.setdefault(e.corr, e.start)
    dev = sorted((e for e in events if e.kind == "device"
                  and not e.name.startswith(pt.RANGE_PREFIX)), key=lambda e: e.start)
    starts = [r[0] for r in ranges]
    calls, prev_end = {}, {}
    last_end = None
    import bisect
    for d in dev:
        L = launch.get(d.corr)
        if L is not None:
            i = bisect.bisect_right(starts, L) - 1
            if i >= 0 and ranges[i][0] <= L <= ranges[i][1]:
                idx = ranges[i][2]
                calls.setdefault(idx, []).append((d, L))
                if idx not in prev_end:
                    prev_end[idx] = last_end
        last_end = d.end
    rows = []
    for idx in sorted(calls):
        acts = calls[idx]
        (d1, l1) = acts[0]
        (dn, ln) = acts[-1]
        r = {"i": idx, "k": len(acts), "span": (dn.end - d1.start) / 1e3,
             "k1": (d1.end - d1.start) / 1e3, "wait1": (d1.start - l1) / 1e3,
             "after_prev": (d1.start - prev_end[idx]) / 1e3 if prev_end.get(idx) else None,
             "name1": d1.name[:28]}
        if len(acts) > 1:
            (d2, l2) = acts[1]
            r.update(gap=(d2.start - d1.end) / 1e3, k2=(d2.end - d2.start) / 1e3,
                     issue12=(l2 - l1) / 1e3, wait2=(d2.start - l2) / 1e3, name2=d2.name[:28])
        rows.append(r)
    return rows


def fmt(v):
    return "-" if v is None else "%.2f" % v


def summary(rows, key="span"):
    """Means of the parts over the lowest and highest quarter of the samples (first call of
    each session left out)."""
    rows = [r for r in rows if r["i"] > 0]
    if len(rows) < 8:
        return "too few rows"
    rows = sorted(rows, key=lambda r: r[key])
    q = len(rows) // 4
    out = []
    for name, part in (("low", rows[:q]), ("high", rows[-q:])):
        cols = []
        for c in ("span", "k1", "gap", "k2", "wait1", "wait2", "issue12", "after_prev"):
            vals = [r[c] for r in part if r.get(c) is not None]
            if vals:
                cols.append("%s %s" % (c, fmt(st.mean(vals))))
        out.append("%s: %s" % (name, " ".join(cols)))
    return " | ".join(out)


def run(label, fn, sync=False, hold=True, reps=REPS):
    pt.SYNC_EACH_CALL = sync
    pt.holder = _holder if hold else (lambda dev, host, mhz: None)
    allrows = []
    ests = []
    for rep in range(reps):
        STASH.clear()
        t0 = time.monotonic()
        res = pt.measure(fn, warmup=25, policy=zl_sampling.Policy(), clock=CLOCK)
        wall = time.monotonic() - t0
        s = sorted(res["samples"])
        p = lambda q: s[min(len(s) - 1, int(q * len(s)))] * 1e3  # noqa: E731
        high = sum(1 for x in res["samples"] if x * 1e3 > p(0.1) * 1.1) / len(s)
        ests.append(res["estimate_ms"] * 1e3)
        print("%-28s rep %d est %.3f us noise %.4f n %4d batches %d stop %-12s hold %s "
              "wall %.2f s p10 %.2f p50 %.2f p90 %.2f high %.2f" % (
                  label, rep, res["estimate_ms"] * 1e3, res["noise_rel"], len(s), res["batches"],
                  res["stop_reason"], res["hold_us"], wall, p(0.1), p(0.5), p(0.9), high),
              flush=True)
        for b, ev in enumerate(STASH[1:] if len(STASH) > res["batches"] else STASH):
            rows = parts(ev)
            allrows += rows
            if rep == 0:
                for r in rows:
                    detail.write("%s batch %d %s\n" % (label, b, " ".join(
                        "%s=%s" % (k, fmt(v) if isinstance(v, float) else v) for k, v in r.items())))
    print("  %-26s estimates %s spread %.1f %%" % (label, " ".join("%.3f" % e for e in ests),
                                                   100 * (max(ests) / min(ests) - 1)))
    print("  %-26s %s" % (label, summary(allrows)), flush=True)


dev = torch.cuda
CLOCK = zl_clock.open_reader("nvml", dev)
print("torch", torch.__version__, "clock", CLOCK.source, CLOCK.read(), "of", CLOCK.max_mhz, flush=True)
x = torch.randn(1 << 20, dtype=torch.float16, device="cuda")
y = torch.randn(64, 64, dtype=torch.float16, device="cuda")
z = torch.randn(4096, 4096, dtype=torch.float16, device="cuda")
t0 = time.perf_counter()
for _ in range(1000):
    torch.cuda.synchronize()
print("synchronize: %.2f us per call on an idle device" % ((time.perf_counter() - t0) * 1e3), flush=True)
with flag_gems.use_gems(exclude=["zero_"]):
    sum1 = lambda: torch.sum(x)  # noqa: E731
    mean1 = lambda: torch.mean(x)  # noqa: E731
    run("gems sum 1M as shipped", sum1)
    run("gems sum 1M sync", sum1, sync=True)
    run("gems sum 1M no hold", sum1, hold=False, reps=2)
    run("gems sum 1M sync no hold", sum1, sync=True, hold=False, reps=2)
    run("gems mean 1M as shipped", mean1)
    run("gems mean 1M sync", mean1, sync=True)
    run("gems abs 64x64 as shipped", lambda: torch.abs(y), reps=2)
    run("gems abs 64x64 sync", lambda: torch.abs(y), sync=True, reps=2)
    run("gems abs 4096^2 as shipped", lambda: torch.abs(z), reps=2)
    run("gems abs 4096^2 sync", lambda: torch.abs(z), sync=True, reps=2)
run("torch sum 1M as shipped", lambda: torch.sum(x), reps=2)
run("torch sum 1M sync", lambda: torch.sum(x), sync=True, reps=2)
detail.close()
