"""CPU reference operators: the "torch side" of the zlbench demo.

This is NOT torch. FlagGems benchmarks compare a torch operator (the baseline)
with the FlagGems kernel that replaces it; the demo has no torch, so this module
plays the baseline's part with plain Python lists. Tensors are flat lists of
floats; a dtype is only a label (no rounding to float16 happens), printed the
way torch prints it ("torch.float16") so that results read like FlagGems'.

flag_gems.use_gems() swaps in the stand-in FlagGems kernels through `library`,
the way FlagGems registers its kernels into torch's aten library.
"""

import builtins
import math
import random

__all__ = [
    "Size", "Tensor", "dtype", "dtype_by_name", "float16", "float32", "bfloat16",
    "int16", "int32", "bool_", "complex64", "randn", "empty", "empty_like", "zeros",
    "add", "mm", "softmax", "sum", "amax", "amin", "library",
]


class dtype:
    """A dtype label; str() gives torch's spelling, e.g. 'torch.float16'."""

    __slots__ = ("name", "itemsize", "is_floating_point")

    def __init__(self, name, itemsize, is_floating_point=True):
        self.name = name
        self.itemsize = itemsize
        self.is_floating_point = is_floating_point

    def __repr__(self):
        return "torch." + self.name

    __str__ = __repr__


float16 = dtype("float16", 2)
float32 = dtype("float32", 4)
bfloat16 = dtype("bfloat16", 2)
int16 = dtype("int16", 2, False)
int32 = dtype("int32", 4, False)
bool_ = dtype("bool", 1, False)
complex64 = dtype("complex64", 8, False)

_DTYPES = {d.name: d for d in (float16, float32, bfloat16, int16, int32, bool_, complex64)}


def dtype_by_name(name):
    """The dtype for a --dtypes value such as 'float16' (torch: getattr(torch, name))."""
    try:
        return _DTYPES[name]
    except KeyError:
        raise ValueError(f"unknown dtype '{name}'; known: {', '.join(_DTYPES)}") from None


class Size(tuple):
    """A shape; repr() matches torch.Size so FlagGems' table format is kept."""

    def __repr__(self):
        return f"torch.Size({list(self)!r})"

    __str__ = __repr__

    def numel(self):
        return math.prod(self)


# Bytes held by live tensors: what the demo's torch_device_fn.memory_allocated() reports,
# as torch.cuda.memory_allocated() reports what the caching allocator holds.
_allocated = 0


def memory_allocated():
    return _allocated


class Tensor:
    """A dense row-major tensor held as a flat Python list."""

    __slots__ = ("data", "shape", "dtype", "device")

    def __init__(self, data, shape, dtype, device="cpu"):
        global _allocated
        self.data = data
        self.shape = Size(shape)
        self.dtype = dtype
        self.device = device
        _allocated += len(data) * dtype.itemsize

    def __del__(self):
        global _allocated
        try:
            _allocated -= len(self.data) * self.dtype.itemsize
        except Exception:  # half-built, or the interpreter is going away
            pass

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    @property
    def ndim(self):
        return len(self.shape)

    def dim(self):
        return len(self.shape)

    def numel(self):
        return math.prod(self.shape)

    def element_size(self):
        return self.dtype.itemsize

    def stride(self):
        strides, acc = [], 1
        for n in reversed(self.shape):
            strides.append(acc)
            acc *= n
        return tuple(reversed(strides))

    def is_contiguous(self):
        return True

    def data_ptr(self):
        # Kernels specialise on 16-byte alignment; list storage always counts as aligned.
        return id(self.data) & ~0xF

    def t(self):
        """2-D transpose, materialised (torch returns a view)."""
        if self.ndim != 2:
            raise ValueError(f"t() expects a 2-D tensor, got {self.ndim}-D")
        rows, cols = self.shape
        d = self.data
        return Tensor([d[r * cols + c] for c in range(cols) for r in range(rows)],
                      (cols, rows), self.dtype, self.device)

    def to(self, dtype):
        return Tensor(list(self.data), self.shape, dtype, self.device)

    def __repr__(self):
        return f"tensor(shape={list(self.shape)}, dtype={self.dtype})"


# This module defines its own sum(); the reference code needs the builtin one.
_bsum = builtins.sum

_rng = random.Random(0)


def randn(shape, dtype=float32, device="cpu"):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    gauss = _rng.gauss
    return Tensor([gauss(0.0, 1.0) for _ in range(math.prod(shape))], shape, dtype, device)


def zeros(shape, dtype=float32, device="cpu"):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return Tensor([0.0] * math.prod(shape), shape, dtype, device)


empty = zeros


def empty_like(t):
    return zeros(t.shape, t.dtype, t.device)


class _Library:
    """Stand-in for torch.library.Library('aten', 'IMPL'): overrides until _destroy()."""

    def __init__(self, ns="aten", kind="IMPL"):
        self.ns = ns
        self.kind = kind
        self._names = []

    def impl(self, name, fn, dispatch_key=""):
        _overrides.setdefault(name, []).append(fn)
        self._names.append(name)

    def _destroy(self):
        for name in reversed(self._names):
            _overrides[name].pop()
        self._names = []


class library:  # noqa: N801 - named like torch.library
    Library = _Library


_overrides = {}


def _dispatch(name):
    """Decorator: call the innermost registered override of `name`, else the reference."""

    def wrap(ref):
        def op(*args, **kwargs):
            impls = _overrides.get(name)
            if impls:
                return impls[-1](*args, **kwargs)
            return ref(*args, **kwargs)

        op.__name__ = ref.__name__
        op.__qualname__ = ref.__qualname__
        op.__doc__ = ref.__doc__
        op.aten_name = name
        return op

    return wrap


def reduction_layout(shape, dim):
    """(M, N, K) for a reduction over `dim`: element (m, n, k) sits at m*N*K + n*K + k."""
    if not shape:
        return 1, 1, 1
    dim = dim % len(shape)
    return math.prod(shape[:dim]), shape[dim], math.prod(shape[dim + 1:])


def _reduce(x, dim, fn, name):
    if dim is None or dim == () or dim == []:
        return Tensor([fn(x.data)], (), x.dtype, x.device)
    if isinstance(dim, (list, tuple)):
        if len(dim) != 1:
            raise NotImplementedError(f"{name}: the demo reduces over one dim at a time")
        dim = dim[0]
    m, n, k = reduction_layout(x.shape, dim)
    d = x.data
    out = [fn(d[i * n * k + j: (i + 1) * n * k: k]) for i in range(m) for j in range(k)]
    shape = [s for i, s in enumerate(x.shape) if i != dim % x.ndim]
    return Tensor(out, shape, x.dtype, x.device)


# The reference ("torch") implementations are deliberately plain Python.

@_dispatch("add.Tensor")
def add(a, b, *, alpha=1):
    """Elementwise a + alpha * b."""
    if a.shape != b.shape:
        raise ValueError(f"add: shapes {list(a.shape)} and {list(b.shape)} differ")
    return Tensor([x + alpha * y for x, y in zip(a.data, b.data)], a.shape, a.dtype, a.device)


@_dispatch("mm")
def mm(a, b, *, out=None):
    """Matrix product of an (M, K) and a (K, N) tensor."""
    (m, k), (k2, n) = a.shape, b.shape
    if k != k2:
        raise ValueError(f"mm: shapes {list(a.shape)} and {list(b.shape)} cannot be multiplied")
    ad, bd = a.data, b.data
    rows = [ad[i * k:(i + 1) * k] for i in range(m)]
    cols = [bd[j::n] for j in range(n)]
    data = [_bsum([x * y for x, y in zip(r, c)]) for r in rows for c in cols]
    if out is None:
        return Tensor(data, (m, n), a.dtype, a.device)
    out.data[:] = data
    return out


@_dispatch("softmax.int")
def softmax(x, dim=-1, dtype=None):
    """exp(x - max) / sum(exp(x - max)) along `dim`."""
    m, n, k = reduction_layout(x.shape, dim)
    d = x.data
    out = [0.0] * len(d)
    for i in range(m):
        for j in range(k):
            base = i * n * k + j
            col = d[base: base + n * k: k]
            top = max(col)
            e = [math.exp(v - top) for v in col]
            s = _bsum(e)
            out[base: base + n * k: k] = [v / s for v in e]
    return Tensor(out, x.shape, dtype or x.dtype, x.device)


@_dispatch("sum")
def sum(x, dim=None, keepdim=False, *, dtype=None):  # noqa: A001 - named like torch.sum
    """Sum of all elements, or along one dim."""
    return _reduce(x, dim, _bsum, "sum")


@_dispatch("amax")
def amax(x, dim=(), keepdim=False):
    """Maximum along `dim` (all elements when dim is empty)."""
    return _reduce(x, dim, max, "amax")


@_dispatch("amin")
def amin(x, dim=(), keepdim=False):
    """Minimum along `dim` (all elements when dim is empty)."""
    return _reduce(x, dim, min, "amin")

