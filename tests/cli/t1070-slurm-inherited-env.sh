#!/bin/bash
# A batch submitted from inside a Slurm job (`srun --pty bash`): the enclosing job's
# SLURM_* variables (its SLURM_STEP_GPUS above all, which Slurm does not overwrite in a
# batch step) never reach the tasks, and each task pins the GPU Slurm granted it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t1000-slurm-cluster.sh"
slurm_up

FG=$ZL_SOURCE_DIR/tests/fixtures/flaggems
cd "$TMP"
# what an interactive step exports; GPU 7 does not exist on the 4-GPU test node
export SLURM_STEP_GPUS=7 SLURM_JOB_GPUS=7 SLURM_STEP_ID=0 SLURM_JOB_ID=999999 SLURM_GPUS_ON_NODE=1 \
	SLURMD_NODENAME=elsewhere SBATCH_REQUEUE=1
for backend in cuda musa; do
	B=$TMP/$backend
	# the fixture's vendor follows GEMS_VENDOR (the tasks get the submitting environment)
	if [ $backend = musa ]; then export GEMS_VENDOR=mthreads; else unset GEMS_VENDOR; fi
	run_zl batch --launcher slurm --backend $backend --flaggems-dir "$FG" --python "$ZL_TEST_PYTHON" \
		--ops envdump --out "$B" --progress plain
	expect_rc 0
	"$ZL_TEST_PYTHON" - "$B" "$(hostname -s)" <<'PY' || fail "$backend: the task took the enclosing job's variables"
import csv, json, os, sys
B, host = sys.argv[1:]
row = next(csv.DictReader(open(os.path.join(B, "ops_status.csv"), newline="")))
ident = json.load(open(os.path.join(B, "runs/envdump/run_identity.json")))
sc = ident["scheduler"]
env = json.load(open(os.path.join(B, "runs/envdump/child_env.json")))
assert sc["gpus"] != "7" and sc["gpus"] in ("0", "1", "2", "3"), sc
assert sc["device"] == sc["gpus"] == ident["visibility"]["value"], (sc, ident["visibility"])
assert sc["node"] == host and row["device"] == host + ":" + sc["gpus"], (sc, row)
assert sc["slurm_job_id"] != "999999", sc
assert "SLURM_STEP_GPUS" not in env and "SLURM_STEP_ID" not in env, {k: v for k, v in env.items() if k.startswith("SLURM")}
assert env.get("SLURM_JOB_GPUS") == sc["gpus"], env.get("SLURM_JOB_GPUS")
PY
done
pass
