#!/bin/bash
# A batch op cut by SIGINT says so in its reason ("interrupted by SIGINT", not pytest's
# traceback); after --resume the op's own path runs/<op> is its final attempt (what
# `compare b1/runs/<op> b2/runs/<op>` must see) and the cut one is kept beside it as
# runs/<op>.attempt1, with ops_status.csv, the summary and the history saying where.
. "$(dirname "$0")/lib.sh"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
export ZL_KILL_GRACE=2 ZL_HISTORY_DB="$TMP/h.db"
ARGS=(batch --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --progress plain --devices 0)
cd "$TMP"

wait_probe() {
	local i
	for i in $(seq 300); do
		[ -f "$1/runs/$2/batch_probe.json" ] && return 0
		sleep 0.1
	done
	fail "probe $2 did not start"
}
csv_rows() {
	"$ZL_TEST_PYTHON" -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline="")):
    print("|".join((r["op"], r["status"], r["attempt"], r["run_dir"], r["log"], r["reason"])))
' "$1/ops_status.csv"
}

B="$TMP/b"
export ZL_BATCH_PLAN='{"batch_p05":{"sleep":60}}'
"$ZLBENCH" "${ARGS[@]}" --ops batch_p05,batch_p06 --out "$B" >"$TMP/i.out" 2>"$TMP/i.err" &
pid=$!
wait_probe "$B" batch_p05
kill -INT $pid
set +e
wait $pid
RC=$?
set -e
[ $RC -eq 130 ] || { cat "$TMP/i.err" >&2; fail "SIGINT: expected exit 130, got $RC"; }
[ "$(csv_rows "$B")" = "batch_p05|interrupted|1|runs/batch_p05|logs/batch_p05.log|interrupted by SIGINT" ] ||
	fail "the interrupted row: $(csv_rows "$B")"
[ "$(json_get "$B/runs/batch_p05/run_identity.json" 'd["reason"]')" = "interrupted by SIGINT" ] ||
	fail "identity reason: $(json_get "$B/runs/batch_p05/run_identity.json" 'd["reason"]')"
cut_id=$(json_get "$B/runs/batch_p05/run_identity.json" 'd["run_id"]')
# a run whose benchmark prints a traceback on the way out (as FlagGems' did on the H200):
# the reason is the signal, for SIGINT and SIGTERM alike
mkdir -p tb/benchmark
cat >tb/benchmark/conftest.py <<'PY'
def pytest_addoption(parser):
    for o in ("--level", "--mode", "--record", "--output"):
        parser.addoption(o)
PY
cat >tb/benchmark/test_tb.py <<'PY'
import os, sys, time, traceback
import pytest

@pytest.mark.tb
def test_tb():
    open(os.path.join(os.environ["ZL_RUN_DIR"], "started"), "w").close()
    try:
        time.sleep(60)
    except BaseException:
        sys.stderr.write("\n")
        traceback.print_exc()
        raise
PY
for sig in INT TERM; do
	"$ZLBENCH" run --backend cuda --flaggems-dir tb --python "$ZL_TEST_PYTHON" --op tb --out "$TMP/t$sig" \
		>"$TMP/t$sig.out" 2>&1 &
	rpid=$!
	for i in $(seq 300); do [ -f "$TMP/t$sig/started" ] && break; sleep 0.1; done
	kill -$sig $rpid
	wait $rpid 2>/dev/null || :
	contains "$TMP/t$sig/pytest.log" "Traceback (most recent call last):"
	[ "$(json_get "$TMP/t$sig/run_identity.json" 'd["status"], d["reason"]')" = "('interrupted', 'interrupted by SIG$sig')" ] ||
		fail "run SIG$sig: $(json_get "$TMP/t$sig/run_identity.json" 'd["status"], d["reason"]')"
done

unset ZL_BATCH_PLAN
run_zl batch --resume "$B" --progress plain
expect_rc 0
"$ZL_TEST_PYTHON" - "$B" "$cut_id" <<'PY' || fail "attempts after --resume"
import csv, json, os, sys
b, cut_id = sys.argv[1:]
rows = [r for r in csv.DictReader(open(os.path.join(b, "ops_status.csv"), newline="")) if r["op"] == "batch_p05"]
assert [(r["status"], r["attempt"], r["run_dir"], r["log"]) for r in rows] == [
    ("interrupted", "1", "runs/batch_p05.attempt1", "logs/batch_p05.attempt1.log"),
    ("passed", "2", "runs/batch_p05", "logs/batch_p05.log")], rows
final = json.load(open(os.path.join(b, "runs/batch_p05/run_identity.json")))
cut = json.load(open(os.path.join(b, "runs/batch_p05.attempt1/run_identity.json")))
assert final["status"] == "passed" and cut["status"] == "interrupted" and cut["run_id"] == cut_id, (final, cut)
assert "attempt 1" in open(os.path.join(b, "logs/batch_p05.attempt1.log")).read()
assert "attempt 2" in open(os.path.join(b, "logs/batch_p05.log")).read()
assert not os.path.exists(os.path.join(b, "runs/batch_p05.2"))
PY
# the summary names the final attempt's directory
grep -E '^batch_p05 +passed' "$TMP/out" >/dev/null || fail "summary: $(cat "$TMP/out")"
# the history follows the moved attempt: its run id loads the cut run, not the final one
run_zl history --json --op batch_p05
expect_rc 0
"$ZL_TEST_PYTHON" - "$TMP/out" "$B" "$cut_id" <<'PY' || fail "history run_dir"
import json, os, sys
runs = {e["run_id"]: e for e in json.load(open(sys.argv[1]))}
b, cut_id = sys.argv[2:]
assert runs[cut_id]["run_dir"] == os.path.realpath(os.path.join(b, "runs/batch_p05.attempt1")), runs[cut_id]
others = [e for k, e in runs.items() if k != cut_id]
assert [e["run_dir"] for e in others] == [os.path.realpath(os.path.join(b, "runs/batch_p05"))], others
PY
# compare b/runs/<op> against itself is the final attempt; the cut one by its run id
run_zl compare "$B/runs/batch_p05" "$cut_id"
contains "$TMP/out" "A: $(json_get "$B/runs/batch_p05/run_identity.json" 'd["run_id"]')  passed"
contains "$TMP/out" "B: $cut_id  interrupted  $(cd "$B/runs/batch_p05.attempt1" && pwd -P)"

# a third session (--retry-failed with nothing to retry) moves nothing
run_zl batch --resume "$B" --retry-failed --progress plain
expect_rc 0
[ ! -e "$B/runs/batch_p05.attempt2" ] || fail "a passed attempt was moved aside"
pass
