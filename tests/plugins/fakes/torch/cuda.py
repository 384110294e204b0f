"""Fake device with a virtual clock (ms). Launches advance the clock by their cost;
graphs capture costs and replay them; events read the clock.

While a fake profiler session (torch.autograd.profiler.profile) runs, every launch
is recorded the way Kineto reports it: a CPU-side runtime event and a device
activity sharing a runtime correlation id, both linked to the innermost op open on
the launching thread (see torch/autograd/profiler.py)."""
import contextlib
import os
import threading

_clock = [0.0]
_capturing = [None]
FLUSH_ELEMENTS = 1 << 24

# The host side of the profiler's timeline: a CPU clock in ns (epoch-like, as torch's
# start_ns() is), advanced by launches and ranges. Kept apart from the device clock.
_cpu_ns = [1_700_000_000_000_000_000]
# The session a fake profiler records into, or None.
_session = [None]
_threads = {}
_noise_state = [12345]
# Launches since the last synchronize(): the depth of the fake's queue (FAKE_QUEUE_GAP_MS).
_pending = [0]
QUEUE_DEEP = 4
# Launches so far per kernel (name, cost): the clock of FAKE_TRANSIENT.
_launch_counts = {}
# FAKE_ISSUE_GAP_MS: activities of the call being issued since the last flush, and whether a
# spin kernel (a hold) was queued since the last synchronize().
_call_acts = [0]
_held = [False]
_copies = []  # (from, to, bytes) of each Tensor.to that moved a tensor


def flush_cost(tensor):
    if tensor.numel() >= FLUSH_ELEMENTS:
        return float(os.environ.get("FAKE_FLUSH_MS", "0.5"))
    return tensor.numel() * tensor.dtype.itemsize * 1e-9


def thread_id():
    """torch's RecordFunction thread ids: 1, 2, ... in order of first use."""
    ident = threading.get_ident()
    if ident not in _threads:
        _threads[ident] = len(_threads) + 1
    return _threads[ident]


def _tick(ns):
    _cpu_ns[0] += ns
    return _cpu_ns[0]


def _noisy(cost_ms, name):
    """FAKE_NOISE=r: kernel costs (not flushes) times 1 + r * u, u uniform in [-1, 1]
    from a fixed-seed generator; FAKE_DRIFT=d: times (1 + d) ** (profiler sessions so far);
    FAKE_QUEUE_GAP_MS=g: plus g when QUEUE_DEEP launches or more wait since the last
    synchronize() (on an H200 the gap between the two kernels of a call grew by ~1 us when
    the host ran milliseconds ahead of the device)."""
    if name in ("fill_", "spin_kernel"):
        return cost_ms
    transient = os.environ.get("FAKE_TRANSIENT")
    if transient:
        # a:n: the k-th launch of a kernel costs 1 + a * (1 - k/n) times more, k < n (a
        # long kernel slowed at first while the clocks settle)
        a, n = (float(x) for x in transient.split(":"))
        key = (name, round(cost_ms, 12))
        k = _launch_counts.get(key, 0)
        _launch_counts[key] = k + 1
        cost_ms *= 1.0 + a * max(0.0, 1.0 - k / n)
    gap = float(os.environ.get("FAKE_QUEUE_GAP_MS", "0") or 0)
    if gap and _pending[0] >= QUEUE_DEEP:
        cost_ms += gap
    amp = float(os.environ.get("FAKE_NOISE", "0") or 0)
    if amp:
        _noise_state[0] = (_noise_state[0] * 1103515245 + 12345) % (1 << 31)
        cost_ms *= 1.0 + amp * (2.0 * _noise_state[0] / float(1 << 31) - 1.0)
    drift = float(os.environ.get("FAKE_DRIFT", "0") or 0)
    if drift:
        from .autograd import profiler
        cost_ms *= (1.0 + drift) ** profiler.sessions[0]
    return cost_ms


@contextlib.contextmanager
def _op(name, fwd=0):
    """A torch op (aten::...) around fake work: a profiler session records it (fwd: the
    forward thread of an autograd node's op)."""
    session = _session[0]
    if session is None:
        yield
        return
    rec = session.enter(name, fwd=fwd)
    try:
        yield
    finally:
        session.exit(rec)


_RUNTIME_NAMES = {"kernel": "cuLaunchKernel", "memset": "cudaMemsetAsync",
                  "memcpy": "cudaMemcpyAsync"}
_DEVICE_NAMES = {"memset": "Memset (Device)", "memcpy": "Memcpy DtoD (Device -> Device)"}


def _launch(cost_ms, name="kernel", kind="kernel"):
    graph = _capturing[0]
    if graph is not None:
        graph._nodes.append((name, cost_ms))
        return
    cost_ms = _noisy(cost_ms, name)
    _issue_gap(name)
    _pending[0] += 1
    session = _session[0]
    start_ms = _clock[0]
    _clock[0] += cost_ms
    if session is not None:
        session.launch(_RUNTIME_NAMES[kind], _DEVICE_NAMES.get(kind, name), start_ms, _clock[0])


def _issue_gap(name):
    """FAKE_ISSUE_GAP_MS=g: a host that issues slower than the device runs: every activity of
    a call after its first (counted from the last flush) starts g after the one before it
    ended, unless a spin kernel queued since the last synchronize() held the device until the
    call was issued (the profiler timer's hold)."""
    if name == "fill_":
        _call_acts[0] = 0
        return
    if name == "spin_kernel":
        _held[0] = True
        return
    gap = float(os.environ.get("FAKE_ISSUE_GAP_MS", "0") or 0)
    if gap and _call_acts[0] > 0 and not _held[0]:
        _clock[0] += gap
    _call_acts[0] += 1


# As torch's CUDA generator: capture_begin puts it in capture mode, only a
# successful capture_end takes it out; random numbers outside a capture then fail.
_rng_capturing = [False]


def _rng_offset_increment():
    if _rng_capturing[0] and _capturing[0] is None:
        raise RuntimeError("Offset increment outside graph capture encountered unexpectedly.")


def is_current_stream_capturing():
    return _capturing[0] is not None


def _sleep(cycles):
    """torch.cuda._sleep: a kernel that spins for cycles device cycles (at 2 GHz here),
    rounded to whole microseconds so the fake device clock stays exact in ns."""
    _launch(round(cycles / 2e3) / 1e3, name="spin_kernel")


def synchronize(device=None):
    if _capturing[0] is not None:
        _capturing[0]._invalid = True
        raise RuntimeError("CUDA error: operation not permitted when stream is capturing\n"
                           "CUDA kernel errors might be asynchronously reported")
    _pending[0] = 0
    _held[0] = False


def is_available():
    return True


def current_device():
    return 0


def device_count():
    return 1


def get_device_name(index=None):
    return "Fake Accelerator"


def get_device_capability(index=None):
    return (9, 0)


class _Props:
    """What torch.cuda.get_device_properties gives (the fields zl_clock reads)."""

    def __init__(self):
        self.name = "Fake Accelerator"
        self.major, self.minor = 9, 0
        self.uuid = "204c5b51-daba-ca42-dadb-53ae2a8a760d"
        self.pci_domain_id, self.pci_bus_id, self.pci_device_id = 0, 0x1B, 0


def get_device_properties(index=None):
    return _Props()


def empty_cache():
    pass


class Event:
    def __init__(self, enable_timing=False):
        self.t = None

    def record(self, stream=None):
        self.t = _clock[0]

    def elapsed_time(self, end):
        return end.t - self.t


class Stream:
    pass


_default = Stream()
_current = [_default]


def current_stream(device=None):
    return _current[0]


def default_stream(device=None):
    return _default


@contextlib.contextmanager
def stream(s):
    prev = _current[0]
    _current[0] = s
    try:
        yield
    finally:
        _current[0] = prev


class CUDAGraph:
    def __init__(self):
        self._nodes = []
        self._invalid = False
        self._ready = False

    def capture_begin(self):
        if _capturing[0] is not None:
            raise RuntimeError("already capturing")
        _capturing[0] = self
        _rng_capturing[0] = True

    def capture_end(self):
        _capturing[0] = None
        if self._invalid:
            raise RuntimeError("CUDA error: operation failed due to a previous error during capture")
        _rng_capturing[0] = False
        self._ready = True

    def replay(self):
        if not self._ready:
            raise RuntimeError("replay of a graph that was not captured")
        for _, cost in self._nodes:
            _clock[0] += cost


@contextlib.contextmanager
def graph(cuda_graph, pool=None, stream=None):
    cuda_graph.capture_begin()
    try:
        yield cuda_graph
    finally:
        cuda_graph.capture_end()


if os.environ.get("FAKE_NO_GRAPH"):
    del CUDAGraph
    del graph

if os.environ.get("FAKE_NO_SLEEP"):
    del _sleep
