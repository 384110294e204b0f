#!/bin/bash
# batch: a crash, a hang (per-op timeout), a failure and a killed `zlbench run` stay their
# own op's; the other ops run and pass; the orphaned pytest is ended; exit 1. With a fresh
# interpreter per op and with the devices' workers (where the op runs in the worker).
. "$(dirname "$0")/lib.sh"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
export ZL_KILL_GRACE=2
batch() { run_zl batch --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --progress plain "$@"; }

export ZL_BATCH_PLAN='{"batch_p01":{"do":"crash"},"batch_p02":{"do":"hang"},"batch_p03":{"do":"kill_parent"},"batch_p04":{"do":"fail"}}'
for mode in fresh worker; do
# the per-op limit leaves room: under ASan on a loaded 2-core host a trivial op took 3.2 s
rm -rf "$TMP/b"
batch --start $mode --devices 0,1 --ops batch_p01,batch_p02,batch_p03,batch_p04,batch_p05,batch_p06 --timeout-per-op 10 --out "$TMP/b"
expect_rc 1
contains "$TMP/out" "6 operators: 2 passed, 1 failed, 2 crashed, 1 timed out, 0 preflight failed"
# the summary table names each op's status
contains "$TMP/out" "crashed"
contains "$TMP/out" "timeout"

"$ZL_TEST_PYTHON" - "$TMP/b" <<'PY' || fail "fault rows"
import csv, json, os, sys
b = sys.argv[1]
rows = {r["op"]: r for r in csv.DictReader(open(os.path.join(b, "ops_status.csv"), newline=""))}
assert len(rows) == 6, rows.keys()
want = {"batch_p01": ("crashed", "139"), "batch_p02": ("timeout", "124"), "batch_p03": ("crashed", "137"),
        "batch_p04": ("failed", "1"), "batch_p05": ("passed", "0"), "batch_p06": ("passed", "0")}
for op, (status, code) in want.items():
    r = rows[op]
    assert (r["status"], r["exit_code"]) == (status, code), r
    if status != "passed":
        assert r["reason"], r
    else:
        assert not r["reason"], r
assert "Segmentation fault" in rows["batch_p01"]["reason"], rows["batch_p01"]["reason"]
assert "timeout" in rows["batch_p02"]["reason"], rows["batch_p02"]["reason"]
# the run was SIGKILLed before it could finish its identity: the batch says so
assert "before finishing its run identity" in rows["batch_p03"]["reason"], rows["batch_p03"]["reason"]
assert json.load(open(os.path.join(b, "runs/batch_p03/run_identity.json")))["status"] == "running"
# the timed-out op's identity is its own truthful account
ident = json.load(open(os.path.join(b, "runs/batch_p02/run_identity.json")))
assert ident["status"] == "timeout" and ident["exit_code"] == 124, ident["status"]
PY

# the orphan of the killed run (it sleeps 60 s) did not outlive the batch
orphan=$(json_get "$TMP/b/runs/batch_p03/batch_probe.json" 'd["pid"]')
[ -n "$orphan" ] || fail "no pid in batch_p03's probe"
if kill -0 "$orphan" 2>/dev/null; then
	kill -9 "$orphan"
	fail "pytest of the killed run (pid $orphan) is still running"
fi
# nor did the hang's pytest
hang=$(json_get "$TMP/b/runs/batch_p02/batch_probe.json" 'd["pid"]')
if kill -0 "$hang" 2>/dev/null; then
	kill -9 "$hang"
	fail "pytest of the timed-out run (pid $hang) is still running"
fi
[ "$(json_get "$TMP/b/runs/batch_p05/run_identity.json" 'd["start"]["mode"]')" = \
	"$([ $mode = worker ] && echo reused || echo fresh)" ] || fail "$mode: batch_p05 did not start $mode"
done
pass
