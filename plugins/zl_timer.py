"""zl_timer: time every FlagGems measurement by zlbench's plan and record it.

Plan (ZL_TIMER_PLAN): "profiler" asks the zl_profiler_timer plugin (device
timestamps from torch's profiler, sampled to a noise target); "graph" asks the
zl_graph_timer plugin (graph replay with an L2 flush); "direct" runs FlagGems' own
timer (triton.testing.do_bench, or triton.backends.ascend.testing.do_bench_npu on
ascend) ZL_DIRECT_REPEAT times and hands FlagGems the median. Per shape, a timer
that cannot time it hands over to the next: profiler -> graph -> direct, each
reason kept. The value FlagGems stores is the measurement's estimate_ms.

How: the bench function is replaced in its module (FlagGems looks it up as
triton.testing.do_bench at call time), and Benchmark.get_latency of FlagGems'
benchmark/base.py is wrapped to learn the op, dtype, shape and side (torch
baseline or gems) of each measurement. Without benchmark.base only the bench
function is hooked and those fields are null. Bench calls made by autotuners
(Autotuner._bench) or inside a measurement pass straight through.

Files: <run>/plugins/timer.jsonl (one object per measurement) and
<run>/plugins/timer_summary.json. See plugins/README.md.
"""

import functools
import gc
import importlib
import inspect
import os
import random
import statistics
import sys
import threading
import time

import pytest

import zl_clock
import zl_common as zc
import zl_device as zd
import zl_sampling

PLANS = ("profiler", "graph", "direct")
# Each plan's timers, tried in this order per shape.
CHAINS = {"profiler": ("profiler", "graph", "direct"), "graph": ("graph", "direct"),
          "direct": ("direct",)}
DEFAULT_NOISE_TARGET = 0.005
# Seconds of sampling per measurement (see docs/timer.md for why 0.3).
DEFAULT_MAX_TIME_PER_SHAPE = 0.3
# Samples stored per timer.jsonl line; beyond this an unbiased subset.
STORE_CAP = 2000
# Bench functions hooked: (module, attribute, label). FlagGems calls the
# ascend one on vendor "ascend" and triton's everywhere else.
BENCH_FUNCTIONS = (
    ("triton.testing", "do_bench", "triton.testing.do_bench"),
    ("triton.backends.ascend.testing", "do_bench_npu", "triton.backends.ascend.testing.do_bench_npu"),
)
GRAPH_PLUGIN = "zl_graph_timer"
# flag_gems.use_gems's methods that register or unregister FlagGems' operators: timed.
USE_GEMS_METHODS = ("__init__", "__enter__", "__exit__")
# What zl_profiler_timer.measure() returns beyond the common fields, kept in timer.jsonl
# under the same names (docs/run-directory.md).
PROFILER_EXTRAS = ("calls_missing", "hold_us", "synced_calls", "hold_grown", "hold_reason",
                   "rehold", "steady",
                   "transient_cut", "transient_ms", "noise_target_used", "least_samples",
                   "kernels", "kernel_variants", "host_bound", "host_issue_us", "device_idle")
PROFILER_PLUGIN = "zl_profiler_timer"
# The graph timer's warm-up and replay time (ms) after the profiler saw no device work.
NO_WORK_WARMUP_MS = 2.5
NO_WORK_REP_MS = 10
# Where the input hook leaves the dtype a Benchmark's inputs are made for.
BENCH_DTYPE_ATTR = "_zl_bench_dtype"

_state = None


# ---------------------------------------------------------------------------
# pure logic


def resolve_plan(env_plan, profiler_loaded, graph_loaded):
    """(plan, reason its own timer cannot be used or None). Without ZL_TIMER_PLAN
    the plan is the best loaded timer: profiler, then graph, then direct."""
    if env_plan is None:
        env_plan = "profiler" if profiler_loaded else "graph" if graph_loaded else "direct"
    if env_plan not in PLANS:
        raise zc.ConfigError("ZL_TIMER_PLAN must be one of %s, not '%s'"
                             % (", ".join(PLANS), env_plan))
    reason = None
    if env_plan == "profiler" and not profiler_loaded:
        reason = "profiler plan but the %s plugin is not loaded" % PROFILER_PLUGIN
    elif env_plan == "graph" and not graph_loaded:
        reason = "graph plan but the %s plugin is not loaded" % GRAPH_PLUGIN
    return env_plan, reason


def measurement_side(op, torch_op, gems_op, gems_active):
    """"gems" or "torch" for one Benchmark.get_latency call, as base.py's run()
    makes them: the baseline passes self.torch_op with FlagGems off; the gems
    call passes self.gems_op, or self.torch_op inside flag_gems.use_gems()."""
    if gems_op is not None and op is gems_op:
        return "gems"
    if gems_active:
        return "gems"
    if torch_op is not None and op is torch_op:
        return "torch"
    return None


def caller_result(samples, estimate_ms, return_mode, quantiles):
    """What the hooked bench function returns: do_bench's contract over our samples,
    except that FlagGems' "median" (and any mode do_bench does not know) gets the
    measurement's estimate_ms, the figure timer.jsonl reports."""
    if quantiles is not None:
        s = sorted(samples)
        out = [zc.quantile(s, float(q)) for q in quantiles]
        return out[0] if len(out) == 1 else out
    if return_mode == "all":
        return list(samples)
    if return_mode == "min":
        return min(samples)
    if return_mode == "max":
        return max(samples)
    if return_mode == "mean":
        return statistics.mean(samples)
    return estimate_ms


def fixed_estimate(samples, repeat_values):
    """(estimate ms, estimator, noise_rel) of the graph and direct timers: the median
    of the per-repeat results when there are several (direct), else of the samples;
    noise_rel from the order statistics of the samples."""
    est = zc.median(repeat_values if repeat_values else samples)
    return est, "median", zc.median_ci_rel(samples, est)


def summarize_records(plan, repeat, records, noise_target=DEFAULT_NOISE_TARGET,
                      max_time_s=DEFAULT_MAX_TIME_PER_SHAPE, clock_source=None,
                      readings=(), max_supported=None, profiler_settle=None):
    """plugins/timer_summary.json from the measurement records; readings: every SM
    clock reading of the run (MHz); profiler_settle: the profiler module's SETTLE_MODE."""
    counts = {t: 0 for t in PLANS}
    fallbacks = errors = dropped = 0
    reasons, stops = [], {}
    for r in records:
        stop = r.get("stop_reason")
        if stop is not None:
            stops[stop] = stops.get(stop, 0) + 1
        dropped += r.get("dropped_throttled") or 0
        if r.get("error") is not None:
            errors += 1
            continue
        counts[r["timer"]] = counts.get(r["timer"], 0) + 1
        reason = r.get("fallback_reason")
        if reason is not None:
            fallbacks += 1
            if reason not in reasons:
                reasons.append(reason)
    used = [t for t in PLANS if counts[t]]
    out = {"plan": plan, "used": used[0] if len(used) == 1 else "mixed" if used else None}
    # how the profiler timer issued its calls: "synced" (each from an idle device) or
    # "queued"; null when it timed nothing
    modes = {"synced" if r.get("synced_calls") else "queued" for r in records
             if r.get("timer") == "profiler" and r.get("error") is None}
    # and how it brought long calls to a steady device (zl_profiler_timer.SETTLE_MODE)
    settle = profiler_settle if modes else None
    out["profiler_call_mode"] = modes.pop() if len(modes) == 1 else "mixed" if modes else None
    out["profiler_settle"] = settle
    out.update(counts)
    out.update({"fallbacks": fallbacks, "fallback_reasons": reasons, "errors": errors,
                "measurements": len(records), "direct_repeat": repeat,
                "noise_target": noise_target, "max_time_per_shape_s": max_time_s,
                "clock_mhz": zl_clock.clock_stats(readings, max_supported),
                "clock_source": clock_source, "dropped_throttled": dropped,
                "stop_reasons": stops})
    return out


def freeze_heap():
    """Collect, then freeze every object left (gc.freeze): the number frozen.

    FlagGems' benchmark loop calls gc.collect() after every shape (benchmark/base.py), and
    a full collection walks every object of torch, Triton and FlagGems: on the H200 that
    was most of `other` (wave 9: 38-40 s of a 40-mark sample, ~70 ms a shape). What is
    alive once the tests are collected (modules, kernels, FlagGems' tables) lives for the
    session, so it is left out of those walks; what the tests make is collected as before,
    cycles included. thaw_heap() undoes it when the session ends; in a worker the worker's
    own tidy collects instead (zl_worker.FULL_COLLECT_EVERY)."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def thaw_heap():
    """Undo freeze_heap, except in a worker (zl_worker.KEEPS_HEAP): the worker collects after
    the session, and a thawed heap would make that collection, and zl_autotune's kernel scan
    before it, walk every object of torch and FlagGems (0.2-0.3 s each on the H200, wave 11)."""
    worker = sys.modules.get("zl_worker")
    if worker is not None and getattr(worker, "KEEPS_HEAP", False):
        return
    gc.unfreeze()


def session_cost(parts, session_s):
    """timer_summary.json's "cost": where a pytest session's wall went, in seconds:
    session_s (configure to session finish), collection_s, inputs_s (FlagGems making
    inputs), first_call_s (each measurement's first call: compiling, autotuning),
    timer_s (the timers' own wall besides first calls), use_gems_s (FlagGems registering
    and unregistering its operators: flag_gems.use_gems) and other_s, the rest (never
    below 0: the parts are measured apart and may overlap by a few ms)."""
    out = {"session_s": round(session_s, 6)}
    known = 0.0
    for key in ("collection_s", "inputs_s", "first_call_s", "timer_s", "use_gems_s"):
        v = parts.get(key)
        out[key] = None if v is None else round(v, 6)
        known += v or 0.0
    out["other_s"] = round(max(0.0, session_s - known), 6)
    return out


def first_dtype(values):
    """str() of the dtype of the first tensor-like value (depth-first), or None."""
    stack = list(reversed(values))
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(reversed(v))
        elif isinstance(v, dict):
            stack.extend(reversed(list(v.values())))
        elif hasattr(v, "dtype") and hasattr(v, "shape"):
            return str(v.dtype)
    return None


def shapes_of(values):
    """Shapes of tensors, scalars as they are: a fallback for record_shapes()."""
    out = []
    for v in values:
        if hasattr(v, "shape") and hasattr(v, "dtype"):
            out.append(list(v.shape))
        elif isinstance(v, (list, tuple)):
            out.append(shapes_of(v))
        elif v is None or isinstance(v, (bool, int, float, str)):
            out.append(v)
        else:
            out.append(None)
    return out


# ---------------------------------------------------------------------------
# state


class _Timer:
    def __init__(self, plan, repeat, plan_missing=None, profiler=None, graph=None,
                 noise_target=DEFAULT_NOISE_TARGET, max_time_s=DEFAULT_MAX_TIME_PER_SHAPE,
                 clock_source=None, pinned=False):
        self.plan = plan
        self.repeat = repeat
        self.plan_missing = plan_missing    # why the plan's own timer is not loaded
        self.profiler = profiler            # the zl_profiler_timer module, or None
        self.graph = graph                  # the zl_graph_timer module, or None
        self.policy = zl_sampling.Policy(noise_target=noise_target, max_time_s=max_time_s,
                                         pinned=pinned)
        self.clock_source = clock_source    # ZL_CLOCK_SOURCE
        self.clock = None                   # zl_clock.ClockReader, opened at the first measurement
        self.readings = []                  # every SM clock reading of the run (MHz)
        self.records = []
        self.node = None
        self.context = []
        self.local = threading.local()
        self.patched = []          # (owner, attribute, original) to undo
        self.signatures = {}
        self.no_all = set()        # id() of bench functions that refused return_mode="all"
        self.all_ok = set()        # id() of bench functions that took it
        self.journal = None        # timer.jsonl open for appending, one line per record
        self.write_failed = False
        self.finished = False
        # where the session's wall goes (timer_summary.json "cost"); session_s and other_s
        # are worked out when the summary is written
        self.cost = {"collection_s": None, "inputs_s": 0.0, "first_call_s": 0.0, "timer_s": 0.0,
                     "use_gems_s": 0.0}
        self.t_configure = time.monotonic()
        self.t_finish = None
        self.gc_frozen = None      # objects frozen after collection (freeze_heap), None before

    # --- installation -------------------------------------------------------

    def install(self):
        """Hook whatever is loaded by now; idempotent, called before each test."""
        if "triton" in sys.modules and "triton.testing" not in sys.modules:
            try:
                # triton is loaded already; its testing module is cheap to add.
                importlib.import_module("triton.testing")
            except Exception:
                pass
        for modname, attr, label in BENCH_FUNCTIONS:
            mod = sys.modules.get(modname)
            orig = getattr(mod, attr, None) if mod is not None else None
            if orig is None or getattr(orig, "_zl_timer_hook", False):
                continue
            setattr(mod, attr, self._bench_hook(orig, label))
            self.patched.append((mod, attr, orig))
        for base in _benchmark_bases():
            for cls in zc.class_tree(base):
                for attr, hook in (("get_latency", self._latency_hook),
                                   ("get_input_iter", self._inputs_hook)):
                    fn = cls.__dict__.get(attr)
                    if fn is None or getattr(fn, "_zl_timer_hook", False):
                        continue
                    setattr(cls, attr, hook(fn))
                    self.patched.append((cls, attr, fn))
        use_gems = getattr(sys.modules.get("flag_gems"), "use_gems", None)
        if isinstance(use_gems, type):
            for attr in USE_GEMS_METHODS:
                fn = use_gems.__dict__.get(attr)
                if fn is None or getattr(fn, "_zl_timer_hook", False):
                    continue
                setattr(use_gems, attr, self._use_gems_hook(fn))
                self.patched.append((use_gems, attr, fn))

    def uninstall(self):
        for owner, attr, orig in reversed(self.patched):
            setattr(owner, attr, orig)
        self.patched = []

    def release(self):
        """Drop what the session keeps for the process: the L2 flush buffer (256 MiB of
        device memory) and the profiler. A worker's next op makes its own; left alive, they
        are what the worker finds still allocated after the op (docs/worker.md)."""
        rel = getattr(self.profiler, "release", None)
        if callable(rel):
            rel()
        zd.release()

    def _bench_hook(self, orig, label):
        timer = self

        @functools.wraps(orig)
        def zl_bench(fn, *args, **kwargs):
            local = timer.local
            if getattr(local, "active", False) or _called_by_tuner():
                return orig(fn, *args, **kwargs)
            local.active = True
            try:
                return timer.measure(orig, label, fn, args, kwargs)
            finally:
                local.active = False
        zl_bench._zl_timer_hook = True
        return zl_bench

    def _latency_hook(self, orig):
        timer = self

        @functools.wraps(orig)
        def get_latency(bench, op, *args, **kwargs):
            timer.context.append(_latency_context(bench, op, args, kwargs,
                                                  getattr(bench, BENCH_DTYPE_ATTR, None)))
            try:
                return orig(bench, op, *args, **kwargs)
            finally:
                timer.context.pop()
        get_latency._zl_timer_hook = True
        return get_latency

    def _inputs_hook(self, orig):
        """Benchmark.get_input_iter(dtype): the dtype its inputs are made for is the one
        FlagGems' results row names (BenchmarkResult.dtype = str(dtype)), whatever tensor
        comes first among the inputs (an int64 index for embedding); and the time FlagGems
        spends making inputs is the run's cost.inputs_s. A subclass's iterator that calls
        its parent's is timed once, by the outer one."""
        timer = self

        @functools.wraps(orig)
        def get_input_iter(bench, dtype, *args, **kwargs):
            local = timer.local
            if getattr(local, "inputs", False):
                return orig(bench, dtype, *args, **kwargs)
            try:
                setattr(bench, BENCH_DTYPE_ATTR, str(dtype))
            except Exception:
                pass
            return timer._timed_inputs(orig(bench, dtype, *args, **kwargs))
        get_input_iter._zl_timer_hook = True
        return get_input_iter

    def _use_gems_hook(self, orig):
        """flag_gems.use_gems: making it, entering and leaving it register and unregister
        FlagGems' operators with torch (about a thousand), and benchmark/base.py does that
        around every shape's gems measurement: the run's cost.use_gems_s. Inside a
        measurement (a benchmarked function that enters it) it is the measurement's."""
        timer = self

        @functools.wraps(orig)
        def method(*args, **kwargs):
            if getattr(timer.local, "active", False):
                return orig(*args, **kwargs)
            t0 = time.monotonic()
            try:
                return orig(*args, **kwargs)
            finally:
                timer.cost["use_gems_s"] += time.monotonic() - t0
        method._zl_timer_hook = True
        return method

    def _timed_inputs(self, it):
        local = self.local
        while True:
            t0 = time.monotonic()
            local.inputs = True
            try:
                item = next(it)
            except StopIteration:
                return
            finally:
                local.inputs = False
                self.cost["inputs_s"] += time.monotonic() - t0
            yield item

    # --- measuring ----------------------------------------------------------

    def _signature(self, orig):
        key = id(orig)
        if key not in self.signatures:
            try:
                self.signatures[key] = inspect.signature(orig)
            except (TypeError, ValueError):
                self.signatures[key] = None
        return self.signatures[key]

    def measure(self, orig, label, fn, args, kwargs):
        ctx = self.context[-1] if self.context else {}
        rec = {"seq": len(self.records), "node": self.node, "op": ctx.get("op"),
               "dtype": ctx.get("dtype"), "shape": ctx.get("shape"), "side": ctx.get("side"),
               "bench_fn": label, "plan": self.plan, "timer": None, "fallback_reason": None,
               "sample_kind": None, "repeat": None, "no_device_work": None}
        sig = self._signature(orig)
        bound = None
        if sig is not None:
            try:
                bound = sig.bind(fn, *args, **kwargs)
                bound.apply_defaults()
            except TypeError:
                bound = None
        call = dict(bound.arguments) if bound is not None else {}
        return_mode = call.get("return_mode", "median")
        quantiles = call.get("quantiles")
        clock = self._clock()
        start = time.monotonic()
        reasons = []
        try:
            result = None
            for step in CHAINS[self.plan]:
                if step == "profiler":
                    result = self._profiler(rec, fn, call, reasons, clock)
                elif step == "graph":
                    result = self._graph(rec, fn, call, reasons, clock)
                else:
                    result = self._direct(rec, orig, sig, bound, fn, args, kwargs, clock)
                if result is not None:
                    break
            rec["fallback_reason"] = "; ".join(reasons) or None
            self._fill(rec, result, clock)
            value = caller_result(result["samples"], result["estimate_ms"], return_mode,
                                  quantiles)
            rec["value_ms"] = value
            rec["error"] = None
            return value
        except BaseException as e:
            rec["timer"] = rec["timer"] or self.plan
            rec["fallback_reason"] = "; ".join(reasons) or None
            self._fill(rec, None, clock)
            rec["value_ms"] = None
            rec["error"] = zc.one_line(e)
            raise
        finally:
            wall = time.monotonic() - start
            rec["wall_s"] = round(wall, 6)
            first = (rec.get("cost") or {}).get("first_call_s")
            rec["first_call_s"] = first
            rec["timer_s"] = round(max(0.0, wall - (first or 0.0)), 6)
            self.cost["first_call_s"] += first or 0.0
            self.cost["timer_s"] += rec["timer_s"]
            self.records.append(rec)
            self.append(rec)

    def _clock(self):
        """The SM clock reader, opened at the first measurement (the device is known then)."""
        if self.clock is None:
            source = self.clock_source
            self.clock = zl_clock.open_reader(source, zd.device_module() if source in
                                              (None, "", "nvml") else None)
        return self.clock

    def _fill(self, rec, result, clock):
        """The sample fields of a record from a timer's result (None: the measurement failed)."""
        samples = result["samples"] if result else []
        readings = result["clock_readings"] if result else []
        self.readings += readings
        stored, kind, stride = zc.storage_subset(samples, STORE_CAP, random.Random(rec["seq"]))
        rec.update(zc.summarize(samples))
        rec.update({"samples_ms": stored, "samples_total": len(samples), "samples_stored": kind,
                    "samples_stride": stride if kind == "subset" else None,
                    "estimate_ms": result["estimate_ms"] if result else None,
                    "estimator": result["estimator"] if result else None,
                    "noise_rel": result["noise_rel"] if result else None,
                    "noise_target": self.policy.noise_target,
                    "stop_reason": result["stop_reason"] if result else "error",
                    "kernels_per_call": result.get("kernels_per_call") if result else None,
                    "dropped_throttled": result["dropped_throttled"] if result else 0,
                    "clock_mhz": zl_clock.clock_stats(readings, clock.max_mhz),
                    "clock_source": clock.source})
        if result:
            rec.update(result["extra"])

    @staticmethod
    def _fixed(samples, repeat_values, extra, readings):
        est, estimator, noise = fixed_estimate(samples, repeat_values)
        return {"samples": samples, "estimate_ms": est, "estimator": estimator,
                "noise_rel": noise, "stop_reason": "fixed", "kernels_per_call": None,
                "dropped_throttled": 0, "clock_readings": readings, "extra": extra}

    def _profiler(self, rec, fn, call, reasons, clock):
        if self.profiler is None:
            if self.plan_missing and self.plan == "profiler":
                reasons.append(self.plan_missing)
            return None
        cost = {}
        try:
            out = self.profiler.measure(fn, warmup=call.get("warmup", 25),
                                        rep=call.get("rep", 100),
                                        grad_to_none=call.get("grad_to_none"),
                                        policy=self.policy, clock=clock, cost=cost,
                                        hint=(rec["op"], rec["side"], rec["bench_fn"]))
        except self.profiler.ProfilerFailed as e:
            reasons.append(e.reason)
            # the profiler ran and saw no kernel in any call (a view op): whatever times it
            # next reads next to nothing, and compare says so
            if isinstance(e, getattr(self.profiler, "NoDeviceWork", ())):
                rec["no_device_work"] = True
            return None
        except BaseException:
            # interrupted or failed: what it got to (its first call's wall above all) is
            # still the record's, so that a compile cut short does not read as timer time
            rec["cost"] = cost or None
            raise
        rec["timer"] = "profiler"
        rec["sample_kind"] = "profiled_call"
        rec["no_device_work"] = False
        extra = {"profiler_batches": out.pop("batches"), "profiler_calls": out.pop("calls"),
                 "cost": out.pop("cost", None)}
        extra.update((k, out.pop(k, None)) for k in PROFILER_EXTRAS)
        out["extra"] = extra
        return out

    def _graph(self, rec, fn, call, reasons, clock):
        if self.graph is None:
            if self.plan_missing and self.plan == "graph":
                reasons.append(self.plan_missing)
            return None
        warmup, rep = call.get("warmup", 25), call.get("rep", 100)
        if rec.get("no_device_work"):
            # the profiler saw no kernel in any call (a view op): the graph replays the flush
            # and nothing, and reads its own cost per node (1.2-1.5 us on an H100), not a
            # kernel's, so a tenth of FlagGems' time does (wave 13: tensor_split spent 0.28 s
            # a row here, 19 s of a 224 s sweep)
            warmup, rep = min(warmup, NO_WORK_WARMUP_MS), min(rep, NO_WORK_REP_MS)
        before = clock.read()
        try:
            out = self.graph.measure(fn, warmup=warmup, rep=rep,
                                     grad_to_none=call.get("grad_to_none"))
        except self.graph.CaptureFailed as e:
            reasons.append(e.reason)
            return None
        after = clock.read()
        rec["timer"] = "graph"
        rec["sample_kind"] = "graph_replay"
        return self._fixed(out["samples"], None,
                           {"graph_iterations": out["iterations"], "flush_ms": out["flush_ms"]},
                           [r for r in (before, after) if r is not None])

    def _direct(self, rec, orig, sig, bound, fn, args, kwargs, clock):
        """FlagGems' own bench function, self.repeat times. Where it takes
        return_mode="all" (triton >= 3.2) every timed iteration is a sample;
        otherwise (triton <= 3.1, do_bench_npu) each call's result is one."""
        before = clock.read()
        rec["timer"] = "direct"
        rec["repeat"] = self.repeat
        pooled, per_repeat = [], []
        all_mode = bound is not None and self._takes_all(orig, sig)
        for _ in range(self.repeat):
            if all_mode:
                try:
                    times = self._call_all(orig, sig, bound)
                except (AssertionError, ValueError):
                    if id(orig) in self.all_ok:
                        raise
                    # The call itself refused "all" (it checks before running fn);
                    # an error of fn would come back from the plain call below.
                    out = orig(fn, *args, **kwargs)
                    self.no_all.add(id(orig))
                    all_mode = False
                    self._add_call_result(out, pooled, per_repeat)
                    continue
                self.all_ok.add(id(orig))
                pooled.extend(times)
                per_repeat.append(zc.median(times))
            else:
                self._add_call_result(orig(fn, *args, **kwargs), pooled, per_repeat)
        rec["sample_kind"] = "iteration" if all_mode else "repeat"
        after = clock.read()
        return self._fixed(pooled, per_repeat, {"repeat_values_ms": per_repeat},
                           [r for r in (before, after) if r is not None])

    def _takes_all(self, orig, sig):
        """Whether orig may be asked for return_mode="all": triton's do_bench
        has it since 3.2, which also dropped fast_flush; 3.1 and older assert
        the mode is min/max/mean/median. A bench function that refused it once
        is not asked again."""
        if id(orig) in self.no_all or sig is None:
            return False
        return "return_mode" in sig.parameters and "fast_flush" not in sig.parameters

    @staticmethod
    def _call_all(orig, sig, bound):
        b = sig.bind(*bound.args, **bound.kwargs)
        b.arguments["return_mode"] = "all"
        if "quantiles" in sig.parameters:
            b.arguments["quantiles"] = None
        return [float(t) for t in orig(*b.args, **b.kwargs)]

    @staticmethod
    def _add_call_result(out, pooled, per_repeat):
        if isinstance(out, (list, tuple)):
            out = out[0]
        pooled.append(float(out))
        per_repeat.append(float(out))

    # --- files --------------------------------------------------------------

    def summary(self):
        clock = self.clock
        out = summarize_records(self.plan, self.repeat, self.records, self.policy.noise_target,
                                self.policy.max_time_s,
                                clock.source if clock is not None else None, self.readings,
                                clock.max_mhz if clock is not None else None,
                                getattr(self.profiler, "SETTLE_MODE", None))
        out["noise_target_pinned"] = self.policy.pinned
        out["gc_frozen"] = self.gc_frozen
        out["cost"] = session_cost(self.cost, (self.t_finish or time.monotonic()) - self.t_configure)
        return out

    def append(self, rec):
        """Add one record to timer.jsonl as it is made (appended and flushed, so a
        process killed later loses nothing; rewriting the whole file per record
        would cost O(n^2)), and rewrite the small summary."""
        path = zc.plugin_file("timer.jsonl")
        if path is None:
            return
        try:
            if self.journal is None:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                self.journal = open(path, "w", encoding="utf-8")
            self.journal.write(zc.dumps(zc.jsonable(rec), indent=None))
            self.journal.flush()
            zc.write_json_atomic(zc.plugin_file("timer_summary.json"), self.summary(),
                                 durable=False)
        except Exception as e:
            self._write_error(e)

    def write(self):
        """timer.jsonl rewritten whole and atomically (a line torn by an interrupt
        is gone), and the summary; at session end."""
        if self.journal is not None:
            try:
                self.journal.close()
            except Exception:
                pass
            self.journal = None
        path = zc.plugin_file("timer.jsonl")
        if path is None:
            return
        try:
            lines = "".join(zc.dumps(zc.jsonable(r), indent=None) for r in self.records)
            zc.write_text_atomic(path, lines)
            zc.write_json_atomic(zc.plugin_file("timer_summary.json"), self.summary())
        except Exception as e:
            self._write_error(e)

    def _write_error(self, e):
        if not self.write_failed:
            self.write_failed = True
            zc.report_error("zl_timer", "cannot write timer records", e)


def _latency_context(bench, op, args, kwargs, dtype=None):
    ctx = {"op": getattr(bench, "op_name", None), "dtype": None, "shape": None, "side": None}
    try:
        fg = sys.modules.get("flag_gems")
        gems_active = fg is not None and getattr(fg, "current_work_registrar", None) is not None
        ctx["side"] = measurement_side(op, getattr(bench, "torch_op", None),
                                       getattr(bench, "gems_op", None), gems_active)
        ctx["dtype"] = dtype or first_dtype(list(args) + list(kwargs.values()))
        try:
            ctx["shape"] = zc.jsonable(bench.record_shapes(*args, **kwargs))
        except Exception:
            ctx["shape"] = shapes_of(args)
    except Exception as e:
        zc.report_error("zl_timer", "cannot describe measurement", e)
    return ctx


def _benchmark_bases():
    """FlagGems' Benchmark class from benchmark/base.py, under any import name."""
    for name, mod in list(sys.modules.items()):
        if mod is None:
            continue
        if not (name == "benchmark.base" or name.endswith(".benchmark.base")):
            f = zc.module_file(mod) if name == "base" else None
            if not (f and f.replace("\\", "/").endswith("benchmark/base.py")):
                continue
        cls = mod.__dict__.get("Benchmark")
        if isinstance(cls, type) and "get_latency" in cls.__dict__:
            yield cls


def _called_by_tuner():
    """True when an autotuner is benchmarking configs (Autotuner._bench on the
    stack): those calls are tuning, not measurements."""
    f = sys._getframe(2)
    depth = 0
    while f is not None and depth < 64:
        if f.f_code.co_name in ("_bench", "benchmark_config"):
            owner = f.f_locals.get("self")
            if owner is not None and any(c.__name__ == "Autotuner" for c in type(owner).__mro__):
                return True
        f = f.f_back
        depth += 1
    return False


# ---------------------------------------------------------------------------
# hooks


def pytest_configure(config):
    global _state
    profiler = config.pluginmanager.get_plugin(PROFILER_PLUGIN)
    graph = config.pluginmanager.get_plugin(GRAPH_PLUGIN)
    try:
        plan, missing = resolve_plan(zc.env_str("ZL_TIMER_PLAN"), profiler is not None,
                                     graph is not None)
        repeat = zc.env_int("ZL_DIRECT_REPEAT", 1, 1)
        noise = zc.env_float("ZL_NOISE_TARGET", DEFAULT_NOISE_TARGET, above=0, below=1)
        max_time = zc.env_float("ZL_MAX_TIME_PER_SHAPE", DEFAULT_MAX_TIME_PER_SHAPE, above=0)
        pinned = zc.env_choice("ZL_NOISE_TARGET_PINNED", ("0", "1"), "0") == "1"
    except zc.ConfigError as e:
        raise pytest.UsageError(str(e)) from None
    _state = _Timer(plan, repeat, missing, profiler, graph, noise, max_time,
                    zc.env_str("ZL_CLOCK_SOURCE"), pinned)
    _state.install()
    zc.unwind_on_sigterm()


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session):
    t0 = time.monotonic()
    yield
    if _state is not None:
        _state.cost["collection_s"] = time.monotonic() - t0


def pytest_collection_finish(session):
    if _state is not None:
        _state.install()
        if _state.gc_frozen is None:
            _state.gc_frozen = freeze_heap()


def pytest_runtest_logstart(nodeid, location):
    # Before the test's setup: hook what its module imported, name its records.
    if _state is not None:
        _state.node = nodeid
        _state.install()


def pytest_runtest_logfinish(nodeid, location):
    if _state is not None:
        _state.node = None


def pytest_sessionfinish(session, exitstatus):
    if _state is not None:
        _state.t_finish = time.monotonic()
        thaw_heap()
        _state.write()
        _state.finished = True


def pytest_unconfigure(config):
    global _state
    if _state is None:
        return
    if not _state.finished:
        thaw_heap()
        _state.write()
    _state.uninstall()
    _state.release()
    _state = None
    zc.restore_sigterm()
