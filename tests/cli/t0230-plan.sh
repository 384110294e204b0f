#!/bin/bash
# Plugin plan per backend: the -p list and the timer, cuda's list a strict superset of musa's.
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

without_graph=zl_vendor_guard,zl_timer,zl_foreign_vendor,zl_autotune
plan_of cuda
expect_plugins cuda graph zl_vendor_guard,zl_timer,zl_graph_timer,zl_foreign_vendor,zl_autotune
for b in musa rocm ascend; do
	plan_of $b
	expect_plugins $b direct $without_graph
	# the dropped plugin is named with the reason
	[ "$(json_get "$TMP/$b.json" '"zl_graph_timer: dropped: backend '$b' lacks the capability" in d["reasons"]')" = True ] ||
		fail "plan for $b: no reason for dropping zl_graph_timer: $(cat "$TMP/$b.json")"
done

# cuda's list is a strict superset of musa's
[ "$("$ZL_TEST_PYTHON" -c '
import json, sys
c = json.load(open(sys.argv[1]))["plugins"]
m = json.load(open(sys.argv[2]))["plugins"]
print(set(m) < set(c) and len(set(c)) == len(c))' "$TMP/cuda.json" "$TMP/musa.json")" = True ] ||
	fail "cuda's plugins are not a strict superset of musa's"

# a flag turns a plugin off: --no-cudagraph gives cuda musa's list, --no-autotune-records drops zl_autotune
plan_of cuda --no-cudagraph
expect_plugins cuda direct $without_graph
ZL_ENABLE_CUDAGRAPH=0 run_zl plan --backend cuda --json
expect_rc 0
[ "$(json_get "$TMP/out" '",".join(d["plugins"])')" = $without_graph ] || fail "ZL_ENABLE_CUDAGRAPH=0 kept the graph timer"
plan_of rocm --no-autotune-records
expect_plugins rocm direct zl_vendor_guard,zl_timer,zl_foreign_vendor

# the text form lists the same -p flags
run_zl plan --backend ascend
expect_rc 0
grep -qx "plugins: -p zl_vendor_guard -p zl_timer -p zl_foreign_vendor -p zl_autotune" "$TMP/out" ||
	fail "plan text for ascend: $(cat "$TMP/out")"
pass
