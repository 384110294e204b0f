#!/bin/bash
# The whole test suite: a warnings-as-errors build with AddressSanitizer and
# UndefinedBehaviorSanitizer (gcc, Debug); the same sources built, not run, with -Werror by
# gcc in Release (its -O2 warnings: -Wformat-overflow, -Wmaybe-uninitialized) and by clang in
# Release; then every unit, command-line, plugin and Slurm test (ctest), then each libFuzzer
# harness for 10 s, two at a time (scripts/fuzz.sh, whose clang Debug build is -Werror too;
# ZL_FUZZ_SECONDS changes the time, 0 skips it). ZL_WERROR_BUILDS=0 skips the two builds.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
zl_install_deps
build=${ZL_TEST_BUILD_DIR:-build-test}
cmake -S . -B "$build" -DZL_WERROR=ON -DZL_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$build" -j"$(nproc)"
# zero warnings wherever zlbench is built: each in its own directory (kept, so a rerun builds
# what changed), its output shown only when it fails. From scratch on 2 cores shared with other
# builds (load 9-19): gcc 92-96 s, clang 66-119 s; -j$(nproc) on a CI machine divides that.
if [ "${ZL_WERROR_BUILDS:-1}" != 0 ]; then
	for cc_type in gcc:Release clang:Release; do
		cc=${cc_type%%:*} type=${cc_type#*:} dir="$build-werror-${cc_type/:/-}" start=$SECONDS
		mkdir -p "$dir"
		if ! { CC=$cc cmake -S . -B "$dir" -DZL_WERROR=ON -DZL_SANITIZE=OFF -DCMAKE_BUILD_TYPE="$type" &&
			cmake --build "$dir" -j"$(nproc)"; } >"$dir/werror-build.log" 2>&1; then
			cat "$dir/werror-build.log" >&2
			echo "test: the $cc $type build with -Werror failed (log: $dir/werror-build.log)" >&2
			exit 1
		fi
		echo "test: $cc $type build: no warnings ($((SECONDS - start)) s)"
	done
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" --timeout 600
bash scripts/fuzz.sh "${ZL_FUZZ_SECONDS:-10}"
