#!/bin/bash
# --time-per-op MIN: Slurm ends a task at its time limit; the op is recorded as timeout
# with Slurm's reason, and its identity says so too (what the run itself saw stays in
# scheduler.run_status). Slurm's limits are whole minutes: this test takes 1-2 minutes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t1000-slurm-cluster.sh"
slurm_up

FG=$ZL_SOURCE_DIR/tests/fixtures/flaggems
B=$TMP/b
cd "$TMP"
export ZL_BATCH_PLAN='{"batch_p01":{"sleep":600},"batch_p02":{"sleep":0.2}}'
run_zl batch --launcher slurm --time-per-op 1 --backend cuda --flaggems-dir "$FG" --python "$ZL_TEST_PYTHON" \
	--ops batch_p01,batch_p02 --out "$B" --progress plain
expect_rc 1
contains "$B/slurm/submit-1.sbatch" "#SBATCH --time=1"
contains "$TMP/out" "2 operators: 1 passed, 0 failed, 0 crashed, 1 timed out"
job=$(slurm_job_of "$B")
"$ZL_TEST_PYTHON" - "$B" <<'PY' || fail "the time limit is not recorded as timeout"
import csv, json, os, sys
B = sys.argv[1]
rows = {r["op"]: r for r in csv.DictReader(open(os.path.join(B, "ops_status.csv"), newline=""))}
r = rows["batch_p01"]
assert r["status"] == "timeout" and r["reason"] == "slurm: time limit reached (TIMEOUT)", r
assert rows["batch_p02"]["status"] == "passed", rows["batch_p02"]
ident = json.load(open(os.path.join(B, r["run_dir"], "run_identity.json")))
assert ident["status"] == "timeout" and ident["reason"] == r["reason"], ident["status"]
assert ident["scheduler"]["slurm_state"] == "TIMEOUT", ident["scheduler"]
assert ident["scheduler"]["run_status"] == "interrupted", ident["scheduler"]
PY
idx=$(json_get "$B/slurm/slurm.json" '[t["index"] for t in d["submissions"][0]["tasks"] if t["op"] == "batch_p01"][0]')
contains "$B/logs/slurm-${job}_$idx.out" "DUE TO TIME LIMIT"
pass
