"""zl_shard: a warm-up shard keeps its share of each benchmark's shapes.

Loaded by `zlbench run` only for a warm-up shard of `zlbench batch --warmup-devices N`
at level comprehensive, where FlagGems adds shapes in code (set_more_shapes()) that no
shape file can split. ZL_WARMUP_SHARD=i/k (1 <= i <= k) names the shard.

What is hooked: Benchmark.init_user_config of FlagGems' benchmark classes (a class
named Benchmark with set_shapes, init_user_config and run, and every subclass that
overrides init_user_config). When the outermost call returns, self.shapes is final:
the shape file's entry and, at level comprehensive, the shapes set_more_shapes()
added (deduplicated, in a stable order). Only the shapes whose index j in that list
satisfies j % k == i - 1 are kept, so the k shards split the shapes between them:
disjoint, and together every shape.

Writes <run>/plugins/shard.json: {"shard", "shards", "rule", "benchmarks": [{"nodeid",
"class", "op_name", "shapes_total", "kept": [indices], "shapes": [kept shapes]}]}.
A benchmark whose inputs do not come from self.shapes is not split (its entry shows
shapes_total null); the batch warns when a shard split nothing.
"""

import functools
import re

import pytest

import zl_common as zc

ENV = "ZL_WARMUP_SHARD"
REPORT = "shard.json"
MAX_SHAPES = 200
_SPEC = re.compile(r"^([0-9]+)/([0-9]+)$")

_state = None


# ---------------------------------------------------------------------------
# pure logic


def parse_shard(text):
    """(i, k) from "i/k" with 1 <= i <= k; ConfigError otherwise."""
    m = _SPEC.match(text or "")
    if not m:
        raise zc.ConfigError("%s must be i/k (shard i of k), not '%s'" % (ENV, text))
    i, k = int(m.group(1)), int(m.group(2))
    if k < 1 or not 1 <= i <= k:
        raise zc.ConfigError("%s=%s: the shard must be between 1 and %d" % (ENV, text, k))
    return i, k


def kept_indices(n, i, k):
    """Indices j in 0..n-1 that shard i of k keeps: j % k == i - 1."""
    return [j for j in range(n) if j % k == i - 1]


def split(shapes, i, k):
    """Shard i of k's share of shapes, in their order."""
    return [shapes[j] for j in kept_indices(len(shapes), i, k)]


# ---------------------------------------------------------------------------
# hooking


def _apply(bench):
    i, k = _state["shard"], _state["shards"]
    rec = {"nodeid": _state["current"], "class": type(bench).__name__,
           "op_name": getattr(bench, "op_name", None), "shapes_total": None, "kept": [], "shapes": []}
    shapes = getattr(bench, "shapes", None)
    try:
        shapes = list(shapes) if shapes is not None else None
    except TypeError:
        shapes = None
    if shapes is not None:
        keep = kept_indices(len(shapes), i, k)
        bench.shapes = [shapes[j] for j in keep]
        rec.update(shapes_total=len(shapes), kept=keep,
                   shapes=[zc.jsonable(shapes[j]) for j in keep[:MAX_SHAPES]])
    _state["benchmarks"].append(rec)


def _wrap(orig):
    @functools.wraps(orig)
    def init_user_config(self, *args, **kwargs):
        # a subclass's override calls super(): split once, when the outermost call is done
        depth = self.__dict__.get("_zl_shard_depth", 0)
        self.__dict__["_zl_shard_depth"] = depth + 1
        try:
            result = orig(self, *args, **kwargs)
        finally:
            self.__dict__["_zl_shard_depth"] = depth
        if depth == 0:
            try:
                _apply(self)
            except Exception as e:
                zc.report_error("zl_shard", "cannot split the shapes of %s" % type(self).__name__, e)
        return result
    init_user_config._zl_shard_orig = orig
    return init_user_config


def _patch():
    for base in zc.benchmark_classes():
        for cls in zc.class_tree(base):
            fn = cls.__dict__.get("init_user_config")
            if fn is None or hasattr(fn, "_zl_shard_orig"):
                continue
            cls.init_user_config = _wrap(fn)
            _state["patched"].append((cls, fn))


def _write():
    path = zc.plugin_file(REPORT)
    if path is None or _state["written"]:
        return
    _state["written"] = True
    doc = {"shard": _state["shard"], "shards": _state["shards"],
           "rule": "shape j of a benchmark's final list (shape file and set_more_shapes) kept when "
                   "j %% %d == %d" % (_state["shards"], _state["shard"] - 1),
           "patched_classes": len(_state["patched"]), "benchmarks": _state["benchmarks"]}
    try:
        zc.write_json_atomic(path, doc)
    except Exception as e:
        zc.report_error("zl_shard", "cannot write %s" % path, e)


# ---------------------------------------------------------------------------
# hooks


def pytest_configure(config):
    global _state
    try:
        i, k = parse_shard(zc.env_str(ENV))
    except zc.ConfigError as e:
        raise pytest.UsageError(str(e)) from None
    _state = {"shard": i, "shards": k, "patched": [], "benchmarks": [], "current": None, "written": False}


def pytest_collection_finish(session):
    if _state is None:
        return
    try:
        _patch()
    except Exception as e:
        zc.report_error("zl_shard", "cannot hook Benchmark.init_user_config", e)


def pytest_runtest_logstart(nodeid, location):
    if _state is not None:
        _state["current"] = nodeid


def pytest_sessionfinish(session, exitstatus):
    if _state is not None:
        _write()


def pytest_unconfigure(config):
    global _state
    if _state is None:
        return
    for cls, fn in _state["patched"]:
        try:
            cls.init_user_config = fn
        except Exception:
            pass
    _state = None
