#!/bin/bash
# batch's cost table: per op its wall split into collection, inputs, compile/autotune, timer, use_gems,
# other (from each run's plugins/timer_summary.json "cost") and outside pytest's session,
# longest first, with totals, the workers' start-ups on a line of their own; a run without
# "cost" is unknown, never 0; costs.json and costs.csv in the batch directory; inputs at a fifth
# of the wall or more get a line naming --draw-inputs device, unless the runs drew so.
. "$(dirname "$0")/lib.sh"
export ZL_KILL_GRACE=2

FG="$TMP/fg"
cp -r "$ZL_SOURCE_DIR/examples/demo" "$FG"
rm -f "$FG"/benchmark/test_*.py
printf 'import pytest\n\n\n@pytest.mark.c_one\ndef test_one():\n    pass\n\n\n@pytest.mark.c_two\ndef test_two():\n    pass\n\n\n@pytest.mark.c_three\ndef test_three():\n    pass\n' \
	>"$FG/benchmark/test_costs.py"
B="$TMP/b"
run_zl batch --backend cuda --flaggems-dir "$FG" --python "$ZL_TEST_PYTHON" --progress plain --devices 0,1 \
	--ops c_one,c_two,c_three --out "$B"
expect_rc 0
contains "$TMP/out" "where the time went (seconds, longest first"
[ -f "$B/costs.json" ] && [ -f "$B/costs.csv" ] || fail "no costs.json or costs.csv after the batch"
[ "$(json_get "$B/costs.json" 'd["schema"]')" = "zlbench.batch_costs/1" ] || fail "costs.json's schema"

# the fixture's figures: c_one and c_two with a cost split, c_three without (an older run)
"$ZL_TEST_PYTHON" - "$B" <<'PY' || fail "patching the fixture"
import csv, json, os, sys
b = sys.argv[1]
costs = {
    "c_one": {"session_s": 2.5, "collection_s": 0.5, "inputs_s": 0.25, "first_call_s": 0.75, "timer_s": 0.5,
              "other_s": 0.5},
    "c_two": {"session_s": 9.0, "collection_s": 1.0, "inputs_s": 4.0, "first_call_s": 2.0, "timer_s": 1.5,
              "use_gems_s": 0.25, "other_s": 0.25},
}
walls = {"c_one": "3.000", "c_two": "10.000", "c_three": "1.500"}
for op in walls:
    path = os.path.join(b, "runs", op, "plugins", "timer_summary.json")
    doc = json.load(open(path))
    doc.pop("cost", None)
    if op in costs:
        doc["cost"] = costs[op]
    json.dump(doc, open(path, "w"))
path = os.path.join(b, "ops_status.csv")
rows = list(csv.DictReader(open(path, newline="")))
for r in rows:
    r["wall_s"] = walls[r["op"]]
with open(path, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\r\n")
    w.writeheader()
    w.writerows(rows)
PY
# a resumed batch with nothing left to run shows the table of what it has
run_zl batch --resume "$B" --progress plain
expect_rc 0
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "the cost table"
import sys
text = open(sys.argv[1]).read()
i = text.index("where the time went")
table = [l.split() for l in text[i:].splitlines()[1:7]]
assert table[0] == ["op", "status", "wall", "collection", "inputs", "compile/autotune", "timer", "use_gems", "other",
                    "outside"], table
assert table[1] == ["c_two", "passed", "10.0", "1.0", "4.0", "2.0", "1.5", "0.2", "0.2", "1.0"], table
# c_one's zlbench did not split use_gems off: unknown there, and its other holds it
assert table[2] == ["c_one", "passed", "3.0", "0.5", "0.2", "0.8", "0.5", "unknown", "0.5", "0.5"], table
assert table[3] == ["c_three", "passed", "1.5"] + ["unknown"] * 7, table
# totals over the ops that know a part, saying how many do not
assert table[4][:4] == ["total", "(3)", "14.5", "1.5"] and "unknown)" in " ".join(table[4]), table
assert " ".join(table[4]) == ("total (3) 14.5 1.5 (1 unknown) 4.2 (1 unknown) 2.8 (1 unknown) 2.0 (1 unknown) "
                             "0.2 (2 unknown) 0.8 (1 unknown) 1.5 (1 unknown)"), table
assert "1 of 3 operators have no cost split" in text, text
assert "worker start-ups: 2 started, 2 ready" in text, text
assert "device time: " in text and "(operators 14.5 s, worker start-ups" in text, text
# inputs took 4.25 of 14.5 s (29 %): the table says what zlbench can do about them
assert ("inputs: FlagGems making the benchmarks' inputs took 29 % of the wall (4.2 s over 2 operators, most "
        "in c_two: 4.0 s); where they are integer or bool, --draw-inputs device draws them on the device") in text, text
PY
# drawn on the device already (zl_inputs wrote plugins/inputs.json): what is left is below the line
echo '{"draw": "device"}' >"$B/runs/c_two/plugins/inputs.json"
run_zl batch --resume "$B" --progress plain
expect_rc 0
contains "$TMP/out" "where the time went"
lacks "$TMP/out" "--draw-inputs device"
rm "$B/runs/c_two/plugins/inputs.json"
"$ZL_TEST_PYTHON" - "$B" <<'PY' || fail "costs.json and costs.csv"
import csv, json, math, os, sys
b = sys.argv[1]
d = json.load(open(os.path.join(b, "costs.json")))
ops = {o["op"]: o for o in d["ops"]}
assert [o["op"] for o in d["ops"]] == ["c_two", "c_one", "c_three"], d["ops"]
assert ops["c_two"]["inputs_s"] == 4.0 and ops["c_two"]["outside_s"] == 1.0, ops["c_two"]
for k in ("session_s", "collection_s", "inputs_s", "first_call_s", "timer_s", "use_gems_s", "other_s", "outside_s"):
    assert ops["c_three"][k] is None, ops["c_three"]
assert ops["c_two"]["use_gems_s"] == 0.25 and ops["c_one"]["use_gems_s"] is None, ops
assert ops["c_three"]["wall_s"] == 1.5 and ops["c_three"]["run_dir"] == "runs/c_three", ops["c_three"]
t = d["totals"]
assert t["ops"] == 3 and t["wall_s"] == 14.5 and t["collection_s"] == 1.5 and t["unknown"]["collection_s"] == 1, t
assert t["use_gems_s"] == 0.25 and t["unknown"]["use_gems_s"] == 2, t
ev = [json.loads(l) for l in open(os.path.join(b, "workers", "events.jsonl"))]
ready = sum(e["wall_s"] for e in ev if e["event"] == "ready")
assert d["worker_startups"]["started"] == 2 and abs(d["worker_startups"]["wall_s"] - ready) < 1e-6, d
assert abs(d["device_time_s"] - (14.5 + ready)) < 1e-6, d
rows = list(csv.DictReader(open(os.path.join(b, "costs.csv"), newline="")))
by = {r["op"]: r for r in rows}
assert [r["op"] for r in rows] == ["c_two", "c_one", "c_three", "(total)", "(worker start-ups)", "(warm-up shards)"], rows
assert by["c_three"]["collection_s"] == "" and by["c_three"]["wall_s"] == "1.500", by["c_three"]
assert by["c_one"]["first_call_s"] == "0.750" and by["(total)"]["inputs_s"] == "4.250", rows
assert by["c_two"]["use_gems_s"] == "0.250" and by["c_one"]["use_gems_s"] == "", rows
assert not [f for f in os.listdir(b) if f.startswith("costs") and f not in ("costs.json", "costs.csv")], os.listdir(b)
PY

# no op knows its split: every total is unknown, never 0; a run directory outside the batch is not read
"$ZL_TEST_PYTHON" - "$B" "$TMP" <<'PY' || fail "patching the fixture again"
import csv, json, os, shutil, sys
b, tmp = sys.argv[1:3]
for op in ("c_one", "c_two", "c_three"):
    path = os.path.join(b, "runs", op, "plugins", "timer_summary.json")
    doc = json.load(open(path))
    doc.pop("cost", None)
    json.dump(doc, open(path, "w"))
# c_one's row names a run directory outside the batch that carries a split: not read
os.makedirs(os.path.join(tmp, "outside", "plugins"))
json.dump({"cost": {"session_s": 1, "collection_s": 1, "inputs_s": 0, "first_call_s": 0, "timer_s": 0, "other_s": 0}},
          open(os.path.join(tmp, "outside", "plugins", "timer_summary.json"), "w"))
path = os.path.join(b, "ops_status.csv")
rows = list(csv.DictReader(open(path, newline="")))
for r in rows:
    if r["op"] == "c_one":
        r["run_dir"] = "../outside"
with open(path, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\r\n")
    w.writeheader()
    w.writerows(rows)
PY
run_zl batch --resume "$B" --progress plain
expect_rc 0
contains "$TMP/out" "3 of 3 operators have no cost split"
"$ZL_TEST_PYTHON" - "$TMP/out" "$B" <<'PY' || fail "an unknown split"
import json, os, sys
text = open(sys.argv[1]).read()
i = text.index("where the time went")
total = [l for l in text[i:].splitlines() if l.startswith("total (3)")][0].split()
assert total == ["total", "(3)", "14.5"] + ["unknown"] * 7, total
d = json.load(open(os.path.join(sys.argv[2], "costs.json")))
assert d["totals"]["collection_s"] is None and d["totals"]["unknown"]["collection_s"] == 3, d["totals"]
assert {o["op"]: o["collection_s"] for o in d["ops"]}["c_one"] is None, d["ops"]
PY
pass
