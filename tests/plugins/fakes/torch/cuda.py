"""Fake device with a virtual clock (ms). Launches advance the clock by their cost;
graphs capture costs and replay them; events read the clock."""
import contextlib
import os

_clock = [0.0]
_capturing = [None]
FLUSH_ELEMENTS = 1 << 24


def flush_cost(tensor):
    if tensor.numel() >= FLUSH_ELEMENTS:
        return float(os.environ.get("FAKE_FLUSH_MS", "0.5"))
    return tensor.numel() * tensor.dtype.itemsize * 1e-9


def _launch(cost_ms, name="kernel"):
    graph = _capturing[0]
    if graph is not None:
        graph._nodes.append((name, cost_ms))
        return
    _clock[0] += cost_ms


# As torch's CUDA generator: capture_begin puts it in capture mode, only a
# successful capture_end takes it out; random numbers outside a capture then fail.
_rng_capturing = [False]


def _rng_offset_increment():
    if _rng_capturing[0] and _capturing[0] is None:
        raise RuntimeError("Offset increment outside graph capture encountered unexpectedly.")


def is_current_stream_capturing():
    return _capturing[0] is not None


def synchronize(device=None):
    if _capturing[0] is not None:
        _capturing[0]._invalid = True
        raise RuntimeError("CUDA error: operation not permitted when stream is capturing\n"
                           "CUDA kernel errors might be asynchronously reported")


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
