"""zl_autotune: record the winners, replay them pinned, REPLAY_MISS for unknown keys."""
import json
import os

import pytest

import zl_autotune as za
import zl_common as zc
from conftest import backend_env

ADD = "flag_gems.ops.add_kernel"     # LibEntry + LibTuner, key n with the "log" strategy
MUL = "flag_gems.ops.mul_kernel"     # triton.autotune, key n
COPY = "flag_gems.ops.copy_kernel"   # LibEntry, no tuner
NODES = ["benchmark/test_ops.py::test_add", "benchmark/test_ops.py::test_mul",
         "benchmark/test_ops.py::test_copy"]


def record_run(bench, shapes="1000,4096", **env):
    r = bench.run(NODES, backend_env("musa", BENCH_SHAPES=shapes, **env))
    assert r.rc == 0, r
    return r


def entries(result, kernel):
    doc = result.json("autotune_records", za.record_file_name(kernel))
    return doc, {e["key"]: e for e in doc["entries"]}


# --- pure logic ---------------------------------------------------------------

def test_kernel_file_names_are_safe():
    assert za.record_file_name("flag_gems.ops.mm.mm_kernel") == "flag_gems.ops.mm.mm_kernel.json"
    assert za.record_file_name("a.<locals>.k") == "a._locals_.k.json"


class Cfg:
    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None):
        self.kwargs, self.num_warps, self.num_stages = kwargs, num_warps, num_stages
        self.num_ctas, self.maxnreg, self.pre_hook = num_ctas, maxnreg, pre_hook

    def all_kwargs(self):
        return {**self.kwargs, "num_warps": self.num_warps, "num_stages": self.num_stages,
                "num_ctas": self.num_ctas}


def test_find_config_prefers_the_tuners_own_object():
    hook = object()
    own = [Cfg({"BLOCK": 64}), Cfg({"BLOCK": 128}, num_warps=8, pre_hook=hook)]
    rec = za.config_record(Cfg({"BLOCK": 128}, num_warps=8))
    cfg, inside = za.find_config(own, rec, Cfg)
    assert cfg is own[1] and inside
    cfg, inside = za.find_config(own, za.config_record(Cfg({"BLOCK": 512})), Cfg)
    assert not inside and cfg.kwargs == {"BLOCK": 512} and cfg.num_warps == 4


def test_load_records_reads_a_well_formed_record(tmp_path):
    d = tmp_path / "autotune_records"
    d.mkdir()
    (d / "m.k.json").write_text(json.dumps(record_doc()))
    assert list(za.load_records(str(tmp_path))["m.k"]) == ["[1]"]


def test_load_records_rejects_foreign_files(tmp_path):
    with pytest.raises(zc.ConfigError, match="has no autotune_records directory"):
        za.load_records(str(tmp_path))
    d = tmp_path / "autotune_records"
    d.mkdir()
    (d / "x.json").write_text('{"format": "other"}')
    with pytest.raises(zc.ConfigError, match="is not a zlbench autotune record"):
        za.load_records(str(tmp_path))
    (d / "x.json").write_text("{")
    with pytest.raises(zc.ConfigError, match="cannot read autotune record"):
        za.load_records(str(tmp_path))


def record_doc(**fields):
    doc = {"format": "zlbench-autotune-record", "version": 1, "kernel": "m.k",
           "entries": [{"key": "[1]", "config": {"kwargs": {}, "all_kwargs": {}, "num_warps": 4}}]}
    doc.update(fields)
    return doc


GOOD_CONFIG = {"kwargs": {}, "all_kwargs": {}}


@pytest.mark.parametrize("doc, field", [
    (record_doc(kernel=None), "kernel"),
    (record_doc(kernel=["m.k"]), "kernel"),
    (record_doc(entries={"[1]": {}}), "entries"),
    (record_doc(entries=["[1]"]), r"entries\[0\]"),
    (record_doc(entries=[{"config": GOOD_CONFIG}]), r"entries\[0\]\.key"),
    (record_doc(entries=[{"key": 1, "config": GOOD_CONFIG}]), r"entries\[0\]\.key"),
    (record_doc(entries=[{"key": "[1]"}]), r"entries\[0\]\.config"),
    (record_doc(entries=[{"key": "[1]", "config": {"kwargs": {}}}]),
     r"entries\[0\]\.config\.all_kwargs"),
    (record_doc(entries=[{"key": "[1]", "config": {"all_kwargs": {}, "kwargs": [1]}}]),
     r"entries\[0\]\.config\.kwargs"),
    (record_doc(entries=[{"key": "[1]", "config": dict(GOOD_CONFIG, num_warps="4")}]),
     r"entries\[0\]\.config\.num_warps"),
    (record_doc(entries=[{"key": "[1]", "config": GOOD_CONFIG}, {"key": "[2]"}]),
     r"entries\[1\]\.config"),
])
def test_load_records_names_the_file_and_field_of_a_malformed_record(tmp_path, doc, field):
    d = tmp_path / "autotune_records"
    d.mkdir()
    (d / "m.k.json").write_text(json.dumps(doc))
    with pytest.raises(zc.ConfigError, match=r"autotune record '.*m\.k\.json': %s " % field):
        za.load_records(str(tmp_path))


def test_a_malformed_record_is_a_usage_error_not_an_internal_error(bench, tmp_path):
    src = tmp_path / "src"
    (src / "autotune_records").mkdir(parents=True)
    (src / "autotune_records" / "m.k.json").write_text(json.dumps(record_doc(entries=[{}])))
    r = bench.run(NODES, backend_env("musa", ZL_AUTOTUNE_MODE="replay", ZL_REPLAY_FROM=src))
    assert r.rc == 4, r
    assert "INTERNALERROR" not in r.out + r.err
    assert "entries[0].key" in r.err


@pytest.mark.parametrize("make, why", [
    (lambda p: p.write_text("[" * 100000 + "]" * 100000),
     "it nests arrays and objects more than 100 levels deep"),
    (lambda p: p.symlink_to("/dev/zero"), "a character device, not a regular file"),
    (lambda p: os.mkfifo(str(p)), "a fifo, not a regular file"),
])
def test_a_deep_or_endless_record_is_refused_naming_file_and_limit(bench, tmp_path, make, why):
    """100k levels raised RecursionError (pytest INTERNALERROR); /dev/zero or a FIFO hung."""
    src = tmp_path / "src"
    (src / "autotune_records").mkdir(parents=True)
    make(src / "autotune_records" / "m.k.json")
    with pytest.raises(zc.ConfigError, match="cannot read autotune record '.*m\\.k\\.json': %s" % why):
        za.load_records(str(src))
    r = bench.run(NODES, backend_env("musa", ZL_AUTOTUNE_MODE="replay", ZL_REPLAY_FROM=src))
    assert r.rc == 4, r
    assert "INTERNALERROR" not in r.out + r.err
    assert why in r.err


# --- record -------------------------------------------------------------------

def test_record_writes_one_file_per_kernel_with_the_winner(bench):
    r = record_run(bench)
    doc, add = entries(r, ADD)
    assert (doc["format"], doc["version"], doc["kernel"], doc["name"]) == \
        ("zlbench-autotune-record", 1, ADD, "add_kernel")
    assert (doc["tuner"], doc["tuner_class"], doc["key_names"]) == ("libtuner", "LibTuner", ["n"])
    # LibTuner's key: the "log" strategy rounds 1000 up to 1024, then the tensor dtypes
    assert sorted(add) == ['[1024,"torch.float16","torch.float16"]',
                           '[4096,"torch.float16","torch.float16"]']
    e = add['[4096,"torch.float16","torch.float16"]']
    assert e["config"]["kwargs"] == {"BLOCK": 128}          # FAKE_BEST_BLOCK default
    assert (e["config"]["num_warps"], e["config"]["num_stages"], e["config"]["num_ctas"]) == \
        (4, 3, 1)
    assert e["source"] == "tuned" and e["tuning_time_s"] >= 0
    assert e["first_test"] == "benchmark/test_ops.py::test_add"
    assert e["key_values"] == [4096, "torch.float16", "torch.float16"]

    doc, mul = entries(r, MUL)
    assert (doc["tuner"], doc["tuner_class"]) == ("triton", "Autotuner")
    assert sorted(mul) == ['[1000,"torch.float16"]', '[4096,"torch.float16"]']

    doc, copy = entries(r, COPY)
    assert (doc["tuner"], copy) == (None, {})

    s = r.json("plugins", "autotune_summary.json")
    assert (s["mode"], s["recorded"], s["pinned"], s["missed"], s["no_tuner"]) == \
        ("record", 4, 0, 0, 1)
    assert s["kernels"] == [ADD, MUL] and s["no_tuner_kernels"] == [COPY]


GENERATED_KERNELS = """
import triton
from flag_gems.utils.libentry import libentry


@libentry()
@triton.jit
def gen_abs_kernel(x, n):
    return n * 1e-6


@triton.jit
def gen_plain_kernel(x, n):
    return n * 1e-6


@triton.jit
def gen_unused_kernel(x, n):
    return n * 1e-6


def launch(x):
    gen_abs_kernel[(1,)](x, x.numel())
    gen_plain_kernel[(1,)](x, x.numel())
"""

GENERATED_TEST = """
import importlib.util, os, sys
import torch

import flag_gems  # noqa: F401


def load(path):
    # As FlagGems' pointwise_dynamic: the generated module never enters sys.modules.
    spec = importlib.util.spec_from_file_location("_gen_module_abs_rank_1", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m.launch


OVERLOADS = {}


def test_generated_kernels():
    OVERLOADS["abs"] = load(os.path.join(os.path.dirname(__file__), "gen", "abs.py"))
    OVERLOADS["abs"](torch.empty(100))
    assert not any(n.startswith("_gen_module") for n in sys.modules)
"""


def test_kernels_of_modules_outside_sys_modules_are_found(runner):
    runner.write("gen/abs.py", GENERATED_KERNELS)
    runner.write("test_gen.py", GENERATED_TEST)
    r = runner.run(["test_gen.py"], backend_env("musa"), bench_opts=False)
    assert r.rc == 0, r
    s = r.json("plugins", "autotune_summary.json")
    # launched ones only: gen_unused_kernel never ran
    assert s["no_tuner_kernels"] == ["_gen_module_abs_rank_1.gen_abs_kernel",
                                     "_gen_module_abs_rank_1.gen_plain_kernel"]
    doc = r.json("autotune_records", "_gen_module_abs_rank_1.gen_abs_kernel.json")
    assert (doc["tuner"], doc["entries"]) == (None, [])


PRUNED_TEST = """
import torch, triton
import triton.language as tl


def first_only(configs, nargs, **kwargs):
    return configs[:1]


@triton.autotune(configs=[triton.Config({"BLOCK": b}) for b in (64, 128)], key=["n"],
                 prune_configs_by={"early_config_prune": first_only})
@triton.jit
def pruned_kernel(x, n, BLOCK: tl.constexpr):
    return n * 1e-6


def test_pruned():
    x = torch.empty(100)
    pruned_kernel[(1,)](x, 100)
"""


def test_a_tuner_pruned_to_one_config_is_not_a_disk_cache_hit(runner):
    runner.write("test_pruned.py", PRUNED_TEST)
    r = runner.run(["test_pruned.py"], backend_env("musa"), bench_opts=False)
    assert r.rc == 0, r
    doc = r.json("autotune_records", "test_pruned.pruned_kernel.json")
    [e] = doc["entries"]
    assert (e["source"], e["tuning_time_s"], e["config"]["kwargs"]) == \
        ("single_config", None, {"BLOCK": 64})


CLOSURE_TEST = """
import torch, triton
import triton.language as tl


def make(blocks):
    @triton.autotune(configs=[triton.Config({"BLOCK": b}) for b in blocks], key=["n"])
    @triton.jit
    def scaled_kernel(x, n, BLOCK: tl.constexpr):
        return n * 1e-6 * (1.0 if BLOCK in (128, 1024) else 2.0)
    return scaled_kernel


SMALL = make((64, 128))
LARGE = make((512, 1024))


def test_closures():
    x = torch.empty(100)
    SMALL[(1,)](x, 100)
    LARGE[(1,)](x, 100)
"""
CLOSURE = "test_closure.make.<locals>.scaled_kernel"


def test_two_tuners_of_one_closure_keep_their_own_records(runner):
    runner.write("test_closure.py", CLOSURE_TEST)
    first = runner.run(["test_closure.py"], backend_env("musa"), bench_opts=False)
    assert first.rc == 0, first
    picks = {}
    for kid in (CLOSURE, CLOSURE + "#2"):
        [e] = first.json("autotune_records", za.record_file_name(kid))["entries"]
        picks[kid] = e["config"]["kwargs"]["BLOCK"]
    assert picks == {CLOSURE: 128, CLOSURE + "#2": 1024}
    r = runner.run(["test_closure.py"], backend_env("musa", ZL_AUTOTUNE_MODE="replay",
                                                    ZL_REPLAY_FROM=first.run_dir),
                   bench_opts=False)
    assert r.rc == 0, r
    for kid, block in picks.items():
        [e] = r.json("autotune_records", za.record_file_name(kid))["entries"]
        assert (e["source"], e["config"]["kwargs"]["BLOCK"], e["in_config_space"]) == \
            ("replay", block, True)


def test_picks_from_flaggems_tuner_cache_are_marked(bench, tmp_path):
    db = tmp_path / "tuner.json"
    record_run(bench, FAKE_TUNER_DB=str(db))
    r = record_run(bench, FAKE_TUNER_DB=str(db))
    _, add = entries(r, ADD)
    assert {e["source"] for e in add.values()} == {"tuner_cache"}
    assert {e["tuning_time_s"] for e in add.values()} == {None}
    _, mul = entries(r, MUL)   # Triton's in-memory cache starts empty in each process
    assert {e["source"] for e in mul.values()} == {"tuned"}


# --- replay -------------------------------------------------------------------

def test_replay_pins_recorded_configs_without_tuning(bench, tmp_path):
    first = record_run(bench)
    log = tmp_path / "tune.log"
    # Now BLOCK=256 is fastest: fresh tuning would pick it; the pins must keep 128.
    r = record_run(bench, ZL_AUTOTUNE_MODE="replay", ZL_REPLAY_FROM=first.run_dir,
                   FAKE_BEST_BLOCK=256, FAKE_LOG=str(log))
    assert "tune " not in log.read_text()
    for kernel in (ADD, MUL):
        _, pinned = entries(r, kernel)
        assert len(pinned) == 2
        assert {e["config"]["kwargs"]["BLOCK"] for e in pinned.values()} == {128}
        assert {e["source"] for e in pinned.values()} == {"replay"}
        assert all(e["in_config_space"] for e in pinned.values())
    s = r.json("plugins", "autotune_summary.json")
    assert (s["mode"], s["replay_from"], s["pinned"], s["missed"]) == \
        ("replay", first.run_dir, 4, 0)
    # the pinned BLOCK=128 is now the slow one (1.5x): the timer saw it
    gems = [x for x in r.jsonl("plugins", "timer.jsonl") if x["op"] == "add" and x["side"] == "gems"]
    assert gems[-1]["median_ms"] == pytest.approx(4096 * 1e-6 * 1.5, rel=1e-6)


def test_unknown_key_fails_the_measurement_with_replay_miss(bench, tmp_path):
    first = record_run(bench, shapes="4096")
    log = tmp_path / "tune.log"
    r = bench.run(["benchmark/test_ops.py::test_mul"],
                  backend_env("musa", BENCH_SHAPES="4096,512", ZL_AUTOTUNE_MODE="replay",
                              ZL_REPLAY_FROM=first.run_dir, FAKE_LOG=str(log)))
    assert r.rc == 1, r
    line = 'REPLAY_MISS kernel=%s key=[512,"torch.float16"]' % MUL
    assert r.lines("REPLAY_MISS") == [line]
    assert "tune " not in log.read_text()          # no fresh tuning instead
    # FlagGems failed the test at that shape: no result for the op
    assert "mul" not in json.load(open(r.path("results.json")))
    s = r.json("plugins", "autotune_summary.json")
    assert (s["pinned"], s["missed"]) == (1, 1)
    assert s["missed_keys"] == [{"kernel": MUL, "key": '[512,"torch.float16"]'}]
    errors = [x for x in r.jsonl("plugins", "timer.jsonl") if x["error"]]
    assert len(errors) == 1 and errors[0]["error"] == line
    assert errors[0]["shape"] == [[512], [512]] and errors[0]["side"] == "gems"


def test_libtuner_miss_leaves_flaggems_tuner_cache_untouched(bench, tmp_path):
    first = record_run(bench, shapes="4096")
    db = tmp_path / "tuner.json"
    r = bench.run(["benchmark/test_ops.py::test_add"],
                  backend_env("musa", BENCH_SHAPES="4096,100", ZL_AUTOTUNE_MODE="replay",
                              ZL_REPLAY_FROM=first.run_dir, FAKE_TUNER_DB=str(db)))
    assert r.rc == 1, r
    assert r.lines("REPLAY_MISS") == \
        ['REPLAY_MISS kernel=%s key=[128,"torch.float16","torch.float16"]' % ADD]
    assert not db.exists()


def test_replay_miss_tune_tunes_only_what_the_source_lacks_and_once(bench, tmp_path):
    # a sweep replaying the last sweep's winners: the recorded key stays pinned (BLOCK=128,
    # though 256 is now fastest), the new key is tuned once (Triton's and FlagGems' tuner
    # alike: a LibTuner asks afresh on every call), recorded as tuned, and the run passes
    first = record_run(bench, shapes="4096")
    log = tmp_path / "tune.log"
    db = tmp_path / "tuner.json"
    r = record_run(bench, shapes="4096,512", ZL_AUTOTUNE_MODE="replay", ZL_REPLAY_FROM=first.run_dir,
                   ZL_REPLAY_MISS="tune", FAKE_BEST_BLOCK=256, FAKE_LOG=str(log), FAKE_TUNER_DB=str(db))
    assert r.lines("REPLAY_MISS") == []
    tunes = [x for x in log.read_text().splitlines() if x.startswith("tune ")]
    # two tunings (add's key 512, mul's key 512), each over the fakes' configs
    assert sorted({x.split()[1] for x in tunes}) == ["add_kernel", "mul_kernel"]
    per_kernel = {k: sum(1 for x in tunes if x.split()[1] == k) for k in ("add_kernel", "mul_kernel")}
    n_configs = len({x.split(" ", 2)[2] for x in tunes if x.split()[1] == "mul_kernel"})
    assert per_kernel == {"add_kernel": n_configs, "mul_kernel": n_configs}, tunes
    for kernel, new_key in ((ADD, '[512,"torch.float16","torch.float16"]'),
                            (MUL, '[512,"torch.float16"]')):
        _, got = entries(r, kernel)
        assert got[new_key]["source"] == "tuned" and got[new_key]["config"]["kwargs"]["BLOCK"] == 256
        [old] = [e for k, e in got.items() if k != new_key]
        assert (old["source"], old["config"]["kwargs"]["BLOCK"]) == ("replay", 128)
    s = r.json("plugins", "autotune_summary.json")
    assert (s["replay_miss"], s["pinned"], s["missed"], s["tuned_on_miss"]) == ("tune", 2, 0, 2)
    assert {k["kernel"] for k in s["tuned_on_miss_keys"]} == {ADD, MUL}
    assert not db.exists()                   # FlagGems' tuner database untouched, as in replay
    assert "lacks (replay miss: tune)" in r.err


def test_kernels_that_only_the_collector_reaches_are_found_in_a_frozen_heap():
    # a generated kernel module kept out of sys.modules (pointwise_dynamic) is found through
    # gc.get_objects(), which does not list what the timer plugin froze
    import gc

    class Kernel:
        pass

    holder = {"k": Kernel()}
    gc.collect()
    gc.freeze()
    try:
        found = [v for v in za._kernel_objects((Kernel,))]
    finally:
        gc.unfreeze()
    assert found == [holder["k"]]


def test_a_key_tuned_on_a_miss_is_pinned_from_then_on(monkeypatch):
    monkeypatch.delenv("ZL_RUN_DIR", raising=False)

    def kern():
        pass

    class Tuner:
        configs = [Cfg({"BLOCK": 64}), Cfg({"BLOCK": 128})]
        fn = kern

    t = Tuner()
    st = za._Autotune("replay", "src", {}, "tune")
    resolve = st._resolver(t, "libtuner")
    assert resolve((512,)) is None           # a miss: the tuner tunes
    st._record(t, "libtuner", (512,), t.configs[1], "tuned", 0.1)
    assert resolve((512,)) is t.configs[1]   # asked again (a new stand-in cache): pinned
    assert st.tuned_on_miss == [(st.kernel_of(t), zc.stable_key((512,)))]
    assert za._Autotune("replay", "src", {}, "fail")._resolver(t, "libtuner") is not None
    with pytest.raises(zc.ReplayMiss):
        za._Autotune("replay", "src", {}, "fail")._resolver(t, "libtuner")((512,))


def test_a_workers_next_run_meets_the_tuners_own_cache_not_the_last_runs_pins(monkeypatch):
    # a worker serves op after op in one interpreter: run 1's pins (and its resolver, which
    # records into run 1) must not answer for run 2, which pins and records on its own
    monkeypatch.delenv("ZL_RUN_DIR", raising=False)

    def kern():
        pass

    class Tuner:
        configs = [Cfg({"BLOCK": 64}), Cfg({"BLOCK": 128})]

        def __init__(self):
            self.fn = kern
            self.cache = {}

    def orig(tuner, key):
        if key not in tuner.cache:
            tuner.cache[key] = tuner.configs[0]      # "tuned"
        return tuner.cache[key]

    t = Tuner()
    own = t.cache
    kid = za.kernel_id(kern)
    rec = {zc.stable_key((1,)): za.make_entry((1,), Cfg({"BLOCK": 128}), "tuned", 0.1, None)}
    runs = []
    for _ in range(2):
        st = za._Autotune("replay", "src", {kid: dict(rec)}, "fail")
        assert st._triton_hook(orig)(t, (1,)) is t.configs[1]
        assert st.pinned == {(kid, zc.stable_key((1,)))}     # each run pins (and records) it
        assert t.cache.owner is st
        st.uninstall()
        assert t.cache is own and own == {}                  # the tuner's own cache, untouched
        runs.append(st)


def test_replay_miss_takes_fail_or_tune(bench, tmp_path):
    first = record_run(bench, shapes="4096")
    r = bench.run(NODES, backend_env("musa", ZL_AUTOTUNE_MODE="replay", ZL_REPLAY_FROM=first.run_dir,
                                     ZL_REPLAY_MISS="retune"))
    assert r.rc == 4, r
    assert "ZL_REPLAY_MISS must be one of fail, tune, not 'retune'" in r.err


def test_replay_without_a_source_run_is_a_usage_error(bench, tmp_path):
    r = bench.run(NODES, backend_env("musa", ZL_AUTOTUNE_MODE="replay"))
    assert r.rc == 4, r
    assert "ZL_AUTOTUNE_MODE=replay needs ZL_REPLAY_FROM" in r.err
    r = bench.run(NODES, backend_env("musa", ZL_AUTOTUNE_MODE="replay",
                                     ZL_REPLAY_FROM=str(tmp_path / "nowhere")))
    assert r.rc == 4, r
    assert "has no autotune_records directory" in r.err


def test_off_mode_records_nothing(bench):
    r = record_run(bench, ZL_AUTOTUNE_MODE="off")
    assert not os.path.exists(r.path("autotune_records"))
    s = r.json("plugins", "autotune_summary.json")
    assert (s["mode"], s["recorded"], s["no_tuner"]) == ("off", 0, 0)


def test_load_records_reports_a_key_with_two_configs(tmp_path):
    d = tmp_path / "autotune_records"
    d.mkdir()
    other = {"kwargs": {"BLOCK": 64}, "all_kwargs": {"BLOCK": 64}, "num_warps": 8}
    (d / "a.json").write_text(json.dumps(record_doc()))
    # the same kernel in a second file (a hand-merged copy): same key, another config; and an
    # exact repeat of the first, which is no conflict
    (d / "b.json").write_text(json.dumps(record_doc(entries=[
        {"key": "[1]", "config": other},
        {"key": "[2]", "config": GOOD_CONFIG}, {"key": "[2]", "config": GOOD_CONFIG}])))
    conflicts = []
    table = za.load_records(str(tmp_path), conflicts)
    assert table["m.k"]["[1]"]["config"] == other  # the last one read is pinned
    assert conflicts == [{"kernel": "m.k", "key": "[1]", "kept": "b.json", "dropped": "a.json"}]
    line = za.conflict_warning(conflicts)
    assert line.startswith("zl_autotune: warning: the replay source records 1 key with two different configs")
    assert "m.k key [1]: b.json over a.json" in line
    assert za.conflict_warning([]) is None
    # without a list to fill it reads as before
    assert list(za.load_records(str(tmp_path))["m.k"]) == ["[1]", "[2]"]
