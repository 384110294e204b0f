# triton imports its installed backends at start-up; triton-ascend's package
# brings its testing module (do_bench_npu) along.
from . import ascend  # noqa: F401
