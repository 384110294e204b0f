#!/bin/bash
# Ctrl-C (or SIGTERM) while preflight waits for a helper: zlbench ends with 128+N and
# takes the helper with it (it runs in its own process group, out of the terminal's reach).
. "$(dirname "$0")/lib.sh"

mini_tree "$TMP/fg"
cd "$TMP"
fake_tool nvidia-smi "echo \$\$ >'$TMP/tool.pid.tmp'; mv '$TMP/tool.pid.tmp' '$TMP/tool.pid'; exec sleep 30"

# gone PID: no such process (a zombie counts as gone: something reaps it later)
gone() { ! kill -0 "$1" 2>/dev/null || [ "$(ps -o stat= -p "$1" | cut -c1)" = Z ]; }

# interrupt SIG CODE CMD...: start zlbench, send SIG once the tool runs, expect exit CODE
interrupt() {
	local sig=$1 code=$2 zl rc i pid
	shift 2
	rm -f tool.pid
	# a script's background job starts with SIGINT ignored: give zlbench a terminal's default
	"$ZL_TEST_PYTHON" -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
		"$ZLBENCH" "$@" >int.out 2>int.err &
	zl=$!
	for i in $(seq 300); do [ -s tool.pid ] && break; sleep 0.1; done
	[ -s tool.pid ] || fail "the query tool never started: $(cat int.err)"
	pid=$(cat tool.pid)
	kill "-$sig" "$zl"
	set +e
	wait "$zl"
	rc=$?
	set -e
	[ "$rc" -eq "$code" ] || fail "$sig during preflight: exit $rc, want $code"
	for i in $(seq 50); do gone "$pid" && break; sleep 0.1; done
	gone "$pid" || { kill "$pid"; fail "$sig: the query tool (pid $pid) outlived zlbench"; }
}

interrupt INT 130 run --backend cuda --flaggems-dir fg --op mm --python "$ZL_TEST_PYTHON" --out r
[ ! -e r ] || fail "an interrupted preflight made the run directory"
interrupt TERM 143 preflight --backend cuda --flaggems-dir fg --op mm --python "$ZL_TEST_PYTHON"
interrupt INT 130 devices --backend cuda
pass
