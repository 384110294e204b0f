"""do_bench as in triton 3.6 (flush before each call, events, return modes), on the fake clock.

FAKE_DO_BENCH=3.1 gives triton <= 3.1's signature instead (fast_flush, device_type) and
its assertion that refuses return_mode "all"; FAKE_DO_BENCH=no-all keeps 3.6's
signature but refuses "all" too (a vendor fork between the two)."""
import json
import math
import os
import statistics

from . import runtime
from .runtime.jit import _log

_measurements = [0]


def _quantile(a, q):
    n = len(a)
    a = sorted(a)

    def get_quantile(q):
        point = q * (n - 1)
        lower = math.floor(point)
        upper = math.ceil(point)
        t = point - lower
        return (1 - t) * a[lower] + t * a[upper]

    return [get_quantile(q) for q in q]


def _summarize_statistics(times, quantiles, return_mode):
    if quantiles is not None:
        ret = _quantile(times, quantiles)
        if len(ret) == 1:
            ret = ret[0]
        return ret
    if return_mode == "all":
        return times
    if return_mode == "min":
        return min(times)
    if return_mode == "max":
        return max(times)
    if return_mode == "mean":
        return statistics.mean(times)
    return statistics.median(times)


def _scale(quantiles):
    """FAKE_BENCH_SCALES: the k-th measurement-style call (no quantiles) is scaled."""
    raw = os.environ.get("FAKE_BENCH_SCALES")
    if not raw or quantiles is not None:
        return 1.0
    scales = [float(x) for x in raw.split(",")]
    k = _measurements[0]
    _measurements[0] += 1
    return scales[k % len(scales)]


def _do_bench(fn, warmup, rep, grad_to_none, quantiles, return_mode):
    _log("do_bench " + json.dumps({"warmup": warmup, "rep": rep, "quantiles": quantiles,
                                   "return_mode": return_mode}))
    di = runtime.driver.active.get_device_interface()
    fn()
    di.synchronize()
    cache = runtime.driver.active.get_empty_cache_for_benchmark()
    start_event = di.Event(enable_timing=True)
    end_event = di.Event(enable_timing=True)
    start_event.record()
    for _ in range(5):
        runtime.driver.active.clear_cache(cache)
        fn()
    end_event.record()
    di.synchronize()
    estimate_ms = start_event.elapsed_time(end_event) / 5
    n_warmup = max(1, int(warmup / estimate_ms))
    n_repeat = max(1, int(rep / estimate_ms))
    start_event = [di.Event(enable_timing=True) for i in range(n_repeat)]
    end_event = [di.Event(enable_timing=True) for i in range(n_repeat)]
    for _ in range(n_warmup):
        fn()
    for i in range(n_repeat):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        runtime.driver.active.clear_cache(cache)
        start_event[i].record()
        fn()
        end_event[i].record()
    di.synchronize()
    scale = _scale(quantiles)
    times = [s.elapsed_time(e) * scale for s, e in zip(start_event, end_event)]
    return _summarize_statistics(times, quantiles, return_mode)


def _refuse_all(return_mode):
    if return_mode not in ["min", "max", "mean", "median"]:
        _log("do_bench refused " + json.dumps({"return_mode": return_mode}))
    assert return_mode in ["min", "max", "mean", "median"]


_VARIANT = os.environ.get("FAKE_DO_BENCH", "3.6")

if _VARIANT == "3.1":
    def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, fast_flush=True,
                 return_mode="mean", device_type="cuda"):
        _refuse_all(return_mode)
        return _do_bench(fn, warmup, rep, grad_to_none, quantiles, return_mode)
elif _VARIANT == "no-all":
    def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
        _refuse_all(return_mode)
        return _do_bench(fn, warmup, rep, grad_to_none, quantiles, return_mode)
else:
    def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
        assert return_mode in ["min", "max", "mean", "median", "all"]
        return _do_bench(fn, warmup, rep, grad_to_none, quantiles, return_mode)
