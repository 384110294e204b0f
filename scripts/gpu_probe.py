"""What the GPU probes (scripts/gpu-*-probe.py, scripts/gpu-event-count.py) share: one profiler
window timed part by part the timer's way, the torch and FlagGems atan calls most of them
measure, and the least-squares fit they split a window's cost by. Run from scripts/ (Python
puts a script's folder on its path) with PYTHONPATH=plugins."""
import time

import zl_profiler_timer as pt

PARTS = ("enter", "loop", "exit", "events", "series")


def timed_window(prof, fn, flush, calls, sync=None, record=None, start=None, stop=None):
    """One window of calls calls as the timer makes them (sync when given, the flush, fn()
    inside a range "zl_call#<i>": prof.record, or record), in a profile session of prof, or
    between start() and stop() (which returns the profiler's results). Returns (the seconds
    of PARTS, the events, kineto_series of them)."""
    t = [time.perf_counter()]
    if start is None:
        p = prof.session("cuda")
        p.__enter__()

        def stop():
            p.__exit__(None, None, None)
            return p.kineto_results
    else:
        start()
    t.append(time.perf_counter())
    rec = record or prof.record
    for i in range(calls):
        if sync is not None:
            sync()
        flush()
        with rec(pt.RANGE_PREFIX + str(i)):
            fn()
    t.append(time.perf_counter())
    res = stop()
    t.append(time.perf_counter())
    ev = res.events()
    t.append(time.perf_counter())
    series = pt.kineto_series(ev, prof.cpu, calls)
    t.append(time.perf_counter())
    return tuple(b - a for a, b in zip(t, t[1:])), ev, series


def atan_calls(torch, cases, dtype_in_label=False):
    """[(label, fn, numel)]: torch's atan and FlagGems' (when it imports) of a random tensor
    on the device per (dtype, shape) of cases, each called once and the device synced."""
    gems = None
    try:
        import flag_gems
        gems = getattr(flag_gems.ops, "atan", None) or getattr(flag_gems, "atan", None)
    except Exception as e:  # noqa: BLE001 - a probe measures what it can
        print("flag_gems: not measured (%s)" % e)
    fns = []
    for dt, shape in cases:
        x = torch.randn(shape, device="cuda", dtype=dt)
        label = "x".join(map(str, shape))
        if dtype_in_label:
            label = "%s %s" % (str(dt)[6:], label)
        fns.append(("torch " + label, (lambda x=x: torch.atan(x)), x.numel()))
        if gems is not None:
            fns.append(("gems " + label, (lambda x=x: gems(x)), x.numel()))
    for _, fn, _ in fns:
        fn()
    torch.cuda.synchronize()
    return fns


def fit(points):
    """(fixed s, s a call) of a least-squares line through [(calls, seconds)]."""
    n = len(points)
    mx = sum(c for c, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((c - mx) ** 2 for c, _ in points)
    if sxx == 0:
        return my, 0.0
    b = sum((c - mx) * (y - my) for c, y in points) / sxx
    return my - b * mx, b
