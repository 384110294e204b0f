#!/bin/bash
# ab A/A on the bundled demo (no variable: both sides the same set-up), after a calibration:
# no row is called faster or slower; --json puts the document alone on stdout. 4 rounds, as
# t0670: on a loaded 2-core machine one pair of CPU timings can sit far apart, and an A/A is
# judged by what a user would run, not by luck.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
demo_checkout "$TMP/demo"
export ZL_KILL_GRACE=2
common=(--backend cuda --flaggems-dir demo --python "$ZL_TEST_PYTHON")

run_zl calibrate "${common[@]}" --ops add,softmax --out cal -- --iter 20
expect_rc 0

run_zl ab "${common[@]}" --op add --json --rounds 4 --fail-on-regression 50 --out aa -- --iter 20
expect_rc 0
contains "$TMP/err" "AB_DIR=$TMP/aa"
"$ZL_TEST_PYTHON" - "$TMP/out" "$TMP/aa/ab.json" <<'PY' || fail "A/A checks"
import json, sys
d = json.load(open(sys.argv[1]))          # stdout is one JSON document
f = json.load(open(sys.argv[2]))
assert d["rows"] == f["rows"] and d["status"] == f["status"] == "done", "stdout and ab.json differ"
assert d["variables"]["a"]["env"] == {} and d["variables"]["b"]["env"] == {}
assert d["variables"]["a"]["flaggems_dir"] == d["variables"]["b"]["flaggems_dir"]
assert d["caliber_refusals"] == []
flagged = [(r["side"], r["dtype"], r["shape"], r["ratio"], r["ci_low"], r["ci_high"]) for r in d["rows"]
           if r["verdict"] in ("faster", "slower")]
assert not flagged, flagged
assert d["verdicts"]["faster"] == 0 and d["verdicts"]["slower"] == 0, d["verdicts"]
assert len(d["rows"]) == 30 and all(r["n_pairs"] == 4 for r in d["rows"])
assert d["gate"]["failed"] is False, d["gate"]
assert d["verdicts"]["calibration"] == 1, d["verdicts"]
PY
pass
