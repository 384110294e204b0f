"""zl_autotune: record the autotuning winners of a run, or replay an earlier run's.

Record (ZL_AUTOTUNE_MODE=record, the default): every Triton Autotuner and
FlagGems LibTuner that picks a config for a tuning key during the run has the
winner written to <run>/autotune_records/<kernel>.json: kernel, key, config
kwargs, num_warps, num_stages, num_ctas, tuning time, and where the pick came
from (tuned now, FlagGems' tuner cache, Triton's disk cache).

Replay (ZL_AUTOTUNE_MODE=replay, ZL_REPLAY_FROM=<earlier run dir>): each tuner
is pinned to the recorded config for its key before it can tune; a key the
earlier run never recorded raises "REPLAY_MISS kernel=<k> key=<key>" (also
printed on its own line to stderr), which fails that measurement instead of
tuning fresh. The pinned picks are recorded in this run too (source "replay").
With ZL_REPLAY_MISS=tune (a sweep replaying the last sweep's winners), a key the
source lacks is tuned as in record mode, recorded (source "tuned") and pinned
for the rest of the run; autotune_summary.json counts them (tuned_on_miss).

Kernels launched in the run without any tuner are recorded as such (tuner null). In a
batch's worker, a kernel that an earlier op compiled and this one compiled nothing new of is
counted apart (no_tuner_earlier): it may or may not have run here, and gets no record.
Counts go to <run>/plugins/autotune_summary.json.

How: Autotuner.run and LibTuner.run are wrapped. Triton's tuner keeps its picks
in a plain dict (tuner.cache): a new entry after run() is a new pick, and in
replay the dict is replaced by one that answers "key in cache" from the
records. LibTuner (called once per LibEntry dispatch key) gets its key from its
own get_key() and, in replay, a stand-in for its persistent ConfigCache for the
duration of the call, so nothing is written to FlagGems' tuner database.

Keys are compared as zl_common.stable_key() strings: stable across processes.
"""

import gc
import glob
import os
import re
import sys
import threading
import weakref

import pytest

import zl_common as zc

MODES = ("record", "replay", "off")
MISS_MODES = ("fail", "tune")      # ZL_REPLAY_MISS: what replay does with a key the source lacks
RECORD_FORMAT = "zlbench-autotune-record"
RECORD_VERSION = 1
RECORDS_DIR = "autotune_records"

_state = None


# ---------------------------------------------------------------------------
# pure logic


def base_function(fn):
    """The Python function under a tuner / JITFunction / LibEntry chain, or None."""
    seen = 0
    while fn is not None and not _is_function(fn) and seen < 16:
        nxt = fn.__dict__.get("base_fn") if hasattr(fn, "__dict__") else None
        fn = nxt if nxt is not None else getattr(fn, "fn", None)
        seen += 1
    return fn if fn is not None and _is_function(fn) else None


def kernel_id(fn):
    """<module>.<qualname> of the Python function under a tuner / JITFunction /
    LibEntry chain: unique per module-level kernel, stable across runs. Closures
    (a qualname with <locals>) can share one; _Autotune.kernel_of() tells them apart."""
    fn = base_function(fn)
    if fn is None:
        return None
    return "%s.%s" % (getattr(fn, "__module__", "?"), getattr(fn, "__qualname__", fn.__name__))


def _is_function(obj):
    return type(obj).__name__ == "function"


def record_file_name(kernel):
    """File name of a kernel's record: the kernel id with unsafe characters replaced."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", kernel) + ".json"


def config_record(cfg):
    """A triton.Config as JSON: kwargs, launch options, and all_kwargs() in
    canonical form (what replay compares)."""
    kwargs = getattr(cfg, "kwargs", {}) or {}
    try:
        all_kwargs = cfg.all_kwargs()
    except Exception:
        all_kwargs = dict(kwargs)
    return {"kwargs": zc.jsonable(kwargs),
            "num_warps": getattr(cfg, "num_warps", None),
            "num_stages": getattr(cfg, "num_stages", None),
            "num_ctas": getattr(cfg, "num_ctas", None),
            "maxnreg": getattr(cfg, "maxnreg", None),
            "all_kwargs": zc.canonical(all_kwargs)}


def make_entry(key, cfg, source, tuning_time, first_test, in_config_space=True):
    return {"key": zc.stable_key(key), "key_values": zc.canonical(key),
            "config": config_record(cfg), "source": source,
            "tuning_time_s": tuning_time, "in_config_space": in_config_space,
            "first_test": first_test}


def load_records(run_dir, conflicts=None):
    """{kernel: {key string: entry}} from <run_dir>/autotune_records/*.json.

    A key recorded twice with different configs (two files of one kernel, or a
    record edited by hand) keeps the last one read, in file name order; each such
    key is appended to conflicts (when given) as {kernel, key, kept, dropped}, the
    files of the two configs, so that the run can say it instead of pinning silently."""
    directory = os.path.join(run_dir, RECORDS_DIR)
    if not os.path.isdir(directory):
        raise zc.ConfigError("ZL_REPLAY_FROM '%s' has no %s directory" % (run_dir, RECORDS_DIR))
    table = {}
    origin = {}  # (kernel, key): the file it was last read from
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        doc = zc.read_json(path, "autotune record")
        if not isinstance(doc, dict) or doc.get("format") != RECORD_FORMAT:
            raise zc.ConfigError("'%s' is not a zlbench autotune record" % path)
        if doc.get("version") != RECORD_VERSION:
            raise zc.ConfigError("autotune record '%s' has version %r, expected %d"
                                 % (path, doc.get("version"), RECORD_VERSION))
        check_record(path, doc)
        entries = table.setdefault(doc["kernel"], {})
        for e in doc["entries"]:
            before = entries.get(e["key"])
            if before is not None and before["config"] != e["config"] and conflicts is not None:
                conflicts.append({"kernel": doc["kernel"], "key": e["key"], "kept": os.path.basename(path),
                                  "dropped": origin[(doc["kernel"], e["key"])]})
            entries[e["key"]] = e
            origin[(doc["kernel"], e["key"])] = os.path.basename(path)
    return table


def conflict_warning(conflicts, limit=3):
    """One line saying which replayed keys had two configs (None when none had)."""
    if not conflicts:
        return None
    shown = "; ".join("%s key %s: %s over %s" % (c["kernel"], c["key"], c["kept"], c["dropped"])
                      for c in conflicts[:limit])
    more = " and %d more" % (len(conflicts) - limit) if len(conflicts) > limit else ""
    return ("zl_autotune: warning: the replay source records %d key%s with two different configs "
            "(%s%s); the last one read is pinned" % (len(conflicts), "" if len(conflicts) == 1 else "s",
                                                     shown, more))


def _json_type(value):
    if value is None:
        return "null"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "an array", dict: "an object"}.get(type(value), type(value).__name__)


def check_record(path, doc):
    """The fields replay reads, with the types it needs: a record edited by
    hand or cut short must be a usage error naming the file and the field, not
    a KeyError that pytest reports as INTERNALERROR (exit 3, the vendor-mismatch code)."""
    def bad(field, want, value):
        raise zc.ConfigError("autotune record '%s': %s must be %s, not %s"
                             % (path, field, want, _json_type(value)))

    def need(obj, field, name, kinds, want):
        value = obj.get(name)
        if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
            bad(field, want, value)
        return value

    need(doc, "kernel", "kernel", (str,), "a string")
    entries = need(doc, "entries", "entries", (list,), "an array")
    for i, e in enumerate(entries):
        where = "entries[%d]" % i
        if not isinstance(e, dict):
            bad(where, "an object", e)
        need(e, where + ".key", "key", (str,), "a string")
        cfg = need(e, where + ".config", "config", (dict,), "an object")
        need(cfg, where + ".config.all_kwargs", "all_kwargs", (dict,), "an object")
        need(cfg, where + ".config.kwargs", "kwargs", (dict,), "an object")
        for opt in ("num_warps", "num_stages", "num_ctas", "maxnreg"):
            if cfg.get(opt) is not None:
                need(cfg, "%s.config.%s" % (where, opt), opt, (int,), "an integer or null")


def find_config(configs, recorded, config_cls):
    """(config, in_config_space): the tuner's own Config whose all_kwargs() match
    the record (it carries the pre_hook), else a new Config built from it."""
    want = recorded["all_kwargs"]
    for cfg in configs or ():
        try:
            if zc.canonical(cfg.all_kwargs()) == want:
                return cfg, True
        except Exception:
            continue
    if config_cls is None:
        raise RuntimeError("recorded config %s is not among the tuner's configs and "
                           "triton.Config is not available" % zc.stable_key(want))
    options = {k: recorded[k] for k in ("num_warps", "num_stages", "num_ctas", "maxnreg")
               if recorded.get(k) is not None}
    try:
        return config_cls(dict(recorded["kwargs"]), **options), False
    except TypeError:
        options.pop("maxnreg", None)
        return config_cls(dict(recorded["kwargs"]), **options), False


def triton_source(tuner, bench_time, timings):
    """Where a triton Autotuner's new pick came from, from what run() changed:
    benchmarking sets bench_time (and configs_timings); a disk-cache hit
    (cache_results) sets configs_timings only; a prune down to one config
    stores it and sets neither."""
    d = tuner.__dict__
    if d.get("bench_time") is not bench_time:
        return "tuned"
    if d.get("configs_timings") is not timings:
        return "triton_disk_cache"
    return "single_config"


def miss_line(kernel, key):
    return "REPLAY_MISS kernel=%s key=%s" % (kernel, key)


def libtuner_key(tuner, args, kwargs):
    """LibTuner.run's own ConfigCache key for these launch arguments."""
    names = list(tuner.arg_names)
    all_args = dict(zip(names, args))
    all_args.update(kwargs)
    return tuner.get_key({k: v for k, v in all_args.items() if k in names})


# ---------------------------------------------------------------------------
# caches standing in for the tuners' own in replay mode


class PinnedDict(dict):
    """Triton Autotuner.cache in replay: a key not yet here is looked up in the
    records (pinned) or raises ReplayMiss; the tuner therefore never benchmarks
    (but for a miss under ZL_REPLAY_MISS=tune, which it tunes)."""

    def __init__(self, resolve, owner=None, inner=None):
        super().__init__()
        self._resolve = resolve
        self.owner = owner      # the _Autotune (one run) whose records it answers from
        self.inner = inner      # the tuner's own cache, given back when the run ends

    def __contains__(self, key):
        if dict.__contains__(self, key):
            return True
        cfg = self._resolve(key)
        if cfg is None:
            return False       # ZL_REPLAY_MISS=tune: the tuner benchmarks and stores its pick
        dict.__setitem__(self, key, cfg)
        return True


class PinnedConfigCache:
    """LibTuner.cache (a ConfigCache on FlagGems' SQLite database) in replay, for
    one run() call: answers from the records and writes nothing."""

    def __init__(self, resolve, inner):
        self._resolve = resolve
        self._inner = inner
        self._pins = {}

    def get(self, key):
        if key not in self._pins:
            self._pins[key] = self._resolve(key)
        return self._pins[key]

    def __contains__(self, key):
        return self.get(key) is not None

    def __getitem__(self, key):
        return self.get(key)

    def __setitem__(self, key, config):
        self._pins[key] = config

    def set(self, key, config):
        self._pins[key] = config

    def __getattr__(self, name):
        return getattr(self._inner, name)


# ---------------------------------------------------------------------------
# state


class _Kernel:
    def __init__(self, kernel, name, tuner_kind, tuner_class, key_names):
        self.kernel = kernel
        self.name = name
        self.tuner = tuner_kind
        self.tuner_class = tuner_class
        self.key_names = key_names
        self.entries = {}

    def document(self):
        return {"format": RECORD_FORMAT, "version": RECORD_VERSION, "kernel": self.kernel,
                "name": self.name, "tuner": self.tuner, "tuner_class": self.tuner_class,
                "key_names": self.key_names, "entries": list(self.entries.values())}


class _Autotune:
    def __init__(self, mode, replay_from, table, miss="fail"):
        self.mode = mode
        self.replay_from = replay_from
        self.table = table
        self.miss = miss            # replay: "fail" raises ReplayMiss, "tune" tunes the key
        self.kernels = {}
        self.pinned = set()
        self.missed = []
        self.tuned_on_miss = []     # (kernel, key) tuned because the source lacked them
        self.no_tuner = []
        self.no_tuner_earlier = []  # compiled by an earlier session of this interpreter only
        self.node = None
        self.local = threading.local()
        self.patched = []
        self.closures = {}         # closure kernel id -> its function objects, first seen first
        self.replaced = []         # (tuner, its own cache) for each PinnedDict put in
        self.finished = False

    # --- installation -------------------------------------------------------

    def install(self):
        at = sys.modules.get("triton.runtime.autotuner")
        autotuner = getattr(at, "Autotuner", None) if at is not None else None
        if autotuner is None:
            return
        le = sys.modules.get("flag_gems.utils.libentry")
        libtuner = getattr(le, "LibTuner", None) if le is not None else None
        todo = [autotuner]
        seen = set()
        while todo:
            cls = todo.pop()
            if cls in seen:
                continue
            seen.add(cls)
            todo.extend(cls.__subclasses__())
            run = cls.__dict__.get("run")
            if run is None or getattr(run, "_zl_autotune_hook", False):
                continue
            is_lib = libtuner is not None and issubclass(cls, libtuner)
            hook = self._libtuner_hook(run) if is_lib else self._triton_hook(run)
            setattr(cls, "run", hook)
            self.patched.append((cls, "run", run))

    def uninstall(self):
        for owner, attr, orig in reversed(self.patched):
            setattr(owner, attr, orig)
        self.patched = []
        # a worker's next op must not meet this run's pins (nor resolve through this run)
        for tuner, cache in reversed(self.replaced):
            if tuner.__dict__.get("cache") is not cache:
                tuner.cache = cache
        self.replaced = []

    def _running(self):
        stack = getattr(self.local, "stack", None)
        if stack is None:
            stack = self.local.stack = []
        return stack

    def _triton_hook(self, orig):
        state = self

        def run(tuner, *args, **kwargs):
            stack = state._running()
            if id(tuner) in stack:
                return orig(tuner, *args, **kwargs)
            cache = tuner.__dict__.get("cache")
            if state.mode == "replay" and (type(cache) is not PinnedDict or cache.owner is not state):
                own = cache.inner if type(cache) is PinnedDict else cache
                state.replaced.append((tuner, own))
                tuner.cache = PinnedDict(state._resolver(tuner, "triton"), state, own)
            cache = tuner.__dict__.get("cache")
            before = len(cache) if isinstance(cache, dict) else None
            bench_time = tuner.__dict__.get("bench_time")
            timings = tuner.__dict__.get("configs_timings")
            stack.append(id(tuner))
            try:
                return orig(tuner, *args, **kwargs)
            finally:
                stack.pop()
                if before is not None and len(cache) != before and state.records_tuning():
                    state._note_triton(tuner, cache, triton_source(tuner, bench_time, timings))
        run._zl_autotune_hook = True
        run.__wrapped__ = orig
        return run

    def _libtuner_hook(self, orig):
        state = self

        def run(tuner, *args, **kwargs):
            stack = state._running()
            if id(tuner) in stack or len(getattr(tuner, "configs", ())) <= 1:
                return orig(tuner, *args, **kwargs)
            try:
                key = libtuner_key(tuner, args, kwargs)
            except Exception:
                return orig(tuner, *args, **kwargs)   # run() itself will report it
            bench_time = tuner.__dict__.get("bench_time")
            inner = tuner.__dict__.get("cache")
            if state.mode == "replay":
                tuner.cache = PinnedConfigCache(state._resolver(tuner, "libtuner"), inner)
            stack.append(id(tuner))
            try:
                ret = orig(tuner, *args, **kwargs)
            finally:
                stack.pop()
                if state.mode == "replay" and isinstance(tuner.__dict__.get("cache"),
                                                         PinnedConfigCache):
                    tuner.cache = inner
            fresh = tuner.__dict__.get("bench_time") is not bench_time
            if state.mode == "record" or (fresh and state.records_tuning()):
                state._record(tuner, "libtuner", key, tuner.best_config,
                              "tuned" if fresh else "tuner_cache",
                              tuner.__dict__.get("bench_time") if fresh else None)
            return ret
        run._zl_autotune_hook = True
        run.__wrapped__ = orig
        return run

    def records_tuning(self):
        """Whether a tuner's own pick is recorded: always in record mode; in replay
        only under ZL_REPLAY_MISS=tune (a pinned pick never benchmarks)."""
        return self.mode == "record" or (self.mode == "replay" and self.miss == "tune")

    # --- recording ----------------------------------------------------------

    def kernel_of(self, obj):
        """kernel_id() of obj's function; for a closure made more than once (a
        kernel factory: same qualname, other function object, maybe other
        configs) the second and later get "#2", "#3", ... in the order this run
        first meets them, so two tuners never share a record. Module-level
        kernels and a closure's first function keep the plain id (stable across
        FlagGems versions, unlike a line number)."""
        fn = base_function(obj)
        if fn is None:
            return "unknown.%s" % type(obj).__name__
        kid = kernel_id(fn)
        if "<locals>" not in kid:
            return kid
        seen = self.closures.setdefault(kid, [])
        for i, f in enumerate(seen):
            if f is fn:
                break
        else:
            seen.append(fn)    # kept alive: an id() could be reused
            i = len(seen) - 1
        return kid if i == 0 else "%s#%d" % (kid, i + 1)

    def _kernel(self, tuner, kind):
        kid = self.kernel_of(tuner)
        k = self.kernels.get(kid)
        if k is None:
            name = kid.rsplit(".", 1)[-1]
            k = _Kernel(kid, name, kind, type(tuner).__name__,
                        [str(x) for x in getattr(tuner, "keys", []) or []])
            self.kernels[kid] = k
        return k

    def _record(self, tuner, kind, key, cfg, source, tuning_time, in_space=True):
        k = self._kernel(tuner, kind)
        sk = zc.stable_key(key)
        if sk in k.entries:
            return
        k.entries[sk] = make_entry(key, cfg, source, tuning_time, self.node, in_space)
        if self.mode == "replay" and source != "replay":
            # tuned on a miss: pinned from now on, so that a LibTuner, which gets a fresh
            # stand-in cache on every run() call, never tunes the key twice in the run
            self.table.setdefault(k.kernel, {})[sk] = k.entries[sk]
        self._write_kernel(k)

    def _note_triton(self, tuner, cache, source):
        k = self._kernel(tuner, "triton")
        for key, cfg in list(cache.items()):
            if zc.stable_key(key) in k.entries:
                continue
            self._record(tuner, "triton", key, cfg, source,
                         tuner.__dict__.get("bench_time") if source == "tuned" else None)

    def _resolver(self, tuner, kind):
        """key -> pinned Config for this tuner, or ReplayMiss."""
        state = self

        def resolve(key):
            kid = state.kernel_of(tuner)
            sk = zc.stable_key(key)
            entry = state.table.get(kid, {}).get(sk)
            if entry is None and state.miss == "tune":
                if (kid, sk) not in state.tuned_on_miss:
                    state.tuned_on_miss.append((kid, sk))
                    # not the REPLAY_MISS marker: a run that fails later must not be read as a miss
                    zc.emit_line("zl_autotune: tuning kernel=%s key=%s, which the replay source "
                                 "lacks (replay miss: tune)" % (kid, sk))
                return None
            if entry is None:
                if (kid, sk) not in state.missed:
                    state.missed.append((kid, sk))
                    zc.emit_line(miss_line(kid, sk))
                    state.write_summary()
                raise zc.ReplayMiss(miss_line(kid, sk))
            at = sys.modules.get("triton.runtime.autotuner")
            cfg, in_space = find_config(getattr(tuner, "configs", None), entry["config"],
                                        getattr(at, "Config", None))
            state.pinned.add((kid, sk))
            state._record(tuner, kind, key, cfg, "replay", None, in_space)
            return cfg
        return resolve

    # --- kernels without a tuner -------------------------------------------

    def scan_untuned(self):
        """Kernels launched in this run that no tuner wraps: (ids, ids of those an earlier
        session of this interpreter compiled, none since), each sorted."""
        jit_mod = sys.modules.get("triton.runtime.jit")
        jit_cls = getattr(jit_mod, "JITFunction", None) if jit_mod is not None else None
        at = sys.modules.get("triton.runtime.autotuner")
        tuner_cls = getattr(at, "Autotuner", None) if at is not None else None
        if jit_cls is None:
            return [], []
        le = sys.modules.get("flag_gems.utils.libentry")
        entry_cls = getattr(le, "LibEntry", None) if le is not None else None
        kinds = tuple(c for c in (jit_cls, tuner_cls, entry_cls) if c is not None)
        heur = getattr(at, "Heuristics", None) if at is not None else None
        if heur is not None:
            kinds += (heur,)
        tuned, untuned, variants = set(), {}, {}
        for v in _kernel_objects(kinds):
            chain = [v]
            while not isinstance(chain[-1], jit_cls) and len(chain) < 16:
                nxt = getattr(chain[-1], "fn", None)
                if nxt is None:
                    break
                chain.append(nxt)
            jit = chain[-1]
            if not isinstance(jit, jit_cls):
                continue
            if tuner_cls is not None and any(isinstance(c, tuner_cls) for c in chain):
                tuned.add(id(jit))
            else:
                n = _jit_variants(jit)
                if entry_cls is not None and isinstance(v, entry_cls):
                    n += _libentry_variants(v)
                if n:
                    untuned[id(jit)] = jit
                    # the JITFunction and the LibEntry around it are both met: the larger count
                    variants[id(jit)] = max(variants.get(id(jit), 0), n)
        fresh, earlier = set(), set()
        for i, j in untuned.items():
            if i in tuned:
                continue
            kid = self.kernel_of(j)
            if not kid.startswith("unknown."):
                (earlier if seen_before(j, variants[i]) else fresh).add(kid)
        return sorted(fresh), sorted(earlier - fresh)

    # --- files --------------------------------------------------------------

    def _records_dir(self):
        base = zc.run_dir()
        return os.path.join(base, RECORDS_DIR) if base is not None else None

    def _write_kernel(self, k):
        d = self._records_dir()
        if d is None:
            return
        try:
            zc.write_json_atomic(os.path.join(d, record_file_name(k.kernel)), k.document())
        except Exception as e:
            zc.report_error("zl_autotune", "cannot write record of %s" % k.kernel, e)

    def summary(self):
        recorded = sum(len(k.entries) for k in self.kernels.values())
        return {"mode": self.mode, "replay_from": self.replay_from, "recorded": recorded,
                "pinned": len(self.pinned), "missed": len(self.missed),
                "replay_miss": self.miss if self.mode == "replay" else None,
                "tuned_on_miss": len(self.tuned_on_miss),
                "tuned_on_miss_keys": [{"kernel": k, "key": key} for k, key in self.tuned_on_miss],
                "no_tuner": len(self.no_tuner),
                "kernels": sorted(k for k, v in self.kernels.items() if v.tuner is not None),
                "no_tuner_kernels": list(self.no_tuner),
                "no_tuner_earlier": len(self.no_tuner_earlier),
                "no_tuner_earlier_kernels": list(self.no_tuner_earlier),
                "missed_keys": [{"kernel": k, "key": key} for k, key in self.missed],
                "replay_conflicts": list(getattr(self, "replay_conflicts", [])),
                "records_dir": self._records_dir()}

    def write_summary(self):
        path = zc.plugin_file("autotune_summary.json")
        if path is None:
            return
        try:
            zc.write_json_atomic(path, self.summary())
        except Exception as e:
            zc.report_error("zl_autotune", "cannot write autotune_summary.json", e)

    def finish(self):
        if self.finished:
            return
        self.finished = True
        if self.mode != "off":
            try:
                fresh, earlier = self.scan_untuned()
                self.no_tuner = [k for k in fresh if k not in self.kernels]
                self.no_tuner_earlier = [k for k in earlier if k not in self.kernels]
            except Exception as e:
                zc.report_error("zl_autotune", "cannot scan kernels", e)
            d = self._records_dir()
            if d is not None:
                try:
                    os.makedirs(d, exist_ok=True)
                except OSError as e:
                    zc.report_error("zl_autotune", "cannot create %s" % d, e)
            for kid in self.no_tuner:
                k = _Kernel(kid, kid.rsplit(".", 1)[-1], None, None, [])
                self._write_kernel(k)
        self.write_summary()


def _worker():
    """The zl_worker module when this process is a worker that keeps its heap frozen between
    ops (zl_worker.KEEPS_HEAP), else None."""
    w = sys.modules.get("zl_worker")
    return w if w is not None and getattr(w, "KEEPS_HEAP", False) else None


class _Walks:
    """What the kernel walks of this process found: found (id -> weak reference to a kernel
    object, or a function returning the object where it takes no weak reference) and the
    worker's session count at the last walk (zl_worker.SESSIONS). A worker carries it from
    op to op (zl_worker.CARRY: this module is a session's, imported afresh by each)."""

    def __init__(self):
        self.found = {}
        self.walked_at = None

    def remember(self, v):
        key = id(v)
        if key in self.found:
            return
        found = self.found
        try:
            found[key] = weakref.ref(v, lambda _r, key=key: found.pop(key, None))
        except TypeError:
            found[key] = lambda v=v: v


def _walks():
    w = _worker()
    if w is None:
        return _Walks()
    carry = getattr(w, "CARRY", None)
    if not isinstance(carry, dict):
        return _Walks()
    return carry.setdefault("zl_autotune.walks", _Walks())


def _kernel_objects(kinds):
    """Every live object whose type is one of kinds: module globals, and what the
    garbage collector tracks. The second matters: FlagGems' pointwise_dynamic (and
    ops such as index_put) load generated kernel modules with
    spec_from_file_location and keep them out of sys.modules, so abs, add, exp, ...
    are no module's global that sys.modules reaches.

    gc.get_objects() does not list frozen objects (the timer plugin freezes the heap for a
    session, zl_timer.freeze_heap; a worker keeps its heap frozen between ops). The first
    walk of a process thaws the heap and sees all of it; later walks see what is not frozen
    and the kernels earlier walks found: in a worker, a walk of the whole heap after every op
    cost 0.2-0.3 s on the H200 (wave 11). Outside a worker, and after a session of the worker
    that did not walk (this plugin not loaded, or autotune off), every walk sees it all."""
    walks = _walks()
    seen = set()
    for mod in list(sys.modules.values()):
        d = getattr(mod, "__dict__", None)
        if not isinstance(d, dict):
            continue
        for v in list(d.values()):
            # type(), not isinstance(): isinstance reads __class__, which some
            # module attributes turn into a deprecation warning or an import.
            if issubclass(type(v), kinds) and id(v) not in seen:
                seen.add(id(v))
                walks.remember(v)
                yield v
    for ref in list(walks.found.values()):
        v = ref()
        if v is not None and issubclass(type(v), kinds) and id(v) not in seen:
            seen.add(id(v))
            yield v
    w = _worker()
    sessions = getattr(w, "SESSIONS", None) if w is not None else None
    if sessions is None or walks.walked_at is None or sessions != walks.walked_at + 1:
        gc.unfreeze()
    walks.walked_at = sessions
    for v in gc.get_objects():
        if issubclass(type(v), kinds) and id(v) not in seen:
            seen.add(id(v))
            walks.remember(v)
            yield v


def _size(v):
    try:
        return len(v)
    except TypeError:
        return 1 if v else 0


def _jit_variants(jit):
    """How many kernels the JITFunction compiled in this process (0: never used)."""
    d = getattr(jit, "__dict__", {})
    caches = d.get("device_caches")
    if isinstance(caches, dict):
        n = 0
        for v in caches.values():
            first = v[0] if isinstance(v, (tuple, list)) and v else v
            n += _size(first) if first else 0
        return n
    old = d.get("cache")
    if isinstance(old, dict):
        return sum(_size(v) for v in old.values() if v)
    return 0


def _libentry_variants(entry):
    d = getattr(entry, "__dict__", {})
    n = sum(_size(c) for c in d.get("kernel_cache", ()) or () if c)
    return n + _size(d.get("_cpu_cache") or ())


def _jit_used(jit):
    """True when the JITFunction compiled a kernel in this process."""
    return _jit_variants(jit) > 0


def _libentry_used(entry):
    return _libentry_variants(entry) > 0


# The count of compiled kernels a session's scan saw, kept on the JITFunction itself: a
# batch's worker serves op after op in one interpreter, and drops the plugin modules
# between them, but FlagGems' kernels live on.
SEEN_ATTR = "_zl_autotune_variants_seen"


def seen_before(jit, variants):
    """True when an earlier session of this interpreter saw the kernel with at least this
    many compiled variants (it compiled nothing new in this one; it may or may not have run);
    records the count for the next session."""
    d = getattr(jit, "__dict__", None)
    if not isinstance(d, dict):
        return False
    prev = d.get(SEEN_ATTR)
    try:
        setattr(jit, SEEN_ATTR, variants)
    except Exception:
        return False
    return prev is not None and variants <= prev


# ---------------------------------------------------------------------------
# hooks


def pytest_configure(config):
    global _state
    try:
        mode = zc.env_choice("ZL_AUTOTUNE_MODE", MODES, "record")
        replay_from = zc.env_str("ZL_REPLAY_FROM")
        miss = zc.env_choice("ZL_REPLAY_MISS", MISS_MODES, "fail")
        table = {}
        conflicts = []
        if mode == "replay":
            if replay_from is None:
                raise zc.ConfigError("ZL_AUTOTUNE_MODE=replay needs ZL_REPLAY_FROM "
                                     "(the earlier run directory)")
            table = load_records(replay_from, conflicts)
    except zc.ConfigError as e:
        raise pytest.UsageError(str(e)) from None
    warning = conflict_warning(conflicts)
    if warning:
        sys.stderr.write(warning + "\n")
        sys.stderr.flush()
    _state = _Autotune(mode, replay_from if mode == "replay" else None, table, miss)
    _state.replay_conflicts = conflicts
    if mode != "off":
        _state.install()
    zc.unwind_on_sigterm()


def pytest_collection_finish(session):
    if _state is not None and _state.mode != "off":
        _state.install()


def pytest_runtest_logstart(nodeid, location):
    if _state is not None:
        _state.node = nodeid
        if _state.mode != "off":
            _state.install()


def pytest_runtest_logfinish(nodeid, location):
    if _state is not None:
        _state.node = None


def pytest_sessionfinish(session, exitstatus):
    if _state is not None:
        _state.finish()


def pytest_unconfigure(config):
    global _state
    if _state is None:
        return
    _state.finish()
    _state.uninstall()
    _state = None
    zc.restore_sigterm()
