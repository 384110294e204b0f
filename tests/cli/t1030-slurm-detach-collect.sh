#!/bin/bash
# zlbench batch --launcher slurm --detach submits and returns at once; --collect DIR later
# follows the job to its end and records every task (rows, history); collecting again
# changes nothing; --collect --no-wait records what has ended without waiting.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t1000-slurm-cluster.sh"
slurm_up

FG=$ZL_SOURCE_DIR/tests/fixtures/flaggems
B=$TMP/b
cd "$TMP"
export ZL_BATCH_PLAN='{"batch_p01":{"sleep":4},"batch_p02":{"do":"fail","sleep":1}}'
start=$(date +%s)
run_zl batch --launcher slurm --detach --backend cuda --flaggems-dir "$FG" --python "$ZL_TEST_PYTHON" \
	--ops envdump,batch_p01,batch_p02 --out "$B"
expect_rc 0
[ $(($(date +%s) - start)) -le 3 ] || fail "--detach waited for the job"
job=$(slurm_job_of "$B")
contains "$TMP/out" "SLURM_JOB_ID=$job"
[ "$(tail -n 1 "$TMP/out")" = "BATCH_DIR=$B" ] || fail "last line: $(tail -n 1 "$TMP/out")"
contains "$TMP/err" "zlbench batch --collect $B"
# nothing recorded yet: only the header
[ "$(wc -l <"$B/ops_status.csv")" -eq 1 ] || fail "rows before --collect: $(cat "$B/ops_status.csv")"

# --no-wait while the job runs: what has ended is recorded, the rest is left for later
run_zl batch --collect "$B" --no-wait --progress plain
case $RC in 0 | 1) ;; *) fail "--collect --no-wait exited $RC: $(cat "$TMP/err")" ;; esac

run_zl batch --collect "$B" --progress plain
expect_rc 1
contains "$TMP/out" "3 operators: 2 passed, 1 failed"
[ "$(tail -n 1 "$TMP/out")" = "BATCH_DIR=$B" ] || fail "last line: $(tail -n 1 "$TMP/out")"
"$ZL_TEST_PYTHON" - "$B" <<'PY' || fail "rows after --collect are wrong"
import csv, os, sys
rows = list(csv.DictReader(open(os.path.join(sys.argv[1], "ops_status.csv"), newline="")))
got = sorted((r["op"], r["status"], r["attempt"]) for r in rows)
assert got == [("batch_p01", "passed", "1"), ("batch_p02", "failed", "1"), ("envdump", "passed", "1")], got
PY
"$ZLBENCH" history --limit 0 --csv >"$TMP/h.csv"
[ "$(grep -c -- "-cuda-" "$TMP/h.csv")" -eq 3 ] || fail "history: $(cat "$TMP/h.csv")"

# collecting again: nothing new, same outcome
cp "$B/ops_status.csv" "$TMP/before.csv"
run_zl batch --collect "$B"
expect_rc 1
cmp -s "$B/ops_status.csv" "$TMP/before.csv" || fail "a second --collect changed ops_status.csv"

# --collect and --resume refuse what the batch directory already decided
run_zl batch --collect "$B" --partition other
expect_rc 2
contains "$TMP/err" "--collect uses the settings saved in the batch directory"
pass
