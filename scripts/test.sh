#!/bin/bash
# The whole test suite: a warnings-as-errors build with AddressSanitizer and
# UndefinedBehaviorSanitizer, then every unit, command-line, plugin and Slurm test (ctest),
# then each libFuzzer harness for 10 s, two at a time (scripts/fuzz.sh; ZL_FUZZ_SECONDS
# changes the time, 0 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
zl_install_deps
build=${ZL_TEST_BUILD_DIR:-build-test}
cmake -S . -B "$build" -DZL_WERROR=ON -DZL_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$build" -j"$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" --timeout 600
bash scripts/fuzz.sh "${ZL_FUZZ_SECONDS:-10}"
