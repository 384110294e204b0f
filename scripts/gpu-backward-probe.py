#!/usr/bin/env python3
"""On the GPU machine (wave 17): what torch's profiler records for a backward call.
FlagGems' backward marks (base.py, is_backward=True) time torch.autograd.grad(out, xs,
dout, retain_graph=True); on a CUDA device the autograd engine runs the graph's nodes on
its own device thread while the caller waits, so the kernels are launched by a thread
that has no call range. This runs one profiler window of CALLS such calls the timer's way
(flush, range) for torch's gelu and nll_loss, prints every CPU event of the window's first
two calls (thread, forward thread, sequence number, ids) and what kineto_series attributes,
and writes the events as JSON to DUMP (when set).
usage: PYTHONPATH=plugins python3 scripts/gpu-backward-probe.py [CALLS]"""
import json
import os
import sys

import torch

import zl_device as zd
import zl_profiler_timer as pt
from gpu_probe import timed_window

calls = int(sys.argv[1]) if len(sys.argv) > 1 else 8
torch_, dev = zd.device_api()
flush = zd.flusher(torch, dev)
prof = pt._profiler_for(torch)
prof.start("cuda")


def case_gelu():
    x = torch.randn(1 << 20, device="cuda", dtype=torch.float16, requires_grad=True)
    out = torch.nn.functional.gelu(x)
    return lambda: torch.autograd.grad((out,), [x], grad_outputs=(torch.randn_like(out),),
                                       retain_graph=True)


def case_nll():
    x = torch.randn(4096, 1000, device="cuda", dtype=torch.float32, requires_grad=True)
    t = torch.randint(0, 1000, (4096,), device="cuda")
    out = torch.nn.functional.nll_loss(torch.log_softmax(x, 1), t)
    dout = torch.randn_like(out)
    return lambda: torch.autograd.grad((out,), [x], grad_outputs=(dout,), retain_graph=True)


def fields(e):
    row = {}
    for k in ("name", "start_thread_id", "end_thread_id", "fwd_thread_id", "sequence_nr",
              "correlation_id", "linked_correlation_id", "start_ns", "end_ns", "scope"):
        f = getattr(e, k, None)
        try:
            v = f() if callable(f) else None
        except Exception as ex:  # noqa: BLE001 - a probe prints what fails
            v = "error: %s" % ex
        row[k] = v if isinstance(v, (int, str, float, type(None))) else str(v)
    row["device_type"] = str(e.device_type())
    return row


dump = {}
for label, make in (("gelu", case_gelu), ("nll_loss", case_nll)):
    fn = make()
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    _, ev, s = timed_window(prof, fn, flush, calls, sync=dev.synchronize)
    rows = [fields(e) for e in ev]
    dump[label] = rows
    print("== %s: %d events; kineto_series: %d of %d calls attributed, samples (us) %s"
          % (label, len(rows), len(s.samples), calls, [round(x * 1e3, 2) for x in s.samples]))
    print("   signatures: %s" % sorted(set(s.sigs))[:3])
    r0 = [r for r in rows if r["name"].startswith("zl_call#")]
    r0.sort(key=lambda r: r["start_ns"])
    t0, t1 = r0[0]["start_ns"] - 1, (r0[1]["end_ns"] if len(r0) > 1 else r0[0]["end_ns"])
    for r in sorted(rows, key=lambda r: (r["start_ns"] or 0)):
        if r["device_type"].endswith("CPU") and t0 <= (r["start_ns"] or 0) <= t1:
            print("   cpu tid=%s fwd=%s seq=%s corr=%s linked=%s t=%d..%d %s" % (
                r["start_thread_id"], r["fwd_thread_id"], r["sequence_nr"],
                r["correlation_id"], r["linked_correlation_id"], r["start_ns"] - t0,
                (r["end_ns"] or 0) - t0, r["name"][:70]))
    devs = [r for r in rows if not r["device_type"].endswith("CPU")]
    for r in devs[:6]:
        print("   dev corr=%s linked=%s %s" % (r["correlation_id"], r["linked_correlation_id"],
                                              r["name"][:70]))
if os.environ.get("DUMP"):
    with open(os.environ["DUMP"], "w") as f:
        json.dump(dump, f)
