"""A reduced copy of FlagGems' benchmark/conftest.py: the options zlbench passes and
the --record json output (one object per op with a details list)."""
import json

import flag_gems  # noqa: F401  (imported at conftest load, like FlagGems')

from . import consts

Config = None
TEST_RESULTS = {}


class BenchConfig:
    def __init__(self):
        self.mode = "kernel"
        self.bench_level = "comprehensive"
        self.warm_up = consts.DEFAULT_WARMUP_TIME
        self.repetition = consts.DEFAULT_ITER_TIME
        self.record_json = False
        self.output = "benchmark_result.json"


def pytest_addoption(parser):
    parser.addoption("--mode", default="kernel", choices=["kernel", "operator", "wrapper", "cudagraph"])
    parser.addoption("--level", default="comprehensive", choices=["core", "comprehensive"])
    parser.addoption("--warmup", default=consts.DEFAULT_WARMUP_TIME)
    parser.addoption("--iter", default=consts.DEFAULT_ITER_TIME)
    parser.addoption("--record", default="none", choices=["none", "log", "json"])
    parser.addoption("--output", default="benchmark_result.json")
    parser.addoption("--dtypes", default=None)


def pytest_configure(config):
    global Config
    Config = BenchConfig()
    Config.mode = config.getoption("--mode")
    Config.bench_level = config.getoption("--level")
    Config.warm_up = int(config.getoption("--warmup"))
    Config.repetition = int(config.getoption("--iter"))
    Config.record_json = config.getoption("--record") == "json"
    Config.output = config.getoption("--output")


def update_result(op, data):
    if Config.record_json:
        TEST_RESULTS.setdefault(op, {}).setdefault("details", []).append(data)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if Config.record_json:
        with open(Config.output, "w") as f:
            json.dump(TEST_RESULTS, f, indent=2, default=str)
