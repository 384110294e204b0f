#!/bin/bash
# run --push: Ctrl-C ends a push that hangs (the run is complete by then: final identity,
# RUN_DIR printed, isolated caches removed).
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"

FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"
export ZL_NO_HISTORY=1
R() { run_zl run --backend cuda --flaggems-dir "$FX" --op sleepy --python "$ZL_TEST_PYTHON" "$@"; }

# a collector that accepts and never answers: Ctrl-C ends the push at once
port=$(free_port)
"$ZL_TEST_PYTHON" - "$port" "$TMP/accepted" <<'PY' &
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(8)
held = []
while True:
    c, _ = s.accept()
    held.append(c)
    open(sys.argv[2], "w").close()
PY
COLLECTOR_PIDS="$COLLECTOR_PIDS $!"
# SIGINT as a terminal's foreground job has it (a script's background job ignores it)
"$ZL_TEST_PYTHON" -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
	"$ZLBENCH" run --backend cuda --flaggems-dir "$FX" --op sleepy --python "$ZL_TEST_PYTHON" --out p2 \
	--isolate-tuner-cache --push "http://127.0.0.1:$port/api/runs" >p2.out 2>p2.err &
zl=$!
for _ in $(seq 300); do [ -e "$TMP/accepted" ] && break; sleep 0.1; done
[ -e "$TMP/accepted" ] || { kill -9 "$zl"; cat p2.err; fail "the push never connected"; }
t0=$(date +%s)
kill -INT "$zl"
for _ in $(seq 100); do kill -0 "$zl" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$zl" 2>/dev/null; then kill -9 "$zl"; fail "SIGINT did not end a hanging push within 10 s"; fi
set +e
wait "$zl"
rc=$?
set -e
[ "$rc" -eq 130 ] || { cat p2.err; fail "SIGINT during the push: exit $rc, want 130"; }
# the run itself was over: final identity, RUN_DIR printed, isolated caches gone
[ "$(json_get p2/run_identity.json 'd["status"], d["exit_code"]')" = "('passed', 0)" ] || fail "identity after an interrupted push"
[ "$(tail -n 1 p2.out)" = "RUN_DIR=$TMP/p2" ] || fail "RUN_DIR before the push: $(cat p2.out)"
cache=$(json_get p2/run_identity.json 'd["tuner_cache"]["path"]')
[ ! -e "$(dirname "$cache")" ] || fail "isolated caches left by an interrupted push"

pass
