"""zl_clock: finding the NVML device of a torch device, reading it, and the throttle rule."""
import sys

import pytest

import zl_clock
from conftest import FAKES_DIR

BUS = "00000000:1B:00.0"
UUID = "204c5b51-daba-ca42-dadb-53ae2a8a760d"


def test_lookups_prefer_the_pci_bus_then_the_uuid():
    out, why = zl_clock.nvml_lookups(0, BUS, UUID, None, None)
    assert out == [("pci", BUS), ("uuid", "GPU-" + UUID)] and why is None
    assert zl_clock.nvml_lookups(0, None, "GPU-" + UUID, None, None)[0] == [("uuid", "GPU-" + UUID)]


def test_lookups_by_index_need_pci_order():
    # torch device 1 of CUDA_VISIBLE_DEVICES=2,5 is NVML device 5 in PCI order
    assert zl_clock.nvml_lookups(1, None, None, "2,5", "PCI_BUS_ID") == ([("index", 5)], None)
    assert zl_clock.nvml_lookups(0, None, None, None, "PCI_BUS_ID") == ([("index", 0)], None)
    out, why = zl_clock.nvml_lookups(1, None, None, "2,5", None)
    assert out == [] and "CUDA_DEVICE_ORDER is 'unset (FASTEST_FIRST)'" in why
    out, why = zl_clock.nvml_lookups(2, None, None, "2,5", "PCI_BUS_ID")
    assert out == [] and why == "torch device 2 is not among CUDA_VISIBLE_DEVICES='2,5'"
    # a uuid in CUDA_VISIBLE_DEVICES names the device whatever the order
    assert zl_clock.nvml_lookups(0, None, None, "GPU-" + UUID, None)[0] == [("uuid", "GPU-" + UUID)]
    out, why = zl_clock.nvml_lookups(0, None, None, "x1", "PCI_BUS_ID")
    assert out == [] and "'x1' is not an index or uuid" in why


def test_pci_bus_string_is_nvmls_form():
    assert zl_clock.pci_bus_string(0, 0x1B, 0) == BUS
    assert zl_clock.nvml_uuid(UUID) == "GPU-" + UUID
    assert zl_clock.nvml_uuid("MIG-abc") == "MIG-abc"


def test_clock_stats_and_the_75_percent_rule():
    assert zl_clock.clock_stats([1980, None, 1500, 1700], 1980) == \
        {"min": 1500.0, "median": 1700.0, "max": 1980.0, "max_supported": 1980}
    assert zl_clock.clock_stats([None], 1980) is None
    assert zl_clock.throttled((1980, 1484), 1980)
    assert not zl_clock.throttled((1980, 1485), 1980)
    assert not zl_clock.throttled((100, None), None)      # unknown max: nothing dropped


class Props:
    pci_domain_id, pci_bus_id, pci_device_id = 0, 0x1B, 0
    uuid = UUID


class Dev:
    props = Props()

    def current_device(self):
        return 0

    def get_device_properties(self, index):
        return self.props


@pytest.fixture
def fake_nvml(monkeypatch):
    monkeypatch.syspath_prepend(FAKES_DIR)
    monkeypatch.delitem(sys.modules, "pynvml", raising=False)
    monkeypatch.setattr(zl_clock, "NVML_LIBRARY", "libzl-no-such-nvml.so")
    yield monkeypatch
    sys.modules.pop("pynvml", None)


def test_reader_through_pynvml(fake_nvml):
    fake_nvml.setenv("FAKE_SM_CLOCKS", "1980,1200")
    reader = zl_clock.open_reader("nvml", Dev())
    assert (reader.source, reader.max_mhz) == ("nvml", 1980.0)
    assert [reader.read(), reader.read(), reader.read()] == [1980.0, 1200.0, 1980.0]


def test_reader_through_an_old_pynvml_that_takes_bytes(fake_nvml):
    fake_nvml.setenv("FAKE_NVML", "bytes")
    reader = zl_clock.open_reader("nvml", Dev())
    assert (reader.source, reader.read()) == ("nvml", 1980.0)


def test_reader_falls_back_to_the_uuid(fake_nvml):
    class Other(Props):
        pci_bus_id = 0x3B
    dev = Dev()
    dev.props = Other()
    assert zl_clock.open_reader("nvml", dev).source == "nvml"


def test_reader_says_why_it_has_no_clock(fake_nvml):
    fake_nvml.setenv("FAKE_NVML", "off")
    reader = zl_clock.open_reader("nvml", Dev())
    assert reader.source.startswith("unknown: NVML did not answer: pynvml: ")
    assert "libnvidia-ml: " in reader.source and reader.read() is None
    assert zl_clock.open_reader("none", Dev()).source == \
        "unknown: the backend has no clock source (ZL_CLOCK_SOURCE=none)"
    assert zl_clock.open_reader("amdsmi", Dev()).source == \
        "unknown: clock source 'amdsmi' is not known to the plugins"

    class NoProps(Dev):
        def get_device_properties(self, index):
            raise RuntimeError("boom")
    assert zl_clock.open_reader("nvml", NoProps()).source == \
        "unknown: cannot read the torch device's properties: boom"


def test_a_reading_that_fails_ends_the_readings_and_says_so():
    class Broken:
        def clock(self, handle):
            raise RuntimeError("GPU is lost")
    reader = zl_clock.ClockReader("nvml", Broken(), None, 1980.0)
    assert reader.read() is None and reader.read() is None
    assert reader.source == "unknown: reading the SM clock failed: GPU is lost"
