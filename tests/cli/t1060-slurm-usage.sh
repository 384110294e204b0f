#!/bin/bash
# zlbench batch --launcher slurm: usage errors (exit 2) before anything is submitted,
# --dry-run prints the script and submits nothing, a job sbatch refuses leaves nothing
# behind, and --collect refuses a local batch.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t1000-slurm-cluster.sh"

FG=$ZL_SOURCE_DIR/tests/fixtures/flaggems
cd "$TMP"
ARGS=(batch --backend cuda --flaggems-dir "$FG" --python "$ZL_TEST_PYTHON" --ops envdump)

# ---- no cluster needed ------------------------------------------------------------------
run_zl "${ARGS[@]}" --launcher pbs --out "$TMP/x"
expect_rc 2
contains "$TMP/err" "invalid value 'pbs' for --launcher"
run_zl "${ARGS[@]}" --partition gpu --out "$TMP/x"
expect_rc 2
contains "$TMP/err" "go with --launcher slurm"
run_zl "${ARGS[@]}" --launcher slurm --devices 0,1 --out "$TMP/x"
expect_rc 2
contains "$TMP/err" "Slurm grants each task its GPU"
run_zl "${ARGS[@]}" --launcher slurm --warmup-devices 2 --out "$TMP/x"
expect_rc 2
contains "$TMP/err" "--launcher slurm gives each operator one GPU"
run_zl "${ARGS[@]}" --launcher slurm --sbatch-arg=--array=0-9 --out "$TMP/x"
expect_rc 2
contains "$TMP/err" "--sbatch-arg '--array=0-9'"
# sbatch takes unambiguous prefixes of long options: those of zlbench's own are refused too
for a in --arr=0-3 --out=x --chd=/ --err=y --job=n --wr=true --requeue --req; do
	run_zl "${ARGS[@]}" --launcher slurm --sbatch-arg=$a --out "$TMP/x"
	expect_rc 2
	contains "$TMP/err" "--sbatch-arg '$a'"
done
run_zl batch --collect "$TMP/x" --detach
expect_rc 2
contains "$TMP/err" "--detach goes with a submission"
for v in abc 0 -1; do
	ZL_SLURM_POLL=$v run_zl "${ARGS[@]}" --launcher slurm --dry-run --out "$TMP/x"
	expect_rc 2
	contains "$TMP/err" "invalid value '$v' for ZL_SLURM_POLL"
	ZL_SLURM_TIMEOUT=$v run_zl "${ARGS[@]}" --launcher slurm --dry-run --out "$TMP/x"
	expect_rc 2
	contains "$TMP/err" "invalid value '$v' for ZL_SLURM_TIMEOUT"
done
run_zl batch --help
expect_rc 0
lacks "$TMP/out" "docs/readme"
contains "$TMP/out" "Slurm launcher options (docs/slurm.md)"
run_zl "${ARGS[@]}" --launcher slurm --time-per-op 0 --out "$TMP/x"
expect_rc 2
contains "$TMP/err" "invalid value '0' for --time-per-op"
run_zl batch --collect "$TMP/x" --no-wait --resume "$TMP/x"
expect_rc 2
run_zl "${ARGS[@]}" --no-wait --out "$TMP/x"
expect_rc 2
contains "$TMP/err" "--no-wait goes with --collect"
[ ! -e "$TMP/x" ] || fail "a refused command left '$TMP/x'"

# --dry-run: the plan and the script, nothing written, nothing submitted
run_zl "${ARGS[@]}" --ops batch_p01 --launcher slurm --partition gpu --account proj --time-per-op 30 \
	--sbatch-arg=--qos=high --dry-run --out "$TMP/d"
expect_rc 0
for t in "launcher: slurm" "partition: gpu" "time per op: 30 min" "#SBATCH --partition=gpu" \
	"#SBATCH --account=proj" "#SBATCH --time=30" "#SBATCH --gres=gpu:1" "#SBATCH --array=0-1" \
	"sbatch argv: sbatch --parsable --qos=high $TMP/d/slurm/submit-1.sbatch" \
	"0) op=envdump attempt=1" "1) op=batch_p01 attempt=1" "batch --slurm-task $TMP/d"; do
	contains "$TMP/out" "$t"
done
[ ! -e "$TMP/d" ] || fail "--dry-run created the batch directory"
# the tuner cache: isolated on each node unless the shared one is asked for, with its risk
contains "$TMP/err" "each task tunes in an isolated tuner cache on its node"
run_zl "${ARGS[@]}" --launcher slurm --shared-tuner-cache --dry-run --out "$TMP/d"
expect_rc 0
contains "$TMP/err" "--shared-tuner-cache: every Slurm task writes FlagGems' tuner database"
lacks "$TMP/err" "each task tunes in an isolated tuner cache"
ZL_ISOLATE_TUNER_CACHE=0 run_zl "${ARGS[@]}" --launcher slurm --dry-run --out "$TMP/d"
contains "$TMP/err" "ZL_ISOLATE_TUNER_CACHE: every Slurm task writes"

# --collect on a batch of the local launcher: nothing to collect
run_zl "${ARGS[@]}" --devices 0 --out "$TMP/local" --progress none
expect_rc 0
run_zl batch --collect "$TMP/local"
expect_rc 2
contains "$TMP/err" "was not launched with --launcher slurm"

# ---- through the cluster ---------------------------------------------------------------
slurm_up
# a path Slurm's #SBATCH lines cannot carry
run_zl "${ARGS[@]}" --launcher slurm --out "$TMP/with space"
expect_rc 2
contains "$TMP/err" "may not hold blanks"
# a job sbatch refuses: its message, exit 2, and the new batch directory is gone
run_zl "${ARGS[@]}" --launcher slurm --partition nosuchpartition --out "$TMP/refused"
expect_rc 2
contains "$TMP/err" "sbatch refused the job"
contains "$TMP/err" "invalid partition"
[ ! -e "$TMP/refused" ] || fail "a refused submission left '$TMP/refused'"
# a job without a GPU: each task says so and fails preflight; every op failing preflight exits 3
run_zl "${ARGS[@]}" --launcher slurm --sbatch-arg=--gres=none --out "$TMP/nogpu" --progress plain
expect_rc 3
contains "$TMP/out" "1 preflight failed"
"$ZL_TEST_PYTHON" - "$TMP/nogpu" <<'PY' || fail "the task without a GPU is not recorded as preflight_failed"
import csv, os, sys
rows = list(csv.DictReader(open(os.path.join(sys.argv[1], "ops_status.csv"), newline="")))
assert len(rows) == 1 and rows[0]["status"] == "preflight_failed" and rows[0]["exit_code"] == "3", rows
assert rows[0]["reason"].startswith("Slurm granted this task no GPU index"), rows
assert rows[0]["run_dir"] == "", rows  # the run never started
PY
contains "$TMP/nogpu/logs/slurm-$(slurm_job_of "$TMP/nogpu")_0.out" "PREFLIGHT_FAILED check=slurm_task"

# --collect --no-wait on a batch that is over: an op that never ran is a failure, not "still to come"
run_zl "${ARGS[@]}" --ops batch_p01 --launcher slurm --detach --sbatch-arg=--begin=now+600 --out "$TMP/over"
expect_rc 0
job=$(slurm_job_of "$TMP/over")
timeout 10 scancel "$job"
slurm_wait_job "$job" 30
run_zl batch --collect "$TMP/over" --no-wait
expect_rc 1
contains "$TMP/out" "2 not run"
# ... and one whose query failed: unknown, not passed
run_zl "${ARGS[@]}" --launcher slurm --detach --sbatch-arg=--begin=now+600 --out "$TMP/q"
expect_rc 0
fake_tool scontrol 'echo "slurm_load_jobs error: Unable to contact slurm controller" >&2; exit 1'
run_zl batch --collect "$TMP/q" --no-wait
expect_rc 1
contains "$TMP/err" "Slurm did not answer"
rm "$TMP/bin/scontrol"
timeout 10 scancel "$(slurm_job_of "$TMP/q")"

# the zlbench binary missing on the node: the task fails preflight and names the binary and the node
mkdir -p "$TMP/zl"
cp "$ZLBENCH" "$TMP/zl/zlbench"
set +e
"$TMP/zl/zlbench" "${ARGS[@]}" --launcher slurm --detach --sbatch-arg=--begin=now+2 --out "$TMP/nobin" \
	>"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
expect_rc 0
rm "$TMP/zl/zlbench"
job=$(slurm_job_of "$TMP/nobin")
slurm_wait_job "$job" 60
run_zl batch --collect "$TMP/nobin"
expect_rc 3
"$ZL_TEST_PYTHON" - "$TMP/nobin" "$TMP/zl/zlbench" "$(hostname -s)" <<'PY' || fail "a missing binary is not preflight_failed"
import csv, os, sys
b, exe, host = sys.argv[1:]
rows = list(csv.DictReader(open(os.path.join(b, "ops_status.csv"), newline="")))
assert len(rows) == 1 and rows[0]["status"] == "preflight_failed" and rows[0]["exit_code"] == "3", rows
assert exe in rows[0]["reason"] and host in rows[0]["reason"], rows[0]["reason"]
PY

# sbatch that does not answer in time: the job may exist, so the batch directory stays
fake_tool sbatch 'sleep 30'
ZL_SLURM_TIMEOUT=1 run_zl "${ARGS[@]}" --launcher slurm --out "$TMP/slow"
expect_rc 2
contains "$TMP/err" "squeue --name zlbench-slow"
contains "$TMP/err" "the batch directory is kept"
[ -f "$TMP/slow/batch.json" ] || fail "the batch directory of a job that may exist was removed"
rm "$TMP/bin/sbatch"
pass
