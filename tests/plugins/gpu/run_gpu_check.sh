#!/bin/bash
# GPU check of the plugins with real torch and triton (see README.md).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
OUT=${OUT:-$(mktemp -d)}
PY=${PYTHON:-python3}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cp -r "$ROOT/tests/plugins/trees/gems_bench/." "$W/"
cp "$HERE/bench_gpu_ops.py" "$W/benchmark/test_ops.py"
export PYTHONPATH="$ROOT/plugins:$HERE"
export ZL_BACKEND=cuda ZL_EXPECTED_VENDOR=nvidia ZL_VENDOR_MODULE=_nvidia ZL_DIRECT_REPEAT=1
export TRITON_CACHE_DIR="$W/triton-cache"
unset GEMS_VENDOR FLAGGEMS_VENDOR

# run NAME [VAR=value...] [-- pytest node...]: one zlbench-style pytest run into $OUT/NAME
run() {
	local name=$1 vars=() nodes=()
	shift
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do vars+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	nodes=("$@")
	[ ${#nodes[@]} -eq 0 ] && nodes=(benchmark/test_ops.py)
	mkdir -p "$OUT/$name"
	(cd "$W" && env ZL_RUN_DIR="$OUT/$name" "${vars[@]}" "$PY" -m pytest -p no:cacheprovider \
		"${nodes[@]}" -p zl_timer -p zl_profiler_timer -p zl_graph_timer -p zl_vendor_guard -p zl_foreign_vendor \
		-p zl_autotune --level core --mode kernel --record json \
		--output "$OUT/$name/results.json" --warmup 100 --iter 100 -s \
		-W error::pytest.PytestDeprecationWarning \
		>"$OUT/$name/pytest.log" 2>&1)
	echo $? >"$OUT/$name/rc"
	echo "$name: exit $(cat "$OUT/$name/rc")"
}

run graph ZL_TIMER_PLAN=graph ZL_AUTOTUNE_MODE=record
run direct ZL_TIMER_PLAN=direct ZL_DIRECT_REPEAT=3 ZL_AUTOTUNE_MODE=record
run profiler ZL_TIMER_PLAN=profiler ZL_CLOCK_SOURCE=nvml ZL_AUTOTUNE_MODE=record
run replay ZL_TIMER_PLAN=graph ZL_AUTOTUNE_MODE=replay ZL_REPLAY_FROM="$OUT/graph"
mkdir -p "$OUT/empty/autotune_records"
run miss ZL_TIMER_PLAN=direct ZL_AUTOTUNE_MODE=replay ZL_REPLAY_FROM="$OUT/empty" \
	-- benchmark/test_ops.py::test_add
run mismatch GEMS_VENDOR=mthreads ZL_TIMER_PLAN=graph
run foreign GPU_CHECK_IMPORT_FOREIGN=1 ZL_TIMER_PLAN=direct ZL_AUTOTUNE_MODE=off \
	-- benchmark/test_ops.py::test_copy
"$PY" "$HERE/check_gpu_run.py" "$OUT"
