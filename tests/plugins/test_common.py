"""zl_common: statistics, stable keys, vendor segments, atomic writes."""
import os
import subprocess
import sys

import pytest

import zl_common as zc
from conftest import FAKES_DIR, PLUGINS_DIR


def test_quantiles_interpolate_linearly():
    s = [1.0, 2.0, 3.0, 4.0]
    assert zc.quantile(s, 0.0) == 1.0
    assert zc.quantile(s, 1.0) == 4.0
    assert zc.quantile(s, 0.5) == 2.5
    assert zc.quantile(s, 0.25) == pytest.approx(1.75)
    assert zc.quantile(s, 0.75) == pytest.approx(3.25)
    with pytest.raises(ValueError):
        zc.quantile([], 0.5)
    with pytest.raises(ValueError):
        zc.quantile(s, 1.5)


def test_summarize_reports_median_extremes_and_iqr():
    out = zc.summarize([4.0, 1.0, 3.0, 2.0, 10.0])
    assert out["n_samples"] == 5
    assert out["median_ms"] == 3.0
    assert out["min_ms"] == 1.0 and out["max_ms"] == 10.0
    assert out["q1_ms"] == 2.0 and out["q3_ms"] == 4.0
    assert out["iqr_ms"] == 2.0
    empty = zc.summarize([])
    assert empty["n_samples"] == 0 and empty["median_ms"] is None


def test_canonical_keeps_types_apart_and_drops_addresses():
    class Thing:
        pass
    a, b = Thing(), Thing()
    assert zc.stable_key((1, 1.0, True, None, "x")) == '[1,1.0,true,null,"x"]'
    assert zc.stable_key(a) == zc.stable_key(b)      # default reprs differ only by address
    assert " at 0x" not in zc.stable_key(a)
    assert zc.stable_key((1,)) != zc.stable_key((1.0,))
    assert zc.stable_key({"b": 1, "a": 2}) == zc.stable_key({"a": 2, "b": 1})
    assert zc.stable_key(float("nan")) == zc.stable_key(float("nan"))


def test_torch_dtypes_serialise_as_their_name():
    sys.path.insert(0, FAKES_DIR)
    try:
        import torch
    finally:
        sys.path.remove(FAKES_DIR)
    assert zc.canonical(torch.float16) == "torch.float16"
    assert zc.jsonable([torch.Size((2, 3)), torch.bfloat16]) == [[2, 3], "torch.bfloat16"]


def _key_in_fresh_process():
    code = ("import sys; sys.path[:0] = [%r, %r]; import torch, zl_common as zc;"
            "print(zc.stable_key((4096, 2.5, 'align', torch.float16, object(), ('x', None))))"
            % (PLUGINS_DIR, FAKES_DIR))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env={"PYTHONHASHSEED": "random", "PATH": os.environ["PATH"]}
                          ).stdout


def test_stable_key_is_equal_across_processes():
    first, second = _key_in_fresh_process(), _key_in_fresh_process()
    assert first == second
    assert '"torch.float16"' in first


@pytest.mark.parametrize("name,path,segment", [
    ("flag_gems.runtime.backend._nvidia", None, "_nvidia"),
    ("flag_gems.runtime.backend._mthreads_ext.ops.mm", None, "_mthreads_ext"),
    ("flag_gems.runtime.backend.backend_utils", None, None),
    ("flag_gems.runtime.backend.__init__", None, None),
    ("flag_gems.runtime.backend", None, None),
    ("flag_gems.ops.mm", "/x/flag_gems/ops/mm.py", None),
    ("_nvidia", "/x/src/flag_gems/runtime/backend/_nvidia/__init__.py", "_nvidia"),
    ("hopper.ops", "/x/src/flag_gems/runtime/backend/_nvidia/hopper/ops.py", "_nvidia"),
    ("_io", None, None),
    ("_collections_abc", "/usr/lib/python3.11/_collections_abc.py", None),
])
def test_vendor_segment(name, path, segment):
    assert zc.vendor_segment(name, path) == segment


def test_foreign_is_whole_segment_not_prefix():
    assert zc.is_foreign("_mthreads_ext", "_mthreads")
    assert zc.is_foreign("_mthreads", "_mthreads_ext")
    assert not zc.is_foreign("_mthreads", "_mthreads")
    assert not zc.is_foreign(None, "_mthreads")
    assert zc.vendor_of_segment("_mthreads_ext") == "mthreads_ext"


def test_write_atomic_replaces_and_leaves_no_temporaries(tmp_path):
    target = tmp_path / "sub" / "f.json"
    zc.write_json_atomic(str(target), {"a": [1, 2], "b": float("inf")})
    zc.write_json_atomic(str(target), {"a": 3})
    assert target.read_text() == '{\n  "a": 3\n}\n'
    assert os.listdir(target.parent) == ["f.json"]


def test_env_parsing_rejects_bad_values(monkeypatch):
    monkeypatch.setenv("ZL_DIRECT_REPEAT", "0")
    with pytest.raises(zc.ConfigError, match="ZL_DIRECT_REPEAT must be >= 1"):
        zc.env_int("ZL_DIRECT_REPEAT", 1, 1)
    monkeypatch.setenv("ZL_DIRECT_REPEAT", "three")
    with pytest.raises(zc.ConfigError, match="must be an integer"):
        zc.env_int("ZL_DIRECT_REPEAT", 1, 1)
    monkeypatch.setenv("ZL_DIRECT_REPEAT", "3")
    assert zc.env_int("ZL_DIRECT_REPEAT", 1, 1) == 3


def test_json_depth_counts_arrays_and_objects_outside_strings():
    assert zc.json_depth('{"a": [1, {"b": []}]}') == 4
    assert zc.json_depth('"[[[[", "\\"[[", []') == 1
    assert zc.json_depth("1") == 0
    assert zc.json_depth("[" * 5000 + "]" * 5000) == 5000


def test_read_json_takes_regular_files_under_the_caps(tmp_path):
    good = tmp_path / "good.json"
    good.write_text('{"a": [1]}')
    assert zc.read_json(str(good), "record") == {"a": [1]}
    link = tmp_path / "link.json"
    link.symlink_to(good)
    assert zc.read_json(str(link), "record") == {"a": [1]}

    fifo = tmp_path / "fifo.json"
    os.mkfifo(str(fifo))  # no writer: a blocking open or read would hang here
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    for path, why in ((fifo, "a fifo, not a regular file"),
                      (zero, "a character device, not a regular file"),
                      (tmp_path, "a directory, not a regular file"),
                      (tmp_path / "missing.json", "No such file")):
        with pytest.raises(zc.ConfigError, match="cannot read record '%s': %s" % (path, why)):
            zc.read_json(str(path), "record")

    big = tmp_path / "big.json"
    big.write_text("[" + "1," * (1 << 20) + "1]")
    with pytest.raises(zc.ConfigError, match=r"big\.json': \d+ bytes, over the 1 MiB limit"):
        zc.read_json(str(big), "record", cap=1 << 20)

    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100000 + "]" * 100000)
    with pytest.raises(zc.ConfigError,
                       match=r"deep\.json': it nests arrays and objects more than 100 levels deep"):
        zc.read_json(str(deep), "record")
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(zc.ConfigError, match="not UTF-8"):
        zc.read_json(str(bad), "record")
