#!/bin/bash
# doctor step 6 (tuner_cache): a shared FlagGems tuner cache that already holds winners for
# the op's kernels. Instance: an A/B side inherited them: 10 variants compiled instead of
# 234, 17 s instead of 52 s. Real libtuner databases from an H200 run (tests/fixtures).
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/fixtures/doctor/doctor_lib.sh"
cd "$TMP"
fg_tree fg
DBS="$ZL_FIXTURES_DIR/flaggems-runs/tuner-db"
CONFIG="$FLAGGEMS_CACHE_DIR/config_cache"

# an empty cache: nothing inherited
doctor --backend cuda --flaggems-dir fg --op mm
expect_passed
expect_step tuner_cache ok

# the mm run's database: 12 winners of mm_kernel_general_host_tma (its benchmark table is not winners)
mkdir -p "$CONFIG"
cp "$DBS/mm_TunedConfig_nvidia_triton_3_6.db" "$CONFIG/TunedConfig_nvidia_triton_3_6.db"
doctor --backend cuda --flaggems-dir fg --op mm
expect_passed
expect_step tuner_cache WARN
contains "$TMP/out" "the shared tuner cache already holds 12 winner(s) for mm's kernels"
contains "$TMP/out" "$CONFIG/TunedConfig_nvidia_triton_3_6.db: mm_kernel_general_host_tma: 12 winner(s)"
contains "$TMP/out" "--isolate-tuner-cache"
contains "$TMP/out" "10 variants compiled instead of 234, 17 s instead of 52 s"
# --strict makes it a failure, --isolate-tuner-cache makes it moot
doctor --backend cuda --flaggems-dir fg --op mm --strict
expect_failed_at tuner_cache
doctor --backend cuda --flaggems-dir fg --op mm --isolate-tuner-cache
expect_step tuner_cache ok
contains "$TMP/out" "isolated"
# winners of mm's kernels are not add's
doctor --backend cuda --flaggems-dir fg --op add
expect_step tuner_cache ok
contains "$TMP/out" "no winners for add's kernels"
# another vendor's database is not read on this backend
mv "$CONFIG/TunedConfig_nvidia_triton_3_6.db" "$CONFIG/TunedConfig_mthreads_triton_3_6.db"
doctor --backend cuda --flaggems-dir fg --op mm
expect_step tuner_cache ok

# router_gemm's kernels carry mm's names: found through the file that defines router_gemm
# (the fixture's Hopper mm.py defines mm_kernel_splitk, not mm_kernel_general_host_tma)
rm -f "$CONFIG"/*.db
cp "$DBS/router_gemm_TunedConfig_nvidia_triton_3_6.db" "$CONFIG/TunedConfig_nvidia_triton_3_6.db"
doctor --backend cuda --flaggems-dir fg --op router_gemm --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["steps"][5]["status"]')" = warn ] || fail "router_gemm's winners not seen"
json_get "$TMP/out" 'd["steps"][5]["summary"]' | grep -q "holds 8 winner(s) for router_gemm's kernels" ||
	fail "summary: $(json_get "$TMP/out" 'd["steps"][5]["summary"]')"
json_get "$TMP/out" '"\n".join(d["steps"][5]["evidence"])' | grep -q ": mm_kernel_splitk: 8 winner(s)" ||
	fail "evidence: $(json_get "$TMP/out" 'd["steps"][5]["evidence"]')"
pass
