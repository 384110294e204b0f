#!/bin/bash
# zlbench compare: a profiler-timed run and a graph-timed one differ in caliber (timer.plan):
# refused without --allow-caliber-mismatch; so do profiler runs whose calls were synced and
# queued (timer.profiler_call_mode, absent: queued), and profiler runs that settled long calls
# on their own batches against runs that did not record it (timer.profiler_settle, absent:
# unrecorded), and runs whose integer inputs were drawn on the device against FlagGems' draws
# (inputs.draw, absent: flaggems); a different noise target is listed, not refused.
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" || fail "make_run.py $*"; }
timer() { # PLAN USED NOISE: an identity timer block as the plugins write it
	printf '{"plan": "%s", "used": "%s", "profiler": %d, "graph": %d, "direct": 0, "fallbacks": 0, "noise_target": %s, "max_time_per_shape_s": 0.3, "clock_mhz": {"min": 1980, "median": 1980, "max": 1980, "max_supported": 1980}, "clock_source": "nvml", "dropped_throttled": 0}' \
		"$1" "$2" "$([ "$2" = profiler ] && echo 30 || echo 0)" "$([ "$2" = graph ] && echo 30 || echo 0)" "$3"
}

mk "$TMP/prof" --run-id 20261129-100000-cuda-mm-aaaaaa --results "$R" --set timer="$(timer profiler profiler 0.005)"
mk "$TMP/graph" --run-id 20261129-110000-cuda-mm-bbbbbb --results "$R" --set timer="$(timer graph graph 0.005)"
mk "$TMP/prof2" --run-id 20261129-120000-cuda-mm-cccccc --results "$R" --set timer="$(timer profiler profiler 0.002)"

run_zl compare "$TMP/prof" "$TMP/graph"
expect_rc 2
contains "$TMP/err" "caliber mismatch: timer plan: profiler vs graph"
[ ! -s "$TMP/out" ] || fail "a refused comparison prints no table"

run_zl compare "$TMP/prof" "$TMP/graph" --allow-caliber-mismatch
expect_rc 0
contains "$TMP/out" "WARNING: caliber mismatch allowed (--allow-caliber-mismatch): timer plan: profiler vs graph"

# same timer, another noise target: compared, the difference listed among the A/B variables
run_zl compare "$TMP/prof" "$TMP/prof2" --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["caliber"]["ok"]')" = True ] || fail "noise target refused: $(cat "$TMP/out")"
[ "$(json_get "$TMP/out" '[(v["field"], v["a"], v["b"]) for v in d["caliber"]["variables"] if v["field"] == "noise target"]')" = \
	"[('noise target', '0.005', '0.002')]" ] || fail "noise target not listed: $(json_get "$TMP/out" 'd["caliber"]')"

# the profiler's call mode: a run without the field (zlbench before wave 3) queued its calls
synced() { mk "$@" --results "$R" --set timer="$(timer profiler profiler 0.005)" --set timer.profiler_call_mode='"synced"'; }
synced "$TMP/sync" --run-id 20261129-130000-cuda-mm-dddddd
synced "$TMP/sync2" --run-id 20261129-140000-cuda-mm-eeeeee
[ "$(json_get "$TMP/sync/run_identity.json" 'd["timer"]["profiler_call_mode"]')" = synced ] || fail "make_run --set"
run_zl compare "$TMP/prof" "$TMP/sync"
expect_rc 2
contains "$TMP/err" "caliber mismatch: profiler call mode: queued vs synced"
[ "$(grep -c 'caliber mismatch:' "$TMP/err")" -eq 1 ] || fail "only the call mode differs: $(cat "$TMP/err")"
run_zl compare "$TMP/prof" "$TMP/sync" --allow-caliber-mismatch
expect_rc 0
contains "$TMP/out" "WARNING: caliber mismatch allowed (--allow-caliber-mismatch): profiler call mode: queued vs synced"
run_zl compare "$TMP/sync" "$TMP/sync2" --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["caliber"]["ok"]')" = True ] || fail "two synced runs refused: $(cat "$TMP/out")"

# how long calls settled: a run without the field (zlbench before wave 4) did not record it
settled() { mk "$@" --results "$R" --set timer="$(timer profiler profiler 0.005)" \
	--set timer.profiler_call_mode='"synced"' --set timer.profiler_settle='"batches"'; }
settled "$TMP/settled" --run-id 20261129-150000-cuda-mm-ffffff
settled "$TMP/settled2" --run-id 20261129-160000-cuda-mm-abcdef
run_zl compare "$TMP/sync" "$TMP/settled"
expect_rc 2
contains "$TMP/err" "caliber mismatch: profiler settling: unrecorded vs batches"
[ "$(grep -c 'caliber mismatch:' "$TMP/err")" -eq 1 ] || fail "only the settling differs: $(cat "$TMP/err")"
run_zl compare "$TMP/settled" "$TMP/settled2" --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["caliber"]["ok"]')" = True ] || fail "two settled runs refused: $(cat "$TMP/out")"
# where the inputs were drawn: a run without the field drew them as FlagGems does
drawn() { mk "$@" --results "$R" --set timer="$(timer profiler profiler 0.005)" \
	--set timer.profiler_call_mode='"synced"' --set timer.profiler_settle='"batches"' --set inputs='{"draw": "device"}'; }
drawn "$TMP/dev" --run-id 20261129-170000-cuda-mm-fedcba
drawn "$TMP/dev2" --run-id 20261129-180000-cuda-mm-abcabc
run_zl compare "$TMP/settled" "$TMP/dev"
expect_rc 2
contains "$TMP/err" "caliber mismatch: inputs drawn: flaggems vs device"
[ "$(grep -c 'caliber mismatch:' "$TMP/err")" -eq 1 ] || fail "only the inputs differ: $(cat "$TMP/err")"
run_zl compare "$TMP/dev" "$TMP/dev2" --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["caliber"]["ok"]')" = True ] || fail "two device-drawn runs refused: $(cat "$TMP/out")"
# the same fields name the calibration a profiler run's compare looks for (a database that
# holds none: the note names the key it looked for)
run_zl history --ingest "$TMP/settled" --db "$TMP/h.db"
expect_rc 0
ZL_HISTORY_DB="$TMP/h.db" run_zl compare "$TMP/settled" "$TMP/settled2"
expect_rc 0
contains "$TMP/out" "no calibration for cuda, NVIDIA H200, profiler/synced/batches timer"
pass
