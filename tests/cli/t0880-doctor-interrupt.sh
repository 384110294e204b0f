#!/bin/bash
# An interrupted doctor: SIGINT or SIGTERM while a Python step waits on a slow import ends
# that step's process group, removes doctor's temporary directory (TMPDIR/zlbench-doctor-*)
# and exits 128+N without a report.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/fixtures/doctor/doctor_lib.sh"
cd "$TMP"
fg_tree fg
mkdir -p "$TMP/doctortmp"
export TMPDIR="$TMP/doctortmp"

# interrupt SIGNAL CODE WORDS: start doctor on the fixture's hanging import, send SIGNAL once
# the import runs, and check the exit CODE, the message, the directory and the child
interrupt() {
	local zl py i
	rm -f "$TMP/pid"
	# job control: the background doctor keeps SIGINT's default, as in a terminal
	set -m
	FIXTURE_SLOW_IMPORT="$TMP/pid" "$ZLBENCH" doctor --python "$ZL_TEST_PYTHON" --backend cuda \
		--flaggems-dir fg --op mm >"$TMP/out" 2>"$TMP/err" &
	zl=$!
	set +m
	for i in $(seq 300); do
		[ -s "$TMP/pid" ] && break
		sleep 0.1
	done
	[ -s "$TMP/pid" ] || { kill -KILL $zl; fail "the slow import never started: $(cat "$TMP/err")"; }
	py=$(cat "$TMP/pid")
	ls "$TMP/doctortmp" | grep -q '^zlbench-doctor-' || { kill -KILL $zl; fail "no temporary directory while doctor runs"; }
	kill -"$1" $zl
	for i in $(seq 100); do
		kill -0 $zl 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 $zl 2>/dev/null; then
		kill -KILL $zl "$py"
		fail "doctor still runs 10 s after SIG$1"
	fi
	set +e
	wait $zl
	RC=$?
	set -e
	[ -z "$(ls -A "$TMP/doctortmp")" ] || { kill -KILL "$py"; fail "SIG$1 left $(ls "$TMP/doctortmp") behind"; }
	if kill -0 "$py" 2>/dev/null; then
		kill -KILL "$py"
		fail "the Python step (pid $py) outlived doctor after SIG$1"
	fi
	expect_rc "$2"
	contains "$TMP/err" "interrupted by $3: the diagnosis stopped"
	lacks "$TMP/out" "result:"
	lacks "$TMP/err" "DOCTOR_FAILED"
}

interrupt INT 130 Interrupt
interrupt TERM 143 Terminated

# Ctrl-C while step 1 waits on a vendor query tool that hangs: as with run's preflight, the tool
# and zlbench end at once (not when the tool's ZL_QUERY_TIMEOUT expires), and nothing is left
fake_tool nvidia-smi "echo \$\$ >'$TMP/toolpid'; exec /bin/sleep 60"
rm -f "$TMP/toolpid"
set -m
ZL_QUERY_TIMEOUT=30 "$ZLBENCH" doctor --python "$ZL_TEST_PYTHON" --backend cuda --flaggems-dir fg --op mm \
	>"$TMP/out" 2>"$TMP/err" &
zl=$!
set +m
for i in $(seq 300); do
	[ -s "$TMP/toolpid" ] && break
	sleep 0.1
done
[ -s "$TMP/toolpid" ] || { kill -KILL $zl; fail "the query tool never started: $(cat "$TMP/err")"; }
tool=$(cat "$TMP/toolpid")
start=$(date +%s%N)
kill -INT $zl
for i in $(seq 100); do
	kill -0 $zl 2>/dev/null || break
	sleep 0.05
done
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
if kill -0 $zl 2>/dev/null; then
	kill -KILL $zl "$tool"
	fail "doctor still runs 5 s after SIGINT during step 1"
fi
set +e
wait $zl
RC=$?
set -e
[ "$elapsed_ms" -lt 2000 ] || fail "doctor took ${elapsed_ms} ms to end after SIGINT during step 1"
if kill -0 "$tool" 2>/dev/null; then
	kill -KILL "$tool"
	fail "the query tool (pid $tool) outlived doctor"
fi
expect_rc 130
lacks "$TMP/out" "result:"
[ -z "$(ls -A "$TMP/doctortmp")" ] || fail "SIGINT in step 1 left $(ls "$TMP/doctortmp")"
rm -f "$TMP/bin/nvidia-smi"

# without a signal the same fixture passes and leaves nothing either
doctor --backend cuda --flaggems-dir fg --op mm
expect_passed
[ -z "$(ls -A "$TMP/doctortmp")" ] || fail "doctor left $(ls "$TMP/doctortmp")"
pass
