"""LibTuner and LibEntry shaped like FlagGems' (run(), get_key() with strategies and
dtypes, a persistent ConfigCache, LibEntry's own dispatch cache bypassing the tuner)."""
import json
import math
import os
import time

import triton
from flag_gems.runtime import torch

_DB = {}


def _db_path():
    return os.environ.get("FAKE_TUNER_DB")


def _db_load():
    path = _db_path()
    if path and os.path.exists(path):
        with open(path) as f:
            _DB.update(json.load(f))


def _db_save():
    path = _db_path()
    if path:
        with open(path, "w") as f:
            json.dump(_DB, f)


_db_load()


class ConfigCache:
    """The tuner database (SQLite in FlagGems): key -> best config, per table."""

    def __init__(self, table_name):
        self.table_name = table_name

    def __contains__(self, key):
        return self.get(key) is not None

    def __getitem__(self, key):
        ret = self.get(key)
        if ret is None:
            raise KeyError(key)
        return ret

    def __setitem__(self, key, config):
        self.set(key, config)

    def get(self, key):
        d = _DB.get(self.table_name, {}).get(repr(key))
        if d is None:
            return None
        return triton.Config(d["kwargs"], num_warps=d["num_warps"], num_stages=d["num_stages"],
                             num_ctas=d["num_ctas"])

    def set(self, key, config):
        _DB.setdefault(self.table_name, {})[repr(key)] = {
            "kwargs": config.kwargs, "num_warps": config.num_warps,
            "num_stages": config.num_stages, "num_ctas": config.num_ctas}
        _db_save()


def default_strategy(key):
    return key


def log2_strategy(key):
    return 2 ** math.ceil(math.log2(key))


STRATEGIES = {None: default_strategy, "default": default_strategy, "log": log2_strategy}


class LibTuner(triton.runtime.Autotuner):
    def __init__(self, fn, arg_names, configs, key, reset_to_zero, restore_value,
                 strategy="default"):
        super().__init__(fn, arg_names, configs, key, reset_to_zero, restore_value)
        self.__name__ = self.base_fn.__name__
        self.keys = key
        if not isinstance(strategy, (list, tuple)):
            strategy = [strategy] * len(key)
        self.strategy = [STRATEGIES[s] for s in strategy]
        self.cache = ConfigCache("%s_fakehash" % self.__name__)

    def get_key(self, args):
        key = tuple(self.strategy[i](args[k]) for i, k in enumerate(self.keys))
        key += tuple(str(v.dtype) for v in args.values() if isinstance(v, torch.Tensor))
        return key

    def policy(self, bench_fn, configs, args, kwargs):
        timings = {config: bench_fn(config) for config in configs}
        return min(timings, key=timings.get), timings

    def run(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        if len(self.configs) > 1:
            all_args = {**self.nargs, **kwargs}
            _args = {k: v for k, v in all_args.items() if k in self.arg_names}
            config_key = self.get_key(_args)
            if config_key not in self.cache:
                pruned_configs = self.prune_configs(kwargs)
                bench_start = time.time()

                def bench(config):
                    return self._bench(*args, config=config, **kwargs)

                best_config, timings = self.policy(bench, pruned_configs, args, kwargs)
                self.bench_time = time.time() - bench_start
                self.cache[config_key] = best_config
                config = self.cache[config_key]
                self.configs_timings = timings
            else:
                config = self.cache[config_key]
            if config.pre_hook is None:
                cached_kwargs = config.all_kwargs()
                for original_config in self.configs:
                    if original_config.all_kwargs() == cached_kwargs:
                        config = original_config
                        break
        else:
            config = self.configs[0]
        self.best_config = config
        ret = self.fn.run(*args, **kwargs, **config.all_kwargs())
        self.nargs = None
        return ret


def libtuner(configs, key, strategy="default"):
    def decorator(fn):
        return LibTuner(fn, fn.arg_names, configs, key, None, None, strategy=strategy)
    return decorator


class LibEntry(triton.KernelInterface):
    def __init__(self, fn):
        self.fn = fn
        self.arg_names = fn.arg_names
        self.kernel_cache = (dict(),)
        self._cpu_cache = dict()
        jit = fn
        while not isinstance(jit, triton.runtime.JITFunction):
            jit = jit.fn
        self.jit_function = jit

    @staticmethod
    def key(args):
        return tuple((a.dtype, a.data_ptr() % 16 == 0) if hasattr(a, "data_ptr") else (type(a), a)
                     for a in args)

    def run(self, *args, **kwargs):
        entry_key = self.key(args)
        cache = self.kernel_cache[0]
        if entry_key not in cache:
            kernel = self.fn.run(*args, **kwargs)
            constexprs = {}
            fn = self.fn
            while not isinstance(fn, triton.runtime.JITFunction):
                if isinstance(fn, triton.runtime.Autotuner):
                    constexprs.update(fn.best_config.all_kwargs())
                fn = fn.fn
            cache[entry_key] = constexprs
            return kernel, constexprs
        constexprs = cache[entry_key]
        return self.jit_function.run(*args, **kwargs, **constexprs), constexprs


def libentry():
    return lambda fn: LibEntry(fn)
