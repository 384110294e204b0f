#!/bin/bash
# zlbench compare --fail-on-regression passes only on evidence: a B that crashed or failed, a
# baseline that did not pass, shapes B lost, or nothing comparable fail the gate (exit 1) with
# a reason in every output format; --allow-missing-shapes gates only the shapes both runs have.
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" || fail "make_run.py $*"; }

mk "$TMP/a" --run-id 20261129-100000-cuda-mm-aaaaaa --results "$R"
# same figures, but B crashed (after FlagGems wrote them)
mk "$TMP/crash" --run-id 20261129-110000-cuda-mm-bbbbbb --results "$R" \
	--set status='"crashed"' --set reason='"killed by signal 11"'
# B crashed before any result
mk "$TMP/empty" --run-id 20261129-110000-cuda-mm-cccccc --set status='"crashed"'
# B passed but lost the float16 shapes
mk "$TMP/lost" --run-id 20261129-110000-cuda-mm-dddddd --results "$R"
"$ZL_TEST_PYTHON" - "$TMP/lost/results.json" <<'PY' || fail "drop float16"
import json, sys
d = json.load(open(sys.argv[1]))
d["mm"]["details"] = [x for x in d["mm"]["details"] if x["dtype"] != "torch.float16"]
json.dump(d, open(sys.argv[1], "w"))
PY
mk "$TMP/a-failed" --run-id 20261129-090000-cuda-mm-eeeeee --results "$R" --set status='"failed"'

# without a gate the comparison works and warns
run_zl compare "$TMP/a" "$TMP/crash"
expect_rc 0
contains "$TMP/out" "warning: B's status is 'crashed' (killed by signal 11), not passed"

for fmt in "" --json --csv --markdown; do
	run_zl compare "$TMP/a" "$TMP/crash" --fail-on-regression 5 $fmt
	expect_rc 1
	contains "$TMP/out" "B's status is 'crashed' (killed by signal 11), not passed: a run that did not pass cannot pass the gate"
	run_zl compare "$TMP/a" "$TMP/empty" --fail-on-regression 5 $fmt
	expect_rc 1
	contains "$TMP/out" "no gems shape has a latency in both A and B"
	contains "$TMP/out" "15 gems shapes of A have no latency in B"
	run_zl compare "$TMP/a" "$TMP/lost" --fail-on-regression 5 $fmt
	expect_rc 1
	contains "$TMP/out" "5 gems shapes of A have no latency in B (first: mm torch.float16"
	run_zl compare "$TMP/a-failed" "$TMP/a" --fail-on-regression 5 $fmt
	expect_rc 1
	contains "$TMP/out" "A's status is 'failed', not passed: a baseline that did not pass is no baseline"
done

run_zl compare "$TMP/a" "$TMP/lost" --fail-on-regression 5 --json
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "lost shapes in json"
import json, sys
d = json.load(open(sys.argv[1]))
g = d["gate"]
assert g["failed"] and g["failed_rows"] == 5, g
lost = [r for r in d["rows"] if r["gate_failed"]]
assert {(r["side"], r["dtype"], r["verdict"]) for r in lost} == {("gems", "torch.float16", "missing")}, lost
PY
run_zl compare "$TMP/a" "$TMP/lost" --fail-on-regression 5 --csv
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "lost shapes in csv"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert {r["gate"] for r in rows if r["dtype"] == "torch.float16" and r["side"] == "gems"} == {"failed"}
assert all(r["gate_result"].startswith("failed: 5 gems shapes of A") for r in rows), rows[0]
PY
# a crashed B without any row still has a CSV line that carries the gate's verdict
run_zl compare "$TMP/empty" "$TMP/empty" --fail-on-regression 5 --csv
expect_rc 1
"$ZL_TEST_PYTHON" -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 1 and rows[0]["op"] == "" and rows[0]["gate_result"].startswith("failed: A"), rows
' "$TMP/out" || fail "csv without rows"

# the opt-out: only the shapes both runs have are gated, the loss is a warning
run_zl compare "$TMP/a" "$TMP/lost" --fail-on-regression 5 --allow-missing-shapes
expect_rc 0
contains "$TMP/out" "gate (--fail-on-regression 5%): passed"
contains "$TMP/out" "warning: 5 gems shapes of A have no latency in B (first: mm torch.float16"
contains "$TMP/out" "not gated (--allow-missing-shapes)"
# ... but not for a crashed B or an empty comparison
run_zl compare "$TMP/a" "$TMP/crash" --fail-on-regression 5 --allow-missing-shapes
expect_rc 1
run_zl compare "$TMP/a" "$TMP/empty" --fail-on-regression 5 --allow-missing-shapes
expect_rc 1
# two passed runs with the same figures still pass
run_zl compare "$TMP/a" "$TMP/a" --fail-on-regression 5
expect_rc 0
lacks "$TMP/out" "not passed"
pass
