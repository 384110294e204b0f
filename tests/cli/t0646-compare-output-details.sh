#!/bin/bash
# compare: percentages are decimal only (0x10 is not 16); CSV carries the autotune set-up and
# the flags (cache inheritance, ...) as columns that csv.reader loads; Markdown code spans
# survive backticks in A/B variable values.
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" || fail "make_run.py $*"; }

mk "$TMP/a" --run-id 20261129-100000-cuda-mm-aaaaaa --results "$R"
# record vs record on a shared tuner cache, B found A's 12 winners: cache inheritance
mk "$TMP/b" --run-id 20261129-110000-cuda-mm-bbbbbb --results "$R" \
	--set started_at='"2026-11-29T11:00:00Z"' --set tuner_cache.winners_before=12 \
	--set 'env.TRITON_X="a`b``c"' --set 'env.TRITON_Y="`edge`"'

for bad in 0x10 1e1 inf nan -- -1 +3 3..1 . "" 5%% abc; do
	run_zl compare "$TMP/a" "$TMP/b" --fail-on-regression "$bad"
	expect_rc 2
	contains "$TMP/err" "expected a decimal percentage"
	run_zl compare "$TMP/a" "$TMP/b" --threshold "$bad"
	expect_rc 2
done
for good in 16 2.5 .5 5. 5%; do
	run_zl compare "$TMP/a" "$TMP/b" --fail-on-regression "$good" --json
	[ "$RC" -le 1 ] || fail "--fail-on-regression $good refused"
done
run_zl compare "$TMP/a" "$TMP/b" --fail-on-regression 16 --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["gate"]["fail_pct"]')" = 16 ] || fail "16 is 16"

run_zl compare "$TMP/a" "$TMP/b" --csv
expect_rc 0
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "csv autotune/flags columns"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 30
for r in rows:
    assert r["autotune"] == "record vs record: each side autotuned on its own", r["autotune"]
    assert "cache inheritance: B started with 12 tuner winners" in r["flags"], r["flags"]
    assert "autotune: record vs record" in r["flags"], r["flags"]
PY

run_zl compare "$TMP/a" "$TMP/b" --markdown
expect_rc 0
contains "$TMP/out" '- env TRITON_X: `(unset)` → ```a`b``c```'
contains "$TMP/out" '- env TRITON_Y: `(unset)` → `` `edge` ``'
contains "$TMP/out" '### zlbench compare: `20261129-100000-cuda-mm-aaaaaa` → `20261129-110000-cuda-mm-bbbbbb`'
pass
