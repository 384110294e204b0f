#!/bin/bash
# batch --warmup-devices N at level comprehensive: FlagGems adds shapes in code
# (set_more_shapes), so each shard's pytest keeps its share of the final shape list
# (plugins/zl_shard.py): the shards' shapes are disjoint and together every shape, they
# tune what one whole run tunes, and the identities say how the shapes were split.
. "$(dirname "$0")/lib.sh"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
export ZL_KILL_GRACE=2
# a shard setting inherited from outside must not split the timed run
export ZL_WARMUP_SHARD=2/2
run_zl batch --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --progress plain \
	--gpus 0,1 --ops mm --warmup-devices 2 --level comprehensive --out "$TMP/b"
expect_rc 0
lacks "$TMP/err" "only the shape file's shapes are split"
lacks "$TMP/err" "may have run every shape"
unset ZL_WARMUP_SHARD
# what one whole record run at this level tunes
run_zl run --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --op mm --level comprehensive \
	--isolate-tuner-cache --out "$TMP/whole"
expect_rc 0

"$ZL_TEST_PYTHON" - "$TMP/b" "$TMP/whole" <<'PY' || fail "comprehensive warm-up sharding"
import csv, glob, json, os, sys
b, whole = sys.argv[1:]
w = os.path.join(b, "warmup", "mm")

def keys(run):
    out = set()
    for path in glob.glob(os.path.join(run, "autotune_records", "*.json")):
        rec = json.load(open(path))
        out |= {(rec["kernel"], e["key"]) for e in rec["entries"]}
    return out

assert not glob.glob(os.path.join(w, "shapes-*.yaml")), "no shape files: the shards' pytest splits"
reports, shard_keys = [], []
for i in (1, 2):
    run = os.path.join(w, "shard-%d" % i)
    ident = json.load(open(os.path.join(run, "run_identity.json")))
    assert ident["status"] == "passed" and ident["level"] == "comprehensive", ident["status"]
    assert "zl_shard" in ident["plugins"], ident["plugins"]
    wu = ident["warmup"]
    assert wu["role"] == "shard" and wu["shard"] == i and wu["shards"] == 2 and wu["split"] == "pytest", wu
    assert "shapes-" not in (ident["shape_file"]["path"] or ""), ident["shape_file"]
    rep = json.load(open(os.path.join(run, "plugins", "shard.json")))
    assert rep["shard"] == i and rep["shards"] == 2 and len(rep["benchmarks"]) == 1, rep
    reports.append(rep["benchmarks"][0])
    shard_keys.append(keys(run))
total = reports[0]["shapes_total"]
# the file's 5 shapes and the ones set_more_shapes adds
assert total > 5 and reports[1]["shapes_total"] == total, reports
kept = [set(r["kept"]) for r in reports]
assert not kept[0] & kept[1] and kept[0] | kept[1] == set(range(total)), kept
assert all(j % 2 == i for i in (0, 1) for j in kept[i]), kept
shapes = [{tuple(s) for s in r["shapes"]} for r in reports]
assert not shapes[0] & shapes[1] and len(shapes[0] | shapes[1]) == total, shapes

# together the shards tune what one whole run tunes; a key both tuned comes from
# two different shapes with the same (M, N, K) (mm's tuning key; B is not in it)
assert shard_keys[0] | shard_keys[1] == keys(whole), (shard_keys, keys(whole))
both = shard_keys[0] & shard_keys[1]
mnk = [{(m, n, k) for (_, m, n, k) in s} for s in shapes]
for kernel, key in both:
    assert tuple(json.loads(key)[:3]) in mnk[0] & mnk[1], (kernel, key, mnk)
summary = json.load(open(os.path.join(w, "merged", "merge.json")))
assert summary["duplicates"] + summary["conflicts"] == len(both), (summary, both)

timed = json.load(open(os.path.join(b, "runs", "mm", "run_identity.json")))
assert timed["status"] == "passed" and "zl_shard" not in timed["plugins"], timed["plugins"]
wu = timed["warmup"]
assert wu["role"] == "timed" and wu["split"] == "pytest", wu
assert wu["shard_shapes"] == [len(kept[0]), len(kept[1])], wu
assert timed["autotune"]["mode"] == "replay" and timed["autotune"]["missed"] == 0, timed["autotune"]
rows = list(csv.DictReader(open(os.path.join(b, "ops_status.csv"), newline="")))
assert [(r["op"], r["status"], r["warmup_shards"]) for r in rows] == [("mm", "passed", "2")], rows
PY
pass
