#!/bin/bash
# batch --start worker: SIGINT ends the running ops (interrupted, exit 130) and every worker,
# --resume finishes in new workers; a worker that cannot start leaves its device's ops to
# fresh interpreters; --start is validated (fork is not offered); compare lists how A and B
# started, and a run without "start" reads as fresh.
. "$(dirname "$0")/lib.sh"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
export ZL_KILL_GRACE=2 ZL_NO_HISTORY=1
ARGS=(batch --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --progress plain)

# worker_pids DIR: every worker the batch in DIR started
worker_pids() {
	"$ZL_TEST_PYTHON" -c 'import json,sys; print(" ".join(str(json.loads(l)["pid"]) for l in open(sys.argv[1]) if "\"started\"" in l))' \
		"$1/workers/events.jsonl"
}
# none_alive PID...: fail when one of them still runs
none_alive() {
	local p
	for p in "$@"; do
		if kill -0 "$p" 2>/dev/null; then
			kill -9 "$p"
			fail "worker $p is still running"
		fi
	done
}

# ---- usage ------------------------------------------------------------------------------
run_zl "${ARGS[@]}" --ops add --start fork --out "$TMP/u"
expect_rc 2
contains "$TMP/err" "--start fork is not offered on backend 'cuda': importing FlagGems there initialises the device"
run_zl "${ARGS[@]}" --ops add --start bogus --out "$TMP/u"
expect_rc 2
contains "$TMP/err" "invalid value 'bogus' for --start: choose worker or fresh"
ZL_START=forked run_zl "${ARGS[@]}" --ops add --out "$TMP/u"
expect_rc 2
contains "$TMP/err" "invalid value 'forked' for ZL_START"
run_zl "${ARGS[@]}" --ops add --launcher slurm --start worker --out "$TMP/u"
expect_rc 2
contains "$TMP/err" "--start worker does not apply with --launcher slurm"
[ ! -e "$TMP/u" ] || fail "a refused batch left its directory"
# ZL_START=worker exported for local batches does not break a Slurm batch: said, fresh tasks
ZL_START=worker run_zl "${ARGS[@]}" --ops add --launcher slurm --dry-run --out "$TMP/u"
expect_rc 0
contains "$TMP/err" "note: ZL_START=worker does not apply with --launcher slurm"
run_zl "${ARGS[@]}" --ops add,sum --devices 0 --dry-run --out "$TMP/u"
expect_rc 0
contains "$TMP/out" "start: worker (one interpreter per device"
run_zl "${ARGS[@]}" --ops add --devices 0 --isolate-tuner-cache --start worker --dry-run --out "$TMP/u"
expect_rc 0
contains "$TMP/out" "start: fresh (isolated tuner caches need a fresh interpreter)"
contains "$TMP/err" "every operator starts fresh (--start worker does not apply)"

# ---- SIGINT while two ops run in their devices' workers, then --resume -------------------
B="$TMP/i"
export ZL_BATCH_PLAN='{"batch_p01":{"sleep":60},"batch_p02":{"sleep":60}}'
"$ZLBENCH" "${ARGS[@]}" --start worker --devices 0,1 --ops batch_p03,batch_p04,batch_p01,batch_p02 --out "$B" \
	>"$TMP/i.out" 2>"$TMP/i.err" &
pid=$!
for i in $(seq 600); do
	[ -f "$B/runs/batch_p01/batch_probe.json" ] && [ -f "$B/runs/batch_p02/batch_probe.json" ] && break
	sleep 0.1
done
[ -f "$B/runs/batch_p02/batch_probe.json" ] || fail "the sleeping ops did not start"
kill -INT $pid
set +e
wait $pid
rc=$?
set -e
[ $rc -eq 130 ] || { cat "$TMP/i.err"; fail "expected exit 130 after SIGINT, got $rc"; }
"$ZL_TEST_PYTHON" - "$B" <<'PY' || fail "interrupted rows"
import csv, json, os, sys
b = sys.argv[1]
rows = {r["op"]: r for r in csv.DictReader(open(os.path.join(b, "ops_status.csv"), newline=""))}
for op in ("batch_p01", "batch_p02"):
    assert rows[op]["status"] == "interrupted" and rows[op]["start"] == "reused", rows[op]
    # the probe ran in the worker, not in a child of the run
    probe = json.load(open(os.path.join(b, "runs", op, "batch_probe.json")))
    ident = json.load(open(os.path.join(b, "runs", op, "run_identity.json")))
    assert probe["pid"] == ident["start"]["worker_pid"], (probe, ident["start"])
for op in ("batch_p03", "batch_p04"):
    assert rows[op]["status"] == "passed", rows[op]
PY
first=$(worker_pids "$B")
[ -n "$first" ] || fail "no worker was started"
none_alive $first
# no process of this batch is left (the socket directory is gone with them)
ps -eo args | grep -F -- "$B/" | grep -v grep && fail "a process of the interrupted batch is left" || :

unset ZL_BATCH_PLAN
run_zl batch --resume "$B" --progress plain
expect_rc 0
contains "$TMP/out" "4 operators: 4 passed"
"$ZL_TEST_PYTHON" - "$B" <<'PY' || fail "resumed rows"
import csv, json, os, sys
b = sys.argv[1]
last = {}
for r in csv.DictReader(open(os.path.join(b, "ops_status.csv"), newline="")):
    last[r["op"]] = r
for op in ("batch_p01", "batch_p02"):
    r = last[op]
    assert (r["status"], r["attempt"], r["start"], r["ops_before"]) == ("passed", "2", "reused", "0"), r
    assert json.load(open(os.path.join(b, r["run_dir"], "run_identity.json")))["start"]["mode"] == "reused"
PY
none_alive $(worker_pids "$B")

# ---- a run that never reaches the worker (its preflight stops it) leaves the worker as it is ----
# (an unknown op is refused before the batch starts: here the op's file goes away after that)
cp -rL "$FIX" "$TMP/fx"
printf 'import pytest\n\n@pytest.mark.gone_op\ndef test_gone_op():\n    pass\n' >"$TMP/fx/benchmark/test_gone_op.py"
ZL_BATCH_PLAN='{"batch_p05":{"sleep":3}}' "$ZLBENCH" "${ARGS[@]}" --flaggems-dir "$TMP/fx" --start worker --devices 0 \
	--ops batch_p05,gone_op,batch_p06 --out "$TMP/p" >"$TMP/out" 2>"$TMP/err" &
bpid=$!
for _ in $(seq 100); do [ -e "$TMP/p/batch.json" ] && break; sleep 0.05; done
rm "$TMP/fx/benchmark/test_gone_op.py"
set +e
wait $bpid
RC=$?
set -e
expect_rc 1
"$ZL_TEST_PYTHON" - "$TMP/p" <<'PY' || fail "preflight in between"
import csv, json, os, sys
b = sys.argv[1]
rows = {r["op"]: r for r in csv.DictReader(open(os.path.join(b, "ops_status.csv"), newline=""))}
assert rows["gone_op"]["status"] == "preflight_failed", rows["gone_op"]
pid = lambda op: json.load(open(os.path.join(b, "runs", op, "run_identity.json")))["start"]["worker_pid"]
assert (rows["batch_p06"]["start"], rows["batch_p06"]["ops_before"]) == ("reused", "1"), rows["batch_p06"]
assert pid("batch_p05") == pid("batch_p06")
PY

# ---- socket directories: the batch's own is removed at its end; one a killed batch left is swept
mkdir -p "$TMP/t/zlbench-workers-999999999-dead01" "$TMP/t/zlbench-workers-$$-alive1"
TMPDIR="$TMP/t" run_zl "${ARGS[@]}" --start worker --devices 0 --ops batch_p05 --out "$TMP/s"
expect_rc 0
[ "$(ls "$TMP/t")" = "zlbench-workers-$$-alive1" ] || fail "socket directories left: $(ls "$TMP/t")"

# ---- a worker that cannot start: its device's ops start fresh -----------------------------
mkdir -p "$TMP/plugins"
cp "$ZL_SOURCE_DIR"/plugins/*.py "$TMP/plugins/"
rm "$TMP/plugins/zl_worker.py"
ZL_PLUGINS_DIR="$TMP/plugins" run_zl "${ARGS[@]}" --start worker --devices 0 --ops batch_p05,batch_p06 --out "$TMP/f"
expect_rc 0
contains "$TMP/err" "device 0: its worker ended before it was ready"
contains "$TMP/err" "its ops start fresh"
"$ZL_TEST_PYTHON" - "$TMP/f" <<'PY' || fail "fresh fallback"
import csv, json, os, sys
b = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(b, "ops_status.csv"), newline="")))
assert [(r["status"], r["start"]) for r in rows] == [("passed", "fresh")] * 2, rows
ev = [json.loads(l) for l in open(os.path.join(b, "workers", "events.jsonl"))]
assert [e["event"] for e in ev] == ["started", "ended", "started", "ended"], ev
PY
contains "$TMP/f/workers/0.1.log" "No module named zl_worker"

# ---- compare: how A and B started is listed, not refused; an old run reads as fresh -------
run_zl "${ARGS[@]}" --start fresh --devices 0 --ops batch_p05 --out "$TMP/c"
expect_rc 0
run_zl compare "$TMP/c/runs/batch_p05" "$B/runs/batch_p03"
expect_rc 0
contains "$TMP/out" "interpreter start: fresh -> reused"
"$ZL_TEST_PYTHON" - "$TMP/c/runs/batch_p05/run_identity.json" "$TMP/old" <<'PY'
import json, os, shutil, sys
src = os.path.dirname(sys.argv[1])
shutil.copytree(src, sys.argv[2])
d = json.load(open(sys.argv[1]))
assert d["start"] == {"mode": "fresh", "ops_before": 0, "worker_pid": None}, d["start"]
del d["start"]
json.dump(d, open(os.path.join(sys.argv[2], "run_identity.json"), "w"))
PY
run_zl compare "$TMP/old" "$TMP/c/runs/batch_p05"
expect_rc 0
lacks "$TMP/out" "interpreter start"
pass
