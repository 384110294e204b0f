#!/bin/bash
# Signal state zlbench inherits: supervised signals blocked in the inherited mask are still
# acted on; SIGHUP ignored at the start (nohup) stays ignored, in zlbench and in pytest.
. "$(dirname "$0")/lib.sh"

FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"
export ZL_KILL_GRACE=2 ZL_NO_HISTORY=1
ARGS=(run --backend cuda --flaggems-dir "$FX" --op hang --python "$ZL_TEST_PYTHON")

wait_for() {
	local i
	for i in $(seq 600); do [ -s "$1" ] && return 0; sleep 0.1; done
	fail "timed out waiting for $1"
}
# ends PID SECONDS: PID exits within SECONDS (else it is killed and the test fails); sets $rc
ends() {
	local i
	for i in $(seq $(($2 * 10))); do
		kill -0 "$1" 2>/dev/null || { set +e; wait "$1"; rc=$?; set -e; return 0; }
		sleep 0.1
	done
	kill -9 "$1" 2>/dev/null || true
	fail "pid $1 still running after $2 s"
}
# sig_ignored PID SIG: SIG is in the process's ignored set
sig_ignored() {
	local mask
	mask=$(awk '/^SigIgn:/ {print $2}' "/proc/$1/status")
	[ $(( 0x$mask >> ($2 - 1) & 1 )) -eq 1 ]
}

# started with SIGINT, SIGTERM and SIGHUP blocked (a parent's mask survives exec)
"$ZL_TEST_PYTHON" - "$ZLBENCH" "${ARGS[@]}" --out blk >blk.out 2>blk.err <<'PY' &
import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
os.execv(sys.argv[1], sys.argv[1:])
PY
zl=$!
wait_for blk/hang.pid
kill -TERM "$zl"
ends "$zl" 30
[ "$rc" -eq 143 ] || { cat blk.err; fail "blocked SIGTERM: exit $rc, want 143"; }
[ "$(json_get blk/run_identity.json 'd["status"]')" = interrupted ] || fail "blocked SIGTERM: status"
! kill -0 "$(cat blk/hang.pid)" 2>/dev/null || fail "pytest survived"

# nohup: a hangup neither stops zlbench nor reaches pytest, which keeps SIGHUP ignored
nohup "$ZLBENCH" "${ARGS[@]}" --out hup >hup.out 2>hup.err &
zl=$!
wait_for hup/hang.pid
py=$(cat hup/hang.pid)
sig_ignored "$zl" 1 || fail "zlbench under nohup does not ignore SIGHUP"
sig_ignored "$py" 1 || fail "pytest under a nohup'ed zlbench does not ignore SIGHUP"
kill -HUP "$zl"
kill -HUP "$py"
sleep 1
kill -0 "$zl" 2>/dev/null || { cat hup.err; fail "nohup'ed zlbench died of SIGHUP"; }
kill -0 "$py" 2>/dev/null || fail "pytest of a nohup'ed zlbench died of SIGHUP"
[ "$(json_get hup/run_identity.json 'd["status"]')" = running ] || fail "status after SIGHUP"
# still stoppable
kill -TERM "$zl"
ends "$zl" 30
[ "$rc" -eq 143 ] || fail "SIGTERM after nohup: exit $rc"
! kill -0 "$py" 2>/dev/null || fail "pytest survived SIGTERM"

# without nohup, pytest gets ordinary SIGHUP (default action) and zlbench forwards it
"$ZLBENCH" "${ARGS[@]}" --out plain >plain.out 2>plain.err &
zl=$!
wait_for plain/hang.pid
sig_ignored "$(cat plain/hang.pid)" 1 && fail "pytest ignores SIGHUP without nohup"
kill -HUP "$zl"
ends "$zl" 30
[ "$rc" -eq 129 ] || fail "SIGHUP: exit $rc, want 129"
pass
