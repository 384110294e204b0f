"""zl_doctor: the pure pieces zlbench doctor relies on (where a failure or a skip was, what
the probe keeps of a report), and the collect and probe files over the doctor's fixture tree."""
import json
import os
import shutil
import subprocess
import sys
from types import SimpleNamespace as NS

import pytest

import zl_doctor as zd
from conftest import PLUGINS_DIR, SOURCE_DIR

FG_FIXTURE = os.path.join(SOURCE_DIR, "tests", "fixtures", "doctor", "fg")


# ---------------------------------------------------------------------------
# pure helpers


def test_shape_key_matches_what_zlbench_normalises():
    assert zd.shape_key((2, 384, 384, 384)) == "2,384,384,384"
    assert zd.shape_key(((640, 1536), 0, False)) == "[640,1536],0,false"
    assert zd.shape_key([1024]) == "1024"


def test_level_names_of_an_enum_and_of_a_string():
    import enum

    class BenchLevel(enum.Enum):
        CORE = "core"
        COMPREHENSIVE = "comprehensive"

    assert zd.level_names(BenchLevel.CORE) == (BenchLevel, ["core", "comprehensive"])
    assert zd.level_names("core") == (None, ["core", "comprehensive"])


def test_method_owner_is_the_class_that_defines_it():
    class Base:
        def set_shapes(self):
            pass

    class Child(Base):
        def set_more_shapes(self):
            pass

    assert zd.method_owner(Child(), "set_shapes") == "Base"
    assert zd.method_owner(Child(), "set_more_shapes") == "Child"
    assert zd.method_owner(Child(), "nothing") is None


def test_first_lines_keeps_the_last_non_blank_lines():
    assert zd.first_lines("a\n\n b \nc\nd\n", 3) == ["b", "c", "d"]
    assert zd.first_lines("", 3) == []


def test_where_is_relative_to_the_rootdir_only_inside_it():
    assert zd.where("/fg/benchmark/test_mm.py", 8, "/fg") == "benchmark/test_mm.py:8"
    assert zd.where("/elsewhere/x.py", 3, "/fg") == "/elsewhere/x.py:3"
    assert zd.where("benchmark/test_mm.py", 8, "/fg") == "benchmark/test_mm.py:8"
    assert zd.where("/fg/x.py", None, "/fg") == "x.py"
    assert zd.where(None, 3, "/fg") is None


def test_skip_of_reads_pytests_triple():
    assert zd.skip_of(("/fg/benchmark/test_x.py", 3, "Skipped: needs 2 devices"), "/fg") == \
        {"reason": "needs 2 devices", "at": "benchmark/test_x.py:3"}
    assert zd.skip_of(("/fg/t.py", 1, "Skipped: "), "/fg")["reason"] == "(no reason given)"
    # anything else: its message, no place
    assert zd.skip_of(NS(message="Skipped: odd"), "/fg") == {"reason": "odd", "at": None}


def _crash(path, lineno, message, entries=()):
    return NS(reprcrash=NS(path=path, lineno=lineno, message=message),
              reprtraceback=NS(reprentries=[NS(reprfileloc=NS(path=p, lineno=n, message="E"))
                                            for p, n in entries]))


def test_failure_of_names_the_exception_and_where_it_was_raised():
    rep = _crash("/fg/src/flag_gems/topk.py", 2, "ValueError: k out of range\nmore",
                 [("benchmark/test_topk.py", 10), ("/fg/src/flag_gems/topk.py", 2)])
    out = zd.failure_of(rep, "", "/fg")
    assert out == {"error": "ValueError: k out of range", "at": "src/flag_gems/topk.py:2",
                   "trace": ["benchmark/test_topk.py:10", "src/flag_gems/topk.py:2"]}


def test_failure_of_keeps_the_last_frames_only():
    frames = [("/fg/f%d.py" % i, i) for i in range(zd.MAX_TRACE + 3)]
    out = zd.failure_of(_crash("/fg/f.py", 1, "E: x", frames), "", "/fg")
    assert len(out["trace"]) == zd.MAX_TRACE
    assert out["trace"][-1] == "f%d.py:%d" % (zd.MAX_TRACE + 2, zd.MAX_TRACE + 2)


def test_failure_of_a_missing_fixture_and_of_bare_text():
    rep = NS(errorstring="fixture 'nope' not found\n>  available fixtures: ...", filename="/fg/t.py",
             firstlineno=5)
    assert zd.failure_of(rep, "", "/fg") == {"error": "fixture error: fixture 'nope' not found",
                                             "at": "t.py:6", "trace": []}
    text = "def test():\n>   raise KeyError(1)\nE   KeyError: 1\n\nt.py:2: KeyError\n"
    out = zd.failure_of("a string longrepr", text, "/fg")
    assert out["error"] == "KeyError: 1" and out["at"] is None
    assert zd.failure_of(None, "", None)["error"] == "(no message)"


def test_classify_keeps_errors_and_runtime_skips_only():
    assert zd.classify("failed") == "error"
    assert zd.classify("passed") is None
    assert zd.classify("skipped", "needs 2 devices") == "skip"
    # the probe's own skips and the ones a mark made (reported by the collection) are not kept
    assert zd.classify("skipped", zd.PROBE_SKIP) is None
    assert zd.classify("skipped", zd.NO_BENCHMARK_SKIP) is None
    assert zd.classify("skipped", "requires Hopper", marked=True) is None
    assert zd.classify("skipped", None, wasxfail="known bad") == "skip"
    assert zd.classify("skipped", None, wasxfail="") == "skip"


# ---------------------------------------------------------------------------
# the files, over a copy of the doctor's fixture FlagGems


@pytest.fixture
def fg(tmp_path):
    tree = tmp_path / "fg"
    shutil.copytree(FG_FIXTURE, str(tree))
    return tree


def run_doctor(tree, mode, nodes, tmp_path):
    run_dir = tmp_path / ("run-" + mode)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZL_", "GEMS_", "FLAGGEMS_", "PYTEST_"))}
    env.update({"PYTHONPATH": os.pathsep.join([PLUGINS_DIR, str(tree / "src")]), "PYTHONDONTWRITEBYTECODE": "1",
                "ZL_RUN_DIR": str(run_dir), "ZL_DOCTOR_MODE": mode})
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "zl_doctor"] + nodes
    cmd += ["--level", "core", "--mode", "kernel"]
    if mode == "collect":
        cmd.append("--collect-only")
    proc = subprocess.run(cmd, cwd=str(tree), env=env, capture_output=True, text=True, timeout=120)
    name = "doctor.json" if mode == "collect" else "doctor_probe.json"
    with open(str(run_dir / "plugins" / name), encoding="utf-8") as f:
        return json.load(f), proc


TOPK = '''import pytest

from . import base


@pytest.mark.topk
def test_topk_raises():
    raise RuntimeError("x")


@pytest.mark.topk
def test_topk_skips():
    pytest.skip("needs 2 devices")


@pytest.mark.topk
@pytest.mark.skip(reason="not ready")
def test_topk_marked():
    raise RuntimeError("never run")


@pytest.mark.topk
def test_topk_runs():
    base.GenericBenchmark(op_name="topk", torch_op=None).run()
'''


def test_probe_reports_errors_and_runtime_skips_but_not_marked_ones(fg, tmp_path):
    (fg / "benchmark" / "test_topk.py").write_text(TOPK)
    doc, proc = run_doctor(fg, "probe", ["benchmark/test_topk.py"], tmp_path)
    assert doc["patched"] > 0, proc
    errors = doc["test_errors"]
    assert [(e["nodeid"], e["when"], e["error"], e["at"]) for e in errors] == [
        ("benchmark/test_topk.py::test_topk_raises", "call", "RuntimeError: x", "benchmark/test_topk.py:8")]
    assert [(s["nodeid"], s["reason"], s["at"]) for s in doc["runtime_skips"]] == [
        ("benchmark/test_topk.py::test_topk_skips", "needs 2 devices", "benchmark/test_topk.py:13")]
    # the test that reached its benchmark: its shapes, not an error or a skip
    assert [b["nodeid"] for b in doc["benchmarks"]] == ["benchmark/test_topk.py::test_topk_runs"]
    assert doc["benchmarks"][0]["levels"]["core"]["count"] > 0


def test_collect_reports_modules_that_skip_themselves(fg, tmp_path):
    (fg / "benchmark" / "test_skipmod.py").write_text(
        'import pytest\n\npytest.skip("zl: no fused kernels", allow_module_level=True)\n\n\n'
        'def test_never():\n    pass\n')
    (fg / "benchmark" / "test_importskip.py").write_text(
        'import pytest\n\npytest.importorskip("zl_no_such_module")\n\n\ndef test_never():\n    pass\n')
    doc, proc = run_doctor(fg, "collect", ["benchmark/test_skipmod.py", "benchmark/test_importskip.py"], tmp_path)
    assert doc["items"] == [] and doc["errors"] == [], proc
    skips = {s["nodeid"]: (s["reason"], s["at"]) for s in doc["module_skips"]}
    assert skips["benchmark/test_skipmod.py"] == ("zl: no fused kernels", "benchmark/test_skipmod.py:3")
    reason, at = skips["benchmark/test_importskip.py"]
    assert "could not import 'zl_no_such_module'" in reason and at == "benchmark/test_importskip.py:3"


def test_collect_keeps_the_markexpr_the_user_gave(fg, tmp_path):
    doc, _ = run_doctor(fg, "collect", ["benchmark/test_mm.py", "-m", "mm", "-m", "slow"], tmp_path)
    assert doc["markexpr"] == "slow"
    assert doc["selected"] == [] and [i["nodeid"] for i in doc["items"]] == ["benchmark/test_mm.py::test_mm"]


def test_module_version_is_none_without_a_version():
    class Mod:
        pass

    assert zd.module_version(Mod) is None
    Mod.__version__ = "4.1.0"
    assert zd.module_version(Mod) == "4.1.0"
