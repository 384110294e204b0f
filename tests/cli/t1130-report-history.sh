#!/bin/bash
# zlbench report --history: nine stored runs of mm (real H200 results, scaled): the FlagGems
# commit changes before run 4, the timer before run 8, and FlagGems gets 20 % slower from run
# 6 on, run-to-run noise +-1 %. Every trend (the op's speedup and each shape's latencies)
# shows both changes as breaks and exactly one shift, at run 6, on the FlagGems series only;
# --since and --backend filter; usage errors.
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
CHECK="$ZL_SOURCE_DIR/tests/helpers/html_check.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
check() { "$ZL_TEST_PYTHON" "$CHECK" "$1" --json "$2" || fail "html_check $1"; }

run_zl report --history -o "$TMP/none.html"
expect_rc 2
contains "$TMP/err" "no history database at"

for i in 1 2 3 4 5 6 7 8 9; do
	commit=ed2508bc timer=direct inputs=
	[ "$i" -ge 4 ] && commit=1a2b3c4d
	# run 2 records where its inputs were drawn, the others predate the field: the same, no break
	[ "$i" -eq 2 ] && inputs=flaggems
	[ "$i" -ge 8 ] && timer=graph
	read -r gems torch < <("$ZL_TEST_PYTHON" -c "
import random
r = random.Random($i)
print(round(1 + r.uniform(-0.01, 0.01) + (0.2 if $i >= 6 else 0), 4), round(1 + r.uniform(-0.01, 0.01), 4))")
	"$ZL_TEST_PYTHON" "$MK" "$TMP/r$i" --run-id "2026110$i-100000-cuda-mm-00000$i" --results "$R" \
		--scale gems="$gems" --scale torch="$torch" --set started_at="\"2026-11-0${i}T10:00:00Z\"" \
		--set flaggems.commit="\"$commit\"" --set timer.plan="\"$timer\"" --set timer.used="\"$timer\"" \
		${inputs:+--set inputs="{\"draw\": \"$inputs\"}"} || fail "make_run.py $i"
	run_zl history --ingest "$TMP/r$i"
	expect_rc 0
done
# another op and another backend, left out by the filters below
"$ZL_TEST_PYTHON" "$MK" "$TMP/musa" --run-id 20261105-110000-musa-mm-musa01 --results "$R" \
	--set backend='"musa"' --set started_at='"2026-11-05T11:00:00Z"' || fail "make_run.py musa"
run_zl history --ingest "$TMP/musa"

run_zl report --history --op mm --backend cuda -o "$TMP/h.html"
expect_rc 0
check "$TMP/h.html" "$TMP/h.json"
"$ZL_TEST_PYTHON" - "$TMP/h.json" <<'PY' || fail "history page"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["headings"]["h1"] == ["zlbench history"] and "mm" in d["headings"]["h2"], d["headings"]
assert "9 runs of mm on cuda" in d["text"], d["text"][:200]
svgs = d["svgs"]
assert len(svgs) == 1 + 15, [s["title"] for s in svgs]
assert svgs[0]["title"] == "mm: geomean speedup of FlagGems over torch per run"
for s in svgs:
    # the commit change between run 3 and run 4, the timer's between 7 and 8: two breaks, labelled
    assert s["classes"].get("brk", 0) == 4 and "commit" in s["texts"] and "timer" in s["texts"], \
        (s["title"], s["classes"], s["texts"])
    assert any("FlagGems commit: ed2508bc \u2192 1a2b3c4d" in t for t in s["tips"]), s["tips"]
    assert any("timer plan: direct \u2192 graph; timer used: direct \u2192 graph" in t for t in s["tips"]), s["tips"]
    shifts = [t for t in s["tips"] if "shifted" in t]
    if s is svgs[0]:
        assert shifts == ["FlagGems speedup shifted down here (beyond its noise)"], shifts
        assert s["classes"].get("l", 0) == 1, s["classes"]
    else:
        # FlagGems 20 % slower at run 6; torch never moved beyond its 1 % noise
        assert shifts == ["FlagGems shifted up here (beyond its noise)"], (s["title"], shifts)
    # the shift sits on the point of run 6 (11-06)
    pts = [t for t in s["tips"] if t.startswith("FlagGems")]
    i = s["tips"].index(shifts[0])
    assert s["tips"][i - 1].startswith("FlagGems") and "11-06 10:00" in s["tips"][i - 1], s["tips"][i - 1]
assert "before 20261104-100000-cuda-mm-000004 (11-04 10:00): FlagGems commit: ed2508bc \u2192 1a2b3c4d" in d["text"]
assert d["table_rows"][-1] == 10, d["table_rows"]
assert "musa" not in d["text"].split("Runs")[-1]
PY

"$ZL_TEST_PYTHON" - "$TMP/h.html" <<'PY' || fail "history lines and labels"
import re, sys
page = open(sys.argv[1]).read()
# the answer first: runs, the latest speedup, the caliber changes and shifts, under the title
v = re.sub(r"<[^>]+>", "", re.search(r'<p class="verdict" id="verdict">(.*?)</p>', page).group(1))
assert v.startswith("9 runs of 1 op, 11-01 10:00 to 11-09 10:00. mm: FlagGems speedup "), v
assert "in the latest run (first " in v and "2 caliber changes, " in v, v
assert page.index('id="verdict"') < page.index("<h2"), "verdict not first"
svgs = re.findall(r"<svg.*?</svg>", page, re.S)
for svg in svgs:
    # each line stops at the two caliber changes: three pieces per series
    for path in re.findall(r'<path class="[gt] ln" d="([^"]*)"', svg):
        assert path.count("M") == 3, path
    # a diamond on the axis per break
    assert len(re.findall(r'<path class="u" d="M[0-9.]+ [0-9.]+l4 4l-4 4l-4 -4z"', svg)) == 2
    # x labels: never the same text twice
    labels = re.findall(r'<text x="[0-9.]+" y="[0-9.]+" class="tl c">([^<]*)</text>', svg)
    assert len(labels) == len(set(labels)) >= 2, labels
PY

# one series per backend and device; a run that did not pass is a mark on the axis, not a point
"$ZL_TEST_PYTHON" "$MK" "$TMP/r10" --run-id 20261110-100000-cuda-mm-000010 --results "$R" \
	--set started_at='"2026-11-10T10:00:00Z"' --set timer.plan='"graph"' --set timer.used='"graph"' \
	--set flaggems.commit='"1a2b3c4d"' --set status='"failed"' --set reason='"a kernel failed"' ||
	fail "make_run.py failed run"
run_zl history --ingest "$TMP/r10"
run_zl report --history --op mm -o "$TMP/all.html"
expect_rc 0
check "$TMP/all.html" "$TMP/all.json"
"$ZL_TEST_PYTHON" - "$TMP/all.json" "$TMP/all.html" <<'PY' || fail "history groups"
import json, re, sys
d = json.load(open(sys.argv[1]))
page = open(sys.argv[2]).read()
sp = d["svgs"][0]
assert "FlagGems speedup, cuda \u00b7 NVIDIA H200" in sp["texts"] and "FlagGems speedup, musa \u00b7 NVIDIA H200" in sp["texts"], sp["texts"]
# the musa run is not a break in the cuda line (breaks are counted within a backend and device)
assert sp["classes"].get("brk", 0) == 4, sp["classes"]
assert sum(t.startswith("FlagGems speedup, musa") for t in sp["tips"]) == 1, sp["tips"]
assert any(t == "20261110-100000-cuda-mm-000010: failed: a kernel failed" for t in sp["tips"]), sp["tips"]
assert not any("11-10 10:00" in t and t.startswith("FlagGems speedup, cuda") for t in sp["tips"]), "the failed run drawn as a point"
v = re.sub(r"<[^>]+>", "", re.search(r'id="verdict">(.*?)</p>', page).group(1))
assert "11 runs of 1 op" in v and "(1 run did not pass)" in v, v
PY

run_zl report --history --since 2026-11-05 -o "$TMP/since.html"
expect_rc 0
contains "$TMP/since.html" "7 runs since 2026-11-05T00:00:00Z"
run_zl report --history --since yesterday
expect_rc 2
contains "$TMP/err" "invalid --since 'yesterday'"
run_zl report --history --backend nosuch
expect_rc 2
contains "$TMP/err" "unknown backend 'nosuch'"
run_zl report --history --op nosuch -o "$TMP/empty.html"
expect_rc 0
contains "$TMP/empty.html" "No stored run matches."
run_zl report --history "$TMP/r1"
expect_rc 2
contains "$TMP/err" "--history takes no directory"

# inputs drawn on the device (--draw-inputs device) break the trend like another timer
for i in 1 2; do
	draw=flaggems
	[ "$i" -eq 2 ] && draw=device
	"$ZL_TEST_PYTHON" "$MK" "$TMP/d$i" --run-id "2026112$i-100000-cuda-mm-0000d$i" --results "$R" \
		--set started_at="\"2026-11-2${i}T10:00:00Z\"" --set inputs="{\"draw\": \"$draw\"}" || fail "make_run.py d$i"
	ZL_HISTORY_DB="$TMP/d.db" run_zl history --ingest "$TMP/d$i"
	expect_rc 0
done
ZL_HISTORY_DB="$TMP/d.db" run_zl report --history --op mm -o "$TMP/d.html"
expect_rc 0
check "$TMP/d.html" "$TMP/d.json"
"$ZL_TEST_PYTHON" - "$TMP/d.json" <<'PY' || fail "inputs break"
import json, sys
s = json.load(open(sys.argv[1]))["svgs"][0]
assert s["classes"].get("brk", 0) == 2 and "inputs" in s["texts"], (s["classes"], s["texts"])
assert any("caliber change: inputs drawn: flaggems \u2192 device" in t for t in s["tips"]), s["tips"]
PY
pass
