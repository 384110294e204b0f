#!/bin/bash
# ZL_HISTORY_DB is the history database of every command that opens it: `zlbench run` stores
# its run there (run has no --db), history lists and compare finds runs there, and --db
# overrides it.
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
DEMO="$ZL_SOURCE_DIR/examples/demo"
export ZL_HISTORY_DB="$TMP/elsewhere/runs.db"
mkdir -p "$TMP/elsewhere"
cd "$TMP"

# run: the finished run goes to ZL_HISTORY_DB, and nothing to $ZL_HOME/history.db
FLAGGEMS_VENDOR=nvidia run_zl run --backend cuda --flaggems-dir "$DEMO" --op softmax \
	--python "$ZL_TEST_PYTHON" --out r1
expect_rc 0
[ -f "$ZL_HISTORY_DB" ] || fail "run did not create \$ZL_HISTORY_DB"
[ ! -e "$ZL_HOME/history.db" ] || fail "run wrote \$ZL_HOME/history.db despite ZL_HISTORY_DB"
RID=$(json_get r1/run_identity.json 'd["run_id"]')
run_zl history --json
expect_rc 0
[ "$(json_get "$TMP/out" '[r["run_id"] for r in d]')" = "['$RID']" ] || fail "history lists the run"

# ingest and compare by run id through the variable
"$ZL_TEST_PYTHON" "$MK" "$TMP/a" --run-id 20261129-100000-cuda-mm-aaaaaa --results "$R" || fail mk
"$ZL_TEST_PYTHON" "$MK" "$TMP/b" --run-id 20261129-110000-cuda-mm-bbbbbb --results "$R" || fail mk
run_zl history --ingest "$TMP/a" "$TMP/b"
expect_rc 0
run_zl compare 20261129-100000-cuda-mm-aaaaaa 20261129-110000-cuda-mm-bbbbbb --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["a"]["run_id"]')" = 20261129-100000-cuda-mm-aaaaaa ] || fail "compare by id"

# --db overrides the variable
run_zl history --db "$TMP/other.db" --json
expect_rc 0
[ "$(json_get "$TMP/out" 'len(d)')" = 0 ] || fail "--db over ZL_HISTORY_DB"
run_zl compare 20261129-100000-cuda-mm-aaaaaa 20261129-110000-cuda-mm-bbbbbb --db "$TMP/other.db"
expect_rc 2
# without the variable, ZL_HOME's database again
unset ZL_HISTORY_DB
run_zl history --json
expect_rc 0
[ "$(json_get "$TMP/out" 'len(d)')" = 0 ] || fail "ZL_HOME's database is empty"
run_zl history --help
contains "$TMP/out" "ZL_HISTORY_DB"
run_zl compare --help
contains "$TMP/out" "ZL_HISTORY_DB"
pass
