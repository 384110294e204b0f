"""zl_device's L2 flush: Triton's buffer, cleared as its driver clears it, with one torch op
fewer where that clear is only zero_ (wave 15)."""

import sys
import types

import pytest

import zl_device as zd


class Buffer:
    """A flush buffer that logs what clears it."""

    def __init__(self, log, fill=True):
        self.log = log
        if fill:
            self.fill_ = lambda value: log.append(("fill_", value)) or self

    def zero_(self):
        self.log.append("zero_")
        return self


def _triton(driver):
    runtime = types.SimpleNamespace(driver=types.SimpleNamespace(active=driver))
    return types.SimpleNamespace(runtime=runtime)


def _zeroing_driver(buf):
    """Triton 3.x's nvidia and amd drivers as do_bench sees them."""
    class Driver:
        def get_empty_cache_for_benchmark(self):
            return buf

        def clear_cache(self, cache):
            cache.zero_()
    return Driver()


@pytest.fixture
def fresh():
    zd.release()
    yield
    zd.release()


def test_a_clear_cache_that_only_zeroes_becomes_one_fill(monkeypatch, fresh):
    # Triton 3.x's nvidia and amd drivers: clear_cache(cache) is cache.zero_(), which torch
    # runs as aten::zero_ around aten::fill_; fill_(0) is the same kernel, one op fewer.
    log = []
    buf = Buffer(log)
    driver = _zeroing_driver(buf)
    monkeypatch.setitem(sys.modules, "triton", _triton(driver))
    assert zd.zeroes_only(driver.clear_cache)
    flush = zd.flusher(None, None)
    flush()
    flush()
    assert log == [("fill_", 0), ("fill_", 0)]
    assert zd._cache["cache"] is buf and zd.flusher(None, None) is flush


@pytest.mark.parametrize("body", ["more", "delegates", "other"])
def test_a_clear_cache_that_does_anything_else_is_called_as_it_is(monkeypatch, fresh, body):
    log = []
    buf = Buffer(log)

    class Inner:
        def clear_cache(self, cache):
            cache.zero_()

    class Driver:
        _delegate = Inner()

        def get_empty_cache_for_benchmark(self):
            return buf

        if body == "more":
            def clear_cache(self, cache):
                log.append("sync")
                cache.zero_()
        elif body == "delegates":
            def clear_cache(self, cache):
                return self._delegate.clear_cache(cache)
        else:
            def clear_cache(self, cache):
                cache.fill_(1)
    monkeypatch.setitem(sys.modules, "triton", _triton(Driver()))
    assert not zd.zeroes_only(Driver().clear_cache)
    zd.flusher(None, None)()
    assert log == {"more": ["sync", "zero_"], "delegates": ["zero_"],
                   "other": [("fill_", 1)]}[body]


def test_a_buffer_without_fill_keeps_the_drivers_clear(monkeypatch, fresh):
    log = []
    buf = Buffer(log, fill=False)
    monkeypatch.setitem(sys.modules, "triton", _triton(_zeroing_driver(buf)))
    zd.flusher(None, None)()
    assert log == ["zero_"]


@pytest.mark.parametrize("fill", [True, False])
def test_without_triton_the_own_buffer_is_filled_or_zeroed(monkeypatch, fresh, fill):
    log, made = [], []

    def empty(n, dtype=None, device=None):
        made.append((n, device))
        return Buffer(log, fill=fill)
    torch = types.SimpleNamespace(empty=empty, int8="int8")
    monkeypatch.setitem(sys.modules, "triton", None)
    zd.flusher(torch, None)()
    assert made == [(zd.FLUSH_BYTES, zd.device_string())]
    assert log == ([("fill_", 0)] if fill else ["zero_"])
