#!/bin/bash
# batch: kill -9 of the batch, then --resume: no finished op runs twice and none is lost;
# SIGINT: forwarded, rows interrupted, exit 130; a finished op without its row is adopted;
# --retry-failed; a row cut off mid-write is dropped.
. "$(dirname "$0")/lib.sh"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
export ZL_KILL_GRACE=2
ARGS=(batch --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --progress plain)
batch() { run_zl "${ARGS[@]}" "$@"; }

# wait_probes DIR OP...: each op's probe has started
wait_probes() {
	local dir=$1 i op ok
	shift
	for i in $(seq 300); do
		ok=1
		for op in "$@"; do
			[ -f "$dir/runs/$op/batch_probe.json" ] || ok=0
		done
		[ $ok = 1 ] && return 0
		sleep 0.1
	done
	fail "probes of $* did not start"
}

# rows DIR: "op:status:attempt" for every row, in file order (through Python's csv)
rows() {
	"$ZL_TEST_PYTHON" -c '
import csv, sys
print(" ".join("%s:%s:%s" % (r["op"], r["status"], r["attempt"]) for r in csv.DictReader(open(sys.argv[1], newline=""))))
' "$1/ops_status.csv"
}

# ---- kill -9 while two ops run ----------------------------------------------------------
B="$TMP/k"
export ZL_BATCH_PLAN='{"batch_p01":{"sleep":60},"batch_p02":{"sleep":60}}'
"$ZLBENCH" "${ARGS[@]}" --devices 0,1 --ops batch_p03,batch_p04,batch_p01,batch_p02 --out "$B" \
	>"$TMP/k.out" 2>"$TMP/k.err" &
pid=$!
wait_probes "$B" batch_p01 batch_p02
kill -9 $pid
wait $pid 2>/dev/null || :
r=$(rows "$B")
case "$r" in
*batch_p01*|*batch_p02*) fail "rows for ops that never finished: $r" ;;
esac
[ "$(echo "$r" | wc -w)" -eq 2 ] || fail "expected the two finished rows, got: $r"

unset ZL_BATCH_PLAN
run_zl batch --resume "$B" --progress plain
expect_rc 0
contains "$TMP/out" "4 operators: 4 passed"
"$ZL_TEST_PYTHON" - "$B" <<'PY' || fail "after resume"
import csv, json, os, sys
b = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(b, "ops_status.csv"), newline="")))
passed = {}
for r in rows:
    assert r["status"] == "passed", r
    assert r["op"] not in passed, "%s ran twice" % r["op"]
    passed[r["op"]] = r
assert sorted(passed) == ["batch_p01", "batch_p02", "batch_p03", "batch_p04"], passed.keys()
assert passed["batch_p03"]["attempt"] == "1" and passed["batch_p04"]["attempt"] == "1"
# the latest attempt has the op's own path (what compare wants); the cut one is kept beside it
assert passed["batch_p01"]["attempt"] == "2" and passed["batch_p01"]["run_dir"] == "runs/batch_p01"
assert json.load(open(os.path.join(b, "runs/batch_p01/run_identity.json")))["status"] == "passed"
for op in ("batch_p03", "batch_p04"):
    assert not os.path.exists(os.path.join(b, "runs", op + ".attempt1")), op + " ran again"
# the runs the dead batch left behind ended their pytest and say so truthfully
for op in ("batch_p01", "batch_p02"):
    ident = json.load(open(os.path.join(b, "runs", op + ".attempt1", "run_identity.json")))
    assert ident["status"] == "interrupted", (op, ident["status"])
    assert os.path.isfile(os.path.join(b, "logs", op + ".attempt1.log")), op
    probe = json.load(open(os.path.join(b, "runs", op + ".attempt1", "batch_probe.json")))
    assert probe["end"] is None, "the 60 s sleep of %s should have been cut short" % op
    # a zombie is dead: with --start worker pytest ran in the batch's worker, whose parent
    # (the killed batch) is gone, and an init that does not reap leaves it a zombie
    try:
        state = open("/proc/%d/stat" % probe["pid"]).read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        state = None
    assert state in (None, "Z"), "pytest of %s (pid %d) outlived the batch" % (op, probe["pid"])
sessions = json.load(open(os.path.join(b, "batch.json")))["sessions"]
assert [s["resume"] for s in sessions] == [False, True], sessions
PY

# ---- a finished op whose row never got written is adopted, a cut-off row is dropped ------
"$ZL_TEST_PYTHON" - "$B/ops_status.csv" <<'PY'
import sys
path = sys.argv[1]
lines = open(path, newline="").read().split("\r\n")
kept = [l for l in lines if l and not l.startswith("batch_p04,")]
open(path, "w", newline="").write("\r\n".join(kept) + "\r\nbatch_p09,pass")
PY
run_zl batch --resume "$B" --progress plain
expect_rc 0
contains "$TMP/err" "batch_p04: attempt 1 finished (passed) before the batch could record it; recorded now"
[ -e "$B/runs/batch_p04.attempt1" ] && fail "batch_p04 ran again instead of being adopted"
lacks "$B/ops_status.csv" "batch_p09"
case "$(rows "$B")" in
*batch_p04:passed:1*) ;;
*) fail "no adopted row for batch_p04: $(rows "$B")" ;;
esac

# ---- SIGINT: forwarded, the running ops are recorded as interrupted, exit 130 ------------
B="$TMP/i"
export ZL_BATCH_PLAN='{"batch_p05":{"sleep":60}}'
"$ZLBENCH" "${ARGS[@]}" --devices 0 --ops batch_p05,batch_p06 --out "$B" >"$TMP/i.out" 2>"$TMP/i.err" &
pid=$!
wait_probes "$B" batch_p05
kill -INT $pid
set +e
wait $pid
RC=$?
set -e
[ $RC -eq 130 ] || { cat "$TMP/i.err" >&2; fail "SIGINT: expected exit 130, got $RC"; }
contains "$TMP/i.err" "forwarding to 1 running op"
[ "$(rows "$B")" = "batch_p05:interrupted:1" ] || fail "after SIGINT: $(rows "$B")"
[ "$(json_get "$B/runs/batch_p05/run_identity.json" 'd["status"]')" = interrupted ] || fail "identity not interrupted"
contains "$TMP/i.out" "not run"
unset ZL_BATCH_PLAN
run_zl batch --resume "$B" --progress plain
expect_rc 0
[ "$(rows "$B")" = "batch_p05:interrupted:1 batch_p05:passed:2 batch_p06:passed:1" ] ||
	[ "$(rows "$B")" = "batch_p05:interrupted:1 batch_p06:passed:1 batch_p05:passed:2" ] ||
	fail "after resume: $(rows "$B")"

# ---- --retry-failed --------------------------------------------------------------------------
B="$TMP/r"
export ZL_BATCH_PLAN='{"batch_p07":{"do":"fail"}}'
batch --devices 0 --ops batch_p07,batch_p08 --out "$B"
expect_rc 1
unset ZL_BATCH_PLAN
run_zl batch --resume "$B"
expect_rc 1
[ -e "$B/runs/batch_p07.attempt1" ] && fail "a failed op is final without --retry-failed"
run_zl batch --resume "$B" --retry-failed
expect_rc 0
[ "$(rows "$B" | tr ' ' '\n' | grep -c passed)" -eq 2 ] || fail "retry: $(rows "$B")"
[ -d "$B/runs/batch_p07.attempt1" ] || fail "batch_p07 not retried (its failed attempt kept aside)"
[ "$(json_get "$B/runs/batch_p07/run_identity.json" 'd["status"]')" = passed ] || fail "runs/batch_p07 is not the retry"
[ -e "$B/runs/batch_p08.attempt1" ] && fail "a passed op was retried"

# ---- usage ---------------------------------------------------------------------------------
run_zl batch --resume "$B" --ops batch_p01
expect_rc 2
contains "$TMP/err" "--resume uses the settings saved in the batch directory"
run_zl batch --resume "$B" --level comprehensive
expect_rc 2
run_zl batch --resume "$TMP/nothing-here"
expect_rc 2
contains "$TMP/err" "batch.json"
batch --devices 0 --ops batch_p01 --out "$B"
expect_rc 2
contains "$TMP/err" "continue it with --resume"
pass
