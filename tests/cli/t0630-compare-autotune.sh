#!/bin/bash
# zlbench compare: "B replays A's records" is named the proper A/B; record vs record on a
# shared tuner cache where B found winners already stored is flagged as cache inheritance;
# A/B variables are listed; A and B may be run ids from the history.
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" || fail "make_run.py $*"; }
A=20261129-100000-cuda-mm-aaaaaa

mk "$TMP/runs/$A" --run-id $A --results "$R"
mk "$TMP/runs/replay" --run-id 20261129-110000-cuda-mm-bbbbbb --results "$R" \
	--set started_at='"2026-11-29T11:00:00Z"' --set autotune.mode='"replay"' \
	--set autotune.replay_from="\"$TMP/runs/$A\"" --set tuner_cache.winners_before=12 \
	--set flaggems.commit='"abcd1234"' --set env.TRITON_ALWAYS_COMPILE='"1"'
mk "$TMP/runs/inherit" --run-id 20261129-120000-cuda-mm-cccccc --results "$R" \
	--set started_at='"2026-11-29T12:00:00Z"' --set tuner_cache.winners_before=33 \
	--set compile.variants=33
mk "$TMP/runs/isolated-a" --run-id 20261129-130000-cuda-mm-dddddd --results "$R" \
	--set tuner_cache.mode='"isolated"'
mk "$TMP/runs/isolated-b" --run-id 20261129-140000-cuda-mm-eeeeee --results "$R" \
	--set tuner_cache.mode='"isolated"' --set tuner_cache.winners_before=0

run_zl compare "$TMP/runs/$A" "$TMP/runs/replay"
expect_rc 0
contains "$TMP/out" "autotune: proper A/B: B replays A's autotune records"
lacks "$TMP/out" "cache inheritance"
contains "$TMP/out" "flaggems commit: ed2508bc -> abcd1234"
contains "$TMP/out" "env TRITON_ALWAYS_COMPILE: (unset) -> 1"
run_zl compare "$TMP/runs/$A" "$TMP/runs/replay" --json
[ "$(json_get "$TMP/out" 'd["caliber"]["autotune_proper"]')" = True ] || fail "json: autotune_proper"
[ "$(json_get "$TMP/out" 'd["caliber"]["flags"]')" = "[]" ] || fail "json: no flags for a replay"

# the "945 variants -> 33" trap: B inherited A's winners from the shared cache
run_zl compare "$TMP/runs/$A" "$TMP/runs/inherit"
expect_rc 0
contains "$TMP/out" "cache inheritance: B started with 33 tuner winners already in the shared tuner cache"
contains "$TMP/out" "compiled variants: 489 -> 33"
contains "$TMP/out" "record vs record"
run_zl compare "$TMP/runs/$A" "$TMP/runs/inherit" --json
[ "$(json_get "$TMP/out" 'd["caliber"]["cache_inheritance"]')" = True ] || fail "json: cache_inheritance"
[ "$(json_get "$TMP/out" 'd["caliber"]["autotune_proper"]')" = False ] || fail "json: not proper"
run_zl compare "$TMP/runs/$A" "$TMP/runs/inherit" --markdown
contains "$TMP/out" "cache inheritance"

# isolated caches: record vs record is flagged, but nothing was inherited
run_zl compare "$TMP/runs/isolated-a" "$TMP/runs/isolated-b" --json
[ "$(json_get "$TMP/out" 'd["caliber"]["cache_inheritance"]')" = False ] || fail "isolated: no inheritance"
[ "$(json_get "$TMP/out" 'len(d["caliber"]["flags"])')" = 1 ] || fail "isolated: record vs record flag"

# run ids (and a unique prefix) from the history database
run_zl history --ingest "$TMP/runs/$A" "$TMP/runs/replay"
expect_rc 0
run_zl compare $A 20261129-110000 --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["b"]["run_id"]')" = 20261129-110000-cuda-mm-bbbbbb ] || fail "prefix lookup"
[ "$(json_get "$TMP/out" 'd["caliber"]["autotune_proper"]')" = True ] || fail "replay via history ids"
run_zl compare $A 20261129-999999-cuda-mm-ffffff
expect_rc 2
contains "$TMP/err" "no run '20261129-999999-cuda-mm-ffffff'"
run_zl compare $A 20261129-1
expect_rc 2
contains "$TMP/err" "ambiguous"
pass
