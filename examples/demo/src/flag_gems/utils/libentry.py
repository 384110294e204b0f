"""LibEntry and LibTuner as FlagGems defines them, minus FlagTune and CUDA specifics.

Kept, with FlagGems' names: LibTuner(triton.runtime.Autotuner) with keys, configs,
strategy, cache (a ConfigCache over the tuner database), get_key, get_benchmark_key,
policy, run, best_config, configs_timings, bench_time, config_table_name,
benchmark_table_name; the libcache singleton (LibCache) whose database is
$FLAGGEMS_CACHE_DIR/config_cache/TunedConfig_<vendor>_triton_<major>_<minor>.db;
the registered strategies (default, log, align32) and policy (default); LibEntry's
per-argument dispatch cache that launches compiled kernels directly once a
specialisation has been seen (so a tuner runs once per new key).
"""

from __future__ import annotations

import hashlib
import inspect
import math
import os
import time
from collections import OrderedDict
from functools import cached_property
from itertools import starmap
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Type, Union

import triton

from flag_gems.runtime import torch_device_fn
from flag_gems.runtime.backend import _state
from flag_gems.utils.code_cache import config_cache_dir
from flag_gems.utils.models import SQLPersistantModel

DEVICE_COUNT = torch_device_fn.device_count()

version = triton.__version__.split(".")
major_version, minor_version = int(version[0]), int(version[1])

FLAGGEMS_DB_URL = os.getenv("FLAGGEMS_DB_URL", None)
BENCHMARK_CACHE_SCHEMA_VERSION = 2
# FlagGems tunes with 25 ms of warm-up and 100 ms of repetitions per config; the
# demo's kernels are slow Python, so it tunes with far shorter windows.
DEFAULT_BENCHMARK_WARMUP_MS = 1
DEFAULT_BENCHMARK_REP_MS = 5


def _infer_tensor_dtypes(values) -> Tuple[Any, ...]:
    """dtypes of the tensor arguments, in argument order (FlagGems: torch.Tensor only)."""
    return tuple(v.dtype for v in values if hasattr(v, "data_ptr") and hasattr(v, "dtype"))


class Cache:
    def __init__(self, table_name, model):
        self.table_name = table_name
        self.model = model


class ConfigCache(Cache):
    """key -> best known triton.Config, stored in the tuner database."""

    def __contains__(self, key) -> bool:
        return self.get(key) is not None

    def __getitem__(self, key) -> triton.Config:
        ret = self.get(key)
        if ret is None:
            raise KeyError(f"Key {key} not found in ConfigCache.")
        return ret

    def __setitem__(self, key, config) -> None:
        self.set(key, config)

    def get(self, key) -> Optional[triton.Config]:
        return self.model.get_config(self.table_name, key)

    def set(self, key, config) -> None:
        return self.model.put_config(self.table_name, key, config)


class BenchmarkCache(Cache):
    """config -> (p50, p20, p80) for one benchmark key, stored in the tuner database."""

    def __init__(self, table_name, model, key):
        super().__init__(table_name, model)
        self.key = key

    def __contains__(self, config) -> bool:
        return self.get(config) is not None

    def __getitem__(self, config):
        ret = self.get(config)
        if ret is None:
            raise KeyError(f"Config {config} not found in BenchmarkCache for key {self.key}.")
        return ret

    def __setitem__(self, config, benchmark) -> None:
        self.set(config, benchmark)

    def get(self, config):
        return self.model.get_benchmark(self.table_name, self.key, config)

    def set(self, config, benchmark) -> None:
        return self.model.put_benchmark(self.table_name, self.key, config, benchmark)


class LibCache:
    _instance = None

    def __new__(cls, *args, **kwargs):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __init__(self, db_url: Optional[str] = None):
        vendor_name = _state.vendor_module.vendor_info.vendor_name
        if db_url is None:
            cache_file_name = f"TunedConfig_{vendor_name}_triton_{major_version}_{minor_version}.db"
            cache_path: Path = config_cache_dir() / cache_file_name
            self.db_url = f"sqlite:///{cache_path}"
        else:
            self.db_url = db_url
        self.config_cache_pool: Dict[str, ConfigCache] = {}
        self.benchmark_cache_pool: Dict[Tuple[str, Tuple], BenchmarkCache] = {}
        self.model = SQLPersistantModel(self.db_url)

    def __getitem__(self, key):
        if isinstance(key, str):
            return self.get_config(key)
        if isinstance(key, tuple):
            return self.get_benchmark(*key)
        raise TypeError(f"the type of key '{key.__class__.__name__}' is unacceptable")

    def get_benchmark(self, table, key) -> BenchmarkCache:
        ret = self.benchmark_cache_pool.get((table, key))
        if ret is None:
            ret = BenchmarkCache(table, self.model, key)
            self.benchmark_cache_pool[(table, key)] = ret
        return ret

    def get_config(self, table) -> ConfigCache:
        ret = self.config_cache_pool.get(table)
        if ret is None:
            ret = ConfigCache(table, self.model)
            self.config_cache_pool[table] = ret
        return ret


libcache = LibCache(FLAGGEMS_DB_URL)


class LibTuner(triton.runtime.Autotuner):
    """FlagGems' library autotuner: winners persist in the tuner database."""

    _dispatch_table: Dict[str, Type[LibTuner]] = {}
    _strategy_table: Dict[str, Callable[[Any], Any]] = {}

    def __init__(self, fn, arg_names, configs, key, reset_to_zero, restore_value, pre_hook=None,
                 post_hook=None, prune_configs_by: Optional[Dict] = None, warmup=None, rep=None,
                 use_cuda_graph=None, benchmark_mode=None, benchmark_retries=10, do_bench=None,
                 strategy=None, **flagtune_args):
        effective_warmup = warmup if warmup is not None else DEFAULT_BENCHMARK_WARMUP_MS
        effective_rep = rep if rep is not None else DEFAULT_BENCHMARK_REP_MS
        if do_bench is None:
            # FlagGems times configs with Triton's benchmarker (device time); the stand-in
            # uses the thread's CPU clock, which other processes do not disturb either.
            def do_bench(kernel_call, quantiles=None):
                return triton.testing.bench_thread_time(kernel_call, warmup=effective_warmup,
                                                        rep=effective_rep, quantiles=quantiles)
            protocol = ("triton_do_bench", effective_warmup, effective_rep)
        else:
            protocol = ("custom_do_bench", -1, -1)
        super().__init__(fn, arg_names, configs, key, reset_to_zero, restore_value,
                         pre_hook=pre_hook, post_hook=post_hook,
                         prune_configs_by=prune_configs_by, do_bench=do_bench)
        self.benchmark_protocol = None
        self._benchmark_protocol = protocol
        self._benchmark_retries = benchmark_retries
        self.__name__ = self.base_fn.__name__
        self.keys = key
        self.strategy: List[Callable[[Any], Any]] = self._normalize_strategy(strategy)
        self.config_table_name: str = self._make_config_table_name()
        self.benchmark_table_name: str = (
            f"{self.__name__}_{self.cache_key}_benchmark_v{BENCHMARK_CACHE_SCHEMA_VERSION}")
        self.cache: ConfigCache = libcache[self.config_table_name]

    def _make_config_table_name(self) -> str:
        base = f"{self.__name__}_{self.kernel_hash}"
        if self._benchmark_protocol[0] == "triton_do_bench":
            return base
        protocol_hash = hashlib.sha256(
            repr(tuple(self._benchmark_protocol)).encode("utf-8")).hexdigest()[:12]
        return f"{base}_benchmark_{protocol_hash}"

    def _normalize_strategy(self, strategy):
        if isinstance(strategy, str):
            strategy = LibTuner.get_strategy(strategy)
        if not isinstance(strategy, (list, tuple)):
            strategy = [strategy] * len(self.keys)
        assert len(strategy) == len(self.keys), (
            f"the length of strategy {len(strategy)} must match the length of keys {len(self.keys)}")
        return [LibTuner.get_strategy(s) if isinstance(s, str) else s for s in strategy]

    @cached_property
    def cache_key(self) -> str:
        jit_fn = self.fn
        while not isinstance(jit_fn, triton.runtime.JITFunction):
            jit_fn = jit_fn.fn
        return jit_fn.cache_key

    @cached_property
    def kernel_hash(self) -> str:
        return hashlib.md5(f"{self.cache_key}{self.configs_hash}".encode("utf-8")).hexdigest()[:32]

    @cached_property
    def configs_hash(self) -> str:
        return hashlib.md5(",".join(map(str, self.configs)).encode("utf-8")).hexdigest()[:32]

    def get_key(self, args):
        """The strategy-normalised key used by ConfigCache."""
        if self.strategy is None:
            key = tuple(args[k] for k in self.keys if k in args)
        else:
            key = tuple(starmap(lambda idx0, idx1: self.strategy[idx0](args[idx1]),
                                enumerate(self.keys)))
        key += tuple(str(dtype) for dtype in _infer_tensor_dtypes(args.values()))
        return key

    def get_benchmark_key(self, args):
        """The exact key plus the timing protocol, used by BenchmarkCache."""
        key = tuple(args[k] for k in self.keys if k in args)
        key += tuple(str(dtype) for dtype in _infer_tensor_dtypes(args.values()))
        return key + tuple(self._benchmark_protocol)

    def policy(self, fn, configs, args, kwargs):
        raise NotImplementedError(f"`policy` isn't implemented in {self.__class__.__name__}")

    @classmethod
    def register(cls, name: str):
        def decorator(subclass):
            cls._dispatch_table[name] = subclass
            return subclass

        return decorator

    @classmethod
    def get(cls, name: str):
        return cls._dispatch_table[name]

    @classmethod
    def get_strategy(cls, name: str):
        return cls._strategy_table[name]

    @staticmethod
    def register_policy(name: str):
        def decorator(policy_impl):
            @LibTuner.register(name)
            class AnonymousLibTunerImpl(LibTuner):
                def policy(self, fn, configs, args, kwargs):
                    return policy_impl(self, fn, configs, args, kwargs)

            return AnonymousLibTunerImpl

        return decorator

    @staticmethod
    def register_strategy(name: str):
        def decorator(strategy):
            LibTuner._strategy_table[name] = strategy
            return strategy

        return decorator

    def run(self, *args, **kwargs):
        self.benchmark_success_count = 0
        self.benchmark_cache_hit_count = 0
        # `arg_names` follows the JITFunction's signature, so args line up with it.
        self.nargs = dict(zip(self.arg_names, args))
        used_cached_result = True
        config_key = benchmark_key = None
        if len(self.configs) > 1:
            all_args = {**self.nargs, **kwargs}
            _args = {k: v for k, v in all_args.items() if k in self.arg_names}
            config_key = self.get_key(_args)
            benchmark_key = self.get_benchmark_key(_args)
            if config_key not in self.cache:
                cache: BenchmarkCache = libcache[self.benchmark_table_name, benchmark_key]
                used_cached_result = False
                pruned_configs = self.prune_configs(kwargs)
                bench_start = time.time()

                def bench(config: triton.Config) -> List[float]:
                    ret = cache.get(config)
                    if ret is None:
                        ret = self._bench(*args, config=config, **kwargs)
                        if isinstance(ret, (int, float)):
                            ret = (ret, ret, ret)
                        if ret and all(math.isfinite(float(v)) for v in ret):
                            self.benchmark_success_count += 1
                        cache[config] = tuple(ret)
                    else:
                        self.benchmark_cache_hit_count += 1
                    return list(ret)

                best_config, timings = self.policy(bench, pruned_configs, args, kwargs)
                self.bench_time = time.time() - bench_start
                self.cache[config_key] = best_config
                config = self.cache[config_key]
                full_nargs = {**self.nargs, **kwargs, **config.all_kwargs()}
                self.pre_hook(full_nargs, reset_only=True)
                self.configs_timings = timings
            else:
                config = self.cache[config_key]
            if config.pre_hook is None:
                cached_kwargs = config.all_kwargs()
                for original_config in self.configs:
                    if original_config.all_kwargs() == cached_kwargs:
                        # the original config carries the pre_hook
                        config = original_config
                        break
        else:
            config = self.configs[0]
        self.best_config = config
        if os.getenv("TRITON_PRINT_AUTOTUNING", None) == "1" and not used_cached_result:
            print(f"Triton autotuning for function {self.base_fn.__name__} finished after "
                  f"{self.bench_time:.2f}s; config key: {config_key}, "
                  f"benchmark key: {benchmark_key}, "
                  f"best config selected: {self.best_config};")
        if config.pre_hook is not None:
            config.pre_hook({**self.nargs, **kwargs, **config.all_kwargs()})
        ret = self.fn.run(*args, **kwargs, **config.all_kwargs())
        self.nargs = None
        return ret


@LibTuner.register_strategy(None)
@LibTuner.register_strategy("default")
def default_strategy(key: Any) -> Any:
    return key


@LibTuner.register_strategy("log")
def log2_strategy(key: Union[int, float]) -> float:
    return 2 ** math.ceil(math.log2(key))


@LibTuner.register_strategy("align32")
def align32_strategy(key: Union[int, float]) -> int:
    if key == 0:
        return 0
    if key < 32:
        return 2 ** math.ceil(math.log2(key))
    return math.ceil(key / 32) * 32


@LibTuner.register_policy("default")
def default_policy(self, bench_fn, configs: Iterator[triton.Config], args, kwargs):
    """Benchmark every config; the one with the smallest (p50, p20, p80) wins."""
    timings: Dict[triton.Config, Any] = {config: bench_fn(config) for config in configs}
    best_config: triton.Config = min(timings, key=timings.get)
    return best_config, timings


def libtuner(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=None, rep=None, use_cuda_graph=None,
             benchmark_mode=None, benchmark_retries=10, do_bench=None, strategy="default",
             policy: Union[str, Type[LibTuner]] = "default", **flagtune_args):
    """@libtuner(configs=..., key=[...], strategy=[...]) around a @triton.jit kernel."""
    if isinstance(policy, str):
        policy = LibTuner.get(policy)
    assert issubclass(policy, LibTuner), f"{policy.__name__} is not a subclass of LibTuner"

    def decorator(fn):
        return policy(fn, fn.arg_names, configs, key, reset_to_zero, restore_value,
                      pre_hook=pre_hook, post_hook=post_hook, prune_configs_by=prune_configs_by,
                      warmup=warmup, rep=rep, use_cuda_graph=use_cuda_graph,
                      benchmark_mode=benchmark_mode, benchmark_retries=benchmark_retries,
                      do_bench=do_bench, strategy=strategy, **flagtune_args)

    return decorator


class LibEntry(triton.KernelInterface):
    """Caches each argument specialisation's compiled kernel and launches it directly."""

    def __init__(self, fn):
        self.fn = fn
        self.arg_names = fn.arg_names
        self.divisibility = 16
        self.kernel_cache = tuple(dict() for _ in range(DEVICE_COUNT))
        while not isinstance(fn, triton.runtime.JITFunction):
            fn = fn.fn
        self.jit_function: triton.runtime.JITFunction = fn
        self.specialize_indices = [p.num for p in self.jit_function.params
                                   if not p.is_constexpr and not p.do_not_specialize]
        self.do_not_specialize_indices = [p.num for p in self.jit_function.params
                                          if not p.is_constexpr and p.do_not_specialize]
        self.signature = fn.signature

    def key(self, spec_args, dns_args, const_args):
        def spec_arg(arg):
            if hasattr(arg, "data_ptr"):
                return (arg.dtype, arg.data_ptr() % self.divisibility == 0)
            return (type(arg), arg)

        def dns_arg(arg):
            if hasattr(arg, "data_ptr"):
                return arg.dtype
            if not isinstance(arg, int):
                return type(arg)
            if -(2**31) <= arg <= 2**31 - 1:
                return "i32"
            if 2**63 <= arg <= 2**64 - 1:
                return "u64"
            return "i64"

        return tuple([spec_arg(a) for a in spec_args] + [dns_arg(a) for a in dns_args]
                     + const_args)

    def run(self, *args, **kwargs):
        grid = kwargs["grid"]
        spec_args, dns_args, const_args = [], [], []
        k_args = OrderedDict()
        param_names = list(self.signature.parameters.keys())
        for i, arg in enumerate(args):
            if i in self.specialize_indices:
                k_args[param_names[i]] = arg
                spec_args.append(arg)
            elif i in self.do_not_specialize_indices:
                k_args[param_names[i]] = arg
                dns_args.append(arg)
            else:
                k_args[param_names[i]] = arg
                const_args.append(arg)
        for p in self.jit_function.params[len(args):]:
            if p.name in kwargs:
                val = kwargs[p.name]
            elif p.default is inspect._empty:
                continue
            else:
                val = p.default
            if p.is_constexpr:
                const_args.append(val)
                k_args[p.name] = val
            elif p.do_not_specialize:
                dns_args.append(val)
                k_args[p.name] = val
            else:
                spec_args.append(val)
                k_args[p.name] = val

        entry_key = self.key(spec_args, dns_args, const_args)
        cache = self.kernel_cache[torch_device_fn.current_device()]
        if entry_key not in cache:
            kernel = self.fn.run(*args, **kwargs)
            fn = self.fn
            constexprs, tune_constexprs, heur_constexprs = {}, {}, {}
            launch_pre_hooks = []
            while not isinstance(fn, triton.runtime.JITFunction):
                if isinstance(fn, triton.runtime.Autotuner):
                    config = fn.best_config
                    constexprs["num_warps"] = config.num_warps
                    constexprs["num_stages"] = config.num_stages
                    constexprs["num_ctas"] = config.num_ctas
                    constexprs = {**constexprs, **config.kwargs}
                    tune_constexprs = {**tune_constexprs, **config.kwargs}
                    if config.pre_hook is not None:
                        launch_pre_hooks.append((config.pre_hook, config.all_kwargs()))
                elif isinstance(fn, triton.runtime.Heuristics):
                    for v, heur in fn.values.items():
                        heur_constexprs[v] = heur({**dict(zip(fn.arg_names, args)), **kwargs,
                                                   **constexprs})
                        constexprs[v] = heur_constexprs[v]
                else:
                    raise RuntimeError("Invalid Runtime Function")
                fn = fn.fn
            for p in self.jit_function.params:
                if p.is_constexpr and p.name not in constexprs and p.default is not inspect._empty:
                    constexprs[p.name] = p.default
            cache[entry_key] = (kernel, constexprs, tune_constexprs, heur_constexprs,
                                tuple(launch_pre_hooks))
            return kernel, constexprs

        kernel, constexprs, tune_constexprs, heur_constexprs, launch_pre_hooks = cache[entry_key]
        if callable(grid):
            meta = {**dict(zip(self.arg_names, args)), **kwargs, **constexprs}
            grid = grid(meta)
        grid = tuple(grid) + (1, 1)
        if launch_pre_hooks:
            hook_nargs = {**dict(zip(self.arg_names, args)), **kwargs}
            for pre_hook, hook_kwargs in launch_pre_hooks:
                pre_hook({**hook_nargs, **hook_kwargs})
        all_args = []
        for key in self.signature.parameters:
            for source in (k_args, tune_constexprs, heur_constexprs, constexprs):
                if key in source:
                    all_args.append(source[key])
                    break
            else:
                raise RuntimeError(
                    f"[libentry]: probably a bug, kernel param '{key}' was not captured")
        kernel[grid[0:3]](*all_args)
        return kernel, constexprs


def libentry():
    """Decorator for triton library entries."""

    def decorator(fn):
        return LibEntry(fn)

    return decorator
