"""The Benchmark classes, structured and named as in FlagGems' benchmark/base.py.

Benchmark.run(): read the user's config, then for every dtype and every input from
get_input_iter(): time the torch side (self.torch_op; here a cpuref operator) and the
FlagGems side (self.gems_op, or self.torch_op inside flag_gems.use_gems()) with
get_latency(), which in kernel mode calls triton.testing.do_bench; print the table and
record the results. Shapes: the op's entry in the shape file, else the entry of the
nearest Benchmark class in its MRO; at level comprehensive, set_more_shapes() adds more.
Not supported on the stand-ins: backward benchmarks (is_backward=True).
"""

import gc
import os
import time
from dataclasses import asdict
from typing import Any, Generator, List, Optional, Tuple

import cpuref
import pytest
import triton
import yaml

import flag_gems
from flag_gems.utils import shape_utils

from . import consts
from .conftest import Config, emit_record_logger, update_result
from .consts import (
    BenchmarkMetrics,
    BenchmarkResult,
    OperationAttribute,
    check_metric_dependencies,
    model_shapes,
)

torch_device_fn = flag_gems.runtime.torch_device_fn
device = flag_gems.device
vendor_name = flag_gems.vendor_name


def get_iter_count(fn):
    if Config.mode == consts.BenchMode.OPERATOR:
        torch_device_fn.synchronize()
        start = time.time()
        for _ in range(5):
            fn()
        torch_device_fn.synchronize()
        latency = (time.time() - start) / 5 * 1000
    elif Config.mode == consts.BenchMode.WRAPPER:
        torch_device_fn.synchronize()
        start = time.time()
        for _ in range(5):
            fn()
        end = time.time()
        torch_device_fn.synchronize()
        latency = (end - start) / 5 * 1000
    else:
        raise ValueError("Unsupport Benchmark Mode.")
    latency = max(latency, 1e-6)
    return max(1, int(Config.warm_up / latency)), max(1, int(Config.repetition / latency))


class Benchmark:
    device: str = device
    DEFAULT_METRICS = consts.DEFAULT_METRICS
    DEFAULT_DTYPES = consts.FLOAT_DTYPES
    DEFAULT_SHAPES = consts.DEFAULT_SHAPES
    DEFAULT_SHAPE_DESC = "M, N"
    DEFAULT_SHAPE_FILES = os.path.join(os.path.dirname(__file__), "core_shapes.yaml")
    """
    the base class for the operations benchmark
    """

    def __init__(self, op_name, torch_op, dtypes=None, is_backward=False, is_inplace=False,
                 **kwargs):
        if is_backward:
            raise NotImplementedError("the demo's CPU stand-ins have no backward benchmarks")
        self.op_name = op_name
        self.torch_op = torch_op
        self.gems_op = kwargs.get("gems_op", None)
        self.is_backward = is_backward
        self.is_inplace = is_inplace
        self._input_iter = None

        # Theoretical supported dtypes, metrics for the operation.
        self.dtypes = dtypes if dtypes is not None else self.DEFAULT_DTYPES
        self.metrics = self.DEFAULT_METRICS
        self.shapes = self.DEFAULT_SHAPES
        self.shape_desc = self.DEFAULT_SHAPE_DESC
        self.shape_file = self.DEFAULT_SHAPE_FILES

        # Actual dtypes and metrics to be used, can be influenced by user input.
        self.to_bench_dtypes = self.dtypes
        self.to_bench_metrics = self.metrics

        for k in kwargs:
            if hasattr(self, k):
                setattr(self, k, kwargs[k])

    def set_metrics(self, user_desired_metrics: Optional[List[str]]):
        if user_desired_metrics:
            invalid_metrics = [m for m in user_desired_metrics if m not in self.metrics]
            if invalid_metrics:
                raise ValueError(
                    f"Invalid metrics: {', '.join(invalid_metrics)} for operation: '{self.op_name}'"
                )
            unsatisfied_metrics = check_metric_dependencies(user_desired_metrics)
            if unsatisfied_metrics:
                raise ValueError(f"Unsatisfied metric dependencies: {', '.join(unsatisfied_metrics)}")
        self.to_bench_metrics = list(user_desired_metrics or self.metrics)
        if Config.bench_level == consts.BenchLevel.COMPREHENSIVE and not Config.query:
            for metric in self.set_more_metrics():
                if metric not in self.to_bench_metrics:
                    self.to_bench_metrics.append(metric)

    def set_more_metrics(self):
        """Additional metrics at level comprehensive (optional to override)."""
        return []

    def set_dtypes(self, user_desired_dtypes):
        if user_desired_dtypes and not all(dtype in self.dtypes for dtype in user_desired_dtypes):
            invalid_dtypes = [dtype for dtype in user_desired_dtypes if dtype not in self.dtypes]
            raise ValueError(
                f"Given dtype(s) '{', '.join(str(dtype) for dtype in invalid_dtypes)}'"
                f"can't be supported by this op '{self.op_name}'"
            )
        self.to_bench_dtypes = user_desired_dtypes if user_desired_dtypes else self.dtypes

    def set_shapes(self, shape_file_path=None):
        if not os.path.isfile(shape_file_path):
            raise FileNotFoundError(f"Shape file '{shape_file_path}' does not exist.")
        try:
            with open(shape_file_path, "r") as file:
                yaml_config = yaml.safe_load(file)
                if self.op_name in yaml_config:
                    self.shapes = yaml_config[self.op_name].get("shapes", self.DEFAULT_SHAPES)
                    self.shape_desc = yaml_config[self.op_name].get(
                        "shape_desc", self.DEFAULT_SHAPE_DESC)
                else:
                    for cls in type(self).__mro__:
                        if cls.__name__ in yaml_config:
                            self.shapes = yaml_config[cls.__name__].get(
                                "shapes", self.DEFAULT_SHAPES)
                            self.shape_desc = yaml_config[cls.__name__].get(
                                "shape_desc", self.DEFAULT_SHAPE_DESC)
                            break
                    else:
                        self.shapes = self.DEFAULT_SHAPES
            self.shapes = [tuple(shape) for shape in self.shapes]
            # At level comprehensive the subclass' extra shapes are merged in (deduplicated).
            if Config.bench_level == consts.BenchLevel.COMPREHENSIVE and not Config.query:
                additional_shapes = self.set_more_shapes()
                if additional_shapes:
                    self.shapes = list(dict.fromkeys(self.shapes + additional_shapes))
        except yaml.YAMLError as e:
            raise ValueError(f"Shape file '{shape_file_path}' is not a valid YAML file. Error: {e}")

    def set_more_shapes(self) -> Optional[List[Any]]:
        """Additional shapes at level comprehensive (optional to override)."""
        return []

    def record_shapes(self, *args, **kwargs):
        def deep_parse(item):
            if isinstance(item, cpuref.Tensor):
                return item.size()
            if isinstance(item, (int, float, str, cpuref.dtype)):
                return item
            if isinstance(item, (list, tuple)):
                return [deep_parse(sub_item) for sub_item in item]
            if isinstance(item, dict):
                return {key: deep_parse(value) for key, value in item.items()}
            return None

        parsed_args = [deep_parse(arg) for arg in args]
        parsed_kwargs = {key: deep_parse(value) for key, value in kwargs.items()}
        if parsed_args and parsed_kwargs:
            return parsed_args, parsed_kwargs
        return parsed_args if parsed_args else parsed_kwargs

    def init_default_config(self):
        self.set_shapes(self.DEFAULT_SHAPE_FILES)

    def init_user_config(self):
        self.mode = Config.mode
        self.set_dtypes(Config.user_desired_dtypes)
        self.set_metrics(Config.user_desired_metrics)
        self.set_shapes(Config.shape_file)

    def set_gems(self, gems_op):
        self.gems_op = gems_op

    def get_latency(self, op, *args, **kwargs):
        fn = lambda: op(*args, **kwargs)  # noqa: E731
        if Config.mode == consts.BenchMode.OPERATOR:
            n_warm, n_rep = get_iter_count(fn)
            for _ in range(n_warm):
                fn()
            torch_device_fn.synchronize()
            start = time.time()
            for _ in range(n_rep):
                fn()
            torch_device_fn.synchronize()
            latency = (time.time() - start) / n_rep * 1000
        elif Config.mode == consts.BenchMode.KERNEL:
            do_bench = triton.testing.do_bench
            latency = do_bench(
                fn,
                warmup=Config.warm_up,
                rep=Config.repetition,
                return_mode="median",
                grad_to_none=None,
            )
        elif Config.mode == consts.BenchMode.WRAPPER:
            n_warm, n_rep = get_iter_count(fn)
            for _ in range(n_warm):
                fn()
            torch_device_fn.synchronize()
            start = time.time()
            for _ in range(n_rep):
                fn()
            latency = (time.time() - start) / n_rep * 1000
        elif Config.mode == consts.BenchMode.CUDAGRAPH:
            do_bench_cudagraph = triton.testing.do_bench_cudagraph
            latency = do_bench_cudagraph(
                fn,
                rep=Config.repetition,
                return_mode="median",
                grad_to_none=None,
            )
        else:
            raise ValueError("Undefined Value of Benchmark Mode.")
        # latency in ms
        return latency

    def get_gbps(self, args, latency=None):
        raise NotImplementedError("Each Benchmark must implement its own input iterator.")

    def get_tflops(self, op, *args, **kwargs):
        """FlagGems counts FLOPs with torch's FlopCounterMode; the stand-ins have none."""
        return 0

    def get_input_iter(self, dtype) -> Generator:
        raise NotImplementedError("Each Benchmark must implement its own input iterator.")

    def get_inputs(self, dtype):
        if self._input_iter is None:
            self._input_iter = self.get_input_iter(dtype)
        try:
            return next(self._input_iter)
        except StopIteration:
            return None

    def unpack_to_args_kwargs(self, input_tuple: Tuple[Any, ...]):
        args = []
        kwargs = {}
        for item in input_tuple:
            if (isinstance(item, (cpuref.Tensor, int, float, str, list, tuple, cpuref.dtype))
                    or item is None):
                args.append(item)
            elif isinstance(item, dict):
                kwargs.update(item)
        return args, kwargs

    def run(self):
        if Config.query:
            self.init_default_config()
            attri = OperationAttribute(
                op_name=self.op_name,
                recommended_core_shapes=self.shapes,
                shape_desc=self.shape_desc,
            )
            print(attri)
            emit_record_logger(attri.to_dict())
            return

        self.init_user_config()
        for dtype in self.to_bench_dtypes:
            metrics = []
            input_iter = self.get_input_iter(dtype)
            done = False
            while not done:
                try:
                    input = next(input_iter)
                except StopIteration:
                    done = True
                    continue
                except (RuntimeError, Exception) as e:
                    print(f"\033[31mFAILED\033[0m: Operator={self.op_name} "
                          f"dtype={dtype} err=<<<{e}>>>")
                    pytest.fail(str(e))

                metric = BenchmarkMetrics()
                try:
                    args, kwargs = self.unpack_to_args_kwargs(input)
                    metric.shape_detail = self.record_shapes(*args, **kwargs)
                    if "latency_base" in self.to_bench_metrics:
                        metric.latency_base = self.get_latency(self.torch_op, *args, **kwargs)
                    if "latency" in self.to_bench_metrics:
                        if self.gems_op:
                            metric.latency = self.get_latency(self.gems_op, *args, **kwargs)
                        else:
                            with flag_gems.use_gems(exclude=["zero_"]):
                                metric.latency = self.get_latency(self.torch_op, *args, **kwargs)
                    if "speedup" in self.to_bench_metrics:
                        metric.speedup = metric.latency_base / metric.latency
                    if "gbps" in self.to_bench_metrics:
                        metric.gbps_base = self.get_gbps(args, latency=metric.latency_base)
                        metric.gbps = self.get_gbps(args, latency=metric.latency)
                    if "tflops" in self.to_bench_metrics:
                        metric.tflops = (self.get_tflops(self.torch_op, *args, **kwargs)
                                         / metric.latency / 1e12 * 1e3)
                except (RuntimeError, Exception) as e:
                    metric.error_msg = str(e)
                    pytest.fail(str(e))  # raise exception again
                finally:
                    metrics.append(metric)
                    # FlagGems collects fully here to free device memory; the stand-ins'
                    # tensors are freed by reference counting, a young pass is enough.
                    gc.collect(0)

            result = BenchmarkResult(
                level=Config.bench_level.value,
                op_name=self.op_name,
                dtype=str(dtype),
                mode=Config.mode.value,
                result=metrics,
            )
            print(result)
            update_result(self.op_name, asdict(result))
            emit_record_logger(result.to_json())


class GenericBenchmark(Benchmark):
    """Benchmark of an op whose inputs come from input_fn(shape, dtype, device)."""

    def __init__(self, *args, input_fn, **kwargs):
        super().__init__(*args, **kwargs)
        self.input_fn = input_fn

    def set_more_shapes(self):
        more_shapes_1d = [(16384,)]
        more_shapes_2d = [(64, 2**i) for i in (0, 4, 8)]
        more_shapes_3d = [(8, 2**i, 8) for i in (0, 4, 6)]
        return more_shapes_1d + more_shapes_2d + more_shapes_3d

    def get_input_iter(self, dtype) -> Generator:
        for shape in self.shapes:
            yield from self.input_fn(shape, dtype, self.device)


class UnaryReductionBenchmark(Benchmark):
    def set_more_metrics(self):
        return ["gbps"]

    def get_gbps(self, args, latency):
        inp = args[0]
        io_amount = sum(shape_utils.size_in_bytes(item) for item in [inp, inp])
        return io_amount * 1e-9 / (latency * 1e-3)

    def set_more_shapes(self):
        more_shapes_1d = [(1025,), (16384,)]
        more_shapes_2d = [(64, 2**i) for i in (0, 5, 8)]
        more_shapes_3d = [(8, 2**i, 8) for i in (0, 4, 6)]
        return more_shapes_1d + more_shapes_2d + more_shapes_3d

    def get_input_iter(self, cur_dtype) -> Generator:
        for shape in self.shapes:
            inp = generate_tensor_input(shape, cur_dtype, self.device)
            if inp.ndim > 1:
                yield inp, 1
            else:
                yield (inp,)


class BlasBenchmark(Benchmark):
    """Benchmark of matrix products over (B, M, N, K) shapes."""

    DEFAULT_METRICS = consts.DEFAULT_METRICS[:] + ["tflops"]

    def __init__(self, *args, input_fn, **kwargs):
        super().__init__(*args, **kwargs)
        self.input_fn = input_fn

    def get_input_iter(self, dtype) -> Generator:
        for b, m, n, k in self.shapes:
            yield from self.input_fn(b, m, n, k, dtype, self.device, False)
        # FlagGems repeats every shape with B column-major at level comprehensive; the
        # shape_detail of both runs is the same.
        if Config.bench_level == consts.BenchLevel.COMPREHENSIVE:
            for b, m, n, k in self.shapes:
                yield from self.input_fn(b, m, n, k, dtype, self.device, True)

    def set_more_shapes(self):
        large_k_shapes = [
            (8, 8, 8, 256),
            (8, 8, 1, 256),
        ]
        return large_k_shapes + model_shapes()

    def get_tflops(self, op, *args, **kwargs):
        # (m, k) x (k, n): m * n * 2k
        if self.op_name == "mm":
            return args[0].shape[0] * args[0].shape[1] * args[1].shape[1] * 2
        return 0


class BinaryPointwiseBenchmark(Benchmark):
    """Benchmark of elementwise ops on two same-shaped inputs."""

    DEFAULT_METRICS = consts.DEFAULT_METRICS[:] + ["tflops"]

    def set_more_shapes(self):
        special_shapes_2d = [(64, 2**i) for i in range(0, 9, 4)]
        shapes_3d = [(4, 4, 2**i) for i in range(0, 11, 5)]
        return special_shapes_2d + shapes_3d

    def get_input_iter(self, dtype) -> Generator:
        for shape in self.shapes:
            inp1 = generate_tensor_input(shape, dtype, self.device)
            inp2 = generate_tensor_input(shape, dtype, self.device)
            yield inp1, inp2

    def get_tflops(self, op, *args, **kwargs):
        return args[0].numel() + args[1].numel()


def generate_tensor_input(shape, dtype, device):
    return cpuref.randn(shape, dtype=dtype, device=device)


def binary_input_fn(shape, cur_dtype, device):
    yield generate_tensor_input(shape, cur_dtype, device), generate_tensor_input(
        shape, cur_dtype, device)


def unary_input_fn(shape, cur_dtype, device):
    yield (generate_tensor_input(shape, cur_dtype, device),)


__all__ = [
    "Benchmark", "BinaryPointwiseBenchmark", "BlasBenchmark", "GenericBenchmark",
    "UnaryReductionBenchmark", "binary_input_fn", "generate_tensor_input", "unary_input_fn",
]
