"""Fake pynvml (nvidia-ml-py): the calls zl_clock makes.

FAKE_NVML: "off" (not importable), "broken" (nvmlInit fails), "bytes" (the lookups take
bytes only, as pynvml before nvidia-ml-py 11); FAKE_SM_CLOCKS:
comma-separated MHz the SM clock reads, one per call, cycling (default 1980);
FAKE_SM_MAX: the maximum SM clock (default 1980). The one device has the PCI bus
id and uuid the fake torch reports."""
import os

if os.environ.get("FAKE_NVML") == "off":
    raise ImportError("fake pynvml disabled by FAKE_NVML")

NVML_CLOCK_SM = 1
BUS = "00000000:1B:00.0"
UUID = "GPU-204c5b51-daba-ca42-dadb-53ae2a8a760d"
_reads = [0]


class NVMLError(Exception):
    pass


def nvmlInit():
    if os.environ.get("FAKE_NVML") == "broken":
        raise NVMLError("Driver Not Loaded")


def nvmlShutdown():
    pass


def _key(key):
    if os.environ.get("FAKE_NVML") == "bytes":
        if not isinstance(key, bytes):
            raise TypeError("bytes expected, not %s" % type(key).__name__)
        return key.decode()
    return key


def nvmlDeviceGetHandleByPciBusId(bus):
    bus = _key(bus)
    if bus.upper() != BUS:
        raise NVMLError("Not Found: %s" % bus)
    return ("handle", BUS)


def nvmlDeviceGetHandleByUUID(uuid):
    uuid = _key(uuid)
    if uuid != UUID:
        raise NVMLError("Not Found: %s" % uuid)
    return ("handle", BUS)


def nvmlDeviceGetHandleByIndex(index):
    if index != 0:
        raise NVMLError("Invalid Argument: index %d" % index)
    return ("handle", BUS)


def nvmlDeviceGetClockInfo(handle, kind):
    assert kind == NVML_CLOCK_SM
    clocks = [int(x) for x in os.environ.get("FAKE_SM_CLOCKS", "1980").split(",")]
    value = clocks[_reads[0] % len(clocks)]
    _reads[0] += 1
    return value


def nvmlDeviceGetMaxClockInfo(handle, kind):
    assert kind == NVML_CLOCK_SM
    return int(os.environ.get("FAKE_SM_MAX", "1980"))
