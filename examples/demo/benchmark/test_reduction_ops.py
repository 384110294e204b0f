# Operators without a test_<op>.py of their own: found by their marker
# (zlbench run --op amax runs this file with -m amax).
import cpuref
import pytest

from . import base, consts


@pytest.mark.amax
def test_amax():
    bench = base.UnaryReductionBenchmark(
        op_name="amax",
        torch_op=cpuref.amax,
        dtypes=consts.FLOAT_DTYPES,
    )
    bench.run()


@pytest.mark.amin
def test_amin():
    bench = base.UnaryReductionBenchmark(
        op_name="amin",
        torch_op=cpuref.amin,
        dtypes=consts.FLOAT_DTYPES,
    )
    bench.run()
