#!/bin/bash
# doctor step 5 (foreign_vendor): the benchmark file imported under zl_foreign_vendor; each
# other-vendor module it loads is named, with the own vendor's implementation of the op.
# Instance: router_gemm on an MTT S5000 ran the NVIDIA Hopper kernel and died in the JIT.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/fixtures/doctor/doctor_lib.sh"
cd "$TMP"
fg_tree fg

GEMS_VENDOR=mthreads doctor --backend musa --flaggems-dir fg --op router_gemm
expect_failed_at foreign_vendor
contains "$TMP/out" "benchmark/test_router_gemm.py imports another vendor's FlagGems module: flag_gems.runtime.backend._nvidia.hopper.ops.mm (vendor nvidia)"
contains "$TMP/out" "flag_gems.runtime.backend._nvidia.hopper.ops.mm (vendor nvidia) first imported by benchmark/test_router_gemm.py"
contains "$TMP/out" "own implementation for 'mthreads': src/flag_gems/runtime/backend/_mthreads/ops/mm.py:5: def router_gemm("
contains "$TMP/out" "gate that import on flag_gems.vendor_name == 'nvidia', and use \`from flag_gems.runtime.backend._mthreads.ops.mm import router_gemm\` when vendor_name is 'mthreads'"
# the fix is Python that runs: a function is imported from its module, never as a dotted module
lacks "$TMP/out" "import flag_gems.runtime.backend._mthreads.ops.mm.router_gemm"
contains "$TMP/out" "dynamic_func() missing 4 required positional arguments"
# the instance as it was seen: the device and the module, not a paraphrase
grep -F "seen:" "$TMP/out" | grep -qF "on an MTT S5000, router_gemm imported the NVIDIA Hopper module, ran its kernel and died in the JIT" ||
	fail "seen: is not the real instance: $(grep -F "seen:" "$TMP/out")"
grep -F "seen:" "$TMP/out" | grep -qF "10 shapes, 10 kernels" || fail "seen: lacks the outcome"
# those words come from backends/ (doctor_seen.c): nothing in src/ or doctor's headers names a vendor
if grep -rnEi 'nvidia|mthreads|ascend|hopper|mtt|cambricon' "$ZL_SOURCE_DIR/src" "$ZL_SOURCE_DIR"/include/zlbench/doctor*.h; then
	fail "a vendor is named outside backends/"
fi
# the JSON carries the same
GEMS_VENDOR=mthreads doctor --backend musa --flaggems-dir fg --op router_gemm --json
[ "$(json_get "$TMP/out" 'd["failed_step"]')" = foreign_vendor ] || fail "JSON failed_step"
json_get "$TMP/out" 'd["steps"][4]["seen"]' | grep -qF "on an MTT S5000" || fail "JSON seen: $(json_get "$TMP/out" 'd["steps"][4]["seen"]')"
json_get "$TMP/out" 'd["steps"][3]["seen"]' | grep -qF "requires Cambricon or NVIDIA Hopper backend" ||
	fail "JSON seen of skips: $(json_get "$TMP/out" 'd["steps"][3]["seen"]')"
[ "$(json_get "$TMP/out" 'sum("_nvidia" in e for e in d["steps"][4]["evidence"])')" = 4 ] ||
	fail "not the four _nvidia modules: $(json_get "$TMP/out" 'd["steps"][4]["evidence"]')"

# without an own implementation the fix says so
rm fg/src/flag_gems/runtime/backend/_mthreads/ops/mm.py
GEMS_VENDOR=mthreads doctor --backend musa --flaggems-dir fg --op router_gemm
expect_failed_at foreign_vendor
contains "$TMP/out" "no def router_gemm( under src/flag_gems/runtime/backend/_mthreads/"
contains "$TMP/out" "backend musa has no router_gemm of its own"

# on cuda the same module is the own vendor's: nothing foreign
doctor --backend cuda --flaggems-dir fg --op router_gemm
expect_step foreign_vendor ok

# modules FlagGems loads while it starts are not blamed on the benchmark
GEMS_VENDOR=mthreads FIXTURE_IMPORT_ALL_VENDORS=1 doctor --backend musa --flaggems-dir fg --op mm --json
[ "$(json_get "$TMP/out" 'd["steps"][4]["status"]')" = ok ] || fail "startup imports were blamed on the benchmark"
json_get "$TMP/out" '"\n".join(d["steps"][4]["evidence"])' | grep -q "1 other-vendor module(s) loaded while FlagGems started" ||
	fail "startup imports not mentioned: $(json_get "$TMP/out" 'd["steps"][4]["evidence"]')"
pass
