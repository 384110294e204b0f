#!/bin/bash
# zlbench report --compare A B and AB_DIR: the gate on top, the caliber of both runs side by
# side, a forest plot per op with one row per compare row coloured by its verdict (the same
# verdicts compare --json gives), the samples of the rows that moved, the caliber refusal,
# run ids from the history, and an A/B directory (ab.json) drawn as a comparison.
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
ADD="$ZL_SOURCE_DIR/tests/fixtures/runs/add_samples.py"
CHECK="$ZL_SOURCE_DIR/tests/helpers/html_check.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" || fail "make_run.py $*"; }
samples() { "$ZL_TEST_PYTHON" "$ADD" "$@" || fail "add_samples.py $*"; }
check() { "$ZL_TEST_PYTHON" "$CHECK" "$1" --json "$2" || fail "html_check $1"; }

# B: float16 20 % slower, bfloat16 10 % faster; 1 % timer noise and 200 samples per row
mk "$TMP/a" --run-id 20261129-100000-cuda-mm-aaaaaa --results "$R" --timer-iqr 0.01
mk "$TMP/b" --run-id 20261129-110000-cuda-mm-bbbbbb --results "$R" --timer-iqr 0.01 \
	--scale gems:float16=1.2 --scale gems:bfloat16=0.9
samples "$TMP/a" --seed 1
samples "$TMP/b" --seed 2

run_zl compare "$TMP/a" "$TMP/b" --json --fail-on-regression 3
expect_rc 1
cp "$TMP/out" "$TMP/cmp.json"
run_zl report --compare "$TMP/a" "$TMP/b" --fail-on-regression 3 -o "$TMP/c.html"
expect_rc 0
check "$TMP/c.html" "$TMP/c.json"
"$ZL_TEST_PYTHON" - "$TMP/c.json" "$TMP/cmp.json" "$TMP/c.html" <<'PY' || fail "compare page"
import json, re, sys
d = json.load(open(sys.argv[1]))
cmp = json.load(open(sys.argv[2]))
page = open(sys.argv[3]).read()
# the answer first: the verdict line (counts, geomean and its interval, the gate) under the title,
# then the forest plot; the gate's reasons under the verdict, before the caliber
v = page.index('<p class="verdict" id="verdict">')
assert page.index("</h1>") < v < page.index("Gate: FAILED") < page.index("<h2>B/A per row</h2>") < page.index("<h2>Caliber</h2>")
verdict = re.sub(r"<[^>]+>", "", re.search(r'id="verdict">(.*?)</p>', page).group(1))
ov = cmp["geomean"]["overall"]
n_slow = sum(r["verdict"] == "slower" and r["side"] == "gems" for r in cmp["rows"])
assert verdict.startswith("FlagGems rows: %d slower" % n_slow), verdict
assert "Gate FAILED (--fail-on-regression 3 %: 5 of 15 FlagGems rows fail it)." in verdict, verdict
m = re.search(r"Geomean B/A of the FlagGems rows ([0-9.]+)\u00d7 \(95 % interval ([0-9.]+)\u00d7\u2013([0-9.]+)\u00d7\) over 15 shapes", verdict)
assert m, verdict
# the value at the decimals the interval supports, the bounds one finer: never two equal bounds
assert abs(float(m.group(1)) - ov["geomean"]) <= 0.5 * 10 ** -(len(m.group(1).split(".")[1]) if "." in m.group(1) else 0) + 1e-12, (m.group(1), ov)
assert m.group(2) != m.group(3) and abs(float(m.group(2)) - ov["ci_low"]) < 0.01 and abs(float(m.group(3)) - ov["ci_high"]) < 0.01, (m.groups(), ov)
assert "--fail-on-regression 3 %: 5 of 15 FlagGems rows fail it" in d["text"], d["text"][:600]
forest = [s for s in d["svgs"] if s["title"].startswith("mm: B/A per row")]
assert len(forest) == 1, [s["title"] for s in d["svgs"]]
f = forest[0]
rows = cmp["rows"]
assert len(rows) == 30
# one whisker and one point per row; gems rows dots, torch rows rings
marks = {"slower": "l", "faster": "w", "same": "s"}
want = {}
for r in rows:
    want[r["verdict"]] = want.get(r["verdict"], 0) + 1
notes = [t.split()[-1] for t in f["texts"] if re.fullmatch(r"[0-9.]+\u00d7 \w+", t)]
assert len(notes) == 30 and {v: notes.count(v) for v in set(notes)} == want, (notes, want)
assert notes == sorted(notes, key=["slower", "unsure", "faster", "same", "missing"].index), notes
assert f["counts"]["path"] >= 30 and f["classes"]["ring"] == 15, f["classes"]
for v, n in want.items():
    # a whisker and a point per row, in the verdict's class
    assert f["classes"].get(marks[v], 0) == 2 * n, (v, n, f["classes"])
# the B/A of every compare row is in a tooltip
tips = " ".join(f["tips"])
def r3(v):
    import math
    e = math.floor(math.log10(abs(v)))
    d = max(0, 2 - e)
    if d and abs(round(v, d)) >= 10 ** (e + 1):
        d -= 1
    return "%.*f" % (d, v)
for r in rows:
    assert "B/A %s\u00d7" % r3(r["ratio"]) in tips, r
# the interval: compare's 95 % interval of B/A on the raw samples, inside +-threshold exactly
# for the "same" rows, beyond it for faster/slower
for r in rows:
    assert r["method"] == "samples", r
    lo, hi, t = r["ci_low"], r["ci_high"], r["threshold_pct"] / 100.0
    assert lo <= r["ratio"] <= hi, r
    assert (1 - t <= lo and hi <= 1 + t) == (r["verdict"] == "same"), r
    if r["verdict"] == "slower":
        assert lo > 1 + t, r
    if r["verdict"] == "faster":
        assert hi < 1 - t, r
    assert "[%.4g, %.4g]" % (lo, hi) in tips, (lo, hi)
cap = {x["id"]: x["caption"] for x in d["figures"]}
assert "95 % interval" in cap["forest-mm"], cap["forest-mm"]
# samples of the rows that moved: 10 moved, all drawn as A/B pairs of 200 samples
st = [s for s in d["svgs"] if s["title"].startswith("Per-call samples")]
assert len(st) == 1
assert sum(t == "n=200 med " + t.split()[-1] for t in st[0]["texts"]) == 20, st[0]["texts"]
assert st[0]["classes"]["box"] == 20, st[0]["classes"]
assert "of the 10 rows that moved" in cap["samples"], cap["samples"]
# the caliber of both runs side by side, named
assert "20261129-100000-cuda-mm-aaaaaa" in d["text"] and "20261129-110000-cuda-mm-bbbbbb" in d["text"]
assert "autotune: record vs record" in d["text"]
assert d["headings"]["h2"][:3] == ["B/A per row", "How close to the hardware", "Caliber"], d["headings"]
# the forest plot's log axis has ticks enough to read it: 1 and at least four more
assert len([t for t in f["texts"] if re.fullmatch(r"[0-9.]+", t)]) >= 5, f["texts"]
# how close to the hardware: a roofline of A (rings) and B (dots) per row under the H200's roofs
rf = [s for s in d["svgs"] if s["title"].startswith("mm: achieved TFLOP/s")]
assert len(rf) == 1 and rf[0]["counts"]["circle"] == 60 and rf[0]["classes"]["ring"] == 30, rf[0]["classes"]
PY

# without samples_ms the moved rows are listed, not drawn
mk "$TMP/a0" --run-id 20261129-120000-cuda-mm-cccccc --results "$R" --timer-iqr 0.01
mk "$TMP/b0" --run-id 20261129-130000-cuda-mm-dddddd --results "$R" --timer-iqr 0.01 --scale gems:float16=1.2
run_zl report --compare "$TMP/a0" "$TMP/b0" -o "$TMP/c0.html"
expect_rc 0
check "$TMP/c0.html" "$TMP/c0.json"
contains "$TMP/c0.html" "No samples_ms recorded in A or B for these rows"
# no gate asked: no gate box, nothing about a gate in the verdict
lacks "$TMP/c0.html" "Gate"
lacks "$TMP/c0.html" "no gate asked"
# nothing moved
run_zl report --compare "$TMP/a0" "$TMP/a0" -o "$TMP/same.html"
expect_rc 0
contains "$TMP/same.html" "No row moved"

# a caliber mismatch is refused as compare refuses it, or drawn under a banner
mk "$TMP/g" --run-id 20261129-140000-cuda-mm-eeeeee --results "$R" --set timer.plan='"graph"'
run_zl report --compare "$TMP/a0" "$TMP/g" -o "$TMP/m.html"
expect_rc 2
contains "$TMP/err" "caliber mismatch: timer plan: direct vs graph"
[ -e "$TMP/m.html" ] && fail "a refused comparison wrote a page"
run_zl report --compare "$TMP/a0" "$TMP/g" --allow-caliber-mismatch -o "$TMP/m.html"
expect_rc 0
check "$TMP/m.html" "$TMP/m.json"
contains "$TMP/m.html" "Caliber mismatch: A and B were not measured alike (drawn anyway)"
contains "$TMP/m.html" '<tr class="diff"><th>'

# run ids from the history database
run_zl history --ingest "$TMP/a0" "$TMP/b0"
expect_rc 0
run_zl report --compare 20261129-120000 20261129-130000 -o "$TMP/ids.html"
expect_rc 0
contains "$TMP/ids.html" "A 20261129-120000-cuda-mm-cccccc"
run_zl report --compare "$TMP/a0" no-such-run -o "$TMP/x.html"
expect_rc 2
contains "$TMP/err" "no-such-run"

# an A/B directory: rounds A1 B1 B2 A2 listed in ab.json, each arm pooled
mkdir -p "$TMP/ab/runs"
mk "$TMP/ab/runs/A1" --run-id 20261129-150000-cuda-mm-a1a1a1 --results "$R" --timer-iqr 0.01
mk "$TMP/ab/runs/B1" --run-id 20261129-151000-cuda-mm-b1b1b1 --results "$R" --timer-iqr 0.01 --scale gems:float16=1.2
mk "$TMP/ab/runs/B2" --run-id 20261129-152000-cuda-mm-b2b2b2 --results "$R" --timer-iqr 0.01 --scale gems:float16=1.21
mk "$TMP/ab/runs/A2" --run-id 20261129-153000-cuda-mm-a2a2a2 --results "$R" --timer-iqr 0.01 --scale gems=1.01
samples "$TMP/ab/runs/A1" --seed 3 --n 50
samples "$TMP/ab/runs/B2" --seed 4 --n 50
samples "$TMP/ab/runs/B1" --seed 5 --n 50
samples "$TMP/ab/runs/A2" --seed 6 --n 50
cat >"$TMP/ab/ab.json" <<'JSON'
{"schema": "zlbench.ab/1", "op": "mm",
 "rounds": [{"name": "A1", "arm": "A", "run_dir": "runs/A1"}, {"name": "B1", "arm": "B", "run_dir": "runs/B1"},
            {"name": "B2", "arm": "B", "run_dir": "runs/B2"}, {"name": "A2", "arm": "A", "run_dir": "runs/A2"}]}
JSON
run_zl report "$TMP/ab" -o "$TMP/ab.html"
expect_rc 0
check "$TMP/ab.html" "$TMP/ab.json"
"$ZL_TEST_PYTHON" - "$TMP/ab.json" <<'PY' || fail "ab page"
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["headings"]["h1"] == ["zlbench ab: mm"], d["headings"]
assert "Rounds" in d["headings"]["h2"], d["headings"]
assert d["table_rows"][0] == 5, d["table_rows"]
f = [s for s in d["svgs"] if s["title"].startswith("mm: B/A per row")][0]
notes = [t for t in f["texts"] if re.fullmatch(r"[0-9.]+\u00d7 \w+", t)]
# float16 gems: median of 1.2 and 1.21 over the median of 1 and 1.01: slower; the rest the same
assert sum(n.endswith("slower") for n in notes) == 5 and sum(n.endswith("same") for n in notes) == 25, notes
st = [s for s in d["svgs"] if s["title"].startswith("Per-call samples")][0]
# the samples of an arm are its rounds' samples together: 2 x 50
assert sum(t.startswith("n=100 ") for t in st["texts"]) == 10, st["texts"]
PY
# ab.json's own rows (docs/verdicts.md) are drawn as they are
"$ZL_TEST_PYTHON" - "$TMP/ab/ab.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["rows"] = [{"op": "mm", "dtype": "torch.float16", "shape": [[384, 384], [384, 384]], "side": "gems",
              "ratio": 1.02, "ci_low": 0.97, "ci_high": 1.08, "verdict": "unsure",
              "unsure_reason": "interval overlaps the threshold", "p_value": 0.2, "method": "samples"}]
json.dump(d, open(sys.argv[1], "w"))
PY
run_zl report "$TMP/ab" -o "$TMP/ab2.html"
expect_rc 0
check "$TMP/ab2.html" "$TMP/ab2.json"
contains "$TMP/ab2.html" "1.02× unsure"
contains "$TMP/ab2.html" "interval overlaps the threshold"
# without a list of rounds, the A<n>/B<n> directories are the rounds
printf '{"schema": "zlbench.ab/1"}' >"$TMP/ab/ab.json"
run_zl report "$TMP/ab" -o "$TMP/ab3.html"
expect_rc 0
contains "$TMP/ab3.html" "A1 A2 B1 B2"
rm -r "$TMP/ab/runs/B1" "$TMP/ab/runs/B2"
run_zl report "$TMP/ab" -o "$TMP/ab4.html"
expect_rc 2
contains "$TMP/err" "names no loadable run of both A and B"
# the floor is compare's: fixed without a calibration, the stored one when it matches the runs
contains "$TMP/c.html" "floor: fixed 5%"
DB="$TMP/cal.db"
ZL_HISTORY_DB="$DB" run_zl history
expect_rc 0
"$ZL_TEST_PYTHON" - "$DB" <<'PY' || fail "store a calibration"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
cur = db.execute("INSERT INTO calibrations (backend, device_name, timer, flaggems_commit, created_at,"
                 " runs, ops, run_ids) VALUES ('cuda', 'NVIDIA H200', 'direct', 'ed2508bc',"
                 " '2026-11-30T10:00:00Z', 3, '[\"mm\"]', '[]')")
for cls in ("<5us", "5-50us", "50-500us", ">=500us"):
    db.execute("INSERT INTO calibration_classes (calibration, size_class, rows, spread_rel, false_flag_1,"
               " false_flag_2, false_flag_5, floor_pct) VALUES (?, ?, 30, 0.002, 0.01, 0, 0, 1)",
               (cur.lastrowid, cls))
db.commit()
PY
ZL_HISTORY_DB="$DB" run_zl report --compare "$TMP/a" "$TMP/b" -o "$TMP/cal.html"
expect_rc 0
contains "$TMP/cal.html" "floor: calibration 1 (cuda, NVIDIA H200, direct timer, flaggems ed2508bc"
ZL_HISTORY_DB="$DB" run_zl compare "$TMP/a" "$TMP/b" --json
[ "$(json_get "$TMP/out" 'd["floor"]["calibration"]["id"]')" = 1 ] || fail "compare does not take the same floor"
pass
