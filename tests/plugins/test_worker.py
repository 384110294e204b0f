"""zl_worker: the per-device interpreter of `zlbench batch --start worker`.

The pure functions, then a real worker process serving ops over its socket, with a
stand-in torch whose default dtype and random generator an op changes.
"""
import gc
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import types

import pytest

import zl_common as zc
import zl_worker as zw
from conftest import FAKES_DIR, PLUGINS_DIR, backend_env


def test_env_differences_ignore_zlbench_variables_and_name_no_values():
    worker = {"PATH": "/bin", "CUDA_VISIBLE_DEVICES": "0", "ZL_RUN_DIR": "", "TOKEN": "a"}
    op = {"PATH": "/bin", "CUDA_VISIBLE_DEVICES": "1", "ZL_RUN_DIR": "/r", "ZL_SCHEDULER": "{}",
          "TOKEN": "b", "NEW": "x"}
    assert zw.env_differences(worker, op) == ["CUDA_VISIBLE_DEVICES", "NEW", "TOKEN"]
    assert zw.env_differences(worker, dict(worker, ZL_TIMER_PLAN="graph")) == []


def test_parse_env_and_pytest_args():
    assert zw.parse_env(["A=1", "B=x=y", "C="]) == {"A": "1", "B": "x=y", "C": ""}
    with pytest.raises(ValueError):
        zw.parse_env(["A"])
    assert zw.pytest_args(["/py", "-m", "pytest", "t.py", "-s"], "/py") == ["t.py", "-s"]
    with pytest.raises(ValueError, match="interpreter '/other'"):
        zw.pytest_args(["/other", "-m", "pytest"], "/py")
    with pytest.raises(ValueError, match="not a pytest run"):
        zw.pytest_args(["/py", "-c", "pass"], "/py")


def test_session_modules_are_the_benchmark_tree_the_plugins_and_conftests(tmp_path):
    bench = tmp_path / "fg" / "benchmark"
    plugins = tmp_path / "plugins"

    def mod(name, path):
        m = types.ModuleType(name)
        if path:
            m.__file__ = str(path)
        return m

    modules = {
        "benchmark": mod("benchmark", bench / "__init__.py"),
        "benchmark.base": mod("benchmark.base", bench / "base.py"),
        "benchmark.test_add": mod("benchmark.test_add", bench / "test_add.py"),
        "conftest": mod("conftest", tmp_path / "conftest.py"),
        "zl_timer": mod("zl_timer", plugins / "zl_timer.py"),
        "zl_worker": mod("zl_worker", plugins / "zl_worker.py"),
        "flag_gems": mod("flag_gems", tmp_path / "fg" / "src" / "flag_gems" / "__init__.py"),
        "benchmarking": mod("benchmarking", tmp_path / "fg" / "benchmarking.py"),
        "sys": mod("sys", None),
        "gone": None,
    }
    got = zw.session_modules(modules, [str(bench), str(plugins)])
    assert got == ["benchmark", "benchmark.base", "benchmark.test_add", "conftest", "zl_timer"]


class FakeTorch:
    """What the fingerprint reads of torch: a default dtype with its setter; no grad mode."""

    def __init__(self):
        self.dtype = "float32"

    def get_default_dtype(self):
        return self.dtype

    def set_default_dtype(self, d):
        self.dtype = d


def test_fingerprint_reads_loaded_modules_only_and_resets_what_it_can():
    torch = FakeTorch()
    fg = types.SimpleNamespace(current_work_registrar=None)
    modules = {"torch": torch, "flag_gems": fg, "sys": sys}
    ref = zw.fingerprint(modules)
    assert ref["torch default dtype"] == "float32" and ref["flag_gems enabled"] is False
    assert "torch grad mode" not in ref  # the stand-in has none: left out, not guessed
    assert "cudnn enabled" not in ref    # torch.backends.cudnn is not loaded: never imported
    torch.dtype = "float64"
    fg.current_work_registrar = object()
    now = zw.fingerprint(modules)
    names = zw.differing(ref, now)
    assert names == ["torch default dtype", "flag_gems enabled"]
    reset, failed = zw.restore(modules, ref, names)
    assert reset == ["torch default dtype"] and torch.dtype == "float32"
    assert failed == ["flag_gems enabled: cannot be reset"]


def test_python_globals_are_reset():
    limit = sys.getrecursionlimit()
    level = logging.getLogger().level
    ref = zw.fingerprint(sys.modules)
    try:
        sys.setrecursionlimit(limit + 7)
        logging.getLogger().setLevel(3)
        names = zw.differing(ref, zw.fingerprint(sys.modules))
        assert "python recursion limit" in names and "python root logger" in names
        reset, failed = zw.restore(sys.modules, ref, names)
        assert failed == [] and set(reset) == set(names)
        assert sys.getrecursionlimit() == limit and logging.getLogger().level == level
    finally:
        sys.setrecursionlimit(limit)
        logging.getLogger().setLevel(level)


def test_foreign_new_modules():
    def mod(path):
        m = types.ModuleType("m")
        m.__file__ = path
        return m

    before = {"_nvidia"}
    modules = {"_nvidia": mod("/s/flag_gems/runtime/backend/_nvidia/__init__.py"),
               "_mthreads": mod("/s/flag_gems/runtime/backend/_mthreads/__init__.py"),
               "flag_gems.runtime.backend._amd": mod("/x.py"),
               "json": mod("/usr/lib/python3/json/__init__.py")}
    got = zw.foreign_new_modules(before, modules, "_nvidia", zc.vendor_segment)
    assert got == ["_mthreads", "flag_gems.runtime.backend._amd"]
    assert zw.foreign_new_modules(before, modules, None, zc.vendor_segment) == []


class FakeDevice:
    """torch.cuda as the worker reads it after an op: a broken context, or memory still held."""

    def __init__(self, allocated=0, error=None):
        self.allocated = allocated
        self.error = error

    def synchronize(self):
        if self.error:
            raise RuntimeError(self.error)

    def empty_cache(self):
        pass

    def memory_allocated(self):
        return self.allocated


def _tidy_with(tmp_path, monkeypatch, dev, mem_ref=0):
    w = zw.Worker(str(tmp_path), sys.executable, PLUGINS_DIR)
    w.roots = []  # this test session's modules are none of an op's
    w.mem_ref = mem_ref
    monkeypatch.setattr(w, "_device_module", lambda: dev)
    notes = w.tidy({"env": {}}, set(sys.modules), set())
    return w, notes


def test_a_device_error_retires_the_worker(tmp_path, monkeypatch):
    dev = FakeDevice(error="CUDA error: an illegal memory access was encountered\nmore text")
    w, _ = _tidy_with(tmp_path, monkeypatch, dev)
    assert w.retire == ("the device reports an error: RuntimeError: CUDA error: "
                        "an illegal memory access was encountered"), w.retire


def test_device_memory_left_allocated_retires_the_worker(tmp_path, monkeypatch):
    w, _ = _tidy_with(tmp_path, monkeypatch, FakeDevice(allocated=(1 << 20) * 100), mem_ref=1 << 20)
    assert w.retire is None  # 99 MiB more: within the 256 MiB slack
    w, _ = _tidy_with(tmp_path, monkeypatch, FakeDevice(allocated=(1 << 20) * 300), mem_ref=1 << 20)
    assert w.retire == "299 MiB of device memory still allocated after the op", w.retire


def test_memory_a_frozen_cycle_holds_is_collected_before_it_can_retire_the_worker(tmp_path,
                                                                                   monkeypatch):
    # Wave 11: after an op the worker collects the session's objects, not its whole frozen heap;
    # a tensor held by a cycle through frozen objects (pytest's items of the op's collection)
    # survives that, and must not retire the worker: memory above the slack has the whole heap
    # collected first.
    import gc

    class Block:
        live = 0

        def __init__(self):
            Block.live += 1
            self.me = self           # a cycle: only the collector frees it

        def __del__(self):
            Block.live -= 1

    class Dev(FakeDevice):
        def memory_allocated(self):
            return Block.live * 300 * (1 << 20)

    gc.collect()
    Block()                          # garbage already, in a cycle...
    gc.freeze()                      # ...that the worker's heap froze (an op's collection)
    try:
        w, _ = _tidy_with(tmp_path, monkeypatch, Dev())
        assert Block.live == 0 and w.retire is None, (Block.live, w.retire)
        assert w.last_collect_full
        # nothing left: the next tidy collects the session's objects alone
        w.since_full = 0
        notes = w.tidy({"env": {}}, set(sys.modules), set())
        assert not w.last_collect_full and w.retire is None, notes
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_installed_distributions_are_read_once_per_worker():
    # Wave 11 on the H200: pytest.main asked every one of 197 distributions for its entry
    # points once per -p plugin, 0.1 s of each op's start. The worker lists them once, each
    # read once; a call with arguments is left alone.
    import types
    reads = []

    class Dist:
        def __init__(self, name):
            self.name = name

        @property
        def entry_points(self):
            reads.append(self.name)
            return ("ep-" + self.name,)

        @property
        def files(self):
            reads.append(self.name + " files")
            return [self.name + "/RECORD"]

    listed = []

    def distributions(**kwargs):
        listed.append(kwargs)
        return iter([Dist("a"), Dist("b")])
    md = types.SimpleNamespace(distributions=distributions)
    zw.memo_distributions(md)
    for _ in range(3):
        got = list(md.distributions())
        assert [d.entry_points for d in got] == [("ep-a",), ("ep-b",)]
        assert [d.name for d in got] == ["a", "b"] and got[0].files == ["a/RECORD"]
    assert reads == ["a", "b", "a files"] and listed == [{}], (reads, listed)
    assert [d.name for d in md.distributions(name="x")] == ["a", "b"] and listed[-1] == {"name": "x"}
    before = md.distributions
    zw.memo_distributions(md)                     # once only
    assert md.distributions is before


def test_the_failed_tests_exception_pytest_keeps_is_dropped():
    # pytest stores a failed test's exception for post-mortem debugging (sys.last_value and
    # its traceback, whose frames hold the test's device tensors) after the session ends
    import types
    ns = types.SimpleNamespace(last_type=ValueError, last_value=ValueError("x"),
                               last_traceback=object(), other=1)
    assert zw.forget_last_exception(ns) == ["last_type", "last_value", "last_traceback"]
    assert not hasattr(ns, "last_value") and ns.other == 1
    assert zw.forget_last_exception(ns) == []


def test_a_worker_retiring_for_device_memory_says_what_holds_it():
    import types

    class Storage:
        def __init__(self, ptr, nbytes):
            self.ptr, self.n = ptr, nbytes

        def data_ptr(self):
            return self.ptr

        def nbytes(self):
            return self.n

    class Tensor:
        def __init__(self, ptr, nbytes, device="cuda"):
            self.device = types.SimpleNamespace(type=device)
            self.shape, self.dtype = (nbytes // 4,), "torch.float32"
            self._st = Storage(ptr, nbytes)

        def untyped_storage(self):
            return self._st

    fake = types.SimpleNamespace(Tensor=Tensor)
    mod = types.ModuleType("zl_fake_holder")
    mod.cache = Tensor(1, 256 << 20)                      # a module's cache
    keep = {"inputs": [Tensor(2, 64 << 20)]}              # a list in some dict
    mod.view = Tensor(1, 256 << 20)                        # a view of the cache's storage
    cpu = Tensor(3, 512 << 20, device="cpu")               # host memory is not the device's
    lines = zw.device_holders(fake, min_bytes=1 << 20)
    assert len(lines) == 2, lines
    assert lines[0].startswith("256 MiB (67108864,) float32 held by ") and \
        "module zl_fake_holder" in lines[0], lines
    # the path is the holder's, not the search's own lists (wave 5 read "tuple <- list <-
    # list <- list <- ?" for every tensor)
    assert lines[1].startswith("64 MiB (16777216,) float32 held by list of 1 <- dict key "
                               "'inputs'"), lines
    del keep, cpu, mod

    # a closure's cell, and an attribute of an object in a list that the collector froze (as
    # the worker freezes what its imports made): both named
    def make(t):
        def flush():
            return t
        return flush

    class Bench:
        pass
    b = Bench()
    b.results = Tensor(4, 32 << 20)
    registry = [b]
    kept = make(Tensor(5, 128 << 20))
    gc.collect()
    gc.freeze()
    try:
        lines = zw.device_holders(fake, min_bytes=1 << 20)
        assert gc.get_freeze_count() > 0          # frozen again after the search
    finally:
        gc.unfreeze()
    assert len(lines) == 2, lines
    assert lines[0].startswith("128 MiB ") and "closure cell <- tuple of 1 <- function " \
        in lines[0] and "make.<locals>.flush" in lines[0], lines
    assert lines[1].startswith("32 MiB ") and \
        "attribute 'results' of Bench <- list of 1" in lines[1], lines
    del kept, registry, b


# ---------------------------------------------------------------------------
# a real worker

TORCH = '''"""A stand-in torch: a default dtype and a seeded generator, as a fresh process has them."""
import random

_dtype = "float32"
_seed = 67280421310721
_rng = random.Random(_seed)


def get_default_dtype():
    return _dtype


def set_default_dtype(d):
    global _dtype
    _dtype = d


def initial_seed():
    return _seed


def manual_seed(s):
    global _seed, _rng
    _seed = s
    _rng = random.Random(s)


def rand():
    return _rng.random()
'''

CONFTEST = '''import torch

RESULTS = []
'''

TESTS = '''import json
import os

import pytest
import torch

from . import conftest


@pytest.mark.setdtype
def test_setdtype():
    torch.set_default_dtype("float64")
    torch.rand()


@pytest.mark.look
def test_look():
    conftest.RESULTS.append("look")
    with open(os.environ["ZL_LOOK_OUT"], "w") as f:
        json.dump({"dtype": torch.get_default_dtype(), "rand": torch.rand(), "pid": os.getpid(),
                   "results": conftest.RESULTS, "cwd": os.getcwd()}, f)
    print("look printed this")


@pytest.mark.segv
def test_segv():
    os.kill(os.getpid(), 11)
'''


class WorkerProc:
    """A worker over a tree of benchmark/conftest.py and benchmark/test_probe.py; the stand-in
    torch above first on the path, or (fakes) the plugin tests' torch, triton and flag_gems."""

    def __init__(self, tmp_path, conftest=CONFTEST, tests=TESTS, fakes=False, env=None):
        self.tree = tmp_path / "tree"
        (self.tree / "benchmark").mkdir(parents=True)
        (self.tree / "benchmark" / "__init__.py").write_text("")
        (self.tree / "benchmark" / "conftest.py").write_text(conftest)
        (self.tree / "benchmark" / "test_probe.py").write_text(tests)
        (tmp_path / "lib").mkdir()
        (tmp_path / "lib" / "torch.py").write_text(TORCH)
        self.tmp = tmp_path
        self.socket = str(tmp_path / "w.sock")
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("ZL_", "PYTEST_", "GEMS_", "FLAGGEMS_", "FAKE_"))}
        self.env.update({k: str(v) for k, v in (env or {}).items()})
        self.env["PYTHONPATH"] = os.pathsep.join([PLUGINS_DIR, FAKES_DIR if fakes else str(tmp_path / "lib")])
        self.env["PYTHONDONTWRITEBYTECODE"] = "1"
        self.env["PYTHONUNBUFFERED"] = "1"
        r, w = os.pipe()
        env = dict(self.env, ZL_WORKER_READY_FD=str(w))
        self.log = open(str(tmp_path / "worker.log"), "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "zl_worker", "--socket", self.socket, "--python", sys.executable,
             "--plugins-dir", PLUGINS_DIR], cwd=str(self.tree), env=env, pass_fds=(w,),
            stdout=self.log, stderr=subprocess.STDOUT)
        os.close(w)
        with os.fdopen(r) as f:
            self.ready = json.loads(f.readline())

    def submit(self, args, env=None, python=None):
        """(events, output) of one op, as `zlbench run` hands it over."""
        env = dict(self.env if env is None else env)
        r, w = os.pipe()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(self.socket)
        req = {"argv": [python or sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-s"] + args,
               "env": ["%s=%s" % kv for kv in env.items()], "cwd": str(self.tree)}
        socket.send_fds(s, [json.dumps(req).encode()], [w])
        s.shutdown(socket.SHUT_WR)
        os.close(w)
        with os.fdopen(r) as f:
            out = f.read()
        events = [json.loads(line) for line in s.makefile().read().splitlines()]
        s.close()
        return events, out

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)
        self.log.close()


def test_worker_session_protocol(tmp_path):
    w = WorkerProc(tmp_path)
    try:
        # the op's environment differs from the worker's only in zlbench's variables (ZL_*)
        ev, out = w.submit(["benchmark/test_probe.py", "-m", "setdtype"], dict(w.env, ZL_RUN_DIR=str(tmp_path)))
        assert [e["event"] for e in ev] == ["start", "exit"], ev
        assert ev[0]["pid"] == w.proc.pid and ev[0]["ops_before"] == 0 and ev[0]["reset"] == []
        assert ev[1]["status"] == 0 and ev[1]["retire"] is None
        assert ev[1]["reset"] == ["torch default dtype"], ev
        assert "1 passed" in out

        look = tmp_path / "look.json"
        env = dict(w.env, ZL_RUN_DIR=str(tmp_path), ZL_LOOK_OUT=str(look))
        ev, out = w.submit(["benchmark/test_probe.py", "-m", "look"], env)
        assert [e["event"] for e in ev] == ["start", "exit"], (ev, out)
        assert ev[0]["ops_before"] == 1 and ev[0]["reset"] == ["torch default dtype"]
        assert ev[1]["status"] == 0 and ev[1]["reset"] == []
        assert "look printed this" in out and "1 passed" in out
        got = json.loads(look.read_text())
        fresh = subprocess.run([sys.executable, "-c", "import torch; print(repr(torch.rand()))"],
                               env=w.env, capture_output=True, text=True, check=True).stdout.strip()
        # a fresh interpreter's dtype and random stream, the conftest's results empty again
        assert got["dtype"] == "float32" and repr(got["rand"]) == fresh, (got, fresh)
        assert got["results"] == ["look"] and got["cwd"] == str(w.tree) and got["pid"] == w.proc.pid
        # the worker's log says where each op's wall went: pytest.main, then its own tidy
        import re
        lines = [l for l in (tmp_path / "worker.log").read_text().splitlines()
                 if l.startswith("zl_worker: op 2 ")]
        m = re.search(r"pytest status 0, ([0-9.]+) s \(pytest\.main ([0-9.]+) s, tidy ([0-9.]+) s "
                      r"of which its collection ([0-9.]+) s, (the whole heap|the session's "
                      r"objects)\)", lines[0] if lines else "")
        assert m, lines
        total, main, tidy, collect = (float(x) for x in m.groups()[:4])
        assert main > 0 and main + tidy <= total + 0.015 and collect <= tidy + 0.005, m.groups()
        # the worker's heap stayed frozen: its second op's collection walked the session's own
        assert m.group(5) == "the session's objects", lines
        # and pytest.main's own wall, phase by phase (wave 11)
        ph = re.search(r"; pytest\.main: (.*); reset:", lines[0])
        assert ph, lines
        parts = [re.fullmatch(r"(.+) ([0-9.]+) s", p).groups() for p in ph.group(1).split(", ")]
        assert [p[0] for p in parts] == ["to configure", "session", "its finish hooks",
                                         "to unconfigure", "unconfigure", "after"], parts
        assert sum(float(p[1]) for p in parts) == pytest.approx(main, abs=0.035), (parts, main)

        # refused: another interpreter, another environment
        ev, out = w.submit(["benchmark/test_probe.py"], env, python="/other/python")
        assert ev[0]["event"] == "refused" and "'/other/python'" in ev[0]["reason"] and out == ""
        ev, out = w.submit(["benchmark/test_probe.py"], dict(env, CUDA_VISIBLE_DEVICES="7"))
        assert ev == [{"event": "refused",
                       "reason": "the run's environment differs from the worker's in CUDA_VISIBLE_DEVICES"}]

        # a crash: the connection ends without an exit event; the op's output has the traceback
        ev, out = w.submit(["benchmark/test_probe.py", "-m", "segv"], env)
        assert [e["event"] for e in ev] == ["start"] and ev[0]["ops_before"] == 2, ev
        assert "Fatal Python error: Segmentation fault" in out
        assert w.proc.wait(timeout=30) == -signal.SIGSEGV
    finally:
        w.stop()


def test_a_session_in_a_worker_reports_foreign_vendors_as_a_fresh_one(tmp_path):
    # rocm: FlagGems' vendor detection imports every vendor's descriptor package while the
    # worker imports the conftest; zl_foreign_vendor, imported afresh by each session, must
    # still tell those probes from foreign code (the worker's FOREIGN_VENDOR_HINT)
    env = backend_env("rocm", FAKE_IMPORT_ALL_VENDORS=1)
    w = WorkerProc(tmp_path, conftest="import flag_gems  # noqa: F401\n",
                   tests="def test_a():\n    pass\n", fakes=True, env=env)
    try:
        run = tmp_path / "run"
        for n in range(2):
            (run / str(n) / "plugins").mkdir(parents=True)
            ev, out = w.submit(["benchmark/test_probe.py", "-p", "zl_foreign_vendor"],
                               dict(w.env, ZL_RUN_DIR=str(run / str(n))))
            assert [e["event"] for e in ev] == ["start", "exit"] and ev[1]["status"] == 0, (ev, out)
            assert "FOREIGN_VENDOR_MODULE" not in out, out
            f = json.loads((run / str(n) / "plugins" / "foreign_vendor.json").read_text())
            assert (f["own"], f["vendors"], f["modules"]) == ("amd", [], []), f
            assert f["probed_vendors"] == ["ascend", "mthreads", "mthreads_ext", "nvidia"], f
            assert {m["first_test"] for m in f["probed_modules"]} == {"benchmark/conftest.py"}, f
    finally:
        w.stop()


def test_the_arguments_tuners_keep_from_their_last_run_are_reset():
    # Wave 6 on the H200: FlagGems' LibTuner kept conj_copy's inputs (_last_benchmark_args)
    # and Triton's Autotuner an interrupted mhc_pre's (nargs) after their sessions; the worker
    # retired for that memory. A fresh process has neither.
    import types

    class Autotuner:
        def __init__(self):
            self.nargs = None

    class LibTuner(Autotuner):
        pass

    class LibEntry:
        def __init__(self, fn):
            self.fn = fn

    class JIT:
        nargs = "not a tuner's"

    lib = LibTuner()
    lib._last_benchmark_args = ("inputs",)
    lib._last_benchmark_meta = {"BLOCK": 1}
    lib.nargs = {"x": "inputs"}
    lib.fn = JIT()
    interrupted = Autotuner()
    interrupted.nargs = {"layer_input_ptr": "inputs"}
    idle = Autotuner()
    other = types.SimpleNamespace(nargs="an unrelated attribute")
    mod = types.ModuleType("flag_gems.ops.fake")
    mod.kernel = LibEntry(lib)
    mod.fused = interrupted
    mod.idle = idle
    mod.other = other
    mod.again = LibEntry(lib)                 # the same tuner reached twice counts once
    assert zw.reset_tuners(zw.find_tuners({"flag_gems.ops.fake": mod, "none": None})) == 2
    assert lib.nargs is None and not hasattr(lib, "_last_benchmark_args") and \
        not hasattr(lib, "_last_benchmark_meta"), vars(lib)
    assert interrupted.nargs is None and idle.nargs is None
    assert other.nargs == "an unrelated attribute" and JIT.nargs == "not a tuner's"
    assert zw.reset_tuners(zw.find_tuners({"m": mod})) == 0


def test_a_tuner_found_before_it_ever_ran_is_reset_after_it_ran():
    # Triton's Autotuner.__init__ sets no nargs; the worker walks a module's globals once, when
    # FlagGems is imported and its tuners never ran. Wave 7 on the H200: conj_copy's LibTuner was
    # missed so and kept 256 MiB of inputs in _last_benchmark_args.
    import types

    class Autotuner:
        def run(self, *args):
            self.nargs = dict(enumerate(args))
            self._last_benchmark_args = args

    class LibTuner(Autotuner):
        pass

    class LibEntry:
        def __init__(self, fn):
            self.fn = fn

    lib = LibTuner()
    mod = types.ModuleType("flag_gems.ops._conj_copy")
    mod._conj_copy_kernel = LibEntry(lib)
    found = zw.find_tuners({"flag_gems.ops._conj_copy": mod})
    assert found == [lib]
    assert zw.reset_tuners(found) == 0                # nothing kept yet
    lib.run("inputs", 3)
    assert zw.reset_tuners(found) == 1
    assert lib.nargs is None and not hasattr(lib, "_last_benchmark_args"), vars(lib)


KERNEL_TESTS = """
import torch
import flag_gems


def test_copy():
    flag_gems.copy(torch.empty(1000))


def test_copy_new_size():
    flag_gems.copy(torch.empty(1000))
    flag_gems.copy(torch.empty(3000))


def test_add():
    flag_gems.add(torch.empty(1000), torch.empty(1000))
"""
COPY_KERNEL = "flag_gems.ops.copy_kernel"


def test_the_worker_collects_its_whole_heap_every_few_ops(tmp_path):
    # Wave 11: between those, what an op froze (pytest's items of its collection) waits; the
    # log says which collection each op had
    w = WorkerProc(tmp_path, conftest="", tests=FREEZE_TESTS, fakes=True, env=backend_env("musa"))
    try:
        n = zw.FULL_COLLECT_EVERY + 1
        for k in range(n):
            run = tmp_path / ("run%d" % k)
            (run / "plugins").mkdir(parents=True)
            ev, text = w.submit(["benchmark/test_probe.py", "-p", "zl_timer"],
                                dict(w.env, ZL_RUN_DIR=str(run),
                                     ZL_FREEZE_OUT=str(tmp_path / "freeze.json")))
            assert [e["event"] for e in ev] == ["start", "exit"] and ev[1]["status"] == 0, (ev, text)
        kinds = [("whole" if "the whole heap" in l else "session")
                 for l in (tmp_path / "worker.log").read_text().splitlines()
                 if l.startswith("zl_worker: op ")]
        want = ["session"] * n
        want[zw.FULL_COLLECT_EVERY - 1] = "whole"
        assert kinds == want, kinds
    finally:
        w.stop()


GEN_TESTS = """
import torch
import flag_gems.ops


def test_gen():
    flag_gems.ops.gen_copy(torch.empty(1000))


def test_add():
    flag_gems.add(torch.empty(1000), torch.empty(1000))
"""


def test_a_kernel_no_module_holds_is_still_found_once_the_worker_froze_it(tmp_path):
    # Wave 11: the worker keeps its heap frozen between ops and zl_autotune no longer thaws it
    # to walk it all after every op (0.2-0.3 s on the H200). A kernel that no module's global
    # holds (FlagGems' pointwise_dynamic makes them) and that an earlier op made is frozen by
    # the time a later op launches it again: the walk that found it remembers it.
    w = WorkerProc(tmp_path, conftest="import flag_gems  # noqa: F401\n", tests=GEN_TESTS,
                   fakes=True, env=backend_env("musa"))
    try:
        got = []
        for n, test in enumerate(["test_gen", "test_add", "test_gen"]):
            run = tmp_path / ("run%d" % n)
            (run / "plugins").mkdir(parents=True)
            ev, out = w.submit(["benchmark/test_probe.py::%s" % test, "-p", "zl_autotune",
                                "-p", "zl_timer"], dict(w.env, ZL_RUN_DIR=str(run)))
            assert [e["event"] for e in ev] == ["start", "exit"] and ev[1]["status"] == 0, (ev, out)
            got.append(json.loads((run / "plugins" / "autotune_summary.json").read_text()))
        gen = [k for k in got[0]["no_tuner_kernels"] if k.endswith("_gen_copy_body")]
        assert len(gen) == 1, got[0]
        # compiled by an earlier op, none since: counted apart by every later op (as copy_kernel
        # in the test below), which takes finding it
        assert got[1]["no_tuner_earlier_kernels"] == gen, got[1]
        assert got[2]["no_tuner_earlier_kernels"] == gen, got[2]
        assert gen[0] not in got[2]["no_tuner_kernels"], got[2]
        # and the walks after the first did not thaw the worker's heap
        log = (tmp_path / "worker.log").read_text()
        assert "zl_worker: op 3 " in log and "the session's objects" in log.split(
            "zl_worker: op 3 ")[1].splitlines()[0], log
    finally:
        w.stop()


def test_a_worker_op_records_only_the_untuned_kernels_it_compiled(tmp_path):
    # Wave 9 on the H200: in a worker, an op's autotune records listed every kernel that
    # earlier ops had compiled (stage_deepseek_v4_mega_moe_inputs, the 23rd: 47 record
    # files). A kernel an earlier op compiled, of which this op compiled nothing new, is
    # counted apart (no_tuner_earlier) and gets no record; one it compiled anew is its own.
    w = WorkerProc(tmp_path, conftest="import flag_gems  # noqa: F401\n", tests=KERNEL_TESTS,
                   fakes=True, env=backend_env("musa"))
    try:
        runs = {}
        for n, test in enumerate(["test_copy", "test_add", "test_copy_new_size"]):
            run = tmp_path / ("run%d" % n)
            (run / "plugins").mkdir(parents=True)
            ev, out = w.submit(["benchmark/test_probe.py::%s" % test, "-p", "zl_autotune"],
                               dict(w.env, ZL_RUN_DIR=str(run)))
            assert [e["event"] for e in ev] == ["start", "exit"] and ev[1]["status"] == 0, (ev, out)
            runs[test] = (json.loads((run / "plugins" / "autotune_summary.json").read_text()),
                          sorted(p.name for p in (run / "autotune_records").iterdir()))
        s, files = runs["test_copy"]
        assert (s["no_tuner_kernels"], s["no_tuner_earlier_kernels"]) == ([COPY_KERNEL], [])
        s, files = runs["test_add"]
        assert COPY_KERNEL not in s["no_tuner_kernels"], s
        assert s["no_tuner_earlier_kernels"] == [COPY_KERNEL]
        assert COPY_KERNEL + ".json" not in files, files
        s, files = runs["test_copy_new_size"]          # a new size: compiled anew, its own again
        assert COPY_KERNEL in s["no_tuner_kernels"] and COPY_KERNEL + ".json" in files, (s, files)
    finally:
        w.stop()


FREEZE_TESTS = """
import gc, json, os


def test_freeze_count():
    with open(os.environ["ZL_FREEZE_OUT"], "w") as f:
        json.dump(gc.get_freeze_count(), f)
"""


def test_the_worker_freezes_its_heap_again_after_a_session_the_timer_thawed(tmp_path):
    # the worker freezes what it imported (FlagGems' per-shape gc.collect() need not walk
    # it); the timer plugin's thaw at a session's end thaws that too, so the worker freezes
    # what is left once it has collected the session's garbage
    w = WorkerProc(tmp_path, conftest="", tests=FREEZE_TESTS, fakes=True, env=backend_env("musa"))
    try:
        counts = []
        for n, plugins in enumerate([["-p", "zl_timer"], []]):
            run = tmp_path / ("run%d" % n)
            (run / "plugins").mkdir(parents=True)
            out = tmp_path / ("freeze%d.json" % n)
            ev, text = w.submit(["benchmark/test_probe.py"] + plugins,
                                dict(w.env, ZL_RUN_DIR=str(run), ZL_FREEZE_OUT=str(out)))
            assert [e["event"] for e in ev] == ["start", "exit"] and ev[1]["status"] == 0, (ev, text)
            counts.append(json.loads(out.read_text()))
        assert counts[0] > 0 and counts[1] > 0, counts
    finally:
        w.stop()
