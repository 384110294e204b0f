"""triton.testing stand-in: do_bench and do_bench_cudagraph with Triton 3.6's signatures.

Times come from time.perf_counter around each call of fn (there are no device events
and no L2 cache to flush); the warm-up and repetition counts are derived from the
estimated call time exactly as Triton derives them, and the statistics are Triton's.
The stand-in autotuners time configs with bench_thread_time() instead: like a GPU's
event timer, this thread's CPU clock does not count other processes, so a busy machine
does not change which config wins.
"""

import math
import statistics
import time

from . import runtime


def _quantile(a, q):
    n = len(a)
    a = sorted(a)

    def get_quantile(q):
        if not (0 <= q <= 1):
            raise ValueError("Quantiles must be in the range [0, 1]")
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


def _estimate_ms(fn, cache, clock):
    # Triton times 5 calls to size the warm-up and repetition loops.
    start = clock()
    for _ in range(5):
        runtime.driver.active.clear_cache(cache)
        fn()
    return max((clock() - start) * 1000.0 / 5, 1e-6)


def _bench(fn, warmup, rep, grad_to_none, quantiles, return_mode, clock):
    assert return_mode in ["min", "max", "mean", "median", "all"]
    di = runtime.driver.active.get_device_interface()
    fn()
    di.synchronize()
    cache = runtime.driver.active.get_empty_cache_for_benchmark()
    estimate_ms = _estimate_ms(fn, cache, clock)
    n_warmup = max(1, int(warmup / estimate_ms))
    n_repeat = max(1, int(rep / estimate_ms))
    for _ in range(n_warmup):
        fn()
    times = []
    for _ in range(n_repeat):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        runtime.driver.active.clear_cache(cache)
        start = clock()
        fn()
        times.append((clock() - start) * 1000.0)
    di.synchronize()
    return _summarize_statistics(times, quantiles, return_mode)


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Run fn for about `warmup` ms, then time it for about `rep` ms; times in ms."""
    return _bench(fn, warmup, rep, grad_to_none, quantiles, return_mode, time.perf_counter)


def bench_thread_time(fn, warmup=25, rep=100, quantiles=None, return_mode="mean"):
    """do_bench on this thread's CPU clock (the stand-in autotuners' benchmarker)."""
    return _bench(fn, warmup, rep, None, quantiles, return_mode, time.thread_time)


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Triton's graph benchmark without a graph: 10 timed rounds of n_repeat back-to-back
    calls, each round giving one per-call time (nothing is captured on the stand-in)."""
    assert return_mode in ["min", "max", "mean", "median", "all"]
    fn()
    estimate_ms = _estimate_ms(fn, None, time.perf_counter)
    n_repeat = 1000 if estimate_ms == 0 else max(1, int(rep / estimate_ms))
    times = []
    for _ in range(10):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        start = time.perf_counter()
        for _ in range(n_repeat):
            fn()
        times.append((time.perf_counter() - start) * 1000.0 / n_repeat)
    return _summarize_statistics(times, quantiles, return_mode)
