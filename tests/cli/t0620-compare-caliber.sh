#!/bin/bash
# zlbench compare: a caliber mismatch is refused with exit 2, one line per field;
# --allow-caliber-mismatch compares anyway and every output format says so.
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" || fail "make_run.py $*"; }

mk "$TMP/a" --run-id 20261129-100000-cuda-mm-aaaaaa --results "$R"
mk "$TMP/same" --run-id 20261129-110000-cuda-mm-bbbbbb --results "$R"
mk "$TMP/other" --run-id 20261129-120000-cuda-mm-cccccc --results "$R" \
	--set level='"comprehensive"' \
	--set devices='[{"index": 0, "name": "NVIDIA H100 80GB HBM3"}]'

run_zl compare "$TMP/a" "$TMP/other"
expect_rc 2
contains "$TMP/err" "caliber mismatch: level: core vs comprehensive"
contains "$TMP/err" "caliber mismatch: device name: NVIDIA H200 vs NVIDIA H100 80GB HBM3"
[ "$(grep -c 'caliber mismatch:' "$TMP/err")" -eq 2 ] || fail "one line per differing field"
[ ! -s "$TMP/out" ] || fail "a refused comparison prints no table"
run_zl compare "$TMP/a" "$TMP/other" --json
expect_rc 2
[ ! -s "$TMP/out" ] || fail "a refused comparison prints no json"

# allowed: each format carries the mismatch
run_zl compare "$TMP/a" "$TMP/other" --allow-caliber-mismatch
expect_rc 0
contains "$TMP/out" "WARNING: caliber mismatch allowed (--allow-caliber-mismatch): device name: NVIDIA H200 vs NVIDIA H100 80GB HBM3; level: core vs comprehensive"
run_zl compare "$TMP/a" "$TMP/other" --allow-caliber-mismatch --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["caliber"]["mismatch_allowed"]')" = True ] || fail "json: mismatch_allowed"
[ "$(json_get "$TMP/out" '[m["field"] for m in d["caliber"]["mismatches"]]')" = "['device name', 'level']" ] ||
	fail "json: mismatch fields"
[ "$(json_get "$TMP/out" '"level: core vs comprehensive" in d["warning"]')" = True ] || fail "json: warning"
run_zl compare "$TMP/a" "$TMP/other" --allow-caliber-mismatch --csv
expect_rc 0
"$ZL_TEST_PYTHON" -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 30, len(rows)
assert all(r["caliber"].startswith("mismatch allowed: ") and "level: core vs comprehensive" in r["caliber"]
           for r in rows)
' "$TMP/out" || fail "csv: caliber column"
run_zl compare "$TMP/a" "$TMP/other" --allow-caliber-mismatch --markdown
expect_rc 0
contains "$TMP/out" "**Warning: caliber mismatch allowed**"

# matching caliber: no warning anywhere
run_zl compare "$TMP/a" "$TMP/same"
expect_rc 0
contains "$TMP/out" "caliber: ok"
lacks "$TMP/out" "WARNING"
run_zl compare "$TMP/a" "$TMP/same" --json
[ "$(json_get "$TMP/out" 'd["caliber"]["ok"] and "warning" not in d')" = True ] || fail "json: ok"
run_zl compare "$TMP/a" "$TMP/same" --csv
lacks "$TMP/out" "mismatch"
run_zl compare "$TMP/a" "$TMP/same" --markdown
lacks "$TMP/out" "mismatch"
contains "$TMP/out" "**Caliber:** ok"

# usage
run_zl compare "$TMP/a"
expect_rc 2
contains "$TMP/err" "two runs"
run_zl compare "$TMP/a" "$TMP/same" --json --csv
expect_rc 2
run_zl compare "$TMP/a" "$TMP/nosuch"
expect_rc 2
contains "$TMP/err" "$TMP/nosuch"
run_zl compare "$TMP/a" "$TMP/same" --threshold abc
expect_rc 2
contains "$TMP/err" "invalid --threshold 'abc'"
pass
