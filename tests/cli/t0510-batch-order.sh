#!/bin/bash
# batch: longest expected first (durations from the history database; list order without
# it), and a makespan near the lower bound max(longest op, sum / devices).
. "$(dirname "$0")/lib.sh"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
export ZL_KILL_GRACE=2
batch() { run_zl batch --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --progress plain "$@"; }

# history: op -> earlier durations (seconds)
seed() {
	local op=$1 d=$2 n=$3
	"$ZL_TEST_PYTHON" "$MK" "$TMP/hist/$op-$n" --run-id "20260101-00000$n-cuda-$op-$n" --op "$op" \
		--set duration_s="$d" || fail "make_run.py $op"
	run_zl history --ingest "$TMP/hist/$op-$n"
	expect_rc 0
}
seed batch_p01 1 1
seed batch_p02 4 2
seed batch_p03 2 3
seed batch_p04 3 4
seed batch_p04 3 5

# the plan shows the order without running anything
batch --devices 0 --ops batch_p01,batch_p02,batch_p03,batch_p04,batch_p05 --dry-run --out "$TMP/dry"
expect_rc 0
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "dry-run order"
import sys
lines = [l.split() for l in open(sys.argv[1]) if l.startswith("  batch_p")]
# batch_p05 has no history: a guess, the median of the known ops of its file (4, 3, 2, 1: 2.5 s)
assert [l[0] for l in lines] == ["batch_p02", "batch_p04", "batch_p05", "batch_p03", "batch_p01"], lines
assert [l[1] for l in lines] == ["4.0", "3.0", "2.5", "2.0", "1.0"], lines
assert lines[0][3:6] == ["history", "(1", "run)"] and lines[1][3:6] == ["history", "(2", "runs)"], lines
assert " ".join(lines[2][3:11]) == "guess: median of 4 ops of its file", lines
assert all(l[-1] == "benchmark/test_batch_probe.py" for l in lines), lines
PY
contains "$TMP/out" "estimate: 5 operators, 4 from their history, 1 guessed (1 from their file's median"
contains "$TMP/out" "operators: 12.5 s of device time in all"
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "dry-run makespan"
import re, sys
text = open(sys.argv[1]).read()
# one device: the makespan is every op plus one worker start-up (the default: no batch recorded one)
assert "worker start-up: 11.0 s per device (default" in text, text
m = re.search(r"makespan on 1 device: ([0-9.]+) s", text)
assert m and abs(float(m.group(1)) - 23.5) < 0.05, text
m = re.search(r"on 8 devices: ([0-9.]+) s", text)
assert m and abs(float(m.group(1)) - 15.0) < 0.05, text
PY
[ -e "$TMP/dry" ] && fail "--dry-run created the batch directory"

# one device: the start order is the history's, longest first
order() {
	"$ZL_TEST_PYTHON" - "$1" <<'PY'
import csv, json, os, sys
b = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(b, "ops_status.csv"), newline="")))
starts = sorted((json.load(open(os.path.join(b, r["run_dir"], "batch_probe.json")))["start"], r["op"]) for r in rows)
print(",".join(op for _, op in starts))
PY
}
batch --devices 0 --ops batch_p01,batch_p02,batch_p03,batch_p04 --out "$TMP/one"
expect_rc 0
[ "$(order "$TMP/one")" = "batch_p02,batch_p04,batch_p03,batch_p01" ] || fail "start order $(order "$TMP/one")"
# without the history: the list order
ZL_NO_HISTORY=1 batch --devices 0 --ops batch_p01,batch_p02,batch_p03,batch_p04 --out "$TMP/nohist"
expect_rc 0
[ "$(order "$TMP/nohist")" = "batch_p01,batch_p02,batch_p03,batch_p04" ] || fail "list order $(order "$TMP/nohist")"

# two devices, six ops listed shortest first: the batch ends near the lower bound
seed batch_p05 3 6
seed batch_p06 2.5 7
seed batch_p07 2 8
seed batch_p08 1.5 9
export ZL_BATCH_PLAN='{"batch_p05":{"sleep":3},"batch_p06":{"sleep":2.5},"batch_p07":{"sleep":2},"batch_p08":{"sleep":1.5},"batch_p09":{"sleep":1},"batch_p10":{"sleep":1}}'
seed batch_p09 1 10
seed batch_p10 1 11
batch --devices 0,1 --ops batch_p10,batch_p09,batch_p08,batch_p07,batch_p06,batch_p05 --out "$TMP/two"
expect_rc 0
"$ZL_TEST_PYTHON" - "$TMP/two" "$TMP/out" <<'PY' || fail "makespan"
import csv, json, os, re, sys
b, out = sys.argv[1:3]
rows = list(csv.DictReader(open(os.path.join(b, "ops_status.csv"), newline="")))
walls = [float(r["wall_s"]) for r in rows]
# the devices' workers (the default --start) start before their first op: no op's wall has that
ev = os.path.join(b, "workers", "events.jsonl")
ready = [json.loads(l)["wall_s"] for l in open(ev) if '"ready"' in l] if os.path.exists(ev) else [0.0]
lb = max(max(walls), sum(walls) / 2) + max(ready)
m = float(re.search(r"6 operators: .* \(([0-9.]+) s\)", open(out).read()).group(1))
print("makespan %.2f s, lower bound %.2f s (worker start-up %.2f s)" % (m, lb, max(ready)))
# generous: this machine runs other builds; a serial or idling batch would take ~2x
assert m <= 1.15 * lb + 1.5, (m, lb)
assert {r["device"] for r in rows} == {"0", "1"}
PY
pass
