"""zl_profiler_timer's attribution of device activities to calls, on synthetic event lists.

The events are built the way torch's Kineto results give them (torch/csrc/profiler/
collection.cpp): ops and record_function ranges carry torch's op ids; a runtime or
driver launch and its device activity share the runtime's correlation id and are
linked to the innermost op open on the launching thread. The two id counters are
separate and collide.
"""
import json
import os
import random

import pytest

import zl_profiler_timer as pt
from zl_profiler_timer import Event

T1, T2 = 1, 2


def rng(i, start, end, corr, tid=T1):
    return Event("cpu", "zl_call#%d" % i, tid, start, end, corr)


def op(name, start, end, corr, tid=T1):
    return Event("cpu", name, tid, start, end, corr)


def launch(start, corr, linked, tid=T1, name="cuLaunchKernel"):
    return Event("cpu", name, tid, start, start + 3, corr, linked)


def act(name, start, end, corr, linked=0):
    return Event("device", name, None, start, end, corr, linked)


def spans(attribution):
    """Each call's activities as (start, end) pairs (the names are checked apart)."""
    return {i: sorted(x[:2] for x in a) for i, a in attribution.calls.items()}


def test_memset_beside_the_kernel_belongs_to_the_same_call():
    # cuBLAS under aten::mm: a workspace memset and the GEMM, both launched inside the op.
    events = [
        rng(0, 100, 200, corr=10),
        op("aten::mm", 110, 190, corr=11),
        launch(120, corr=5, linked=11, name="cudaMemsetAsync"),
        launch(130, corr=6, linked=11),
        act("Memset (Device)", 1000, 1010, corr=5, linked=11),
        act("sm90_xmma_gemm", 1012, 1500, corr=6, linked=11),
    ]
    a = pt.attribute(events)
    assert spans(a) == {0: [(1000, 1010), (1012, 1500)]}
    samples, counts, missing = pt.call_samples(a, 1)
    assert samples == [pytest.approx(500 / 1e6)] and counts == [2] and missing == 0


def test_two_kernels_of_one_call_without_an_op_are_placed_by_their_launches():
    # A Triton op launched from Python: no torch op is open, and torch never links a
    # launch to a record_function range, so the launches carry linked 0 (as on an H200,
    # torch 2.11: cuLaunchKernelEx of a Triton kernel inside "zl_call#0", linked=0). The
    # launch's own time on its thread places it.
    events = [
        rng(0, 100, 200, corr=3), launch(110, corr=1, linked=0, name="cuLaunchKernelEx"),
        launch(150, corr=2, linked=0, name="cuLaunchKernelEx"),
        rng(1, 300, 400, corr=4), launch(310, corr=3, linked=0, name="cuLaunchKernelEx"),
        launch(350, corr=4, linked=0, name="cuLaunchKernelEx"),
        act("k1", 1000, 1100, corr=1), act("k2", 1100, 1300, corr=2),
        act("k1", 2000, 2100, corr=3), act("k2", 2150, 2250, corr=4),
    ]
    a = pt.attribute(events)
    assert spans(a) == {0: [(1000, 1100), (1100, 1300)], 1: [(2000, 2100), (2150, 2250)]}
    samples, counts, _ = pt.call_samples(a, 2)
    assert samples == [pytest.approx(300 / 1e6), pytest.approx(250 / 1e6)]
    assert counts == [2, 2]


def test_an_unlinked_launch_is_not_confused_with_an_op_of_the_same_id():
    # Torch's op ids and the runtime's correlation ids collide: aten::zero_ (op id 7,
    # the flush, outside every range) shares id 7 with the Triton launch of call 1. Only
    # the API call places the kernel; the op is no launch.
    events = [
        op("aten::zero_", 50, 60, corr=7),
        rng(0, 100, 200, corr=8), launch(120, corr=6, linked=0, name="cuLaunchKernelEx"),
        rng(1, 300, 400, corr=9), launch(320, corr=7, linked=0, name="cuLaunchKernelEx"),
        act("k", 1000, 1100, corr=6), act("k", 2000, 2100, corr=7),
    ]
    a = pt.attribute(events)
    assert spans(a) == {0: [(1000, 1100)], 1: [(2000, 2100)]}
    assert a.unattributed == 0 and a.ambiguous == 0
    # without the launch event, the colliding op alone places nothing
    a = pt.attribute([e for e in events if not (e.name == "cuLaunchKernelEx" and e.corr == 7)])
    assert spans(a) == {0: [(1000, 1100)]} and a.unattributed == 1


def test_the_flush_between_calls_is_nobodys():
    events = [
        op("aten::zero_", 50, 60, corr=20), launch(55, corr=7, linked=20),
        rng(0, 100, 200, corr=21), launch(120, corr=8, linked=21),
        op("aten::zero_", 210, 220, corr=22), launch(215, corr=9, linked=22),
        rng(1, 300, 400, corr=23), launch(320, corr=10, linked=23),
        act("zero_kernel", 500, 560, corr=7, linked=20), act("k", 560, 570, corr=8, linked=21),
        act("zero_kernel", 570, 630, corr=9, linked=22), act("k", 630, 641, corr=10, linked=23),
    ]
    a = pt.attribute(events)
    assert spans(a) == {0: [(560, 570)], 1: [(630, 641)]}
    assert a.unattributed == 2


def test_calls_without_activity_are_counted_not_sampled():
    events = [rng(0, 100, 200, corr=1), rng(1, 300, 400, corr=2), rng(2, 500, 600, corr=3),
              launch(110, corr=1, linked=1), launch(510, corr=2, linked=3),
              act("k", 1000, 1040, corr=1, linked=1), act("k", 2000, 2050, corr=2, linked=3)]
    samples, counts, missing = pt.call_samples(pt.attribute(events), 3)
    assert samples == [pytest.approx(40 / 1e6), pytest.approx(50 / 1e6)]
    assert counts == [1, 1] and missing == 1


def test_another_threads_work_during_a_call_is_not_the_calls():
    events = [
        rng(0, 100, 200, corr=1, tid=T1), launch(110, corr=1, linked=1, tid=T1),
        # thread 2 runs its own op at the same time, with its own kernel
        op("aten::add", 120, 180, corr=2, tid=T2), launch(130, corr=2, linked=2, tid=T2),
        act("mine", 1000, 1100, corr=1, linked=1), act("theirs", 1050, 1400, corr=2, linked=2),
    ]
    a = pt.attribute(events)
    assert spans(a) == {0: [(1000, 1100)]} and a.unattributed == 1


def test_activity_launched_before_the_first_range_is_dropped():
    events = [op("aten::copy_", 10, 40, corr=1), launch(20, corr=1, linked=1),
              rng(0, 100, 200, corr=2), launch(110, corr=2, linked=2),
              act("warm-up tail", 900, 990, corr=1, linked=1),
              act("k", 1000, 1010, corr=2, linked=2)]
    a = pt.attribute(events)
    assert spans(a) == {0: [(1000, 1010)]} and a.unattributed == 1


def test_op_ids_and_runtime_ids_that_collide_do_not_mislead():
    # The kernel of call 0 has runtime id 6; torch's op counter also handed 6 to an
    # aten::empty inside call 1. Only the linked launch counts.
    events = [
        rng(0, 100, 200, corr=5), launch(110, corr=6, linked=5),
        rng(1, 300, 400, corr=7), op("aten::empty", 310, 320, corr=6),
        launch(330, corr=8, linked=7),
        act("k0", 1000, 1010, corr=6, linked=5), act("k1", 2000, 2010, corr=8, linked=7),
    ]
    assert spans(pt.attribute(events)) == {0: [(1000, 1010)], 1: [(2000, 2010)]}


def test_without_the_linked_op_the_launch_time_decides():
    # The op the launch is linked to is not among the events (a truncated trace):
    # the launch's own time on its thread places it in call 1.
    events = [rng(0, 100, 200, corr=1), rng(1, 300, 400, corr=2),
              launch(350, corr=9, linked=99), act("k", 5000, 5100, corr=9, linked=99)]
    assert spans(pt.attribute(events)) == {1: [(5000, 5100)]}


def test_an_activity_whose_launch_is_missing_follows_its_own_link():
    events = [rng(0, 100, 200, corr=1), op("aten::mul", 120, 180, corr=2),
              act("k", 1000, 1200, corr=77, linked=2)]
    assert spans(pt.attribute(events)) == {0: [(1000, 1200)]}


def test_a_runtime_event_sharing_the_ops_id_does_not_claim_its_activity():
    # The linked id 40 names torch's op aten::a in call 0, and a colliding unlinked
    # runtime event (its own runtime id is 40) sits in call 1: an API call is no op,
    # so call 0 gets the kernel.
    events = [rng(0, 100, 200, corr=1), rng(1, 300, 400, corr=2),
              op("aten::a", 110, 120, corr=40), op("cudaStreamSynchronize", 310, 320, corr=40),
              launch(115, corr=41, linked=40), act("k", 1000, 1010, corr=41, linked=40)]
    a = pt.attribute(events)
    assert spans(a) == {0: [(1000, 1010)]} and a.ambiguous == 0


def test_two_calls_claiming_one_activity_make_it_ambiguous():
    # Two ops of one id in two calls (torch never reuses an op id; a trace that does
    # cannot be trusted): nobody gets the activity.
    events = [rng(0, 100, 200, corr=1), rng(1, 300, 400, corr=2),
              op("aten::a", 110, 120, corr=40), op("aten::b", 310, 320, corr=40),
              launch(115, corr=41, linked=40), act("k", 1000, 1010, corr=41, linked=40)]
    a = pt.attribute(events)
    assert a.calls == {} and a.ambiguous == 1


def test_the_device_copy_of_a_range_is_no_activity():
    # Kineto's gpu_user_annotation: a device event named like the range, spanning its kernels.
    events = [rng(0, 100, 200, corr=1), launch(110, corr=1, linked=1),
              act("zl_call#0", 990, 1020, corr=0), act("k", 1000, 1010, corr=1, linked=1)]
    a = pt.attribute(events)
    assert spans(a) == {0: [(1000, 1010)]} and a.unattributed == 0


def test_range_names_parse_only_our_prefix():
    assert pt.range_index("zl_call#12") == 12
    assert pt.range_index("zl_call#") is None
    assert pt.range_index("zl_call#x1") is None
    assert pt.range_index("aten::add") is None


class NewEvent:
    """torch >= 2.3's _KinetoEvent surface."""

    def __init__(self, name, dtype, start, end, corr, linked, tid, user=False, fwd=0):
        self.v = (name, dtype, start, end, corr, linked, tid, user, fwd)

    def name(self):
        return self.v[0]

    def device_type(self):
        return self.v[1]

    def start_ns(self):
        return self.v[2]

    def end_ns(self):
        return self.v[3]

    def correlation_id(self):
        return self.v[4]

    def linked_correlation_id(self):
        return self.v[5]

    def start_thread_id(self):
        return self.v[6]

    def is_user_annotation(self):
        return self.v[7]

    def fwd_thread_id(self):
        return self.v[8]


class OldStyle(NewEvent):
    """A NewEvent as a torch without fwd_thread_id() gives it."""

    fwd_thread_id = None


class OldEvent:
    """torch < 2.3: start_us() and duration_us(), no is_user_annotation()."""

    def __init__(self, name, dtype, start_us, dur_us, corr, linked, tid):
        self.v = (name, dtype, start_us, dur_us, corr, linked, tid)

    def name(self):
        return self.v[0]

    def device_type(self):
        return self.v[1]

    def start_us(self):
        return self.v[2]

    def duration_us(self):
        return self.v[3]

    def correlation_id(self):
        return self.v[4]

    def linked_correlation_id(self):
        return self.v[5]

    def start_thread_id(self):
        return self.v[6]


CPU, CUDA = object(), object()


def test_kineto_events_become_neutral_events():
    # only ranges need an end: other CPU events are placed by their start
    ev = [NewEvent("zl_call#0", CPU, 100, 200, 1, 0, 7),
          NewEvent("cuLaunchKernel", CPU, 110, 113, 5, 1, 7),
          NewEvent("k", CUDA, 1000, 1100, 5, 1, 0),
          NewEvent("zl_call#0", CUDA, 990, 1110, 0, 0, 0, user=True)]
    out = pt.from_kineto(ev, CPU)
    assert [(e.kind, e.name, e.tid, e.start, e.end, e.corr, e.linked) for e in out] == [
        ("cpu", "zl_call#0", 7, 100, 200, 1, 0), ("cpu", "cuLaunchKernel", 7, 110, 110, 5, 1),
        ("device", "k", None, 1000, 1100, 5, 1)]
    assert pt.call_samples(pt.attribute(out), 1)[0] == [pytest.approx(100 / 1e6)]
    assert pt.from_kineto([], CPU) == []


def test_old_kineto_events_in_microseconds():
    ev = [OldEvent("zl_call#0", CPU, 1.0, 1.0, 1, 0, 7), OldEvent("k", CUDA, 5.5, 0.25, 3, 1, 0),
          OldEvent("cudaLaunchKernel", CPU, 1.2, 0.1, 3, 1, 7)]
    out = pt.from_kineto(ev, CPU)
    assert [(e.kind, e.start, e.end) for e in out] == [("cpu", 1000.0, 2000.0),
                                                      ("device", 5500.0, 5750.0),
                                                      ("cpu", 1200.0, 1200.0)]
    assert pt.call_samples(pt.attribute(out), 1)[0] == [pytest.approx(250 / 1e6)]


def random_session(rnd, calls):
    """The events of one window as Kineto lists them, in a shuffled order, with every shape
    the attribution meets: per call a wait for the device, a flush (an op, its launch, its
    kernel) and a hold (a launch no op encloses), the range, then one of: a torch op that
    launches a memset and a kernel (cuBLAS), Triton launches no op encloses, an op whose
    launch is missing from the trace, nothing at all, a backward (the autograd engine's
    thread 3 runs a node whose forward thread is 1, its op and the op's launch, and an
    AccumulateGrad's launch); ids from two counters that collide; now and then another
    thread's launch, an activity before the first range, a range's device copy."""
    ev, op_id, rt_id, t, g = [], 0, 0, 1_000_000, 5_000_000

    def op(name, start, end, tid=1, fwd=0):
        nonlocal op_id
        op_id += 1
        ev.append(NewEvent(name, CPU, start, end, op_id, 0, tid, fwd=fwd))
        return op_id

    def launch(linked, start, dev_name, dur, tid=1, api="cudaLaunchKernel", lost=False):
        nonlocal rt_id, g
        rt_id += 1
        if not lost:
            ev.append(NewEvent(api, CPU, start, start + 300, rt_id, linked, tid))
        ev.append(NewEvent(dev_name, CUDA, g, g + dur, rt_id, linked, 0))
        g += dur + rnd.randint(0, 500)

    if rnd.random() < 0.5:
        launch(0, t - 5000, "leftover", 700)                       # before the first range
    for i in range(calls):
        launch(0, t, "sync_marker", 1, api="cudaDeviceSynchronize")
        z = op("aten::zero_", t + 100, t + 900)
        launch(z, t + 200, "zero_kernel", 58000)
        launch(0, t + 1000, "spin_kernel", 20000)
        r = op("zl_call#%d" % i, t + 2000, t + 9000)
        kind = rnd.choice(("cublas", "triton", "lost", "none", "cublas", "triton", "backward"))
        if kind == "cublas":
            m = op("aten::mm", t + 2100, t + 8000)
            launch(m, t + 2200, "Memset (Device)", 300, api="cudaMemsetAsync")
            launch(m, t + 2600, "sm90_gemm", rnd.randint(1000, 5000))
        elif kind == "triton":
            for j in range(rnd.randint(1, 3)):
                launch(0, t + 2200 + 900 * j, "triton_k%d" % j, rnd.randint(500, 3000),
                       api="cuLaunchKernelEx")
        elif kind == "lost":
            m = op("aten::add", t + 2100, t + 8000)
            launch(m, t + 2200, "add_kernel", 900, lost=True)
        elif kind == "backward":
            op("autograd::engine::evaluate_function: MulBackward0", t + 2100, t + 7000, tid=3,
               fwd=1)
            m = op("aten::mul", t + 2200, t + 6000, tid=3)
            launch(m, t + 2300, "mul_kernel", rnd.randint(500, 3000), tid=3)
            if rnd.random() < 0.5:
                launch(0, t + 7500, "accumulate_grad", 300, tid=3)
        if rnd.random() < 0.2:
            launch(0, t + 3000, "other_thread", 400, tid=2)
        if rnd.random() < 0.5:
            ev.append(NewEvent("zl_call#%d" % i, CUDA, g - 100, g, 0, 0, 0, True))
        assert r
        t += 10000
    rnd.shuffle(ev)
    return ev


def test_the_one_pass_parser_gives_what_the_reference_attribution_gives():
    rnd = random.Random(2026)
    for trial in range(60):
        calls = rnd.randint(1, 40)
        ev = random_session(rnd, calls)
        want = pt.call_series(pt.attribute(pt.from_kineto(ev, CPU)), calls)
        got = pt.kineto_series(ev, CPU, calls)
        for field in ("samples", "counts", "index", "sigs", "busy", "missing"):
            assert getattr(got, field) == getattr(want, field), (trial, field)
    assert pt.kineto_series([], CPU, 3).missing == 3


def test_the_one_pass_parser_follows_the_reference_where_ids_collide():
    # Correlation id 6 is an op's id and two launches' (a trace torch would not write): the
    # reference follows every linked launch, finds calls 0 and 1 and gives the kernel to
    # neither; one linked launch among colliding ids is followed alone (k1, call 1).
    def k(name, dtype, start, end, corr, linked=0, tid=T1):
        return NewEvent(name, dtype, start, end, corr, linked, tid)
    ev = [k("zl_call#0", CPU, 100, 200, 1), k("aten::a", CPU, 110, 120, 2),
          k("zl_call#1", CPU, 300, 400, 3), k("aten::b", CPU, 310, 320, 4),
          k("aten::empty", CPU, 130, 131, 6), k("cuLaunchKernel", CPU, 115, 116, 6, 2),
          k("cuLaunchKernel", CPU, 315, 316, 6, 4), k("k0", CUDA, 1000, 1010, 6, 2, 0),
          k("aten::c", CPU, 330, 340, 7), k("aten::empty", CPU, 140, 141, 8),
          k("cuLaunchKernel", CPU, 335, 336, 8, 7), k("k1", CUDA, 2000, 2010, 8, 7, 0)]
    want = pt.call_series(pt.attribute(pt.from_kineto(ev, CPU)), 2)
    got = pt.kineto_series(ev, CPU, 2)
    assert want.index == [1] and want.samples == [pytest.approx(10 / 1e6)], vars(want)
    for field in ("samples", "counts", "index", "sigs", "busy", "missing"):
        assert getattr(got, field) == getattr(want, field), field


def test_busy_is_the_union_of_a_calls_activity_spans():
    # two kernels with a gap, a third overlapping the second (another stream): busy 30 of 50
    assert pt.busy_ns([(0, 10, "a"), (30, 45, "b"), (40, 50, "c")]) == 30
    assert pt.busy_ns([(0, 10, "a"), (5, 8, "b")]) == 10
    assert pt.idle_fraction(0.05, 0.03) == pytest.approx(0.4)
    assert pt.idle_fraction(0.0, 0.0) == 0.0


def engine_events():
    """Call 0 of a torch.autograd.grad: the caller (T1) holds the range and launches
    nothing; the engine's device thread (T2) runs the node (forward thread T1), its op and
    the launch. Thread 3 runs an op of its own at the same time (forward thread 0)."""
    return [
        rng(0, 100, 300, corr=1),
        Event("cpu", "autograd::engine::evaluate_function: GeluBackward0", T2, 150, 150, 2,
              0, T1),
        Event("cpu", "GeluBackward0", T2, 155, 155, 3, 0, T1),
        op("aten::gelu_backward", 160, 260, corr=4, tid=T2),
        launch(200, corr=50, linked=4, tid=T2),
        Event("cpu", "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
              T2, 270, 270, 5),
        launch(275, corr=51, linked=0, tid=T2),
        op("aten::add", 160, 190, corr=6, tid=3), launch(170, corr=52, linked=6, tid=3),
        # after the call: the engine's work for no open call
        op("aten::mul", 400, 410, corr=7, tid=T2), launch(405, corr=53, linked=7, tid=T2),
        act("gelu_backward_kernel", 1000, 1100, corr=50, linked=4),
        act("accumulate", 1100, 1110, corr=51),
        act("theirs", 1000, 1400, corr=52, linked=6),
        act("late", 2000, 2010, corr=53, linked=7),
    ]


def test_the_autograd_engines_thread_works_for_the_call_open_on_its_caller():
    a = pt.attribute(engine_events())
    assert spans(a) == {0: [(1000, 1100), (1100, 1110)]}
    assert a.unattributed == 2      # thread 3's op, and the engine's work after the call


def test_a_thread_whose_ops_name_two_callers_works_for_neither():
    events = engine_events() + [rng(1, 500, 600, corr=8, tid=3),
                                Event("cpu", "MulBackward0", T2, 520, 520, 9, 0, 3)]
    a = pt.attribute(events)
    assert spans(a) == {} and a.unattributed == 4      # every activity


def _fixture_windows():
    path = os.path.join(os.path.dirname(__file__), "..", "fixtures", "kineto",
                        "backward_h100.json")
    with open(path) as f:
        data = json.load(f)
    kinds = {"CPU": CPU, "CUDA": CUDA}
    fields = data["fields"]
    out = {}
    for label, rows in data["windows"].items():
        evs = []
        for r in rows:
            v = dict(zip(fields, r))
            evs.append(NewEvent(v["name"], kinds[v["device_type"]], v["start_ns"], v["end_ns"],
                                v["correlation_id"], v["linked_correlation_id"],
                                v["start_thread_id"], fwd=v["fwd_thread_id"]))
        out[label] = evs
    return data["calls"], out


def test_backward_calls_read_on_an_h100_are_timed_from_the_engines_kernels():
    calls, windows = _fixture_windows()
    nll = pt.kineto_series(windows["nll_loss"], CPU, calls)
    assert nll.missing == 0 and nll.counts == [3] * calls
    assert all(sig[1].startswith("void at::native::(anonymous namespace)::nll_loss_backward")
               and sig[2].startswith("void (anonymous namespace)::softmax_warp_backward")
               for sig in nll.sigs)
    gelu = pt.kineto_series(windows["gelu"], CPU, calls)
    # the caller's own normal kernel and the engine's gelu backward, in every call
    assert gelu.counts == [2] * calls
    assert all("GeluBackward" in sig[1] for sig in gelu.sigs)
    for label, evs in windows.items():
        want = pt.call_series(pt.attribute(pt.from_kineto(evs, CPU)), calls)
        for field in ("samples", "counts", "index", "sigs", "busy", "missing"):
            assert getattr(nll if label == "nll_loss" else gelu, field) == \
                getattr(want, field), (label, field)


def test_without_the_forward_thread_the_engines_kernels_are_nobodys():
    # torch without fwd_thread_id (or a trace without it): as before, the engine's kernels
    # are not the call's, and a call whose caller launched nothing has no sample
    calls, windows = _fixture_windows()
    old = [OldStyle(*e.v) for e in windows["nll_loss"]]
    assert pt.kineto_series(old, CPU, calls).missing == calls
