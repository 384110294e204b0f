#!/usr/bin/env python3
"""The profiler timer's own Python cost, on CPU with the plugin tests' fakes.

What a profiled call costs the plugin, beside the device work: the window's loop around each
call (per sample), reading its events out of the Kineto results and attributing them (per
call; the one-pass parser the timer uses, and the reference attribution the tests hold it
to), the transient cut, estimator and stop rule (per window), and a whole measurement
through measure() with the fake torch (informational: the fake's own bookkeeping is in
it). Goals and measurements side by side, so that a slowdown shows without a GPU.

usage: python3 bench/bench_profiler_timer.py   (from the repository root)
"""
import os
import random
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "plugins"), os.path.join(ROOT, "tests", "plugins", "fakes")]

import zl_common as zc  # noqa: E402
import zl_profiler_timer as pt  # noqa: E402
import zl_sampling as zs  # noqa: E402

# Per call on an H200: a ~58 us L2 flush plus the kernel. Parsing must stay well below it.
GOAL_PARSE_US_PER_CALL = 10.0
GOAL_ESTIMATE_MS_AT_MAX = 10.0
# The loop's own Python per call (wait, flush, hold and range calls as no-ops): against a
# ~150 us profiled call of a small kernel on an H200 it must stay a few per cent.
GOAL_LOOP_US_PER_CALL = 5.0
REPEATS = 7


class KEvent:
    """Shaped like torch._C._autograd._KinetoEvent (the methods from_kineto calls)."""

    __slots__ = ("n", "d", "s", "e", "c", "l", "t", "u", "f")

    def __init__(self, n, d, s, e, c, l, t, u=False, f=0):
        self.n, self.d, self.s, self.e, self.c, self.l, self.t, self.u = n, d, s, e, c, l, t, u
        self.f = f

    def name(self):
        return self.n

    def device_type(self):
        return self.d

    def start_ns(self):
        return self.s

    def end_ns(self):
        return self.e

    def correlation_id(self):
        return self.c

    def linked_correlation_id(self):
        return self.l

    def start_thread_id(self):
        return self.t

    def is_user_annotation(self):
        return self.u

    def fwd_thread_id(self):
        return self.f


CPU, CUDA = object(), object()


def session(calls, memset=False, backward=False):
    """The events of one session as Kineto lists them for a cuBLAS-like op: per call the
    wait for the device (cudaDeviceSynchronize, no op around it), a flush (aten::zero_, its
    launch, its kernel), the hold (torch.cuda._sleep: a launch no op encloses and its spin
    kernel), the range, aten::mm inside it, a memset and a GEMM launched from it, and
    Kineto's device copy of the range. backward: torch.autograd.grad's call instead, the
    node (the engine's evaluate_function op and the node's op, forward thread 1) and
    aten::mm with its launches on the engine's thread 2."""
    ev, op_id, rt_id, t, g = [], 1000, 1, 1_700_000_000_000_000_000, 5_000_000
    for i in range(calls):
        ev.append(KEvent("cudaDeviceSynchronize", CPU, t - 2000, t - 1000, rt_id, 0, 1))
        rt_id += 1
        op_id += 1
        ev.append(KEvent("aten::zero_", CPU, t, t + 3000, op_id, 0, 1))
        ev.append(KEvent("cudaLaunchKernel", CPU, t + 1000, t + 1500, rt_id, op_id, 1))
        ev.append(KEvent("triton_zero_kernel", CUDA, g, g + 58000, rt_id, op_id, 0))
        rt_id += 1
        g += 58000
        ev.append(KEvent("cudaLaunchKernel", CPU, t + 3200, t + 3500, rt_id, 0, 1))
        ev.append(KEvent("spin_kernel", CUDA, g, g + 100000, rt_id, 0, 0))
        rt_id += 1
        g += 100000
        op_id += 1
        rng = op_id
        t += 4000
        ev.append(KEvent("zl_call#%d" % i, CPU, t, t + 9000, rng, 0, 1))
        tid = 1
        if backward:
            tid = 2
            for name in ("autograd::engine::evaluate_function: MmBackward0", "MmBackward0"):
                op_id += 1
                ev.append(KEvent(name, CPU, t + 300, t + 8500, op_id, 0, tid, f=1))
        op_id += 1
        ev.append(KEvent("aten::mm", CPU, t + 500, t + 8000, op_id, 0, tid))
        kinds = [("cudaMemsetAsync", "Memset (Device)")] if memset else []
        kinds.append(("cudaLaunchKernel", "sm90_xmma_gemm"))
        for rt, dv in kinds:
            ev.append(KEvent(rt, CPU, t + 1000, t + 1500, rt_id, op_id, tid))
            ev.append(KEvent(dv, CUDA, g, g + 2000, rt_id, op_id, 0))
            rt_id += 1
            g += 2000
        ev.append(KEvent("zl_call#%d" % i, CUDA, g - 4000, g, 0, 0, 0, True))
        t += 10000
    random.Random(1).shuffle(ev)     # Kineto's order is by type and buffer, not by call
    return ev


def best_of(fn):
    """Best wall time of REPEATS calls, the collector off (as the plugin parses)."""
    import gc
    times = []
    gc.disable()
    try:
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
    finally:
        gc.enable()
    return min(times)


def row(metric, goal, measured, unit):
    if goal is None:
        print("%-56s %10s %10.2f %-5s" % (metric, "-", measured, unit))
        return True
    ok = measured <= goal
    print("%-56s %10.2f %10.2f %-5s %5.2f  %s" % (metric, goal, measured, unit, measured / goal,
                                                 "ok" if ok else "OVER"))
    return ok


class _NoProfiler:
    """A profiler whose sessions record nothing: what is left of a window is its loop."""

    class _Session:
        kineto_results = type("R", (), {"events": staticmethod(lambda: [])})()

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    class _Range:
        def __init__(self, name):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    cpu = object()
    record = _Range

    def session(self, device_name):
        return self._Session()


def loop_us_per_call(n):
    noop = (lambda: None)
    readings = iter(range(10 ** 9))

    def window():
        return pt._profile_window(_NoProfiler(), "cuda", noop, noop, None, n, hold=noop, sync=noop,
                                  clock_read=lambda: float(next(readings)), clock_every=20)
    return best_of(window) / n * 1e6


def main():
    print("profiler timer, plugin's own cost (CPU, Python %s, best of %d, load average %.1f on %d CPUs)"
          % (sys.version.split()[0], REPEATS, os.getloadavg()[0], os.cpu_count()))
    print("%-56s %10s %10s %-5s %5s" % ("metric", "goal", "measured", "unit", "ratio"))
    ok = True
    for calls, memset, backward in ((1000, False, False), (1000, True, False),
                                    (200, True, False), (1000, True, True), (200, True, True)):
        ev = session(calls, memset, backward)

        def parse():
            return pt.kineto_series(ev, CPU, calls)

        def reference():
            return pt.call_series(pt.attribute(pt.from_kineto(ev, CPU)), calls)

        def touch():
            return [(e.name(), e.device_type(), e.start_ns(), e.correlation_id()) for e in ev]
        got, want = parse(), reference()
        assert got.missing == 0 and set(got.counts) == {2 if memset else 1}, (got.missing, set(got.counts))
        assert (got.samples, got.sigs) == (want.samples, want.sigs)
        us = best_of(parse) / calls * 1e6
        ok &= row("events -> samples per call, %d calls, %d events/call%s"
                  % (calls, len(ev) // calls, ", backward" if backward else ""),
                  GOAL_PARSE_US_PER_CALL, us, "us")
        row("  the reference attribution (neutral events), per call", None,
            best_of(reference) / calls * 1e6, "us")
        row("  floor: only reading 4 fields of each event, per call", None,
            best_of(touch) / calls * 1e6, "us")
    ok &= row("the window's loop per call (its own Python)", GOAL_LOOP_US_PER_CALL,
              loop_us_per_call(2000), "us")
    rnd = random.Random(2)
    for n in (300, 2000, 10000):
        values = [1.0 + rnd.gauss(0, 0.03) for _ in range(n)]

        def est():
            cut, steady = zs.transient_cut(values)
            kept = values[cut:]
            noise = zc.trimmed_mean_ci_rel(kept, zs.TRIM)
            return zs.next_step(zs.Policy(), len(kept), noise,
                                [(len(kept) * 2 // 3, 0.01), (len(kept), noise)], 0.1, 60e-6,
                                steady=steady)
        ok &= row("transient cut + estimate + stop rule per window, %d samples" % n,
                  GOAL_ESTIMATE_MS_AT_MAX, best_of(est) * 1e3, "ms")
    # a whole measurement with the fakes: the plugin plus the fake torch's bookkeeping
    import flag_gems
    import torch
    import zl_clock
    x = torch.empty(4096)
    clock = zl_clock.open_reader("nvml", torch.cuda)
    t0 = time.perf_counter()
    out = pt.measure(lambda: flag_gems.add(x, x), policy=zs.Policy(), clock=clock)
    wall = time.perf_counter() - t0
    row("measure() with the fakes, wall per profiled call", None,
        wall / out["calls"] * 1e6, "us")
    c = out["cost"]
    row("measure() with the fakes, besides its windows (first call, profiler start)", None,
        (wall - c["windows_s"]) * 1e3, "ms")
    print("  (%d calls in %d windows, stop %s; the fake device records every launch in Python)"
          % (out["calls"], out["batches"], out["stop_reason"]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
