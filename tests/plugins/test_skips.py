"""zl_skips: FlagGems' unsupported-dtype ValueError becomes a skip naming what the op supports,
and skips.json counts the session's tests by outcome."""
import zl_skips


class Dtype:
    """Prints as torch's dtypes do (torch.float16)."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name


class torch:  # noqa: N801 - the names the tests below read like torch's
    float16, bfloat16, float32 = Dtype("float16"), Dtype("bfloat16"), Dtype("float32")
    int32, int64 = Dtype("int32"), Dtype("int64")

# A stand-in for FlagGems' benchmark/base.py: set_dtypes validates --dtypes against the
# benchmark's own dtypes and raises FlagGems' ValueError, message byte for byte.
BASE = '''
import torch


class Config:
    user_desired_dtypes = None


class Benchmark:
    def __init__(self, op_name, dtypes=None):
        self.op_name = op_name
        self.dtypes = dtypes if dtypes is not None else [torch.float16, torch.float32, torch.bfloat16]

    def set_dtypes(self, user_desired_dtypes):
        if user_desired_dtypes and not all(d in self.dtypes for d in user_desired_dtypes):
            invalid_dtypes = [d for d in user_desired_dtypes if d not in self.dtypes]
            raise ValueError(
                f"Given dtype(s) '{', '.join(str(d) for d in invalid_dtypes)}'"
                f"can't be supported by this op '{self.op_name}'"
            )
        self.to_bench_dtypes = user_desired_dtypes or self.dtypes

    def init_user_config(self):
        self.set_dtypes(Config.user_desired_dtypes)

    def run(self):
        self.init_user_config()
'''

CONFTEST = '''
import torch

from . import base


def pytest_addoption(parser):
    parser.addoption("--dtypes", default=None)


def pytest_configure(config):
    raw = config.getoption("--dtypes")
    base.Config.user_desired_dtypes = [getattr(torch, d) for d in raw.split(",")] if raw else None
'''

TESTS = '''
import pytest
import torch

from . import base


@pytest.mark.gcd_
def test_gcd_():
    base.Benchmark("gcd_", dtypes=[torch.int32, torch.int64]).run()


@pytest.mark.abs
def test_abs():
    base.Benchmark("abs").run()


@pytest.mark.vllm_op
@pytest.mark.skipif(True, reason="vLLM not installed")
def test_vllm_op():
    pass


@pytest.mark.broken
def test_broken():
    raise ValueError("some other value error")
'''


def tree(runner):
    runner.write("benchmark/__init__.py", "")
    runner.write("benchmark/base.py", BASE)
    runner.write("benchmark/conftest.py", CONFTEST)
    runner.write("benchmark/test_ops.py", TESTS)


def run(runner, *args, **env):
    return runner.run(["benchmark/test_ops.py"] + list(args), env, plugins=("zl_skips",), bench_opts=False)


# ---- the pure pieces


class Bench:
    """Has set_dtypes, as FlagGems' Benchmark; raises its error."""

    def __init__(self, dtypes):
        self.dtypes = dtypes

    def set_dtypes(self, given):
        raise ValueError("Given dtype(s) '%s'can't be supported by this op 'gcd_'"
                         % ", ".join(str(d) for d in given))


def raised(fn, *args):
    try:
        fn(*args)
    except Exception as e:
        return e
    raise AssertionError("nothing raised")


def test_reason_names_the_dtype_and_what_the_op_supports():
    e = raised(Bench([torch.int32, torch.int64]).set_dtypes, [torch.float16])
    assert zl_skips.unsupported_dtype_reason(e) == \
        "dtype float16 not supported by this op; it supports int32, int64"
    e = raised(Bench([torch.float32]).set_dtypes, [torch.float16, torch.bfloat16])
    assert zl_skips.unsupported_dtype_reason(e) == \
        "dtypes float16, bfloat16 not supported by this op; it supports float32"


def test_reason_without_the_frame_names_the_op():
    e = ValueError("Given dtype(s) 'torch.float16' can't be supported by this op 'gcd_'")
    assert zl_skips.unsupported_dtype_reason(e) == \
        "dtype float16 not supported by this op (FlagGems' op 'gcd_'; its dtypes are not known here)"


def test_other_errors_are_no_skip():
    assert zl_skips.unsupported_dtype_reason(ValueError("Invalid metrics: x for operation: 'mm'")) is None
    assert zl_skips.unsupported_dtype_reason(RuntimeError("Given dtype(s) 'torch.float16'can't be supported by this op 'x'")) is None
    assert zl_skips.unsupported_dtype_reason(None) is None


def test_a_caused_error_is_found():
    inner = raised(Bench([torch.int32]).set_dtypes, [torch.float16])
    try:
        raise RuntimeError("benchmark failed") from inner
    except RuntimeError as outer:
        assert zl_skips.unsupported_dtype_reason(outer) == \
            "dtype float16 not supported by this op; it supports int32"


def test_outcomes_over_phases():
    class R:
        def __init__(self, when, outcome):
            self.when, self.passed, self.failed, self.skipped = \
                when, outcome == "passed", outcome == "failed", outcome == "skipped"

    o = None
    for r in (R("setup", "passed"), R("call", "passed"), R("teardown", "passed")):
        o = zl_skips.outcome_of(o, r)
    assert o == "passed"
    o = None
    for r in (R("setup", "passed"), R("call", "passed"), R("teardown", "failed")):
        o = zl_skips.outcome_of(o, r)
    assert o == "failed"
    o = None
    for r in (R("setup", "skipped"), R("teardown", "passed")):
        o = zl_skips.outcome_of(o, r)
    assert o == "skipped"


# ---- in a pytest session


def test_unsupported_dtype_is_a_skip_with_its_reason(runner):
    tree(runner)
    r = run(runner, "--dtypes", "float16", "-rs", "-m", "gcd_")
    assert r.rc == 0, r
    assert "1 skipped" in r.out, r
    assert "dtype float16 not supported by this op; it supports int32, int64" in r.out, r
    assert "ValueError" not in r.out, r
    s = r.json("plugins", "skips.json")
    assert (s["passed"], s["failed"], s["skipped"]) == (0, 0, 1), s
    assert s["skips"] == [{"nodeid": "benchmark/test_ops.py::test_gcd_",
                           "reason": "dtype float16 not supported by this op; it supports int32, int64",
                           "unsupported_dtype": True}]


def test_a_session_counts_every_outcome(runner):
    tree(runner)
    r = run(runner, "--dtypes", "float16")
    assert r.rc == 1, r                       # test_broken's other ValueError still fails
    s = r.json("plugins", "skips.json")
    assert (s["passed"], s["failed"], s["skipped"]) == (1, 1, 2), s
    by_node = {k["nodeid"].split("::")[1]: k for k in s["skips"]}
    assert by_node["test_gcd_"]["unsupported_dtype"] is True
    assert by_node["test_vllm_op"] == {"nodeid": "benchmark/test_ops.py::test_vllm_op",
                                       "reason": "vLLM not installed", "unsupported_dtype": False}


def test_supported_dtypes_run(runner):
    tree(runner)
    r = run(runner, "--dtypes", "int32", "-m", "gcd_")
    assert r.rc == 0, r
    s = r.json("plugins", "skips.json")
    assert (s["passed"], s["failed"], s["skipped"], s["skips"]) == (1, 0, 0, []), s


def test_without_a_run_directory_the_skip_still_happens(runner):
    tree(runner)
    r = runner.run(["benchmark/test_ops.py", "--dtypes", "float16", "-m", "gcd_"], {},
                   plugins=("zl_skips",), run_dir=False, bench_opts=False)
    assert r.rc == 0, r
    assert "1 skipped" in r.out, r
