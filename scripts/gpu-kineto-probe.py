#!/usr/bin/env python3
"""On the GPU machine: does this torch give what zl_profiler_timer reads? Prints the
_KinetoEvent methods it calls, every event of one profiled call (a Triton kernel, then a
cuBLAS mm) with its correlation and linked ids, the attribution, and the NVML SM clock.
usage: PYTHONPATH=plugins python3 scripts/gpu-kineto-probe.py"""
import torch, triton, triton.language as tl  # noqa: E401
import zl_clock, zl_profiler_timer as pt  # noqa: E401
E = torch._C._autograd._KinetoEvent
print("torch", torch.__version__, "| activities", torch.autograd._supported_activities())
print({m: hasattr(E, m) for m in ("name", "device_type", "start_ns", "end_ns", "start_us", "duration_us",
      "correlation_id", "linked_correlation_id", "start_thread_id", "is_user_annotation")})
@triton.jit
def add1(x, n, B: tl.constexpr):
    o = tl.program_id(0) * B + tl.arange(0, B); tl.store(x + o, tl.load(x + o, mask=o < n) + 1, mask=o < n)
x = torch.zeros(1 << 20, device="cuda", dtype=torch.float16); m = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
calls = [lambda: add1[(1 << 10,)](x, x.numel(), B=1024), lambda: torch.mm(m, m)]
for f in calls: f()
torch.cuda.synchronize()
with torch.autograd.profiler.profile(use_device="cuda", use_kineto=True) as p:
    for i, f in enumerate(calls):
        with torch.autograd.profiler.record_function("zl_call#%d" % i): f()
ev = p.kineto_results.events()
for e in ev: print("%-5s %-42.42s corr=%-6d linked=%-6d tid=%-3d %d..%d" % (str(e.device_type()).split(".")[-1], e.name(), e.correlation_id(), e.linked_correlation_id(), e.start_thread_id(), e.start_ns(), e.end_ns()))
a = pt.attribute(pt.from_kineto(ev, torch.autograd.DeviceType.CPU))
print("calls:", {i: len(v) for i, v in a.calls.items()}, "samples ms:", pt.call_samples(a, 2)[0], "unattributed", a.unattributed, "ambiguous", a.ambiguous)
r = zl_clock.open_reader("nvml", torch.cuda); print("clock:", r.source, r.read(), "MHz of", r.max_mhz)
