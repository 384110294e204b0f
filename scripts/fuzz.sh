#!/bin/bash
# Build the libFuzzer harnesses of tests/fuzz (clang, -DZL_FUZZ=ON: ASan, UBSan, coverage)
# and run each for a fixed time, two at a time, from its seed corpus, its kept crashes and
# its dictionary (docs/fuzzing.md). New inputs go to a temporary corpus; nothing in the
# repository changes. Exit 1 when a harness crashed, leaked, timed out or ran out of memory:
# the input is printed and kept, to be copied into tests/fuzz/regressions/<target>/.
#
# usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#   SECONDS   per target (default $ZL_FUZZ_SECONDS, else 10; 0 skips fuzzing)
#   TARGET    shapes, results, ... (default: every tests/fuzz/fuzz_<target>.c)
#   ZL_FUZZ_JOBS (default 2) targets at a time; ZL_FUZZ_BUILD_DIR (default build-fuzz);
#   ZL_FUZZ_KEEP=DIR keeps the run's logs, corpora and crash inputs in DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-${ZL_FUZZ_SECONDS:-10}}
[ $# -gt 0 ] && shift
jobs=${ZL_FUZZ_JOBS:-2}
build=${ZL_FUZZ_BUILD_DIR:-build-fuzz}
if [ "$secs" = 0 ]; then
	echo "fuzz: skipped (0 seconds)"
	exit 0
fi
command -v clang >/dev/null || { echo "fuzz: clang is missing (scripts/deps.sh installs it)" >&2; exit 2; }

# the build's output only when it fails; -Werror: it is scripts/test.sh's clang Debug build
mkdir -p "$build"
if ! { CC=clang cmake -S . -B "$build" -DZL_FUZZ=ON -DZL_TESTS=OFF -DZL_WERROR=ON -DCMAKE_BUILD_TYPE=Debug &&
	cmake --build "$build" -j"$(nproc)" --target fuzzers; } >"$build/fuzz-build.log" 2>&1; then
	cat "$build/fuzz-build.log" >&2
	echo "fuzz: the build failed" >&2
	exit 2
fi

if [ $# -gt 0 ]; then
	targets=("$@")
else
	targets=()
	for f in tests/fuzz/fuzz_*.c; do
		t=$(basename "$f" .c)
		t=${t#fuzz_}
		[ "$t" = util ] || targets+=("$t")
	done
fi
out=${ZL_FUZZ_KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/zl-fuzz.XXXXXX")}
mkdir -p "$out"
[ -n "${ZL_FUZZ_KEEP:-}" ] || trap 'rm -rf "$out"' EXIT

tmp=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && tmp=/dev/shm

dict_of() {
	case "$1" in
	shapes) echo tests/fuzz/dict/yaml.dict ;;
	ops_status) echo tests/fuzz/dict/csv.dict ;;
	results | identity | timer | records | batch_json | push_json | skips | costs) echo tests/fuzz/dict/json.dict ;;
	report) echo tests/fuzz/dict/report.dict ;;
	esac
}

run_one() {
	local t=$1 dict bin="$build/tests/fuzz/fuzz_$t" args=()
	[ -x "$bin" ] || { echo "fuzz: no harness '$t' ($bin)" >"$out/$t.log"; return 1; }
	mkdir -p "$out/$t/corpus"
	dict=$(dict_of "$t")
	[ -n "$dict" ] && args+=(-dict="$dict")
	# leaks count as crashes; a 10 s input is a hang (the readers must be linear); the
	# harnesses write their inputs to files, in memory when /dev/shm is there
	TMPDIR=$tmp ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		nice "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$out/$t/" "${args[@]}" \
		"$out/$t/corpus" "tests/fuzz/corpus/$t" "tests/fuzz/regressions/$t" >"$out/$t.log" 2>&1
}

# in the background: the status goes to a file (a job reaped by wait -n has none to wait for)
run_bg() {
	local rc=0
	run_one "$1" || rc=$?
	echo "$rc" >"$out/$1.rc"
}

# stats LOG: "execs exec/s cov ft" from libFuzzer's log
stats() {
	local execs rate last cov ft
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$1" | tail -1)
	last=$(grep -E '^#[0-9]+.*cov: ' "$1" | tail -1 || :)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	echo "${execs:--} ${rate:--} ${cov:--} ${ft:--}"
}

echo "fuzz: ${#targets[@]} targets, $secs s each, $jobs at a time"
for t in "${targets[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n || :
	done
	run_bg "$t" &
done
wait

failed=()
printf '%-12s %10s %8s %7s %7s  %s\n' target execs exec/s cov ft result
for t in "${targets[@]}"; do
	if [ "$(cat "$out/$t.rc" 2>/dev/null)" = 0 ]; then
		result=ok
	else
		result=FAILED
		failed+=("$t")
	fi
	read -r execs rate cov ft < <(stats "$out/$t.log")
	printf '%-12s %10s %8s %7s %7s  %s\n' "$t" "$execs" "$rate" "$cov" "$ft" "$result"
done
for t in "${failed[@]}"; do
	echo "--- fuzz: $t failed; the end of its log:" >&2
	tail -n 40 "$out/$t.log" >&2
	for a in "$out/$t"/crash-* "$out/$t"/leak-* "$out/$t"/timeout-* "$out/$t"/oom-*; do
		[ -e "$a" ] || continue
		echo "fuzz: input $(basename "$a") (base64): $(base64 -w0 <"$a")" >&2
		echo "fuzz: keep it: base64 -d >tests/fuzz/regressions/$t/<what-it-is> (fix first)" >&2
	done
done
[ ${#failed[@]} -eq 0 ]
