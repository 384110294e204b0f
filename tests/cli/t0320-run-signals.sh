#!/bin/bash
# Timeout, SIGINT and SIGTERM: truthful identity, no process left, isolated caches removed.
. "$(dirname "$0")/lib.sh"

FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"
export ZL_KILL_GRACE=2

# wait_for FILE: up to 60 s
wait_for() {
	local i
	for i in $(seq 600); do [ -s "$1" ] && return 0; sleep 0.1; done
	fail "timed out waiting for $1"
}
gone() { ! kill -0 "$1" 2>/dev/null; }

# --timeout: SIGTERM to the group, grace, SIGKILL; exit 124, status timeout
run_zl run --backend cuda --flaggems-dir "$FX" --op hang --python "$ZL_TEST_PYTHON" --out t --timeout 3
expect_rc 124
[ "$(json_get t/run_identity.json 'd["status"], d["exit_code"]')" = "('timeout', 124)" ] || fail "timeout status"
gone "$(cat t/hang.pid)" || fail "the hung pytest survived the timeout"

# SIGINT to zlbench (isolated caches): forwarded; exit 130; status interrupted; caches removed.
# Started from a script whose SIGINT is ignored: the child must still get ordinary signals.
( trap '' INT; exec "$ZLBENCH" run --backend cuda --flaggems-dir "$FX" --op hang --python "$ZL_TEST_PYTHON" \
	--out s --isolate-tuner-cache >s.out 2>s.err ) &
zl=$!
wait_for s/hang.pid
cache=$(json_get s/run_identity.json 'd["tuner_cache"]["path"]')
[ -d "$cache" ] || fail "isolated cache $cache missing while running"
[ "$(json_get s/run_identity.json 'd["status"]')" = running ] || fail "provisional identity"
kill -INT "$zl"
set +e
wait "$zl"
rc=$?
set -e
[ "$rc" -eq 130 ] || { cat s.err; fail "SIGINT: exit $rc, want 130"; }
[ "$(json_get s/run_identity.json 'd["status"], d["exit_code"]')" = "('interrupted', 130)" ] || fail "SIGINT status"
gone "$(cat s/hang.pid)" || fail "pytest survived SIGINT"
[ ! -e "$cache" ] || fail "isolated cache $cache not removed"
[ ! -e "$(dirname "$cache")" ] || fail "isolated cache root not removed"
contains s.err "forwarded to the run's process group"

# SIGTERM: 143, interrupted
"$ZLBENCH" run --backend cuda --flaggems-dir "$FX" --op hang --python "$ZL_TEST_PYTHON" --out term >term.out 2>term.err &
zl=$!
wait_for term/hang.pid
kill -TERM "$zl"
set +e
wait "$zl"
rc=$?
set -e
[ "$rc" -eq 143 ] || fail "SIGTERM: exit $rc"
[ "$(json_get term/run_identity.json 'd["status"], d["signal"] is not None or True')" = "('interrupted', True)" ] || fail "SIGTERM status"
gone "$(cat term/hang.pid)" || fail "pytest survived SIGTERM"
# no zombie: nothing of ours is left in the process table
if ps -eo stat,args | grep -v grep | grep -q "pytest.*hang"; then ps -eo pid,stat,args | grep hang; fail "left a process"; fi
pass
