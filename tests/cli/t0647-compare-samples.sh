#!/bin/bash
# zlbench compare on raw samples (issue 14): runs built from a real FlagGems results.json with
# seeded samples_ms in plugins/timer.jsonl. An A/A from one distribution gives no faster/slower
# over >= 200 rows; a 3 % shift is slower and fails a 2 % gate under a stored calibration (named
# in every format) and is unsure under the fixed 5 % floor (--fail-on-unsure gates it); a
# bimodal row is unsure; rows without samples fall back to the medians rule and say so; the
# drift line appears when the torch side moved, and only then.
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" || fail "make_run.py $*"; }
DB="$ZL_HOME/history.db"

# A/A: the same distribution, other seeds; 7 repeats of the 15 shapes: 210 rows
mk "$TMP/aa1" --run-id 20261129-100000-cuda-mm-aaaaaa --results "$R" --raw-samples 200 --seed 1 --repeat 7
mk "$TMP/aa2" --run-id 20261129-110000-cuda-mm-bbbbbb --results "$R" --raw-samples 200 --seed 2 --repeat 7
# 500 samples a side; B's float16 gems 3 % slower (the overall geomean stays below 2 %)
mk "$TMP/a" --run-id 20261129-120000-cuda-mm-cccccc --results "$R" --raw-samples 500 --seed 3
mk "$TMP/b3" --run-id 20261129-130000-cuda-mm-dddddd --results "$R" --raw-samples 500 --seed 4 \
	--scale gems:float16=1.03
# B's bfloat16 gems samples: 30 % of them 25 % slower
mk "$TMP/bi" --run-id 20261129-140000-cuda-mm-eeeeee --results "$R" --raw-samples 500 --seed 5 \
	--bimodal gems:bfloat16=0.3:1.25
# the machine 7 % faster: torch and gems alike
mk "$TMP/drift" --run-id 20261129-150000-cuda-mm-ffffff --results "$R" --raw-samples 500 --seed 6 \
	--scale torch=0.93 --scale gems=0.93
# an older B without samples_ms (summary statistics only)
mk "$TMP/old" --run-id 20261129-160000-cuda-mm-gggggg --results "$R" --timer-iqr 0.01

# --- A/A over 210 rows: no faster, no slower; no drift line
run_zl compare "$TMP/aa1" "$TMP/aa2" --json
expect_rc 0
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "A/A"
import json, sys
def size_class(ms):
    return "<5us" if ms < 0.005 else "5-50us" if ms < 0.05 else "50-500us" if ms < 0.5 else ">=500us"
d = json.load(open(sys.argv[1]))
rows = d["rows"]
assert len(rows) == 210, len(rows)
assert {r["method"] for r in rows} == {"samples"}
bad = [r for r in rows if r["verdict"] in ("faster", "slower")]
assert not bad, bad[:3]
assert sum(r["verdict"] == "same" for r in rows) >= 200
for r in rows:
    assert r["ci_low"] < r["ratio"] < r["ci_high"] and 0 <= r["p_value"] <= 1, r
    assert r["floor"] == {"pct": 5, "source": "fixed", "size_class": size_class(r["a_ms"])}, r["floor"]
assert d["drift"]["control"] and not d["drift"]["moved"] and d["drift"]["line"] is None
assert d["verdicts"]["rows_samples"] == 210 and d["verdicts"]["alpha"] == 0.0001
PY
run_zl compare "$TMP/aa1" "$TMP/aa2"
expect_rc 0
lacks "$TMP/out" "machine drift"
contains "$TMP/out" "verdicts: 210 rows on samples"

# --- 3 % slower, fixed 5 % floor: unsure (the interval crosses +5 %), never forced; a 2 % gate
# passes (only slower rows fail it), and fails with --fail-on-unsure
run_zl compare "$TMP/a" "$TMP/b3" --fail-on-regression 2 --json
expect_rc 0
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "3 % under the fixed floor"
import json, sys
d = json.load(open(sys.argv[1]))
hit = [r for r in d["rows"] if r["side"] == "gems" and r["dtype"] == "torch.float16"]
assert len(hit) == 5
for r in hit:
    assert r["verdict"] == "unsure", r
    assert r["unsure_reason"].startswith("interval overlaps the threshold: 95% CI ["), r["unsure_reason"]
    assert "crosses +5%" in r["unsure_reason"], r["unsure_reason"]
    assert "zlbench ab --op mm --rounds 4" in r["advice"] and "zlbench calibrate" in r["advice"], r["advice"]
    assert r["p_value"] < 1e-4 and abs(r["ratio"] - 1.03) < 0.005, r
assert {r["verdict"] for r in d["rows"] if r not in hit} == {"same"}
assert not d["gate"]["failed"]
PY
run_zl compare "$TMP/a" "$TMP/b3" --fail-on-regression 2 --fail-on-unsure
expect_rc 1
contains "$TMP/out" "unsure: 5 rows"
contains "$TMP/out" "unsure (interval overlaps the threshold) and --fail-on-unsure"
contains "$TMP/out" "5 of 15 gems shapes failed the gate"

# --- a stored calibration with a 1 % floor for this key: slower, the 2 % gate fails, named
run_zl history
expect_rc 0
"$ZL_TEST_PYTHON" - "$DB" <<'PY' || fail "store calibrations"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
def cal(commit, floor, created):
    cur = db.execute("INSERT INTO calibrations (backend, device_name, timer, flaggems_commit,"
                     " created_at, runs, ops, run_ids) VALUES ('cuda', 'NVIDIA H200', 'direct', ?,"
                     " ?, 3, '[\"mm\"]', '[]')", (commit, created))
    for cls in ("<5us", "5-50us", "50-500us", ">=500us"):
        db.execute("INSERT INTO calibration_classes (calibration, size_class, rows, spread_rel,"
                   " false_flag_1, false_flag_2, false_flag_5, floor_pct) VALUES (?, ?, 30, 0.002,"
                   " 0.01, 0, 0, ?)", (cur.lastrowid, cls, floor))
cal("0badc0de", 0.5, "2026-11-30T09:00:00Z")   # another commit: not used
cal("ed2508bc", 2.5, "2026-11-30T09:00:00Z")   # older: not used
cal("ed2508bc", 1, "2026-11-30T10:00:00Z")     # id 3: the newest for the key
db.commit()
PY
for fmt in "" --json --csv --markdown; do
	run_zl compare "$TMP/a" "$TMP/b3" --fail-on-regression 2 $fmt
	expect_rc 1
	contains "$TMP/out" "calibration 3"
done
run_zl compare "$TMP/a" "$TMP/b3" --fail-on-regression 2
contains "$TMP/out" "floor: calibration 3 (cuda, NVIDIA H200, direct timer, flaggems ed2508bc, 2026-11-30T10:00:00Z): <5us 1%, 5-50us 1%, 50-500us 1%, >=500us 1%"
contains "$TMP/out" "slower beyond its 1% threshold, Mann-Whitney p"
contains "$TMP/out" "5 of 15 gems shapes failed the gate"
run_zl compare "$TMP/a" "$TMP/b3" --fail-on-regression 2 --json
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "3 % under a 1 % calibrated floor"
import json, sys
def size_class(ms):
    return "<5us" if ms < 0.005 else "5-50us" if ms < 0.05 else "50-500us" if ms < 0.5 else ">=500us"
d = json.load(open(sys.argv[1]))
for r in d["rows"]:
    hit = r["side"] == "gems" and r["dtype"] == "torch.float16"
    assert r["verdict"] == ("slower" if hit else "same"), r
    assert r["floor"] == {"pct": 1, "source": "calibration 3", "size_class": size_class(r["a_ms"])}, r["floor"]
    assert r["gate_failed"] == hit
    if hit:
        assert r["ci_low"] > 1 and r["p_value"] < 1e-4
cal = d["floor"]["calibration"]
assert cal["id"] == 3 and cal["flaggems_commit"] == "ed2508bc" and cal["classes"]["<5us"]["floor_pct"] == 1
assert d["gate"]["failed"] and d["gate"]["failed_rows"] == 5
assert not any("overall geomean" in x for x in d["gate"]["reasons"])
PY
# every format carries verdict, ratio, CI, p, method and floor
run_zl compare "$TMP/a" "$TMP/b3" --csv
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "csv columns"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 30
for r in rows:
    for k in ("verdict", "ratio", "ci_low", "ci_high", "p_value", "method", "floor_pct", "floor_source"):
        assert r[k] != "", (k, r)
    assert r["method"] == "samples" and r["floor_source"] == "calibration 3" and float(r["floor_pct"]) == 1
    assert float(r["ci_low"]) < float(r["ratio"]) < float(r["ci_high"])
PY
run_zl compare "$TMP/a" "$TMP/b3" --markdown
contains "$TMP/out" "| op | dtype | shape | side | A us | B us | change | 95% CI | p | verdict | method | floor |"
contains "$TMP/out" "**Floor:** calibration 3 ("
contains "$TMP/out" "| **slower** | samples 500/500 | 1% calibration 3 |"
COLUMNS=200 run_zl compare "$TMP/a" "$TMP/b3"
grep -qE '^op +dtype +shape +side +A us +B us +change +95% CI +p +verdict +method +floor$' "$TMP/out" ||
	fail "text: the table's head"
grep -qE '^mm +float16 .* gems .* \[\+[0-9.]+%, \+[0-9.]+%\] +[0-9.e-]+ +slower +samples 500/500 +1% calibration 3$' "$TMP/out" ||
	fail "text: a slower row with its interval, p, method and floor"
# a calibration of another timer does not match: the fixed floor, and why
mk "$TMP/ag" --run-id 20261129-170000-cuda-mm-hhhhhh --results "$R" --raw-samples 50 --seed 7 \
	--set timer='{"plan": "graph", "used": "graph"}'
run_zl compare "$TMP/ag" "$TMP/ag"
expect_rc 0
contains "$TMP/out" "floor: fixed 5% (no calibration for cuda, NVIDIA H200, graph timer, flaggems ed2508bc in '$DB'; zlbench calibrate measures one)"

# --- bimodal: B's bfloat16 gems rows are unsure with the reason, not forced either way
run_zl compare "$TMP/a" "$TMP/bi" --json
expect_rc 0
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "bimodal"
import json, sys
d = json.load(open(sys.argv[1]))
hit = [r for r in d["rows"] if r["side"] == "gems" and r["dtype"] == "torch.bfloat16"]
assert len(hit) == 5
for r in hit:
    assert r["verdict"] == "unsure" and r["unsure_reason"].startswith("bimodal samples in B: 30% of them near"), r
    assert r["samples"]["b_modes"]["bimodal"] and "zlbench ab --op mm" in r["advice"]
assert {r["verdict"] for r in d["rows"] if r not in hit} == {"same"}
PY

# --- no samples_ms in B: the medians rule, said in every format
run_zl compare "$TMP/a" "$TMP/old" --json
expect_rc 0
[ "$(json_get "$TMP/out" '{(r["method"], r["p_value"], r["ci_low"]) for r in d["rows"]}')" = \
  "{('medians: no samples_ms', None, None)}" ] || fail "fallback in json"
run_zl compare "$TMP/a" "$TMP/old"
contains "$TMP/out" "verdicts: medians: no samples_ms (in B): 30 rows by timer IQR"
run_zl compare "$TMP/a" "$TMP/old" --csv
contains "$TMP/out" ",medians: no samples_ms,"
run_zl compare "$TMP/a" "$TMP/old" --markdown
contains "$TMP/out" "**Verdicts:** medians: no samples_ms (in B)"

# --- drift: the torch side moved 7 %, the line says so with gems/torch next to gems-only
run_zl compare "$TMP/a" "$TMP/drift"
expect_rc 0
grep -qE '^machine drift: torch side geomean 0\.9(29|30|31)[0-9] \[0\.9[0-9]+, 0\.9[0-9]+\] over 15 shapes' "$TMP/out" ||
	fail "text: the drift line"
contains "$TMP/out" "(torch 2.11.0+cu130 in A and B: the same library calls); gems/torch geomean "
run_zl compare "$TMP/a" "$TMP/drift" --json
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "drift json"
import json, sys
d = json.load(open(sys.argv[1]))
dr = d["drift"]
assert dr["moved"] and dr["line"].startswith("machine drift: torch side geomean 0.9"), dr
assert abs(dr["torch"]["geomean"] - 0.93) < 0.003 and dr["torch"]["ci_high"] < 1
gt = d["geomean"]["overall"]["gems_torch"]
assert abs(gt["geomean"] - 1) < 0.003 and abs(d["geomean"]["overall"]["geomean"] - 0.93) < 0.003, gt
PY
run_zl compare "$TMP/a" "$TMP/drift" --markdown
contains "$TMP/out" "**machine drift: torch side geomean 0.9"
run_zl compare "$TMP/a" "$TMP/drift" --csv
contains "$TMP/out" "machine drift: torch side geomean 0.9"
# another torch version in B: the torch side is no control, no drift line
mk "$TMP/drift2" --run-id 20261129-180000-cuda-mm-iiiiii --results "$R" --raw-samples 500 --seed 6 \
	--scale torch=0.93 --scale gems=0.93 --set vendor_guard.torch_version='"2.12.0"'
run_zl compare "$TMP/a" "$TMP/drift2"
expect_rc 0
lacks "$TMP/out" "machine drift"
contains "$TMP/out" "drift control: none (torch 2.11.0+cu130 in A, 2.12.0 in B: the torch side changed too)"
pass
