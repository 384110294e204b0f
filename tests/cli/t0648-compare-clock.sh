#!/bin/bash
# zlbench compare names the SM clocks of rows it calls faster or slower when A's and B's
# measurements ran 5 % or more apart (timer.jsonl clock_mhz.median): the change may be the
# clocks'. The verdicts stay; rows at the same clock, rows not flagged and rows without a
# clock reading are not named; --json carries every row's clocks.
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" || fail "make_run.py $*"; }
export ZL_HISTORY_DB="$TMP/none.db"

# A at 1620 MHz on both sides; B's torch rows 13 % faster at 1900 MHz, its gems rows the same
# time at 1900 MHz (not flagged: not named)
mk "$TMP/a" --run-id 20261129-100000-cuda-mm-aaaaaa --results "$R" --raw-samples 300 --seed 1 \
	--clock torch=1620 --clock gems=1620
mk "$TMP/b" --run-id 20261129-110000-cuda-mm-bbbbbb --results "$R" --raw-samples 300 --seed 2 \
	--scale torch=0.87 --clock torch=1900 --clock gems=1900
# the same 13 % with the clock unchanged, and with no clock read at all
mk "$TMP/same" --run-id 20261129-120000-cuda-mm-cccccc --results "$R" --raw-samples 300 --seed 2 \
	--scale torch=0.87 --clock torch=1620 --clock gems=1620
mk "$TMP/a0" --run-id 20261129-130000-cuda-mm-dddddd --results "$R" --raw-samples 300 --seed 1
mk "$TMP/b0" --run-id 20261129-140000-cuda-mm-eeeeee --results "$R" --raw-samples 300 --seed 2 \
	--scale torch=0.87

run_zl compare "$TMP/a" "$TMP/b"
expect_rc 0
line=$(grep -hE '^warning: the SM clock moved by 5% or more on 15 of the 15 rows called faster or slower' "$TMP/out" "$TMP/err" | head -1)
[ -n "$line" ] || fail "no clock line: $(cat "$TMP/out" "$TMP/err")"
case "$line" in
*"mm torch.float16 [[384, 384], [384, 384]] (torch) faster, 1620 -> 1900 MHz (+17.3%)"*"; ..."*"interleave A and B (zlbench ab)"*) ;;
*) fail "clock line: $line" ;;
esac
[ "$(grep -o '(torch) faster, 1620 -> 1900 MHz' <<<"$line" | wc -l)" -eq 3 ] || fail "three rows listed: $line"
case "$line" in *"(gems)"*) fail "gems rows were not flagged: $line" ;; esac
grep -qE ' faster ' "$TMP/out" || fail "the verdicts stay"

run_zl compare "$TMP/a" "$TMP/b" --json
expect_rc 0
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "json"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
assert {(r["side"], r["a_clock_mhz"], r["b_clock_mhz"]) for r in rows} == \
    {("torch", 1620, 1900), ("gems", 1620, 1900)}, rows[0]
assert {r["verdict"] for r in rows if r["side"] == "torch"} == {"faster"}
assert any("the SM clock moved" in w for w in d["warnings"]), d["warnings"]
PY

for pair in "a same" "a0 b0"; do
	set -- $pair
	run_zl compare "$TMP/$1" "$TMP/$2" --json
	expect_rc 0
	"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "$pair: a clock line or no faster rows"
import json, sys
d = json.load(open(sys.argv[1]))
assert {r["verdict"] for r in d["rows"] if r["side"] == "torch"} == {"faster"}
assert not any("SM clock" in w for w in d["warnings"]), d["warnings"]
PY
done
pass
