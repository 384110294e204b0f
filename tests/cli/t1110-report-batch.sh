#!/bin/bash
# zlbench report BATCH_DIR on a real batch of the bundled fixture ops over two devices:
# schedule.jsonl records every child (device, start, end, status), the page holds the
# speedup of every op, the timeline (one bar per child, from schedule.jsonl; from
# ops_status.csv when a batch has none), the ops_status table and each op's chart.
. "$(dirname "$0")/lib.sh"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
CHECK="$ZL_SOURCE_DIR/tests/helpers/html_check.py"
export ZL_KILL_GRACE=2
check() { "$ZL_TEST_PYTHON" "$CHECK" "$1" --json "$2" || fail "html_check $1"; }

run_zl batch --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --progress plain \
	--devices 0,1 --ops mm,add,sum,fail,crash --out "$TMP/b"
expect_rc 1
"$ZL_TEST_PYTHON" - "$TMP/b" <<'PY' || fail "schedule.jsonl"
import csv, json, os, sys
b = sys.argv[1]
lines = [json.loads(l) for l in open(os.path.join(b, "schedule.jsonl"))]
rows = list(csv.DictReader(open(os.path.join(b, "ops_status.csv"))))
assert sorted(l["op"] for l in lines) == sorted(r["op"] for r in rows) == sorted("mm add sum fail crash".split())
for l in lines:
    r = next(r for r in rows if r["op"] == l["op"])
    assert l["device"] == r["device"] and l["status"] == r["status"] and l["role"] == "run", (l, r)
    assert l["attempt"] == 1 and l["shard"] is None and l["run_dir"] == "runs/" + l["op"], l
    assert 0 < l["end_epoch"] - l["start_epoch"] < 120, l
    assert abs(l["wall_s"] - float(r["wall_s"])) < 0.5, (l, r)
    assert l["started_at"].endswith("Z") and l["log"] == "logs/%s.log" % l["op"], l
# one device runs one child at a time
for dev in ("0", "1"):
    spans = sorted((l["start_epoch"], l["end_epoch"]) for l in lines if l["device"] == dev)
    assert all(a[1] <= b[0] + 0.01 for a, b in zip(spans, spans[1:])), spans
PY

run_zl report "$TMP/b" -o "$TMP/b.html"
expect_rc 0
check "$TMP/b.html" "$TMP/b.json"
"$ZL_TEST_PYTHON" - "$TMP/b.json" "$TMP/b" <<'PY' || fail "batch page"
import csv, html, json, os, re, sys
d = json.load(open(sys.argv[1]))
b = sys.argv[2]
rows = list(csv.DictReader(open(os.path.join(b, "ops_status.csv"))))
titles = [s["title"] for s in d["svgs"]]
assert titles[0] == "Geomean speedup of FlagGems over torch per op", titles
assert titles[1] == "What ran on which device, when, and how it ended", titles
with_results = [op for op in "mm add sum fail crash".split()
                if os.path.exists(os.path.join(b, "runs", op, "results.json"))]
op_charts = [t.split(":")[0] for t in titles[2:]]
assert sorted(op_charts) == sorted(with_results), (op_charts, with_results)
# the overview: one row per op; the crashed op (no results) is listed with its status
ov = d["svgs"][0]
assert len(ov["tips"]) == 5 and any(t.startswith("crash: no speedup (crashed)") for t in ov["tips"]), ov["tips"]
# the timeline: a lane per device, one bar per child in its status' colour
tl = d["svgs"][1]
assert "device 0" in tl["texts"] and "device 1" in tl["texts"], tl["texts"]
assert tl["counts"]["rect"] == 5, tl["counts"]
for r in rows:
    assert tl["classes"].get("st-" + r["status"], 0) >= 1, (r["status"], tl["classes"])
assert tl["classes"]["st-passed"] == sum(r["status"] == "passed" for r in rows), tl["classes"]
assert any(t.startswith("crash attempt 1, run on device 1: crashed") or t.startswith("crash attempt 1, run on device 0: crashed")
           for t in tl["tips"]), tl["tips"]
fig = {f["id"]: f["caption"] for f in d["figures"]}
assert "from schedule.jsonl" in fig["schedule"], fig["schedule"]
# the ops_status table: a header and one row per attempt
assert d["table_rows"][1] == 1 + len(rows), d["table_rows"]
for h in ("Caliber", "Speedup per op", "Schedule", "ops_status.csv", "Each op"):
    assert h in d["headings"]["h2"], d["headings"]
norm = re.sub(r"\s+([,.])", r"\1", d["text"])
assert "5 ops: 3 passed, 1 failed, 1 crashed. FlagGems is faster on" in norm, norm[:300]
# the page opens with the op table: the ops that did not pass first, each with its status,
# speedup and reason; the caliber comes after
h2 = d["headings"]["h2"]
assert h2[0] == "Ops" and h2.index("Caliber") > h2.index("Speedup per op"), h2
ops_rows = [r for r in rows]
assert d["table_rows"][0] == 1 + 5, d["table_rows"]
page = open(sys.argv[1].replace(".json", ".html")).read()
table = page[page.index("<h2>Ops</h2>"):page.index("<h2>Speedup per op</h2>")]
order = re.findall(r'<td><a href="#op-([a-z]+)">', table)
assert sorted(order[:2]) == ["crash", "fail"] and sorted(order[2:]) == ["add", "mm", "sum"], order
for r in rows:
    if r["reason"]:
        assert r["reason"][:80] in html.unescape(table), (r["reason"], table[:2000])
assert "Every run of the batch shares this caliber" in d["text"]
assert "crash: status crashed" in d["text"]
PY

# a long reason: its first line in the op table, all of it on click (<details>), escaped
"$ZL_TEST_PYTHON" - "$TMP/b/ops_status.csv" <<'PY' || fail "long reason"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
for r in rows:
    if r["op"] == "crash":
        r["reason"] = "Fatal Python error: Segmentation fault <in the kernel> " + "x" * 60 + "\nCurrent thread 0x1 (most recent call first):\n  File \"test_crash.py\", line 9"
with open(sys.argv[1], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\r\n")
    w.writeheader()
    w.writerows(rows)
PY
run_zl report "$TMP/b" -o "$TMP/long.html"
expect_rc 0
check "$TMP/long.html" "$TMP/long.json"
contains "$TMP/long.html" '<td class="wrap"><details><summary>Fatal Python error: Segmentation fault &lt;in the kernel&gt; xxxx'
contains "$TMP/long.html" 'Current thread 0x1 (most recent call first):'
contains "$TMP/long.html" '  File &quot;test_crash.py&quot;, line 9</pre></details></td>'

# a batch from before schedule.jsonl: the timeline comes from ops_status.csv
rm "$TMP/b/schedule.jsonl"
run_zl report "$TMP/b" -o "$TMP/old.html"
expect_rc 0
check "$TMP/old.html" "$TMP/old.json"
"$ZL_TEST_PYTHON" - "$TMP/old.json" <<'PY' || fail "fallback timeline"
import json, sys
d = json.load(open(sys.argv[1]))
tl = d["svgs"][1]
assert tl["counts"]["rect"] == 5, tl["counts"]
cap = {f["id"]: f["caption"] for f in d["figures"]}["schedule"]
assert "this batch has no schedule.jsonl" in cap, cap
PY
# a cut-off last line (a batch killed while writing) is skipped and said so
printf '{"op":"mm","attempt":1,"role":"run","device":"0","start_epoch":1,"end_epoch":2,"status":"passed"}\n{"op":"ad' \
	>"$TMP/b/schedule.jsonl"
run_zl report "$TMP/b" -o "$TMP/cut.html"
expect_rc 0
contains "$TMP/cut.html" "schedule.jsonl: 1 line was skipped"

# not a batch: batch.json unreadable
printf 'not json' >"$TMP/b/batch.json"
run_zl report "$TMP/b" -o "$TMP/bad.html"
expect_rc 2
contains "$TMP/err" "batch.json"
pass
