#!/bin/bash
# Eight zlbench processes ingest different runs into one new history database at once.
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs"
N=8

for i in $(seq 1 $N); do
	"$ZL_TEST_PYTHON" "$MK" "$TMP/runs/r$i" --run-id "20261129-1000$(printf %02d "$i")-cuda-mm-00000$i" \
		--results "$R/mm_core_kernel_h200.results.json" --timer-iqr 0.01 || fail "make_run.py"
done
pids=()
for i in $(seq 1 $N); do
	"$ZLBENCH" history --db "$TMP/h.db" --ingest "$TMP/runs/r$i" >"$TMP/out.$i" 2>"$TMP/err.$i" &
	pids+=($!)
done
for i in $(seq 1 $N); do
	wait "${pids[$((i - 1))]}" || { cat "$TMP/err.$i" >&2; fail "ingest $i failed"; }
done
run_zl history --db "$TMP/h.db" --json --limit 0
expect_rc 0
[ "$(json_get "$TMP/out" 'len(d)')" = $N ] || fail "expected $N runs"
[ "$(json_get "$TMP/out" 'sum(r["results"] for r in d)')" = $((N * 30)) ] || fail "expected $((N * 30)) result rows"
pass
