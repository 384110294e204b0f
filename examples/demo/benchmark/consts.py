"""Constants and result records of the demo benchmarks (FlagGems' benchmark/consts.py).

Differences from FlagGems, all to keep the CPU stand-ins quick: dtypes come from
cpuref (labels printed as torch.float16 ...), the default warm-up and repetition
windows are 1 ms and 5 ms (FlagGems: 1000 ms and 100 ms), and the built-in shape
lists are small.
"""

import itertools
from dataclasses import dataclass, fields
from enum import Enum
from typing import List, Optional, Tuple

import cpuref

FLOAT_DTYPES = [cpuref.float16, cpuref.float32, cpuref.bfloat16]
INT_DTYPES = [cpuref.int16, cpuref.int32]
BOOL_DTYPES = [cpuref.bool_]
COMPLEX_DTYPES = [cpuref.complex64]

DEFAULT_WARMUP_TIME = 1
DEFAULT_ITER_TIME = 5

# Used when neither the op nor its Benchmark class has an entry in the shape file.
DEFAULT_SHAPES = [
    (4096,),
    (8, 8),
    (64, 64),
    (8, 32, 32),
    (16, 16, 16),
]


def model_shapes():
    """(B, M, N, K) of linear layers; FlagGems lists llama3-8b and qwen2.5-7b's."""
    BS = [1, 8]
    NK = [(32, 48)]
    return [(4, bs, n, k) for bs, (n, k) in itertools.product(BS, NK)]


@dataclass
class BenchmarkMetrics:
    # Legacy shape information for backward compatibility
    legacy_shape: Optional[int] = None
    # Detailed size info
    shape_detail: Optional[Tuple[int, ...]] = None
    # Latency base in ms (the torch side; cpuref in the demo)
    latency_base: Optional[float] = None
    # Latency in ms (the FlagGems side)
    latency: Optional[float] = None
    gbps_base: Optional[float] = None
    gbps: Optional[float] = None
    # Speedup over baseline
    speedup: Optional[float] = None
    accuracy: Optional[float] = None
    tflops: Optional[float] = None
    utilization: Optional[float] = None
    compared_speedup: Optional[float] = None
    error_msg: Optional[str] = None


ALL_AVAILABLE_METRICS = set(f.name for f in fields(BenchmarkMetrics)) - {
    "legacy_shape",
    "shape_detail",
}

DEFAULT_METRICS = [
    metric for metric in ["latency_base", "latency", "speedup"] if metric in ALL_AVAILABLE_METRICS
]


def check_metric_dependencies(requested_metrics: Optional[List[str]]) -> List[str]:
    """The requested metrics whose dependencies were not requested before them."""
    buildin_dependencies = {
        "speedup": ["latency", "latency_base"],
        "utilization": ["latency", "tflops"],
    }
    unsatisfied_metrics = []
    if requested_metrics is None:
        return unsatisfied_metrics
    satisfied_metrics = set()
    for metric in requested_metrics:
        if metric not in buildin_dependencies:
            satisfied_metrics.add(metric)
        elif all(req in satisfied_metrics for req in buildin_dependencies[metric]):
            satisfied_metrics.add(metric)
        else:
            unsatisfied_metrics.append(metric)
    return unsatisfied_metrics


def get_recommended_shapes(op_name: str, op_specified_shapes: Optional[List[Tuple[int, ...]]]):
    def _shapes_sort(shapes):
        shapes = [shape if isinstance(shape, tuple) else (shape,) for shape in shapes]
        return sorted(shapes, key=lambda x: cpuref.Size(x).numel())

    if op_specified_shapes:
        return _shapes_sort(op_specified_shapes)
    return _shapes_sort(DEFAULT_SHAPES)


class BenchMode(Enum):
    KERNEL = "kernel"
    OPERATOR = "operator"
    WRAPPER = "wrapper"
    CUDAGRAPH = "cudagraph"


class BenchLevel(Enum):
    COMPREHENSIVE = "comprehensive"
    CORE = "core"


@dataclass
class OperationAttribute:
    op_name: str
    # Recommended core benchmark shapes for the given operation
    recommended_core_shapes: List[Tuple[int, ...]]
    shape_desc: str

    def __str__(self) -> str:
        return (
            f"{'Operator name':<40} |  {self.op_name}\n"
            f"{'Recommended Core Shapes[' + self.shape_desc + ']':<40} |  {self.recommended_core_shapes}\n"
        )

    def to_dict(self) -> dict:
        return self.__dict__


def custom_json_encoder(obj):
    if isinstance(obj, cpuref.dtype):
        return str(obj)
    raise TypeError(f"Object of type {obj.__class__.__name__} is not JSON serializable")


@dataclass
class BenchmarkResult:
    """The results of one operator at one dtype, printed as FlagGems prints them."""

    op_name: str
    dtype: str
    mode: str
    level: str
    result: List[BenchmarkMetrics]

    def __str__(self) -> str:
        header_title = (
            f"\nOperator: {self.op_name}  Performance Test (dtype={self.dtype}, mode={self.mode},"
            f"level={self.level})\n"
        )
        col_names = [
            f"{'Status':<10}",
            f"{'Torch Latency (ms)':>20}",
            f"{'Gems Latency (ms)':>20}",
            f"{'Gems Speedup':>20}",
        ]
        if self.result[0].tflops and self.result[0].tflops != 0.0:
            col_names.append(f"{'TFLOPS':>20}")
        if self.result[0].gbps is not None:
            col_names.append(f"{'Torch GBPS ':>20}")
            col_names.append(f"{'Gems GBPS ':>20}")
        col_names.append(f"{'Size Detail':>20}\n")
        header_col_names = " ".join(col_names)
        header_break = "-" * len(header_col_names) + "\n"
        header = header_title + header_col_names + header_break
        return header + "".join(self._format_metrics(ele) for ele in self.result)

    def _format_metrics(self, metrics: BenchmarkMetrics) -> str:
        def num(value, digits):
            return f"{value:.{digits}f}" if value is not None else "N/A"

        status = "SUCCESS" if metrics.error_msg is None else "FAILED"
        data_line = (
            f"{status:<10}"
            f"{num(metrics.latency_base, 6):>20}"
            f"{num(metrics.latency, 6):>20}"
            f"{num(metrics.speedup, 3):>20}"
        )
        if metrics.tflops and metrics.tflops != 0.0:
            data_line += f"{num(metrics.tflops, 3):>20}"
        if metrics.gbps is not None:
            data_line += f"{num(metrics.gbps_base, 3):>20}{num(metrics.gbps, 3):>20}"
        data_line += " " * 10
        shape_detail = metrics.shape_detail if metrics.shape_detail is not None else "N/A"
        data_line += f"{shape_detail}\n"
        return data_line

    def to_json(self) -> str:
        import json
        from dataclasses import asdict

        return json.dumps(asdict(self), default=custom_json_encoder)

    def to_dict(self) -> dict:
        return self.__dict__


FP16_BF16_DTYPES = [cpuref.float16, cpuref.bfloat16]
