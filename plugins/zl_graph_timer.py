"""zl_graph_timer: time one measurement by replaying a captured device graph.

Loaded by zlbench (-p zl_graph_timer) only on backends with graph capture and
only with ZL_TIMER_PLAN=graph; zl_timer asks the plugin manager for this module
and calls measure() for each measurement. On its own it does nothing.

Why not triton.testing.do_bench_cudagraph: it replays the kernel back to back
without flushing the L2 cache, so inputs that fit in L2 are timed cache-hot and
graph numbers are not comparable with do_bench's (which flushes before every
call). Here every iteration of the graph is "flush; fn", and a second graph of
"flush" alone, replayed right after, measures the flush so it can be subtracted.

When capture fails (the op synchronizes, copies to the host, allocates pinned
memory, ...) measure() raises CaptureFailed with the reason and zl_timer times
that shape with the direct timer instead, keeping the reason.
"""

import zl_common as zc
import zl_device as zd

# Timed replays per measurement: the sample count of a graph measurement.
SAMPLES = 10
# Upper bound on graph iterations: bounds capture time and graph size for tiny kernels.
MAX_ITERATIONS = 1000
# Floor for per-call estimates (ms) so a kernel faster than the event clock
# resolution cannot divide by zero.
MIN_ESTIMATE_MS = 1e-4
# Graph classes by framework spelling; the device module is FlagGems' own.
_GRAPH_CLASSES = ("CUDAGraph", "MUSAGraph", "NPUGraph", "XPUGraph")


class CaptureFailed(Exception):
    """The graph timer cannot time this measurement; reason says why."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


def device_api():
    """(torch, device module, graph class, graph context manager) as the framework
    sees the device (zl_device.device_api)."""
    try:
        torch, dev = zd.device_api()
    except zd.DeviceUnavailable as e:
        raise CaptureFailed("no graph timer: %s" % e.reason) from None
    graph_cls = None
    for name in _GRAPH_CLASSES:
        graph_cls = getattr(dev, name, None)
        if graph_cls is not None:
            break
    graph_ctx = getattr(dev, "graph", None)
    if graph_cls is None or graph_ctx is None:
        raise CaptureFailed("device module '%s' has no graph capture API" % zd.module_name(dev))
    return torch, dev, graph_cls, graph_ctx


def iterations_for(rep_ms, samples, estimate_ms):
    """Graph iterations per replay so that all timed replays together take about rep_ms."""
    per_replay = float(rep_ms) / samples
    n = int(per_replay / max(estimate_ms, MIN_ESTIMATE_MS))
    return max(1, min(MAX_ITERATIONS, n))


def root_cause(exc):
    """The first error of a chain: when fn fails inside a capture, the graph's
    capture_end raises again ("operation failed due to a previous error") and
    hides the informative one."""
    seen = {id(exc)}
    while True:
        nxt = exc.__cause__ or exc.__context__
        if nxt is None or id(nxt) in seen:
            return exc
        seen.add(id(nxt))
        exc = nxt


def _recover(torch, dev, graph_cls, graph_ctx):
    """Leave the device usable after a failed capture.

    Synchronizing clears the capture error. torch also leaves its RNG generators
    in capture mode (their epilogue runs only in a successful capture_end), and
    the next torch.randn outside a graph fails with "Offset increment outside
    graph capture encountered unexpectedly"; one successful tiny capture resets
    them."""
    try:
        dev.synchronize()
    except Exception:
        pass
    try:
        reset = zd.scratch(torch)
        g = graph_cls()
        with graph_ctx(g):
            reset.zero_()
        dev.synchronize()
    except Exception:
        pass


def measure(fn, warmup=25, rep=100, grad_to_none=None, samples=SAMPLES):
    """Time fn by graph replay with an L2 flush before each call, flush cost subtracted.

    Returns {"samples": [ms per call, one per timed replay], "iterations": calls
    per replay, "flush_ms": measured flush cost per call}. Errors of fn itself
    (first, eager call) propagate; capture problems raise CaptureFailed."""
    torch, dev, graph_cls, graph_ctx = device_api()
    flush = zd.flusher(torch, dev)
    stream = dev.Stream()
    with dev.stream(stream):
        # Outside capture: compiles and autotunes, and raises fn's own errors.
        fn()
        if grad_to_none is not None:
            for x in grad_to_none:
                x.detach_()
                x.requires_grad_(True)
                x.grad = None
        dev.synchronize()

        def flushed_call():
            flush()
            fn()
        # The lower of two estimates: the first one of a process can include
        # one-time costs (the flush buffer's first use), and an inflated
        # estimate means few iterations per graph, so graph launch overhead
        # is not amortized.
        est_total = min(zd.eager_ms(dev, flushed_call, 5), zd.eager_ms(dev, flushed_call, 5))
        for _ in range(max(1, int(warmup / max(est_total, MIN_ESTIMATE_MS)))):
            fn()
        n = iterations_for(rep, samples, est_total)
        try:
            g_flush = graph_cls()
            with graph_ctx(g_flush):
                for _ in range(n):
                    flush()
            g_full = graph_cls()
            with graph_ctx(g_full):
                for _ in range(n):
                    zd.reset_grads(grad_to_none)
                    flush()
                    fn()
        except zc.ReplayMiss:
            raise
        except Exception as e:
            _recover(torch, dev, graph_cls, graph_ctx)
            raise CaptureFailed("graph capture failed: %s" % zc.one_line(root_cause(e))) from e
        dev.synchronize()
        # The first replay uploads the graph; keep it out of the samples.
        g_full.replay()
        g_flush.replay()
        dev.synchronize()
        per_call, flush_ms = [], []
        for _ in range(samples):
            ev = [dev.Event(enable_timing=True) for _ in range(4)]
            ev[0].record()
            g_full.replay()
            ev[1].record()
            ev[2].record()
            g_flush.replay()
            ev[3].record()
            dev.synchronize()
            full = ev[0].elapsed_time(ev[1])
            only_flush = ev[2].elapsed_time(ev[3])
            per_call.append((full - only_flush) / n)
            flush_ms.append(only_flush / n)
        del g_full, g_flush
    med = zc.median(per_call)
    if med <= 0:
        raise CaptureFailed("flush-subtracted graph time is not positive (%.6g ms): the flush's "
                            "jitter exceeds the kernel's time" % med)
    return {"samples": per_call, "iterations": n, "flush_ms": zc.median(flush_ms)}
