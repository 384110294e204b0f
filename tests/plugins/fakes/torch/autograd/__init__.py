"""Fake torch.autograd: the profiler names zl_profiler_timer uses, as torch exports them
(DeviceType, ProfilerActivity and _supported_activities come from torch._C._autograd).

FAKE_PROFILER: "off" (no CUDA activity: Kineto built without CUPTI), "nodevice" (the
session records no device activity), "nolink" (launches carry no linked op id)."""
import os


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
