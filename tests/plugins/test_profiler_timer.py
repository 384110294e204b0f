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
    r = bench.run([ADD], backend_env("cuda", FAKE_NOISE="0.1", FAKE_QUANT_NS="32", **ONE_SHAPE))
    assert r.rc == 0, r
    for rec in r.jsonl("plugins", "timer.jsonl"):
        assert rec["stop_reason"] == "noise_target" and 0 < rec["noise_rel"] <= 0.005
        assert len(set(rec["samples_ms"])) > 10
        # the fake's noise is uniform and symmetric: the estimate sits on the true cost
        true = TORCH_ADD_MS if rec["side"] == "torch" else GEMS_ADD_MS
        assert rec["estimate_ms"] == pytest.approx(true, rel=0.01)


def test_time_cap_ends_a_measurement_that_cannot_reach_its_target(bench):
    r = bench.run([ADD], backend_env("cuda", FAKE_NOISE="0.5", ZL_NOISE_TARGET="0.0001",
                                     ZL_MAX_TIME_PER_SHAPE="0.05", **ONE_SHAPE))
    assert r.rc == 0, r
    for rec in r.jsonl("plugins", "timer.jsonl"):
        assert rec["stop_reason"] == "time_cap" and rec["noise_rel"] > 0.0001
        assert rec["noise_target"] == 0.0001
        assert rec["wall_s"] < 0.05 + 1.0        # the cap, plus warm-up and the first calls


def test_drift_between_sessions_ends_in_a_noise_plateau(bench):
    # every profiler session 10 % slower than the one before: pooling more samples no
    # longer narrows the interval
    r = bench.run([ADD], backend_env("cuda", FAKE_NOISE="0.1", FAKE_DRIFT="0.1",
                                     ZL_NOISE_TARGET="0.001", ZL_MAX_TIME_PER_SHAPE="5",
                                     **ONE_SHAPE))
    assert r.rc == 0, r
    stops = {rec["stop_reason"] for rec in r.jsonl("plugins", "timer.jsonl")}
    assert stops == {"noise_plateau"}


def test_max_samples_ends_a_measurement_with_time_to_spare(bench):
    r = bench.run([ADD], backend_env("cuda", FAKE_NOISE="0.3", ZL_NOISE_TARGET="0.0001",
                                     ZL_MAX_TIME_PER_SHAPE="60", **ONE_SHAPE))
    assert r.rc == 0, r
    for rec in r.jsonl("plugins", "timer.jsonl"):
        assert rec["stop_reason"] == "max_samples" and rec["samples_total"] == 10000


def test_many_samples_are_stored_as_an_unbiased_subset(bench):
    r = bench.run([ADD], backend_env("cuda", FAKE_NOISE="0.3", ZL_NOISE_TARGET="0.001",
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
    s = r.json("plugins", "timer_summary.json")
    assert s["errors"] == 1 and s["stop_reasons"] == {"noise_target": 1, "error": 1}


def test_throttled_batches_are_dropped_and_counted(bench):
    # the SM clock reads 1980, 1980 around one batch, then 1000, 1000 around the next
    r = bench.run([ADD], backend_env("cuda", FAKE_SM_CLOCKS="1980,1980,1000,1000",
                                     FAKE_NOISE="0.2", ZL_NOISE_TARGET="0.002",
                                     **ONE_SHAPE))
    assert r.rc == 0, r
    recs = r.jsonl("plugins", "timer.jsonl")
    assert all(rec["timer"] == "profiler" for rec in recs)
    assert sum(rec["dropped_throttled"] for rec in recs) > 0
    for rec in recs:
        if rec["dropped_throttled"]:
            assert rec["profiler_calls"] == rec["samples_total"] + rec["dropped_throttled"]
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
    t = by_side(r.jsonl("plugins", "timer.jsonl"))["torch"]
    assert t["timer"] == "graph"
    assert t["fallback_reason"].startswith("the profiler recorded no device activity for any of ")


def test_launches_without_a_linked_op_are_placed_by_their_launch_time(bench):
    # No launch carries an op link (as for Triton kernels launched from Python): each is
    # placed in its call by the launch API call's own time, so the profiler still times
    # every call with its one kernel, and nothing is left to the graph timer.
    r = bench.run([ADD], backend_env("cuda", FAKE_PROFILER="nolink", **ONE_SHAPE))
    assert r.rc == 0, r
    for t in by_side(r.jsonl("plugins", "timer.jsonl")).values():
        assert t["timer"] == "profiler" and t["fallback_reason"] is None, t
        assert t["kernels_per_call"] == 1 and t["calls_missing"] == 0, t


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
    # nvbench's blocking kernel): the spin kernel is nobody's activity, the samples stay
    # the kernels' own, and timer.jsonl says how long the hold was.
    r = bench.run([ADD], backend_env("cuda", **ONE_SHAPE))
    assert r.rc == 0, r
    sides = by_side(r.jsonl("plugins", "timer.jsonl"))
    for side, cost in (("torch", TORCH_ADD_MS), ("gems", GEMS_ADD_MS)):
        t = sides[side]
        assert t["timer"] == "profiler" and t["kernels_per_call"] == 1, t
        assert t["estimate_ms"] == pytest.approx(cost, rel=1e-6), t
        assert 20 <= t["hold_us"] <= 2000, t


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
    assert s["profiler_call_mode"] == "synced" and s["profiler_settle"] == "batches", s


def test_long_calls_are_timed_once_the_device_is_steady(bench):
    # Calls of 0.1 ms or more that start 30 % slow and settle over 400 launches (the H200's
    # power transient): the first batch shows a long call, batches are dropped until two in a
    # row agree, and the estimate is the settled cost. (Batches are sized by wall time, so
    # where they split the ramp varies: the older kept batch may end it with a tail small
    # enough for the trimmed mean to cut.)
    n = 131072
    r = bench.run([ADD], backend_env("cuda", FAKE_TRANSIENT="0.3:400", BENCH_SHAPES=str(n)))
    assert r.rc == 0, r
    sides = by_side(r.jsonl("plugins", "timer.jsonl"))
    for side, cost in (("torch", n * 2e-6), ("gems", n * 1e-6)):
        t = sides[side]
        assert t["timer"] == "profiler" and t["steady"] is True, t
        assert t["steady_warmup_s"] > 0 and t["dropped_warmup"] > 0, t
        assert t["profiler_calls"] == t["samples_total"] + t["dropped_warmup"], t
        # within half the agreement tolerance (0.14 % at worst on a loaded 2-core machine;
        # 1.8-11 % with no settling)
        assert t["estimate_ms"] == pytest.approx(cost, rel=2.5e-3), t
        assert t["median_ms"] == pytest.approx(cost, rel=1e-6), t
        assert min(t["samples_ms"]) == pytest.approx(cost, rel=1e-6), t


def test_short_calls_are_not_settled(bench):
    r = bench.run([ADD], backend_env("cuda", **ONE_SHAPE))
    assert r.rc == 0, r
    for t in r.jsonl("plugins", "timer.jsonl"):
        assert t["steady"] is None and t["steady_warmup_s"] is None, t
        assert t["dropped_warmup"] == 0, t


class _Script:
    """A _Sampling whose batches are scripted: each batch() pops the next list of samples
    (all calls of one kernel) and a clock reading for both ends; a batch takes 0.1 s."""

    def __init__(self, monkeypatch, batches, mhz=None):
        import zl_clock
        import zl_profiler_timer as pt
        self.batches = list(batches)
        self.mhz = list(mhz) if mhz else [1980.0] * len(self.batches)
        self.t = [0.0]
        self.reading = [None]

        def profile_batch(prof, device_name, fn, flush, grad_to_none, n, hold=None, sync=None):
            self.t[0] += 0.1
            self.reading[0] = self.mhz.pop(0)
            s = self.batches.pop(0)
            return list(s), [1] * len(s), 0, [1e-5] * len(s)
        monkeypatch.setattr(pt, "_profile_batch", profile_batch)
        clock = zl_clock.ClockReader("test", max_mhz=1980.0)
        clock.read = lambda: self.reading[0]
        self.st = pt._Sampling(None, "cuda", None, None, None, None, None, clock,
                               lambda: self.t[0], lambda s: None)

    def run(self):
        """Batches until the first one is looked at and settling, if any, has ended."""
        while self.batches:
            self.st.batch(10)
            if self.st.long_call_checked and not self.st.settling:
                break
        return self.st


def test_a_long_call_settles_on_its_own_batches_until_two_agree(monkeypatch):
    # mm 10240x4096 on the H200 (wave 4): 1.36 ms, stepping to 1.23 and then 1.19 ms once the
    # profiled calls began; the first two batches that agree are kept, the earlier dropped
    st = _Script(monkeypatch, [[1.36] * 10, [1.23] * 10, [1.19] * 10, [1.1905] * 10]).run()
    assert st.steady is True and not st.settling, vars(st)
    assert st.dropped_warmup == 20 and st.kept == [1.19] * 10 + [1.1905] * 10, vars(st)
    assert st.steady_s == pytest.approx(0.2) and st.started == pytest.approx(0.2), vars(st)
    assert len(st.history) == 1, st.history  # the plateau rule starts from the kept pair


def test_settling_gives_up_at_its_cap_and_keeps_the_last_batch(monkeypatch):
    import zl_profiler_timer as pt
    n = int(pt.STEADY_MAX_S / 0.1) + 2
    seq = [[1.0 + 0.1 * (i % 2)] * 10 for i in range(n)]  # never two alike in a row
    script = _Script(monkeypatch, seq)
    st = script.run()
    assert st.steady is False and not st.settling, vars(st)
    assert st.kept == seq[st.batches - 1], vars(st)
    assert st.steady_s >= pt.STEADY_MAX_S - 0.1, st.steady_s
    assert st.dropped_warmup == 10 * (st.batches - 1), vars(st)


def test_settling_ends_when_every_batch_after_the_first_is_throttled(monkeypatch):
    # a device that throttles from the second batch on must not keep the measurement settling
    import zl_profiler_timer as pt
    n = int(pt.STEADY_MAX_S / 0.1) + 2
    script = _Script(monkeypatch, [[0.5] * 10] * n, mhz=[1980.0] + [900.0] * (n - 1))
    st = script.run()
    assert st.steady is False and not st.settling, vars(st)
    assert st.kept == [0.5] * 10 and st.dropped == 10 * (st.batches - 1), vars(st)


def test_two_batches_agree_within_their_own_noise_up_to_a_limit():
    import zl_profiler_timer as pt
    assert pt.steady_agrees([1.0] * 10, [1.004] * 10)
    assert not pt.steady_agrees([1.0] * 10, [1.01] * 10)
    noisy_a = [1.0, 1.06, 0.94, 1.03, 0.97, 1.0, 1.05, 0.95, 1.02, 0.98]
    noisy_b = [x * 1.01 for x in noisy_a]
    assert pt.steady_agrees(noisy_a, noisy_b)  # 1 % apart, well inside their intervals
    wild_a = [1.0, 2.0] * 5
    assert not pt.steady_agrees(wild_a, [x * 1.03 for x in wild_a])  # past STEADY_REL_MAX
    assert not pt.steady_agrees([], [1.0]) and not pt.steady_agrees([1.0] * 3, [])


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
