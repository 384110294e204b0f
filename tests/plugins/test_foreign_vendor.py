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


def test_flag_gems_importing_every_vendor_is_seen_by_file(runner):
    # FlagGems' get_vendor_infos() imports every _<vendor> as a top-level module.
    runner.write("conftest.py", "import flag_gems\n")
    runner.write("test_a.py", "def test_a():\n    pass\n")
    r = runner.run(["test_a.py"], backend_env("musa", FAKE_IMPORT_ALL_VENDORS=1),
                   plugins=PLUGINS, bench_opts=False)
    assert r.rc == 0, r
    f = r.json("plugins", "foreign_vendor.json")
    assert f["vendors"] == ["amd", "ascend", "mthreads_ext", "nvidia"]
    assert {m["first_test"] for m in f["modules"]} == {"conftest.py"}


def test_report_is_written_even_when_the_vendor_guard_stops_the_run(bench):
    r = bench.run(["benchmark/test_ops.py"], backend_env("cuda", GEMS_VENDOR="mthreads"))
    assert r.rc == 3, r
    f = r.json("plugins", "foreign_vendor.json")
    assert f["own"] == "nvidia" and f["vendors"] == ["mthreads"]
