#!/bin/bash
# batch --launcher slurm --replay-from BATCH_DIR --replay-miss tune through the one-node
# cluster: the submitting process merges the last sweep's records into replay_records once,
# before sbatch; the array tasks replay them (the recorded keys pinned, a new key tuned on the
# miss, ZL_REPLAY_* in the benchmark's environment); --collect shows the same rows; --resume
# keeps the merge, or makes it when it is gone; a replay source that is neither a batch nor
# a run is refused before anything is submitted.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t1000-slurm-cluster.sh"
slurm_up

FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"
batch() { run_zl batch --launcher slurm --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --progress plain "$@"; }
# inode and mtime: an atomic rewrite of the file changes both
stamp() { stat -c '%i %y' "$1"; }
# nothing of a refused batch reached Slurm: no directory, no script, no job by its name
nothing_submitted() {
	[ ! -e "$TMP/$1" ] || fail "a refused replay source left '$TMP/$1'"
	[ -z "$(squeue -h -t all --name "zlbench-$1" -o %i)" ] || fail "a refused replay source queued job zlbench-$1"
}

# refused before anything is submitted: a directory that is neither a batch nor a run, a path
# that is not there
mkdir "$TMP/junk" && echo notes >"$TMP/junk/notes.txt"
batch --ops mm --replay-from "$TMP/junk" --replay-miss tune --out "$TMP/r1"
expect_rc 2
contains "$TMP/err" "--replay-from names '$TMP/junk', which is neither a batch (no batch.json) nor a run (no autotune_records/)"
lacks "$TMP/err" "submitted Slurm job"
nothing_submitted r1
batch --ops mm --replay-from "$TMP/gone" --out "$TMP/r2"
expect_rc 2
contains "$TMP/err" "--replay-from names '$TMP/gone', which is not a directory"
nothing_submitted r2

# the last sweep, through Slurm: mm at two of its five shapes records their winners
cat >"$TMP/two.yaml" <<'Y'
BlasBenchmark:
  shapes:
    - [2, 8, 8, 8]
    - [2, 32, 32, 32]
  shape_desc: "B, M, N, K"
Y
batch --ops mm --shape-file "$TMP/two.yaml" --shape-mode file --out "$TMP/s1"
expect_rc 0
contains "$TMP/out" "1 operators: 1 passed"

# the Slurm dry run says what it will replay, and makes nothing
batch --ops mm,softmax --replay-from "$TMP/s1" --replay-miss tune --dry-run --out "$TMP/s2"
expect_rc 0
contains "$TMP/out" "autotune: replay the winners of the runs of batch $TMP/s1 (merged into $TMP/s2/replay_records before it is submitted)"
[ ! -e "$TMP/s2" ] || fail "a dry run made the batch directory"

# the sweep that replays it, detached: the merge is there when sbatch has answered, made by
# the submitting process; fail is there for --resume --retry-failed below
batch --ops mm,softmax,envdump,fail --replay-from "$TMP/s1" --replay-miss tune --detach --out "$TMP/s2"
expect_rc 0
contains "$TMP/err" "submitted Slurm job"
contains "$TMP/err" "the runs replay the autotune winners of 1 run of $TMP/s1 (1 passed)"
[ -f "$TMP/s2/replay_records/merge.json" ] || fail "no replay_records/merge.json after the submission"
merged_at=$(stamp "$TMP/s2/replay_records/merge.json")
cp "$TMP/s2/replay_records/merge.json" "$TMP/merge.before"
contains "$TMP/s2/slurm/submit-1.sbatch" "#SBATCH --array=0-3"

run_zl batch --collect "$TMP/s2" --progress plain
expect_rc 1
contains "$TMP/out" "4 operators: 3 passed, 1 failed"
cp "$TMP/out" "$TMP/collect1.out"
# made once: the tasks neither merged again nor said so
[ "$(stamp "$TMP/s2/replay_records/merge.json")" = "$merged_at" ] || fail "replay_records/merge.json was rewritten by the tasks"
cmp -s "$TMP/merge.before" "$TMP/s2/replay_records/merge.json" || fail "replay_records/merge.json changed"
for f in "$TMP"/s2/logs/*; do
	lacks "$f" "the runs replay the autotune winners"
done
lacks "$TMP/err" "the runs replay the autotune winners"

"$ZL_TEST_PYTHON" - "$TMP" "$(slurm_job_of "$TMP/s2")" <<'PY' || fail "the Slurm tasks did not replay the last sweep"
import csv, json, os, sys
t, job = sys.argv[1:]
merged = os.path.join(t, "s2", "replay_records")
def ident(b, op):
    return json.load(open(os.path.join(t, b, "runs", op, "run_identity.json")))
cfg = json.load(open(os.path.join(t, "s2", "batch.json")))
assert cfg["launcher"] == "slurm" and cfg["replay_batch"] == os.path.join(t, "s1"), cfg
# the tasks' argv: batch.json's run args name the merge, not the source batch
assert "--replay-from=" + merged in cfg["run_args"] and "--replay-miss=tune" in cfg["run_args"], cfg["run_args"]
s1 = ident("s1", "mm")["autotune"]
assert s1["mode"] == "record" and s1["recorded"] >= 2, s1
merge = json.load(open(os.path.join(merged, "merge.json")))
assert merge["entries"] == s1["recorded"], (merge, s1)
rows = {r["op"]: r for r in csv.DictReader(open(os.path.join(t, "s2", "ops_status.csv"), newline=""))}
assert {op: r["status"] for op, r in rows.items()} == \
    {"mm": "passed", "softmax": "passed", "envdump": "passed", "fail": "failed"}, rows
for op in rows:
    i = ident("s2", op)
    assert i["scheduler"]["kind"] == "slurm" and i["scheduler"]["job_id"] == job, i["scheduler"]
    a = i["autotune"]
    assert a["mode"] == "replay" and a["replay_from"] == merged and a["replay_miss"] == "tune", (op, a)
    assert rows[op]["autotune"] == "replay", rows[op]
# mm: the two recorded keys pinned, its three new shapes tuned on the miss; softmax (not in s1) tunes it all
mm = ident("s2", "mm")["autotune"]
assert mm["pinned"] == s1["recorded"] and mm["missed"] == 0 and mm["tuned_on_miss"] > 0, (mm, s1)
sm = ident("s2", "softmax")["autotune"]
assert sm["pinned"] == 0 and sm["tuned_on_miss"] == sm["recorded"] > 0, sm
# what the benchmark process on the Slurm node was told
env = json.load(open(os.path.join(t, "s2", "runs", "envdump", "child_env.json")))
assert env["ZL_AUTOTUNE_MODE"] == "replay", env.get("ZL_AUTOTUNE_MODE")
assert env["ZL_REPLAY_FROM"] == merged and env["ZL_REPLAY_MISS"] == "tune", \
    (env.get("ZL_REPLAY_FROM"), env.get("ZL_REPLAY_MISS"))
PY
contains "$TMP/s2/logs/mm.log" "tuned on a miss"

# --collect again: the same rows and summary, nothing recorded twice
run_zl batch --collect "$TMP/s2" --no-wait --progress plain
expect_rc 1
contains "$TMP/out" "4 operators: 3 passed, 1 failed"
diff <(grep -E '^(mm|softmax|envdump|fail) ' "$TMP/collect1.out") <(grep -E '^(mm|softmax|envdump|fail) ' "$TMP/out") ||
	fail "a second --collect shows other rows"
[ "$(grep -c '^mm,' "$TMP/s2/ops_status.csv")" -eq 1 ] || fail "a second --collect recorded mm again"

# --resume (--retry-failed: fail runs again, as a second array) keeps the merge it made
run_zl batch --resume "$TMP/s2" --retry-failed --progress plain
expect_rc 1
lacks "$TMP/err" "the runs replay the autotune winners"
[ "$(stamp "$TMP/s2/replay_records/merge.json")" = "$merged_at" ] || fail "--resume merged again"
[ -f "$TMP/s2/slurm/submit-2.sbatch" ] || fail "--resume --retry-failed submitted nothing"
# and makes it when it is gone (the batch stopped between claiming its directory and the merge)
rm -r "$TMP/s2/replay_records"
run_zl batch --resume "$TMP/s2" --retry-failed --progress plain
expect_rc 1
contains "$TMP/err" "the runs replay the autotune winners of 1 run of $TMP/s1 (1 passed)"
cmp -s "$TMP/merge.before" "$TMP/s2/replay_records/merge.json" || fail "--resume merged other records"
[ -f "$TMP/s2/slurm/submit-3.sbatch" ] || fail "the second --resume submitted nothing"
"$ZL_TEST_PYTHON" - "$TMP" <<'PY' || fail "the resumed attempts do not replay the merge"
import csv, json, os, sys
t = sys.argv[1]
merged = os.path.join(t, "s2", "replay_records")
subs = json.load(open(os.path.join(t, "s2", "slurm", "slurm.json")))["submissions"]
assert [sorted(x["op"] for x in s["tasks"]) for s in subs[1:]] == [["fail"], ["fail"]], subs
rows = [r for r in csv.DictReader(open(os.path.join(t, "s2", "ops_status.csv"), newline="")) if r["op"] == "fail"]
assert [(r["status"], r["attempt"]) for r in rows] == [("failed", "1"), ("failed", "2"), ("failed", "3")], rows
a = json.load(open(os.path.join(t, "s2", "runs", "fail", "run_identity.json")))["autotune"]
assert a["mode"] == "replay" and a["replay_from"] == merged and a["replay_miss"] == "tune", a
PY
pass
