#!/bin/bash
# batch --replay-from BATCH_DIR: a sweep replays the winners of the last sweep's passed runs
# (merged into <batch>/replay_records once, kept on --resume), passed or not; --replay-miss
# tune tunes the keys the last sweep lacked, and fail (the default) fails them.
. "$(dirname "$0")/lib.sh"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
batch() { run_zl batch --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --progress plain "$@"; }

# the last sweep: mm at two of its five shapes, softmax (a plain triton.autotune) in full, fail fails
cat >"$TMP/two.yaml" <<'Y'
BlasBenchmark:
  shapes:
    - [2, 8, 8, 8]
    - [2, 32, 32, 32]
  shape_desc: "B, M, N, K"
Y
batch --devices 0 --ops mm --shape-file "$TMP/two.yaml" --shape-mode file --out "$TMP/s1"
expect_rc 0
batch --devices 0 --ops softmax,fail --out "$TMP/s1b"
expect_rc 1

# not a batch, nor a run: refused before any op runs
batch --devices 0 --ops mm --replay-miss tune --out "$TMP/none"
expect_rc 2
contains "$TMP/err" "--replay-miss tunes the keys that replayed records lack, but no --replay-from names"
batch --devices 0 --ops mm --replay-miss maybe --replay-from "$TMP/s1" --out "$TMP/none"
expect_rc 2
contains "$TMP/err" "maybe"

# neither a batch nor a run (nor there at all): refused before anything exists, not in each op's preflight
mkdir "$TMP/junk"
batch --devices 0 --ops mm --replay-from "$TMP/junk" --out "$TMP/none"
expect_rc 2
contains "$TMP/err" "--replay-from names '$TMP/junk', which is neither a batch (no batch.json) nor a run (no autotune_records/)"
REPLAY_FROM="$TMP/gone" batch --devices 0 --ops mm --out "$TMP/none"
expect_rc 2
contains "$TMP/err" "REPLAY_FROM names '$TMP/gone', which is not a directory"
[ ! -e "$TMP/none" ] || fail "a refused replay source left the batch directory"

# a batch that never ran an operator has no status file: refused before anything exists
mkdir "$TMP/empty" && cp "$TMP/s1/batch.json" "$TMP/empty/"
batch --devices 0 --ops mm --replay-from "$TMP/empty" --out "$TMP/none"
expect_rc 2
contains "$TMP/err" "--replay-from names batch '$TMP/empty', whose runs cannot be read: "
contains "$TMP/err" "ops_status.csv"
[ ! -e "$TMP/none" ] || fail "a refused replay source left the batch directory"

# the dry run says what it will replay and tells the children the merged directory
batch --devices 0 --ops mm,softmax --replay-from "$TMP/s1" --replay-miss tune --dry-run --out "$TMP/s2"
expect_rc 0
contains "$TMP/out" "autotune: replay the winners of the runs of batch $TMP/s1 (merged into $TMP/s2/replay_records at start)"
contains "$TMP/out" "--replay-from=$TMP/s2/replay_records"
contains "$TMP/out" "--replay-miss=tune"
[ ! -e "$TMP/s2" ] || fail "a dry run made the batch directory"

# fail (the default): mm's three new shapes miss, and the op fails on the first of them
batch --devices 0 --ops mm --replay-from "$TMP/s1" --out "$TMP/s2f"
expect_rc 1
contains "$TMP/err" "note: a tuning key that batch '$TMP/s1' never recorded fails its operator (--replay-miss defaults to fail); --replay-miss tune tunes it instead"
contains "$TMP/s2f/ops_status.csv" "REPLAY_MISS kernel="

# tune: the two recorded keys pinned, the three new ones tuned; softmax (not in s1) tunes it all
batch --devices 0 --ops mm,softmax --replay-from "$TMP/s1" --replay-miss tune --out "$TMP/s2"
expect_rc 0
contains "$TMP/err" "the runs replay the autotune winners of 1 run of $TMP/s1 (1 passed)"
"$ZL_TEST_PYTHON" - "$TMP" <<'PY' || fail "replay of a sweep"
import json, os, sys
t = sys.argv[1]
def ident(b, op):
    return json.load(open(os.path.join(t, b, "runs", op, "run_identity.json")))
s1 = ident("s1", "mm")["autotune"]
assert s1["mode"] == "record" and s1["recorded"] >= 2, s1
merge = json.load(open(os.path.join(t, "s2", "replay_records", "merge.json")))
assert merge["entries"] == s1["recorded"], (merge, s1)
mm = ident("s2", "mm")["autotune"]
assert mm["mode"] == "replay" and mm["replay_from"] == os.path.join(t, "s2", "replay_records"), mm
assert mm["replay_miss"] == "tune", mm
assert mm["pinned"] == s1["recorded"] and mm["missed"] == 0 and mm["tuned_on_miss"] > 0, (mm, s1)
sm = ident("s2", "softmax")["autotune"]
assert sm["pinned"] == 0 and sm["tuned_on_miss"] == sm["recorded"] > 0, sm
cfg = json.load(open(os.path.join(t, "s2", "batch.json")))
assert cfg["replay_batch"] == os.path.join(t, "s1"), cfg["replay_batch"]
PY
contains "$TMP/s2/logs/mm.log" "tuned on a miss"
# the report's caliber says it too
run_zl report "$TMP/s2/runs/mm" -o "$TMP/s2-mm.html"
expect_rc 0
contains "$TMP/s2-mm.html" "3 tuned on a miss"
# compare says which side ran keys on picks of its own
run_zl compare "$TMP/s1/runs/mm" "$TMP/s2/runs/mm" --allow-caliber-mismatch
contains "$TMP/out" "B tuned 3 keys that its replay source lacked (--replay-miss tune): the shapes of them may run other configs than A's"

# a third sweep replays the second: everything the second used, pinned or tuned, is now pinned
batch --devices 0 --ops mm,softmax --replay-from "$TMP/s2" --out "$TMP/s3"
expect_rc 0
"$ZL_TEST_PYTHON" - "$TMP" <<'PY' || fail "replay of a replaying sweep"
import json, os, sys
t = sys.argv[1]
for op in ("mm", "softmax"):
    two = json.load(open(os.path.join(t, "s2", "runs", op, "run_identity.json")))["autotune"]
    three = json.load(open(os.path.join(t, "s3", "runs", op, "run_identity.json")))["autotune"]
    assert three["replay_miss"] == "fail" and three["missed"] == 0, three
    assert three["pinned"] == two["pinned"] + two["tuned_on_miss"], (op, two, three)
PY

# --resume keeps the merge it made, and makes it when the batch stopped before it
cp "$TMP/s2/replay_records/merge.json" "$TMP/merge.before"
run_zl batch --progress plain --resume "$TMP/s2"
expect_rc 0
lacks "$TMP/err" "the runs replay the autotune winners"
cmp -s "$TMP/merge.before" "$TMP/s2/replay_records/merge.json" || fail "--resume merged again"
rm -r "$TMP/s2/replay_records"
run_zl batch --progress plain --resume "$TMP/s2"
expect_rc 0
contains "$TMP/err" "the runs replay the autotune winners of 1 run of $TMP/s1 (1 passed)"
[ -f "$TMP/s2/replay_records/merge.json" ] || fail "--resume did not make the missing merge"

# an op of the last sweep that did not pass (it timed out while tuning, say) still gives the
# winners it recorded: here softmax's row of s1b reads timeout, and the replay pins them all
"$ZL_TEST_PYTHON" - "$TMP/s1b/ops_status.csv" <<'PY' || fail "rewrite s1b's status"
import csv, sys
path = sys.argv[1]
rows = list(csv.DictReader(open(path, newline="")))
assert [r["status"] for r in rows if r["op"] == "softmax"] == ["passed"], rows
for r in rows:
    if r["op"] == "softmax":
        r["status"], r["reason"] = "timeout", "timeout after 120 s"
with open(path, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\r\n")
    w.writeheader()
    w.writerows(rows)
PY
batch --devices 0 --ops softmax --replay-from "$TMP/s1b" --out "$TMP/s4"
expect_rc 0
contains "$TMP/err" "the runs replay the autotune winners of 2 runs of $TMP/s1b (0 passed)"
"$ZL_TEST_PYTHON" - "$TMP" <<'PY' || fail "replay of a run that did not pass"
import json, os, sys
t = sys.argv[1]
one = json.load(open(os.path.join(t, "s1b", "runs", "softmax", "run_identity.json")))["autotune"]
four = json.load(open(os.path.join(t, "s4", "runs", "softmax", "run_identity.json")))["autotune"]
assert four["missed"] == 0 and four["pinned"] == one["recorded"] > 0, (one, four)
PY
