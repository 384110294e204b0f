"""zl_clock: the device's SM clock, read around each batch of timed calls.

ZL_CLOCK_SOURCE (from zlbench's backend row) names the source: "nvml" reads NVML
through pynvml when it imports, else through the driver's own libnvidia-ml.so.1
(ctypes); "none" (or anything unknown) gives no readings. A reader that cannot
work says why in its source: "unknown: <why>". Nothing here raises: a clock we
cannot read leaves the numbers alone and is reported, never fatal.

The NVML device is found from the torch device the measurement runs on: its PCI
bus id, else its uuid (both from get_device_properties), else its index through
CUDA_VISIBLE_DEVICES, which is only safe with CUDA_DEVICE_ORDER=PCI_BUS_ID
(NVML numbers devices in PCI order; zlbench pins that order for cuda).
"""

import ctypes
import os

import zl_common as zc

# nvbench's default: samples taken below 75 % of the maximum SM clock are dropped.
THROTTLE_FRACTION = 0.75
# Seconds to wait after a throttled batch before the next (nvbench: 0.05 s).
THROTTLE_PAUSE_S = 0.05
NVML_CLOCK_SM = 1
NVML_LIBRARY = "libnvidia-ml.so.1"


# ---------------------------------------------------------------------------
# pure logic


def pci_bus_string(domain, bus, device):
    """NVML's bus id form, "00000000:1B:00.0", of torch's pci_domain_id/bus/device."""
    return "%08X:%02X:%02X.0" % (domain, bus, device)


def nvml_uuid(uuid):
    """torch prints a device uuid bare; NVML names it "GPU-<uuid>"."""
    text = str(uuid).strip()
    return text if text.startswith(("GPU-", "MIG-")) else "GPU-" + text


def nvml_lookups(index, pci, uuid, visible, order):
    """How to find the NVML device of torch device index: a list of (method, key),
    method "pci", "uuid" or "index", best first, and the reason when the list is empty.

    pci and uuid come from torch's device properties (None when it has none);
    visible and order are CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER."""
    out = []
    if pci:
        out.append(("pci", pci))
    if uuid:
        out.append(("uuid", nvml_uuid(uuid)))
    why = None
    entries = [v.strip() for v in visible.split(",")] if visible else None
    if entries is not None and index >= len(entries):
        why = "torch device %d is not among CUDA_VISIBLE_DEVICES='%s'" % (index, visible)
    elif entries is not None and entries[index].startswith(("GPU-", "MIG-")):
        out.append(("uuid", entries[index]))
    elif order != "PCI_BUS_ID":
        why = ("CUDA_DEVICE_ORDER is '%s', not PCI_BUS_ID: torch's device order need not be "
               "NVML's" % (order or "unset (FASTEST_FIRST)"))
    elif entries is not None:
        try:
            out.append(("index", int(entries[index], 10)))
        except ValueError:
            why = "CUDA_VISIBLE_DEVICES entry '%s' is not an index or uuid" % entries[index]
    else:
        out.append(("index", index))
    return out, (None if out else why)


def clock_stats(readings, max_supported):
    """{"min","median","max","max_supported"} over MHz readings, or None without any."""
    values = [float(r) for r in readings if r is not None]
    if not values:
        return None
    return {"min": min(values), "median": zc.median(values), "max": max(values),
            "max_supported": max_supported}


def throttled(readings, max_supported, fraction=THROTTLE_FRACTION):
    """True when any reading is below fraction of the maximum SM clock; False when
    either is unknown (nothing is dropped on a clock we cannot read)."""
    if not max_supported:
        return False
    return any(r is not None and r < fraction * max_supported for r in readings)


# ---------------------------------------------------------------------------
# NVML bindings: pynvml, or the driver's library through ctypes


class _Pynvml:
    name = "pynvml"

    def __init__(self):
        import pynvml
        self.m = pynvml
        pynvml.nvmlInit()

    def handle(self, method, key):
        if method == "index":
            return self.m.nvmlDeviceGetHandleByIndex(key)
        fn = (self.m.nvmlDeviceGetHandleByPciBusId if method == "pci"
              else self.m.nvmlDeviceGetHandleByUUID)
        try:
            return fn(key)
        except (TypeError, AttributeError, ctypes.ArgumentError):
            # pynvml before nvidia-ml-py 11 takes bytes
            return fn(key.encode())

    def clock(self, handle):
        return self.m.nvmlDeviceGetClockInfo(handle, self.m.NVML_CLOCK_SM)

    def max_clock(self, handle):
        return self.m.nvmlDeviceGetMaxClockInfo(handle, self.m.NVML_CLOCK_SM)


class _CtypesNvml:
    name = "libnvidia-ml"

    def __init__(self):
        self.c = ctypes
        self.lib = ctypes.CDLL(NVML_LIBRARY)
        self._check(self.lib.nvmlInit_v2(), "nvmlInit_v2")

    def _check(self, rc, what):
        if rc != 0:
            raise RuntimeError("%s returned NVML error %d" % (what, rc))

    def handle(self, method, key):
        c = self.c
        h = c.c_void_p()
        if method == "pci":
            rc = self.lib.nvmlDeviceGetHandleByPciBusId_v2(c.c_char_p(key.encode()), c.byref(h))
        elif method == "uuid":
            rc = self.lib.nvmlDeviceGetHandleByUUID(c.c_char_p(key.encode()), c.byref(h))
        else:
            rc = self.lib.nvmlDeviceGetHandleByIndex_v2(c.c_uint(key), c.byref(h))
        self._check(rc, "nvmlDeviceGetHandleBy(%s %s)" % (method, key))
        return h

    def _clock(self, fn, handle):
        value = self.c.c_uint()
        self._check(fn(handle, self.c.c_int(NVML_CLOCK_SM), self.c.byref(value)), fn.__name__)
        return value.value

    def clock(self, handle):
        return self._clock(self.lib.nvmlDeviceGetClockInfo, handle)

    def max_clock(self, handle):
        return self._clock(self.lib.nvmlDeviceGetMaxClockInfo, handle)


# ---------------------------------------------------------------------------
# the reader


class ClockReader:
    """read(): the current SM clock in MHz, or None. source: "nvml" or "unknown: <why>"."""

    def __init__(self, source, binding=None, handle=None, max_mhz=None):
        self.source = source
        self.binding = binding
        self.handle = handle
        self.max_mhz = max_mhz
        self.failed = False

    def read(self):
        if self.binding is None or self.failed:
            return None
        try:
            return float(self.binding.clock(self.handle))
        except Exception as e:
            # One failure ends the readings: say so once, rather than half a record.
            self.failed = True
            self.source = "unknown: reading the SM clock failed: %s" % zc.one_line(e)
            return None


def unknown(why):
    return ClockReader("unknown: " + why)


def _torch_device_facts(dev):
    """(torch index, pci bus string or None, uuid or None) of the current device."""
    index = dev.current_device()
    props = dev.get_device_properties(index)
    pci = None
    if all(hasattr(props, a) for a in ("pci_domain_id", "pci_bus_id", "pci_device_id")):
        pci = pci_bus_string(props.pci_domain_id, props.pci_bus_id, props.pci_device_id)
    uuid = getattr(props, "uuid", None)
    return index, pci, (str(uuid) if uuid else None)


def _bindings():
    for cls in (_Pynvml, _CtypesNvml):
        yield cls


def open_nvml(dev, env=None):
    """A reader for the NVML device behind torch device module dev."""
    env = os.environ if env is None else env
    try:
        index, pci, uuid = _torch_device_facts(dev)
    except Exception as e:
        return unknown("cannot read the torch device's properties: %s" % zc.one_line(e))
    lookups, why = nvml_lookups(index, pci, uuid, env.get("CUDA_VISIBLE_DEVICES"),
                                env.get("CUDA_DEVICE_ORDER"))
    if not lookups:
        return unknown(why)
    errors = []
    for cls in _bindings():
        try:
            binding = cls()
        except Exception as e:
            errors.append("%s: %s" % (cls.name, zc.one_line(e)))
            continue
        for method, key in lookups:
            try:
                handle = binding.handle(method, key)
                max_mhz = float(binding.max_clock(handle))
                return ClockReader("nvml", binding, handle, max_mhz)
            except Exception as e:
                errors.append("%s by %s %s: %s" % (cls.name, method, key, zc.one_line(e)))
    return unknown("NVML did not answer: " + "; ".join(errors))


def open_reader(source, dev):
    """The reader ZL_CLOCK_SOURCE asks for; never raises."""
    if source in (None, "", "nvml"):
        if dev is None:
            return unknown("no device module")
        return open_nvml(dev)
    if source == "none":
        return unknown("the backend has no clock source (ZL_CLOCK_SOURCE=none)")
    return unknown("clock source '%s' is not known to the plugins" % source)

