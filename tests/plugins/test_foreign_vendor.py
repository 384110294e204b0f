"""zl_foreign_vendor: other vendors' FlagGems packages in sys.modules are reported, never refused."""
import zl_foreign_vendor as fv
from conftest import backend_env

PLUGINS = ("zl_vendor_guard", "zl_foreign_vendor")


def test_own_segment_sources():
    assert fv.own_segment("_musa_x", "mthreads", "nvidia") == "_musa_x"
    assert fv.own_segment("mthreads", None, None) == "_mthreads"
    assert fv.own_segment(None, "mthreads", "nvidia") == "_mthreads"
    assert fv.own_segment(None, None, "nvidia") == "_nvidia"
    assert fv.own_segment(None, None, None) is None


def test_foreign_modules_compare_whole_segments():
    mods = [("flag_gems.runtime.backend._mthreads", None),
            ("flag_gems.runtime.backend._mthreads.ops", None),
            ("flag_gems.runtime.backend._mthreads_ext", None),
            ("_nvidia", "/s/flag_gems/runtime/backend/_nvidia/__init__.py"),
            ("_mthreads", "/s/flag_gems/runtime/backend/_mthreads/__init__.py"),
            ("json", "/usr/lib/python3.11/json/__init__.py")]
    out = fv.foreign_modules(mods, "_mthreads", {"_nvidia": "t/test_x.py"})
    assert out == [{"module": "_nvidia", "vendor": "nvidia", "first_test": "t/test_x.py"},
                   {"module": "flag_gems.runtime.backend._mthreads_ext",
                    "vendor": "mthreads_ext", "first_test": None}]
    rep = fv.build_report("_mthreads", out)
    assert rep["vendors"] == ["mthreads_ext", "nvidia"]
    assert fv.report_lines(rep)[0] == "FOREIGN_VENDOR_MODULE vendors=mthreads_ext,nvidia"
    assert fv.report_lines(fv.build_report("_mthreads", [])) == []


def test_report_lines_are_bounded():
    mods = [{"module": "m%d" % i, "vendor": "nvidia", "first_test": None} for i in range(25)]
    lines = fv.report_lines(fv.build_report("_mthreads", mods), limit=20)
    assert len(lines) == 22
    assert lines[-1] == "FOREIGN_VENDOR_MODULE ... 5 more in plugins/foreign_vendor.json"


def test_nvidia_package_on_musa_is_reported_with_its_test_file(runner):
    runner.write("test_a.py", "import flag_gems\n\ndef test_a():\n    pass\n")
    runner.write("test_b.py", "import flag_gems.runtime.backend._nvidia\n\n"
                              "def test_b():\n    pass\n")
    r = runner.run(["test_a.py", "test_b.py"], backend_env("musa"), plugins=PLUGINS,
                   bench_opts=False)
    assert r.rc == 0, r
    assert r.lines("FOREIGN_VENDOR_MODULE vendors=") == ["FOREIGN_VENDOR_MODULE vendors=nvidia"]
    assert ("FOREIGN_VENDOR_MODULE module=flag_gems.runtime.backend._nvidia vendor=nvidia "
            "first_test=test_b.py") in r.lines("FOREIGN_VENDOR_MODULE module=")
    f = r.json("plugins", "foreign_vendor.json")
    assert (f["own"], f["own_module"], f["vendors"]) == ("mthreads", "_mthreads", ["nvidia"])
    assert f["modules"] == [{"module": "flag_gems.runtime.backend._nvidia", "vendor": "nvidia",
                             "first_test": "test_b.py"}]


def test_mthreads_ext_on_musa_is_its_own_vendor(runner):
    # "_mthreads_ext" shares a prefix with the own "_mthreads" but is another package.
    runner.write("test_a.py", "def test_a():\n"
                              "    import flag_gems.runtime.backend._mthreads_ext\n")
    r = runner.run(["test_a.py"], backend_env("musa"), plugins=PLUGINS, bench_opts=False)
    assert r.rc == 0, r
    f = r.json("plugins", "foreign_vendor.json")
    assert f["vendors"] == ["mthreads_ext"]
    assert f["modules"] == [{"module": "flag_gems.runtime.backend._mthreads_ext",
                             "vendor": "mthreads_ext", "first_test": "test_a.py::test_a"}]


def test_only_own_modules_report_nothing(runner):
    # flag_gems on musa loads _mthreads and _mthreads.ops as top-level modules, as FlagGems does.
    runner.write("test_a.py", "import flag_gems\nimport flag_gems.runtime.backend._mthreads\n\n"
                              "def test_a():\n    import _mthreads.ops\n")
    r = runner.run(["test_a.py"], backend_env("musa"), plugins=PLUGINS, bench_opts=False)
    assert r.rc == 0, r
    assert r.lines("FOREIGN_VENDOR_MODULE") == []
    f = r.json("plugins", "foreign_vendor.json")
    assert (f["own"], f["vendors"], f["modules"]) == ("mthreads", [], [])


def test_vendor_detection_probes_are_reported_apart(runner):
    # On rocm FlagGems cannot tell the vendor quickly: get_vendor_infos() imports
    # every vendor's descriptor package as a top-level _<vendor> (and what the
    # descriptor imports, such as _ascend.utils). That is no foreign code running.
    runner.write("conftest.py", "import flag_gems\n")
    runner.write("test_a.py", "def test_a():\n    pass\n")
    r = runner.run(["test_a.py"], backend_env("rocm", FAKE_IMPORT_ALL_VENDORS=1),
                   plugins=PLUGINS, bench_opts=False)
    assert r.rc == 0, r
    assert r.lines("FOREIGN_VENDOR_MODULE") == []
    f = r.json("plugins", "foreign_vendor.json")
    assert (f["own"], f["vendors"], f["modules"]) == ("amd", [], [])
    assert f["probed_vendors"] == ["ascend", "mthreads", "mthreads_ext", "nvidia"]
    assert [m["module"] for m in f["probed_modules"]] == \
        ["_ascend", "_ascend.utils", "_mthreads", "_mthreads_ext", "_nvidia"]
    assert {m["first_test"] for m in f["probed_modules"]} == {"conftest.py"}


def test_foreign_code_after_the_probes_is_still_foreign(runner):
    # benchmark/test_router_gemm.py imports _nvidia.hopper.ops.mm on any vendor; the
    # probed top-level _nvidia stays a probe, its arch and ops modules are foreign.
    runner.write("conftest.py", "import flag_gems\n")
    runner.write("test_a.py", "from flag_gems.runtime.backend._nvidia.hopper.ops.mm import "
                              "router_gemm  # noqa: F401\n\n"
                              "def test_a():\n    import _nvidia.hopper.ops.mm  # noqa: F401\n")
    r = runner.run(["test_a.py"], backend_env("rocm", FAKE_IMPORT_ALL_VENDORS=1),
                   plugins=PLUGINS, bench_opts=False)
    assert r.rc == 0, r
    assert r.lines("FOREIGN_VENDOR_MODULE vendors=") == ["FOREIGN_VENDOR_MODULE vendors=nvidia"]
    f = r.json("plugins", "foreign_vendor.json")
    assert f["vendors"] == ["nvidia"]
    assert [(m["module"], m["first_test"]) for m in f["modules"]] == [
        ("_nvidia.hopper", "test_a.py::test_a"), ("_nvidia.hopper.ops", "test_a.py::test_a"),
        ("_nvidia.hopper.ops.mm", "test_a.py::test_a"),
        ("flag_gems.runtime.backend._nvidia", "test_a.py"),
        ("flag_gems.runtime.backend._nvidia.hopper", "test_a.py"),
        ("flag_gems.runtime.backend._nvidia.hopper.ops", "test_a.py"),
        ("flag_gems.runtime.backend._nvidia.hopper.ops.mm", "test_a.py")]
    assert "_nvidia" in [m["module"] for m in f["probed_modules"]]
    assert "nvidia" in f["probed_vendors"]


def test_a_bare_vendor_package_imported_by_a_test_is_foreign(runner):
    # Only FlagGems' vendor detection makes a probe; the same package imported
    # by the benchmark's own code is reported.
    # flag_gems has put its backend directory on sys.path, as FlagGems does.
    runner.write("test_a.py", "import flag_gems  # noqa: F401\n\n"
                              "def test_a():\n    import _nvidia  # noqa: F401\n")
    r = runner.run(["test_a.py"], backend_env("musa"), plugins=PLUGINS, bench_opts=False)
    assert r.rc == 0, r
    f = r.json("plugins", "foreign_vendor.json")
    assert (f["vendors"], f["probed_vendors"], f["probed_modules"]) == (["nvidia"], [], [])


def test_report_is_written_even_when_the_vendor_guard_stops_the_run(bench):
    r = bench.run(["benchmark/test_ops.py"], backend_env("cuda", GEMS_VENDOR="mthreads"))
    assert r.rc == 3, r
    f = r.json("plugins", "foreign_vendor.json")
    assert f["own"] == "nvidia" and f["vendors"] == ["mthreads"]
