"""do_bench_npu: takes iteration counts, returns one float (ms), no return modes."""
import json

from triton.runtime.jit import _log


def do_bench_npu(fn, warmup=5, active=30):
    import torch
    _log("do_bench_npu " + json.dumps({"warmup": warmup, "active": active}))
    for _ in range(warmup):
        fn()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(active):
        fn()
    end.record()
    return start.elapsed_time(end) / active
