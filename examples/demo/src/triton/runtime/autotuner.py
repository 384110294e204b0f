"""triton.runtime.autotuner stand-in with Triton 3.6's names and control flow.

Autotuner.run builds the tuning key from the `key` arguments plus the dtype of every
argument that has one, looks it up in self.cache (a dict of key -> Config), and on a
miss prunes the configs, benchmarks each through self._bench -> self.do_bench, keeps
the fastest in self.cache[key] and self.configs_timings, then launches with
self.best_config. A plugin that patches these works here as on Triton.
Not supported: the on-disk autotune cache (cache_results) and CUDA-graph benchmarking.
"""

import builtins
import inspect
import time
from functools import cached_property
from typing import Dict, List, Optional, Tuple

from .. import knobs
from .driver import driver
from .errors import AutotunerError, OutOfResources, PTXASError
from .jit import KernelInterface


class Autotuner(KernelInterface):
    def __init__(self, fn, arg_names, configs, key, reset_to_zero, restore_value, pre_hook=None,
                 post_hook=None, prune_configs_by: Optional[Dict] = None, warmup=None, rep=None,
                 use_cuda_graph=False, do_bench=None, cache_results=False):
        if not configs:
            self.configs = [Config({}, num_warps=4, num_stages=3, num_ctas=1)]
        else:
            self.configs = configs
        self.keys = key
        self.cache: Dict[Tuple, Config] = {}
        self.arg_names = arg_names
        self.cache_results = cache_results

        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        self.pre_hook = lambda kwargs, reset_only=False: 0
        self.post_hook = lambda kwargs, exception: 0
        self.user_defined_pre_hook = False
        self.user_defined_post_hook = False
        if pre_hook:
            self.pre_hook = pre_hook
            self.user_defined_pre_hook = True
        elif self.reset_to_zero or self.restore_value:

            def _pre_hook(kwargs, reset_only=False):
                for name in self.reset_to_zero:
                    if kwargs[name] is not None:
                        kwargs[name].data[:] = [0.0] * len(kwargs[name].data)
                if not reset_only:
                    self.restore_copies = {name: list(kwargs[name].data)
                                           for name in self.restore_value
                                           if kwargs[name] is not None}

            self.pre_hook = _pre_hook
        if post_hook:
            self.post_hook = post_hook
            self.user_defined_post_hook = True
        elif self.restore_value:

            def _post_hook(kwargs, exception):
                for name, value in self.restore_copies.items():
                    kwargs[name].data[:] = value
                self.restore_copies = {}

            self.post_hook = _post_hook

        self.perf_model = None
        self.configs_top_k = 1.0
        self.early_config_prune = None
        if prune_configs_by:
            self.perf_model = prune_configs_by.get("perf_model", self.perf_model)
            self.configs_top_k = prune_configs_by.get("top_k", self.configs_top_k)
            self.early_config_prune = prune_configs_by.get("early_config_prune",
                                                           self.early_config_prune)

        self.fn = fn
        self.base_fn = fn
        while not inspect.isfunction(self.base_fn):
            self.base_fn = self.base_fn.fn

        self._do_bench = do_bench
        self.num_warmups = warmup
        self.num_reps = rep
        self.use_cuda_graph = use_cuda_graph
        if warmup is not None or rep is not None:
            import triton.testing

            self._do_bench = lambda kernel_call, quantiles: triton.testing.do_bench(
                kernel_call,
                warmup=warmup if warmup is not None else 25,
                rep=rep if rep is not None else 100,
                quantiles=quantiles,
            )

    @cached_property
    def do_bench(self):
        if self._do_bench is None:
            return driver.active.get_benchmarker()
        return self._do_bench

    def _bench(self, *args, config, **meta):
        verbose = knobs.autotuning.print
        if verbose:
            print(f"Autotuning kernel {self.base_fn.__name__} with config {config}")
        conflicts = meta.keys() & config.kwargs.keys()
        if conflicts:
            raise ValueError(f"Conflicting meta-parameters: {', '.join(conflicts)}."
                             " Make sure that you don't re-define auto-tuned symbols.")
        current = dict(meta, **config.all_kwargs())
        full_nargs = {**self.nargs, **current}

        def kernel_call():
            if config.pre_hook:
                config.pre_hook(full_nargs)
            self.pre_hook(full_nargs)
            try:
                self.fn.run(*args, **current)
            except Exception as e:
                try:
                    self.post_hook(full_nargs, exception=e)
                finally:
                    raise
            self.post_hook(full_nargs, exception=None)

        try:
            return self.do_bench(kernel_call, quantiles=(0.5, 0.2, 0.8))
        except (OutOfResources, PTXASError) as e:
            if verbose:
                print(f"Autotuning failed with {e}")
            return [float("inf"), float("inf"), float("inf")]

    def run(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        used_cached_result = True
        if len(self.configs) > 1:
            all_args = {**self.nargs, **kwargs}
            _args = {k: v for (k, v) in all_args.items() if k in self.arg_names}
            key = [_args[key] for key in self.keys if key in _args]
            for _, arg in _args.items():
                if hasattr(arg, "dtype"):
                    key.append(str(arg.dtype))
            key = tuple(key)
            if key not in self.cache:
                used_cached_result = False
                pruned_configs = self.prune_configs(kwargs)
                if len(pruned_configs) == 1:
                    self.cache[key] = pruned_configs[0]
                    used_cached_result = True
                else:
                    bench_start = time.time()
                    timings = {config: self._bench(*args, config=config, **kwargs)
                               for config in pruned_configs}
                    bench_end = time.time()
                    self.bench_time = bench_end - bench_start
                    self.cache[key] = builtins.min(timings, key=timings.get)
                    full_nargs = {**self.nargs, **kwargs, **self.cache[key].all_kwargs()}
                    self.pre_hook(full_nargs, reset_only=True)
                    self.configs_timings = timings
            config = self.cache[key]
        else:
            config = self.configs[0]
        self.best_config = config
        if knobs.autotuning.print and not used_cached_result:
            print(f"Triton autotuning for function {self.base_fn.__name__},\nwith key as {key},\n"
                  f"finished after {self.bench_time:.2f}s,\nbest config selected: {self.best_config};")
        if config.pre_hook is not None:
            full_nargs = {**self.nargs, **kwargs, **config.all_kwargs()}
            config.pre_hook(full_nargs)
        ret = self.fn.run(*args, **kwargs, **config.all_kwargs())
        self.nargs = None
        return ret

    def prune_configs(self, kwargs: Dict) -> List["Config"]:
        pruned_configs = self.configs
        if self.early_config_prune:
            pruned_configs = self.early_config_prune(self.configs, self.nargs, **kwargs)
            if not pruned_configs:
                raise AutotunerError("No valid autotuner configs after pruning. "
                                     "`early_config_prune` should return at least one config.")
        if self.perf_model:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(pruned_configs) * top_k))
            elif not isinstance(top_k, int):
                raise TypeError("Error while pruning configs, top_k must be either "
                                "1) a float <= 1.0 or 2) an int")
            if len(pruned_configs) > top_k:
                est_timing = {config: self.perf_model(**self.nargs, **kwargs, **config.all_kwargs())
                              for config in pruned_configs}
                pruned_configs = sorted(est_timing.keys(), key=lambda x: est_timing[x])[:top_k]
        return pruned_configs

    def warmup(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        ret = [self.fn.warmup(*args, **kwargs, **config.all_kwargs())
               for config in self.prune_configs(kwargs)]
        self.nargs = None
        return ret


class Config:
    """A kernel configuration: meta-parameters (kwargs) plus launch options."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None,
                 ir_override=None):
        self.kwargs = kwargs
        self.num_warps = num_warps
        self.num_ctas = num_ctas
        self.num_stages = num_stages
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.ir_override = ir_override

    def __setstate__(self, state):
        self.kwargs = state.get("kwargs", {})
        self.num_warps = state.get("num_warps", 4)
        self.num_stages = state.get("num_stages", 3)
        self.num_ctas = state.get("num_ctas", 1)
        self.maxnreg = state.get("maxnreg", None)
        self.pre_hook = state.get("pre_hook", None)
        self.ir_override = state.get("ir_override", None)

    def all_kwargs(self):
        return {
            **self.kwargs, **{
                k: v
                for (k, v) in (
                    ("num_warps", self.num_warps),
                    ("num_ctas", self.num_ctas),
                    ("num_stages", self.num_stages),
                    ("maxnreg", self.maxnreg),
                    ("ir_override", self.ir_override),
                ) if v is not None
            }
        }

    def __str__(self):
        res = [f"{k}: {v}" for k, v in self.kwargs.items()]
        res.append(f"num_warps: {self.num_warps}")
        res.append(f"num_ctas: {self.num_ctas}")
        res.append(f"num_stages: {self.num_stages}")
        res.append(f"maxnreg: {self.maxnreg}")
        res.append(f"ir_override: {self.ir_override}")
        return ", ".join(res)

    def __hash__(self):
        return hash((*self.all_kwargs().items(), self.pre_hook))

    def __eq__(self, other):
        self_tuple = tuple((*self.all_kwargs().items(), self.pre_hook))
        other_tuple = tuple((*other.all_kwargs().items(), other.pre_hook))
        return self_tuple == other_tuple


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=None, rep=None, use_cuda_graph=False,
             do_bench=None, cache_results=False):
    """@triton.autotune(configs=[...], key=[...]) around a @triton.jit kernel."""

    def decorator(fn):
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value,
                         pre_hook=pre_hook, post_hook=post_hook,
                         prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                         use_cuda_graph=use_cuda_graph, do_bench=do_bench,
                         cache_results=cache_results)

    return decorator


class Heuristics(KernelInterface):
    def __init__(self, fn, arg_names, values) -> None:
        self.fn = fn
        self.values = values
        self.arg_names = arg_names

    def run(self, *args, **kwargs):
        for v, heur in self.values.items():
            kwargs[v] = heur({**dict(zip(self.arg_names, args)), **kwargs})
        return self.fn.run(*args, **kwargs)


def heuristics(values):
    """@triton.heuristics({'BLOCK': lambda args: ...}) computes meta-parameters."""

    def decorator(fn):
        return Heuristics(fn, fn.arg_names, values)

    return decorator
