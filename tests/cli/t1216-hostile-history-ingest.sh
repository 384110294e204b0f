#!/bin/bash
# history --ingest of a run whose run_id is already stored from another directory: when that
# directory still holds the run, this is a copy (or a crafted run reusing the id) and the
# stored rows are kept: refused, the error naming both directories. When it no longer does,
# the run moved: its rows follow it, and a warning says so. The same directory again: updated.
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
cd "$TMP"
ID=20261129-100000-cuda-mm-aaaaaa
stored() { run_zl history --json; json_get "$TMP/out" '[(r["run_dir"], round(r["speedup_geomean"], 4)) for r in d]'; }

"$ZL_TEST_PYTHON" "$MK" a --run-id $ID --results "$R" >/dev/null || fail "make_run a"
"$ZL_TEST_PYTHON" "$MK" b --run-id $ID --results "$R" --scale gems=2 >/dev/null || fail "make_run b"
run_zl history --ingest a
expect_rc 0
before=$(stored)
case "$before" in "[('$TMP/a', "*) ;; *) fail "stored: $before" ;; esac

# another directory, same run_id, the first still there: refused, nothing replaced
run_zl history --ingest b
[ "$RC" -ne 0 ] || fail "a second directory with a stored run_id replaced its rows"
contains "$TMP/err" "run '$ID' is stored in"
contains "$TMP/err" "from '$TMP/a', and '$TMP/b' holds a run with the same run_id"
[ "$(stored)" = "$before" ] || fail "the stored rows changed: $(stored)"

# the same directory again: updated, no complaint
run_zl history --ingest a
expect_rc 0
lacks "$TMP/err" "same run_id"

# the run moved: its rows follow it
mv a moved
run_zl history --ingest moved
expect_rc 0
contains "$TMP/err" "run '$ID' was stored from '$TMP/a', which no longer holds it: its rows now come from '$TMP/moved'"
case "$(stored)" in "[('$TMP/moved', "*) ;; *) fail "stored after the move: $(stored)" ;; esac
pass
