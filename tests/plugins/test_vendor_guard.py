"""zl_vendor_guard: a vendor mismatch stops the session before any benchmark runs."""
import os

import zl_vendor_guard
from conftest import FAKES_DIR, backend_env

MARKER_TEST = """
import os

def test_benchmark():
    open(os.environ["MARKER"], "w").write("ran")
"""


def test_compare_and_line():
    assert zl_vendor_guard.compare("mthreads", "nvidia") is False
    assert zl_vendor_guard.compare("nvidia", "nvidia") is True
    assert zl_vendor_guard.compare(None, "nvidia") is None
    assert zl_vendor_guard.compare("nvidia", None) is None
    assert zl_vendor_guard.mismatch_line("mthreads", "nvidia") == \
        "VENDOR_MISMATCH expected=mthreads detected=nvidia"


def test_mismatch_stops_before_any_benchmark(bench, tmp_path):
    marker = tmp_path / "ran"
    r = bench.run(["benchmark/test_ops.py"],
                  backend_env("musa", GEMS_VENDOR="nvidia", MARKER=str(marker)))
    assert r.rc == 3, r
    assert r.lines("VENDOR_MISMATCH") == ["VENDOR_MISMATCH expected=mthreads detected=nvidia"]
    v = r.json("plugins", "vendor.json")
    assert (v["expected"], v["detected"], v["match"]) == ("mthreads", "nvidia", False)
    assert v["vendor_env"] == {"GEMS_VENDOR": "nvidia"}
    assert v["checked_at"] == "configure"      # FlagGems' conftest imports flag_gems
    # nothing was collected or measured
    assert "collected" not in r.out
    assert not os.path.exists(r.path("results.json"))
    assert r.jsonl("plugins", "timer.jsonl") == []
    assert r.json("plugins", "timer_summary.json")["measurements"] == 0
    # the other plugins still left their files; FlagGems' own vendor package is foreign here
    f = r.json("plugins", "foreign_vendor.json")
    assert (f["own"], f["vendors"]) == ("mthreads", ["nvidia"])
    assert r.json("plugins", "autotune_summary.json")["recorded"] == 0


def test_mismatch_found_at_collection_when_tests_import_flag_gems(runner, tmp_path):
    marker = tmp_path / "ran"
    runner.write("test_a.py", "import flag_gems\n" + MARKER_TEST)
    r = runner.run(["test_a.py"], backend_env("cuda", GEMS_VENDOR="ascend", MARKER=str(marker)),
                   bench_opts=False)
    assert r.rc == 3, r
    assert r.lines("VENDOR_MISMATCH") == ["VENDOR_MISMATCH expected=nvidia detected=ascend"]
    assert r.json("plugins", "vendor.json")["checked_at"] == "collection"
    assert not marker.exists()


def test_guard_imports_flag_gems_when_nothing_else_did(runner, tmp_path):
    marker = tmp_path / "ran"
    runner.write("test_a.py", MARKER_TEST)
    r = runner.run(["test_a.py"], backend_env("cuda", GEMS_VENDOR="mthreads", MARKER=str(marker)),
                   bench_opts=False)
    assert r.rc == 3, r
    assert not marker.exists()


def test_match_records_what_was_imported(bench):
    r = bench.run(["benchmark/test_ops.py::test_add"], backend_env("cuda", BENCH_SHAPES="64"))
    assert r.rc == 0, r
    assert r.lines("VENDOR_MISMATCH") == []
    v = r.json("plugins", "vendor.json")
    assert (v["expected"], v["detected"], v["match"]) == ("nvidia", "nvidia", True)
    assert v["flag_gems_file"] == os.path.join(FAKES_DIR, "flag_gems", "__init__.py")
    assert v["torch_version"] == "2.99.0+fake"
    assert v["triton_version"] == "3.6.0+fake"
    assert v["device_name"] == "Fake Accelerator"
    assert v["capability"] == [9, 0]


def test_without_torch_versions_and_device_are_null(runner, tmp_path):
    runner.write("test_a.py", "import flag_gems\n" + MARKER_TEST)
    r = runner.run(["test_a.py"], backend_env("cuda", FAKE_NO_TORCH=1,
                                              MARKER=str(tmp_path / "ran")),
                   plugins=("zl_vendor_guard",), bench_opts=False)
    assert r.rc == 0, r
    v = r.json("plugins", "vendor.json")
    assert v["match"] is True
    assert (v["torch_version"], v["device_name"], v["capability"]) == (None, None, None)


def test_without_expected_vendor_nothing_is_refused(runner, tmp_path):
    runner.write("test_a.py", "import flag_gems\n" + MARKER_TEST)
    env = backend_env("musa", GEMS_VENDOR="nvidia", MARKER=str(tmp_path / "ran"))
    env.pop("ZL_EXPECTED_VENDOR")
    r = runner.run(["test_a.py"], env, plugins=("zl_vendor_guard",), bench_opts=False)
    assert r.rc == 0, r
    v = r.json("plugins", "vendor.json")
    assert (v["expected"], v["detected"], v["match"]) == (None, "nvidia", None)
    assert (tmp_path / "ran").exists()
