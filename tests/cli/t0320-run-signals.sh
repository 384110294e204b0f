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

# --timeout: SIGTERM to the group, grace, SIGKILL; exit 124, status timeout; isolated caches removed.
# The timeouts leave pytest time to start and load the plugins (whose SIGTERM handler is what
# is tested) on a loaded 2-core machine: with 3 s, SIGTERM once came before it (signal 15).
run_zl run --backend cuda --flaggems-dir "$FX" --op hang --python "$ZL_TEST_PYTHON" --out t --timeout 10 --isolate-tuner-cache
expect_rc 124
# the plugins turn SIGTERM into KeyboardInterrupt: pytest unwinds on its own (no signal death)
# and the session-end files are written
[ "$(json_get t/run_identity.json 'd["status"], d["exit_code"], d["signal"], d["tuner_cache"]["removed"]')" = "('timeout', 124, None, True)" ] ||
	fail "timeout status: $(json_get t/run_identity.json 'd["status"], d["exit_code"], d["signal"]')"
[ -s t/plugins/autotune_summary.json ] && [ -s t/plugins/foreign_vendor.json ] || fail "no session-end files after the timeout"
contains t/pytest.log "KeyboardInterrupt"
gone "$(cat t/hang.pid)" || fail "the hung pytest survived the timeout"
lacks "$TMP/err" "of grace: SIGKILL"
cache=$(json_get t/run_identity.json 'd["tuner_cache"]["path"]')
[ -n "$cache" ] && [ ! -e "$(dirname "$cache")" ] || fail "isolated caches '$cache' left after a timeout"

# a child that ignores SIGTERM: the grace passes, then SIGKILL ends it (signal 9)
t0=$(date +%s)
ZL_FIXTURE_IGNORE_SIGTERM=1 run_zl run --backend cuda --flaggems-dir "$FX" --op hang --python "$ZL_TEST_PYTHON" \
	--out k --timeout 8 --isolate-tuner-cache
t1=$(date +%s)
expect_rc 124
[ "$(json_get k/run_identity.json 'd["status"], d["exit_code"], d["signal"]')" = "('timeout', 124, 9)" ] ||
	fail "SIGTERM ignored: $(json_get k/run_identity.json 'd["status"], d["exit_code"], d["signal"]')"
contains "$TMP/err" "zlbench: still running after 2 s of grace: SIGKILL"
[ $((t1 - t0)) -ge 10 ] || fail "SIGKILL came before the grace was over ($((t1 - t0)) s for timeout 8 + grace 2)"
gone "$(cat k/hang.pid)" || fail "the pytest that ignored SIGTERM survived"
cache=$(json_get k/run_identity.json 'd["tuner_cache"]["path"]')
[ -n "$cache" ] && [ ! -e "$(dirname "$cache")" ] || fail "isolated caches '$cache' left after SIGKILL"

# a failing op: isolated caches removed too
run_zl run --backend cuda --flaggems-dir "$FX" --op fail --python "$ZL_TEST_PYTHON" --out f --isolate-tuner-cache
expect_rc 1
cache=$(json_get f/run_identity.json 'd["tuner_cache"]["path"]')
[ -n "$cache" ] && [ ! -e "$(dirname "$cache")" ] || fail "isolated caches '$cache' left after a failure"
[ "$(json_get f/run_identity.json 'd["status"], d["tuner_cache"]["removed"]')" = "('failed', True)" ] || fail "failed run's identity"

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
# pytest got an ordinary SIGINT (not the ignored one of the script): it ended by KeyboardInterrupt,
# on its own (no signal death, no SIGKILL after the grace), and wrote results.json
[ "$(json_get s/run_identity.json 'd["signal"]')" = None ] || fail "pytest did not end by KeyboardInterrupt: signal $(json_get s/run_identity.json 'd["signal"]')"
contains s/pytest.log "KeyboardInterrupt"
[ "$(json_get s/results.json '"hang" in d')" = True ] || fail "results.json after SIGINT"
lacks s.err "of grace: SIGKILL"
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
[ "$(json_get term/run_identity.json 'd["status"], d["exit_code"], d["signal"]')" = "('interrupted', 143, None)" ] ||
	fail "SIGTERM status: $(json_get term/run_identity.json 'd["status"], d["exit_code"], d["signal"]')"
[ -s term/plugins/autotune_summary.json ] || fail "no session-end files after SIGTERM"
gone "$(cat term/hang.pid)" || fail "pytest survived SIGTERM"
# a refused non-empty --out is left byte for byte as it was
mkdir -p busy/sub
printf 'keep me\n' >busy/notes.txt
printf '\0\1binary' >busy/sub/data.bin
before=$(cd busy && find . -printf '%p %s %T@ %m\n' | sort; cat notes.txt sub/data.bin | sha256sum)
run_zl run --backend cuda --flaggems-dir "$FX" --op sleepy --python "$ZL_TEST_PYTHON" --out busy --isolate-tuner-cache
expect_rc 3
contains "$TMP/err" "PREFLIGHT_FAILED check=out_dir"
after=$(cd busy && find . -printf '%p %s %T@ %m\n' | sort; cat notes.txt sub/data.bin | sha256sum)
[ "$before" = "$after" ] || fail "a refused --out was changed: $(printf '%s\n--\n%s' "$before" "$after")"

# no zombie: nothing of ours is left in the process table (ours: their argv names this
# test's directory; other tests running beside this one have their own)
if ps -eo stat,args | grep -v grep | grep -F -- "$TMP/" | grep -q "pytest.*hang"; then
	ps -eo pid,stat,args | grep -F -- "$TMP/"; fail "left a process"
fi
pass
