#!/bin/bash
# doctor step 4 (skips): skip/skipif marks evaluated at collection, reasons shown.
# Instance: router_gemm skips with FlagGems' "requires Cambricon or NVIDIA Hopper backend"
# when its guarded import of the other vendor's module fails.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/fixtures/doctor/doctor_lib.sh"
cd "$TMP"

# on musa the NVIDIA Hopper module is not there: the try fails, skipif holds
fg_tree fg
rm -rf fg/src/flag_gems/runtime/backend/_nvidia/hopper
GEMS_VENDOR=mthreads doctor --backend musa --flaggems-dir fg --op router_gemm
expect_failed_at skips
contains "$TMP/out" "all 1 test(s) would be skipped: router_gemm benchmark requires Cambricon or NVIDIA Hopper backend"
contains "$TMP/out" "benchmark/test_router_gemm.py::test_perf_router_gemm: skipif: router_gemm benchmark requires"
contains "$TMP/out" "benchmark/test_router_gemm.py:12 imports another vendor's package (_nvidia): from flag_gems.runtime.backend._nvidia.hopper.ops.mm import router_gemm"
contains "$TMP/out" "own implementation for 'mthreads': src/flag_gems/runtime/backend/_mthreads/ops/mm.py:5: def router_gemm("
contains "$TMP/out" "have the benchmark use \`from flag_gems.runtime.backend._mthreads.ops.mm import router_gemm\` instead"
lacks "$TMP/out" "import flag_gems.runtime.backend._mthreads.ops.mm.router_gemm"
# the instance behind the step in FlagGems' own words, not a paraphrase
grep -F "seen:" "$TMP/out" | grep -qF "router_gemm skipped its only test with FlagGems' reason \"router_gemm benchmark requires Cambricon or NVIDIA Hopper backend\"" ||
	fail "seen: is not FlagGems' real reason: $(grep -F "seen:" "$TMP/out")"

# a skipif whose condition is false skips nothing (test_mm.py skips only on tsingmicro)
fg_tree fg2
doctor --backend cuda --flaggems-dir fg2 --op mm
expect_step skips ok
# ... and true when FlagGems says tsingmicro (nothing else checks that vendor here)
GEMS_VENDOR=tsingmicro doctor --backend cuda --flaggems-dir fg2 --op mm --json
expect_rc 3
[ "$(json_get "$TMP/out" 'd["failed_step"]')" = vendor ] || fail "a tsingmicro FlagGems passed the vendor step"

# some tests skip, others run: a warning, a failure only with --strict
cat >>fg2/benchmark/test_mm.py <<'PY'


@pytest.mark.mm
@pytest.mark.skip(reason="zl: not ready on this build")
def test_mm_unready():
    pass
PY
doctor --backend cuda --flaggems-dir fg2 --op mm
expect_passed
expect_step skips WARN
contains "$TMP/out" "1 of 2 tests would be skipped"
contains "$TMP/out" "benchmark/test_mm.py::test_mm_unready: skip: zl: not ready on this build"
doctor --backend cuda --flaggems-dir fg2 --op mm --strict
expect_failed_at skips
# a pytest.skip() while the test runs: seen by running the test up to its benchmark, reason kept
fg_tree rt
cat >rt/benchmark/test_topk.py <<'PY'
import pytest

from . import base


@pytest.mark.topk
def test_topk():
    pytest.skip("topk needs 2 devices")
PY
doctor --backend cuda --flaggems-dir rt --op topk
expect_failed_at skips
contains "$TMP/out" "all 1 test(s) would be skipped: topk needs 2 devices"
contains "$TMP/out" "benchmark/test_topk.py::test_topk: pytest.skip() while it ran at benchmark/test_topk.py:8: topk needs 2 devices"
# next to a test that runs: a warning
cat >>rt/benchmark/test_topk.py <<'PY'


@pytest.mark.topk
def test_topk_small():
    bench = base.GenericBenchmark(op_name="topk", torch_op=None)
    bench.run()
PY
doctor --backend cuda --flaggems-dir rt --op topk
expect_passed
expect_step skips WARN
contains "$TMP/out" "1 of 2 tests would be skipped"

# a module that skips itself while imported: a skip with its reason, not "no test function"
fg_tree ms
cat >ms/benchmark/test_musa_only.py <<'PY'
import pytest

pytest.skip("zl: this benchmark needs the fused kernels", allow_module_level=True)


@pytest.mark.fused_zl
def test_fused_zl():
    pass
PY
doctor --backend cuda --flaggems-dir ms --op-file benchmark/test_musa_only.py
expect_failed_at skips
expect_step collect ok
contains "$TMP/out" "benchmark/test_musa_only.py skipped itself while imported: no test to collect"
contains "$TMP/out" "benchmark/test_musa_only.py skipped itself while imported, so no test is left: zl: this benchmark needs the fused kernels"
contains "$TMP/out" "benchmark/test_musa_only.py: the module skipped itself while imported at benchmark/test_musa_only.py:3: zl: this benchmark needs the fused kernels"
lacks "$TMP/out" "holds no test function"
# pytest.importorskip() of a module the interpreter lacks
cat >ms/benchmark/test_musa_only.py <<'PY'
import pytest

torch_zl = pytest.importorskip("torch_zl_missing")


@pytest.mark.fused_zl
def test_fused_zl():
    pass
PY
doctor --backend cuda --flaggems-dir ms --op-file benchmark/test_musa_only.py --json
expect_rc 3
[ "$(json_get "$TMP/out" 'd["failed_step"]')" = skips ] || fail "importorskip: failed_step $(json_get "$TMP/out" 'd["failed_step"]')"
json_get "$TMP/out" 'd["steps"][3]["summary"]' | grep -qF "could not import 'torch_zl_missing'" ||
	fail "importorskip reason lost: $(json_get "$TMP/out" 'd["steps"][3]')"
pass
