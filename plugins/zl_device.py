"""zl_device: the device as the framework sees it, for the timers.

The device module is FlagGems' runtime.torch_device_fn when flag_gems is loaded
(torch.cuda on nvidia and amd), else torch.cuda. The L2 flush is the one
triton.testing.do_bench uses (triton's driver buffer and clear_cache, run as the
fill_(0) that clear_cache's zero_ amounts to), made once per session and released
at its end. Nothing is imported here: torch, triton and flag_gems are taken from
sys.modules, as the code under test loaded them.
"""

import functools
import sys

# Bytes flushed when triton's driver offers no cache-clearing buffer (triton uses 256 MB).
FLUSH_BYTES = 256 * 1024 * 1024

_cache = {}


class DeviceUnavailable(Exception):
    """No torch or no device module: no timer but the bench function can run."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


def device_module():
    """flag_gems.runtime.torch_device_fn, else torch.cuda, else None."""
    fg = sys.modules.get("flag_gems")
    runtime = getattr(fg, "runtime", None) if fg is not None else None
    dev = getattr(runtime, "torch_device_fn", None) if runtime is not None else None
    if dev is None:
        torch = sys.modules.get("torch")
        dev = getattr(torch, "cuda", None) if torch is not None else None
    return dev


def device_api():
    """(torch, device module) or DeviceUnavailable."""
    torch = sys.modules.get("torch")
    if torch is None:
        raise DeviceUnavailable("torch is not imported")
    dev = device_module()
    if dev is None:
        raise DeviceUnavailable("no device module (flag_gems.runtime.torch_device_fn or torch.cuda)")
    return torch, dev


def device_string():
    """flag_gems.device ("cuda", "musa", "npu", ...), else "cuda"."""
    fg = sys.modules.get("flag_gems")
    name = getattr(fg, "device", None) if fg is not None else None
    return name or "cuda"


def module_name(dev):
    return getattr(dev, "__name__", type(dev).__name__)


def flusher(torch, dev):
    """The L2 flush do_bench uses, made once per session (release() forgets it)."""
    if "flush" in _cache:
        return _cache["flush"]
    flush = None
    triton = sys.modules.get("triton")
    try:
        drv = triton.runtime.driver.active
        cache = drv.get_empty_cache_for_benchmark()
        clear = drv.clear_cache
        flush = (_fill(cache) if zeroes_only(clear) else None) or functools.partial(clear, cache)
        _cache["cache"] = cache
    except Exception:
        flush = None
    if flush is None:
        cache = torch.empty(FLUSH_BYTES, dtype=torch.int8, device=device_string())
        _cache["cache"] = cache
        flush = _fill(cache) or cache.zero_
    _cache["flush"] = flush
    return flush


def zeroes_only(clear):
    """Whether triton's clear_cache(cache) is `cache.zero_()` and nothing else (the nvidia and
    amd drivers of Triton 3.x): its code takes (self, cache) and names only zero_. A driver
    that does more, or delegates, keeps its own clear_cache."""
    code = getattr(getattr(clear, "__func__", clear), "__code__", None)
    return code is not None and code.co_argcount == 2 and code.co_names == ("zero_",)


# cache.fill_(0) is what torch's zero_ runs on a device tensor (aten::zero_ calls aten::fill_):
# the same kernel, but one torch op fewer that every profiled call records, stops and reads
# (on an H100, wave 15: the session's stop and read 6.5 % shorter a call, samples unchanged).
def _fill(cache):
    fill = getattr(cache, "fill_", None)
    if not callable(fill):
        return None

    def flush():
        fill(0)
    return flush


def release():
    """Forget the flush buffer and the scratch byte (the session ends)."""
    _cache.clear()


def scratch(torch):
    """A one-byte device tensor kept for the process (the graph timer's RNG reset)."""
    if "scratch" not in _cache:
        _cache["scratch"] = torch.zeros(1, dtype=torch.int8, device=device_string())
    return _cache["scratch"]


def reset_grads(grad_to_none):
    if grad_to_none is not None:
        for x in grad_to_none:
            x.grad = None


def eager_ms(dev, body, count):
    """Mean eager time of body() over count calls, by device events."""
    start = dev.Event(enable_timing=True)
    end = dev.Event(enable_timing=True)
    start.record()
    for _ in range(count):
        body()
    end.record()
    dev.synchronize()
    return start.elapsed_time(end) / count
