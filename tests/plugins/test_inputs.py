"""zl_inputs: --draw-inputs device has FlagGems' integer and bool inputs drawn on the device,
from FlagGems' ranges; every other dtype is FlagGems' own call; the originals come back."""
import types

import zl_inputs


class torch:  # noqa: N801 - what zl_inputs reads of torch, for the in-process tests
    int32, bool, float32 = "torch.int32", "torch.bool", "torch.float32"

    class iinfo:  # noqa: N801
        def __init__(self, dtype):
            assert dtype == torch.int32
            self.min, self.max = -2 ** 31, 2 ** 31 - 1

    @staticmethod
    def randint(low, high, size, dtype, device):
        return types.SimpleNamespace(device=device, low=low, high=high, dtype=dtype,
                                     numel=lambda: 2, element_size=lambda: 4)

# FlagGems' benchmark/consts.py and the generate_tensor_input of base.py and utils.py
# (ed2508bc), byte for byte but for the license header.
CONSTS = '''
import torch

FLOAT_DTYPES = [torch.float16, torch.float32, torch.bfloat16]
INT_DTYPES = [torch.int16, torch.int32]
BOOL_DTYPES = [torch.bool]
COMPLEX_DTYPES = [torch.complex64]
'''

GENERATE = '''
def generate_tensor_input(shape, dtype, device):
    if dtype in consts.FLOAT_DTYPES:
        return torch.randn(shape, dtype=dtype, device=device)
    elif dtype in consts.INT_DTYPES:
        return torch.randint(
            torch.iinfo(dtype).min,
            torch.iinfo(dtype).max,
            shape,
            dtype=dtype,
            device="cpu",
        ).to(device)
    elif dtype in consts.BOOL_DTYPES:
        return torch.randint(0, 2, size=shape, dtype=dtype, device="cpu").to(device)
    elif dtype in consts.COMPLEX_DTYPES:
        return torch.randn(shape, dtype=dtype, device=device)
'''

BASE = '''
import torch

from . import consts
''' + GENERATE + '''

def binary_input_fn(shape, cur_dtype, device):
    inp1 = generate_tensor_input(shape, cur_dtype, device)
    inp2 = generate_tensor_input(shape, cur_dtype, device)
    yield inp1, inp2
'''

UTILS = '''
import torch

from . import consts
''' + GENERATE

# A test that binds the name itself, one that calls utils', one that draws on the CPU itself.
TESTS = '''
import pytest
import torch
import torch.cuda as tc

from . import base, utils
from .base import generate_tensor_input

SEEN = []


def where(t):
    return (t.dtype.name, t.device, t.low, t.high)


@pytest.mark.xor
def test_xor():
    tc._copies.clear()
    a, b = next(base.binary_input_fn((1024,), torch.int32, "cuda"))
    c = generate_tensor_input((8,), torch.bool, "cuda")
    d = utils.generate_tensor_input((4,), torch.int16, "cuda")
    f = base.generate_tensor_input((4,), torch.float16, "cuda")
    e = base.generate_tensor_input((4,), torch.int64, "cuda")
    own = torch.randint(0, 8, (4,), dtype=torch.int32, device="cpu").to("cuda")
    print("\\nZL_SEEN", [where(a), where(b), where(c), where(d)], f.device, e, own.device, len(tc._copies))
'''


def tree(runner):
    runner.write("benchmark/__init__.py", "")
    runner.write("benchmark/consts.py", CONSTS)
    runner.write("benchmark/base.py", BASE)
    runner.write("benchmark/utils.py", UTILS)
    runner.write("benchmark/test_ops.py", TESTS)


def run(runner, plugins=("zl_inputs",), *args):
    return runner.run(["benchmark/test_ops.py"] + list(args), {}, plugins=plugins, bench_opts=False)


def seen(r):
    line = r.lines("ZL_SEEN")
    assert len(line) == 1, r
    return line[0]


I32 = (-2 ** 31, 2 ** 31 - 1)
I16 = (-32768, 32767)


def test_integer_and_bool_inputs_are_drawn_on_the_device_from_flaggems_ranges(runner):
    tree(runner)
    r = run(runner)
    assert r.rc == 0, r
    line = seen(r)
    # int32 twice through base's own binding, bool through the test's binding, int16 through utils'
    assert ("[('int32', 'cuda', %d, %d), ('int32', 'cuda', %d, %d), ('bool', 'cuda', 0, 2), "
            "('int16', 'cuda', %d, %d)]" % (I32 + I32 + I16)) in line, line
    # float16 is FlagGems' own draw; int64 is not FlagGems' INT_DTYPES: its function returns None;
    # the test's own CPU draw is copied (1 copy): only that one moved from the CPU
    assert line.endswith("cuda None cuda 1"), line
    doc = r.json("plugins", "inputs.json")
    assert doc["draw"] == "device"
    assert doc["replaced"] == ["benchmark.base", "benchmark.utils"], doc
    assert doc["bindings"] == 3, doc          # base's, utils', and the test module's own name
    assert doc["drawn_on_device"] == 4 and doc["left_to_flaggems"] == 2, doc
    assert doc["drawn_bytes"] == 1024 * 4 * 2 + 8 + 4 * 2, doc
    assert doc["by_dtype"] == {"int32": 2, "bool": 1, "int16": 1}, doc


def test_without_the_plugin_flaggems_draws_on_the_cpu_and_copies(runner):
    tree(runner)
    r = run(runner, plugins=())
    assert r.rc == 0, r
    line = seen(r)
    assert "('int32', 'cuda', %d, %d)" % I32 in line, line
    assert line.endswith("cuda None cuda 5"), line  # 4 FlagGems copies and the test's own


def test_the_originals_come_back_and_nothing_is_replaced_twice():
    consts = types.SimpleNamespace(INT_DTYPES=[torch.int32], BOOL_DTYPES=[torch.bool])
    mod = types.ModuleType("benchmark.base")
    mod.__file__ = "/x/benchmark/base.py"
    exec("def generate_tensor_input(shape, dtype, device):\n    return ('flaggems', dtype)\n",
         mod.__dict__)
    mod.consts = consts
    mod.torch = torch
    user = types.ModuleType("benchmark.test_x")
    user.__file__ = "/x/benchmark/test_x.py"
    user.gen = mod.generate_tensor_input
    elsewhere = types.ModuleType("other")
    elsewhere.__file__ = "/y/other.py"
    elsewhere.generate_tensor_input = mod.generate_tensor_input
    modules = {"benchmark.base": mod, "benchmark.test_x": user, "other": elsewhere}
    orig = mod.generate_tensor_input

    found = zl_inputs.originals(modules, "/x")
    assert [name for _, name in found.values()] == ["benchmark.base"]
    assert zl_inputs.originals(modules, "/z") == {}        # nothing under another root
    counts = {"drawn_on_device": 0, "drawn_bytes": 0, "left_to_flaggems": 0, "by_dtype": {}}
    undo = zl_inputs.rebind(modules, {k: (fn, zl_inputs.device_draw(fn, counts))
                                      for k, (fn, _) in found.items()})
    assert len(undo) == 3                                  # every binding, wherever it lives
    assert mod.generate_tensor_input is not orig and user.gen is mod.generate_tensor_input
    assert mod.generate_tensor_input((2,), torch.float32, "cuda") == ("flaggems", torch.float32)
    t = user.gen((2,), torch.int32, "cuda")
    assert (t.device, t.low, t.high) == ("cuda", -2 ** 31, 2 ** 31 - 1)
    assert zl_inputs.originals(modules, "/x") == {}        # a replacement is never replaced again
    zl_inputs.unbind(undo)
    assert mod.generate_tensor_input is orig and user.gen is orig and elsewhere.generate_tensor_input is orig


def test_a_function_without_flaggems_consts_or_torch_is_left_alone():
    mod = types.ModuleType("benchmark.base")
    mod.__file__ = "/x/benchmark/base.py"
    exec("def generate_tensor_input(shape, dtype, device):\n    return None\n", mod.__dict__)
    assert zl_inputs.originals({"benchmark.base": mod}, "/x") == {}
    mod.torch = torch                                      # torch, no consts
    assert zl_inputs.originals({"benchmark.base": mod}, "/x") == {}
    del mod.torch
    mod.consts = types.SimpleNamespace(INT_DTYPES=[], BOOL_DTYPES=[])   # consts, no torch
    assert zl_inputs.originals({"benchmark.base": mod}, "/x") == {}


def test_no_flaggems_function_says_so(runner):
    runner.write("benchmark/__init__.py", "")
    runner.write("benchmark/test_ops.py", "def test_nothing():\n    pass\n")
    r = run(runner)
    assert r.rc == 0, r
    assert "zl_inputs: no FlagGems generate_tensor_input (a function whose module imports torch and consts) found" \
        in r.out + r.err, r
    doc = r.json("plugins", "inputs.json")
    assert doc["replaced"] == [] and doc["drawn_on_device"] == 0, doc
