"""Autotuner, Config and Heuristics shaped like triton 3.6's (run, _bench, cache,
configs, keys, best_config, bench_time, configs_timings), without the disk cache."""
import builtins
import inspect
import time
from functools import cached_property

from .jit import KernelInterface, _log


class Autotuner(KernelInterface):

    def __init__(self, fn, arg_names, configs, key, reset_to_zero, restore_value, pre_hook=None,
                 post_hook=None, prune_configs_by=None, warmup=None, rep=None, use_cuda_graph=False,
                 do_bench=None, cache_results=False):
        self.configs = configs or [Config({}, num_warps=4, num_stages=3, num_ctas=1)]
        self.keys = key
        self.cache = {}
        self.arg_names = arg_names
        self.cache_results = False
        self.pre_hook = lambda kwargs, reset_only=False: 0
        self.post_hook = lambda kwargs, exception: 0
        self.fn = fn
        self.base_fn = fn
        while not inspect.isfunction(self.base_fn):
            self.base_fn = self.base_fn.fn
        self._do_bench = do_bench
        self.early_config_prune = (prune_configs_by or {}).get("early_config_prune")

    @cached_property
    def do_bench(self):
        if self._do_bench is None:
            from .driver import driver
            return driver.active.get_benchmarker()
        return self._do_bench

    def _bench(self, *args, config, **meta):
        _log("tune %s %s" % (self.base_fn.__name__, config))
        current = dict(meta, **config.all_kwargs())

        def kernel_call():
            self.fn.run(*args, **current)

        return self.do_bench(kernel_call, quantiles=(0.5, 0.2, 0.8))

    def prune_configs(self, kwargs):
        if self.early_config_prune:
            return self.early_config_prune(self.configs, self.nargs, **kwargs)
        return self.configs

    def run(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        if len(self.configs) > 1:
            all_args = {**self.nargs, **kwargs}
            _args = {k: v for (k, v) in all_args.items() if k in self.arg_names}
            key = [_args[key] for key in self.keys if key in _args]
            for _, arg in _args.items():
                if hasattr(arg, "dtype"):
                    key.append(str(arg.dtype))
            key = tuple(key)
            if key not in self.cache:
                pruned_configs = self.prune_configs(kwargs)
                if len(pruned_configs) == 1:
                    # As upstream: one config left, nothing to benchmark.
                    self.cache[key] = pruned_configs[0]
                else:
                    bench_start = time.time()
                    timings = {config: self._bench(*args, config=config, **kwargs)
                               for config in pruned_configs}
                    bench_end = time.time()
                    self.bench_time = bench_end - bench_start
                    self.cache[key] = builtins.min(timings, key=timings.get)
                    self.configs_timings = timings
            config = self.cache[key]
        else:
            config = self.configs[0]
        self.best_config = config
        ret = self.fn.run(*args, **kwargs, **config.all_kwargs())
        self.nargs = None
        return ret


class Config:
    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None,
                 ir_override=None):
        self.kwargs = kwargs
        self.num_warps = num_warps
        self.num_ctas = num_ctas
        self.num_stages = num_stages
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.ir_override = ir_override

    def all_kwargs(self):
        return {**self.kwargs, **{k: v for (k, v) in (
            ("num_warps", self.num_warps), ("num_ctas", self.num_ctas),
            ("num_stages", self.num_stages), ("maxnreg", self.maxnreg),
            ("ir_override", self.ir_override)) if v is not None}}

    def __str__(self):
        res = ["%s: %s" % (k, v) for k, v in self.kwargs.items()]
        res.append("num_warps: %s" % self.num_warps)
        res.append("num_ctas: %s" % self.num_ctas)
        res.append("num_stages: %s" % self.num_stages)
        res.append("maxnreg: %s" % self.maxnreg)
        return ", ".join(res)

    def __hash__(self):
        return hash((*self.all_kwargs().items(), self.pre_hook))

    def __eq__(self, other):
        return (tuple((*self.all_kwargs().items(), self.pre_hook))
                == tuple((*other.all_kwargs().items(), other.pre_hook)))


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=None, rep=None, use_cuda_graph=False,
             do_bench=None, cache_results=False):
    def decorator(fn):
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value,
                         pre_hook=pre_hook, post_hook=post_hook, prune_configs_by=prune_configs_by,
                         do_bench=do_bench)
    return decorator


class Heuristics(KernelInterface):
    def __init__(self, fn, arg_names, values):
        self.fn = fn
        self.values = values
        self.arg_names = arg_names

    def run(self, *args, **kwargs):
        for v, heur in self.values.items():
            kwargs[v] = heur({**dict(zip(self.arg_names, args)), **kwargs})
        return self.fn.run(*args, **kwargs)


def heuristics(values):
    def decorator(fn):
        return Heuristics(fn, fn.arg_names, values)
    return decorator
