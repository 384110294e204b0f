#!/bin/bash
# zlbench compare by run id once the run directories are gone: both sides are rebuilt from the
# history database (identity and every result row, timer statistics included), the output
# says so, and the figures and the gate are those of the comparison made from the directories.
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" || fail "make_run.py $*"; }
A=20261129-100000-cuda-mm-aaaaaa
B=20261129-110000-cuda-mm-bbbbbb

# B: float16 gems 20 % slower, with timer statistics on both sides
mk "$TMP/runs/a" --run-id $A --results "$R" --timer-iqr 0.01
mk "$TMP/runs/b" --run-id $B --results "$R" --timer-iqr 0.01 --scale gems:float16=1.2 \
	--set started_at='"2026-11-29T11:00:00Z"'
# recorded into the history under ZL_HOME (lib.sh points it into $TMP), as `zlbench run` does
run_zl history --ingest "$TMP/runs/a" "$TMP/runs/b"
expect_rc 0
[ -f "$ZL_HOME/history.db" ] || fail "no history database under ZL_HOME"

run_zl compare $A $B --json --fail-on-regression 5
expect_rc 1
cp "$TMP/out" "$TMP/from-dirs.json"
lacks "$TMP/out" "loaded from history"

rm -rf "$TMP/runs/a" "$TMP/runs/b"
run_zl compare $A $B --json --fail-on-regression 5
expect_rc 1
cp "$TMP/out" "$TMP/from-db.json"
"$ZL_TEST_PYTHON" - "$TMP/from-dirs.json" "$TMP/from-db.json" "$TMP/runs" "$ZL_HOME/history.db" <<'PY' || fail "history-built comparison"
import json, sys
d, h = (json.load(open(p)) for p in sys.argv[1:3])
runs, db = sys.argv[3], sys.argv[4]
for side in "ab":
    note = h[side]["history"]
    assert note == "loaded from history: directory gone ('%s/%s'); identity and 30 result rows from '%s'" \
        % (runs, side, db), note
    assert d[side]["history"] is None
    assert h[side]["has_results"] and h[side]["has_timer"], h[side]
    assert any(w.startswith(side.upper() + ": loaded from history: directory gone") for w in h["warnings"])
assert h["rows"] == d["rows"]
assert h["geomean"] == d["geomean"] and h["gate"] == d["gate"]
assert h["caliber"] == d["caliber"]
assert h["noise"]["rows_iqr"] == 30
assert h["gate"]["failed"] and h["gate"]["failed_rows"] == 5
PY

# the text and Markdown say it too; a unique prefix and the old directory path still name the runs
run_zl compare ${A%-*} "$TMP/runs/b"
expect_rc 0
contains "$TMP/out" "A: $A  passed  $TMP/runs/a"
contains "$TMP/out" "   loaded from history: directory gone ('$TMP/runs/a')"
contains "$TMP/out" "   loaded from history: directory gone ('$TMP/runs/b')"
contains "$TMP/out" "30 rows by timer IQR"
run_zl compare $A $B --markdown
expect_rc 0
contains "$TMP/out" "> A: loaded from history: directory gone"

# a run the history does not hold is still an error (exit 2)
run_zl compare $A 20261129-120000-cuda-mm-cccccc
expect_rc 2
contains "$TMP/err" "no run '20261129-120000-cuda-mm-cccccc'"
run_zl compare $A "$TMP/runs/never"
expect_rc 2
contains "$TMP/err" "'$TMP/runs/never' is not a run directory, and no run"
pass
