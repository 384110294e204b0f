"""Autotune configs from tune_configs.yaml and heuristics, like FlagGems' loader.

FlagGems keeps one tune_configs.yaml per vendor (and per architecture); the demo
has one file for every vendor.
"""

import os

import triton
import yaml

# meta-parameter heuristics (FlagGems: HEURISTICS_CONFIGS in heuristics_config_utils.py)
HEURISTICS_CONFIGS = {
    "sum": {
        "BLOCK_N": lambda args: triton.next_power_of_2(min(args["N"], 1024)),
    },
}


class TunedConfigLoader:
    _instance = None

    def __new__(cls, *args, **kwargs):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __init__(self):
        if getattr(self, "_loaded", False):
            return
        self._loaded = True
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tune_configs.yaml")
        with open(path) as f:
            self.yaml = yaml.safe_load(f) or {}

    def get_tuned_config(self, op_name):
        entries = self.yaml.get(op_name)
        if entries is None:
            raise KeyError(f"no tuned configs for '{op_name}' in tune_configs.yaml")
        return [triton.Config(dict(e["META"]), **{k: v for k, v in e.items() if k != "META"})
                for e in entries]

    def get_heuristics_config(self, op_name):
        return HEURISTICS_CONFIGS[op_name]
