"""Fake torch.autograd: the profiler names zl_profiler_timer uses, as torch exports them
(DeviceType, ProfilerActivity and _supported_activities come from torch._C._autograd).

FAKE_PROFILER: "off" (no CUDA activity: Kineto built without CUPTI), "nodevice" (the
session records no device activity), "nolink" (launches carry no linked op id), "nofwd" (a
torch whose events have no fwd_thread_id()).

grad() runs the outputs' nodes (Tensor.grad_fn: a _Node) on the engine's device thread while
the caller waits, as torch's autograd engine does for a CUDA device: each node is an op
"autograd::engine::evaluate_function: <name>" around an op <name>, both with the caller as
their forward thread (fwd_thread_id), on a thread of their own."""
import os
import queue
import threading


class _Enum:
    def __init__(self, kind, name):
        self.kind = kind
        self.name = name

    def __repr__(self):
        return "<%s.%s>" % (self.kind, self.name)


class DeviceType:
    CPU = _Enum("DeviceType", "CPU")
    CUDA = _Enum("DeviceType", "CUDA")


class ProfilerActivity:
    CPU = _Enum("ProfilerActivity", "CPU")
    CUDA = _Enum("ProfilerActivity", "CUDA")


def _supported_activities():
    if os.environ.get("FAKE_PROFILER") == "off":
        return {ProfilerActivity.CPU}
    return {ProfilerActivity.CPU, ProfilerActivity.CUDA}


from . import profiler  # noqa: E402,F401


class _Node:
    """A graph node: name (MulBackward0) and fn(), the backward's device work."""

    def __init__(self, name, fn):
        self.name = name
        self.fn = fn


_engine = []


def _engine_queue():
    """The device thread's work queue, started once (torch keeps one thread a device)."""
    if not _engine:
        q = queue.Queue()

        def serve():
            while True:
                job, done = q.get()
                try:
                    job()
                except BaseException as e:  # noqa: BLE001 - handed back to the caller
                    done.error = e
                done.set()

        threading.Thread(target=serve, name="fake autograd engine", daemon=True).start()
        _engine.append(q)
    return _engine[0]


def grad(outputs, inputs, grad_outputs=None, retain_graph=None):
    from .. import Tensor, cuda
    caller = cuda.thread_id()
    nodes = [o.grad_fn for o in outputs if getattr(o, "grad_fn", None) is not None]

    def run():
        for n in nodes:
            with cuda._op("autograd::engine::evaluate_function: " + n.name, fwd=caller):
                with cuda._op(n.name, fwd=caller):
                    n.fn()

    done = threading.Event()
    done.error = None
    _engine_queue().put((run, done))
    done.wait()
    if done.error is not None:
        raise done.error
    return tuple(Tensor(x.shape, x.dtype) for x in inputs)
