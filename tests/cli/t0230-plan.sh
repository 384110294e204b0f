#!/bin/bash
# Plugin plan per backend: the -p list, the timer plan and its fallbacks, cuda's list a
# strict superset of musa's; the timer settings and why a backend has no profiler timer.
. "$(dirname "$0")/lib.sh"

cd "$TMP"

# plan_of BACKEND [FLAGS...]: the JSON plan in $TMP/<backend>.json
plan_of() {
	local b=$1
	shift
	run_zl plan --backend "$b" "$@" --json
	expect_rc 0
	cp "$TMP/out" "$TMP/$b.json"
}

# expect_plugins BACKEND TIMER LIST: the plan's timer and its plugins, in order
expect_plugins() {
	local got
	got=$(json_get "$TMP/$1.json" 'd["timer"] + " " + ",".join(d["plugins"])')
	[ "$got" = "$2 $3" ] || fail "plan for $1: got '$got', expected '$2 $3'"
}

# has_reason BACKEND TEXT: the plan's reasons hold TEXT exactly
has_reason() {
	[ "$(json_get "$TMP/$1.json" 'sys.argv[3] in d["reasons"]' "$2")" = True ] ||
		fail "plan for $1: no reason '$2': $(cat "$TMP/$1.json")"
}
json_get() {
	"$ZL_TEST_PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"
}

all=zl_vendor_guard,zl_timer,zl_profiler_timer,zl_graph_timer,zl_foreign_vendor,zl_autotune,zl_skips
without_timers=zl_vendor_guard,zl_timer,zl_foreign_vendor,zl_autotune,zl_skips
# cuda: the profiler timer, the graph timer as its fallback
plan_of cuda
expect_plugins cuda profiler $all
[ "$(json_get "$TMP/cuda.json" 'd["fallback"], d["noise_target"], d["max_time_per_shape_s"], d["clock_source"]')" = \
	"('graph, direct', 0.005, 0.3, 'nvml')" ] || fail "cuda plan: $(cat "$TMP/cuda.json")"
# rocm: the profiler timer, no graph capture
plan_of rocm
expect_plugins rocm profiler zl_vendor_guard,zl_timer,zl_profiler_timer,zl_foreign_vendor,zl_autotune,zl_skips
has_reason rocm "zl_graph_timer: dropped: backend rocm lacks the capability graph_capture"
[ "$(json_get "$TMP/rocm.json" 'd["fallback"], d["clock_source"]')" = "('direct', 'none')" ] || fail "rocm fallback"
# musa, ascend: direct, and the plan says why the profiler timer is not there
for b in musa ascend; do
	plan_of $b
	expect_plugins $b direct $without_timers
	has_reason $b "zl_graph_timer: dropped: backend $b lacks the capability graph_capture"
	[ "$(json_get "$TMP/$b.json" '[r for r in d["reasons"] if r.startswith("zl_profiler_timer: dropped: backend '$b' lacks the capability kernel_profiler: ")] != []')" = True ] ||
		fail "plan for $b: no reason for dropping zl_profiler_timer: $(cat "$TMP/$b.json")"
	[ "$(json_get "$TMP/$b.json" 'd["fallback"]')" = none ] || fail "$b fallback"
done
grep -q "torch_npu" "$TMP/ascend.json" || fail "ascend's reason does not name torch_npu"

# cuda's list is a strict superset of musa's
[ "$("$ZL_TEST_PYTHON" -c '
import json, sys
c = json.load(open(sys.argv[1]))["plugins"]
m = json.load(open(sys.argv[2]))["plugins"]
print(set(m) < set(c) and len(set(c)) == len(c))' "$TMP/cuda.json" "$TMP/musa.json")" = True ] ||
	fail "cuda's plugins are not a strict superset of musa's"

# --timer picks the timer; the graph plugin stays the profiler's fallback unless turned off
plan_of cuda --timer graph
expect_plugins cuda graph zl_vendor_guard,zl_timer,zl_graph_timer,zl_foreign_vendor,zl_autotune,zl_skips
has_reason cuda "zl_profiler_timer: dropped: the timer plan is not profiler (--timer / ZL_TIMER)"
ZL_TIMER=direct run_zl plan --backend cuda --json
expect_rc 0
cp "$TMP/out" "$TMP/cuda.json"
expect_plugins cuda direct $without_timers
has_reason cuda "zl_graph_timer: dropped: the timer plan is direct"
# --no-cudagraph keeps the profiler timer and drops the graph fallback
plan_of cuda --no-cudagraph
expect_plugins cuda profiler zl_vendor_guard,zl_timer,zl_profiler_timer,zl_foreign_vendor,zl_autotune,zl_skips
[ "$(json_get "$TMP/cuda.json" 'd["fallback"]')" = direct ] || fail "--no-cudagraph fallback"
ZL_ENABLE_CUDAGRAPH=0 run_zl plan --backend cuda --json
expect_rc 0
[ "$(json_get "$TMP/out" '",".join(d["plugins"])')" = zl_vendor_guard,zl_timer,zl_profiler_timer,zl_foreign_vendor,zl_autotune,zl_skips ] ||
	fail "ZL_ENABLE_CUDAGRAPH=0 kept the graph timer"
plan_of rocm --no-autotune-records
expect_plugins rocm profiler zl_vendor_guard,zl_timer,zl_profiler_timer,zl_foreign_vendor,zl_skips
# the sampling settings reach the plan
plan_of cuda --noise-target 0.002 --max-time-per-shape 1.5
[ "$(json_get "$TMP/cuda.json" 'd["noise_target"], d["max_time_per_shape_s"]')" = "(0.002, 1.5)" ] || fail "sampling settings"

# --draw-inputs device (or ZL_DRAW_INPUTS) loads zl_inputs; the default draws as FlagGems does
plan_of cuda --draw-inputs device
expect_plugins cuda profiler zl_vendor_guard,zl_timer,zl_profiler_timer,zl_graph_timer,zl_foreign_vendor,zl_autotune,zl_skips,zl_inputs
has_reason cuda "zl_inputs: loaded: draw the benchmarks' integer and bool inputs on the device (FlagGems' generate_tensor_input replaced)"
ZL_DRAW_INPUTS=device run_zl plan --backend musa --json
expect_rc 0
[ "$(json_get "$TMP/out" '"zl_inputs" in d["plugins"]')" = True ] || fail "ZL_DRAW_INPUTS=device did not load zl_inputs"
plan_of cuda
has_reason cuda "zl_inputs: dropped: inputs drawn as FlagGems draws them (--draw-inputs / ZL_DRAW_INPUTS)"
run_zl plan --backend cuda --draw-inputs gpu
expect_rc 2
contains "$TMP/err" "invalid value 'gpu' for --draw-inputs: choose flaggems or device"

# bad timer settings: exit 2, naming the value and where it came from
refused() {
	run_zl plan "$@"
	expect_rc 2
}
refused --backend musa --timer profiler
contains "$TMP/err" "--timer asks for the profiler timer, but backend 'musa' has no kernel profiler: torch_musa"
ZL_TIMER=profiler run_zl plan --backend ascend
expect_rc 2
contains "$TMP/err" "ZL_TIMER asks for the profiler timer, but backend 'ascend' has no kernel profiler: torch_npu"
refused --backend rocm --timer graph
contains "$TMP/err" "--timer asks for the graph timer, but backend 'rocm' cannot capture graphs"
refused --backend cuda --timer graph --no-cudagraph
contains "$TMP/err" "--timer asks for the graph timer, but --no-cudagraph turns it off"
refused --backend cuda --timer fast
contains "$TMP/err" "invalid value 'fast' for --timer: choose profiler, graph or direct"
for v in 0 -0.1 0.6 nan x ""; do
	refused --backend cuda --noise-target "$v"
done
contains "$TMP/err" "empty value for --noise-target"
refused --backend cuda --noise-target 0.6
contains "$TMP/err" "invalid value '0.6' for --noise-target: a fraction greater than 0 and at most 0.5"
ZL_NOISE_TARGET=abc run_zl plan --backend cuda
expect_rc 2
contains "$TMP/err" "invalid value 'abc' for ZL_NOISE_TARGET"
for v in 0 -1 3601 inf; do
	refused --backend cuda --max-time-per-shape "$v"
	contains "$TMP/err" "invalid value '$v' for --max-time-per-shape: a number of seconds greater than 0 and at most 3600"
done
ZL_MAX_TIME_PER_SHAPE=soon run_zl plan --backend cuda
expect_rc 2
contains "$TMP/err" "invalid value 'soon' for ZL_MAX_TIME_PER_SHAPE"

# the text form lists the same -p flags and names the timer, its noise target and fallbacks
run_zl plan --backend ascend
expect_rc 0
grep -qx "plugins: -p zl_vendor_guard -p zl_timer -p zl_foreign_vendor -p zl_autotune -p zl_skips" "$TMP/out" ||
	fail "plan text for ascend: $(cat "$TMP/out")"
run_zl plan --backend cuda
expect_rc 0
grep -qx "timer:   profiler (default): noise target 0.5 %, at most 0.3 s of sampling per shape; fallback per shape: graph, direct" "$TMP/out" ||
	fail "plan text for cuda: $(cat "$TMP/out")"
grep -qx "clock:   nvml" "$TMP/out" || fail "plan text clock: $(cat "$TMP/out")"
pass
