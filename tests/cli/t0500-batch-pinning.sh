#!/bin/bash
# batch: one op per device at a time, each pinned through its own visibility variable;
# ops_status.csv loads with Python's csv; every finished op is in the history database.
. "$(dirname "$0")/lib.sh"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
export ZL_KILL_GRACE=2
batch() { run_zl batch --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --progress plain "$@"; }

# the batch's own visibility variable must not leak into the children
export ZL_BATCH_PLAN='{"batch_p01":{"sleep":1.5},"batch_p02":{"sleep":1.5},"batch_p03":{"sleep":1.5},"batch_p04":{"sleep":1.5}}'
CUDA_VISIBLE_DEVICES=7 batch --backend cuda --devices 0,1 --ops batch_p01,batch_p02,batch_p03,batch_p04,envdump \
	--out "$TMP/b"
expect_rc 0
contains "$TMP/out" "BATCH_DIR=$TMP/b"
[ "$(tail -n 1 "$TMP/out")" = "BATCH_DIR=$TMP/b" ] || fail "BATCH_DIR is not the last line"
contains "$TMP/out" "5 operators: 5 passed"
contains "$TMP/err" "[5/5]"

"$ZL_TEST_PYTHON" - "$TMP/b" <<'PY' || fail "pinning checks"
import csv, json, os, sys
b = sys.argv[1]
with open(os.path.join(b, "ops_status.csv"), newline="") as f:
    rows = list(csv.DictReader(f))
need = ["op", "status", "exit_code", "backend", "device", "timer", "level", "tuner_cache",
        "autotune", "duration_s", "started_at", "run_dir", "reason"]
missing = [c for c in need if c not in rows[0]]
assert not missing, missing
assert sorted(r["op"] for r in rows) == ["batch_p01", "batch_p02", "batch_p03", "batch_p04", "envdump"], rows
spans = {}
for r in rows:
    assert r["status"] == "passed" and r["exit_code"] == "0", r
    assert r["backend"] == "cuda" and r["level"] == "core", r
    assert r["device"] in ("0", "1"), r
    run = os.path.join(b, r["run_dir"])
    ident = json.load(open(os.path.join(run, "run_identity.json")))
    assert ident["visibility"] == {"variable": "CUDA_VISIBLE_DEVICES", "value": r["device"]}, ident["visibility"]
    assert ident["scheduler"]["kind"] == "batch" and ident["scheduler"]["device"] == r["device"], ident["scheduler"]
    assert ident["scheduler"]["batch_dir"] == b, ident["scheduler"]
    assert os.path.isfile(os.path.join(b, r["log"])), r["log"]
    if r["op"] == "envdump":
        env = json.load(open(os.path.join(run, "child_env.json")))
        assert env["CUDA_VISIBLE_DEVICES"] == r["device"], env.get("CUDA_VISIBLE_DEVICES")
        for other in ("MUSA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES",
                      "OP", "OP_FILE", "TEST_NODE"):
            assert other not in env, other
        continue
    p = json.load(open(os.path.join(run, "batch_probe.json")))
    # what the benchmark process itself saw
    assert p["env"]["CUDA_VISIBLE_DEVICES"] == r["device"], (r["op"], p["env"])
    assert json.loads(p["env"]["ZL_SCHEDULER"])["op"] == r["op"]
    assert p["end"] is not None
    spans.setdefault(r["device"], []).append((p["start"], p["end"], r["op"]))
assert len(spans) == 2, "both devices should have run probes: %r" % spans
for dev, s in spans.items():
    s.sort()
    for (a0, a1, ao), (b0, b1, bo) in zip(s, s[1:]):
        assert b0 >= a1, "%s and %s overlapped on device %s" % (ao, bo, dev)
# the devices worked at the same time
d0, d1 = spans["0"], spans["1"]
assert any(a0 < b1 and b0 < a1 for a0, a1, _ in d0 for b0, b1, _ in d1), "no two ops ran in parallel"
PY

# every finished op went into the history database (zlbench run ingests it)
run_zl history
expect_rc 0
for op in batch_p01 batch_p02 batch_p03 batch_p04 envdump; do
	contains "$TMP/out" "$op"
done

# another backend pins with its own variable, and no other vendor's survives
CUDA_VISIBLE_DEVICES=7 GEMS_VENDOR=mthreads batch --backend musa --devices 3 --ops envdump --out "$TMP/m"
expect_rc 0
"$ZL_TEST_PYTHON" - "$TMP/m/runs/envdump/child_env.json" <<'PY' || fail "musa pinning"
import json, sys
env = json.load(open(sys.argv[1]))
assert env["MUSA_VISIBLE_DEVICES"] == "3", env.get("MUSA_VISIBLE_DEVICES")
assert "CUDA_VISIBLE_DEVICES" not in env
PY
pass
