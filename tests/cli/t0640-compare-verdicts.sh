#!/bin/bash
# zlbench compare without raw samples ("medians: no samples_ms"): noise-aware verdicts, the
# geomean and its bootstrap interval against a computation done here from the results files,
# the --fail-on-regression gate, CSV and JSON. Since issue 14 the threshold never goes below
# the 5 % floor (--threshold only raises it) and the gate fails on "slower" rows only, so a
# PCT below the floor no longer fails rows whose verdict is "same" (t0647 covers samples).
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" || fail "make_run.py $*"; }

mk "$TMP/a" --run-id 20261129-100000-cuda-mm-aaaaaa --results "$R"
# float16 20 % slower, bfloat16 10 % faster, float32 unchanged; no timer statistics
mk "$TMP/b" --run-id 20261129-110000-cuda-mm-bbbbbb --results "$R" \
	--scale gems:float16=1.2 --scale gems:bfloat16=0.9
# 3 % slower everywhere, with wide (5 %) and tight (0.2 %) timer noise on both sides
mk "$TMP/a-wide" --run-id 20261129-120000-cuda-mm-cccccc --results "$R" --timer-iqr 0.05
mk "$TMP/b-wide" --run-id 20261129-130000-cuda-mm-dddddd --results "$R" --timer-iqr 0.05 --scale gems=1.03
mk "$TMP/a-tight" --run-id 20261129-140000-cuda-mm-eeeeee --results "$R" --timer-iqr 0.002
mk "$TMP/b-tight" --run-id 20261129-150000-cuda-mm-ffffff --results "$R" --timer-iqr 0.002 --scale gems=1.03
mk "$TMP/b-plain" --run-id 20261129-160000-cuda-mm-gggggg --results "$R" --scale gems=1.03
# float16 gems 4 % slower under the tight noise: the geomean (1.3 %) passes a 3 % gate
mk "$TMP/b-tight4" --run-id 20261129-170000-cuda-mm-hhhhhh --results "$R" --timer-iqr 0.002 \
	--scale gems:float16=1.04

run_zl compare "$TMP/a" "$TMP/b" --json
expect_rc 0
cp "$TMP/out" "$TMP/ab.json"
run_zl compare "$TMP/a" "$TMP/b" --csv
expect_rc 0
cp "$TMP/out" "$TMP/ab.csv"
"$ZL_TEST_PYTHON" - "$TMP/ab.json" "$TMP/ab.csv" "$TMP/a/results.json" "$TMP/b/results.json" <<'PY' || fail "verdicts/geomean/csv"
import csv, json, math, sys
doc = json.load(open(sys.argv[1]))
rows = doc["rows"]
assert len(rows) == 30
expect = {"torch.float16": "slower", "torch.bfloat16": "faster", "torch.float32": "same"}
for r in rows:
    assert r["basis"] == "threshold", r
    want = expect[r["dtype"]] if r["side"] == "gems" else "same"
    assert r["verdict"] == want, (r, want)

# B/A per shape straight from the two results files, in row order
def lat(path):
    d = json.load(open(path))
    return [row["latency"] for det in d["mm"]["details"] for row in det["result"]]
ratios = [b / a for a, b in zip(lat(sys.argv[3]), lat(sys.argv[4]))]
# by hand: 5 shapes at 1.2, 5 at 0.9, 5 at 1.0
g = (1.2 ** 5 * 0.9 ** 5) ** (1 / 15)
assert abs(math.exp(sum(map(math.log, ratios)) / 15) - g) < 1e-12
ov = doc["geomean"]["overall"]
assert ov["n"] == 15 and abs(ov["geomean"] - g) < 1e-9, (ov, g)

# the documented bootstrap: splitmix64, fixed seed, 2000 resamples, nearest-rank 2.5/97.5 %
M = (1 << 64) - 1
def bootstrap(r, R=2000, seed=int(doc["geomean"]["seed"], 16)):
    logs, n, s, gm = [math.log(x) for x in r], len(r), seed, []
    for _ in range(R):
        t = 0.0
        for _ in range(n):
            s = (s + 0x9E3779B97F4A7C15) & M
            z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & M
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
            t += logs[(z ^ (z >> 31)) % n]
        gm.append(math.exp(t / n))
    gm.sort()
    return gm[(25 * R + 999) // 1000 - 1], gm[(975 * R + 999) // 1000 - 1]
lo, hi = bootstrap(ratios)
assert doc["geomean"]["resamples"] == 2000
assert abs(ov["ci_low"] - lo) < 1e-9 and abs(ov["ci_high"] - hi) < 1e-9, (ov, lo, hi)
assert lo < g < hi and 0.9 <= lo and hi <= 1.2
op = doc["geomean"]["ops"]
assert len(op) == 1 and op[0]["op"] == "mm" and op[0]["ci_low"] == ov["ci_low"]

# the CSV holds the same rows
crows = list(csv.DictReader(open(sys.argv[2], newline="")))
assert len(crows) == 30
for j, c in zip(rows, crows):
    assert (c["op"], c["dtype"], c["shape"], c["side"], c["verdict"]) == \
        (j["op"], j["dtype"], j["shape"], j["side"], j["verdict"])
    assert int(c["occurrence"]) == j["occurrence"]
    assert abs(float(c["ratio"]) - j["ratio"]) < 1e-9
    assert c["caliber"] == "ok"
PY

# the terminal table says the same without colour when not on a terminal (wide enough for
# every column; t0649 checks how a narrow one is laid out)
COLUMNS=200 run_zl compare "$TMP/a" "$TMP/b" --all
expect_rc 0
contains "$TMP/out" "[[4096, 4096], [4096, 4096]] #2"
contains "$TMP/out" "verdicts: medians: no samples_ms (in A and B): 30 rows by the threshold (no timer IQR from 2 or more samples: no plugins/timer.jsonl in A and B)"
contains "$TMP/out" "floor: fixed 5% (no history database at '$ZL_HOME/history.db')"
contains "$TMP/out" "medians ±5%"
if grep -q $'\033' "$TMP/out"; then fail "colour codes in a pipe"; fi
# on a terminal (a pty from script(1)) slower rows are red, unless NO_COLOR
if command -v script >/dev/null 2>&1; then
	TERM=xterm script -qec "$ZLBENCH compare $TMP/a $TMP/b" /dev/null >"$TMP/tty.out" 2>&1 ||
		fail "compare on a pty"
	grep -q $'\033\[31mslower' "$TMP/tty.out" || fail "no colour on a terminal"
	TERM=xterm NO_COLOR=1 script -qec "$ZLBENCH compare $TMP/a $TMP/b" /dev/null >"$TMP/tty.out" 2>&1
	if grep -q $'\033\[3' "$TMP/tty.out"; then fail "colour despite NO_COLOR"; fi
fi

# noise: 3 % inside a 5 % IQR is "same"; with a 0.2 % IQR it is under the 5 % run-to-run
# floor ("same"), and --threshold 1 cannot lower that floor
run_zl compare "$TMP/a-wide" "$TMP/b-wide" --json
expect_rc 0
[ "$(json_get "$TMP/out" 'sorted({(r["basis"], r["verdict"], r["method"]) for r in d["rows"]})')" = "[('iqr', 'same', 'medians: no samples_ms')]" ] ||
	fail "wide noise: all same by iqr"
run_zl compare "$TMP/a-tight" "$TMP/b-tight" --json
expect_rc 0
[ "$(json_get "$TMP/out" 'sorted({(r["side"], r["basis"], r["verdict"]) for r in d["rows"]})')" = \
  "[('gems', 'iqr', 'same'), ('torch', 'iqr', 'same')]" ] || fail "tight noise under the floor: same"
# the verdicts stay "same", so a 2 % gate fails on the overall geomean (1.03) alone
run_zl compare "$TMP/a-tight" "$TMP/b-tight" --json --fail-on-regression 2
expect_rc 1
[ "$(json_get "$TMP/out" '({r["verdict"] for r in d["rows"]}, d["gate"]["failed"], d["gate"]["failed_rows"], len(d["gate"]["reasons"]), "overall geomean" in d["gate"]["reasons"][0])')" = \
  "({'same'}, True, 0, 1, True)" ] || fail "tight noise: the gate at 2 % fails on the geomean only"
run_zl compare "$TMP/a-tight" "$TMP/b-tight" --json --threshold 1
expect_rc 0
[ "$(json_get "$TMP/out" 'sorted({(r["side"], r["verdict"], r["threshold_pct"], r["floor"]["pct"], r["floor"]["source"]) for r in d["rows"]})')" = \
  "[('gems', 'same', 5, 5, 'fixed'), ('torch', 'same', 5, 5, 'fixed')]" ] || fail "--threshold 1 is raised to the floor"
# without statistics the threshold decides: 3 % is within 5 %; --threshold 8 raises it
run_zl compare "$TMP/a" "$TMP/b-plain" --json
[ "$(json_get "$TMP/out" '{r["verdict"] for r in d["rows"]}')" = "{'same'}" ] || fail "threshold 5"
[ "$(json_get "$TMP/out" '{(r["ci_low"], r["ci_high"], r["p_value"]) for r in d["rows"]}')" = "{(None, None, None)}" ] ||
	fail "medians rows have no interval and no p"
run_zl compare "$TMP/a" "$TMP/b" --json --threshold 25
[ "$(json_get "$TMP/out" '{r["verdict"] for r in d["rows"]}')" = "{'same'}" ] || fail "threshold 25"

# the gate
run_zl compare "$TMP/a" "$TMP/b" --fail-on-regression 5
expect_rc 1
contains "$TMP/out" "gate (--fail-on-regression 5%): FAILED"
contains "$TMP/out" "B/A 1.2000, 20.0% slower (limit 5%): slower by the medians rule (beyond its threshold, no samples_ms)"
run_zl compare "$TMP/a" "$TMP/b" --fail-on-regression 25
expect_rc 0
contains "$TMP/out" "gate (--fail-on-regression 25%): passed"
run_zl compare "$TMP/a-wide" "$TMP/b-wide" --fail-on-regression 5%
expect_rc 0
run_zl compare "$TMP/a-wide" "$TMP/b-wide" --fail-on-regression 2 --json
expect_rc 1
[ "$(json_get "$TMP/out" 'd["gate"]["failed"] and len(d["gate"]["reasons"]) == 1 and "overall geomean" in d["gate"]["reasons"][0]')" = True ] ||
	fail "the overall geomean alone fails the gate"
run_zl compare "$TMP/a" "$TMP/b" --fail-on-regression 5 --markdown
expect_rc 1
contains "$TMP/out" "**Gate** (\`--fail-on-regression 5\`): **FAILED**"
run_zl compare "$TMP/a" "$TMP/b" --fail-on-regression -1
expect_rc 2

# a slowdown under the run-to-run floor: 4 % on float16 beyond a 0.2 % IQR is "same" by
# verdict, so --fail-on-regression 3 passes: the gate judges verdicts (before issue 14 it
# lowered the floor to PCT and failed these five shapes)
run_zl compare "$TMP/a-tight" "$TMP/b-tight4" --fail-on-regression 3 --json
expect_rc 0
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "gate below the floor"
import json, sys
d = json.load(open(sys.argv[1]))
g = d["gate"]
assert not g["failed"] and g["fail_pct"] == 3 and g["failed_rows"] == 0, g
assert "slower (beyond its threshold, max(--threshold, floor))" in g["rule"], g["rule"]
assert {r["verdict"] for r in d["rows"]} == {"same"}
assert not any(r["gate_failed"] for r in d["rows"])
PY
run_zl compare "$TMP/a-tight" "$TMP/b-tight4" --fail-on-regression 3
expect_rc 0
contains "$TMP/out" "gate (--fail-on-regression 3%): passed"
contains "$TMP/out" "0 of 15 gems shapes failed the gate"
run_zl compare "$TMP/a-tight" "$TMP/b-tight4" --fail-on-regression 3 --csv
expect_rc 0
"$ZL_TEST_PYTHON" -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert sorted({(r["side"], r["dtype"], r["gate"]) for r in rows}) == [
    ("gems", "torch.bfloat16", "passed"), ("gems", "torch.float16", "passed"),
    ("gems", "torch.float32", "passed"), ("torch", "torch.bfloat16", ""),
    ("torch", "torch.float16", ""), ("torch", "torch.float32", "")], rows
' "$TMP/out" || fail "csv: gate column"
# a 20 % slowdown is beyond the floor: slower, and named in the markdown
run_zl compare "$TMP/a" "$TMP/b" --fail-on-regression 5 --markdown
expect_rc 1
contains "$TMP/out" "**slower**, **gate failed**"
pass
