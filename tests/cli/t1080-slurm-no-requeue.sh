#!/bin/bash
# The job array is submitted with --no-requeue: a requeued task would rerun into its own
# used run directory. `scontrol requeue` is refused (even with SBATCH_REQUEUE=1 in the
# submitting environment), and the op's row is that of its one run.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t1000-slurm-cluster.sh"
slurm_up

FG=$ZL_SOURCE_DIR/tests/fixtures/flaggems
B=$TMP/b
cd "$TMP"
export ZL_BATCH_PLAN='{"batch_p01":{"sleep":4}}' SBATCH_REQUEUE=1
run_zl batch --launcher slurm --backend cuda --flaggems-dir "$FG" --python "$ZL_TEST_PYTHON" \
	--ops batch_p01 --out "$B" --detach
expect_rc 0
contains "$B/slurm/submit-1.sbatch" "#SBATCH --no-requeue"
job=$(slurm_job_of "$B")
for ((i = 0; i < 100; i++)); do
	[ -f "$B/slurm/tasks/${job}_0.json" ] && break
	sleep 0.2
done
[ -f "$B/slurm/tasks/${job}_0.json" ] || fail "task ${job}_0 did not start"
set +e
timeout 10 scontrol requeue "${job}_0" >"$TMP/rq" 2>&1
rq=$?
set -e
[ "$rq" -ne 0 ] || fail "scontrol requeue was accepted"
contains "$TMP/rq" "disabled"
slurm_wait_job "$job" 60
run_zl batch --collect "$B"
expect_rc 0
"$ZL_TEST_PYTHON" - "$B" "$job" <<'PY' || fail "the row or the identity is not the one run's"
import csv, json, os, sys
B, job = sys.argv[1:]
rows = list(csv.DictReader(open(os.path.join(B, "ops_status.csv"), newline="")))
assert [(r["op"], r["status"], r["attempt"]) for r in rows] == [("batch_p01", "passed", "1")], rows
ident = json.load(open(os.path.join(B, "runs/batch_p01/run_identity.json")))
assert ident["status"] == "passed" and ident["scheduler"]["slurm_state"] == "COMPLETED", ident["scheduler"]
PY
pass
