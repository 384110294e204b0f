"""zl_timer and zl_graph_timer: plans, direct repeats, graph flush subtraction, the fallback
chain and the timer.jsonl fields every timer fills."""
import json

import pytest

import zl_timer
from conftest import backend_env

# Fake costs (tests/plugins/fakes): baseline "torch_add" costs n * 2e-6 ms, the
# FlagGems add kernel n * 1e-6 ms at its best BLOCK, a flush FAKE_FLUSH_MS.
N = 4096
TORCH_ADD_MS = N * 2e-6
GEMS_ADD_MS = N * 1e-6
ONE_SHAPE = {"BENCH_SHAPES": str(N)}


def by_side(records):
    return {r["side"]: r for r in records}


# --- pure logic ---------------------------------------------------------------

def test_plan_is_the_best_loaded_timer_when_unset():
    assert zl_timer.resolve_plan(None, True, True) == ("profiler", None)
    assert zl_timer.resolve_plan(None, False, True) == ("graph", None)
    assert zl_timer.resolve_plan(None, False, False) == ("direct", None)
    assert zl_timer.resolve_plan("direct", True, True) == ("direct", None)
    plan, reason = zl_timer.resolve_plan("graph", True, False)
    assert plan == "graph" and "zl_graph_timer" in reason
    plan, reason = zl_timer.resolve_plan("profiler", False, True)
    assert plan == "profiler" and reason == \
        "profiler plan but the zl_profiler_timer plugin is not loaded"
    with pytest.raises(Exception, match="ZL_TIMER_PLAN must be one of profiler, graph, direct"):
        zl_timer.resolve_plan("fast", True, True)


def test_side_of_a_measurement():
    torch_op, gems_op = object(), object()
    assert zl_timer.measurement_side(torch_op, torch_op, None, False) == "torch"
    assert zl_timer.measurement_side(torch_op, torch_op, None, True) == "gems"
    assert zl_timer.measurement_side(gems_op, torch_op, gems_op, False) == "gems"
    assert zl_timer.measurement_side(torch_op, torch_op, gems_op, False) == "torch"
    assert zl_timer.measurement_side(object(), torch_op, gems_op, False) is None


def test_caller_result_gives_the_estimate_for_median_and_do_bench_modes_else():
    samples = [1.0, 2.0, 3.0, 10.0]
    # FlagGems asks for the median: it gets the measurement's estimate_ms.
    assert zl_timer.caller_result(samples, 2.25, "median", None) == 2.25
    assert zl_timer.caller_result(samples, 2.25, "min", None) == 1.0
    assert zl_timer.caller_result(samples, 2.25, "max", None) == 10.0
    assert zl_timer.caller_result(samples, 2.25, "mean", None) == 4.0
    assert zl_timer.caller_result(samples, 2.25, "all", None) == samples
    assert zl_timer.caller_result(samples, 2.25, "mean", [0.5]) == 2.5
    assert zl_timer.caller_result(samples, 2.25, "mean", [0.0, 1.0]) == [1.0, 10.0]


def test_fixed_estimate_is_the_median_of_repeats_or_samples():
    samples = [1.0, 2.0, 3.0, 10.0]
    est, name, noise = zl_timer.fixed_estimate(samples, [2.0, 2.0, 8.0])
    assert (est, name) == (2.0, "median")
    # n <= 10: the interval of the median is the range: (10 - 1) / 2 / 2
    assert noise == pytest.approx(2.25)
    assert zl_timer.fixed_estimate(samples, None)[0] == 2.5
    assert zl_timer.fixed_estimate([4.0], None)[2] is None


def test_summary_counts_timers_fallbacks_stops_and_clocks():
    recs = [{"timer": "profiler", "fallback_reason": None, "error": None,
             "stop_reason": "noise_target", "dropped_throttled": 3},
            {"timer": "graph", "fallback_reason": "r1", "error": None, "stop_reason": "fixed"},
            {"timer": "direct", "fallback_reason": "r1; r2", "error": None, "stop_reason": "fixed"},
            {"timer": "direct", "fallback_reason": "r1; r2", "error": None, "stop_reason": "fixed"},
            {"timer": "graph", "fallback_reason": None, "error": "boom", "stop_reason": "error",
             "dropped_throttled": 0}]
    s = zl_timer.summarize_records("profiler", 2, recs, 0.004, 0.5, "nvml",
                                   [1980, 1800, 1965], 1980)
    assert (s["plan"], s["used"], s["profiler"], s["graph"], s["direct"], s["fallbacks"],
            s["errors"], s["measurements"]) == ("profiler", "mixed", 1, 1, 2, 3, 1, 5)
    assert s["fallback_reasons"] == ["r1", "r1; r2"]
    assert s["stop_reasons"] == {"noise_target": 1, "fixed": 3, "error": 1}
    assert (s["noise_target"], s["max_time_per_shape_s"], s["dropped_throttled"]) == (0.004, 0.5, 3)
    assert s["clock_mhz"] == {"min": 1800.0, "median": 1965.0, "max": 1980.0,
                              "max_supported": 1980}
    assert s["clock_source"] == "nvml"
    empty = zl_timer.summarize_records("direct", 1, [])
    assert empty["used"] is None and empty["clock_mhz"] is None and empty["stop_reasons"] == {}
    only = zl_timer.summarize_records("profiler", 1, recs[:1])
    assert only["used"] == "profiler"


# --- through pytest ----------------------------------------------------------

def test_graph_plan_subtracts_the_flush(bench):
    r = bench.run(["benchmark/test_ops.py::test_add"],
                  backend_env("cuda", ZL_TIMER_PLAN="graph", FAKE_FLUSH_MS="0.5", **ONE_SHAPE))
    assert r.rc == 0, r
    recs = by_side(r.jsonl("plugins", "timer.jsonl"))
    assert set(recs) == {"torch", "gems"}
    t, g = recs["torch"], recs["gems"]
    assert t["timer"] == g["timer"] == "graph"
    assert t["median_ms"] == pytest.approx(TORCH_ADD_MS, rel=1e-6)
    assert g["median_ms"] == pytest.approx(GEMS_ADD_MS, rel=1e-6)
    assert t["flush_ms"] == pytest.approx(0.5)
    assert t["n_samples"] == 10 and t["graph_iterations"] >= 1
    assert (t["op"], t["dtype"], t["shape"]) == ("add", "torch.float16", [[N], [N]])
    # FlagGems got the graph figure, not a flushed one.
    res = json.load(open(r.path("results.json")))
    metric = res["add"]["details"][0]["result"][0]
    assert metric["latency_base"] == pytest.approx(TORCH_ADD_MS, rel=1e-6)
    s = r.json("plugins", "timer_summary.json")
    assert (s["plan"], s["used"], s["graph"], s["direct"], s["fallbacks"]) == \
        ("graph", "graph", 2, 0, 0)
    # The fixed timers fill the sample fields too: all 10 replays, their median.
    assert t["samples_ms"] == pytest.approx([TORCH_ADD_MS] * 10, rel=1e-6)
    assert (t["samples_total"], t["samples_stored"], t["samples_stride"]) == (10, "all", None)
    assert t["estimate_ms"] == pytest.approx(TORCH_ADD_MS, rel=1e-6)
    assert (t["estimator"], t["stop_reason"], t["kernels_per_call"]) == ("median", "fixed", None)
    assert t["noise_rel"] == pytest.approx(0.0, abs=1e-9)
    assert (t["clock_source"], t["dropped_throttled"]) == ("nvml", 0)
    assert t["clock_mhz"] == {"min": 1980.0, "median": 1980.0, "max": 1980.0,
                              "max_supported": 1980.0}


def test_direct_plan_repeats_do_bench_and_returns_the_median(bench, tmp_path):
    log = tmp_path / "bench.log"
    # The three do_bench calls of the baseline are scaled x1, x1, x4: their median
    # (x1) is not their mean (x2), so a mean would show.
    r = bench.run(["benchmark/test_ops.py::test_add"],
                  backend_env("musa", ZL_DIRECT_REPEAT=3, FAKE_BENCH_SCALES="1,1,4",
                              FAKE_LOG=str(log), **ONE_SHAPE))
    assert r.rc == 0, r
    t = by_side(r.jsonl("plugins", "timer.jsonl"))["torch"]
    assert t["timer"] == "direct" and t["repeat"] == 3 and t["fallback_reason"] is None
    assert t["repeat_values_ms"] == pytest.approx([TORCH_ADD_MS, TORCH_ADD_MS,
                                                   4 * TORCH_ADD_MS], rel=1e-6)
    assert t["value_ms"] == pytest.approx(TORCH_ADD_MS, rel=1e-6)
    assert t["min_ms"] == pytest.approx(TORCH_ADD_MS, rel=1e-6)
    assert t["max_ms"] == pytest.approx(4 * TORCH_ADD_MS, rel=1e-6)
    assert t["iqr_ms"] > 0 and t["sample_kind"] == "iteration"
    assert t["estimate_ms"] == t["value_ms"] and t["stop_reason"] == "fixed"
    assert t["samples_total"] == t["n_samples"] == len(t["samples_ms"])
    assert t["clock_source"] == "unknown: the backend has no clock source (ZL_CLOCK_SOURCE=none)"
    assert t["clock_mhz"] is None
    res = json.load(open(r.path("results.json")))
    assert res["add"]["details"][0]["result"][0]["latency_base"] == \
        pytest.approx(TORCH_ADD_MS, rel=1e-6)
    measuring = [ln for ln in log.read_text().splitlines()
                 if ln.startswith("do_bench") and '"quantiles": null' in ln]
    assert len(measuring) == 6          # 2 measurements x 3 repeats
    assert all('"return_mode": "all"' in ln for ln in measuring)
    s = r.json("plugins", "timer_summary.json")
    assert (s["plan"], s["used"], s["direct"], s["direct_repeat"]) == ("direct", "direct", 2, 3)


@pytest.mark.parametrize("variant", ["3.1", "no-all"])
def test_direct_plan_on_a_do_bench_without_all_takes_one_sample_per_call(bench, tmp_path,
                                                                         variant):
    # Triton <= 3.1 asserts return_mode in min/max/mean/median: asking for "all" would fail
    # every measurement. 3.1 is told by its signature (fast_flush); a do_bench that only
    # refuses "all" at the call is asked once and then no more.
    log = tmp_path / "bench.log"
    r = bench.run(["benchmark/test_ops.py::test_add", "benchmark/test_ops.py::test_copy"],
                  backend_env("rocm", ZL_TIMER_PLAN="direct", ZL_DIRECT_REPEAT=3,
                              FAKE_DO_BENCH=variant,
                              FAKE_BENCH_SCALES="1,1,4", FAKE_LOG=str(log), **ONE_SHAPE))
    assert r.rc == 0, r
    recs = r.jsonl("plugins", "timer.jsonl")
    assert len(recs) == 4 and all(x["error"] is None for x in recs)
    assert {(x["timer"], x["sample_kind"], x["n_samples"]) for x in recs} == \
        {("direct", "repeat", 3)}
    t = by_side(recs[:2])["torch"]
    assert t["repeat_values_ms"] == pytest.approx([TORCH_ADD_MS, TORCH_ADD_MS,
                                                   4 * TORCH_ADD_MS], rel=1e-6)
    assert t["value_ms"] == pytest.approx(TORCH_ADD_MS, rel=1e-6)
    res = json.load(open(r.path("results.json")))
    assert res["add"]["details"][0]["result"][0]["latency_base"] == \
        pytest.approx(TORCH_ADD_MS, rel=1e-6)
    lines = log.read_text().splitlines()
    measuring = [ln for ln in lines if ln.startswith("do_bench {") and '"quantiles": null' in ln]
    assert len(measuring) == 12         # 4 measurements x 3 repeats, FlagGems' own mode
    assert all('"return_mode": "median"' in ln for ln in measuring)
    refused = [ln for ln in lines if ln.startswith("do_bench refused")]
    assert len(refused) == (0 if variant == "3.1" else 1)


def test_timer_modules_are_inert_with_direct_plan(bench):
    r = bench.run(["benchmark/test_ops.py::test_add"],
                  backend_env("cuda", ZL_TIMER_PLAN="direct", **ONE_SHAPE))
    assert r.rc == 0, r
    s = r.json("plugins", "timer_summary.json")
    assert (s["plan"], s["used"], s["profiler"], s["graph"], s["direct"]) == \
        ("direct", "direct", 0, 0, 2)


def test_graph_plan_without_the_graph_module_falls_back_and_says_why(bench):
    plugins = ("zl_timer", "zl_vendor_guard")
    r = bench.run(["benchmark/test_ops.py::test_add"],
                  backend_env("cuda", ZL_TIMER_PLAN="graph", **ONE_SHAPE), plugins=plugins)
    assert r.rc == 0, r
    s = r.json("plugins", "timer_summary.json")
    assert (s["used"], s["fallbacks"]) == ("direct", 2)
    assert s["fallback_reasons"] == ["graph plan but the zl_graph_timer plugin is not loaded"]


def test_capture_failure_falls_back_to_direct_for_that_shape_only(bench):
    r = bench.run(["benchmark/test_ops.py::test_nonzero"],
                  backend_env("cuda", ZL_TIMER_PLAN="graph", **ONE_SHAPE))
    assert r.rc == 0, r
    recs = by_side(r.jsonl("plugins", "timer.jsonl"))
    assert recs["torch"]["timer"] == "graph" and recs["torch"]["fallback_reason"] is None
    g = recs["gems"]
    assert g["timer"] == "direct"
    # The root error, not the capture_end error that follows it.
    assert g["fallback_reason"] == ("graph capture failed: CUDA error: operation not permitted "
                                    "when stream is capturing")
    assert g["n_samples"] > 0 and g["median_ms"] > 0
    s = r.json("plugins", "timer_summary.json")
    assert (s["used"], s["graph"], s["direct"], s["fallbacks"]) == ("mixed", 1, 1, 1)
    assert s["fallback_reasons"] == [g["fallback_reason"]]


def test_capture_failure_leaves_the_device_usable(bench):
    # After a failed capture torch's RNG stays in capture mode unless reset; the
    # next benchmark's torch.randn would fail.
    r = bench.run(["benchmark/test_ops.py::test_nonzero", "benchmark/test_ops.py::test_add"],
                  backend_env("cuda", ZL_TIMER_PLAN="graph", **ONE_SHAPE))
    assert r.rc == 0, r
    s = r.json("plugins", "timer_summary.json")
    assert (s["graph"], s["fallbacks"]) == (3, 1)


def test_device_without_graph_api_falls_back(bench):
    r = bench.run(["benchmark/test_ops.py::test_add"],
                  backend_env("cuda", ZL_TIMER_PLAN="graph", FAKE_NO_GRAPH=1, **ONE_SHAPE))
    assert r.rc == 0, r
    s = r.json("plugins", "timer_summary.json")
    assert s["used"] == "direct" and s["fallbacks"] == 2
    assert "has no graph capture API" in s["fallback_reasons"][0]


def test_records_name_op_side_dtype_and_shape_through_subclasses(bench):
    r = bench.run(["benchmark/test_ops.py::test_copy"],
                  backend_env("musa", BENCH_SHAPES="64x32,128"))
    assert r.rc == 0, r
    recs = r.jsonl("plugins", "timer.jsonl")
    assert [(x["op"], x["side"], x["shape"]) for x in recs] == [
        ("copy", "torch", [[64, 32], [64, 32]]), ("copy", "gems", [[64, 32], [64, 32]]),
        ("copy", "torch", [[128], [128]]), ("copy", "gems", [[128], [128]])]
    assert {x["node"] for x in recs} == {"benchmark/test_ops.py::test_copy"}
    assert [x["seq"] for x in recs] == [0, 1, 2, 3]


def test_ascend_hooks_do_bench_npu(bench, tmp_path):
    log = tmp_path / "bench.log"
    r = bench.run(["benchmark/test_ops.py::test_add"],
                  backend_env("ascend", ZL_DIRECT_REPEAT=2, FAKE_LOG=str(log), **ONE_SHAPE))
    assert r.rc == 0, r
    t = by_side(r.jsonl("plugins", "timer.jsonl"))["torch"]
    assert t["bench_fn"] == "triton.backends.ascend.testing.do_bench_npu"
    assert (t["timer"], t["sample_kind"], t["n_samples"]) == ("direct", "repeat", 2)
    assert t["median_ms"] == pytest.approx(TORCH_ADD_MS, rel=1e-6)
    assert log.read_text().count("do_bench_npu") == 4


GENERIC_TEST = """
import torch, triton, flag_gems

def test_plain_do_bench():
    x = torch.empty(1000)
    ms = triton.testing.do_bench(lambda: flag_gems.copy(x), quantiles=[0.5, 0.2, 0.8])
    assert len(ms) == 3

def test_tuning_outside_a_measurement_is_not_recorded():
    x = torch.empty(2048)
    flag_gems.mul(x, x)   # the autotuner benchmarks its configs through do_bench
"""


def test_without_benchmark_base_do_bench_itself_is_hooked(runner, tmp_path):
    log = tmp_path / "bench.log"
    runner.write("test_generic.py", GENERIC_TEST)
    r = runner.run(["test_generic.py"], backend_env("musa", FAKE_LOG=str(log)),
                   bench_opts=False)
    assert r.rc == 0, r
    recs = r.jsonl("plugins", "timer.jsonl")
    assert len(recs) == 1
    rec = recs[0]
    assert rec["node"] == "test_generic.py::test_plain_do_bench"
    assert (rec["op"], rec["side"], rec["shape"]) == (None, None, None)
    assert rec["median_ms"] == pytest.approx(1000 * 1e-6, rel=1e-6)
    assert len(rec["value_ms"]) == 3
    # the three tuning calls of mul_kernel went straight to do_bench
    assert log.read_text().count("tune mul_kernel") == 3


GC_TEST = """
import gc, json, os, weakref

class Node:
    pass

def test_the_heap_is_frozen_and_what_a_test_makes_is_collected():
    a, b = Node(), Node()
    a.other, b.other = b, a          # a cycle: only the collector frees it
    gone = weakref.ref(a)
    del a, b
    frozen = gc.get_freeze_count()
    gc.collect()                     # what FlagGems' loop does after every shape
    with open(os.environ["GC_OUT"], "w") as f:
        json.dump({"frozen": frozen, "collected": gone() is None}, f)
"""


def test_objects_alive_after_collection_are_frozen_for_the_session(runner, tmp_path):
    # FlagGems' benchmark loop runs gc.collect() after every shape; frozen, the session's
    # long-lived heap is not walked again, and what a test makes is still collected
    out = tmp_path / "gc.json"
    runner.write("test_gc.py", GC_TEST)
    r = runner.run(["test_gc.py", "-p", "no:cacheprovider"],
                   backend_env("musa", GC_OUT=str(out)), bench_opts=False)
    assert r.rc == 0, r
    got = json.loads(out.read_text())
    assert got["collected"] is True
    assert got["frozen"] > 1000, got        # pytest, the plugins, the fakes
    summary = r.json("plugins", "timer_summary.json")
    # objects frozen at the end of collection, less those freed since (a count, not a set)
    assert summary["gc_frozen"] >= got["frozen"]


def test_the_heap_is_thawed_when_the_session_ends():
    import gc
    import zl_timer
    before = gc.get_freeze_count()
    assert zl_timer.freeze_heap() >= before
    zl_timer.thaw_heap()
    assert gc.get_freeze_count() == 0


def test_invalid_plan_is_a_usage_error(bench):
    r = bench.run(["benchmark/test_ops.py::test_add"],
                  backend_env("cuda", ZL_TIMER_PLAN="fast"))
    assert r.rc == 4, r
    assert "ZL_TIMER_PLAN must be one of profiler, graph, direct, not 'fast'" in r.err


def test_without_run_dir_nothing_is_written(bench):
    r = bench.run(["benchmark/test_ops.py::test_add"], backend_env("cuda", **ONE_SHAPE),
                  run_dir=False)
    assert r.rc == 0, r
    leftovers = [p.name for p in bench.tree.rglob("*")
                 if p.name in ("plugins", "timer.jsonl", "autotune_records")]
    assert leftovers == []
