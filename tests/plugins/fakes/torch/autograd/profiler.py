"""Fake torch.autograd.profiler: profile(use_device=..., use_kineto=True) and
record_function, recording what Kineto reports through ProfilerResult.events().

Per launch (torch.cuda._launch) a session records
- a CPU runtime event (cuLaunchKernel, cudaMemsetAsync, ...) with a runtime
  correlation id, the launching thread's id and the innermost open op's id as its
  linked correlation id (0 when no op is open: a record_function range is no op);
- a device activity (device_type CUDA) with the same correlation and linked ids and
  the device clock's start and end (FAKE_QUANT_NS: rounded down to that step, as
  CUPTI's timestamps step in about 32 ns).
Ops and record_function ranges are CPU events whose correlation id comes from
torch's own op counter; the runtime counter is another, so ids collide, as in torch.
A range also gets Kineto's gpu_user_annotation copy (a device event of its name)."""
import os

from . import DeviceType

# Torch's op counter (next_correlation_id) and CUPTI's: separate, both from 1.
_op_ids = [0]
_runtime_ids = [0]
sessions = [0]
# Host time of an op's enter or exit and of a launch, ns.
OP_NS = 200
LAUNCH_NS = 2000


def _next(counter):
    counter[0] += 1
    return counter[0]


class _KinetoEvent:
    """The methods of torch._C._autograd._KinetoEvent that the timer reads."""

    def __init__(self, name, device_type, start_ns, end_ns, corr, linked, tid,
                 user_annotation=False, fwd=0):
        self._name = name
        self._device_type = device_type
        self._start = int(start_ns)
        self._end = int(end_ns)
        self._corr = corr
        self._linked = linked
        self._tid = tid
        self._user = user_annotation
        self._fwd = fwd

    def name(self):
        return self._name

    def device_type(self):
        return self._device_type

    def start_ns(self):
        return self._start

    def end_ns(self):
        return self._end

    def duration_ns(self):
        return self._end - self._start

    def correlation_id(self):
        return self._corr

    def linked_correlation_id(self):
        return self._linked

    def start_thread_id(self):
        return self._tid

    def device_index(self):
        return 0

    def is_user_annotation(self):
        return self._user

    def fwd_thread_id(self):
        return self._fwd


class _KinetoEventNoFwd(_KinetoEvent):
    """A torch whose _KinetoEvent has no fwd_thread_id() (FAKE_PROFILER=nofwd)."""

    fwd_thread_id = None


class _ProfilerResult:
    def __init__(self, events, start_ns):
        self._events = events
        self._start = start_ns

    def events(self):
        return list(self._events)

    def trace_start_ns(self):
        return self._start


def _quant(ns):
    step = int(os.environ.get("FAKE_QUANT_NS", "0") or 0)
    return ns - ns % step if step > 0 else ns


class _Session:
    def __init__(self, device):
        from .. import cuda
        self.cuda = cuda
        self.device = device and os.environ.get("FAKE_PROFILER") != "nodevice"
        self.link = os.environ.get("FAKE_PROFILER") != "nolink"
        self.event = _KinetoEventNoFwd if os.environ.get("FAKE_PROFILER") == "nofwd" \
            else _KinetoEvent
        self.events = []
        self.stacks = {}
        self.start = cuda._cpu_ns[0]

    def enter(self, name, user=False, fwd=0):
        tid = self.cuda.thread_id()
        rec = [name, tid, self.cuda._tick(OP_NS), _next(_op_ids), user, None, fwd]
        self.stacks.setdefault(tid, []).append(rec)
        if user:
            rec[5] = self.cuda._clock[0]
        return rec

    def exit(self, rec):
        name, tid, start, corr, user, dev_start, fwd = rec
        end = self.cuda._tick(OP_NS)
        self.stacks[tid].remove(rec)
        self.events.append(self.event(name, DeviceType.CPU, start, end, corr, 0, tid, fwd=fwd))
        if user and self.device:
            self.events.append(self.event(name, DeviceType.CUDA, dev_start * 1e6,
                                            self.cuda._clock[0] * 1e6, 0, 0, 0, True))

    def launch(self, runtime_name, device_name, start_ms, end_ms):
        tid = self.cuda.thread_id()
        # torch links a runtime event to the innermost open op, never to a
        # record_function range (USER_SCOPE): a launch from Python inside a range has
        # linked 0 (seen on an H200, torch 2.11: cuLaunchKernelEx of a Triton kernel).
        ops = [r for r in self.stacks.get(tid, ()) if not r[4]]
        linked = ops[-1][3] if ops and self.link else 0
        corr = _next(_runtime_ids)
        t0 = self.cuda._tick(LAUNCH_NS // 2)
        self.cuda._tick(LAUNCH_NS // 2)
        self.events.append(self.event(runtime_name, DeviceType.CPU, t0, t0 + LAUNCH_NS // 4,
                                        corr, linked, tid))
        if self.device:
            self.events.append(self.event(device_name, DeviceType.CUDA,
                                            _quant(int(round(start_ms * 1e6))),
                                            _quant(int(round(end_ms * 1e6))), corr, linked, 0))



class profile:
    """torch.autograd.profiler.profile's constructor and context protocol."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False):
        from . import ProfilerActivity, _supported_activities
        self.enabled = enabled
        self.kineto_results = None
        self.entered = False
        self.device = (use_device == "cuda" or use_cuda) and use_kineto and \
            ProfilerActivity.CUDA in _supported_activities()

    def __enter__(self):
        from .. import cuda
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        if cuda._session[0] is not None:
            raise RuntimeError("Profiler is already enabled on this thread")
        self.entered = True
        self._session = _Session(self.device)
        cuda._session[0] = self._session
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        from .. import cuda
        cuda.synchronize()
        cuda._session[0] = None
        sessions[0] += 1
        self.kineto_results = _ProfilerResult(self._session.events, self._session.start)
        return False


class record_function:
    """A USER_SCOPE range: a CPU op event of its name while a session runs."""

    def __init__(self, name, args=None):
        self.name = name
        self.rec = None

    def __enter__(self):
        from .. import cuda
        session = cuda._session[0]
        if session is not None:
            self.session = session
            self.rec = session.enter(self.name, user=True)
        return self

    def __exit__(self, *exc):
        if self.rec is not None:
            self.session.exit(self.rec)
            self.rec = None
        return False
