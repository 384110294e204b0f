#!/bin/bash
# Every JSON document a listing command prints starts with its schema key (docs/json.md), and
# docs/json.md's section for that schema names each of its top-level keys; history's array
# stays an array, each run naming its schema. (t0676 checks ab's and calibrate's.)
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/fixtures/doctor/doctor_lib.sh"
cd "$TMP"
fg_tree fg
PY="$ZL_TEST_PYTHON"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
"$PY" "$MK" "$TMP/a" --run-id 20261129-100000-cuda-mm-aaaaaa --results "$R" || fail "make_run"
"$PY" "$MK" "$TMP/b" --run-id 20261129-110000-cuda-mm-bbbbbb --results "$R" --scale gems=1.1 || fail "make_run"

# documented CODE ARGS...: zlbench ARGS exits CODE and prints a documented document
documented() {
	local code=$1
	shift
	run_zl "$@"
	expect_rc "$code"
	schema_documented "$TMP/out"
}

documented 0 backends --json
documented 0 devices --backend cuda --json
documented 0 plan --backend cuda --json
documented 0 preflight --backend cuda --flaggems-dir fg --op mm --python "$PY" --json
documented 3 preflight --backend cuda --flaggems-dir fg --op mmm --python "$PY" --json
documented 0 doctor --backend cuda --flaggems-dir fg --op mm --python "$PY" --json
run_zl history --ingest "$TMP/a" "$TMP/b"
expect_rc 0
documented 0 history --json
[ "$(json_get "$TMP/out" 'type(d).__name__ + str(len(d)) + d[0]["schema"]')" = "list2zlbench.history-run/1" ] ||
	fail "history --json: an array of runs each naming its schema"
documented 0 compare "$TMP/a" "$TMP/b" --json
documented 1 compare "$TMP/a" "$TMP/b" --json --fail-on-regression 5
# an allowed mismatch adds its warning key: documented too
"$PY" "$MK" "$TMP/c" --run-id 20261129-120000-cuda-mm-cccccc --results "$R" --set level='"comprehensive"' ||
	fail "make_run"
documented 0 compare "$TMP/a" "$TMP/c" --json --allow-caliber-mismatch
# the exports carry the same documents
run_zl history --json-out "$TMP/h.json"
expect_rc 0
schema_documented "$TMP/h.json"
pass
