#!/bin/bash
# zlbench report RUN_DIR: a valid self-contained page (tests/helpers/html_check.py) with one
# latency/speedup chart per op whose rows are the real H200 results sorted by speedup, the
# caliber named (and "not recorded" where a run predates a field), the warnings that apply,
# escaping, output choices and usage errors.
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
CHECK="$ZL_SOURCE_DIR/tests/helpers/html_check.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" || fail "make_run.py $*"; }
check() { "$ZL_TEST_PYTHON" "$CHECK" "$1" --json "$2" || fail "html_check $1"; }
cd "$TMP"

mk "$TMP/run" --run-id 20261129-100000-cuda-mm-aaaaaa --results "$R" --timer-iqr 0.01
run_zl report "$TMP/run" -o "$TMP/run.html"
expect_rc 0
contains "$TMP/out" "wrote $TMP/run.html"
check "$TMP/run.html" "$TMP/run.json"
"$ZL_TEST_PYTHON" - "$TMP/run.json" "$R" "$TMP/run.html" <<'PY' || fail "run page content"
import json, re, sys
d = json.load(open(sys.argv[1]))
res = json.load(open(sys.argv[2]))
page = open(sys.argv[3]).read()
charts = [s for s in d["svgs"] if s["class"] == "chart"]
assert len(charts) == 2, [s["title"] for s in d["svgs"]]
c = charts[0]
assert c["title"].startswith("mm: latency of torch and FlagGems"), c["title"]
# one row per shape: a ring (torch) and a dot (FlagGems) each, a speedup bar
assert c["classes"]["ring"] == 15 and c["classes"]["g"] == 15 and c["counts"]["rect"] == 15, c["classes"]
# the notes are FlagGems' speedups of the real file, ascending (losses first)
sp = sorted(r["speedup"] for det in res["mm"]["details"] for r in det["result"])
notes = [t[:-1] for t in c["texts"] if re.fullmatch(r"[0-9.e+-]+\u00d7", t)]
assert len(notes) == 15, notes
assert [float(n) for n in notes] == sorted(float(n) for n in notes), notes
# three significant digits, trailing zeros kept: 0.0540, never 0.054; 1.05
assert all(float(a) == float("%.3g" % b) and len(a.replace("0.", "", 1).lstrip("0").replace(".", "")) == 3
           for a, b in zip(notes, sp)), (notes, sp)
losses = sum(s < 1 for s in sp)
assert c["classes"].get("nl", 0) == losses and c["classes"].get("nw", 0) == 15 - losses, c["classes"]
cap = d["figures"][0]["caption"]
assert "15 shapes sorted by speedup" in cap and "(%d with speedup below 1" % losses in cap, cap
# log axis: the latency panel spans the real minimum and maximum
lat = [r[k] for det in res["mm"]["details"] for r in det["result"] for k in ("latency", "latency_base")]
assert min(lat) < 0.01 and max(lat) > 2, (min(lat), max(lat))
ticks = [t for t in c["texts"] if re.fullmatch(r"[0-9.]+k?", t)]
assert "0.01" in ticks and "1" in ticks, ticks
# caliber, by name
for want in ["NVIDIA H200", "GPU-0", "ed2508bc", "2.11.0+cu130", "3.6.0", "h200-node1", "5f5f5f5f5f5f",
             "plan direct, used direct", "record, 3 recorded", "shared, winners 0 before, 12 after",
             "benchmark/test_mm.py", "3.12.3"]:
    assert want in d["text"], want
# fields of this wave are absent in this run: said so
for field in ("NOISE TARGET", "SM CLOCK", "THROTTLED SAMPLES DROPPED"):
    assert re.search(r"<b>%s</b><span class=\"nr\">not recorded</span>" % field, page, re.I), field
assert "not recorded (read as fresh)" in d["text"]
assert "Warnings" not in d["headings"]["h2"]
# the answer first: the verdict line right under the title, before the subtitle and any section
v = page.index('<p class="verdict" id="verdict">')
assert page.index("</h1>") < v < page.index('<p class="sub">') < page.index("<h2>"), "verdict not first"
gm = 1.0
for x in sp:
    gm *= x ** (1.0 / len(sp))
verdict = re.search(r'id="verdict">(.*?)</p>', page).group(1)
verdict = re.sub(r"<[^>]+>", "", verdict)
assert verdict.startswith("FlagGems is faster on %d shapes and slower on %d shapes of 15; geomean speedup %.2f\u00d7 (95 %% interval "
                          % (15 - losses, losses, gm)), (verdict, gm)
assert page.index("<h2>Caliber</h2>") > page.index("how close to the hardware"), "caliber before the charts"
# how close to the hardware: a roofline of the 15 shapes, torch rings and FlagGems dots, under the H200's roofs
rf = charts[1]
assert rf["title"] == "mm: achieved TFLOP/s against arithmetic intensity under the device's roofs", rf["title"]
assert rf["counts"]["circle"] == 30 and rf["classes"]["ring"] == 15, rf["classes"]
assert {"HBM 4.8 TB/s", "fp16, bf16 989.5 TFLOP/s", "fp32 67 TFLOP/s"} <= set(rf["texts"]), rf["texts"]
# each point's tooltip is its sentence: FlagGems' own tflops for the fp16 4096 shape is 599
assert any(t.startswith("f16 [[4096,4096],[4096,4096]], FlagGems at 0.2294 ms moves 96 MiB: 439 GB/s, 9.1 % of the 4.8 TB/s "
                        "HBM peak; does 137 GFLOP: 599 TFLOP/s, 61 % of the 990 TFLOP/s fp16 peak") for t in rf["tips"]), rf["tips"]
eff = re.search(r'<p class="eff">(.*?)</p>', page).group(1)
assert eff.startswith("The largest, f32 [[4096,4096],[4096,4096]]: torch at 2.687 ms moves 192 MiB: 74.9 GB/s, 1.6 % of the "
                      "4.8 TB/s HBM peak; does 137 GFLOP: 51.1 TFLOP/s, 76 % of the 67 TFLOP/s fp32 peak; FlagGems at "
                      "2.196 ms"), eff
cap = [f["caption"] for f in d["figures"] if f["id"] == "eff-mm"][0]
assert "Counted by bytes: GEMM: A (MxK) and B (KxN) read once, C (MxN) written once" in cap, cap
assert "Peaks: H200 SXM, from the NVIDIA H200 Tensor Core GPU datasheet" in cap, cap
PY

# this wave's fields, and the warnings that apply
mk "$TMP/new" --run-id 20261129-110000-cuda-mm-bbbbbb --results "$R" \
	--set timer='{"plan":"profiler","used":"mixed","profiler":28,"graph":0,"direct":2,"fallbacks":2,"noise_target":0.005,"max_time_per_shape_s":2,"clock_mhz":{"min":1410,"median":1980,"max":1980,"max_supported":1980},"clock_source":"nvml","dropped_throttled":12}' \
	--set start='{"mode":"reused","ops_before":3,"worker_pid":4242}' \
	--set foreign_vendor='{"own":"nvidia","vendors":["mthreads"],"modules":[{"module":"_mthreads.ops","vendor":"mthreads","first_test":"benchmark/test_mm.py::test_mm"}]}' \
	--set tuner_cache.winners_before=12 --set flaggems.dirty=true
mkdir -p "$TMP/new/plugins"
printf '{"fallback_reasons": ["profiler saw no kernel"]}\n' >"$TMP/new/plugins/timer_summary.json"
run_zl report "$TMP/new" -o "$TMP/new.html"
expect_rc 0
check "$TMP/new.html" "$TMP/new.json"
"$ZL_TEST_PYTHON" - "$TMP/new.json" <<'PY' || fail "new fields and warnings"
import json, sys
t = json.load(open(sys.argv[1]))["text"]
for want in ["plan profiler, used mixed (28 profiler, 0 graph, 2 direct, 2 fallbacks)",
             "0.5 %, at most 2 s per shape", "1410 / 1980 / 1980 MHz (min / median / max) of 1980, nvml",
             "reused after 3 ops", "ed2508bc (dirty)",
             "timer fallbacks: 2 measurements were not timed by the planned profiler timer: profiler saw no kernel",
             "throttled samples: 12 samples were dropped",
             "throttled clock: the SM clock went down to 1410 MHz of 1980",
             "foreign vendor modules: 1 module of mthreads was loaded (first _mthreads.ops, brought in by benchmark/test_mm.py::test_mm)",
             "inherited tuner winners: the run started with 12 winners",
             "interpreter reused: this op ran in a Python process that had run 3 ops before it",
             "FlagGems checkout has uncommitted changes"]:
    assert want in t, want
PY

# a failed run without results: its page says so; a reason is escaped, never markup
mk "$TMP/failed" --run-id 20261129-120000-cuda-mm-cccccc --set status='"failed"' --set exit_code=1 \
	--set reason='"<script>alert(1)</script> & \"quotes\""' --set timer.clock_source='"unknown: no nvml"'
run_zl report "$TMP/failed" -o "$TMP/failed.html"
expect_rc 0
check "$TMP/failed.html" "$TMP/failed.json"
contains "$TMP/failed.html" "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;"
contains "$TMP/failed.html" "No results: the run left no readable results.json."
grep -q '<p class="verdict" id="verdict"><strong class="v-failed">failed: &lt;script&gt;' "$TMP/failed.html" ||
	fail "the failed run's verdict does not name its status and reason first"
contains "$TMP/failed.html" "unknown clocks: the SM clock was not read (unknown: no nvml)"
contains "$TMP/failed.html" '<div class="bad"><strong>Warnings</strong>'

# a status that is no status zlbench writes never becomes markup: the verdict's class is v-other
mk "$TMP/odd" --run-id 20261129-130000-cuda-mm-dddddd --results "$R" --set status='"x\" onmouseover=\"y"'
run_zl report "$TMP/odd" -o "$TMP/odd.html"
expect_rc 0
check "$TMP/odd.html" "$TMP/odd.json"
contains "$TMP/odd.html" '<p class="verdict" id="verdict"><strong class="v-other">x&quot; onmouseover=&quot;y.</strong>'
lacks "$TMP/odd.html" 'onmouseover="y'

# output: standard output with -o -, report.html by default, never a half-written file
run_zl report "$TMP/run" -o -
expect_rc 0
head -c 15 "$TMP/out" | grep -q '<!DOCTYPE html>' || fail "-o - did not print the page"
cmp -s <(sed 's/ at [0-9TZ:-]*\. One/. One/' "$TMP/out") <(sed 's/ at [0-9TZ:-]*\. One/. One/' "$TMP/run.html") ||
	fail "-o - and -o FILE differ"
mkdir "$TMP/cwd" && cd "$TMP/cwd"
run_zl report "$TMP/run"
expect_rc 0
[ -f "$TMP/cwd/report.html" ] || fail "no report.html in the current directory"
ls "$TMP/cwd" | grep -q tmp && fail "a temporary file was left behind"
run_zl -q report "$TMP/run" -o "$TMP/cwd/quiet.html"
expect_rc 0
[ -s "$TMP/out" ] && fail "--quiet still printed: $(cat "$TMP/out")"
run_zl report "$TMP/run" -o "$TMP/no/such/dir/x.html"
expect_rc 1
contains "$TMP/err" "$TMP/no/such/dir/x.html"

# usage errors name the culprit
run_zl report "$TMP/nothing"
expect_rc 2
contains "$TMP/err" "'$TMP/nothing' is not a directory"
mkdir "$TMP/empty"
run_zl report "$TMP/empty"
expect_rc 2
contains "$TMP/err" "'$TMP/empty' is neither a run, a batch nor an A/B directory (no run_identity.json, batch.json or ab.json)"
run_zl report
expect_rc 2
contains "$TMP/err" "report needs one run, batch or A/B directory (got 0)"
run_zl report "$TMP/run" --op mm
expect_rc 2
contains "$TMP/err" "--op, --since and --backend select runs for --history only"
run_zl report --compare "$TMP/run"
expect_rc 2
contains "$TMP/err" "--compare needs two runs, A and B (got 1)"
run_zl report --compare "$TMP/run" "$TMP/run" --threshold abc
expect_rc 2
contains "$TMP/err" "invalid --threshold 'abc'"
run_zl report --help
expect_rc 0
contains "$TMP/out" "usage: zlbench report RUN_DIR|BATCH_DIR|AB_DIR"
pass
