#!/bin/bash
# SIGINT to ab: forwarded to the running `zlbench run`, which records its run as interrupted;
# ab.json says interrupted, no later run starts, no process is left, exit 130.
. "$(dirname "$0")/lib.sh"
FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"
export ZL_KILL_GRACE=2

( exec "$ZLBENCH" ab --backend cuda --flaggems-dir "$FX" --python "$ZL_TEST_PYTHON" --op hang --out ab \
	>ab.out 2>ab.err ) &
zl=$!
for n in $(seq 600); do [ -s ab/A1/hang.pid ] && break; sleep 0.1; done
[ -s ab/A1/hang.pid ] || fail "A1 never started its benchmark"
hang=$(cat ab/A1/hang.pid)
[ "$(json_get ab/ab.json 'd["status"], d["rounds"][0]["status"]')" = "('running', 'pending')" ] ||
	fail "ab.json while running: $(cat ab/ab.json)"
kill -INT "$zl"
set +e
wait "$zl"
rc=$?
set -e
[ "$rc" -eq 130 ] || { cat ab.err; fail "interrupted ab exited $rc"; }
contains ab.err "ab: A1: interrupted (exit 130)"
contains ab.err "interrupted (signal 2, Interrupt): the run directories and ab.json say what ran"
[ "$(tail -n 1 ab.out)" = "AB_DIR=$TMP/ab" ] || fail "last line: $(tail -n 1 ab.out)"
for n in $(seq 50); do kill -0 "$hang" 2>/dev/null || break; sleep 0.1; done
! kill -0 "$hang" 2>/dev/null || fail "the benchmark process $hang survived"
left=$(ps -eo pid=,args= | grep -F "$TMP/ab" | grep -v grep || true)
[ -z "$left" ] || fail "processes left: $left"
[ "$(json_get ab/A1/run_identity.json 'd["status"], d["exit_code"]')" = "('interrupted', 130)" ] ||
	fail "A1's identity: $(json_get ab/A1/run_identity.json 'd["status"], d["exit_code"]')"
[ "$(json_get ab/ab.json 'd["status"], [(r["name"], r["status"]) for r in d["rounds"]]')" = \
	"('interrupted', [('A1', 'interrupted'), ('B1', 'pending'), ('B2', 'pending'), ('A2', 'pending')])" ] ||
	fail "ab.json: $(json_get ab/ab.json 'd["status"], d["rounds"]')"
[ ! -e ab/B1 ] || fail "B1 started after the interrupt"
pass
