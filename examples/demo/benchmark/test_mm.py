import cpuref
import pytest

from . import base, consts


def mm_input_fn(b, m, n, k, cur_dtype, device, b_column_major):
    inp1 = cpuref.randn([m, k], dtype=cur_dtype, device=device)
    if b_column_major:
        inp2 = cpuref.randn([n, k], dtype=cur_dtype, device=device)
        yield inp1, inp2.t()
    else:
        inp2 = cpuref.randn([k, n], dtype=cur_dtype, device=device)
        yield inp1, inp2


@pytest.mark.mm
def test_mm():
    bench = base.BlasBenchmark(
        op_name="mm",
        input_fn=mm_input_fn,
        torch_op=cpuref.mm,
        dtypes=consts.FLOAT_DTYPES,
    )
    bench.run()
