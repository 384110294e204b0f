#!/bin/bash
# The whole test suite: a warnings-as-errors build with AddressSanitizer and
# UndefinedBehaviorSanitizer, then every unit, command-line and plugin test (ctest).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${ZL_TEST_BUILD_DIR:-build-test}
cmake -S . -B "$build" -DZL_WERROR=ON -DZL_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
cmake --build "$build" -j"$(nproc)"
# ASan's leak checker needs ptrace, which some sandboxes refuse; leaks are still caught where it works.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" --timeout 600
