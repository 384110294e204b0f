#!/bin/bash
# doctor step 3 (collect): the op resolves to nodes and pytest collects tests from them.
# Instances: a misspelt op (near names suggested), a marker or -k that removes every test,
# a benchmark file that fails to import, a pytest command line refused.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/fixtures/doctor/doctor_lib.sh"
cd "$TMP"
fg_tree fg

# a misspelt operator: nothing resolves; the near name is the fix
doctor --backend cuda --flaggems-dir fg --op mmm
expect_failed_at collect
contains "$TMP/out" "no benchmark for operator 'mmm'"
contains "$TMP/out" "near name: mm"
contains "$TMP/out" "did you mean --op mm?"

# -m removes everything: the file's tests carry another marker
doctor --backend cuda --flaggems-dir fg --op-file benchmark/test_mm.py --op addmm
expect_failed_at collect
contains "$TMP/out" "-m addmm removed all 1 tests: none carries @pytest.mark.addmm"
contains "$TMP/out" "markers on those tests: mm"
contains "$TMP/out" "collected before the filters: benchmark/test_mm.py::test_mm"
contains "$TMP/out" "use --op mm"

# the user's -k removes them
doctor --backend cuda --flaggems-dir fg --op mm -- -k nomatch
expect_failed_at collect
contains "$TMP/out" "-k 'nomatch' removed the 1 test(s) marked mm"
contains "$TMP/out" "drop -k 'nomatch'"

# a benchmark file that cannot be imported
fg_tree badimport
printf 'import nosuchmodule_zl\n' >>badimport/benchmark/test_mm.py
doctor --backend cuda --flaggems-dir badimport --op mm
expect_failed_at collect
contains "$TMP/out" "collecting benchmark/test_mm.py failed: ModuleNotFoundError: No module named 'nosuchmodule_zl'"

# pytest refuses its command line (exit 4)
doctor --backend cuda --flaggems-dir fg --op mm -- --no-such-pytest-option-zl
expect_failed_at collect
contains "$TMP/out" "pytest refused to collect (exit 4)"
contains "$TMP/out" "--no-such-pytest-option-zl"

# a misspelt op: near names also by part of the name, ranked, few
doctor --backend cuda --flaggems-dir fg --op router
expect_failed_at collect
contains "$TMP/out" "near name: router_gemm"
contains "$TMP/out" "did you mean --op router_gemm?"
doctor --backend cuda --flaggems-dir fg --op gemm --json
[ "$(json_get "$TMP/out" '[e for e in d["steps"][2]["evidence"] if e.startswith("near name")][:2]')" = \
  "['near name: router_gemm', 'near name: mm']" ] || fail "near names of gemm: $(json_get "$TMP/out" 'd["steps"][2]["evidence"]')"
[ "$(json_get "$TMP/out" 'sum(e.startswith("near name") for e in d["steps"][2]["evidence"])')" -le 5 ] || fail "too many near names"

# a misspelt test node: pytest's "ERROR: not found" (exit 4), not "no test function"
doctor --backend cuda --flaggems-dir fg --test-node benchmark/test_mm.py::test_nope
expect_failed_at collect
contains "$TMP/out" "pytest found no 'test_nope' in benchmark/test_mm.py (\"ERROR: not found\", exit 4)"
contains "$TMP/out" "test functions in benchmark/test_mm.py: test_mm"
lacks "$TMP/out" "holds no test function"
doctor --backend cuda --flaggems-dir fg --test-node benchmark/test_mm.py::test_mn
expect_failed_at collect
contains "$TMP/out" "near name: test_mm"
contains "$TMP/out" "did you mean --test-node benchmark/test_mm.py::test_mm?"

# the user's -m after -- replaces the op's: that -m is named, not "--deselect or a conftest hook"
doctor --backend cuda --flaggems-dir fg --op mm -- -m slow
expect_failed_at collect
contains "$TMP/out" "-m 'slow' (given after --) removed all 1 test(s): pytest keeps only the last -m, so it replaced -m mm"
contains "$TMP/out" "drop -m 'slow' after --"
lacks "$TMP/out" "deselect"

# a test that raises before its benchmark starts: collect-only passes, a run fails; doctor fails
# at collect with the exception and where it was raised
fg_tree raising
cat >raising/benchmark/test_topk.py <<'PY'
import pytest

from . import base


@pytest.mark.topk
def test_topk():
    raise RuntimeError("x")
PY
doctor --backend cuda --flaggems-dir raising --op topk
expect_failed_at collect
contains "$TMP/out" "benchmark/test_topk.py::test_topk raised RuntimeError: x at benchmark/test_topk.py:8 before its benchmark started"
contains "$TMP/out" "fix what raises at benchmark/test_topk.py:8"
lacks "$TMP/out" "add a 'topk:' entry"
doctor --backend cuda --flaggems-dir raising --op topk --json
[ "$(json_get "$TMP/out" 'd["failed_step"]')" = collect ] || fail "JSON failed_step of a raising test"
json_get "$TMP/out" 'd["steps"][2]["evidence"][0]' | grep -qF "benchmark/test_topk.py::test_topk (call): RuntimeError: x at benchmark/test_topk.py:8" ||
	fail "evidence: $(json_get "$TMP/out" 'd["steps"][2]["evidence"]')"

# ... raised deep in FlagGems: where it was raised, and the way there from the test
cat >raising/src/flag_gems/topk.py <<'PY'
def topk(x):
    raise ValueError("k out of range")
PY
cat >raising/benchmark/test_topk.py <<'PY'
import pytest

import flag_gems.topk

from . import base


@pytest.mark.topk
def test_topk():
    flag_gems.topk.topk(1)
PY
doctor --backend cuda --flaggems-dir raising --op topk
expect_failed_at collect
contains "$TMP/out" "raised ValueError: k out of range at src/flag_gems/topk.py:2"
contains "$TMP/out" "traceback of the first: benchmark/test_topk.py:10 -> src/flag_gems/topk.py:2"

# ... in its set-up: a fixture that does not exist
cat >raising/benchmark/test_topk.py <<'PY'
import pytest

from . import base


@pytest.mark.topk
def test_topk(no_such_fixture_zl):
    pass
PY
doctor --backend cuda --flaggems-dir raising --op topk
expect_failed_at collect
contains "$TMP/out" "the set-up of benchmark/test_topk.py::test_topk raised fixture error: fixture 'no_such_fixture_zl' not found at benchmark/test_topk.py:6"

# ... crashes the interpreter: the signal, and where Python was (faulthandler)
cat >raising/benchmark/test_topk.py <<'PY'
import os
import signal

import pytest

from . import base


@pytest.mark.topk
def test_topk():
    os.kill(os.getpid(), signal.SIGSEGV)
PY
doctor --backend cuda --flaggems-dir raising --op topk
expect_failed_at collect
contains "$TMP/out" "pytest was killed by signal 11 (Segmentation fault) while running benchmark/test_topk.py up to its benchmark"
contains "$TMP/out" "Fatal Python error: Segmentation fault"
contains "$TMP/out" "benchmark/test_topk.py\", line 11 in test_topk"

# ... hangs: a timeout, named as one
cat >raising/benchmark/test_topk.py <<'PY'
import time

import pytest

from . import base


@pytest.mark.topk
def test_topk():
    time.sleep(60)
PY
doctor --backend cuda --flaggems-dir raising --op topk --step-timeout 4
expect_failed_at collect
contains "$TMP/out" "running the 1 test(s) up to their benchmark (nothing measured) did not finish within 4 s"
lacks "$TMP/out" "saw no benchmark"

# a file that loads no FlagGems Benchmark: its test bodies are not run, and doctor says so
cat >raising/benchmark/test_topk.py <<'PY'
import pytest


@pytest.mark.topk
def test_topk():
    raise RuntimeError("x")
PY
doctor --backend cuda --flaggems-dir raising --op topk
expect_step collect WARN
contains "$TMP/out" "their bodies were not run: no FlagGems Benchmark class"
doctor --backend cuda --flaggems-dir raising --op topk --strict
expect_failed_at collect

# the good case lists what was collected
doctor --backend cuda --flaggems-dir fg --op mm --json
[ "$(json_get "$TMP/out" 'd["steps"][2]["status"]')" = ok ] || fail "collect not ok"
[ "$(json_get "$TMP/out" 'd["steps"][2]["evidence"]')" = \
  "['benchmark/test_mm.py::test_mm', 'the test(s) ran up to their benchmark without an error (nothing measured)']" ] ||
	fail "collect evidence: $(json_get "$TMP/out" 'd["steps"][2]["evidence"]')"
# a diagnosis leaves nothing in the checkout
[ -z "$(find fg -name __pycache__ -o -name .pytest_cache)" ] || fail "doctor left caches in the checkout"
pass
