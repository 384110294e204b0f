#!/bin/bash
# zlbench compare names the rows of which the profiler saw no kernel in any call
# (timer.jsonl's no_device_work): a view op such as tensor_split launches none, and the graph
# timer it falls back to reads next to nothing (on an H200, 21 of its 72 rows were called
# faster or slower between two sweeps with nothing changed). Which side is said; rows with
# device work on both sides are not named; --json carries both sides' facts (null: unknown).
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" || fail "make_run.py $*"; }
export ZL_HISTORY_DB="$TMP/none.db"

mk "$TMP/a" --run-id 20261203-100000-cuda-mm-aaaaaa --results "$R" --raw-samples 100 --seed 1 \
	--no-device-work gems
mk "$TMP/b" --run-id 20261203-110000-cuda-mm-bbbbbb --results "$R" --raw-samples 100 --seed 2 \
	--no-device-work gems --no-device-work torch:float16
mk "$TMP/c" --run-id 20261203-120000-cuda-mm-cccccc --results "$R" --raw-samples 100 --seed 3
mk "$TMP/o" --run-id 20261203-130000-cuda-mm-dddddd --results "$R" --timer-iqr 0.02
rows=$("$ZL_TEST_PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(len(x["result"]) for x in d["mm"]["details"]))' "$R")
f16=$("$ZL_TEST_PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(len(x["result"]) for x in d["mm"]["details"] if x["dtype"] == "torch.float16"))' "$R")

# every gems row on both sides, the float16 torch rows on B's only
run_zl compare "$TMP/a" "$TMP/b"
line=$(grep -hE '^warning: [0-9]+ rows ran no kernel that the profiler saw' "$TMP/out" "$TMP/err" | head -1)
[ -n "$line" ] || fail "no no-kernel line: $(cat "$TMP/out" "$TMP/err")"
case "$line" in
"warning: $((rows + f16)) rows ran no kernel that the profiler saw"*"(A and B)"*"; ...") ;;
*) fail "no-kernel line ($rows gems rows + $f16 float16 torch rows): $line" ;;
esac

run_zl compare "$TMP/a" "$TMP/b" --json
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "json"
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["rows"]:
    gems = r["side"] == "gems"
    assert r["a_no_device_work"] is gems, r
    assert r["b_no_device_work"] is (gems or r["dtype"] == "torch.float16"), r
assert any("ran no kernel that the profiler saw" in w for w in d["warnings"]), d["warnings"]
PY

# the float16 torch rows alone differ between c and b: only B's side is named
run_zl compare "$TMP/c" "$TMP/b"
grep -qE '^warning: [0-9]+ rows ran no kernel that the profiler saw: .*\(torch\) [a-z]+ \(B\)' "$TMP/out" "$TMP/err" ||
	fail "B-only rows: $(cat "$TMP/out" "$TMP/err")"

# device work on both sides: no line; a run without the field: unknown (null)
run_zl compare "$TMP/c" "$TMP/c" --json
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "c vs c"
import json, sys
d = json.load(open(sys.argv[1]))
assert not any("ran no kernel" in w for w in d["warnings"]), d["warnings"]
assert all(r["a_no_device_work"] is False for r in d["rows"])
PY
run_zl compare "$TMP/o" "$TMP/c" --json
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "o vs c: unknown in A"
import json, sys
d = json.load(open(sys.argv[1]))
assert all(r["a_no_device_work"] is None for r in d["rows"]), d["rows"][0]
PY
pass
