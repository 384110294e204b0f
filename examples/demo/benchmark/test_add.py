import cpuref
import pytest

from . import base, consts


@pytest.mark.add
def test_add():
    bench = base.BinaryPointwiseBenchmark(
        op_name="add",
        torch_op=cpuref.add,
        dtypes=consts.FLOAT_DTYPES,
    )
    bench.run()
