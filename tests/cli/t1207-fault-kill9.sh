#!/bin/bash
# kill -9 of `zlbench run` at each stage: in preflight (its helper dies with it, nothing is
# made), while pytest runs (pytest ends, the identity says 'running': it never finished), and
# while the run is being stored (the final identity is there; the history can be given it
# again). The isolated caches a killed run leaves are swept by the next run, once nothing of
# the killed run is left; those of a live run never are. A batch killed outright with its run:
# the next session keeps the cut attempt and its runs sweep the caches (more batch kills: t0530).
. "$(dirname "$0")/lib.sh"

FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"
mkdir tmp
# a failed check must not leave this test's processes behind
trap 'for p in $(cat "$TMP"/*.pid "$TMP"/*/hang.pid 2>/dev/null); do kill -9 "$p" 2>/dev/null || :; done; rm -rf "$TMP"' EXIT
export TMPDIR="$TMP/tmp" ZL_HISTORY_DB="$TMP/h.db" ZL_KILL_GRACE=2
RUN=(run --backend cuda --flaggems-dir "$FX" --python "$ZL_TEST_PYTHON")
R() { "$ZLBENCH" "${RUN[@]}" "$@"; }

# wait_for PATH: PATH exists within 30 s
wait_for() {
	local i
	for i in $(seq 300); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	fail "'$1' did not appear"
}
# gone PID: PID has ended within 10 s (a zombie of ours counts as ended)
gone() {
	local i
	for i in $(seq 100); do
		if ! kill -0 "$1" 2>/dev/null || [ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" = Z ]; then
			return 0
		fi
		sleep 0.1
	done
	fail "process $1 outlived the killed zlbench"
}
caches() { ls -d tmp/zlbench-caches-* 2>/dev/null || :; }

# --- 1. in preflight, while the pytest probe runs: nothing is made, the probe dies too ---
mkdir bin
printf '#!/bin/sh\necho $$ >"%s/probe.pid"\nexec sleep 60\n' "$TMP" >bin/slowpython
chmod +x bin/slowpython
"$ZLBENCH" run --backend cuda --flaggems-dir "$FX" --python "$TMP/bin/slowpython" --op sleepy --out p1 \
	>/dev/null 2>&1 &
zpid=$!
echo $zpid >z1.pid
wait_for "$TMP/probe.pid"
kill -9 $zpid
wait $zpid 2>/dev/null || :
gone "$(cat "$TMP/probe.pid")"
[ ! -e p1 ] || fail "preflight: a run directory was made"

# --- 2. while pytest runs, isolated: pytest ends, the identity is the provisional one ---
"$ZLBENCH" "${RUN[@]}" --op hang --isolate-tuner-cache --out k2 >k2.out 2>&1 &
zpid=$!
echo $zpid >z2.pid
wait_for k2/hang.pid
[ "$(caches | wc -l)" -eq 1 ] || fail "expected one isolated cache: $(caches)"
contains "$(caches)/owner" "pid=$zpid"
kill -9 $zpid
wait $zpid 2>/dev/null || :
gone "$(cat k2/hang.pid)"
[ "$(json_get k2/run_identity.json 'd["status"], d["exit_code"]')" = "('running', None)" ] ||
	fail "k2 identity: $(json_get k2/run_identity.json 'd["status"]')"
left=$(caches)
[ -n "$left" ] || fail "the killed run left no cache to sweep (test premise)"
# the next run (not isolated) sweeps it and says so
R --op sleepy --out n2 >n2.out 2>n2.err
contains n2.err "removed the isolated caches '$TMP/$left' of a killed run (its zlbench is gone, pid $zpid)"
[ -z "$(caches)" ] || fail "not swept: $(caches)"

# --- a killed zlbench whose pytest ignores SIGTERM and lives on: its caches stay until it ends ---
ZL_FIXTURE_IGNORE_SIGTERM=1 "$ZLBENCH" "${RUN[@]}" --op hang --isolate-tuner-cache --out k3 >k3.out 2>&1 &
zpid=$!
echo $zpid >z3.pid
wait_for k3/hang.pid
kill -9 $zpid
wait $zpid 2>/dev/null || :
hpid=$(cat k3/hang.pid)
sleep 0.5
kill -0 "$hpid" || fail "test premise: pytest should have outlived zlbench"
R --op sleepy --out n3 >n3.out 2>n3.err
lacks n3.err "removed the isolated caches"
[ "$(caches | wc -l)" -eq 1 ] || fail "the caches of a live pytest were swept"
kill -9 "$hpid"
gone "$hpid"
R --op sleepy --out n4 >n4.out 2>n4.err
contains n4.err "removed the isolated caches"
[ -z "$(caches)" ] || fail "not swept after pytest ended: $(caches)"

# --- a live run's caches are never swept ---
"$ZLBENCH" "${RUN[@]}" --op hang --isolate-tuner-cache --out live >live.out 2>&1 &
zlive=$!
echo $zlive >z5.pid
wait_for live/hang.pid
R --op sleepy --out n5 >n5.out 2>n5.err
lacks n5.err "removed the isolated caches"
[ "$(caches | wc -l)" -eq 1 ] || fail "a live run's caches were swept"
# ... nor a cache of another host or pid namespace, nor one without an owner file
sed -i 's/^host=.*/host=elsewhere/' "$(caches)/owner"
kill -TERM $zlive
wait $zlive 2>/dev/null || :
mkdir tmp/zlbench-caches-noowner
R --op sleepy --out n6 >n6.out 2>n6.err
lacks n6.err "removed the isolated caches"
[ -d tmp/zlbench-caches-noowner ] || fail "a cache without an owner file was swept"
rm -rf tmp/zlbench-caches-*

# --- 3. while the finished run is stored (the history is locked): the identity is final ---
"$ZL_TEST_PYTHON" - "$ZL_HISTORY_DB" "$TMP/locked" <<'PY' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
open(sys.argv[2], "w").close()
time.sleep(30)
PY
lockpid=$!
echo $lockpid >lock.pid
wait_for "$TMP/locked"
"$ZLBENCH" "${RUN[@]}" --op sleepy --isolate-tuner-cache --out k4 >k4.out 2>&1 &
zpid=$!
echo $zpid >z4.pid
wait_for k4/plugins/timer_summary.json
for i in $(seq 100); do
	[ "$(json_get k4/run_identity.json 'd["status"]' 2>/dev/null)" = passed ] && break
	sleep 0.1
done
kill -9 $zpid
wait $zpid 2>/dev/null || :
kill $lockpid
wait $lockpid 2>/dev/null || :
[ "$(json_get k4/run_identity.json 'd["status"], d["exit_code"]')" = "('passed', 0)" ] ||
	fail "k4 identity: $(json_get k4/run_identity.json 'd["status"]')"
grep -q "RUN_DIR=" k4.out && fail "test premise: zlbench got past the history before the kill"
# nothing is lost: the run can be stored now
"$ZLBENCH" history --ingest k4 >/dev/null || fail "k4 could not be ingested"
R --op sleepy --out n7 >n7.out 2>n7.err
contains n7.err "removed the isolated caches"

# --- 4. a batch and its runs killed outright together (the OOM killer takes the group) ---
B="$TMP/b"
export ZL_BATCH_PLAN='{"batch_p01":{"sleep":60}}'
"$ZLBENCH" batch --backend cuda --flaggems-dir "$FX" --python "$ZL_TEST_PYTHON" --progress plain \
	--devices 0 --isolate-tuner-cache --ops batch_p01,batch_p02 --out "$B" >b.out 2>&1 &
bpid=$!
echo $bpid >z6.pid
wait_for "$B/runs/batch_p01/batch_probe.json"
[ "$(caches | wc -l)" -eq 1 ] || fail "batch: expected one isolated cache: $(caches)"
probe=$(json_get "$B/runs/batch_p01/batch_probe.json" 'd["pid"]')
runpid=$(json_get "$B/runs/batch_p01/batch_probe.json" 'd["ppid"]')
kill -9 $bpid $runpid
wait $bpid 2>/dev/null || :
gone "$probe"
[ "$(json_get "$B/runs/batch_p01/run_identity.json" 'd["status"]')" = running ] || fail "batch: identity"
[ "$(caches | wc -l)" -eq 1 ] || fail "test premise: the killed batch's run left its cache"
unset ZL_BATCH_PLAN
run_zl batch --resume "$B" --progress plain
expect_rc 0
contains "$TMP/out" "2 operators: 2 passed"
contains "$B/logs/batch_p01.log" "removed the isolated caches"
[ -z "$(caches)" ] || fail "batch: not swept: $(caches)"
[ "$(json_get "$B/runs/batch_p01.attempt1/run_identity.json" 'd["status"]')" = running ] ||
	fail "batch: the killed attempt was not kept"
pass
