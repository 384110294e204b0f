#!/bin/bash
# A run timed by the profiler timer end to end: zlbench over the plugin tests' FlagGems-shaped
# tree with their fakes (tests/plugins/fakes: torch with a fake Kineto profiler and virtual
# device clock, pynvml with scripted SM clocks). Header, child env, identity timer block,
# footer clock line and warnings, results.json's latency = estimate_ms, batch forwarding.
. "$(dirname "$0")/lib.sh"

cd "$TMP"
cp -r "$ZL_SOURCE_DIR/tests/plugins/trees/gems_bench" tree
export PYTHONPATH="$ZL_SOURCE_DIR/tests/plugins/fakes" GEMS_VENDOR=nvidia BENCH_SHAPES=4096 ZL_NO_HISTORY=1
unset PYTEST_ADDOPTS
zlrun() { run_zl run --backend cuda --flaggems-dir "$TMP/tree" --python "$ZL_TEST_PYTHON" \
	--test-node benchmark/test_ops.py::test_add "$@"; }

# the clock reads 1980 MHz around one batch, 1000 MHz around the next: those are dropped
FAKE_SM_CLOCKS=1980,1980,1000,1000 FAKE_NOISE=0.2 zlrun --noise-target 0.002 --max-time-per-shape 2 --out p1
expect_rc 0
contains "$TMP/err" "timer:       profiler (device timestamps, each call from an idle device, L2 flushed outside it, leading transient cut; noise target 0.2 %, at most 2 s per shape); fallback per shape: graph, direct; SM clock: nvml"
id=p1/run_identity.json
[ "$(json_get $id 'd["timer"]["plan"], d["timer"]["used"], d["timer"]["profiler"], d["timer"]["fallbacks"]')" = \
	"('profiler', 'profiler', 2, 0)" ] || fail "identity timer: $(json_get $id 'd["timer"]')"
[ "$(json_get $id 'd["timer"]["noise_target"], d["timer"]["max_time_per_shape_s"], d["timer"]["clock_source"]')" = \
	"(0.002, 2, 'nvml')" ] || fail "identity sampling: $(json_get $id 'd["timer"]')"
[ "$(json_get $id 'd["timer"]["clock_mhz"]["min"], d["timer"]["clock_mhz"]["max"], d["timer"]["clock_mhz"]["max_supported"]')" = \
	"(1000, 1980, 1980)" ] || fail "identity clock: $(json_get $id 'd["timer"]')"
[ "$(json_get $id 'd["timer"]["profiler_call_mode"], d["timer"]["profiler_settle"]')" = "('synced', 'mser')" ] ||
	fail "identity call mode and settling: $(json_get $id 'd["timer"]')"
dropped=$(json_get $id 'd["timer"]["dropped_throttled"]')
[ "$dropped" -gt 0 ] || fail "nothing dropped: $(json_get $id 'd["timer"]')"
[ "$(json_get $id 'd["env"]["ZL_NOISE_TARGET"], d["env"]["ZL_NOISE_TARGET_PINNED"], d["env"]["ZL_MAX_TIME_PER_SHAPE"], d["env"]["ZL_CLOCK_SOURCE"]')" = \
	"('0.002', '1', '2', 'nvml')" ] || fail "child env: $(json_get $id 'd["env"]')"
contains "$TMP/err" "timer:       used profiler: profiler 2, graph 0, direct 0, fallbacks 0"
contains "$TMP/err" "clock:       SM 1000-1980 MHz (median "
contains "$TMP/err" "warning: $dropped samples were dropped: the SM clock read below 75 % of its maximum"
lacks "$TMP/err" "could not be read"
# FlagGems' results.json holds the estimate of each side
"$ZL_TEST_PYTHON" - p1 <<'PY' || fail "results.json latency is not estimate_ms"
import json, sys
recs = {r["side"]: r for r in map(json.loads, open(sys.argv[1] + "/plugins/timer.jsonl"))}
m = json.load(open(sys.argv[1] + "/results.json"))["add"]["details"][0]["result"][0]
assert (m["latency_base"], m["latency"]) == (recs["torch"]["estimate_ms"], recs["gems"]["estimate_ms"]), (m, recs)
assert all(r["timer"] == "profiler" and r["noise_rel"] is not None for r in recs.values())
PY

# no NVML: the run goes on, the footer says the clock was unknown; the default target is not
# pinned (a size class may relax it), and the header says so
FAKE_NVML=off zlrun --out p2
expect_rc 0
contains "$TMP/err" "noise target 0.5 % (2 % under 5 us), at most 0.3 s per shape"
[ "$(json_get p2/run_identity.json 'd["env"]["ZL_NOISE_TARGET_PINNED"]')" = "0" ] || fail "pinned by default"
contains "$TMP/err" "warning: the SM clock could not be read (unknown: NVML did not answer: pynvml: "
lacks "$TMP/err" "samples were dropped"

# the timer settings reach a batch's runs as flags
run_zl batch --backend cuda --flaggems-dir "$TMP/tree" --python "$ZL_TEST_PYTHON" --ops add \
	--timer graph --noise-target 0.01 --max-time-per-shape 1 --out b1
expect_rc 0
run=$(ls -d b1/runs/*/ 2>/dev/null | head -n 1)
[ -n "$run" ] || run=$(dirname "$(ls b1/*/run_identity.json b1/*/*/run_identity.json 2>/dev/null | head -n 1)")
[ -f "$run/run_identity.json" ] || fail "no run in the batch: $(find b1 -maxdepth 3)"
[ "$(json_get "$run/run_identity.json" 'd["timer"]["plan"], d["env"]["ZL_NOISE_TARGET"], d["env"]["ZL_MAX_TIME_PER_SHAPE"]')" = \
	"('graph', '0.01', '1')" ] || fail "batch run: $(json_get "$run/run_identity.json" 'd["timer"], d["argv"]')"
pass
