"""The demo's FLAGGEMS_DEMO_SLOWDOWN knob (examples/demo/src/flag_gems/utils/slowdown.py):
the known change of the ab tests. Loaded by path: importing flag_gems would run the demo."""
import importlib.util
import os

import pytest

SRC = os.path.join(os.environ.get("ZL_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                   "examples", "demo", "src", "flag_gems", "utils", "slowdown.py")
spec = importlib.util.spec_from_file_location("demo_slowdown", SRC)
slowdown = importlib.util.module_from_spec(spec)
spec.loader.exec_module(slowdown)
KNOWN = ("add", "mm", "softmax")


def test_parse():
    assert slowdown.parse(None, KNOWN) == {}
    assert slowdown.parse("", KNOWN) == {}
    assert slowdown.parse("add=20, mm=2,", KNOWN) == {"add": 20, "mm": 2}
    assert slowdown.parse("add=2,add=3", KNOWN) == {"add": 3}


@pytest.mark.parametrize("text, culprit", [
    ("sub=2", "'sub=2' is not OP=FACTOR"),
    ("add", "'add' is not OP=FACTOR"),
    ("add=0", "factor '0' of 'add'"),
    ("add=1.5", "factor '1.5' of 'add'"),
    ("add=x", "factor 'x' of 'add'"),
])
def test_parse_refuses(text, culprit):
    with pytest.raises(ValueError, match=culprit):
        slowdown.parse(text, KNOWN)


def test_slowed_does_the_work_n_times():
    calls = []

    def kernel(x, scale=1):
        calls.append(x)
        return x * scale

    assert slowdown.slowed(kernel, 1) is kernel
    slow = slowdown.slowed(kernel, 4)
    assert slow.__name__ == "kernel"  # the registrar matches ops by name
    assert slow(3, scale=2) == 6
    assert calls == [3, 3, 3, 3]
