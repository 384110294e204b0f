#!/bin/bash
# The four kinds of report page (run, batch, compare, history) rendered by a real headless
# browser (Debian's chromium) at 1280 px and at 360 px: not blank, and nothing drawn beyond
# the page's width (tests/helpers/png_check.py explains the check: a test-only stylesheet
# makes the root box that wide and paints the canvas magenta; anything the page draws past
# it shows up right of it). With ZL_REPORT_PNG_DIR set, the 1280 px screenshots are also
# saved there (cut to 2000 px high): scripts/report-images.sh keeps them in docs/images/.
# Skips (exit 0) when chromium or Pillow is missing outside CI; in CI (CI=true) that fails.
. "$(dirname "$0")/lib.sh"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
ADD="$ZL_SOURCE_DIR/tests/fixtures/runs/add_samples.py"
PNG="$ZL_SOURCE_DIR/tests/helpers/png_check.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
export ZL_KILL_GRACE=2

missing=""
command -v chromium >/dev/null || missing="chromium"
"$ZL_TEST_PYTHON" -c "import PIL" 2>/dev/null || missing="$missing python3-pil"
if [ -n "$missing" ]; then
	[ "${CI:-}" = true ] && fail "missing in CI: $missing (scripts/deps.sh installs them)"
	echo "skip [$TEST_NAME]: $missing not installed (scripts/deps.sh installs them)"
	exit 0
fi

mk() { "$ZL_TEST_PYTHON" "$MK" "$@" >/dev/null || fail "make_run.py $*"; }

# the pages
mk "$TMP/a" --run-id 20261129-100000-cuda-mm-aaaaaa --results "$R" --timer-iqr 0.01
mk "$TMP/b" --run-id 20261129-110000-cuda-mm-bbbbbb --results "$R" --timer-iqr 0.01 \
	--scale gems:float16=1.2 --scale gems:bfloat16=0.9
"$ZL_TEST_PYTHON" "$ADD" "$TMP/a" --seed 1 || fail "add_samples"
"$ZL_TEST_PYTHON" "$ADD" "$TMP/b" --seed 2 || fail "add_samples"
run_zl report "$TMP/a" -o "$TMP/run.html"
expect_rc 0
run_zl report --compare "$TMP/a" "$TMP/b" --fail-on-regression 3 -o "$TMP/compare.html"
expect_rc 0
for i in 1 2 3 4 5 6; do
	commit=ed2508bc
	[ "$i" -ge 3 ] && commit=1a2b3c4d
	gems=$([ "$i" -ge 5 ] && echo 1.2 || echo 1.0$i)
	mk "$TMP/h$i" --run-id "2026110$i-100000-cuda-mm-00000$i" --results "$R" --scale gems="$gems" \
		--set started_at="\"2026-11-0${i}T10:00:00Z\"" --set flaggems.commit="\"$commit\""
	run_zl history --ingest "$TMP/h$i"
	expect_rc 0
done
run_zl report --history --op mm -o "$TMP/history.html"
expect_rc 0
run_zl batch --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --progress none \
	--devices 0,1 --ops mm,add,sum,softmax,crash --out "$TMP/batch"
run_zl report "$TMP/batch" -o "$TMP/batch.html"
expect_rc 0

# render PAGE WIDTH HEIGHT: a screenshot of the page with the test stylesheet, then the checks
render() {
	local page=$1 w=$2 h=$3 name
	name=$(basename "$page" .html)-$w
	sed "s#</style>#html{width:${w}px!important;background:\#ff00ff!important}</style>#" "$page" \
		>"$TMP/$name.html"
	grep -q "html{width:${w}px" "$TMP/$name.html" || fail "cannot add the test stylesheet to $page"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$TMP/chrome.XXXXXX")" --hide-scrollbars \
		--window-size="$((w + 120)),$h" --screenshot="$TMP/$name.png" "file://$TMP/$name.html" \
		>"$TMP/chromium.log" 2>&1 || { cat "$TMP/chromium.log" >&2; fail "chromium failed on $page"; }
	[ -s "$TMP/$name.png" ] || fail "chromium wrote no screenshot of $page"
	"$ZL_TEST_PYTHON" "$PNG" "$TMP/$name.png" "$w" "${@:4}" || fail "$page at $w px"
}

for kind in run compare history batch; do
	render "$TMP/$kind.html" 1280 6000
	render "$TMP/$kind.html" 360 14000
done
# the checks catch what they look for: a page wider than 1280 px, a blank page
sed 's#<main>#<main><div style="width:1400px;height:30px;background:\#123456"></div>#' "$TMP/run.html" >"$TMP/wide.html"
if (render "$TMP/wide.html" 1280 2000) 2>"$TMP/wide.err"; then
	fail "a 1400 px wide block passed the overflow check"
fi
grep -q "overflows horizontally" "$TMP/wide.err" || { cat "$TMP/wide.err"; fail "the wide page failed for another reason"; }
sed 's#<main>#<main style="display:none">#' "$TMP/run.html" >"$TMP/blank.html"
if (render "$TMP/blank.html" 1280 2000) 2>"$TMP/blank.err"; then
	fail "an empty page passed the blank check"
fi
grep -q "looks blank" "$TMP/blank.err" || { cat "$TMP/blank.err"; fail "the blank page failed for another reason"; }

if [ -n "${ZL_REPORT_PNG_DIR:-}" ]; then
	for kind in run compare history batch; do
		render "$TMP/$kind.html" 1280 6000 --crop "$ZL_REPORT_PNG_DIR/report-$kind.png" 2000
	done
fi
pass
