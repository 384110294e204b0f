"""Helpers for the plugin tests.

Each scenario runs a real pytest in a subprocess over a small generated test tree,
with plugins/ and the fakes (tests/plugins/fakes: torch, triton, flag_gems) first
on PYTHONPATH, exactly as zlbench loads the plugins. Subprocesses keep the
plugins' module patching and sys.modules tracking out of this test session.
"""

import json
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("ZL_SOURCE_DIR") or os.path.dirname(os.path.dirname(HERE))
PLUGINS_DIR = os.path.join(SOURCE_DIR, "plugins")
FAKES_DIR = os.path.join(HERE, "fakes")
TREES_DIR = os.path.join(HERE, "trees")
ALL_PLUGINS = ("zl_timer", "zl_profiler_timer", "zl_graph_timer", "zl_vendor_guard",
               "zl_foreign_vendor", "zl_autotune", "zl_skips")

# The fakes and the generated trees are not tests of this session.
collect_ignore_glob = ["fakes/*", "trees/*", "gpu/*"]

sys.path.insert(0, PLUGINS_DIR)


class Result:
    def __init__(self, proc, run_dir):
        self.rc = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr
        self.run_dir = run_dir

    def __repr__(self):
        return "rc=%s\n--- stdout\n%s\n--- stderr\n%s" % (self.rc, self.out, self.err)

    def path(self, *parts):
        return os.path.join(self.run_dir, *parts)

    def json(self, *parts):
        with open(self.path(*parts), encoding="utf-8") as f:
            return json.load(f)

    def jsonl(self, *parts):
        with open(self.path(*parts), encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]

    def lines(self, prefix):
        """stdout+stderr lines that start with prefix (marker lines)."""
        return [ln for ln in (self.out + self.err).splitlines() if ln.startswith(prefix)]


def clean_env(extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ZL_", "GEMS_", "FLAGGEMS_", "FAKE_", "PYTEST_"))}
    env["PYTHONPATH"] = os.pathsep.join([PLUGINS_DIR, FAKES_DIR])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    for k, v in extra.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = str(v)
    return env


class Runner:
    """Runs pytest over a tree the way zlbench does."""

    def __init__(self, tmp_path):
        self.tmp = tmp_path
        self.tree = tmp_path / "tree"
        self.run_dir = str(tmp_path / "run")
        self.count = 0

    def copy_bench_tree(self):
        shutil.copytree(os.path.join(TREES_DIR, "gems_bench"), self.tree)
        return self.tree

    def write(self, rel, text):
        p = self.tree / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        return p

    def new_run_dir(self):
        self.count += 1
        self.run_dir = str(self.tmp / ("run%d" % self.count))
        os.makedirs(self.run_dir)
        return self.run_dir

    def _command(self, args, env, plugins, run_dir, bench_opts):
        env = dict(env or {})
        rd = None
        if run_dir:
            rd = self.new_run_dir()
            env.setdefault("ZL_RUN_DIR", rd)
        cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
        cmd += list(args)
        for p in plugins:
            cmd += ["-p", p]
        if bench_opts:
            cmd += ["--level", "core", "--mode", "kernel", "--record", "json",
                    "--output", os.path.join(rd or str(self.tmp), "results.json")]
        cmd += ["-s"]
        return cmd, clean_env(env), rd

    def run(self, args, env=None, plugins=ALL_PLUGINS, run_dir=True, bench_opts=True):
        cmd, env, rd = self._command(args, env, plugins, run_dir, bench_opts)
        proc = subprocess.run(cmd, cwd=str(self.tree), env=env,
                              capture_output=True, text=True, timeout=120)
        return Result(proc, rd)

    def start(self, args, env=None, plugins=ALL_PLUGINS, bench_opts=False):
        """(Popen, run dir) of a pytest left running, output to files in the run dir."""
        cmd, env, rd = self._command(args, env, plugins, True, bench_opts)
        out = open(os.path.join(rd, "stdout"), "w")
        err = open(os.path.join(rd, "stderr"), "w")
        try:
            proc = subprocess.Popen(cmd, cwd=str(self.tree), env=env, stdout=out, stderr=err)
        finally:
            out.close()
            err.close()
        return proc, rd


def backend_env(backend, **extra):
    """The variables zlbench sets for a backend (vendor facts as in backends/table.c)."""
    facts = {"cuda": ("nvidia", "_nvidia", "profiler", "nvml"),
             "musa": ("mthreads", "_mthreads", "direct", "none"),
             "rocm": ("amd", "_amd", "profiler", "none"),
             "ascend": ("ascend", "_ascend", "direct", "none")}
    vendor, module, plan, clock = facts[backend]
    env = {"ZL_BACKEND": backend, "ZL_EXPECTED_VENDOR": vendor, "ZL_VENDOR_MODULE": module,
           "ZL_TIMER_PLAN": plan, "ZL_DIRECT_REPEAT": 1, "ZL_AUTOTUNE_MODE": "record",
           "ZL_NOISE_TARGET": 0.005, "ZL_MAX_TIME_PER_SHAPE": 0.3, "ZL_CLOCK_SOURCE": clock,
           "GEMS_VENDOR": vendor}
    env.update(extra)
    return env


@pytest.fixture
def runner(tmp_path):
    r = Runner(tmp_path)
    r.tree.mkdir()
    return r


@pytest.fixture
def bench(tmp_path):
    r = Runner(tmp_path)
    r.copy_bench_tree()
    return r
