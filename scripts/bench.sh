#!/bin/bash
# Build an optimised, sanitizer-free zlbench and run every benchmark under bench/.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${ZL_BENCH_BUILD_DIR:-build-bench}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DZL_SANITIZE=OFF -DZL_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
"$build/bench_foundation" "$PWD/$build/zlbench"
for b in "$build"/bench_*; do
	case "$(basename "$b")" in bench_foundation) continue ;; esac
	[ -x "$b" ] && "$b" "$PWD/$build/zlbench"
done
# the profiler timer's own Python cost, on CPU with the plugin tests' fakes
python3 bench/bench_profiler_timer.py
