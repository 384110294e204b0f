"""zl_worker: one interpreter per device that runs operators one after another.

`zlbench batch --start worker` starts one per device through `zlbench run` with
ZL_WORKER_SERVE set: zlbench builds the environment a run gives pytest (device
pinning, PYTHONPATH, caches) and execs `python -m zl_worker` in the FlagGems
root. The worker imports pytest and, through FlagGems' benchmark conftest,
torch and flag_gems once, then serves operators on a Unix socket, one at a
time: each `zlbench run` of the batch sends the pytest argv, environment and
cwd it would have given a fresh child, and the write end of its output pipe;
the worker runs that pytest session in-process (pytest.main) with the op's
environment and its stdout/stderr on that pipe, then puts the interpreter back
as it found it, or retires when it cannot. docs/worker.md has the design.

Protocol (one connection per op; JSON, UTF-8):
  run -> worker: {"argv": [python, "-m", "pytest", ...], "env": ["NAME=value", ...],
                  "cwd": dir} with the pipe's write end attached (SCM_RIGHTS),
                  then end of stream (shutdown(SHUT_WR))
  worker -> run: one line {"event": "start", "pid", "ops_before", "reset"}
                 or {"event": "refused", "reason"}; after the session one line
                 {"event": "exit", "status": pytest's exit status, "reset": [...],
                  "retire": why the worker ends now, or null, "notes": [...]}
  worker -> batch (ZL_WORKER_READY_FD): one line {"event": "ready", "pid",
                 "ready_s", "imports": {module: seconds}, "errors": {...}} once it listens.

Not a pytest plugin: no pytest hook here. Pure functions (env_differences,
pytest_args, session_modules, fingerprint, differing, foreign_new_modules)
carry the logic the tests check.
"""

import argparse
import faulthandler
import gc
import importlib
import importlib.util
import json
import os
import signal
import socket
import sys
import threading
import time
import traceback
import weakref

READY_FD_VAR = "ZL_WORKER_READY_FD"
PARENT_VAR = "ZL_WORKER_PARENT"
# zlbench's own variables: read by the plugins per session, never at import, so
# an op may differ from the worker in them (ZL_RUN_DIR above all).
PER_OP_PREFIX = "ZL_"
# Device memory still allocated after an op (and after gc and empty_cache) beyond
# what it was when the worker became ready: more than this retires the worker.
MEM_SLACK_VAR = "ZL_WORKER_MEM_SLACK_MIB"
MEM_SLACK_MIB = 256
# A collection of the whole heap walks every object torch, Triton and FlagGems made (0.2-0.3 s
# an op on the H200, wave 11: a fifth of a pointwise op's wall). After an op the session's own
# objects are what gc.collect() walks while the worker's heap stays frozen (the timer plugin
# leaves it frozen in a worker: KEEPS_HEAP); cycles through what was frozen (pytest's items of
# the op's collection) wait for the next whole collection: every FULL_COLLECT_EVERY ops, and
# at once when device memory is left after an op, before that can retire the worker.
FULL_COLLECT_EVERY = 8
# True while this process serves ops as a worker (main): the plugins leave the heap frozen at
# a session's end, and the worker's tidy collects it.
KEEPS_HEAP = False
# The pytest sessions this worker has begun (zl_autotune tells from it whether a session ran
# without its kernel walk).
SESSIONS = 0
# What a plugin keeps from one op's session to the next (a plugin's own module is a session's:
# dropped after it and imported afresh by the next), by the plugin's key.
CARRY = {}
MAX_REQUEST = 16 << 20
# Modules a fresh `python -m pytest` of FlagGems' benchmarks imports through the
# conftest (torch, flag_gems, ...): imported once, here. Files that are absent are skipped.
PREIMPORT = ("benchmark.conftest", "benchmark.base")
UNKNOWN = object()


# ---------------------------------------------------------------------------
# pure logic


def env_differences(worker_env, op_env, per_op_prefix=PER_OP_PREFIX):
    """Names whose value differs between the worker's environment and the op's,
    apart from zlbench's per-op variables; sorted. The values are not returned:
    a secret must not reach a message."""
    names = set(worker_env) | set(op_env)
    return sorted(n for n in names
                  if not n.startswith(per_op_prefix) and worker_env.get(n) != op_env.get(n))


def parse_env(pairs):
    """["NAME=value", ...] -> dict; an entry without "=" is a ValueError."""
    out = {}
    for p in pairs:
        if not isinstance(p, str) or "=" not in p:
            raise ValueError("environment entry %r is not NAME=value" % (p,))
        name, value = p.split("=", 1)
        out[name] = value
    return out


def pytest_args(argv, python):
    """The pytest arguments of a fresh child's argv [python, "-m", "pytest", args...],
    or a ValueError saying why the worker cannot run it."""
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        raise ValueError("argv is not a list of strings")
    if argv[:1] != [python]:
        raise ValueError("the run asks for interpreter '%s'; this worker runs '%s'"
                         % (argv[0] if argv else "", python))
    if argv[1:3] != ["-m", "pytest"]:
        raise ValueError("not a pytest run: %s" % " ".join(argv[1:3]))
    return argv[3:]


def _under(path, roots):
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def session_modules(modules, roots, keep=("zl_worker", "__main__")):
    """Names of the modules one pytest session owns: those whose file lies under
    one of roots (FlagGems' benchmark/ directory and the plugins directory, as
    given and resolved: a module's file is compared as imported, unresolved) and
    every conftest. They are dropped from sys.modules between sessions, so that
    each op imports them afresh, as a fresh child would (FlagGems' conftest keeps
    its results in a module-level dict). keep: names never dropped."""
    out = []
    for name, mod in list(modules.items()):
        if name in keep or mod is None:
            continue
        if name == "conftest" or name.endswith(".conftest"):
            out.append(name)
            continue
        f = _module_file(mod)
        if f and _under(os.path.abspath(f), roots):
            out.append(name)
    return sorted(out)


def _module_file(module):
    d = getattr(module, "__dict__", None)
    f = d.get("__file__") if isinstance(d, dict) else None
    return f if isinstance(f, str) else None


def _torch_default_dtype(m):
    return m.get_default_dtype()


def _set_torch_default_dtype(m, v):
    m.set_default_dtype(v)


def _attr_getter(path):
    def get(m):
        obj = m
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj
    return get


def _attr_setter(path):
    def put(m, v):
        obj = m
        parts = path.split(".")
        for part in parts[:-1]:
            obj = getattr(obj, part)
        setattr(obj, parts[-1], v)
    return put


def _cuda_current_device(m):
    # never initialises the device: unknown until something else has
    if not m.is_initialized():
        return UNKNOWN
    return m.current_device()


def _umask(m):
    u = m.umask(0o22)
    m.umask(u)
    return u


def _signals(m):
    out = []
    for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM",
                 "SIGCHLD", "SIGPIPE"):
        sig = getattr(m, name, None)
        if sig is not None:
            out.append((int(sig), m.getsignal(sig)))
    return tuple(out)


def _set_signals(m, v):
    for sig, handler in v:
        if handler is None:
            raise ValueError("signal %d had a handler installed from C" % sig)
        m.signal(sig, handler)


def _set_gc_enabled(m, v):
    if v:
        m.enable()
    else:
        m.disable()


def _logging_root(m):
    root = m.getLogger()
    return (root.level, tuple(root.handlers))


def _set_logging_root(m, v):
    root = m.getLogger()
    root.setLevel(v[0])
    root.handlers[:] = list(v[1])


def _stdio(m):
    return (m.stdin, m.stdout, m.stderr)


def _set_stdio(m, v):
    m.stdin, m.stdout, m.stderr = v


def _set_warnings_filters(m, v):
    m.filters[:] = list(v)
    m._filters_mutated()


# (name, module, getter(module) -> value, setter(module, value) or None).
# Read only from modules already imported, never importing one; a getter that
# fails, or returns UNKNOWN, leaves the entry out. No setter: the worker retires
# when the value changed (the next op would not get a fresh interpreter's state).
GLOBALS = (
    ("torch default dtype", "torch", _torch_default_dtype, _set_torch_default_dtype),
    ("torch grad mode", "torch", lambda m: m.is_grad_enabled(), lambda m, v: m.set_grad_enabled(v)),
    ("torch inference mode", "torch", lambda m: m.is_inference_mode_enabled(), None),
    ("torch deterministic algorithms", "torch",
     lambda m: (m.are_deterministic_algorithms_enabled(),
                m.is_deterministic_algorithms_warn_only_enabled()),
     lambda m, v: m.use_deterministic_algorithms(v[0], warn_only=v[1])),
    ("torch float32 matmul precision", "torch", lambda m: m.get_float32_matmul_precision(),
     lambda m, v: m.set_float32_matmul_precision(v)),
    ("torch threads", "torch", lambda m: m.get_num_threads(), lambda m, v: m.set_num_threads(v)),
    ("torch anomaly mode", "torch", lambda m: m.is_anomaly_enabled(),
     lambda m, v: m.set_anomaly_enabled(v)),
    ("torch default device", "torch", lambda m: m.get_default_device(),
     lambda m, v: m.set_default_device(v)),
    ("cudnn enabled", "torch.backends.cudnn", _attr_getter("enabled"), _attr_setter("enabled")),
    ("cudnn benchmark", "torch.backends.cudnn", _attr_getter("benchmark"), _attr_setter("benchmark")),
    ("cudnn deterministic", "torch.backends.cudnn", _attr_getter("deterministic"),
     _attr_setter("deterministic")),
    ("cudnn allow_tf32", "torch.backends.cudnn", _attr_getter("allow_tf32"), _attr_setter("allow_tf32")),
    ("cuda matmul allow_tf32", "torch.backends.cuda", _attr_getter("matmul.allow_tf32"),
     _attr_setter("matmul.allow_tf32")),
    ("cuda matmul fp16 reduced precision", "torch.backends.cuda",
     _attr_getter("matmul.allow_fp16_reduced_precision_reduction"),
     _attr_setter("matmul.allow_fp16_reduced_precision_reduction")),
    ("cuda matmul bf16 reduced precision", "torch.backends.cuda",
     _attr_getter("matmul.allow_bf16_reduced_precision_reduction"),
     _attr_setter("matmul.allow_bf16_reduced_precision_reduction")),
    ("cuda sdp kernels", "torch.backends.cuda",
     lambda m: (m.flash_sdp_enabled(), m.mem_efficient_sdp_enabled(), m.math_sdp_enabled()),
     lambda m, v: (m.enable_flash_sdp(v[0]), m.enable_mem_efficient_sdp(v[1]),
                   m.enable_math_sdp(v[2]))),
    ("cuda current device", "torch.cuda", _cuda_current_device, lambda m, v: m.set_device(v)),
    # FlagGems' kernels registered for every torch op (flag_gems.enable() left on):
    # the next op's torch baseline would run FlagGems. Not undone safely from outside.
    ("flag_gems enabled", "flag_gems",
     lambda m: getattr(m, "current_work_registrar", None) is not None, None),
    ("python recursion limit", "sys", lambda m: m.getrecursionlimit(),
     lambda m, v: m.setrecursionlimit(v)),
    ("python trace/profile hooks", "sys", lambda m: (m.gettrace(), m.getprofile()),
     lambda m, v: (m.settrace(v[0]), m.setprofile(v[1]))),
    ("python switch interval", "sys", lambda m: m.getswitchinterval(),
     lambda m, v: m.setswitchinterval(v)),
    ("python stdio objects", "sys", _stdio, _set_stdio),
    ("python gc enabled", "gc", lambda m: m.isenabled(), _set_gc_enabled),
    ("python gc thresholds", "gc", lambda m: m.get_threshold(), lambda m, v: m.set_threshold(*v)),
    ("python umask", "os", _umask, lambda m, v: m.umask(v)),
    ("python signal handlers", "signal", _signals, _set_signals),
    ("python socket default timeout", "socket", lambda m: m.getdefaulttimeout(),
     lambda m, v: m.setdefaulttimeout(v)),
    ("python warnings filters", "warnings", lambda m: tuple(m.filters), _set_warnings_filters),
    ("python root logger", "logging", _logging_root, _set_logging_root),
)


def fingerprint(modules, table=GLOBALS):
    """{name: value} of the table's globals readable now (module loaded, getter works)."""
    out = {}
    for name, modname, get, _ in table:
        mod = modules.get(modname)
        if mod is None:
            continue
        try:
            value = get(mod)
        except Exception:
            continue
        if value is not UNKNOWN:
            out[name] = value
    return out


def differing(reference, current):
    """Names whose value is known in both and differs, in reference order."""
    out = []
    for name, value in reference.items():
        if name not in current:
            continue
        try:
            same = bool(current[name] == value)
        except Exception:
            same = current[name] is value
        if not same:
            out.append(name)
    return out


def restore(modules, reference, names, table=GLOBALS):
    """Set each named global back to its reference value. Returns (reset, failed):
    failed holds "name: why" for those without a setter or that did not take."""
    rows = {row[0]: row for row in table}
    reset, failed = [], []
    for name in names:
        _, modname, get, put = rows[name]
        mod = modules.get(modname)
        if put is None or mod is None:
            failed.append("%s: cannot be reset" % name)
            continue
        try:
            put(mod, reference[name])
            ok = get(mod) == reference[name]
        except Exception as e:
            failed.append("%s: %s" % (name, _one_line(e)))
            continue
        if ok:
            reset.append(name)
        else:
            failed.append("%s: did not take" % name)
    return reset, failed


def foreign_new_modules(before, modules, own_segment, vendor_segment):
    """Modules imported since `before` that belong to another vendor's FlagGems
    package (vendor_segment(name, file) -> "_<vendor>" or None); sorted."""
    out = []
    for name, mod in list(modules.items()):
        if name in before or mod is None:
            continue
        seg = vendor_segment(name, _module_file(mod))
        if seg is not None and own_segment is not None and seg != own_segment:
            out.append(name)
    return sorted(out)


# A failed test's exception: pytest keeps it for post-mortem debugging (sys.last_value and
# its traceback, whose frames hold the test's tensors) after the session has ended, so the
# device memory of the last failed measurement outlives its op. Dropped after each op.
LAST_EXCEPTION = ("last_type", "last_value", "last_traceback", "last_exc")


def forget_last_exception(sysmod=sys):
    """Drop the exception pytest left for post-mortem debugging; the names dropped."""
    out = []
    for name in LAST_EXCEPTION:
        if getattr(sysmod, name, None) is not None:
            out.append(name)
            try:
                delattr(sysmod, name)
            except AttributeError:
                pass
    return out


# What tuners keep from their last run, found on the H200 (wave 6) holding an op's inputs after
# its session: FlagGems' LibTuner keeps the last run's arguments for benchmark_config()
# (_last_benchmark_args, _last_benchmark_meta: 256 MiB of conj_copy's inputs), and Triton's
# Autotuner leaves nargs set when a run is interrupted (mhc_pre's 64 MiB). A fresh process has
# none of them: reset, each op's session starts as one would.
TUNER_LEFTOVERS = ("nargs", "_last_benchmark_args", "_last_benchmark_meta")
# How far a module global is followed through .fn to its tuner (LibEntry -> LibTuner,
# Heuristics -> Autotuner -> JITFunction).
TUNER_FN_DEPTH = 4


# type -> whether it is a tuner's (its MRO walked once); weak: a dropped session's classes go
_TUNER_TYPES = weakref.WeakKeyDictionary()


def _is_tuner(obj):
    t = type(obj)
    try:
        known = _TUNER_TYPES.get(t)
    except TypeError:                 # a type that takes no weak reference
        known = False
    if known is None:
        known = any(c.__name__ == "Autotuner" for c in t.__mro__)
        try:
            _TUNER_TYPES[t] = known
        except TypeError:
            pass
    return known


def find_tuners(modules):
    """The tuners (Triton's Autotuner and subclasses, FlagGems' LibTuner among them) reachable
    from the modules' globals through .fn, each once."""
    found, seen = [], set()
    for mod in list(modules.values()):
        d = getattr(mod, "__dict__", None)
        if not isinstance(d, dict):
            continue
        for v in list(d.values()):
            for _ in range(TUNER_FN_DEPTH):
                if v is None or id(v) in seen or isinstance(v, (type, type(sys))):
                    break
                seen.add(id(v))
                attrs = getattr(v, "__dict__", None)
                if not isinstance(attrs, dict):
                    break
                # a tuner that has not run yet has no nargs (Triton's __init__ sets none): the
                # globals are walked once, when most tuners never ran (wave 7 on the H200: conj_copy's
                # LibTuner was missed so, and its worker retired for the inputs it kept)
                if _is_tuner(v):
                    found.append(v)
                v = attrs.get("fn")
    return found


def reset_tuners(tuners):
    """Reset what each tuner keeps from its last run (TUNER_LEFTOVERS): nargs to None, the
    LibTuner's last arguments removed. The number of tuners changed."""
    changed = 0
    for t in tuners:
        attrs = t.__dict__
        if not any(attrs.get(k) is not None for k in TUNER_LEFTOVERS):
            continue
        if attrs.get("nargs") is not None:
            t.nargs = None
        for k in TUNER_LEFTOVERS[1:]:
            if k in attrs:
                delattr(t, k)
        changed += 1
    return changed


def _key_of(d, obj):
    """The first key of dict d whose value is obj, or None. (A loop, not a generator
    expression: one that used obj would make obj a closure cell of _describe's frame, and
    that cell would be the next holder the search finds.)"""
    for k, v in d.items():
        if v is obj:
            return k
    return None


def _describe(obj, seen, depth):
    """Where obj lives, as a short path of what holds it ("'cache' of module zl_device",
    "list of 2 <- attribute 'results' of Benchmark <- ..."). seen: ids of objects not to
    follow, the diagnosis' own containers among them; every list of referrers made here
    joins it, or the path would lead through the search itself."""
    if depth == 0:
        return "?"
    holders = [r for r in gc.get_referrers(obj) if id(r) not in seen]
    seen.add(id(holders))
    for r in holders:
        seen.add(id(r))
    for r in holders:
        if isinstance(r, type(sys)):
            return "module %s" % r.__name__
        kind = type(r).__name__
        if kind == "frame":
            return "frame %s (%s:%d)" % (r.f_code.co_name, os.path.basename(r.f_code.co_filename),
                                         r.f_lineno)
        if kind == "cell":
            return "closure cell <- %s" % _describe(r, seen, depth - 1)
        if kind == "function":
            return "function %s.%s <- %s" % (getattr(r, "__module__", "?"),
                                             getattr(r, "__qualname__", "?"),
                                             _describe(r, seen, depth - 1))
        if isinstance(r, dict):
            key = _key_of(r, obj)
            owner = [o for o in gc.get_referrers(r) if isinstance(o, type(sys))]
            if owner:
                return "%r of module %s" % (key, owner[0].__name__)
            return "dict key %r <- %s" % (key, _describe(r, seen, depth - 1))
        if isinstance(r, (list, tuple, set)):
            return "%s of %d <- %s" % (kind, len(r), _describe(r, seen, depth - 1))
        if hasattr(r, "__dict__") and not isinstance(r, type):
            attrs = getattr(r, "__dict__", None) or {}
            name = _key_of(attrs, obj)
            what = "attribute %r of %s" % (name, kind) if name is not None else kind
            return "%s <- %s" % (what, _describe(r, seen, depth - 1))
    return "unknown (%d referrers: %s)" % (len(holders), ", ".join(
        sorted({type(r).__name__ for r in holders})[:4]) or "none the collector tracks")


# How many referrers up device_holders looks. Wave 5's diagnosis read "tuple <- list <- list
# <- list <- ?" for every tensor left behind: its own lists (the candidates, each level's
# referrers) were the path, and the worker's frozen objects (gc.freeze after the imports),
# which gc.get_referrers does not see, hid the rest. Both are fixed: the search skips its own
# containers and unfreezes the collector while it looks.
HOLDER_DEPTH = 10


def device_holders(torch, min_bytes=16 << 20, limit=4):
    """The largest device tensors still alive, each with what holds it: a list of
    "N MiB <shape> <dtype> held by ..." lines (largest first), for a worker that must retire
    because of them. Storage shared by views is counted once. The collector's frozen
    objects are unfrozen for the search and frozen again after it."""
    frozen = gc.get_freeze_count()
    if frozen:
        gc.unfreeze()
    try:
        found = {}
        for obj in gc.get_objects():
            try:
                if not isinstance(obj, torch.Tensor) or obj.device.type == "cpu":
                    continue
                st = obj.untyped_storage()
                key, size = st.data_ptr(), st.nbytes()
            except Exception:
                continue
            if size >= min_bytes and (key not in found or found[key][0] < size):
                found[key] = (size, obj)
        obj = None
        ranked = sorted(found.values(), key=lambda x: -x[0])[:limit]
        seen = {id(found), id(ranked)} | {id(t) for t in found.values()}
        out = []
        seen.add(id(out))
        for size, t in ranked:
            out.append("%.0f MiB %s %s held by %s" % (size / float(1 << 20), tuple(t.shape),
                                                      str(t.dtype).replace("torch.", ""),
                                                      _describe(t, set(seen), HOLDER_DEPTH)))
        return out
    finally:
        if frozen:
            gc.freeze()


def _one_line(exc, limit=300):
    text = ("%s: %s" % (type(exc).__name__, exc)).splitlines()
    line = text[0] if text else type(exc).__name__
    return line if len(line) <= limit else line[:limit] + "..."


# ---------------------------------------------------------------------------
# the worker


def _recv_request(conn):
    """(bytes, [fds]) of one request: everything until the run shuts its side down."""
    chunks, fds, size = [], [], 0
    while True:
        data, got, _flags, _addr = socket.recv_fds(conn, 65536, 4)
        fds.extend(got)
        if not data:
            break
        size += len(data)
        if size > MAX_REQUEST:
            raise ValueError("request larger than %d bytes" % MAX_REQUEST)
        chunks.append(data)
    return b"".join(chunks), fds


def _send(conn, obj):
    try:
        conn.sendall((json.dumps(obj) + "\n").encode())
    except OSError:
        pass  # the run is gone; the batch sees that on its side


def _close_all(fds):
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


class Worker:
    def __init__(self, root, python, plugins_dir):
        self.root = root
        self.python = python
        self.roots = sorted({os.path.join(root, "benchmark"),
                             os.path.realpath(os.path.join(root, "benchmark")),
                             plugins_dir, os.path.realpath(plugins_dir)})
        self.started = time.monotonic()
        self.start_env = dict(os.environ)
        self.import_env = {}
        self.imports = {}
        self.errors = {}
        self.ops = 0
        self.last_reset = []
        # the last op's split (s): pytest.main, then tidy, of which its full collection
        self.last_split = (0.0, 0.0, 0.0)
        self.last_collect_s = 0.0
        self.last_collect_full = False
        self.last_phases = None      # phases() of the last pytest.main
        self.since_full = 0          # ops tidied since the last collection of the whole heap
        self.reference = {}
        self.mem_ref = None
        self.seed = None
        self.retire = None
        self.sock = None
        self.library = frozenset()
        self.tuners = {}           # id -> tuner reachable from a module's globals (find_tuners)
        self.tuner_scanned = set()  # names of the modules whose globals were walked for them
        # kept here: the module itself is a session's (dropped and imported afresh by the plugins)
        import zl_common
        self.vendor_segment = zl_common.vendor_segment
        main_spec = importlib.util.find_spec("pytest.__main__")
        self.pytest_main = main_spec.origin if main_spec else "pytest"

    def _timed_import(self, name):
        t0 = time.monotonic()
        try:
            importlib.import_module(name)
        except BaseException as e:  # a broken conftest fails its op, not the worker
            self.errors[name] = _one_line(e)
        self.imports[name] = round(time.monotonic() - t0, 3)

    def preimport(self):
        """Import once what every op's session would import: pytest, and through
        FlagGems' benchmark conftest torch, flag_gems and the rest. The session's
        own modules (benchmark/, plugins) are dropped again: each op imports them
        afresh, cheaply, since their dependencies stay loaded."""
        self._timed_import("pytest")
        memo_distributions()
        baseline = set(sys.modules)
        # zl_foreign_vendor's observer tells FlagGems' vendor-detection probes
        # apart from foreign code; it must watch this import as it watches a fresh one.
        self._timed_import("zl_foreign_vendor")
        fv = sys.modules.get("zl_foreign_vendor")
        conftest = os.path.join(self.root, "benchmark", "conftest.py")
        for name in PREIMPORT:
            path = os.path.join(self.root, *name.split(".")) + ".py"
            if os.path.isfile(path):
                self._timed_import(name)
        first_seen = {n: conftest for n in sys.modules if n not in baseline}
        # what a fresh session's zl_foreign_vendor would have seen (read by it at import)
        global FOREIGN_VENDOR_HINT
        FOREIGN_VENDOR_HINT = {"baseline": frozenset(baseline),
                               "probed": frozenset(getattr(fv, "_probed", ())),
                               "first_seen": first_seen}
        observer = getattr(fv, "_observer", None)
        if observer in sys.meta_path:
            sys.meta_path.remove(observer)
        self._drop_session_modules()
        self.library = frozenset(sys.modules) - {"zl_worker", "__main__"}
        self.import_env = {k: v for k, v in os.environ.items() if self.start_env.get(k) != v}
        self.idle_env = dict(os.environ)
        self.idle_path = list(sys.path)
        torch = sys.modules.get("torch")
        if torch is not None:
            try:
                self.seed = torch.initial_seed()
            except Exception:
                self.seed = None
        gc.collect()
        # what is loaded now lives as long as the worker: the collections after each op
        # need not walk it again (torch alone holds hundreds of thousands of objects)
        gc.freeze()
        self.reference = fingerprint(sys.modules)
        self.mem_ref = self._device_memory()[0]

    def _drop_session_modules(self):
        # what was loaded when the worker became ready is the library's, never a session's
        fresh = {n: m for n, m in list(sys.modules.items()) if n not in self.library}
        for name in session_modules(fresh, self.roots):
            sys.modules.pop(name, None)

    def _device_module(self):
        rt = sys.modules.get("flag_gems.runtime")
        dev = getattr(rt, "torch_device_fn", None) if rt is not None else None
        if dev is None:
            torch = sys.modules.get("torch")
            dev = getattr(torch, "cuda", None) if torch is not None else None
        return dev

    def _device_memory(self):
        """(bytes the device allocator still holds, error): bytes None when unknown or
        the device was never initialised (the worker never initialises it itself);
        error: why the device cannot be used any more (a sticky fault such as an
        illegal address stays with the process: the next op would inherit it)."""
        dev = self._device_module()
        if dev is None:
            return None, None
        try:
            if hasattr(dev, "is_initialized") and not dev.is_initialized():
                return None, None
            if hasattr(dev, "synchronize"):
                dev.synchronize()
            if hasattr(dev, "empty_cache"):
                dev.empty_cache()
            if not hasattr(dev, "memory_allocated"):
                return None, None
            return int(dev.memory_allocated()), None
        except Exception as e:
            return None, _one_line(e)

    def listen(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(8)
        self.sock_path = path

    def stop_listening(self):
        try:
            self.sock.close()
            os.unlink(self.sock_path)
        except OSError:
            pass

    def announce(self, ready_fd):
        if ready_fd is None:
            return
        msg = {"event": "ready", "pid": os.getpid(),
               "ready_s": round(time.monotonic() - self.started, 3),
               "imports": self.imports, "errors": self.errors}
        try:
            os.write(ready_fd, (json.dumps(msg) + "\n").encode())
        except OSError:
            pass
        os.close(ready_fd)

    def refusal(self, req, fds):
        if len(fds) != 1:
            return "expected one output pipe, got %d descriptors" % len(fds)
        if req.get("cwd") != self.root:
            return "the run's working directory '%s' is not the worker's '%s'" % (req.get("cwd"), self.root)
        diff = env_differences(self.start_env, req["env"])
        if diff:
            return ("the run's environment differs from the worker's in %s"
                    % ", ".join(diff[:8]) + (" and %d more" % (len(diff) - 8) if len(diff) > 8 else ""))
        return None

    def serve(self):
        while self.retire is None:
            try:
                conn, _ = self.sock.accept()
            except KeyboardInterrupt:
                return
            with conn:
                self.handle(conn)

    def handle(self, conn):
        fds = []
        try:
            data, fds = _recv_request(conn)
            req = json.loads(data.decode())
            if not isinstance(req, dict):
                raise ValueError("request is not a JSON object")
            req["env"] = parse_env(req.get("env") or [])
            req["args"] = pytest_args(req.get("argv"), self.python)
            reason = self.refusal(req, fds)
        except (OSError, ValueError) as e:
            reason = "bad request: %s" % _one_line(e)
        if reason:
            _close_all(fds)
            _send(conn, {"event": "refused", "reason": reason})
            return
        _send(conn, {"event": "start", "pid": os.getpid(), "ops_before": self.ops,
                     "reset": self.last_reset})
        t0 = time.monotonic()
        status, notes = self.run_op(req, fds[0])
        self.ops += 1
        if status not in (0, 1, 2, 4, 5) and self.retire is None:
            # pytest's own failure: its plugins may not have undone their patches
            self.retire = "pytest ended with status %s (an internal error)" % status
        # the worker's own log: one line per op
        print("zl_worker: op %d (%s): pytest status %s, %.2f s (pytest.main %.2f s, tidy %.2f s of "
              "which its collection %.2f s, %s)%s; reset: %s%s" % (
                  self.ops, req["env"].get("ZL_RUN_DIR", "?"), status, time.monotonic() - t0,
                  self.last_split[0], self.last_split[1], self.last_split[2],
                  "the whole heap" if self.last_collect_full else "the session's objects",
                  "; pytest.main: " + ", ".join("%s %.2f s" % kv for kv in self.last_phases)
                  if self.last_phases else "",
                  ", ".join(self.last_reset) or "nothing",
                  "; retiring: " + self.retire if self.retire else ""),
              file=sys.stderr, flush=True)
        if self.retire is not None:
            # no op may reach a worker that is ending: the next run falls back at once
            self.stop_listening()
        _send(conn, {"event": "exit", "status": status, "reset": self.last_reset,
                     "retire": self.retire, "notes": notes})

    def run_op(self, req, out_fd):
        modules_before = set(sys.modules)
        threads_before = set(threading.enumerate())
        os.environ.clear()
        os.environ.update(req["env"])
        os.environ.update(self.import_env)
        os.chdir(req["cwd"])
        saved_argv = sys.argv
        sys.argv = [self.pytest_main] + req["args"]
        torch = sys.modules.get("torch")
        if torch is not None and self.seed is not None:
            # a fresh interpreter's generators: the same inputs as a fresh child
            try:
                torch.manual_seed(self.seed)
            except Exception as e:  # a broken device: the session will say so, then the worker retires
                print("zl_worker: cannot reseed torch: %s" % _one_line(e), file=sys.stderr, flush=True)
        sys.stdout.flush()
        sys.stderr.flush()
        saved = (os.dup(1), os.dup(2))
        os.dup2(out_fd, 1)
        os.dup2(out_fd, 2)
        os.close(out_fd)
        t_main = time.monotonic()
        global SESSIONS
        SESSIONS += 1
        marks = {}
        try:
            import pytest
            status = int(pytest.main(req["args"], plugins=phase_clock(pytest, marks)))
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except KeyboardInterrupt:
            status = 2
        except BaseException:
            traceback.print_exc()
            status = 3
        finally:
            for f in (sys.stdout, sys.stderr):
                try:
                    f.flush()
                except Exception:
                    pass
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            sys.argv = saved_argv
            sys.path[:] = self.idle_path
            os.chdir(self.root)
            os.environ.clear()
            os.environ.update(self.idle_env)
        # where an op's wall outside its pytest session goes (wave 9-10 on the H200: ~0.5-0.7 s
        # an op): pytest's own start and end are in pytest.main, the worker's in tidy
        t_tidy = time.monotonic()
        self.last_phases = phases(t_main, marks, t_tidy)
        notes = self.tidy(req, modules_before, threads_before)
        self.last_split = (t_tidy - t_main, time.monotonic() - t_tidy, self.last_collect_s)
        return status, notes

    def tidy(self, req, modules_before, threads_before):
        """Put the interpreter back as the worker became ready: drop the session's
        modules, reset the globals an op changed, and decide whether this worker
        can serve another op (self.retire says why not)."""
        notes = []
        self._drop_session_modules()
        forgot = forget_last_exception()
        if forgot:
            notes.append("dropped the failed test's exception pytest kept (%s)" % ", ".join(forgot))
        # the modules' globals are walked once each (a torch and FlagGems process holds
        # hundreds of thousands: ~0.4 us each), the tuners found kept for every later op
        fresh = {n: m for n, m in list(sys.modules.items()) if n not in self.tuner_scanned}
        self.tuner_scanned.update(fresh)
        for t in find_tuners(fresh):
            self.tuners.setdefault(id(t), t)
        tuners = reset_tuners(self.tuners.values())
        if tuners:
            notes.append("reset the last run's arguments that %d tuner%s kept"
                         % (tuners, "" if tuners == 1 else "s"))
        # The session's garbage is collected, and what is left lives on: frozen again, as when
        # the worker became ready. The whole heap only every FULL_COLLECT_EVERY ops (or when a
        # plugin thawed it: then a collection walks it all anyway).
        self.last_collect_s = 0.0
        self.since_full += 1
        self.collect(self.since_full >= FULL_COLLECT_EVERY)
        own = req["env"].get("ZL_VENDOR_MODULE") or None
        foreign = foreign_new_modules(modules_before, sys.modules, own, self.vendor_segment)
        current = fingerprint(sys.modules)
        reset, failed = restore(sys.modules, self.reference, differing(self.reference, current))
        self.last_reset = reset
        why = []
        if failed:
            why.append("global state changed: " + "; ".join(failed))
        if foreign:
            why.append("another vendor's FlagGems package was imported: " + ", ".join(foreign[:5]))
        mem, device_error = self._device_memory()
        if not device_error and not self.last_collect_full and self._over_slack(mem):
            # what the op left may be held by a cycle through frozen objects: collect it all
            self.collect(True)
            mem, device_error = self._device_memory()
        if device_error:
            why.append("the device reports an error: " + device_error)
        if self._over_slack(mem):
            held = []
            torch = sys.modules.get("torch")
            if torch is not None:
                try:
                    held = device_holders(torch)
                except Exception as e:
                    held = ["(cannot tell what holds it: %s)" % _one_line(e)]
            why.append("%.0f MiB of device memory still allocated after the op%s"
                       % ((mem - (self.mem_ref or 0)) / float(1 << 20),
                          (": " + "; ".join(held)) if held else ""))
        if self.mem_ref is None:
            self.mem_ref = mem
        new_threads = [t.name for t in threading.enumerate()
                       if t not in threads_before and t.is_alive() and not t.daemon]
        if new_threads:
            notes.append("threads the op left running: " + ", ".join(new_threads[:5]))
        if why:
            self.retire = "; ".join(why)
        return notes


    def collect(self, full):
        """gc.collect(), of the whole heap (thawed first) when full or when nothing is frozen,
        else of what is not frozen; then freeze what is left."""
        t0 = time.monotonic()
        if gc.get_freeze_count() == 0:
            full = True
        if full:
            gc.unfreeze()
            self.since_full = 0
        gc.collect()
        gc.freeze()
        self.last_collect_full = full
        self.last_collect_s += time.monotonic() - t0

    def _over_slack(self, mem):
        """Whether device memory mem (bytes, None: unknown) is more than the slack above what
        it was when the worker became ready."""
        slack = MEM_SLACK_MIB
        try:
            slack = float(os.environ.get(MEM_SLACK_VAR, MEM_SLACK_MIB))
        except ValueError:
            pass
        return mem is not None and mem - (self.mem_ref or 0) > slack * (1 << 20)


class _MemoDist:
    """An installed distribution whose entry points, files and metadata are read once: a proxy
    of importlib.metadata's Distribution for the attributes pluggy and pytest read."""

    def __init__(self, dist):
        self._dist = dist
        self._memo = {}

    def _once(self, name):
        if name not in self._memo:
            self._memo[name] = getattr(self._dist, name)
        return self._memo[name]

    @property
    def entry_points(self):
        return self._once("entry_points")

    @property
    def files(self):
        return self._once("files")

    @property
    def metadata(self):
        return self._once("metadata")

    def __getattr__(self, name):
        return getattr(self._dist, name)


def memo_distributions(md=None):
    """Make importlib.metadata.distributions() list the installed distributions as they were
    at the worker's start, each read once. pytest.main asks for every distribution's entry
    points once per -p plugin (pluggy's load_setuptools_entrypoints) and reads the pytest11
    ones' RECORD files: in the H200's image, 197 distributions, 1,773 entry_points.txt reads and
    0.1 s of each op's start (wave 11). What is installed does not change while a batch runs;
    a call with arguments (a name, a path) is not memoised."""
    import importlib.metadata
    md = md or importlib.metadata
    real = md.distributions
    if getattr(real, "_zl_memo", False):
        return
    cache = []

    def distributions(**kwargs):
        if kwargs:
            return real(**kwargs)
        if not cache:
            cache.append([_MemoDist(d) for d in real()])
        return iter(cache[0])
    distributions._zl_memo = True
    md.distributions = distributions


# pytest.main's phases as the worker's log names them, by the marks phase_clock sets
PHASES = (("to configure", "configure"), ("session", "finish"), ("its finish hooks", "finished"),
          ("to unconfigure", "unconfigure"), ("unconfigure", "unconfigured"))


def phase_clock(pytest, marks):
    """Plugin objects for pytest.main(plugins=...) that set marks[name] = time.monotonic() at
    the first configure hook ("configure"), before and after the session's finish hooks
    ("finish", "finished") and before and after the unconfigure hooks ("unconfigure",
    "unconfigured"): where an op's wall outside its session goes (wave 11)."""
    def mark(name):
        marks.setdefault(name, time.monotonic())

    class First:
        @pytest.hookimpl(tryfirst=True)
        def pytest_configure(self, config):
            mark("configure")

        @pytest.hookimpl(tryfirst=True)
        def pytest_sessionfinish(self, session, exitstatus):
            mark("finish")

        @pytest.hookimpl(tryfirst=True)
        def pytest_unconfigure(self, config):
            mark("unconfigure")

    class Last:
        @pytest.hookimpl(trylast=True)
        def pytest_sessionfinish(self, session, exitstatus):
            mark("finished")

        @pytest.hookimpl(trylast=True)
        def pytest_unconfigure(self, config):
            mark("unconfigured")

    return [First(), Last()]


def phases(t_main, marks, t_end):
    """[(phase, seconds)] of one pytest.main from its start t_main to its end t_end by the
    marks phase_clock set, the last "after" (None when a mark is missing: pytest ended early)."""
    out, last = [], t_main
    for label, name in PHASES:
        t = marks.get(name)
        if t is None or t < last:
            return None
        out.append((label, t - last))
        last = t
    out.append(("after", max(0.0, t_end - last)))
    return out


def _watch_parent(parent, grace):
    """The batch is this worker's parent: when it is gone, end the op (SIGTERM:
    the plugins unwind the session) and then the worker."""
    while os.getppid() == parent:
        time.sleep(1.0)
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(grace)
    finally:
        os._exit(128 + signal.SIGTERM)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="zl_worker")
    ap.add_argument("--socket", required=True)
    ap.add_argument("--python", required=True)
    ap.add_argument("--plugins-dir", required=True)
    args = ap.parse_args(argv)
    # `python -m zl_worker` runs this file as __main__; the plugins look it up by name
    sys.modules.setdefault("zl_worker", sys.modules[__name__])
    # a crash outside an op's session (pytest's own handler covers those) still says where
    faulthandler.enable()
    ready = os.environ.pop(READY_FD_VAR, None)
    # the batch; zlbench ran preflight before this exec, so getppid() may be too late
    parent = int(os.environ.pop(PARENT_VAR, "0") or 0) or os.getppid()
    try:
        grace = float(os.environ.get("ZL_KILL_GRACE", "10"))
    except ValueError:
        grace = 10.0
    threading.Thread(target=_watch_parent, args=(parent, grace), name="zl_worker parent watch",
                     daemon=True).start()
    global KEEPS_HEAP
    KEEPS_HEAP = True
    w = Worker(os.getcwd(), args.python, os.path.abspath(args.plugins_dir))
    w.preimport()
    w.listen(args.socket)
    w.announce(int(ready) if ready else None)
    w.serve()
    print("zl_worker: %d ops served; %s" % (w.ops, "retiring: " + w.retire if w.retire else "ending"),
          file=sys.stderr, flush=True)
    return 0


FOREIGN_VENDOR_HINT = None

if __name__ == "__main__":
    sys.exit(main())
