"""The profiler timer through pytest with the fakes: samples from device timestamps, the
stop reasons, throttled batches, the fallback chain and the timer.jsonl fields."""
import json

import pytest

from conftest import backend_env

N = 4096
TORCH_ADD_MS = N * 2e-6
GEMS_ADD_MS = N * 1e-6
MEMSET_MS = 1e-4
GEMM_MS = N * 4e-6
ONE_SHAPE = {"BENCH_SHAPES": str(N)}
ADD = "benchmark/test_ops.py::test_add"

CONTRACT_FIELDS = (
    "seq", "node", "op", "dtype", "shape", "side", "bench_fn", "plan", "timer",
    "fallback_reason", "sample_kind", "repeat", "n_samples", "median_ms", "min_ms", "max_ms",
    "q1_ms", "q3_ms", "iqr_ms", "value_ms", "error", "wall_s", "samples_ms", "samples_total",
    "samples_stored", "samples_stride", "estimate_ms", "estimator", "noise_rel", "noise_target",
    "stop_reason", "kernels_per_call", "dropped_throttled", "clock_mhz", "clock_source")


def by_side(records):
    return {r["side"]: r for r in records}


def results_latency(r, op="add"):
    res = json.load(open(r.path("results.json")))
    m = res[op]["details"][0]["result"][0]
    return m["latency_base"], m["latency"]


def test_profiler_times_each_call_from_its_device_activity(bench):
    r = bench.run([ADD], backend_env("cuda", **ONE_SHAPE))
    assert r.rc == 0, r
    recs = r.jsonl("plugins", "timer.jsonl")
    for rec in recs:
        assert set(CONTRACT_FIELDS) <= set(rec), set(CONTRACT_FIELDS) - set(rec)
    t, g = by_side(recs)["torch"], by_side(recs)["gems"]
    assert (t["plan"], t["timer"], t["fallback_reason"], t["sample_kind"]) == \
        ("profiler", "profiler", None, "profiled_call")
    assert t["estimate_ms"] == pytest.approx(TORCH_ADD_MS, rel=1e-6)
    assert g["estimate_ms"] == pytest.approx(GEMS_ADD_MS, rel=1e-6)
    assert (t["estimator"], t["stop_reason"], t["kernels_per_call"]) == \
        ("trimmed_mean_0.1", "noise_target", 1)
    assert t["noise_rel"] == pytest.approx(0.0, abs=1e-12) and t["noise_target"] == 0.005
    # every kept sample is stored, in order, and counted
    assert t["samples_total"] == t["n_samples"] == len(t["samples_ms"]) >= 10
    assert (t["samples_stored"], t["samples_stride"]) == ("all", None)
    assert t["samples_ms"] == pytest.approx([TORCH_ADD_MS] * t["samples_total"], rel=1e-6)
    assert t["profiler_calls"] == t["samples_total"] and t["calls_missing"] == 0
    assert (t["clock_source"], t["dropped_throttled"]) == ("nvml", 0)
    assert t["clock_mhz"]["min"] == 1980.0 and t["clock_mhz"]["max_supported"] == 1980.0
    # FlagGems stores the estimate
    assert results_latency(r) == (t["estimate_ms"], g["estimate_ms"]) == (t["value_ms"],
                                                                         g["value_ms"])
    s = r.json("plugins", "timer_summary.json")
    assert (s["plan"], s["used"], s["profiler"], s["graph"], s["direct"], s["fallbacks"]) == \
        ("profiler", "profiler", 2, 0, 0, 0)
    assert s["stop_reasons"] == {"noise_target": 2}
    assert (s["noise_target"], s["max_time_per_shape_s"], s["clock_source"]) == \
        (0.005, 0.3, "nvml")
    assert s["clock_mhz"]["median"] == 1980.0 and s["dropped_throttled"] == 0


def test_a_memset_beside_the_gemm_is_part_of_the_call(bench):
    # torch's side launches a memset and a GEMM under aten::mm; FlagGems' launches two
    # Triton kernels with no torch op around them. Every one counts, none by its name.
    r = bench.run(["benchmark/test_ops.py::test_mm"], backend_env("cuda", **ONE_SHAPE))
    assert r.rc == 0, r
    t, g = by_side(r.jsonl("plugins", "timer.jsonl"))["torch"], \
        by_side(r.jsonl("plugins", "timer.jsonl"))["gems"]
    assert t["kernels_per_call"] == 2 and g["kernels_per_call"] == 2
    assert t["estimate_ms"] == pytest.approx(MEMSET_MS + GEMM_MS, rel=1e-6)
    assert g["estimate_ms"] == pytest.approx(GEMS_ADD_MS + 2 * GEMS_ADD_MS, rel=1e-6)


def test_noisy_quantized_kernels_sample_to_the_noise_target(bench):
    # torch's add (8.2 us) to the target as given, FlagGems' (4.1 us) to its class's +-2 %
    r = bench.run([ADD], backend_env("cuda", FAKE_NOISE="0.1", FAKE_QUANT_NS="32", **ONE_SHAPE))
    assert r.rc == 0, r
    for rec in r.jsonl("plugins", "timer.jsonl"):
        want = 0.005 if rec["side"] == "torch" else 0.02
        assert rec["noise_target_used"] == want and rec["noise_target"] == 0.005, rec
        assert rec["stop_reason"] == "noise_target" and 0 < rec["noise_rel"] <= want
        assert len(set(rec["samples_ms"])) > 10
        # the fake's noise is uniform and symmetric: the estimate sits on the true cost
        true = TORCH_ADD_MS if rec["side"] == "torch" else GEMS_ADD_MS
        assert rec["estimate_ms"] == pytest.approx(true, rel=0.01)


def test_a_pinned_target_applies_to_every_size_class(bench):
    # the user set --noise-target (zlbench pins it): FlagGems' 4.1 us add is sampled to it too
    r = bench.run([ADD], backend_env("cuda", FAKE_NOISE="0.1", FAKE_QUANT_NS="32",
                                     ZL_NOISE_TARGET="0.005", ZL_NOISE_TARGET_PINNED="1",
                                     **ONE_SHAPE))
    assert r.rc == 0, r
    for rec in r.jsonl("plugins", "timer.jsonl"):
        assert rec["noise_target_used"] == 0.005 and rec["noise_rel"] <= 0.005, rec
    assert r.json("plugins", "timer_summary.json")["noise_target_pinned"] is True


def test_time_cap_ends_a_measurement_that_cannot_reach_its_target(bench):
    r = bench.run([ADD], backend_env("cuda", FAKE_NOISE="0.5", ZL_NOISE_TARGET="0.0001",
                                     ZL_NOISE_TARGET_PINNED="1",
                                     ZL_MAX_TIME_PER_SHAPE="0.05", **ONE_SHAPE))
    assert r.rc == 0, r
    for rec in r.jsonl("plugins", "timer.jsonl"):
        assert rec["stop_reason"] == "time_cap" and rec["noise_rel"] > 0.0001
        assert rec["noise_target"] == 0.0001
        assert rec["wall_s"] < 0.05 + 1.0        # the cap, plus warm-up and the first calls


def test_drift_between_sessions_never_mixes_levels_into_a_steady_estimate(bench):
    # every profiler session 10 % slower than the one before: the older levels are either cut
    # as a transient (the estimate is the latest level) or the series is not steady; the noise
    # rule never stops on a mix of them. (Which of the two depends on how the windows, sized
    # by wall time, split the levels.)
    # (a cap that 10,000 samples, max_samples, cannot outlast on any host: the fake's calls
    # cost 20-60 us of wall)
    r = bench.run([ADD], backend_env("cuda", FAKE_NOISE="0.1", FAKE_DRIFT="0.1",
                                     ZL_NOISE_TARGET="0.001", ZL_NOISE_TARGET_PINNED="1",
                                     ZL_MAX_TIME_PER_SHAPE="0.15", **ONE_SHAPE))
    assert r.rc == 0, r
    for rec in r.jsonl("plugins", "timer.jsonl"):
        assert rec["stop_reason"] in ("time_cap", "noise_plateau"), rec
        assert rec["profiler_batches"] >= 3, rec
        assert rec["steady"] is False or rec["transient_cut"] > 0, rec


def test_max_samples_ends_a_measurement_with_time_to_spare(bench):
    r = bench.run([ADD], backend_env("cuda", FAKE_NOISE="0.3", ZL_NOISE_TARGET="0.0001",
                                     ZL_NOISE_TARGET_PINNED="1",
                                     ZL_MAX_TIME_PER_SHAPE="60", **ONE_SHAPE))
    assert r.rc == 0, r
    for rec in r.jsonl("plugins", "timer.jsonl"):
        assert rec["stop_reason"] == "max_samples" and rec["samples_total"] == 10000


def test_many_samples_are_stored_as_an_unbiased_subset(bench):
    r = bench.run([ADD], backend_env("cuda", FAKE_NOISE="0.3", ZL_NOISE_TARGET="0.001",
                                     ZL_NOISE_TARGET_PINNED="1",
                                     ZL_MAX_TIME_PER_SHAPE="2", **ONE_SHAPE))
    assert r.rc == 0, r
    t = by_side(r.jsonl("plugins", "timer.jsonl"))["torch"]
    assert t["samples_total"] > 2000 and t["n_samples"] == t["samples_total"]
    k = t["samples_stride"]
    assert t["samples_stored"] == "subset" and k == -(-t["samples_total"] // 2000)
    assert len(t["samples_ms"]) in (t["samples_total"] // k, t["samples_total"] // k + 1)


def test_an_error_of_the_op_is_the_measurements_error(bench):
    r = bench.run(["benchmark/test_ops.py::test_broken"], backend_env("cuda", **ONE_SHAPE))
    assert r.rc == 1, r
    g = by_side(r.jsonl("plugins", "timer.jsonl"))["gems"]
    assert (g["timer"], g["stop_reason"], g["error"]) == \
        ("profiler", "error", "the op under test is broken")
    assert (g["samples_ms"], g["samples_total"], g["estimate_ms"], g["noise_rel"]) == \
        ([], 0, None, None)
    assert g["fallback_reason"] is None
    # the failed first call is the record's first_call_s, not timer time (wave 5's timeouts
    # counted minutes of compiling as the timer's)
    assert set(g["cost"]) == {"first_call_s"} and g["first_call_s"] == g["cost"]["first_call_s"]
    assert g["timer_s"] == pytest.approx(g["wall_s"] - g["first_call_s"], abs=2e-6), g
    s = r.json("plugins", "timer_summary.json")
    assert s["errors"] == 1 and s["stop_reasons"] == {"noise_target": 1, "error": 1}


def test_throttled_batches_are_dropped_and_counted(bench):
    # the SM clock reads 1980 three times, then 1000 three times: a window of two readings
    # is kept once in three, whatever the parity of the readings before it (the first
    # window, cut by time, reads the clock every 2 ms: a count that varies from run to run;
    # with a cycle of 1980, 1980, 1000, 1000 an odd count left every later window of two
    # readings straddling a throttled one)
    r = bench.run([ADD], backend_env("cuda", FAKE_SM_CLOCKS="1980,1980,1980,1000,1000,1000",
                                     FAKE_NOISE="0.2", ZL_NOISE_TARGET="0.002",
                                     **ONE_SHAPE))
    assert r.rc == 0, r
    recs = r.jsonl("plugins", "timer.jsonl")
    assert all(rec["timer"] == "profiler" for rec in recs), [r["fallback_reason"] for r in recs]
    assert sum(rec["dropped_throttled"] for rec in recs) > 0
    for rec in recs:
        if rec["dropped_throttled"]:
            assert rec["profiler_calls"] == rec["samples_total"] + rec["dropped_throttled"] + \
                rec["transient_cut"] + rec["calls_missing"]
            assert rec["clock_mhz"]["min"] == 1000.0 and rec["clock_mhz"]["max"] == 1980.0
    s = r.json("plugins", "timer_summary.json")
    assert s["dropped_throttled"] == sum(rec["dropped_throttled"] for rec in recs)


def test_a_device_throttled_throughout_hands_over_to_the_graph_timer(bench):
    r = bench.run([ADD], backend_env("cuda", FAKE_SM_CLOCKS="900", ZL_MAX_TIME_PER_SHAPE="0.05",
                                     **ONE_SHAPE))
    assert r.rc == 0, r
    for rec in r.jsonl("plugins", "timer.jsonl"):
        assert rec["timer"] == "graph"
        assert rec["fallback_reason"].startswith("every one of ")
        assert rec["fallback_reason"].endswith(
            " profiled samples was taken below 75 % of the maximum SM clock")


def test_without_cupti_the_graph_timer_takes_over(bench):
    r = bench.run([ADD], backend_env("cuda", FAKE_PROFILER="off", **ONE_SHAPE))
    assert r.rc == 0, r
    t = by_side(r.jsonl("plugins", "timer.jsonl"))["torch"]
    assert (t["plan"], t["timer"], t["stop_reason"]) == ("profiler", "graph", "fixed")
    assert t["fallback_reason"] == ("torch's profiler records no device activity in this build "
                                    "(Kineto without CUPTI or roctracer)")
    assert t["estimate_ms"] == pytest.approx(TORCH_ADD_MS, rel=1e-6)
    s = r.json("plugins", "timer_summary.json")
    assert (s["used"], s["graph"], s["fallbacks"]) == ("graph", 2, 2)


def test_the_chain_goes_on_to_direct_with_both_reasons(bench):
    # nonzero reads back to the host: the graph cannot capture it either
    r = bench.run(["benchmark/test_ops.py::test_nonzero"],
                  backend_env("cuda", FAKE_PROFILER="off", **ONE_SHAPE))
    assert r.rc == 0, r
    g = by_side(r.jsonl("plugins", "timer.jsonl"))["gems"]
    assert g["timer"] == "direct"
    assert g["fallback_reason"] == (
        "torch's profiler records no device activity in this build (Kineto without CUPTI or "
        "roctracer); graph capture failed: CUDA error: operation not permitted when stream is "
        "capturing")
    s = r.json("plugins", "timer_summary.json")
    assert (s["used"], s["graph"], s["direct"], s["fallbacks"]) == ("mixed", 1, 1, 2)


def test_no_graph_plugin_means_profiler_then_direct(bench):
    plugins = ("zl_timer", "zl_profiler_timer", "zl_vendor_guard")
    r = bench.run([ADD], backend_env("cuda", FAKE_PROFILER="off", **ONE_SHAPE), plugins=plugins)
    assert r.rc == 0, r
    t = by_side(r.jsonl("plugins", "timer.jsonl"))["torch"]
    assert t["timer"] == "direct" and t["fallback_reason"].startswith("torch's profiler records")


def test_a_session_without_device_activity_is_no_timing(bench):
    r = bench.run([ADD], backend_env("cuda", FAKE_PROFILER="nodevice", **ONE_SHAPE))
    assert r.rc == 0, r
    for t in r.jsonl("plugins", "timer.jsonl"):
        assert t["timer"] == "graph", t
        assert t["fallback_reason"].startswith("the profiler recorded no device activity for any of ")
        # the record says the profiler saw no kernel (compare names such rows)
        assert t["no_device_work"] is True, t


def test_after_no_device_work_the_graph_replays_a_tenth_of_the_time(bench):
    # FlagGems' own rep (100 ms) and warm-up: the graph of a call without a kernel replays
    # the flush and nothing, so it gets NO_WORK_REP_MS of it (wave 13: 0.28 s a row)
    import zl_timer
    iters = {}
    for mode in ("off", "nodevice"):
        r = bench.run([ADD, "--iter", "100", "--warmup", "25"],
                      backend_env("cuda", FAKE_PROFILER=mode, FAKE_FLUSH_MS="0.05", **ONE_SHAPE))
        assert r.rc == 0, r
        t = by_side(r.jsonl("plugins", "timer.jsonl"))["torch"]
        # no_device_work: the profiler saw no kernel (nodevice) or never ran its calls (off)
        assert t["timer"] == "graph" and t["no_device_work"] is {"off": None, "nodevice": True}[mode], t
        iters[mode] = t["graph_iterations"]
    assert zl_timer.NO_WORK_REP_MS == 10
    # per replay rep / 10 samples of a ~0.058 ms flushed call
    assert 150 <= iters["off"] <= 200 and iters["nodevice"] * 10 == pytest.approx(iters["off"], abs=10)


def test_no_device_work_is_false_when_the_profiler_timed_and_null_when_it_never_ran(bench):
    r = bench.run([ADD], backend_env("cuda", **ONE_SHAPE))
    assert r.rc == 0, r
    assert [t["no_device_work"] for t in r.jsonl("plugins", "timer.jsonl")] == [False, False]
    r = bench.run([ADD], backend_env("cuda", FAKE_PROFILER="off", **ONE_SHAPE))
    assert r.rc == 0, r
    for t in r.jsonl("plugins", "timer.jsonl"):
        # the profiler could not run its calls: unknown
        assert t["timer"] != "profiler" and t["no_device_work"] is None, t
    r = bench.run([ADD], backend_env("cuda", ZL_TIMER_PLAN="graph", **ONE_SHAPE))
    assert r.rc == 0, r
    assert [t["no_device_work"] for t in r.jsonl("plugins", "timer.jsonl")] == [None, None]


def test_launches_without_a_linked_op_are_placed_by_their_launch_time(bench):
    # No launch carries an op link (as for Triton kernels launched from Python): each is
    # placed in its call by the launch API call's own time, so the profiler still times
    # every call with its one kernel, and nothing is left to the graph timer.
    r = bench.run([ADD], backend_env("cuda", FAKE_PROFILER="nolink", **ONE_SHAPE))
    assert r.rc == 0, r
    for t in by_side(r.jsonl("plugins", "timer.jsonl")).values():
        assert t["timer"] == "profiler" and t["fallback_reason"] is None, t
        assert t["kernels_per_call"] == 1 and t["calls_missing"] == 0, t


MUL_BACKWARD = "benchmark/test_ops.py::test_mul_backward"


def test_a_backward_call_is_timed_from_the_kernels_the_autograd_engine_launches(bench):
    # FlagGems' backward marks time torch.autograd.grad(): the engine runs the node and
    # launches its kernel on its own thread, which has no call range; the node's op names
    # the caller as its forward thread, so the kernel is the call's (wave 17: before, every
    # backward call read as having no kernel and fell back)
    r = bench.run([MUL_BACKWARD], backend_env("cuda", **ONE_SHAPE))
    assert r.rc == 0, r
    recs = by_side(r.jsonl("plugins", "timer.jsonl"))
    for side, per_element in (("torch", 5e-6), ("gems", 4e-6)):
        t = recs[side]
        assert (t["timer"], t["fallback_reason"], t["no_device_work"]) == \
            ("profiler", None, False), t
        assert t["estimate_ms"] == pytest.approx(N * per_element, rel=1e-6), t
        assert (t["kernels_per_call"], t["kernels"], t["calls_missing"]) == \
            (1, ["mul_backward_kernel"], 0), t


def test_without_the_forward_thread_a_backward_call_falls_back_as_before(bench):
    r = bench.run([MUL_BACKWARD], backend_env("cuda", FAKE_PROFILER="nofwd", **ONE_SHAPE))
    assert r.rc == 0, r
    for t in r.jsonl("plugins", "timer.jsonl"):
        assert t["timer"] == "graph" and t["no_device_work"] is True, t
        assert t["fallback_reason"].startswith("the profiler recorded no device activity"), t


def test_profiler_plan_without_its_plugin_says_so(bench):
    plugins = ("zl_timer", "zl_graph_timer", "zl_vendor_guard")
    r = bench.run([ADD], backend_env("cuda", **ONE_SHAPE), plugins=plugins)
    assert r.rc == 0, r
    t = by_side(r.jsonl("plugins", "timer.jsonl"))["torch"]
    assert t["timer"] == "graph"
    assert t["fallback_reason"] == "profiler plan but the zl_profiler_timer plugin is not loaded"


def test_unknown_clocks_are_said_and_change_nothing(bench):
    r = bench.run([ADD], backend_env("cuda", FAKE_NVML="off", **ONE_SHAPE))
    assert r.rc == 0, r
    t = by_side(r.jsonl("plugins", "timer.jsonl"))["torch"]
    assert t["timer"] == "profiler" and t["clock_mhz"] is None and t["dropped_throttled"] == 0
    assert t["clock_source"].startswith("unknown: NVML did not answer: pynvml: ")
    s = r.json("plugins", "timer_summary.json")
    assert s["clock_mhz"] is None and s["clock_source"] == t["clock_source"]


@pytest.mark.parametrize("name,value,message", [
    ("ZL_NOISE_TARGET", "0", "ZL_NOISE_TARGET must be greater than 0 and below 1, not '0'"),
    ("ZL_NOISE_TARGET", "half", "ZL_NOISE_TARGET must be a number, not 'half'"),
    ("ZL_MAX_TIME_PER_SHAPE", "-1", "ZL_MAX_TIME_PER_SHAPE must be greater than 0, not '-1'"),
])
def test_bad_sampling_settings_are_usage_errors(bench, name, value, message):
    r = bench.run([ADD], backend_env("cuda", **{name: value}))
    assert r.rc == 4, r
    assert message in r.err


def test_a_hold_before_each_call_keeps_host_gaps_out_and_is_recorded(bench):
    # torch.cuda._sleep after the flush holds the device until the call is queued (as
    # nvbench's blocking kernel), for calls of several activities (mm: a memset and a GEMM on
    # torch's side, two Triton kernels on FlagGems'): the spin kernel is nobody's activity, the
    # samples stay the kernels' own, and timer.jsonl says how long the hold was and why.
    # No probe says so beforehand: the first measurement of each call site (op, side, bench
    # function) finds the several activities in its unheld first window, drops that window and
    # holds the rest (rehold 1); the next measurement of the site is held from its first call.
    # The host issues slower than the device runs (a 5 us gap before the second activity of
    # an unheld call).
    r = bench.run(["benchmark/test_ops.py::test_mm"],
                  backend_env("cuda", BENCH_SHAPES="%d,%d" % (N, N // 2),
                              FAKE_ISSUE_GAP_MS="0.005"))
    assert r.rc == 0, r
    recs = r.jsonl("plugins", "timer.jsonl")
    assert len(recs) == 4, recs
    for side in ("torch", "gems"):
        first, second = [t for t in recs if t["side"] == side]
        for t in (first, second):
            assert t["timer"] == "profiler" and t["kernels_per_call"] == 2, t
            assert 20 <= t["hold_us"] <= 2000, t
            assert t["hold_reason"] == "several activities per call", t
        assert (first["rehold"], second["rehold"]) == (1, 0), (first, second)
        for t in (first, second):
            # whether the hold covered the host's issue is recorded (which, depends on this
            # machine's load: the fake's calls are a few microseconds of Python)
            assert isinstance(t["host_bound"], bool), t
            assert (t["host_issue_us"] is None) == (t["host_bound"] is False), t
        # the dropped window's calls were made, and none of them is a sample
        assert first["profiler_calls"] > first["samples_total"] + first["transient_cut"], first
        assert second["profiler_calls"] == second["samples_total"] + second["transient_cut"]


def test_calls_of_several_activities_back_to_back_keep_their_unheld_window(bench):
    # Calls of several activities that the device ran back to back without a hold (long
    # kernels, queued long before the one before them ended: torch's atan of 2**30 float32 on
    # an H100, two 1.4 ms kernels) hold no host time: their first window counts, no hold is
    # spent on them or on the site's next measurement, and their samples are not host-bound.
    r = bench.run(["benchmark/test_ops.py::test_mm"],
                  backend_env("cuda", BENCH_SHAPES="%d,%d" % (N, N // 2)))
    assert r.rc == 0, r
    recs = r.jsonl("plugins", "timer.jsonl")
    assert len(recs) == 4, recs
    for t in recs:
        assert t["timer"] == "profiler" and t["kernels_per_call"] == 2, t
        assert (t["hold_us"], t["rehold"], t["host_bound"]) == (None, 0, False), t
        assert t["hold_reason"] == "several activities per call, back to back unheld", t
        assert t["profiler_calls"] == t["samples_total"] + t["transient_cut"], t
    # the same calls with a gap of 5 us before their second activity are held (above); with
    # a gap of 2 us, under the device's own step but 0.2 % of these 1 ms samples, too
    r = bench.run(["benchmark/test_ops.py::test_mm"],
                  backend_env("cuda", BENCH_SHAPES="%d,%d" % (N, N // 2),
                              FAKE_ISSUE_GAP_MS="0.002"))
    assert r.rc == 0, r
    for t in r.jsonl("plugins", "timer.jsonl"):
        assert t["hold_reason"] == "several activities per call" and t["hold_us"], t


def test_back_to_back_bounds_the_idle_time_absolutely_and_relatively():
    import zl_profiler_timer as pt

    def series(samples, busy, counts):
        s = pt.CallSeries()
        s.samples, s.busy, s.counts = samples, busy, counts
        return s
    # 2.8 ms calls of two kernels 1 us apart: kept
    assert pt.back_to_back(series([2.8, 2.8], [2.799, 2.799], [2, 2]))
    # one call of them with 4 us between its kernels (more than GAP_US a boundary)
    assert not pt.back_to_back(series([2.8, 2.8], [2.799, 2.796], [2, 2]))
    # ... but three boundaries may hold 9 us (8 here)
    assert pt.back_to_back(series([10.0], [9.992], [4]))
    # 5 us calls with 1 us of idle: within GAP_US, but 20 % of the sample
    assert not pt.back_to_back(series([0.005], [0.004], [2]))
    # a call of one activity says nothing; busy times unknown: not back to back
    assert pt.back_to_back(series([0.005, 2.8], [0.001, 2.8], [1, 2]))
    assert not pt.back_to_back(series([2.8], [], [2]))


def test_a_hold_learnt_from_the_last_measurement_is_not_kept_for_calls_of_one_kernel(monkeypatch):
    # The site's last measurement needed a hold; this one's calls run one activity: held (the
    # samples are right), said so, and the next measurement of the site is not held.
    import zl_profiler_timer as pt
    fake = _FakeMeasure(monkeypatch, [1, 2, 1, 1])
    out = fake.measure(("mm", "torch", "f"))
    assert (out["hold_reason"], out["rehold"], out["hold_us"]) == \
        ("one activity per call", 0, None), out
    out = fake.measure(("mm", "torch", "f"))
    assert (out["hold_reason"], out["rehold"]) == ("several activities per call", 1), out
    out = fake.measure(("mm", "torch", "f"))
    assert out["hold_reason"] == pt.HOLD_EARLIER and out["hold_us"] is not None, out
    assert out["rehold"] == 0, out
    out = fake.measure(("mm", "torch", "f"))
    assert (out["hold_reason"], out["hold_us"]) == ("one activity per call", None), out
    # another site learns nothing from this one
    assert fake.measure(("mm", "gems", "f"))["hold_us"] is None


def test_calls_of_one_kernel_are_not_held(bench):
    # A call of one kernel has no gap inside its sample for the host to open: the probe
    # finds one activity per call and no hold is spent on it.
    r = bench.run([ADD], backend_env("cuda", **ONE_SHAPE))
    assert r.rc == 0, r
    sides = by_side(r.jsonl("plugins", "timer.jsonl"))
    for side, cost in (("torch", TORCH_ADD_MS), ("gems", GEMS_ADD_MS)):
        t = sides[side]
        assert t["timer"] == "profiler" and t["kernels_per_call"] == 1, t
        assert t["estimate_ms"] == pytest.approx(cost, rel=1e-6), t
        assert (t["hold_us"], t["hold_reason"], t["rehold"]) == \
            (None, "one activity per call", 0), t


def test_a_window_that_finds_several_activities_unheld_is_dropped_and_held(monkeypatch):
    # The probe saw one kernel a call; a later window sees two (another variant, a memset):
    # that window's samples, taken without a hold, are dropped and the windows after it held.
    made = []

    class Held:
        seconds = 1e-3

        def fit(self, host):
            return False
    held = Held()

    def make_hold(host):
        made.append(list(host))
        return held
    sc = _Script(monkeypatch, [[1.0] * 20, [1.5] * 20, [1.5] * 20])
    sc.st.make_hold = make_hold
    counts = [[1] * 20, [2] * 20, [2] * 20]
    orig = pt_module()._profile_window

    def profile_window(*a, **k):
        w = orig(*a, **k)
        w.series.counts = counts.pop(0)
        return w
    monkeypatch.setattr(pt_module(), "_profile_window", profile_window)
    st = sc.run()
    assert st.hold is held and st.rehold == 1 and len(made) == 1, vars(st)
    assert st.series == [1.0] * 20 + [1.5] * 20, st.series


def pt_module():
    import zl_profiler_timer as pt
    return pt


def test_each_call_starts_from_an_idle_device(bench):
    # The fake makes a kernel slower while 4 or more launches queue ahead of it, as the
    # H200 made the gap inside a two-kernel call (flush, hold and the call itself are 3;
    # the host running ahead adds more). A wait before each call's flush keeps every
    # sample at the kernel's own cost; without it, calls after the first pay the gap.
    r = bench.run(["benchmark/test_ops.py::test_mm"],
                  backend_env("cuda", FAKE_QUEUE_GAP_MS="0.004", **ONE_SHAPE))
    assert r.rc == 0, r
    sides = by_side(r.jsonl("plugins", "timer.jsonl"))
    assert sides["torch"]["estimate_ms"] == pytest.approx(MEMSET_MS + GEMM_MS, rel=1e-6)
    assert sides["gems"]["estimate_ms"] == pytest.approx(3 * GEMS_ADD_MS, rel=1e-6)
    for t in sides.values():
        assert t["timer"] == "profiler" and t["synced_calls"] is True, t
        assert max(t["samples_ms"]) == pytest.approx(min(t["samples_ms"]), rel=1e-6), t
    s = r.json("plugins", "timer_summary.json")
    assert s["profiler_call_mode"] == "synced" and s["profiler_settle"] == "mser", s


def test_long_calls_are_timed_once_the_device_is_steady(bench):
    # Calls of 0.26 ms (torch) and 0.13 ms (gems) that start 30 % slow and settle over their
    # first 150 launches (the H200's power transient): the series' leading transient is cut,
    # what is left is steady, and the estimate is the settled cost.
    n = 131072
    r = bench.run([ADD], backend_env("cuda", FAKE_TRANSIENT="0.3:150", BENCH_SHAPES=str(n)))
    assert r.rc == 0, r
    sides = by_side(r.jsonl("plugins", "timer.jsonl"))
    for side, cost in (("torch", n * 2e-6), ("gems", n * 1e-6)):
        t = sides[side]
        assert t["timer"] == "profiler" and t["steady"] is True, t
        assert t["profiler_calls"] == t["samples_total"] + t["transient_cut"], t
        # the few ramp samples the cut may leave are what the trimmed mean is for
        assert t["estimate_ms"] == pytest.approx(cost, rel=5e-3), t
        assert t["median_ms"] == pytest.approx(cost, rel=1e-6), t
    # torch's kernel meets the profiled calls while still slow (FlagGems' autotuning has
    # launched its own past the transient)
    t, cost = sides["torch"], n * 2e-6
    assert t["transient_cut"] > 0 and len(t["transient_ms"]) == min(t["transient_cut"], 200), t
    assert t["transient_ms"][0] > cost * 1.1, t           # the cut part is the slow start
    # the whole series (the cut part is stored, then the kept samples) reads slow: the cut is
    # what makes the estimate right
    import zl_common as zc
    whole = zc.trimmed_mean(t["transient_ms"] + t["samples_ms"], 0.1)
    assert whole > cost * 1.01, (whole, cost)


def test_a_steady_series_loses_no_samples(bench):
    r = bench.run([ADD], backend_env("cuda", **ONE_SHAPE))
    assert r.rc == 0, r
    for t in r.jsonl("plugins", "timer.jsonl"):
        assert t["steady"] is True and t["transient_cut"] == 0 and t["transient_ms"] == [], t
        assert t["profiler_calls"] == t["samples_total"], t
        # short calls: the floor is min_samples
        assert t["least_samples"] == 10 and t["n_samples"] >= 10, t


def test_timer_records_the_kernels_each_call_ran(bench):
    r = bench.run(["benchmark/test_ops.py::test_mm"], backend_env("cuda", **ONE_SHAPE))
    assert r.rc == 0, r
    sides = by_side(r.jsonl("plugins", "timer.jsonl"))
    assert sides["torch"]["kernels"] == ["Memset (Device)", "sm90_xmma_gemm_f16f16"], sides["torch"]
    assert sides["torch"]["kernel_variants"] == 1
    assert len(sides["gems"]["kernels"]) == 2 and sides["gems"]["kernel_variants"] == 1


def test_the_measurements_cost_and_the_sessions_are_recorded(bench):
    r = bench.run([ADD], backend_env("cuda", **ONE_SHAPE))
    assert r.rc == 0, r
    recs = r.jsonl("plugins", "timer.jsonl")
    for t in recs:
        c = t["cost"]
        assert set(c) == {"first_call_s", "prep_s", "windows_s", "parse_s", "stop_s"}, c
        assert t["first_call_s"] == c["first_call_s"] >= 0 and c["windows_s"] > c["parse_s"] >= 0
        # of the stop and parse, torch's own stop comes first: a part of it
        assert 0 <= c["stop_s"] <= c["parse_s"], c
        assert t["timer_s"] == pytest.approx(t["wall_s"] - t["first_call_s"], abs=2e-6), t
        assert t["timer_s"] >= c["prep_s"] + c["windows_s"] - 1e-6, t
    s = r.json("plugins", "timer_summary.json")["cost"]
    assert set(s) == {"session_s", "collection_s", "inputs_s", "first_call_s", "timer_s",
                      "use_gems_s", "other_s"}
    assert s["timer_s"] == pytest.approx(sum(t["timer_s"] for t in recs), abs=1e-5)
    assert s["first_call_s"] == pytest.approx(sum(t["first_call_s"] for t in recs), abs=1e-5)
    assert s["collection_s"] > 0 and s["inputs_s"] >= 0 and s["other_s"] >= 0
    assert s["use_gems_s"] >= 0
    parts = (s["collection_s"] + s["inputs_s"] + s["first_call_s"] + s["timer_s"]
             + s["use_gems_s"] + s["other_s"])
    assert parts == pytest.approx(s["session_s"], abs=1e-5), s


def test_flaggems_registering_its_operators_is_a_part_of_its_own(bench):
    # the fake's use_gems takes 1 s to enter and as long to leave: FlagGems' registers about
    # a thousand operators with torch there, around every shape's gems measurement (the
    # seconds are long so that a loaded machine's own slowness cannot pass for them)
    r = bench.run([ADD], backend_env("cuda", FAKE_USE_GEMS_S="1", **ONE_SHAPE))
    assert r.rc == 0, r
    recs = r.jsonl("plugins", "timer.jsonl")
    entered = sum(1 for t in recs if t["side"] == "gems")
    assert entered >= 1
    s = r.json("plugins", "timer_summary.json")["cost"]
    assert entered * 2.0 <= s["use_gems_s"] < entered * 2.5, s
    # not in the timer's part nor in the rest: each second is counted once
    assert s["other_s"] < 1.0 and s["timer_s"] < 1.0, s
    parts = (s["collection_s"] + s["inputs_s"] + s["first_call_s"] + s["timer_s"]
             + s["use_gems_s"] + s["other_s"])
    assert parts == pytest.approx(s["session_s"], abs=1e-5), s


def test_use_gems_entered_inside_a_measurement_is_the_measurements(monkeypatch):
    import zl_timer

    class Registrar:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    t = zl_timer._Timer("profiler", 1)
    enter = t._use_gems_hook(Registrar.__enter__)
    t.local.active = True
    enter(Registrar())
    assert t.cost["use_gems_s"] == 0.0
    t.local.active = False
    monkeypatch.setattr(zl_timer.time, "monotonic", iter([1.0, 1.25]).__next__)
    enter(Registrar())
    assert t.cost["use_gems_s"] == pytest.approx(0.25)


def test_samples_that_hold_the_hosts_issue_time_are_marked_host_bound(monkeypatch):
    # A call of many launches whose host takes 3 ms to queue them outruns the hold, which stops
    # at 2 ms: its samples hold host time (on the H200 the torch side of mhc_bwd, 256 kernels a
    # call, read 4.2 ms in one sweep and 1.4 ms in the next). timer.jsonl says so.
    import zl_profiler_timer as pt
    out = _FakeMeasure(monkeypatch, [2], host_s=3e-3, idle=0.6, sample_ms=0.05).measure(
        ("mhc_bwd", "torch", "f"))
    assert out["hold_us"] == pt.HOLD_MAX_S * 1e6 and out["host_bound"] is True, out
    assert out["host_issue_us"] == pytest.approx(3000.0), out
    assert out["device_idle"] == pytest.approx(0.6), out
    # the host outran the hold but the device never idled inside a call (sign of 2**30
    # elements on the H200: two 1 ms kernels, the second queued long before the first ended)
    out = _FakeMeasure(monkeypatch, [2], host_s=3e-3, idle=0.01).measure(("sign", "torch", "f"))
    assert out["hold_us"] == pt.HOLD_MAX_S * 1e6, out
    assert (out["host_bound"], out["host_issue_us"]) == (False, None), out
    assert out["device_idle"] == pytest.approx(0.01), out
    # a fifth of a small held call idle, but no more than the device's own step from one kernel
    # to the next (FlagGems' mean of 1048576 on the H200: two kernels, 1.3 us between them)
    out = _FakeMeasure(monkeypatch, [2], host_s=3e-3, idle=0.2).measure(("mean", "torch", "f"))
    assert (out["host_bound"], out["host_issue_us"]) == (False, None), out
    # ... while the same fraction of a call of 2 us activities with 10 us gaps is the host's
    out = _FakeMeasure(monkeypatch, [3], host_s=3e-3, idle=0.6, sample_ms=0.05).measure(
        ("quantile", "gems", "f"))
    assert out["host_bound"] is True, out
    # a hold that covers the issue: not host-bound
    out = _FakeMeasure(monkeypatch, [2], host_s=1e-4).measure(("sum", "gems", "f"))
    assert out["hold_us"] > 100 and (out["host_bound"], out["host_issue_us"]) == (False, None)
    # one activity a call: no gap inside a sample, whatever the host takes
    out = _FakeMeasure(monkeypatch, [1], host_s=3e-3).measure(("abs", "gems", "f"))
    assert (out["host_bound"], out["host_issue_us"]) == (False, None), out
    # several activities and no spin kernel to hold them: unknown
    out = _FakeMeasure(monkeypatch, [2], host_s=3e-3, spin=False).measure(("mm", "torch", "f"))
    assert (out["hold_us"], out["host_bound"], out["hold_reason"]) == \
        (None, None, "no spin kernel"), out


def test_long_calls_at_a_steady_maximum_clock_stop_at_five_samples(monkeypatch):
    # 2**30 elements of atan on an H100: 1.4 ms samples, 1.5 ms of wall a call, the SM clock
    # at its 1980 MHz maximum throughout: one window of 5 calls (6 ms) meets the target
    fake = _FakeMeasure(monkeypatch, [1], sample_ms=1.4, call_s=1.5e-3)
    out = fake.measure(("atan", "torch", "f"))
    assert fake.windows == [5], fake.windows
    assert len(out["samples"]) == 5 and out["least_samples"] == 5, out
    assert out["stop_reason"] == "noise_target" and out["estimate_ms"] == pytest.approx(1.4)
    # 1.1 ms calls: 6 of them make the first window's 6 ms
    fake = _FakeMeasure(monkeypatch, [1], sample_ms=1.0, call_s=1.1e-3)
    assert len(fake.measure(("atan", "torch", "f"))["samples"]) == 6 and fake.windows == [6]


def test_long_calls_below_the_maximum_clock_keep_ten_samples_and_their_time_room(monkeypatch):
    # the clock power-capped from the start (1700 of 1980 MHz, the H200's gelu transient):
    # the first window keeps its 20 ms of calls and the floor of 10
    fake = _FakeMeasure(monkeypatch, [1], sample_ms=1.4, call_s=1.5e-3, mhz=1700.0)
    out = fake.measure(("gelu", "torch", "f"))
    assert fake.windows == [14] and out["least_samples"] == 10, (fake.windows, out)
    # the clock fell during the first window (its last reading): 5 more calls make the 10
    fake = _FakeMeasure(monkeypatch, [1], sample_ms=1.4, call_s=1.5e-3, end_mhz=1700.0)
    out = fake.measure(("gelu", "torch", "f"))
    assert fake.windows == [5, 5] and len(out["samples"]) == 10, (fake.windows, out)
    assert out["least_samples"] == 10 and out["stop_reason"] == "noise_target", out
    # calls just under 1 ms of wall are not long: the first window's rule is the old one
    fake = _FakeMeasure(monkeypatch, [1], sample_ms=0.8, call_s=0.9e-3)
    out = fake.measure(("exp", "torch", "f"))
    assert fake.windows == [20] and out["least_samples"] == 10, (fake.windows, out)


def test_calls_long_for_their_hold_keep_ten_samples(monkeypatch):
    # 1.5 ms of wall a call, but 7 us samples: the first window stops at 5 calls, and the
    # estimate then asks for the other 5
    fake = _FakeMeasure(monkeypatch, [1], sample_ms=0.007, call_s=1.5e-3)
    out = fake.measure(("index_select", "gems", "f"))
    assert fake.windows == [5, 5] and out["least_samples"] == 10, (fake.windows, out)


def test_a_failed_clock_reading_keeps_the_floor_at_ten(monkeypatch):
    fake = _FakeMeasure(monkeypatch, [1], sample_ms=1.4, call_s=1.5e-3)
    import zl_profiler_timer as pt
    real = pt._profile_window

    def window(*a, **k):
        w = real(*a, **k)
        w.readings = w.readings[:-1] + [(w.n, None)]
        return w
    monkeypatch.setattr(pt, "_profile_window", window)
    out = fake.measure(("atan", "torch", "f"))
    assert fake.windows == [5, 5] and out["least_samples"] == 10, (fake.windows, out)


class _FakeMeasure:
    """measure() over a scripted profiler: the calls of the n-th measurement each run
    counts[n] activities (1 after the list), every sample sample_ms (1 us), every call 100 us of wall and
    host_s of host issue time; spin: the device module has a spin kernel; idle: the part of
    each sample in which no activity ran (None: not read); call_s: the wall of a call (100 us);
    mhz: the SM clock before the first call, end_mhz after the last (of 1980). The first window
    is cut by its own rule."""

    def __init__(self, monkeypatch, counts, host_s=1e-5, spin=True, idle=None, sample_ms=1e-3,
                 call_s=1e-4, mhz=1980.0, end_mhz=None):
        import zl_profiler_timer as pt
        self.pt, self.counts, self.t = pt, list(counts), [0.0]
        self.calls = 1
        self.windows = []           # the calls of each window

        class Dev:
            synchronize = staticmethod(lambda: None)
        if spin:
            Dev._sleep = staticmethod(lambda cycles: None)

        class Prof:
            holds = {}

            def start(self, device_name):
                pass
        prof = Prof()
        monkeypatch.setattr(pt.zd, "device_api", lambda: (object(), Dev))
        monkeypatch.setattr(pt.zd, "device_string", lambda: "cuda")
        monkeypatch.setattr(pt.zd, "flusher", lambda torch, dev: (lambda: None))
        monkeypatch.setattr(pt, "_profiler_for", lambda torch: prof)

        def profile_window(prof, device_name, fn, flush, grad_to_none, n, hold=None, sync=None,
                           clock_read=None, clock_every=1, done=None, clock_every_s=None):
            k = n
            if done is not None:
                k = next(i for i in range(1, n + 1)
                         if done(i, i * call_s, [(0, mhz)]) or i == n)
            self.t[0] += k * call_s
            self.windows.append(k)
            series = pt.CallSeries()
            series.samples, series.counts = [sample_ms] * k, [self.calls] * k
            series.index, series.sigs = list(range(k)), [("k",) * self.calls] * k
            if idle is not None:
                series.busy = [sample_ms * (1.0 - idle)] * k
            return pt.Window(series, [host_s] * k,
                             [(0, mhz), (k, mhz if end_mhz is None else end_mhz)], 0.0,
                             loop_s=k * call_s, n=k)
        monkeypatch.setattr(pt, "_profile_window", profile_window)

    def measure(self, hint):
        import zl_clock
        self.calls = self.counts.pop(0) if self.counts else 1
        clock = zl_clock.ClockReader("test", max_mhz=1980.0)
        clock.read = lambda: 1980.0
        return self.pt.measure(lambda: None, clock=clock, now=lambda: self.t[0],
                               sleep=lambda s: None, hint=hint)


class _Script:
    """A _Sampling whose windows are scripted: each window() pops the next list of samples
    (one call each, all of one kernel) and the clock readings [(call index, MHz)] around and
    inside it; a window takes 0.01 s per sample."""

    def __init__(self, monkeypatch, windows, readings=None, policy=None, sleeps=None):
        import zl_clock
        import zl_profiler_timer as pt
        import zl_sampling
        self.windows = [list(w) for w in windows]
        self.readings = list(readings) if readings else \
            [[(0, 1980.0), (len(w), 1980.0)] for w in self.windows]
        self.t = [0.0]

        def profile_window(prof, device_name, fn, flush, grad_to_none, n, hold=None, sync=None,
                           clock_read=None, clock_every=1, done=None, clock_every_s=None):
            w = self.windows.pop(0)
            self.t[0] += 0.01 * len(w)
            series = pt.CallSeries()
            series.samples, series.counts = list(w), [1] * len(w)
            series.index, series.sigs = list(range(len(w))), [("k",)] * len(w)
            return pt.Window(series, [1e-5] * len(w), self.readings.pop(0), 0.0)
        monkeypatch.setattr(pt, "_profile_window", profile_window)
        clock = zl_clock.ClockReader("test", max_mhz=1980.0)
        clock.read = lambda: 1980.0
        self.st = pt._Sampling(None, "cuda", None, None, None, None, None, clock,
                               lambda: self.t[0], (sleeps.append if sleeps is not None
                                                   else lambda s: None),
                               policy or zl_sampling.Policy())

    def run(self):
        while self.windows:
            self.st.window(len(self.windows[0]))
        return self.st


def test_a_power_transient_is_cut_from_the_series(monkeypatch):
    # mm 10240x4096 on the H200 (wave 4): 1.36 ms for 5 calls, 1.23 for 8, then 1.19
    st = _Script(monkeypatch, [[1.36] * 5 + [1.23] * 8 + [1.19] * 7, [1.19] * 20]).run()
    assert st.steady is True and 10 <= st.cut <= 15, vars(st)
    assert st.kept[-20:] == [1.19] * 20 and st.est == pytest.approx(1.19, rel=1e-3), vars(st)


def test_a_series_that_keeps_moving_is_not_steady(monkeypatch):
    ramp = [1.5 - 0.005 * k for k in range(60)]
    st = _Script(monkeypatch, [ramp[:20], ramp[20:40], ramp[40:]]).run()
    assert st.steady is False, vars(st)
    import zl_sampling
    reason, n = zl_sampling.next_step(st.policy, len(st.kept), st.noise, st.history, 0.05,
                                      1e-3, st.target, st.steady, extend=20)
    assert reason is None and n == 20      # the next window extends the series


def test_throttled_stretches_inside_a_window_are_dropped(monkeypatch):
    # readings at calls 0, 10, 20 and after 30: the one at 10 reads 900 MHz, so calls 0-19
    # are dropped; the window still counts and the series keeps calls 20-29
    samples = [1.0 + 0.001 * (k % 3) for k in range(30)]
    readings = [[(0, 1980.0), (10, 900.0), (20, 1980.0), (30, 1980.0)]]
    sleeps = []
    st = _Script(monkeypatch, [samples], readings, sleeps=sleeps).run()
    assert st.dropped == 20 and st.series == samples[20:], vars(st)
    assert sleeps == [] and min(st.readings) == 900.0, vars(st)


def test_a_window_throttled_throughout_pauses_before_the_next(monkeypatch):
    import zl_clock
    sleeps = []
    st = _Script(monkeypatch, [[1.0] * 20, [1.0] * 20],
                 [[(0, 900.0), (20, 900.0)], [(0, 1980.0), (20, 1980.0)]], sleeps=sleeps).run()
    assert st.dropped == 20 and len(st.series) == 20, vars(st)
    assert sleeps == [zl_clock.THROTTLE_PAUSE_S], sleeps


def test_the_hold_grows_to_the_host_time_inside_the_profiler():
    import zl_profiler_timer as pt
    spun = []
    h = pt.Hold(spun.append, 2000.0, pt.hold_seconds(10e-6))
    assert h.seconds == pytest.approx(40e-6) and h.cycles == 80000
    assert not h.fit([])
    assert not h.fit([10e-6] * 20)                   # asks for no more
    assert not h.fit([17e-6] * 20)                   # 1.25 x 17 + 20 = 41 us: under 5 % more
    assert h.fit([10e-6] * 5 + [100e-6] * 15)        # the 90th percentile: 100 us
    assert h.seconds == pytest.approx(145e-6) and h.grown == 1
    assert not h.fit([5e-6] * 20)                    # never shrinks
    assert h.fit([1.0] * 20) and h.seconds == pt.HOLD_MAX_S
    h()
    assert spun == [int(pt.HOLD_MAX_S * 2000.0 * 1e6)]


def test_the_call_mode_and_settling_are_null_when_the_profiler_timed_nothing(bench):
    r = bench.run([ADD], backend_env("cuda", ZL_TIMER_PLAN="graph", **ONE_SHAPE))
    assert r.rc == 0, r
    s = r.json("plugins", "timer_summary.json")
    assert s["used"] == "graph" and s["profiler_call_mode"] is None, s
    assert s["profiler_settle"] is None, s
    for t in r.jsonl("plugins", "timer.jsonl"):
        assert "synced_calls" not in t, t


def test_without_a_spin_kernel_there_is_no_hold(bench):
    r = bench.run([ADD], backend_env("cuda", FAKE_NO_SLEEP="1", **ONE_SHAPE))
    assert r.rc == 0, r
    for t in by_side(r.jsonl("plugins", "timer.jsonl")).values():
        assert t["timer"] == "profiler" and t["hold_us"] is None, t


def test_hold_seconds_are_bounded():
    import zl_profiler_timer as pt
    assert pt.hold_seconds(0) == pytest.approx(pt.HOLD_EXTRA_S)
    assert pt.hold_seconds(10e-6) == pytest.approx(2 * 10e-6 + pt.HOLD_EXTRA_S)
    assert pt.hold_seconds(1.0) == pt.HOLD_MAX_S
