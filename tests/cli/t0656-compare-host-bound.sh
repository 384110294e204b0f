#!/bin/bash
# zlbench compare names the rows whose samples held the host's issue time on either side
# (timer.jsonl's host_bound: the calls queue their kernels slower than the device runs them,
# past the profiler timer's longest hold; on an H200 the torch side of FlagGems' mhc_bwd, 256
# kernels a call, read 4.2 ms in one sweep and 1.4 ms in the next). Rows host-bound on
# neither side are not named; --json carries both sides' facts on every row (null: unknown).
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" || fail "make_run.py $*"; }
export ZL_HISTORY_DB="$TMP/none.db"

mk "$TMP/a" --run-id 20261203-100000-cuda-mm-aaaaaa --results "$R" --raw-samples 100 --seed 1
mk "$TMP/b" --run-id 20261203-110000-cuda-mm-bbbbbb --results "$R" --raw-samples 100 --seed 2 \
	--host-bound torch
mk "$TMP/c" --run-id 20261203-120000-cuda-mm-cccccc --results "$R" --raw-samples 100 --seed 3
mk "$TMP/o" --run-id 20261203-130000-cuda-mm-dddddd --results "$R" --timer-iqr 0.02
rows=$("$ZL_TEST_PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(len(x["result"]) for x in d["mm"]["details"]))' "$R")

run_zl compare "$TMP/a" "$TMP/b"
line=$(grep -hE '^warning: [0-9]+ rows timed the host as well as the device' "$TMP/out" "$TMP/err" | head -1)
[ -n "$line" ] || fail "no host-bound line: $(cat "$TMP/out" "$TMP/err")"
case "$line" in
"warning: $rows rows timed the host as well as the device"*"(torch) "*" (B)"*"; ...") ;;
*) fail "host-bound line ($rows torch rows): $line" ;;
esac
case "$line" in *"(gems)"*) fail "gems rows are not host-bound: $line" ;; esac

# the other way round, the side is A's
run_zl compare "$TMP/b" "$TMP/a"
grep -qE '^warning: [0-9]+ rows timed the host as well as the device.*\(torch\) [a-z]+ \(A\)' "$TMP/out" "$TMP/err" ||
	fail "A's host-bound rows: $(cat "$TMP/out" "$TMP/err")"

run_zl compare "$TMP/a" "$TMP/b" --json
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "json"
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["rows"]:
    assert r["a_host_bound"] is False, r
    assert r["b_host_bound"] is (r["side"] == "torch"), r
assert any("timed the host" in w for w in d["warnings"]), d["warnings"]
PY

# neither side host-bound: no line; a run whose timer.jsonl has no such field: unknown (null)
run_zl compare "$TMP/a" "$TMP/c" --json
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "a vs c: a host-bound line"
import json, sys
d = json.load(open(sys.argv[1]))
assert not any("timed the host" in w for w in d["warnings"]), d["warnings"]
PY
run_zl compare "$TMP/o" "$TMP/b" --json
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "o vs b: unknown in A"
import json, sys
d = json.load(open(sys.argv[1]))
assert all(r["a_host_bound"] is None for r in d["rows"]), [r["a_host_bound"] for r in d["rows"]]
assert any("timed the host" in w for w in d["warnings"]), d["warnings"]
PY
pass
