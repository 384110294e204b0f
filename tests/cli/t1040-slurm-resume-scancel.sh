#!/bin/bash
# A detached Slurm batch cancelled from outside (scancel): --resume first records what
# ended (the finished ops' rows, the cancelled ones as interrupted), then submits only the
# ops without a final row; a finished op never runs twice.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t1000-slurm-cluster.sh"
slurm_up

FG=$ZL_SOURCE_DIR/tests/fixtures/flaggems
B=$TMP/b
cd "$TMP"
export ZL_BATCH_PLAN='{"batch_p01":{"sleep":0.2},"batch_p02":{"sleep":0.2},"batch_p03":{"sleep":120},"batch_p04":{"sleep":120},"batch_p05":{"sleep":120},"batch_p06":{"sleep":120}}'
run_zl batch --launcher slurm --detach --backend cuda --flaggems-dir "$FG" --python "$ZL_TEST_PYTHON" \
	--ops batch_p01,batch_p02,batch_p03,batch_p04,batch_p05,batch_p06 --out "$B"
expect_rc 0
job=$(slurm_job_of "$B")
# wait for p01 and p02 to finish
for ((i = 0; i < 600; i++)); do
	[ "$(cat "$B"/runs/batch_p0[12]/run_identity.json 2>/dev/null | grep -c '"status":.*"passed"')" -eq 2 ] && break
	sleep 0.2
done
[ "$(cat "$B"/runs/batch_p0[12]/run_identity.json 2>/dev/null | grep -c '"status":.*"passed"')" -eq 2 ] ||
	fail "batch_p01 and batch_p02 did not pass within 120 s"

# --resume while the job still runs is refused: it would race the running tasks
run_zl batch --resume "$B"
expect_rc 2
contains "$TMP/err" "not ended"
contains "$TMP/err" "scancel"

scancel "$job"
export ZL_BATCH_PLAN='{}' ZL_FIXTURE_SLEEP=0.2
run_zl batch --resume "$B" --progress plain
expect_rc 0
contains "$TMP/out" "6 operators: 6 passed"
"$ZL_TEST_PYTHON" - "$B" <<'PY' || fail "resume after scancel did not run exactly what was missing"
import csv, json, os, sys
B = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(B, "ops_status.csv"), newline="")))
subs = json.load(open(os.path.join(B, "slurm/slurm.json")))["submissions"]
assert len(subs) == 2, subs
resubmitted = sorted(t["op"] for t in subs[1]["tasks"])
assert resubmitted == ["batch_p03", "batch_p04", "batch_p05", "batch_p06"], resubmitted
for op in ("batch_p01", "batch_p02"):
    mine = [(r["status"], r["attempt"]) for r in rows if r["op"] == op]
    assert mine == [("passed", "1")], (op, mine)
for op in resubmitted:
    mine = [r for r in rows if r["op"] == op]
    assert mine[-1]["status"] == "passed", mine
    # the cancelled attempt (if it had started) is recorded as interrupted with Slurm's reason
    for r in mine[:-1]:
        assert r["status"] == "interrupted" and r["reason"].startswith("slurm: cancelled"), r
PY
pass
