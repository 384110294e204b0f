"""The parts of FlagGems' benchmark/base.py the timer hooks: Benchmark.get_latency
(kernel mode: do_bench_npu on ascend, triton.testing.do_bench elsewhere),
record_shapes, and run() calling the torch baseline, then the gems op (gems_op, or
torch_op inside flag_gems.use_gems())."""
import pytest
import torch
import triton

import flag_gems

vendor_name = flag_gems.vendor_name


class Benchmark:
    DEFAULT_DTYPES = [torch.float16]
    DEFAULT_SHAPES = [(1024,), (4096,)]

    def __init__(self, op_name, torch_op, dtypes=None, gems_op=None, shapes=None,
                 is_backward=False):
        self.op_name = op_name
        self.is_backward = is_backward
        self.torch_op = torch_op
        self.gems_op = gems_op
        self.dtypes = dtypes or self.DEFAULT_DTYPES
        self.shapes = shapes or self.DEFAULT_SHAPES

    def record_shapes(self, *args, **kwargs):
        def deep_parse(item):
            if isinstance(item, torch.Tensor):
                return item.size()
            if isinstance(item, (int, float, str, torch.dtype)):
                return item
            if isinstance(item, (list, tuple)):
                return [deep_parse(sub) for sub in item]
            return None
        return [deep_parse(a) for a in args]

    def get_latency(self, op, *args, **kwargs):
        from . import conftest
        fn = lambda: op(*args, **kwargs)  # noqa: E731
        if self.is_backward:
            # as FlagGems' base.py: the forward once, then the backward is what is timed
            out = fn()
            dout = torch.randn(out.shape, dtype=out.dtype, device=flag_gems.device)
            xs = [args[0]]
            fn = lambda: torch.autograd.grad((out,), xs, grad_outputs=(dout,),  # noqa: E731
                                             retain_graph=True)
        if vendor_name == "ascend":
            do_bench = triton.backends.ascend.testing.do_bench_npu
            return do_bench(fn)
        do_bench = triton.testing.do_bench
        return do_bench(fn, warmup=conftest.Config.warm_up, rep=conftest.Config.repetition,
                        return_mode="median", grad_to_none=None)

    def get_input_iter(self, dtype):
        for shape in self.shapes:
            yield (torch.randn(shape, dtype=dtype, device=flag_gems.device),
                   torch.randn(shape, dtype=dtype, device=flag_gems.device))

    def run(self):
        from . import conftest
        for dtype in self.dtypes:
            metrics = []
            for args in self.get_input_iter(dtype):
                metric = {"shape_detail": self.record_shapes(*args), "latency_base": None,
                          "latency": None, "error_msg": None}
                try:
                    metric["latency_base"] = self.get_latency(self.torch_op, *args)
                    if self.gems_op:
                        metric["latency"] = self.get_latency(self.gems_op, *args)
                    else:
                        with flag_gems.use_gems():
                            metric["latency"] = self.get_latency(self.torch_op, *args)
                except Exception as e:
                    metric["error_msg"] = str(e)
                    pytest.fail(str(e))
                finally:
                    metrics.append(metric)
            conftest.update_result(self.op_name, {"op_name": self.op_name, "dtype": str(dtype),
                                                  "mode": "kernel", "result": metrics})


class SubBenchmark(Benchmark):
    """Overrides get_latency and calls super(), like benchmark/test_index_fill.py."""

    def get_latency(self, op, *args, **kwargs):
        return super().get_latency(op, *args, **kwargs)
