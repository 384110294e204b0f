import cpuref
import pytest

from . import base, consts


@pytest.mark.softmax
def test_softmax():
    bench = base.UnaryReductionBenchmark(
        op_name="softmax",
        torch_op=cpuref.softmax,
        dtypes=consts.FLOAT_DTYPES,
    )
    bench.run()
