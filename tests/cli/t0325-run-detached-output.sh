#!/bin/bash
# A grandchild that left the run's process group (setsid) and keeps stdout open must not
# keep zlbench waiting: once pytest is reaped the pipe is drained for a bounded time, then
# closed, and the run ends with pytest's own status; --timeout holds throughout.
. "$(dirname "$0")/lib.sh"

FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"
export ZL_NO_HISTORY=1
sleepers=()
cleanup() {
	local p
	for p in "${sleepers[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT

# detached OUT ARGS...: run the detach op (at most 60 s), remember its sleeper; sets $elapsed
detached() {
	local out=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	set +e
	timeout -k 5 60 "$ZLBENCH" run --backend cuda --flaggems-dir "$FX" --op detach --python "$ZL_TEST_PYTHON" \
		--out "$out" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	set -e
	t1=$(date +%s.%N)
	elapsed=$("$ZL_TEST_PYTHON" -c "print(int(float('$t1') - float('$t0')))")
	[ -s "$out/sleeper.pid" ] || fail "no sleeper pid in $out"
	sleepers+=("$(cat "$out/sleeper.pid")")
	kill -0 "${sleepers[-1]}" 2>/dev/null || fail "the sleeper of $out is already gone: the test shows nothing"
}

detached d1
expect_rc 0
[ "$elapsed" -lt 20 ] || fail "zlbench waited ${elapsed} s for a detached process's output"
[ "$(json_get d1/run_identity.json 'd["status"], d["exit_code"]')" = "('passed', 0)" ] || fail "status after a detached sleeper"
contains "$TMP/err" "a process outside the run's process group still holds its output open"
contains d1/pytest.log "detach: sleeper pid"
[ "$(tail -n 1 "$TMP/out")" = "RUN_DIR=$TMP/d1" ] || fail "RUN_DIR after a detached sleeper"

# with --timeout the deadline holds while the pipe is drained too
detached d2 --timeout 15
[ "$elapsed" -lt 15 ] || fail "--timeout 15 not honoured after pytest exited (${elapsed} s)"
expect_rc 0
pass
