#!/bin/bash
# batch --warmup-devices N: the op's shapes split into N shape files, N record-mode warm-ups
# (private tuner caches) on N devices, their autotune records merged, one timed replay.
. "$(dirname "$0")/lib.sh"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
export ZL_KILL_GRACE=2
batch() { run_zl batch --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --progress plain "$@"; }

batch --gpus 0,1 --ops mm,batch_p01 --warmup-devices 2 --out "$TMP/b"
expect_rc 0
# batch_p01 has no shapes in the file: it runs plainly, and the batch says why
contains "$TMP/err" "batch_p01: no warm-up sharding"

"$ZL_TEST_PYTHON" - "$TMP/b" "$FIX/benchmark/core_shapes.yaml" <<'PY' || fail "warm-up checks"
import csv, glob, json, os, sys
import yaml
b, core = sys.argv[1:3]
w = os.path.join(b, "warmup", "mm")
# the shards' shape files hold the op's entry (BlasBenchmark: mm has no key of its own), split
want = yaml.safe_load(open(core))["BlasBenchmark"]["shapes"]
shards = [yaml.safe_load(open(os.path.join(w, "shapes-%d.yaml" % i)))["BlasBenchmark"]["shapes"] for i in (1, 2)]
assert len(shards[0]) == 3 and len(shards[1]) == 2, shards
assert sorted(map(tuple, shards[0] + shards[1])) == sorted(map(tuple, want)), (shards, want)

keys, devices = set(), set()
for i in (1, 2):
    ident = json.load(open(os.path.join(w, "shard-%d" % i, "run_identity.json")))
    assert ident["status"] == "passed", ident["status"]
    assert ident["autotune"]["mode"] == "record", ident["autotune"]
    assert ident["tuner_cache"]["mode"] == "isolated", ident["tuner_cache"]
    assert ident["shape_file"]["path"] == os.path.join(w, "shapes-%d.yaml" % i), ident["shape_file"]
    assert ident["shape_file"]["shapes_for_op"] == len(shards[i - 1]), ident["shape_file"]
    assert ident["warmup"]["role"] == "shard" and ident["warmup"]["shard"] == i, ident["warmup"]
    devices.add(ident["visibility"]["value"])
    for path in glob.glob(os.path.join(w, "shard-%d" % i, "autotune_records", "*.json")):
        rec = json.load(open(path))
        keys |= {(rec["kernel"], e["key"]) for e in rec["entries"]}
assert devices == {"0", "1"}, "the two shards should have used both devices: %r" % devices
assert keys, "the shards recorded no autotune winners"

merged = set()
for path in glob.glob(os.path.join(w, "merged", "autotune_records", "*.json")):
    rec = json.load(open(path))
    merged |= {(rec["kernel"], e["key"]) for e in rec["entries"]}
assert merged == keys, (merged ^ keys)
summary = json.load(open(os.path.join(w, "merged", "merge.json")))
assert summary["entries"] == len(keys) and summary["conflicts"] == 0, summary

timed = json.load(open(os.path.join(b, "runs", "mm", "run_identity.json")))
assert timed["status"] == "passed", timed["status"]
at = timed["autotune"]
assert at["mode"] == "replay" and at["replay_from"] == os.path.join(w, "merged"), at
assert at["missed"] == 0 and at["pinned"] == len(keys), (at, len(keys))
assert timed["warmup"]["role"] == "timed" and timed["warmup"]["devices"] == 2, timed["warmup"]
assert timed["warmup"]["shards"] == 2 and timed["warmup"]["merged_records"] == len(keys), timed["warmup"]
# the op's device time before the timed run: what its shards took (history has the timed run alone)
shard_s = [json.load(open(os.path.join(w, "shard-%d" % i, "run_identity.json")))["duration_s"] for i in (1, 2)]
assert abs(timed["warmup"]["shards_duration_s"] - sum(shard_s)) < 0.01, (timed["warmup"], shard_s)
assert timed["warmup"]["shards_wall_s"] >= timed["warmup"]["shards_duration_s"], timed["warmup"]

rows = {r["op"]: r for r in csv.DictReader(open(os.path.join(b, "ops_status.csv"), newline=""))}
assert rows["mm"]["autotune"] == "replay" and rows["mm"]["warmup_shards"] == "2", rows["mm"]
assert sorted(rows["mm"]["warmup_devices"].split(",")) == ["0", "1"], rows["mm"]
assert rows["batch_p01"]["warmup_shards"] == "0" and rows["batch_p01"]["autotune"] == "record", rows["batch_p01"]
assert not os.path.exists(os.path.join(b, "warmup", "batch_p01"))
PY

# PARALLEL_WARMUP_GPUS is the same setting
PARALLEL_WARMUP_GPUS=2 batch --devices 0,1 --ops mm --dry-run --out "$TMP/dry"
expect_rc 0
contains "$TMP/out" "warm-up sharding: 2 devices"

# a failing warm-up shard ends the op: no timed run, the row says which shard
batch --devices 0,1 --ops fail,batch_p02 --warmup-devices 2 --warmup-ops fail --out "$TMP/f"
expect_rc 1
"$ZL_TEST_PYTHON" - "$TMP/f" <<'PY' || fail "failed warm-up"
import csv, os, sys
b = sys.argv[1]
rows = {r["op"]: r for r in csv.DictReader(open(os.path.join(b, "ops_status.csv"), newline=""))}
r = rows["fail"]
assert r["status"] == "failed" and r["reason"].startswith("warm-up shard "), r
assert r["run_dir"].startswith("warmup/fail/shard-"), r
assert not os.path.exists(os.path.join(b, "runs", "fail")), "the timed run should not have started"
assert rows["batch_p02"]["status"] == "passed" and rows["batch_p02"]["warmup_shards"] == "0", rows["batch_p02"]
PY

# the history holds the ops' timed runs, not their warm-up shards (a slice of the shapes each)
"$ZLBENCH" history --limit 0 --json >"$TMP/history.json" || fail "zlbench history failed"
"$ZL_TEST_PYTHON" - "$TMP/history.json" <<'PY' || fail "warm-up shards in the history"
import json, sys
runs = json.load(open(sys.argv[1]))
runs = runs["runs"] if isinstance(runs, dict) else runs
dirs = [r.get("run_dir") or "" for r in runs]
assert dirs and not [d for d in dirs if "/warmup/" in d], dirs
assert [d for d in dirs if d.endswith("/runs/mm")], dirs
PY

# usage
batch --devices 0,1 --ops mm --warmup-devices 3 --out "$TMP/u"
expect_rc 2
contains "$TMP/err" "needs 3 devices; the batch has 2"
batch --devices 0,1 --ops mm --warmup-devices 2 --replay-from "$TMP/b/warmup/mm/merged" --out "$TMP/u"
expect_rc 2
batch --devices 0,1 --ops mm --warmup-devices 2 --warmup-ops bmm --out "$TMP/u"
expect_rc 2
contains "$TMP/err" "'bmm', which is not an operator of the batch"
PARALLEL_WARMUP_GPUS=two batch --devices 0,1 --ops mm --out "$TMP/u"
expect_rc 2
contains "$TMP/err" "PARALLEL_WARMUP_GPUS"
[ -e "$TMP/u" ] && fail "a usage error created the batch directory"
pass
