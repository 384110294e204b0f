#!/bin/bash
# ab on the bundled demo: 8 runs in ABBA order, each side tuning once and replaying its own
# records, B slowed down on purpose (FLAGGEMS_DEMO_SLOWDOWN) and found slower, the gate,
# ab.json as the report draws it. A calibration first: the demo's CPU timings are noisy, and
# the floor must be this machine's, as the docs tell users to do. 4 rounds, not 2: on a
# loaded 2-core machine the calibrated floor is wide (over 300 %) and two pairs of a
# 50-fold slowdown stayed unsure (p 0.0003 to 0.04), as ab's docs say they may.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
demo_checkout "$TMP/demo"
export ZL_KILL_GRACE=2
common=(--backend cuda --flaggems-dir demo --python "$ZL_TEST_PYTHON")

run_zl calibrate "${common[@]}" --ops add,softmax --out cal -- --iter 20
expect_rc 0
contains "$TMP/out" "stored: calibration 1"

# wide enough for every column (the B/A per round one too; a narrow terminal drops it)
COLUMNS=250 run_zl ab "${common[@]}" --op add --b-env FLAGGEMS_DEMO_SLOWDOWN=add=50 --rounds 4 --fail-on-regression 5 --out ab -- --iter 20
expect_rc 1
[ "$(tail -n 1 "$TMP/out")" = "AB_DIR=$TMP/ab" ] || fail "last line: $(tail -n 1 "$TMP/out")"
for want in "ab: add, 4 rounds: A1 B1 B2 A2 A3 B3 B4 A4" "B: env FLAGGEMS_DEMO_SLOWDOWN=add=50" \
	"autotune: each side tunes once, in its first run (A1, B1), and replays its own records after that" \
	"tuner cache: isolated per run" "caliber: ok" "floor: calibration 1 (cuda, NVIDIA H200" "B/A per round" \
	"geomean B/A, gems:" "gate (--fail-on-regression 5): FAILED"; do
	contains "$TMP/out" "$want"
done
for name in A1 B1 B2 A2 A3 B3 B4 A4; do contains "$TMP/err" "ab: $name: passed (exit 0)"; done

"$ZL_TEST_PYTHON" - "$TMP/ab" <<'PY' || fail "ab checks"
import json, os, sys
ab = sys.argv[1]
d = json.load(open(os.path.join(ab, "ab.json")))
assert d["schema"] == "zlbench.ab/1" and d["status"] == "done", d["status"]
assert d["order"] == "A1 B1 B2 A2 A3 B3 B4 A4", d["order"]
assert [(r["name"], r["arm"], r["round"], r["status"]) for r in d["rounds"]] == [
    (n, n[0], int(n[1]), "passed") for n in d["order"].split()], d["rounds"]
assert [r["replay_from"] for r in d["rounds"]] == [None, None, "B1", "A1", "A1", "B1", "B1", "A1"], d["rounds"]
assert d["variables"]["b"]["env"] == {"FLAGGEMS_DEMO_SLOWDOWN": "add=50"} and d["variables"]["a"]["env"] == {}
assert "env FLAGGEMS_DEMO_SLOWDOWN" in d["variables"]["explained"]
assert d["caliber_refusals"] == []
# every run a normal run directory, in ABBA order in time, B's with the variable, the replays replaying
started = []
for r in d["rounds"]:
    ident = json.load(open(os.path.join(ab, r["run_dir"], "run_identity.json")))
    started.append(ident["started_at"])
    assert ident["status"] == "passed" and ident["tuner_cache"]["mode"] == "isolated", ident["tuner_cache"]
    assert ("FLAGGEMS_DEMO_SLOWDOWN" in ident["env"]) == (r["arm"] == "B"), ident["env"]
    mode = ident["autotune"]["mode"]
    if r["round"] == 1:
        assert mode == "record", mode
    else:
        assert mode == "replay" and ident["autotune"]["replay_from"] == os.path.join(ab, r["arm"] + "1"), ident["autotune"]
    assert os.path.isfile(os.path.join(ab, r["log"]))
assert started == sorted(started), started
# paired rows: every row has its four rounds; the gems side slowed down and found so: rows
# called slower, none faster or same (on a busy CPU the floor is wide: some stay unsure),
# and the geomean's interval far from 1
rows = d["rows"]
assert len(rows) == 30 and all(r["n_pairs"] == 4 and len(r["pairs"]) == 4 for r in rows), rows[0]
gems = [r for r in rows if r["side"] == "gems"]
torch = [r for r in rows if r["side"] == "torch"]
slower = [r for r in gems if r["verdict"] == "slower"]
assert slower, [(r["verdict"], r["ratio"], r["unsure_reason"]) for r in gems]
assert all(r["verdict"] in ("slower", "unsure") and r["ratio"] > 5 for r in gems), [(r["verdict"], r["ratio"]) for r in gems]
assert all(r["ci_low"] > 1 + r["threshold_pct"] / 100 and r["p_value"] < 1e-4 for r in slower)
# the baseline did not move by design: nothing called faster or slower there
assert not [r for r in torch if r["verdict"] in ("faster", "slower")], [(r["verdict"], r["ratio"]) for r in torch]
# the floor: the calibration's where it measured the row's size class (by the A time), else
# the fixed 5 % -- on a busy CPU an A time can fall in a class the calibration did not see
import re
summary = d["verdicts"]["floor"]
assert summary.startswith("calibration 1 "), summary
calibrated = dict((m.group(1), float(m.group(2)))
                  for m in re.finditer(r"(50-500us|5-50us|<5us|>=500us) ([0-9.e+-]+)%", summary.split("; other")[0]))
assert calibrated, summary
for r in rows:
    cls = r["floor"]["size_class"]
    if cls in calibrated:
        assert r["floor"]["source"] == "calibration 1" and abs(r["floor"]["pct"] / calibrated[cls] - 1) < 1e-5, (r["floor"], summary)
    else:
        assert r["floor"]["source"] == "fixed" and r["floor"]["pct"] == 5 and "other classes: fixed 5%" in summary, (r["floor"], summary)
assert any(r["floor"]["source"] == "calibration 1" for r in rows), [r["floor"] for r in rows]
assert d["geomean"]["gems"]["geomean"] > 5 and d["geomean"]["gems"]["ci_low"] > 1, d["geomean"]
assert d["gate"]["failed"] is True and any("gems geomean" in x for x in d["gate"]["reasons"]), d["gate"]
PY

# the report draws ab.json's own rows
run_zl report "$TMP/ab" -o ab.html
expect_rc 0
contains ab.html "ab.json&#39;s own"
for name in A1 B1 B2 A2 A3 B3 B4 A4; do contains ab.html ">$name<"; done
pass
