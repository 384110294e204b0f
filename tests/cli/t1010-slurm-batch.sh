#!/bin/bash
# zlbench batch --launcher slurm through a real one-node cluster: one array task per op,
# each task on the GPU Slurm granted it; failed and crashed ops recorded right; each
# run's identity names the job; the submitting process fills the history database.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t1000-slurm-cluster.sh"
slurm_up

FG=$ZL_SOURCE_DIR/tests/fixtures/flaggems
B=$TMP/b
cd "$TMP"
# the probes sleep long enough to hold their GPUs at the same time
export ZL_BATCH_PLAN='{"batch_p01":{"sleep":5},"batch_p02":{"sleep":5},"batch_p03":{"sleep":5},"batch_p04":{"sleep":5}}'
run_zl batch --launcher slurm --backend cuda --flaggems-dir "$FG" --python "$ZL_TEST_PYTHON" \
	--ops envdump,fail,crash,batch_p01,batch_p02,batch_p03,batch_p04 --out "$B" --progress plain
expect_rc 1
[ "$(tail -n 1 "$TMP/out")" = "BATCH_DIR=$B" ] || fail "last line: $(tail -n 1 "$TMP/out")"
contains "$TMP/err" "submitted Slurm job"
contains "$TMP/err" "each task tunes in an isolated tuner cache on its node"
grep -q -- '"--isolate-tuner-cache"' "$B/batch.json" || fail "batch.json's run_args lack --isolate-tuner-cache"
contains "$TMP/err" "crash: crashed (exit 139)"
contains "$TMP/out" "7 operators: 5 passed, 1 failed, 1 crashed"
job=$(slurm_job_of "$B")

# the script as submitted, saved in the batch directory
S=$B/slurm/submit-1.sbatch
for line in "#SBATCH --array=0-6" "#SBATCH --gres=gpu:1" "#SBATCH --ntasks=1" \
	"#SBATCH --output=$B/logs/slurm-%A_%a.out" "batch --slurm-task $B --op"; do
	contains "$S" "$line"
done
contains "$S" "#   flaggems  $FG"

"$ZL_TEST_PYTHON" - "$B" "$job" "$(hostname -s)" <<'PY' || fail "rows or identities are wrong"
import csv, json, os, sys
B, job, host = sys.argv[1:]
rows = list(csv.DictReader(open(os.path.join(B, "ops_status.csv"), newline="")))
by = {r["op"]: r for r in rows}
assert len(rows) == 7 and len(by) == 7, rows
sub = json.load(open(os.path.join(B, "slurm/slurm.json")))["submissions"][0]
index = {t["op"]: t["index"] for t in sub["tasks"]}
expect = {"envdump": "passed", "fail": "failed", "crash": "crashed"}
for op, r in by.items():
    assert r["status"] == expect.get(op, "passed"), r
    assert r["attempt"] == "1" and r["run_dir"] == "runs/" + op and r["log"] == "logs/" + op + ".log", r
    ident = json.load(open(os.path.join(B, r["run_dir"], "run_identity.json")))
    sc = ident["scheduler"]
    assert sc["kind"] == "slurm" and sc["job_id"] == job, sc
    assert sc["array_task_id"] == index[op] and sc["node"] == host and sc["op"] == op, sc
    # no device constraints here: the run pinned the very GPU Slurm granted
    assert sc["gpus"] == sc["device"] == ident["visibility"]["value"], (sc, ident["visibility"])
    assert r["device"] == host + ":" + sc["gpus"], r
    assert sc["slurm_state"] == ("COMPLETED" if r["status"] == "passed" else "FAILED"), sc
    # no tuner database written from many nodes: each task tuned in its own node-local cache
    assert ident["tuner_cache"]["mode"] == "isolated" and ident["tuner_cache"]["removed"], ident["tuner_cache"]
    task = json.load(open(os.path.join(B, "slurm/tasks/%s_%d.json" % (job, index[op]))))
    assert task["state"] == "finished" and task["gpus"] == sc["gpus"], task
    assert str(task["exit_code"]) == r["exit_code"], (task, r)
assert by["fail"]["exit_code"] == "1" and by["fail"]["reason"], by["fail"]
assert by["crash"]["exit_code"] == "139" and "Segmentation" in by["crash"]["reason"], by["crash"]
# the op saw what the run pinned, and no history of its own
env = json.load(open(os.path.join(B, "runs/envdump/child_env.json")))
sched = json.loads(env["ZL_SCHEDULER"])
assert env["CUDA_VISIBLE_DEVICES"] == sched["gpus"], env["CUDA_VISIBLE_DEVICES"]
assert env["ZL_NO_HISTORY"] == "1", env.get("ZL_NO_HISTORY")
# ops that ran at the same time had different GPUs
probes = []
for op in ("batch_p01", "batch_p02", "batch_p03", "batch_p04"):
    p = json.load(open(os.path.join(B, "runs", op, "batch_probe.json")))
    probes.append((p["start"], p["end"], p["env"]["CUDA_VISIBLE_DEVICES"]))
overlaps = 0
for i, a in enumerate(probes):
    for b in probes[i + 1:]:
        if a[0] < b[1] and b[0] < a[1]:
            overlaps += 1
            assert a[2] != b[2], (a, b)
assert overlaps, probes
PY

# the history holds every run, ingested by the submitting process
"$ZLBENCH" history --limit 0 --json >"$TMP/history.json" || fail "zlbench history failed"
"$ZL_TEST_PYTHON" - "$TMP/history.json" "$B" <<'PY' || fail "history lacks the batch's runs"
import json, os, sys
hist = json.load(open(sys.argv[1]))
ids = {json.load(open(os.path.join(sys.argv[2], "runs", op, "run_identity.json")))["run_id"]
       for op in os.listdir(os.path.join(sys.argv[2], "runs"))}
stored = {h["run_id"] for h in hist}
assert ids <= stored and len(ids) == 7, (ids, stored)
PY
pass
