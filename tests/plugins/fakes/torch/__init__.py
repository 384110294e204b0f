"""Fake torch: dtypes, tensors with shapes, and a virtual-clock device (torch.cuda)."""
import os

if os.environ.get("FAKE_NO_TORCH"):
    raise ImportError("fake torch disabled by FAKE_NO_TORCH")

__version__ = "2.99.0+fake"


class dtype:
    def __init__(self, name, itemsize, is_floating_point):
        self.name = name
        self.itemsize = itemsize
        self.is_floating_point = is_floating_point

    def __repr__(self):
        return "torch." + self.name

    __str__ = __repr__


float16 = dtype("float16", 2, True)
bfloat16 = dtype("bfloat16", 2, True)
float32 = dtype("float32", 4, True)
int8 = dtype("int8", 1, False)
int16 = dtype("int16", 2, False)
int32 = dtype("int32", 4, False)
int64 = dtype("int64", 8, False)
bool = dtype("bool", 1, False)  # noqa: A001 - torch's name
complex64 = dtype("complex64", 8, False)

_IINFO = {"int8": (-128, 127), "int16": (-32768, 32767), "int32": (-2 ** 31, 2 ** 31 - 1),
          "int64": (-2 ** 63, 2 ** 63 - 1)}


class iinfo:  # noqa: N801 - torch's name
    def __init__(self, dt):
        self.min, self.max = _IINFO[dt.name]


class Size(tuple):
    def numel(self):
        n = 1
        for d in self:
            n *= d
        return n


class Tensor:
    def __init__(self, shape, dtype=float32, device="cuda"):
        self.shape = Size(shape)
        self.dtype = dtype
        self.device = device
        self.requires_grad = False
        self.grad = None

    def size(self):
        return self.shape

    def numel(self):
        return self.shape.numel()

    def dim(self):
        return len(self.shape)

    def data_ptr(self):
        return id(self) * 16

    def element_size(self):
        return self.dtype.itemsize

    def to(self, device):
        """A copy on device (a CPU -> device copy is counted in torch.cuda._copies)."""
        from . import cuda
        if str(device) != str(self.device):
            cuda._copies.append((str(self.device), str(device), self.numel() * self.dtype.itemsize))
        t = Tensor(self.shape, self.dtype, device)
        t.low, t.high = getattr(self, "low", None), getattr(self, "high", None)
        return t

    def zero_(self):
        # as torch's: aten::zero_ runs aten::fill_ on a device tensor
        from . import cuda
        with cuda._op("aten::zero_"):
            self.fill_(0)
        return self

    def fill_(self, value):
        from . import cuda
        with cuda._op("aten::fill_"):
            cuda._launch(cuda.flush_cost(self), "fill_")
        return self

    def detach_(self):
        return self

    def requires_grad_(self, flag=True):
        self.requires_grad = flag
        return self


def is_tensor(x):
    return isinstance(x, Tensor)


def _shape(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def empty(*shape, dtype=float32, device="cuda"):
    return Tensor(_shape(shape), dtype, device)


def randn(*shape, dtype=float32, device="cuda"):
    cuda._rng_offset_increment()
    return Tensor(_shape(shape), dtype, device)


def randint(*args, size=None, dtype=int64, device="cpu"):
    """randint(high, size) / randint(low, high, size): a tensor that remembers its range and device."""
    args = list(args)
    if size is None:
        size = args.pop()
    low, high = (0, args[0]) if len(args) == 1 else (args[0], args[1])
    t = Tensor(_shape((size,)) if isinstance(size, int) else tuple(size), dtype, device)
    t.low, t.high = low, high
    return t


def zeros(*shape, dtype=float32, device="cuda"):
    return Tensor(_shape(shape), dtype, device)


from . import cuda  # noqa: E402,F401
from . import autograd  # noqa: E402,F401
