#!/bin/bash
# zlbench batch --launcher slurm: SIGINT cancels the job array (scancel); the tasks that
# ran end their runs and get truthful rows (interrupted, Slurm's reason), the ones that
# never started get none; then --resume runs exactly the missing ops.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t1000-slurm-cluster.sh"
slurm_up

FG=$ZL_SOURCE_DIR/tests/fixtures/flaggems
B=$TMP/b
OPS=batch_p01,batch_p02,batch_p03,batch_p04,batch_p05,batch_p06
cd "$TMP"
# six ops, four GPUs: four run (and sleep), two wait
export ZL_BATCH_PLAN='{"batch_p01":{"sleep":120},"batch_p02":{"sleep":120},"batch_p03":{"sleep":120},"batch_p04":{"sleep":120},"batch_p05":{"sleep":120},"batch_p06":{"sleep":120}}'
"$ZLBENCH" batch --launcher slurm --backend cuda --flaggems-dir "$FG" --python "$ZL_TEST_PYTHON" \
	--ops "$OPS" --out "$B" --progress plain >"$TMP/i.out" 2>"$TMP/i.err" &
pid=$!
# wait until two probes run (other tests may hold some of the GPUs)
for ((i = 0; i < 600; i++)); do
	[ "$(ls "$B"/runs/*/batch_probe.json 2>/dev/null | wc -l)" -ge 2 ] && break
	kill -0 $pid 2>/dev/null || { cat "$TMP/i.err" >&2; fail "the batch ended early"; }
	sleep 0.2
done
[ "$(ls "$B"/runs/*/batch_probe.json 2>/dev/null | wc -l)" -ge 2 ] || fail "no two probes started in 120 s"
job=$(slurm_job_of "$B")
kill -INT $pid
set +e
wait $pid
RC=$?
set -e
[ $RC -eq 130 ] || { cat "$TMP/i.err" >&2; fail "SIGINT: expected exit 130, got $RC"; }
contains "$TMP/i.err" "cancelling the Slurm job array (scancel)"
# the array is gone from the cluster, and so are the ops' processes
slurm_wait_job "$job" 30
"$ZL_TEST_PYTHON" - "$B" "$job" <<'PY' || fail "rows after SIGINT are not truthful"
import csv, glob, json, os, sys
B, job = sys.argv[1:]
rows = list(csv.DictReader(open(os.path.join(B, "ops_status.csv"), newline="")))
# every op whose run had started has its row; the ones Slurm never started have none.
# A task Slurm had started (it holds a node) whose zlbench run had not yet made its run
# directory still gets a row, naming the node and no run directory (seen on a slow CI host).
started = {os.path.basename(p) for p in glob.glob(os.path.join(B, "runs/*"))}
probed = {os.path.basename(os.path.dirname(p)) for p in glob.glob(os.path.join(B, "runs/*/batch_probe.json"))}
with_dir = {r["op"] for r in rows if r["run_dir"]}
assert with_dir == started and len(probed) >= 2, (rows, started, probed)
assert len(rows) == len({r["op"] for r in rows}) <= 4, rows  # four GPUs: at most four tasks ran
for r in rows:
    assert r["status"] == "interrupted" and r["attempt"] == "1", r
    assert r["reason"].startswith("slurm: cancelled (CANCELLED) by zlbench batch"), r
    assert r["device"], r  # the node Slurm had given it, at least
    if not r["run_dir"]:
        assert r["op"] not in started and not r["log"] and r["exit_code"], r
        continue
    ident = json.load(open(os.path.join(B, r["run_dir"], "run_identity.json")))
    assert ident["status"] == "interrupted", ident["status"]
    assert ident["scheduler"]["slurm_state"] == "CANCELLED", ident["scheduler"]
    if r["op"] not in probed:
        continue  # its pytest had not reached the op yet
    probe = json.load(open(os.path.join(B, r["run_dir"], "batch_probe.json")))
    assert probe["end"] is None, probe
    try:
        os.kill(probe["pid"], 0)
        raise SystemExit("op %s (pid %d) outlived the cancel" % (r["op"], probe["pid"]))
    except ProcessLookupError:
        pass
PY

# at most four ran (four GPUs, long sleeps): the others are "not run" in the summary
contains "$TMP/i.out" "not run"

# --resume: every op again (interrupted is not final), quickly this time
export ZL_BATCH_PLAN='{}' ZL_FIXTURE_SLEEP=0.2
run_zl batch --resume "$B" --progress plain
expect_rc 0
contains "$TMP/out" "6 operators: 6 passed"
"$ZL_TEST_PYTHON" - "$B" <<'PY' || fail "resume did not run exactly what was missing"
import csv, json, os, sys
B = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(B, "ops_status.csv"), newline="")))
subs = json.load(open(os.path.join(B, "slurm/slurm.json")))["submissions"]
assert len(subs) == 2, subs
assert sorted(t["op"] for t in subs[1]["tasks"]) == ["batch_p0%d" % i for i in range(1, 7)], subs[1]
for i in range(1, 7):
    op = "batch_p0%d" % i
    mine = [r for r in rows if r["op"] == op]
    passed = [r for r in mine if r["status"] == "passed"]
    assert len(passed) == 1 and mine[-1] is passed[0], mine
    # an op that ran before is attempt 2 in its own run directory; one that never ran is attempt 1
    ran_before = any(r["status"] == "interrupted" for r in mine)
    want = "2" if ran_before else "1"
    assert passed[0]["attempt"] == want, mine
    # the latest attempt has the op's own path; a cut one is kept beside it, its row says where
    assert passed[0]["run_dir"] == "runs/" + op, mine
    for r in mine[:-1]:
        if r["run_dir"]:
            assert r["run_dir"] == "runs/%s.attempt1" % op, r
            ident = json.load(open(os.path.join(B, r["run_dir"], "run_identity.json")))
            assert ident["status"] == "interrupted", ident["status"]
PY
pass
