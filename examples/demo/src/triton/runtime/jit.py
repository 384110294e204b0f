"""triton.jit stand-in: a "kernel" is a Python function run once per launch.

Kept from Triton: JITFunction.run(*args, grid, warmup, **kwargs), kernel[grid](...),
the params list (num, name, is_constexpr, do_not_specialize, default), arg_names,
signature, cache_key, and one compiled variant per specialisation (dtypes, integer
divisibility, constexpr values, launch options), each written to the Triton cache
directory like a real compile so that cache statistics have something to count.
"""

import base64
import hashlib
import inspect
import json
import os
import tempfile
import warnings

from .. import knobs
from .. import language as tl


class KernelInterface:
    def __getitem__(self, grid):
        """kernel[grid](*args, **kwargs) launches the kernel over grid."""
        return lambda *args, **kwargs: self.run(grid=grid, warmup=False, *args, **kwargs)

    def warmup(self, *args, grid, **kwargs):
        return self.run(grid=grid, warmup=True, *args, **kwargs)


class KernelParam:
    def __init__(self, num, param, do_not_specialize):
        self.num = num
        self._param = param
        self.do_not_specialize = do_not_specialize

    @property
    def name(self):
        return self._param.name

    @property
    def annotation(self):
        return self._param.annotation

    @property
    def is_constexpr(self):
        ann = self._param.annotation
        return ann is tl.constexpr or (isinstance(ann, str) and ann.split(".")[-1] == "constexpr")

    @property
    def default(self):
        return self._param.default

    @property
    def has_default(self):
        return self._param.default is not inspect.Parameter.empty


def _specialization(value):
    """How Triton specialises an argument: tensors by dtype, ints by 1 / divisible by 16."""
    if hasattr(value, "data_ptr") and hasattr(value, "dtype"):
        return f"*{value.dtype}"
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int):
        if value == 1:
            return "i32:1"
        return "i32:D" if value % 16 == 0 else "i32"
    if isinstance(value, float):
        return "fp32"
    return type(value).__name__


class CompiledKernel:
    """One specialisation of a kernel; kernel[grid](*all_args) runs it directly."""

    def __init__(self, fn, name, constants, options, hash_):
        self.fn = fn
        self.name = name
        self.constants = constants
        self.options = options
        self.hash = hash_
        self.metadata = dict(options, name=name, hash=hash_)

    def __getitem__(self, grid):
        return self.launch

    def launch(self, *args):
        return self.fn(*args)


def _base32(hexkey):
    return base64.b32encode(bytes.fromhex(hexkey)).decode("ascii").rstrip("=")


def _write_atomic(path, text):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp.")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


_cache_warned = False


def _store_in_cache(name, hexkey, metadata):
    """Leave a cache entry shaped like Triton's: <dir>/<hash>/<name>.json plus artifacts."""
    global _cache_warned
    entry = os.path.join(knobs.cache.dir, _base32(hexkey))
    if os.path.exists(os.path.join(entry, name + ".json")):
        return
    try:
        os.makedirs(entry, exist_ok=True)
        _write_atomic(os.path.join(entry, name + ".ttgir"),
                      f"// zlbench demo stand-in: no Triton IR; {name} is a Python function\n")
        _write_atomic(os.path.join(entry, name + ".json"), json.dumps(metadata, sort_keys=True))
        _write_atomic(os.path.join(entry, f"__grp__{name}.json"), json.dumps(
            {"child_paths": {name + ".json": os.path.join(entry, name + ".json"),
                             name + ".ttgir": os.path.join(entry, name + ".ttgir")}}))
    except OSError as e:
        # A read-only cache must not fail a demo run; say so once.
        if not _cache_warned:
            warnings.warn(f"demo triton: cannot write cache entry under '{entry}': {e}")
            _cache_warned = True


class JITFunction(KernelInterface):
    def __init__(self, fn, do_not_specialize=None, version=None, debug=None, noinline=None,
                 repr=None, launch_metadata=None):
        self.fn = fn
        self.module = fn.__module__
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.signature = inspect.signature(fn)
        self.arg_names = list(self.signature.parameters)
        dns = set(do_not_specialize or ())
        self.params = [KernelParam(i, p, i in dns or p.name in dns)
                       for i, p in enumerate(self.signature.parameters.values())]
        self.constexprs = [p.num for p in self.params if p.is_constexpr]
        try:
            self.src = inspect.getsource(fn)
        except OSError:
            self.src = fn.__qualname__
        self.device_caches = {}

    @property
    def cache_key(self):
        return hashlib.sha256(self.src.encode("utf-8")).hexdigest()

    def _bind(self, args, kwargs):
        values = {}
        for p, v in zip(self.params, args):
            values[p.name] = v
        for p in self.params[len(args):]:
            if p.name in kwargs:
                values[p.name] = kwargs[p.name]
            elif p.has_default:
                values[p.name] = p.default
            else:
                raise TypeError(f"{self.__name__}() missing argument '{p.name}'")
        options = {k: v for k, v in kwargs.items() if k not in values}
        return values, options

    def run(self, *args, grid, warmup, **kwargs):
        values, options = self._bind(args, kwargs)
        options.setdefault("num_warps", 4)
        options.setdefault("num_stages", 3)
        options.setdefault("num_ctas", 1)
        spec = tuple(
            (p.name, repr(values[p.name]) if p.is_constexpr else
             ("" if p.do_not_specialize else _specialization(values[p.name])))
            for p in self.params)
        key = (spec, tuple(sorted((k, repr(v)) for k, v in options.items())))
        kernel = self.device_caches.get(key)
        if kernel is None:
            hexkey = hashlib.sha256(f"{self.cache_key}-{key!r}".encode("utf-8")).hexdigest()
            constants = {p.name: values[p.name] for p in self.params if p.is_constexpr}
            kernel = CompiledKernel(self.fn, self.__name__, constants, options, hexkey)
            _store_in_cache(self.__name__, hexkey, {
                "name": self.__name__, "hash": hexkey, "target": {"backend": "demo-cpu"},
                "constants": {k: repr(v) for k, v in constants.items()},
                "signature": {name: s for name, s in spec},
                **{k: v for k, v in options.items() if isinstance(v, (int, float, str))},
            })
            self.device_caches[key] = kernel
        if not warmup:
            if callable(grid):
                grid(dict(values, **options))
            self.fn(*(values[p.name] for p in self.params))
        return kernel

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Cannot call @triton.jit'd outside of the scope of a kernel")

    def __repr__(self):
        return f"JITFunction({self.module}:{self.fn.__qualname__})"


def jit(fn=None, *, version=None, repr=None, launch_metadata=None, do_not_specialize=None,
        do_not_specialize_on_alignment=None, debug=None, noinline=None):
    """@triton.jit or @triton.jit(do_not_specialize=[...])."""

    def decorator(f):
        return JITFunction(f, do_not_specialize=do_not_specialize, version=version,
                           debug=debug, noinline=noinline)

    return decorator(fn) if fn is not None else decorator
