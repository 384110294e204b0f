#!/bin/bash
# calibrate on the bundled demo: K rounds of batch on one device, figures per size class,
# a calibration stored under the runs' key, and a compare that then names it as its floor.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
demo_checkout "$TMP/demo"
commit=$(git -C "$TMP/demo" rev-parse HEAD)
export ZL_KILL_GRACE=2

run_zl calibrate --backend cuda --flaggems-dir demo --python "$ZL_TEST_PYTHON" --ops add,softmax --out cal \
	--timeout-per-op 120 -- --iter 20
expect_rc 0
[ "$(tail -n 1 "$TMP/out")" = "CALIBRATE_DIR=$TMP/cal" ] || fail "last line: $(tail -n 1 "$TMP/out")"
contains "$TMP/out" "calibration of cuda, NVIDIA H200, direct timer, flaggems $commit: 2 ops x 3 runs on device 0, 6 pairs of runs, 180 A/A rows"
contains "$TMP/out" "size class"
contains "$TMP/out" "flagged at 1%"
contains "$TMP/out" "stored: calibration 1 (cuda, NVIDIA H200, direct timer, flaggems $commit"
contains "$TMP/out" "compare and ab now use calibration 1 as the floor"
for k in 1 2 3; do contains "$TMP/err" "round $k/3: 2 of 2 ops passed (batch exit 0"; done
contains "$TMP/err" "rounds 2 to 3 replay round 1's autotune winners"
[ -f "$TMP/cal/records/merge.json" ] || fail "no merged records of round 1"

"$ZL_TEST_PYTHON" - "$TMP/cal" "$ZL_HOME/history.db" "$commit" <<'PY' || fail "calibration checks"
import csv, json, os, sqlite3, sys
cal, db, commit = sys.argv[1:]
plan = json.load(open(os.path.join(cal, "calibrate.json")))
assert plan["schema"] == "zlbench.calibrate/1" and plan["runs"] == 3 and plan["ops"] == ["add", "softmax"], plan
# every round: a batch over the ops on device 0, the batch settings forwarded
recorded = {}
for k in (1, 2, 3):
    b = os.path.join(cal, "round-%d" % k)
    conf = json.load(open(os.path.join(b, "batch.json")))
    assert conf["devices"] == ["0"], conf["devices"]
    assert "--timeout-per-op=120" in conf["argv"] or conf.get("timeout_s") == 120, conf
    rows = list(csv.DictReader(open(os.path.join(b, "ops_status.csv"), newline="")))
    assert sorted(r["op"] for r in rows) == ["add", "softmax"] and all(r["status"] == "passed" for r in rows), rows
    for r in rows:
        ident = json.load(open(os.path.join(b, r["run_dir"], "run_identity.json")))
        assert ident["visibility"]["value"] == "0" and ident["devices"][0]["name"] == "NVIDIA H200"
        # round 1 tunes; the later rounds replay its winners, so every round runs the same configs
        at = ident["autotune"]
        if k == 1:
            assert at["mode"] == "record", at
            recorded[r["op"]] = at["recorded"]
        else:
            assert at["mode"] == "replay" and at["replay_from"] == os.path.join(cal, "records"), at
            assert at["pinned"] == recorded[r["op"]] and at["missed"] == 0, (at, recorded)
        assert ident["flaggems"]["commit"] == commit
        assert "--iter" in ident["child_argv"], ident["child_argv"]
    assert os.path.isfile(os.path.join(cal, "logs", "round-%d.log" % k))
assert sum(recorded.values()) >= 1, recorded
res = json.load(open(os.path.join(cal, "calibration.json")))
assert res["schema"] == "zlbench.calibration/1" and res["stored"]["id"] == 1, res["stored"]
assert res["key"] == {"backend": "cuda", "device_name": "NVIDIA H200", "timer": "direct",
                      "flaggems_commit": commit}, res["key"]
assert res["pairs"] == 6 and res["rows"] == 180, (res["pairs"], res["rows"])
classes = [c for c in res["classes"] if c["rows"]]
assert sum(c["rows"] for c in res["classes"]) == 180
for c in classes:
    # the floor covers three upper-bound spreads, and flags none of the measured rows
    assert c["floor_pct"] >= 3 * c["spread_upper"] * 100 - 1e-9 and c["floor_pct"] >= 0.5, c
    assert c["floor_flagged"] == 0, c
    assert set(c["false_flag"]) == {"1", "2", "5"} and all(0 <= v <= 1 for v in c["false_flag"].values()), c
# stored under the runs' key, with its classes
con = sqlite3.connect(db)
row = con.execute("SELECT id, backend, device_name, timer, flaggems_commit, runs, ops FROM calibrations").fetchall()
assert row == [(1, "cuda", "NVIDIA H200", "direct", commit, 3, '["add","softmax"]')], row
stored = {r[0]: r[1] for r in con.execute("SELECT size_class, floor_pct FROM calibration_classes")}
assert stored == {c["class"]: c["floor_pct"] for c in classes}, (stored, classes)
PY

# compare now takes its floor from the calibration and names it
run_zl compare cal/round-1/runs/add cal/round-2/runs/add
expect_rc 0
contains "$TMP/out" "floor: calibration 1 (cuda, NVIDIA H200, direct timer, flaggems $commit"
lacks "$TMP/out" "floor: fixed"
run_zl compare cal/round-1/runs/add cal/round-3/runs/add --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["floor"]["calibration"]["id"]')" = 1 ] || fail "compare --json floor: $(json_get "$TMP/out" 'd["floor"]')"
[ "$(json_get "$TMP/out" 'sorted(set(r["floor"]["source"] for r in d["rows"]))')" = "['calibration 1']" ] ||
	fail "row floors: $(json_get "$TMP/out" 'sorted(set(r["floor"]["source"] for r in d["rows"]))')"

# --resume of a finished calibration measures again (a second calibration); --json: stdout is the document
run_zl calibrate --resume cal --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["stored"]["id"], d["dir"], d["rows"]')" = "(2, '$TMP/cal', 180)" ] ||
	fail "--resume --json: $(head -c 300 "$TMP/out")"
lacks "$TMP/out" "CALIBRATE_DIR="
contains "$TMP/err" "(resumed)"

# a demo that is no git checkout has no FlagGems commit: measured and printed, not stored (exit 1)
cp -r "$ZL_SOURCE_DIR/examples/demo" plain
run_zl calibrate --backend cuda --flaggems-dir plain --python "$ZL_TEST_PYTHON" --op add --runs 2 --out cal2 -- --iter 5 --dtypes float16
expect_rc 1
contains "$TMP/out" "not stored: no FlagGems commit (the FlagGems directory is not the top of a git checkout)"
contains "$TMP/err" "the calibration was not stored"
[ "$(json_get cal2/calibration.json 'd["stored"], d["rows"] > 0, d["key"]')" = "(None, True, None)" ] ||
	fail "unstored calibration.json: $(cat cal2/calibration.json)"
[ "$("$ZL_TEST_PYTHON" -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from calibrations").fetchone()[0])' "$ZL_HOME/history.db")" = 2 ] ||
	fail "a calibration without a key was stored"
pass
