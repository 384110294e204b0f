#!/bin/bash
# batch --dry-run's estimate from a seeded history: each op's expected duration and where it
# comes from (its history; a guess: the median of its file's known ops, of every known op, or
# the default), the guesses counted, the makespan longest-first over the devices after one
# worker start-up each (the default, then the one the history's batches recorded), 8 devices;
# and the live line's ETA from the same estimate while the batch runs.
. "$(dirname "$0")/lib.sh"
export ZL_KILL_GRACE=2
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"

FG="$TMP/fg"
cp -r "$ZL_SOURCE_DIR/examples/demo" "$FG"
rm -f "$FG"/benchmark/test_*.py
stub() { # stub FILE MARK...: a test file whose tests carry these marks and pass
	local f=$1 m
	shift
	printf 'import pytest\n' >"$FG/benchmark/$f"
	for m in "$@"; do
		printf '\n\n@pytest.mark.%s\ndef test_%s():\n    pass\n' "$m" "$m" >>"$FG/benchmark/$f"
	done
}
stub test_fam_a.py fam_a1 fam_a2 fam_a3
stub test_fam_b.py fam_b1
stub test_fam_c.py fam_c1
stub test_other.py other_x
ARGS=(batch --backend cuda --flaggems-dir "$FG" --python "$ZL_TEST_PYTHON")

# ---- no history at all: every op at the default ----------------------------------------
run_zl "${ARGS[@]}" --devices 0 --ops fam_a1,fam_c1 --dry-run
expect_rc 0
contains "$TMP/out" "fam_a1                       36.0 s  guess: default 36 s"
contains "$TMP/out" "estimate: 2 operators, 0 from their history, 2 guessed (0 from their file's median, 0 from the median of the known ops, 2 at the default of 36 s)"
contains "$TMP/out" "worker start-up: 11.0 s per device (default: none recorded"
contains "$TMP/out" "makespan on 1 device: 1m23s"
lacks "$TMP/out" "goal for the whole suite"

# ---- a seeded history: fam_a1 10 s, fam_a2 20 s (two runs: 18, 22), fam_b1 40 s -----------
seed() {
	"$ZL_TEST_PYTHON" "$MK" "$TMP/hist/$1-$3" --run-id "20260101-00000$3-cuda-$1" --op "$1" \
		--set duration_s="$2" || fail "make_run.py $1"
	run_zl history --ingest "$TMP/hist/$1-$3"
	expect_rc 0
}
seed fam_a1 10 1
seed fam_a2 18 2
seed fam_a2 22 3
seed fam_b1 40 4
run_zl "${ARGS[@]}" --devices 0,1 --ops fam_a1,fam_a2,fam_a3,fam_b1,fam_c1 --dry-run
expect_rc 0
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "the estimate's lines"
import re, sys
text = open(sys.argv[1]).read()
lines = {l.split()[0]: " ".join(l.split()[1:]) for l in text.splitlines() if l.startswith("  fam_")}
assert lines["fam_b1"] == "40.0 s history (1 run) benchmark/test_fam_b.py", lines
assert lines["fam_a2"] == "20.0 s history (2 runs) benchmark/test_fam_a.py", lines
assert lines["fam_a1"] == "10.0 s history (1 run) benchmark/test_fam_a.py", lines
# no history: the median of its file's known ops (10, 20)
assert lines["fam_a3"] == "15.0 s guess: median of 2 ops of its file benchmark/test_fam_a.py", lines
# no history, no known op in its file: the median of every op the history knows (10, 20, 40)
assert lines["fam_c1"] == "20.0 s guess: median of 3 known ops benchmark/test_fam_c.py", lines
order = [l.split()[0] for l in text.splitlines() if l.startswith("  fam_")]
assert order == ["fam_b1", "fam_a2", "fam_c1", "fam_a3", "fam_a1"], order
assert "estimate: 5 operators, 3 from their history, 2 guessed (1 from their file's median, 1 from the median of the known ops, 0 at the default" in text
assert "operators: 1m45s of device time in all" in text, text
# longest first over 2 devices after 11 s each: 51 | 31 -> 51 | 51 -> 66 | 51 -> 66 | 61
assert "makespan on 2 devices: 1m06s (longest first, after each device's worker start-up)" in text, text
# 8 devices: the longest op after one start-up
assert "on 8 devices: 51.0 s" in text, text
PY
# fresh interpreters: no start-up of their own
run_zl "${ARGS[@]}" --devices 0,1 --ops fam_a1,fam_a2,fam_a3,fam_b1,fam_c1 --start fresh --dry-run
expect_rc 0
contains "$TMP/out" "start-up: each operator starts a fresh interpreter, inside its duration"
contains "$TMP/out" "makespan on 2 devices: 55.0 s (longest first)"

# ---- a batch that ran records its workers' start-ups: the next estimate uses them ------------
run_zl "${ARGS[@]}" --devices 0 --ops other_x --progress plain --out "$TMP/b1"
expect_rc 0
run_zl "${ARGS[@]}" --devices 0 --ops fam_b1 --dry-run
expect_rc 0
"$ZL_TEST_PYTHON" - "$TMP/b1" "$TMP/out" <<'PY' || fail "start-up from the history's batches"
import json, os, re, sys
b, out = sys.argv[1:3]
ready = [json.loads(l)["wall_s"] for l in open(os.path.join(b, "workers", "events.jsonl")) if '"ready"' in l]
assert len(ready) == 1, ready
text = open(out).read()
m = re.search(r"worker start-up: ([0-9.]+) s per device \(median of 1 in the newest batches of this host\)", text)
assert m and abs(float(m.group(1)) - ready[0]) < 0.051, (ready, text)
PY

# ---- while it runs: the live line's ETA is the estimate's, not '?' ----------------------------
export ZL_BATCH_PLAN=
run_zl "${ARGS[@]}" --devices 0,1 --ops fam_a1,fam_a2,fam_a3,fam_b1,fam_c1 --progress live --out "$TMP/b2"
expect_rc 0
"$ZL_TEST_PYTHON" - "$TMP/err" <<'PY' || fail "the live ETA"
import re, sys
text = open(sys.argv[1], errors="replace").read()
etas = re.findall(r"ETA (\S+)", text)
assert etas and "?" not in etas, etas
def secs(t):
    m = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", t)
    h, mi, s = (int(x or 0) for x in m.groups())
    return 3600 * h + 60 * mi + s
# the first: the estimate's makespan on 2 devices (40 | 20, 20 | 15, 10 after a start-up of about a
# second; other_x's second-long run moved the known median, so fam_c1 is about 15 s): 45 to 70 s
assert 45 <= secs(etas[0]) <= 70, etas
PY
pass
