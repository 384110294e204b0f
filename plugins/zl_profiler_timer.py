"""zl_profiler_timer: time one measurement by the device's own timestamps.

Loaded by zlbench (-p zl_profiler_timer) on backends with the kernel_profiler
capability when the timer plan is "profiler"; zl_timer asks the plugin manager
for this module and calls measure() for each measurement. On its own it does
nothing.

How a measurement is timed (docs/timer.md):

1. fn() once, outside the profiler: compiles and autotunes; its errors propagate.
   Its wall is the measurement's first_call_s, FlagGems' own work, not the timer's.
2. No probe (wave 10; before, a profiled window of 3 calls sized the first window and
   said whether calls needed a hold: a session of its own, 4-12 ms a measurement on the
   H200). The first window is cut by time as it runs (zl_sampling.first_window_done); a
   call is held when the last measurement of the same call site (op, side, bench
   function) ran several activities a call, and a window that finds several activities in
   calls it did not hold is dropped and the windows after it are held. The caller's
   warm-up (FlagGems asks do_bench for 1,000 ms of back-to-back calls) is not run:
   back-to-back calls draw more power than the timed calls and leave the clocks to move
   once sampling begins (wave 4); the measurement's own first window settles instead.
3. Windows of calls, each window one torch profiler session (Kineto: CUPTI on
   cuda, rocprofiler on rocm): for every call, a wait for the device, an L2 flush
   and, when a call runs several activities, a hold outside the call's range, then fn()
   inside a range "zl_call#<i>" (torch's _RecordFunctionFast where it has it, else
   record_function). The SM clock is read every CLOCK_EVERY_S of calls inside the window,
   and at least CLOCK_READS_MIN times.
4. The session's events are read straight from the Kineto results (no
   key_averages, no FunctionEvent tree). Every device activity (kernel, memset,
   memcpy) is attributed to a call through correlation ids, never by its name:
   activity -> its runtime/driver launch event (same correlation id) -> the
   innermost op that was open on the launching thread (the launch's linked
   correlation id; the call's own range when no op was) -> the call range that
   contains that op on that thread. When the op cannot be found, the launch's
   own timestamp on its thread decides. A thread without call ranges whose ops name
   a calling thread as their forward thread (the autograd engine's device thread,
   running torch.autograd.grad's nodes while the caller waits in it) works for the
   call open on that thread at the same time. A call's sample is the time from the
   start of its first activity to the end of its last: no subtraction. The
   activities' names make the call's kernel signature, recorded, never used to
   attribute.
5. The samples of calls between two clock readings of which one is below 75 % of
   the maximum SM clock are dropped (nvbench's rule) and counted. The rest form one
   series in call order over the windows; its leading transient (a clock ramp, a
   power step) is cut by MSER (zl_sampling.transient_cut), and zl_sampling decides
   whether the rest is steady and meets the size class's noise target, or how many
   calls the next window makes, or that the time cap is reached.

Problems of the profiler itself (no CUDA activity in this torch build, a
profiler already running, no device activity attributed to the calls, every
sample throttled) raise ProfilerFailed with the reason; zl_timer then times
that shape with the graph timer, then direct.
"""

import bisect
import gc
import re
import time

import zl_clock
import zl_common as zc
import zl_device as zd
import zl_sampling

RANGE_PREFIX = "zl_call#"
# The runtime and driver API calls that launch device work, as CUPTI/roctracer name them
# (cudaLaunchKernel, cuLaunchKernelEx, cudaMemsetAsync, hipLaunchKernel, hipExtModule...,
# musaLaunchKernel): the vendors' API prefixes followed by a capital letter. Used only to
# tell a launch that no op encloses from a torch op whose id collides with its correlation
# id; kernels are never matched by name.
_API_CALL = re.compile(r"^(?:cuda|cu|hip|hsa|musa|mu)[A-Z_]")
# More than this fraction of a batch's calls without any device activity: the
# profiler is not seeing this op's work, so its figures would be of the others.
MAX_MISSING_FRACTION = 0.1


class ProfilerFailed(Exception):
    """The profiler timer cannot time this measurement; reason says why."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


class NoDeviceWork(ProfilerFailed):
    """The profiler ran and saw no device activity in any call of a window: the call launches
    no kernel (a view op such as tensor_split), or the profiler does not see this op's work.
    The timer falls back as for any failure, and the record says which it was."""


# ---------------------------------------------------------------------------
# the neutral event list and the attribution (pure)


class Event:
    """One profiler event, independent of torch's classes.

    kind "cpu" (a torch op, a record_function range, a runtime or driver launch) or
    "device" (a kernel, memset or memcpy); tid: torch's thread id (start_thread_id);
    start/end: ns (a CPU event other than a range is placed by its start alone: from_kineto
    gives it end = start); corr: correlation id (torch's op id for ops and ranges, the
    runtime's for launches and device activities); linked: for launches and device
    activities, the id of the innermost op open when it launched (0: none); fwd: for an
    autograd node's op, the thread that ran its forward (fwd_thread_id; 0: none)."""

    __slots__ = ("kind", "name", "tid", "start", "end", "corr", "linked", "fwd")

    def __init__(self, kind, name, tid, start, end, corr, linked=0, fwd=0):
        self.kind = kind
        self.name = name
        self.tid = tid
        self.start = start
        self.end = end
        self.corr = corr
        self.linked = linked
        self.fwd = fwd

    def __repr__(self):
        return "Event(%r, %r, tid=%r, %r..%r, corr=%r, linked=%r)" % (
            self.kind, self.name, self.tid, self.start, self.end, self.corr, self.linked)


def range_index(name, prefix=RANGE_PREFIX):
    """The call index of a range name "zl_call#<i>", or None."""
    if not name.startswith(prefix):
        return None
    tail = name[len(prefix):]
    return int(tail) if tail.isdigit() else None


class Attribution:
    """calls: {call index: [(start_ns, end_ns, name), ...]} in event order;
    unattributed: device activities no call claims (flushes, activity before the
    first range, other threads' work); ambiguous: activities two calls could claim."""

    def __init__(self):
        self.calls = {}
        self.unattributed = 0
        self.ambiguous = 0


def thread_owners(pairs, callers):
    """{thread: the calling thread it works for} from (thread, forward thread) pairs of
    CPU events: a thread that has no call ranges (not in callers) and whose ops name one
    caller as their forward thread (autograd's device thread: torch.autograd.grad runs the
    nodes there while the caller waits). A thread whose ops name no caller, or two, works
    for none: its work during a call is not the call's."""
    owners = {}
    for tid, fwd in pairs:
        if fwd and tid not in callers and fwd in callers:
            owners[tid] = fwd if owners.get(tid, fwd) == fwd else None
    return {t: f for t, f in owners.items() if f is not None}


class _Ranges:
    """The call ranges per thread, for "which range contains time t on thread tid"; a
    thread that works for a caller (owners) looks at its caller's ranges."""

    def __init__(self):
        self.by_tid = {}
        self.by_corr = {}
        self.owners = {}

    def add(self, e, idx):
        self.by_tid.setdefault(e.tid, []).append((e.start, e.end, idx))
        self.by_corr[e.corr] = idx

    def seal(self):
        self.starts = {}
        for tid, rows in self.by_tid.items():
            rows.sort()
            self.starts[tid] = [r[0] for r in rows]

    def at(self, tid, t):
        rows = self.by_tid.get(tid)
        if not rows:
            tid = self.owners.get(tid)
            rows = self.by_tid.get(tid)
            if not rows:
                return None
        i = bisect.bisect_right(self.starts[tid], t) - 1
        if i >= 0 and rows[i][0] <= t <= rows[i][1]:
            return rows[i][2]
        return None


def _one(found):
    """The single call index of a set, or None (empty) / "ambiguous" (several)."""
    if len(found) == 1:
        return next(iter(found))
    return "ambiguous" if found else None


def attribute(events, prefix=RANGE_PREFIX):
    """Attribute the device activities of one session to its call ranges."""
    ranges = _Ranges()
    cpu_by_corr = {}
    device = []
    fwd_pairs = set()
    for e in events:
        if e.kind == "device":
            # A device-side copy of a range (Kineto's gpu_user_annotation) is no activity.
            if not e.name.startswith(prefix):
                device.append(e)
            continue
        idx = range_index(e.name, prefix)
        if idx is not None:
            ranges.add(e, idx)
        else:
            cpu_by_corr.setdefault(e.corr, []).append(e)
            if e.fwd:
                fwd_pairs.add((e.tid, e.fwd))
    ranges.seal()
    ranges.owners = thread_owners(fwd_pairs, ranges.by_tid)
    out = Attribution()
    for d in device:
        idx = _locate(d, ranges, cpu_by_corr)
        if idx == "ambiguous":
            out.ambiguous += 1
        elif idx is None:
            out.unattributed += 1
        else:
            out.calls.setdefault(idx, []).append((d.start, d.end, d.name))
    return out


def _locate(d, ranges, cpu_by_corr):
    # The launch: a CPU event with the activity's correlation id that is linked to an
    # op. (Torch's op ids and the runtime's correlation ids are separate counters that
    # collide; an op never has a linked id, so the link tells them apart.)
    launches = [c for c in cpu_by_corr.get(d.corr, ()) if c.linked > 0]
    op_ids = {c.linked for c in launches}
    if not op_ids and d.linked > 0:
        op_ids = {d.linked}
    found = set()
    for op_id in op_ids:
        idx = ranges.by_corr.get(op_id)
        if idx is not None:
            found.add(idx)
            continue
        for op in cpu_by_corr.get(op_id, ()):
            # an op has no linked id and is no API call (a launch no op encloses has
            # linked 0 too, and its runtime id may equal this op id)
            if op.linked == 0 and not _API_CALL.match(op.name):
                idx = ranges.at(op.tid, op.start)
                if idx is not None:
                    found.add(idx)
    if found:
        return _one(found)
    # No op to go by: the launch's own timestamp on its thread. A launch that no op
    # encloses (a Triton kernel launched from Python inside the call's range: torch
    # links runtime events to ops only, never to record_function ranges) has linked 0;
    # it is told from a torch op with a colliding id by being an API call.
    if not launches:
        launches = [c for c in cpu_by_corr.get(d.corr, ())
                    if c.linked == 0 and _API_CALL.match(c.name)]
    found = set()
    for c in launches:
        idx = ranges.at(c.tid, c.start)
        if idx is not None:
            found.add(idx)
    return _one(found)


def call_samples(attribution, n_calls):
    """(samples in ms per call with activity, in call order; activity counts per
    such call; calls without activity)."""
    out = call_series(attribution, n_calls)
    return out.samples, out.counts, out.missing


# A kernel's name as recorded: C++ template names run to kilobytes.
NAME_CAP = 160


class CallSeries:
    """A window's calls with activity, in call order: samples (ms), activity counts,
    call indices, kernel signatures (the activities' names by start time, each cut
    to NAME_CAP) and busy (ms of the sample in which some activity ran: the union of the
    activities' spans; empty when not read); missing: calls without activity."""

    __slots__ = ("samples", "counts", "index", "sigs", "busy", "missing")

    def __init__(self):
        self.samples, self.counts, self.index, self.sigs, self.busy = [], [], [], [], []
        self.missing = 0


def busy_ns(acts):
    """The union of the spans (start, end, ...) of acts, sorted by start: ns."""
    total = 0
    lo, hi = acts[0][0], acts[0][1]
    for a in acts:
        if a[0] > hi:
            total += hi - lo
            lo, hi = a[0], a[1]
        elif a[1] > hi:
            hi = a[1]
    return total + hi - lo


def call_series(attribution, n_calls):
    out = CallSeries()
    for i in range(n_calls):
        acts = attribution.calls.get(i)
        if not acts:
            out.missing += 1
            continue
        acts = sorted(acts)
        first = acts[0][0]
        last = max(a[1] for a in acts)
        out.samples.append((last - first) / 1e6)
        out.counts.append(len(acts))
        out.index.append(i)
        out.sigs.append(tuple(a[2][:NAME_CAP] for a in acts))
        out.busy.append(busy_ns(acts) / 1e6)
    return out


# ---------------------------------------------------------------------------
# torch's Kineto events -> the neutral list


def _kineto_fields(first):
    """The unbound methods of torch's _KinetoEvent class that the readers call (each call is one
    into torch's C++): name, device_type, correlation_id, linked_correlation_id,
    start_thread_id, is_user_annotation and fwd_thread_id (None on torch without them), and
    the start and end in ns (start_us()/duration_us() on torch before 2.3)."""
    k = type(first)
    if hasattr(k, "start_ns") and hasattr(k, "end_ns"):
        start_of, end_of = k.start_ns, k.end_ns
    else:
        def start_of(e):
            return e.start_us() * 1000

        def end_of(e):
            return (e.start_us() + e.duration_us()) * 1000
    return (k.name, k.device_type, k.correlation_id, k.linked_correlation_id,
            k.start_thread_id, getattr(k, "is_user_annotation", None),
            getattr(k, "fwd_thread_id", None), start_of, end_of)


def from_kineto(kineto_events, cpu_type, prefix=RANGE_PREFIX):
    """Event list of torch's _KinetoEvent objects (ProfilerResult.events()).

    Uses name(), device_type(), start_ns()/end_ns() (start_us()/duration_us() on
    torch before 2.3), correlation_id(), linked_correlation_id(), start_thread_id()
    and is_user_annotation() and fwd_thread_id() where torch has them. Each is a call into
    torch's C++, so only what the attribution reads is asked: no end for CPU events but the
    ranges, no thread for device events."""
    out = []
    if not kineto_events:
        return out
    name, dtype, corr, linked, tid, user, fwd, start_of, end_of = \
        _kineto_fields(kineto_events[0])
    append = out.append
    for e in kineto_events:
        if dtype(e) == cpu_type:
            n = name(e)
            s = start_of(e)
            append(Event("cpu", n, tid(e), s, end_of(e) if n.startswith(prefix) else s,
                         corr(e), linked(e), fwd(e) if fwd is not None else 0))
        elif user is None or not user(e):
            append(Event("device", name(e), None, start_of(e), end_of(e), corr(e), linked(e)))
    return out


def kineto_series(kineto_events, cpu_type, n_calls, prefix=RANGE_PREFIX):
    """call_series(attribute(from_kineto(events)), n_calls) in one pass over torch's events
    and without the neutral Event objects (the plugin's hot path after every window: per
    call it reads each event's type, name and correlation id, and the few other fields of
    only the events an attribution asks about). The same rules as attribute() and _locate();
    a test checks both give the same series."""
    out = CallSeries()
    if not kineto_events:
        out.missing = n_calls
        return out
    name, dtype, corr, linked, tid, user, fwd, start_of, end_of = \
        _kineto_fields(kineto_events[0])
    plen = len(prefix)
    by_tid, range_of_op, cpu, dev = {}, {}, {}, []
    for e in kineto_events:
        if dtype(e) == cpu_type:
            n = name(e)
            c = corr(e)
            if n.startswith(prefix) and n[plen:].isdigit():
                idx = int(n[plen:])
                by_tid.setdefault(tid(e), []).append((start_of(e), end_of(e), idx))
                range_of_op[c] = idx
            else:
                got = cpu.get(c)
                if got is None:
                    cpu[c] = [(n, e)]
                else:
                    got.append((n, e))
        elif user is None or not user(e):
            n = name(e)
            if not n.startswith(prefix):
                dev.append((start_of(e), end_of(e), n, corr(e), linked(e)))
    starts = {}
    for t, rows in by_tid.items():
        rows.sort()
        starts[t] = [r[0] for r in rows]

    owners = None

    def at(t, when):
        nonlocal owners
        rows = by_tid.get(t)
        if not rows:
            # a thread without ranges: the caller it works for, if any (read once, and only
            # in a window that asks: most have no such thread)
            if owners is None:
                pairs = []
                if fwd is not None:
                    for got in cpu.values():
                        for _, e in got:
                            te = tid(e)
                            if te not in by_tid:
                                pairs.append((te, fwd(e)))
                owners = thread_owners(pairs, by_tid)
            t = owners.get(t)
            rows = by_tid.get(t)
            if not rows:
                return None
        i = bisect.bisect_right(starts[t], when) - 1
        if i >= 0 and rows[i][0] <= when <= rows[i][1]:
            return rows[i][2]
        return None

    api = _API_CALL.match
    calls = {}

    def op_call(op_id):
        """The one call whose range holds op op_id: its index, None (no range), or -1
        (several)."""
        idx = range_of_op.get(op_id)
        if idx is not None:
            return idx
        one = None
        for n, op in cpu.get(op_id, ()):
            if not api(n) and linked(op) == 0:
                i = at(tid(op), start_of(op))
                if i is not None and i != one:
                    if one is not None:
                        return -1
                    one = i
        return one

    for d in dev:
        cands = cpu.get(d[3], ())
        e0 = None
        if len(cands) == 1:
            n0, e0 = cands[0]
            l0 = linked(e0)
        elif cands:
            # a torch op's id collides with the launch's correlation id: one event linked to
            # an op among them is the launch, and the path below is _locate's for it
            for n, e in cands:
                l = linked(e)
                if l > 0:
                    if e0 is not None:
                        e0 = None
                        break
                    n0, e0, l0 = n, e, l
        if e0 is not None:
            # the common case, without the sets: one launch with this correlation id
            idx = None
            if l0 > 0:
                idx = op_call(l0)
                if idx is None:
                    idx = at(tid(e0), start_of(e0))
            else:
                if d[4] > 0:
                    idx = op_call(d[4])
                if idx is None and api(n0) and l0 == 0:
                    idx = at(tid(e0), start_of(e0))
            if idx is not None and idx >= 0:
                got = calls.get(idx)
                if got is None:
                    calls[idx] = [d]
                else:
                    got.append(d)
            continue
        launches = [e for _, e in cands if linked(e) > 0]
        op_ids = {linked(e) for e in launches}
        if not op_ids and d[4] > 0:
            op_ids = {d[4]}
        found = set()
        for op_id in op_ids:
            idx = op_call(op_id)
            if idx == -1:
                found.update((-1, -2))      # several calls: ambiguous
            elif idx is not None:
                found.add(idx)
        if not found:
            if not launches:
                launches = [e for n, e in cands if api(n) and linked(e) == 0]
            for e in launches:
                idx = at(tid(e), start_of(e))
                if idx is not None:
                    found.add(idx)
        if len(found) == 1:
            idx = found.pop()
            got = calls.get(idx)
            if got is None:
                calls[idx] = [d]
            else:
                got.append(d)
    samples, counts, index, sigs, busy = out.samples, out.counts, out.index, out.sigs, out.busy
    for i in range(n_calls):
        acts = calls.get(i)
        if not acts:
            out.missing += 1
            continue
        if len(acts) == 1:
            # one activity: its span is the sample and the busy time
            a = acts[0]
            span = (a[1] - a[0]) / 1e6
            samples.append(span)
            counts.append(1)
            index.append(i)
            sigs.append((a[2][:NAME_CAP],))
            busy.append(span)
            continue
        acts.sort()
        samples.append((max(a[1] for a in acts) - acts[0][0]) / 1e6)
        counts.append(len(acts))
        index.append(i)
        sigs.append(tuple(a[2][:NAME_CAP] for a in acts))
        busy.append(busy_ns(acts) / 1e6)
    return out


# ---------------------------------------------------------------------------
# measuring


class _Profiler:
    """torch's profiler as this module uses it: one session per window."""

    def __init__(self, torch):
        autograd = getattr(torch, "autograd", None)
        prof_mod = getattr(autograd, "profiler", None) if autograd is not None else None
        if prof_mod is None or not hasattr(prof_mod, "profile"):
            raise ProfilerFailed("torch has no torch.autograd.profiler")
        activity = getattr(autograd, "ProfilerActivity", None)
        supported = getattr(autograd, "_supported_activities", None)
        if activity is None or supported is None or not hasattr(activity, "CUDA"):
            raise ProfilerFailed("torch's profiler reports no device activities")
        try:
            have = supported()
        except Exception as e:
            raise ProfilerFailed("torch's profiler cannot list its activities: %s"
                                 % zc.one_line(e)) from None
        if activity.CUDA not in have:
            raise ProfilerFailed("torch's profiler records no device activity in this build "
                                 "(Kineto without CUPTI or roctracer)")
        self.profile = prof_mod.profile
        self.record = _fast_range(torch) or prof_mod.record_function
        self.cpu = autograd.DeviceType.CPU
        self.started = False
        # call site (op, side, bench function) -> the hold (s) its last measurement needed
        # for calls of several activities; a site whose calls ran one activity is absent
        self.holds = {}

    def start(self, device_name):
        """One empty session, once: the first profiler session of a process starts the
        tracing library (CUPTI), which can take long, and no measurement's time cap should
        pay for it."""
        if self.started:
            return
        p = self.session(device_name)
        try:
            p.__enter__()
        except Exception as e:
            raise ProfilerFailed("cannot start the profiler: %s" % zc.one_line(e)) from None
        try:
            p.__exit__(None, None, None)
        except Exception as e:
            raise ProfilerFailed("cannot stop the profiler: %s" % zc.one_line(e)) from None
        self.started = True

    def session(self, device_name):
        try:
            try:
                return self.profile(use_device=device_name, use_kineto=True)
            except TypeError:
                # torch before 2.1 has use_cuda, not use_device
                return self.profile(use_cuda=device_name == "cuda", use_kineto=True)
        except Exception as e:
            raise ProfilerFailed("cannot set up the profiler: %s" % zc.one_line(e)) from None


def _fast_range(torch):
    """torch's _RecordFunctionFast (torch >= 2.2), or None. A record_function range is an
    op of its own: entering and leaving it run two more ops (_record_function_enter_new,
    _record_function_exit) that the profiler records, and a device-side user annotation;
    the fast range is one event, which shortens every call and the session's stop."""
    c = getattr(torch, "_C", None)
    prof = getattr(c, "_profiler", None) if c is not None else None
    fast = getattr(prof, "_RecordFunctionFast", None) if prof is not None else None
    return fast if callable(fast) else None


_profiler = {}


def _profiler_for(torch):
    """The session's _Profiler, made once (its start(): the tracing library's start, once,
    outside any measurement's time cap)."""
    key = id(torch)
    if key not in _profiler:
        _profiler[key] = _Profiler(torch)
    return _profiler[key]


def release():
    """Forget the profiler: the session ends (zl_timer's unconfigure)."""
    _profiler.clear()


# Host gaps: a call of several kernels whose launches the CPU issues slower than the device
# runs them leaves the device idle between its kernels, and a sample from the first kernel's
# start to the last one's end would count that idle time (on an H200, FlagGems' sum of 1048576
# elements, two kernels: 0.025 ms in one run, 0.040 ms in the next). As nvbench's blocking
# kernel does, a spin kernel queued after the flush holds the device until the call's
# launches are all queued, so its kernels run back to back. Hold = HOLD_MARGIN x the host
# time to issue one call + HOLD_EXTRA_S, at most HOLD_MAX_S.
#
# The first size comes from the calls of the window that found several activities unheld
# (the shortest), or from the call site's last measurement's hold (before wave 10 from a
# 3-call probe, before wave 6 from five calls issued outside the profiler); inside a
# window, and in a worker replaying records, issuing is slower and stalls now and then (wave 3: a hold of 146 us left 15 % of one sum measurement's samples
# at 10-64 us). So every profiled call's
# host time (from its flush to the end of its issue) is taken too, and after a window whose
# HOST_QUANTILE of host times asks for a longer hold, the hold grows for the windows after
# it (hold_grown counts the steps; that window's samples stay: the few with a gap are what
# the trimmed mean cuts).
HOLD_MARGIN = 2.0
HOLD_EXTRA_S = 20e-6
HOLD_MAX_S = 0.002
HOST_QUANTILE = 0.9
# Growth sizes from that quantile, already a tail, so with a smaller margin than the first
# size from the shortest of a window's calls; the flush before the hold covers a little more.
HOLD_GROW_MARGIN = 1.25
HOLD_GROW_STEP = 1.05


def hold_seconds(host_s):
    """The hold before each call for a call that takes host_s seconds to issue."""
    return min(HOLD_MAX_S, HOLD_MARGIN * max(host_s, 0.0) + HOLD_EXTRA_S)


class Hold:
    """The spin kernel queued before each call (torch.cuda._sleep), seconds long at the
    device's maximum SM clock; it only grows."""

    def __init__(self, spin, clock_mhz, seconds):
        self.spin = spin
        self.mhz = clock_mhz or 2000.0
        self.grown = 0
        self._set(seconds)

    def _set(self, seconds):
        self.seconds = seconds
        self.cycles = max(1, int(seconds * self.mhz * 1e6))

    def __call__(self):
        self.spin(self.cycles)

    def fit(self, host_times):
        """Grow to what HOST_QUANTILE of host_times (s) asks for, when that is more than
        HOLD_GROW_STEP x the hold; True when it grew."""
        if not host_times:
            return False
        host = zc.quantile(sorted(host_times), HOST_QUANTILE)
        want = min(HOLD_MAX_S, HOLD_GROW_MARGIN * max(host, 0.0) + HOLD_EXTRA_S)
        if want <= self.seconds * HOLD_GROW_STEP:
            return False
        self._set(want)
        self.grown += 1
        return True


def holder(dev, host_times, clock_mhz):
    """The Hold before each call, sized by the shortest of host_times (the seconds profiled
    calls took to issue, their flush included), or None when the device module has no spin
    kernel (torch.cuda._sleep; other vendors' modules may lack it)."""
    spin = getattr(dev, "_sleep", None)
    if not callable(spin) or not host_times:
        return None
    return Hold(spin, clock_mhz, hold_seconds(min(host_times)))


# Why a measurement's calls were or were not held (timer.jsonl hold_reason). A hold only
# matters between the activities of one call: a call of one kernel has no gap inside its
# sample for the host to open, and its hold would be wall time spent on nothing (wave 5 on
# the H200: 120-730 us a call, more than the kernels of most core shapes).
HOLD_SEVERAL = "several activities per call"
HOLD_ONE = "one activity per call"
HOLD_NO_SPIN = "no spin kernel"
# Calls of several activities that ran them back to back without a hold (back_to_back).
HOLD_UNNEEDED = "several activities per call, back to back unheld"

# A call held because the last measurement of its call site needed it, whose own calls all
# ran one activity: the samples are right (the hold is outside the call's range), and the
# next measurement of the site is not held.
HOLD_EARLIER = "several activities per call in the last measurement of this call site"


# Transients: a memory-bound kernel of ~1.4 ms (gelu of 2**30 float16) started after lighter
# work ran 1.53 ms, then stepped down over ~100 calls to 1.36 ms while the clocks settled
# under the power cap (wave 3); mm of 10240x4096 went 1.36 -> 1.23 -> 1.19 ms over its
# first 40 profiled calls after back-to-back calls had warmed it (wave 4); a 0.06 ms call
# read 0.060 ms at 1620 MHz and 0.052 ms once the clock rose (wave 4). Wave 4 settled long
# calls by dropping whole 50 ms batches until two agreed (up to 1.5 s a measurement). Now
# every measurement's samples form one series in call order, and MSER cuts its leading
# transient (zl_sampling.transient_cut): what is left must be steady (the cut in the first
# half of the series) before the noise rule may stop, else the next window extends the
# series. What runs record as timer.profiler_settle: compare and calibrations keep runs
# settled one way apart from runs settled another.
SETTLE_MODE = "mser"

# Clock readings inside a window: one before the first call, then one every so many calls
# (about this much time of them, by the measurement's first estimate of a call), and one
# after the last call. The samples of calls between two readings of which one is throttled
# are dropped.
CLOCK_EVERY_S = 0.002
# ... and at least this many times in a window besides the reading after its last call, so
# that one throttled reading drops at most about a quarter of a window's calls.
CLOCK_READS_MIN = 4

# Queue depth: on an H200 the same two-kernel call (FlagGems' 1-D sum of 1048576 float16)
# measured 4.4 us while the device caught up with the host and 5.4 us once the host ran
# milliseconds ahead (the gap between its kernels grew from 1.0 to 2.0 us), so one run
# reported 4.5 us and the next 5.4 us. Waiting for the device before each call's flush
# starts every call from the same empty queue, as nvbench's cold measurement does
# (scripts/gpu-step-probe.py: three runs 4.46-4.49 us, against 4.50-5.46 us without).
# A module variable so that scripts/gpu-step-probe.py can compare both.
SYNC_EACH_CALL = True


class Window:
    """What one profiled window gave: its calls with activity (CallSeries), each call's
    host issue time (s), the clock readings [(call index, MHz or None)] with the last
    after the final call (index n), the seconds its session took to stop and be read (of
    which stop_s: torch's own stop, before a single event is read), and the seconds its calls
    took (from the first call's wait to the last one's issue)."""

    __slots__ = ("series", "host", "readings", "parse_s", "loop_s", "stop_s", "n")

    def __init__(self, series, host, readings, parse_s, loop_s=0.0, stop_s=0.0, n=None):
        self.series, self.host, self.readings, self.parse_s = series, host, readings, parse_s
        self.loop_s, self.stop_s = loop_s, stop_s
        # the calls made: len(host) (a window cut by time makes fewer than it may)
        self.n = len(host) if n is None else n


def _profile_window(prof, device_name, fn, flush, grad_to_none, n, hold=None, sync=None,
                    clock_read=None, clock_every=1, perf=time.perf_counter, done=None,
                    clock_every_s=None):
    """Run up to n profiled calls, the clock read before every clock_every-th (and, with
    clock_every_s, before any call that many seconds after the last reading) and after the
    last (when clock_read is given); a Window. done(calls, seconds since the first call
    began, the clock readings [(call index, MHz)] so far), when given, is asked after each
    call: True ends the window there."""
    p = prof.session(device_name)
    try:
        p.__enter__()
    except Exception as e:
        raise ProfilerFailed("cannot start the profiler: %s" % zc.one_line(e)) from None
    record = prof.record
    host, readings = [], []
    reset = zd.reset_grads
    every = max(1, int(clock_every))
    t_loop = t_read = perf()
    made = n
    try:
        for i in range(n):
            if clock_read is not None and (i % every == 0 or (
                    clock_every_s is not None and perf() - t_read >= clock_every_s)):
                readings.append((i, clock_read()))
                t_read = perf()
            reset(grad_to_none)
            if sync is not None:
                sync()
            t0 = perf()
            flush()
            if hold is not None:
                hold()
            with record(RANGE_PREFIX + str(i)):
                fn()
            t1 = perf()
            host.append(t1 - t0)
            if done is not None and done(i + 1, t1 - t_loop, readings):
                made = i + 1
                break
        if clock_read is not None:
            readings.append((made, clock_read()))
    except BaseException:
        try:
            p.__exit__(None, None, None)
        except Exception:
            pass
        raise
    # Tens of thousands of small objects: a collection of the process's whole heap (FlagGems
    # keeps millions of objects) in the middle would cost more than the parsing.
    collecting = gc.isenabled()
    gc.disable()
    t_stop = perf()
    loop_s = t_stop - t_loop
    try:
        p.__exit__(None, None, None)
        t_events = perf()
        series = kineto_series(p.kineto_results.events(), prof.cpu, made)
    except Exception as e:
        raise ProfilerFailed("cannot read the profiler's events: %s" % zc.one_line(e)) from None
    finally:
        if collecting:
            gc.enable()
    return Window(series, host, readings, perf() - t_stop, loop_s, t_events - t_stop, made)


def _check_missing(n, missing, window_no):
    """window_no counts from 1."""
    where = "window %d" % window_no
    if missing == n:
        raise NoDeviceWork("the profiler recorded no device activity for any of the %d calls "
                             "of %s" % (n, where))
    if missing > MAX_MISSING_FRACTION * n:
        raise ProfilerFailed("%d of %d profiled calls of %s had no device activity "
                             "attributed" % (missing, n, where))


def throttled_calls(readings, max_mhz):
    """The call indices [lo, hi) of the stretches between two clock readings of which one is
    below THROTTLE_FRACTION of max_mhz: a list of (lo, hi)."""
    out = []
    for (i, a), (j, b) in zip(readings, readings[1:]):
        if zl_clock.throttled((a, b), max_mhz):
            out.append((i, j))
    return out


def estimate(samples):
    """(estimate ms, noise_rel) of kept samples by the trimmed mean."""
    if not samples:
        return None, None
    return (zc.trimmed_mean(samples, zl_sampling.TRIM),
            zc.trimmed_mean_ci_rel(samples, zl_sampling.TRIM))


class _Sampling:
    """One measurement between its windows: what stays fixed (the call, the profiler, the
    flush, hold and wait before each call, the clock) and the series the windows add up."""

    def __init__(self, prof, device_name, fn, flush, grad_to_none, hold, sync, clock, now,
                 sleep, policy, per_call_s=1e-4, make_hold=None):
        self.prof, self.device_name, self.fn, self.flush = prof, device_name, fn, flush
        self.grad_to_none, self.hold, self.sync = grad_to_none, hold, sync
        # make_hold(host times): the Hold (or None) for calls found to run several activities
        # in a window without one; that window's samples are then dropped (rehold counts)
        self.make_hold = make_hold
        self.rehold = 0
        self.several = False        # a window saw a call of several activities
        # the last window's host issue p90 (s) when it outran that window's hold, else 0.0;
        # None when calls of several activities ran with no hold at all
        self.host_over = 0.0
        self.clock, self.now, self.sleep, self.policy = clock, now, sleep, policy
        self.clock_every = max(1, int(CLOCK_EVERY_S / max(per_call_s, 1e-7)))
        # the series: every unthrottled sample in call order, its activity count, signature and
        # idle fraction (None: not known)
        self.series, self.counts, self.sigs, self.idle = [], [], [], []
        self.idle_ms = []           # the same idle time in ms
        self.readings, self.history = [], []
        self.dropped = 0
        self.calls = self.missing = self.windows = 0
        self.cut = 0
        self.steady = None
        self.noise = self.est = None
        self.target = policy.noise_target
        self.windows_s = self.parse_s = self.stop_s = 0.0
        # the wall per call of the last window cut by time (the first), and whether a clock
        # reading failed: what least() decides the sample floor by
        self.first_per_call = None
        self.unread = False
        self.started = now()

    @property
    def kept(self):
        return self.series[self.cut:]

    def least(self):
        """The fewest kept samples this measurement may stop at (zl_sampling.least_samples)."""
        if self.unread:
            return self.policy.min_samples
        return zl_sampling.least_samples(self.policy, self.first_per_call, self.est,
                                         self.readings, self.clock.max_mhz)

    def window(self, n, done=None):
        """One window of n calls (done: the first window's rule, which cuts it by time as it
        runs; the clock is then read every CLOCK_EVERY_S); its wall seconds per call
        (session start, stop and parsing included). Its unthrottled samples join the
        series, then the transient cut, the estimate and the target are taken again."""
        self.windows += 1
        t0 = self.now()
        read = self.clock.read if self.clock.max_mhz else None
        # a window of known size reads the clock every so many calls, one cut by time every
        # CLOCK_EVERY_S
        every = n if done else min(self.clock_every, max(1, n // CLOCK_READS_MIN))
        w = _profile_window(self.prof, self.device_name, self.fn, self.flush, self.grad_to_none,
                            n, self.hold, self.sync, read, every, done=done,
                            clock_every_s=CLOCK_EVERY_S if done else None)
        n = w.n
        spent = self.now() - t0
        self.windows_s += spent
        self.parse_s += w.parse_s
        self.stop_s += w.stop_s
        self.readings += [r for _, r in w.readings if r is not None]
        self.unread = self.unread or any(r is None for _, r in w.readings)
        if done is not None:
            self.first_per_call = w.loop_s / max(n, 1)
        self.calls += n
        self.missing += w.series.missing
        _check_missing(n, w.series.missing, self.windows)
        s = w.series
        per_call = max(spent / max(n, 1), 1e-7)
        self.clock_every = max(1, int(CLOCK_EVERY_S / per_call))
        many = any(c > 1 for c in s.counts)
        self.several = self.several or many
        tight = many and self.hold is None and back_to_back(s)
        if self.hold is None and self.make_hold is not None and many and not tight:
            self.hold = self.make_hold(w.host)
            if self.hold is not None:
                # its calls' samples may hold the gaps a hold keeps out: none of them count
                self.rehold += 1
                return per_call
        bad = throttled_calls(w.readings, self.clock.max_mhz)
        before = self.dropped
        before_len = len(self.series)
        busy = s.busy if len(s.busy) == len(s.samples) else None
        for k, i in enumerate(s.index):
            if any(lo <= i < hi for lo, hi in bad):
                self.dropped += 1
                continue
            self.series.append(s.samples[k])
            self.counts.append(s.counts[k])
            self.sigs.append(s.sigs[k])
            self.idle.append(idle_fraction(s.samples[k], busy[k]) if busy is not None else None)
            self.idle_ms.append(max(0.0, s.samples[k] - busy[k]) if busy is not None else None)
        if s.samples and self.dropped - before == len(s.samples):
            self.sleep(zl_clock.THROTTLE_PAUSE_S)
        if self.hold is not None:
            # what the hold had to cover in this window (before it grows for the next), when
            # the device did idle inside its calls
            self.host_over = _host_over(w.host, self.hold.seconds,
                                        _median_known(self.idle[before_len:]),
                                        _median_known(self.idle_ms[before_len:]),
                                        _median_known(self.counts[before_len:]))
            self.hold.fit(w.host)
        elif many:
            # several activities, nothing held: no gap when they ran back to back, else unknown
            self.host_over = 0.0 if tight and self.host_over is not None else None
        self.cut, self.steady = zl_sampling.transient_cut(self.series)
        self.est, self.noise = estimate(self.kept)
        self.target = zl_sampling.target_for(self.policy, self.est)
        if self.est is not None:
            self.history.append((len(self.kept), self.noise))
        return per_call


# The device idle inside a call's sample (1 - busy / sample) above which a held call whose
# host outran its hold is taken to have waited for the host, when the idle time is also more
# than GAP_US for each boundary between the call's activities (the device's own step from one
# kernel to the next: 1.2-1.3 us a boundary on the H200, wave 11, in held calls of FlagGems'
# mean and smooth_l1_loss, 17-27 % of their 5-10 us samples). Without these tests a call of
# two 1 ms kernels (sign of 2**30 elements: host 244 us, hold 214-325 us) counted as
# host-bound though its second launch was queued long before the first kernel ended.
IDLE_MAX = 0.1
GAP_US = 3.0


# A window of calls of several activities made without a hold keeps its samples when every
# such call ran its activities back to back: the device idled inside it for no longer than
# GAP_US a boundary and under KEEP_IDLE_FRACTION of the sample, so that whatever the host's
# issue added bounds the sample's error at a fifth of the tightest noise target. Long calls
# split into several kernels qualify (on an H100, torch's atan of 2**30 float32 runs two
# 1.4 ms kernels, the second queued long before the first ends): before wave 14 their first
# window was dropped and the rest held, a second window of 10 calls of 2.8 ms and a 0.35 ms
# hold before each call of the site's next measurement. Short calls do not: one 1.3 us
# step is 26 % of a 5 us sample.
KEEP_IDLE_FRACTION = 0.001


def back_to_back(series):
    """Whether every call of several activities in series (a CallSeries) ran them back to
    back (see KEEP_IDLE_FRACTION); False when the busy times are not known."""
    if len(series.busy) != len(series.samples):
        return False
    for sample, busy, count in zip(series.samples, series.busy, series.counts):
        if count > 1:
            idle_ms = max(0.0, sample - busy)
            if idle_ms * 1e3 > GAP_US * (count - 1) or idle_ms > KEEP_IDLE_FRACTION * sample:
                return False
    return True


def idle_fraction(sample_ms, busy_ms):
    """The part of a sample in which no activity of the call ran."""
    if sample_ms <= 0:
        return 0.0
    return min(1.0, max(0.0, 1.0 - busy_ms / sample_ms))


def _median_known(values):
    known = [v for v in values if v is not None]
    return zc.median(known) if known else None


def _host_over(host, hold_s, idle=None, idle_ms=None, kernels=None):
    """The HOST_QUANTILE of a held window's host issue times (s) when it is longer than the
    hold and the device idled inside the calls, else 0.0. idle, idle_ms, kernels: the window's
    median idle fraction, idle time (ms) and activities a call (None: not known)."""
    if not host:
        return 0.0
    p90 = zc.quantile(sorted(host), HOST_QUANTILE)
    if p90 <= hold_s or (idle is not None and idle <= IDLE_MAX):
        return 0.0
    if idle_ms is not None and kernels is not None and \
            idle_ms * 1e3 <= GAP_US * max(0.0, kernels - 1):
        return 0.0
    return p90


def host_bound(several, host_over):
    """Whether the samples hold the host's issue time: the calls ran several activities and
    the host took longer to queue one call than the hold kept the device busy (the hold stops
    at HOLD_MAX_S, so a call of hundreds of launches outruns it: on the H200 the torch side
    of FlagGems' mhc_bwd, 256 kernels a call, read 4.2 ms in one sweep and 1.4 ms in the
    next, wave 10). None when calls of several activities ran without a hold (no spin
    kernel) and not back to back: their gaps are not kept out and not measured; False when
    they ran back to back unheld (back_to_back)."""
    if not several:
        return False
    if host_over is None:
        return None
    return host_over > 0.0


def _kernel_fields(sigs):
    """(the most common kernel signature as a list of names, how many signatures differ)."""
    if not sigs:
        return None, 0
    count = {}
    for s in sigs:
        count[s] = count.get(s, 0) + 1
    top = max(count.items(), key=lambda kv: (kv[1], kv[0]))[0]
    return list(top), len(count)


def measure(fn, warmup=25, rep=100, grad_to_none=None, policy=None, clock=None,
            now=time.monotonic, sleep=time.sleep, cost=None, hint=None):
    """Time fn by device timestamps to policy's noise target (see the module doc).

    Returns {"samples", "estimate_ms", "estimator", "noise_rel", "stop_reason",
    "kernels_per_call", "dropped_throttled", "clock_readings", "batches",
    "calls", "calls_missing", ...}. warmup and rep are do_bench's, accepted so that the
    call matches the other timers' and not used: the series' transient cut replaces the
    warm-up, the time cap the repetitions. cost, a dict, gets first_call_s as soon as the
    first call has ended or failed: a measurement interrupted later still tells its
    compile time apart from the timer's. hint: the call site (any hashable, e.g. op, side
    and bench function), whose last measurement says whether to hold the first window's
    calls."""
    del warmup, rep
    policy = policy or zl_sampling.Policy()
    clock = clock or zl_clock.unknown("no clock reader given")
    cost = {} if cost is None else cost
    try:
        torch, dev = zd.device_api()
    except zd.DeviceUnavailable as e:
        raise ProfilerFailed("no profiler timer: %s" % e.reason) from None
    device_name = zd.device_string()
    flush = zd.flusher(torch, dev)
    t_first = now()
    try:
        fn()
        dev.synchronize()
    finally:
        first_call_s = now() - t_first
        cost["first_call_s"] = round(first_call_s, 6)
    t_prep = now()
    prof = _profiler_for(torch)
    prof.start(device_name)
    sync = dev.synchronize if SYNC_EACH_CALL else None
    spin = getattr(dev, "_sleep", None)
    hold = None
    if callable(spin) and hint is not None and hint in prof.holds:
        hold = Hold(spin, clock.max_mhz, prof.holds[hint])

    def make_hold(host_times):
        return holder(dev, host_times, clock.max_mhz)
    st = _Sampling(prof, device_name, fn, flush, grad_to_none, hold, sync, clock, now, sleep,
                   policy, make_hold=make_hold)
    prep_s = st.started - t_prep

    def first_done(calls, seconds, readings=()):
        return zl_sampling.first_window_done(
            policy, calls, seconds,
            zl_sampling.clock_at_max(policy, [r for _, r in readings], clock.max_mhz))
    first_n = max(policy.min_samples, min(max(policy.first_max, policy.min_window),
                                          policy.max_batch))
    n, done = first_n, first_done
    while True:
        before, rehold = st.calls, st.rehold
        per_call_s = st.window(n, done)
        last = st.calls - before
        reason, n = zl_sampling.next_step(policy, len(st.kept), st.noise, st.history,
                                          now() - st.started, per_call_s, st.target,
                                          st.steady, extend=last, least=st.least())
        if reason is not None:
            break
        done = None
        if st.rehold > rehold and not st.series:
            # the first window, dropped for calls of several activities unheld: made again,
            # held, and cut by time as the first is
            n, done = first_n, first_done
    if st.hold is not None:
        why = HOLD_SEVERAL if st.several else HOLD_EARLIER
    elif not callable(spin):
        why = HOLD_NO_SPIN
    else:
        why = HOLD_UNNEEDED if st.several else HOLD_ONE
    if hint is not None:
        if st.several and st.hold is not None:
            prof.holds[hint] = st.hold.seconds
        else:
            prof.holds.pop(hint, None)
    cost.update({"prep_s": round(prep_s, 6), "windows_s": round(st.windows_s, 6),
                 "parse_s": round(st.parse_s, 6), "stop_s": round(st.stop_s, 6)})
    return _result(st, reason, st.hold, why, dict(cost))


def _result(st, reason, hold, why, cost):
    kept = st.kept
    if not kept:
        raise ProfilerFailed("every one of %d profiled samples was taken below %d %% of the "
                             "maximum SM clock" % (st.dropped,
                                                   round(zl_clock.THROTTLE_FRACTION * 100)))
    est, noise = estimate(kept)
    kernels, variants = _kernel_fields(st.sigs[st.cut:])
    return {"samples": kept, "estimate_ms": est, "estimator": zl_sampling.ESTIMATOR,
            "noise_rel": noise, "stop_reason": reason,
            "kernels_per_call": int(round(zc.median(st.counts[st.cut:]))),
            "dropped_throttled": st.dropped, "clock_readings": st.readings,
            "batches": st.windows, "calls": st.calls, "calls_missing": st.missing,
            "hold_us": round(hold.seconds * 1e6, 3) if hold else None,
            "hold_grown": hold.grown if hold else None,
            "hold_reason": why,
            "rehold": st.rehold,
            "synced_calls": SYNC_EACH_CALL,
            "steady": st.steady,
            "transient_cut": st.cut,
            "transient_ms": [round(x, 6) for x in st.series[:min(st.cut, TRANSIENT_STORE)]],
            "noise_target_used": st.target,
            "least_samples": st.least(),
            "kernels": kernels, "kernel_variants": variants,
            "host_bound": host_bound(st.several, st.host_over),
            "device_idle": _rounded(_median_known(st.idle[st.cut:]), 4),
            "host_issue_us": (round(st.host_over * 1e6, 3)
                              if st.host_over and hold is not None else None),
            "cost": cost}


def _rounded(x, digits):
    return None if x is None else round(x, digits)


# Samples of the cut transient kept in timer.jsonl (the first ones): enough to see its shape.
TRANSIENT_STORE = 200
