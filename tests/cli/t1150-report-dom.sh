#!/bin/bash
# The report pages read from the top in a real browser (Debian's headless chromium), measured
# from their DOM by tests/helpers/dom_check.py (a test-only wrapper page holds each report in
# an iframe of the size asked for and measures it; the reports themselves stay script-free):
#   - at 1366x768 the verdict line of every page (run, batch, compare, A/B, history) ends
#     above the fold;
#   - the batch page opens with its op table ("Ops"), before any other section;
#   - at 360 px nothing is cut: no element reaches past the viewport outside a box that
#     scrolls, the page never scrolls sideways, and the caliber tables and grids fit.
# The checks are shown to fail on pages that break each rule.
# Skips (exit 0) when chromium is missing outside CI; in CI (CI=true) that fails.
. "$(dirname "$0")/lib.sh"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
ADD="$ZL_SOURCE_DIR/tests/fixtures/runs/add_samples.py"
DOM="$ZL_SOURCE_DIR/tests/helpers/dom_check.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
export ZL_KILL_GRACE=2

if ! command -v chromium >/dev/null; then
	[ "${CI:-}" = true ] && fail "missing in CI: chromium (scripts/deps.sh installs it)"
	echo "skip [$TEST_NAME]: chromium not installed (scripts/deps.sh installs it)"
	exit 0
fi
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" >/dev/null || fail "make_run.py $*"; }
dom() { "$ZL_TEST_PYTHON" "$DOM" "$@" 2>"$TMP/dom.err" || { cat "$TMP/dom.err" >&2; fail "dom_check $*"; }; }

# the pages: a run, a comparison, an A/B directory, a history, a real batch of the fixture ops
mk "$TMP/a" --run-id 20261129-100000-cuda-mm-aaaaaa --results "$R" --timer-iqr 0.01
mk "$TMP/b" --run-id 20261129-110000-cuda-mm-bbbbbb --results "$R" --timer-iqr 0.01 \
	--scale gems:float16=1.2 --scale gems:bfloat16=0.9
"$ZL_TEST_PYTHON" "$ADD" "$TMP/a" --seed 1 || fail "add_samples"
"$ZL_TEST_PYTHON" "$ADD" "$TMP/b" --seed 2 || fail "add_samples"
run_zl report "$TMP/a" -o "$TMP/run.html"
expect_rc 0
run_zl report --compare "$TMP/a" "$TMP/b" --fail-on-regression 3 -o "$TMP/compare.html"
expect_rc 0
mkdir -p "$TMP/ab"
for r in A1 B1 B2 A2; do
	scale=1.0
	[ "${r:0:1}" = B ] && scale=1.2
	mk "$TMP/ab/$r" --run-id "20261129-12000${r:1:1}-cuda-mm-${r}${r}${r}" --results "$R" --timer-iqr 0.01 --scale gems="$scale"
done
printf '{"op": "mm", "rounds": ["A1", "B1", "B2", "A2"]}\n' >"$TMP/ab/ab.json"
run_zl report "$TMP/ab" -o "$TMP/ab.html"
expect_rc 0
for i in 1 2 3 4 5 6; do
	status='"passed"'
	[ "$i" = 4 ] && status='"failed"'
	mk "$TMP/h$i" --run-id "2026110$i-100000-cuda-mm-00000$i" --results "$R" --scale gems="1.0$i" \
		--set started_at="\"2026-11-0${i}T10:00:00Z\"" --set status="$status"
	run_zl history --ingest "$TMP/h$i"
	expect_rc 0
done
run_zl report --history --op mm -o "$TMP/history.html"
expect_rc 0
run_zl batch --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --progress none \
	--devices 0,1 --ops mm,add,sum,softmax,crash,fail --out "$TMP/batch"
run_zl report "$TMP/batch" -o "$TMP/batch.html"
expect_rc 0

# the answer above the fold on a laptop screen; nothing cut on a phone
for page in run compare ab history batch; do
	dom "$TMP/$page.html" --width 1366 --height 768 --verdict-above-fold
	dom "$TMP/$page.html" --width 360 --height 740 --verdict-above-fold --no-cut
done
dom "$TMP/batch.html" --width 1366 --height 768 --first-h2 Ops
dom "$TMP/batch.html" --width 360 --height 740 --first-h2 Ops --fits .cal
dom "$TMP/compare.html" --width 360 --height 740 --fits .caltab
dom "$TMP/run.html" --width 360 --height 740 --fits .cal --fits .verdict

# each check fails where its rule is broken
sed 's#<p class="verdict"#<div style="height:900px"></div>&#' "$TMP/run.html" >"$TMP/low.html"
if "$ZL_TEST_PYTHON" "$DOM" "$TMP/low.html" --width 1366 --height 768 --verdict-above-fold 2>"$TMP/e1"; then
	fail "a verdict 900 px down passed the fold check"
fi
grep -q "the verdict is not above the fold" "$TMP/e1" || fail "the low verdict failed otherwise: $(cat "$TMP/e1")"
sed 's#<main>#<main><div style="width:600px;height:20px">wide</div>#' "$TMP/run.html" >"$TMP/wide.html"
if "$ZL_TEST_PYTHON" "$DOM" "$TMP/wide.html" --width 360 --height 740 --no-cut 2>"$TMP/e2"; then
	fail "a 600 px block passed the 360 px check"
fi
grep -q "cut at 6" "$TMP/e2" || fail "the wide page failed otherwise: $(cat "$TMP/e2")"
if "$ZL_TEST_PYTHON" "$DOM" "$TMP/compare.html" --width 1366 --height 768 --first-h2 Ops 2>"$TMP/e3"; then
	fail "the compare page passed as opening with the op table"
fi
grep -q "the first section is 'B/A per row', not 'Ops'" "$TMP/e3" || fail "$(cat "$TMP/e3")"
sed 's#</style>#.caltab td{white-space:nowrap!important}</style>#' "$TMP/compare.html" >"$TMP/nowrap.html"
if "$ZL_TEST_PYTHON" "$DOM" "$TMP/nowrap.html" --width 360 --height 740 --fits .caltab 2>"$TMP/e4"; then
	fail "an unwrapped caliber table passed the fit check at 360 px"
fi
grep -q "'.caltab' does not fit" "$TMP/e4" || fail "$(cat "$TMP/e4")"
pass
