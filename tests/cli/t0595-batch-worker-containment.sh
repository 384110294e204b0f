#!/bin/bash
# batch --start worker: one interpreter runs the device's ops one after another; an op that
# changes resettable globals is reset after, an op that leaves FlagGems enabled, segfaults,
# hangs past its timeout or leaks device memory ends its worker, and the next op gets a
# fresh interpreter with an untouched result and status; its identity says so.
. "$(dirname "$0")/lib.sh"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
export ZL_KILL_GRACE=2 ZL_NO_HISTORY=1
# the worker retires when more than this much of the demo's device memory stays allocated
export ZL_WORKER_MEM_SLACK_MIB=0.01
ops=worker_mutate,worker_look_a,worker_gems,worker_look_b,crash,worker_look_c,hang,worker_look_d
ops=$ops,worker_memory,worker_look_e
# the per-op limit leaves room for an ASan build on a loaded 2-core host; hang takes all of it
run_zl batch --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --progress plain --start worker \
	--devices 0 --ops "$ops" --timeout-per-op 20 --out "$TMP/b"
expect_rc 1
contains "$TMP/out" "10 operators: 8 passed, 0 failed, 1 crashed, 1 timed out"

"$ZL_TEST_PYTHON" - "$TMP/b" "$FIX" <<'PY' || fail "worker containment"
import csv, json, os, sys
b, fix = sys.argv[1], sys.argv[2]
rows = {r["op"]: r for r in csv.DictReader(open(os.path.join(b, "ops_status.csv"), newline=""))}
def ident(op):
    return json.load(open(os.path.join(b, "runs", op, "run_identity.json")))
def probe(op):
    return json.load(open(os.path.join(b, "runs", op, "worker_probe.json")))
want = {"worker_mutate": ("passed", "0", "reused", "0"), "worker_look_a": ("passed", "0", "reused", "1"),
        "worker_gems": ("passed", "0", "reused", "2"), "worker_look_b": ("passed", "0", "reused", "0"),
        "crash": ("crashed", "139", "reused", "1"), "worker_look_c": ("passed", "0", "reused", "0"),
        "hang": ("timeout", "124", "reused", "1"), "worker_look_d": ("passed", "0", "reused", "0"),
        "worker_memory": ("passed", "0", "reused", "1"), "worker_look_e": ("passed", "0", "reused", "0")}
for op, w in want.items():
    r = rows[op]
    assert (r["status"], r["exit_code"], r["start"], r["ops_before"]) == w, (op, r)
    assert ident(op)["start"]["mode"] == "reused" and ident(op)["start"]["ops_before"] == int(w[3]), ident(op)["start"]
pid = {op: ident(op)["start"]["worker_pid"] for op in want}
# one worker until flag_gems stayed enabled, then one per fault
assert pid["worker_mutate"] == pid["worker_look_a"] == pid["worker_gems"], pid
assert len({pid["worker_gems"], pid["worker_look_b"], pid["worker_look_c"], pid["worker_look_d"],
            pid["worker_look_e"]}) == 5, pid
assert pid["worker_look_b"] == pid["crash"] and pid["worker_look_c"] == pid["hang"], pid
assert pid["worker_look_d"] == pid["worker_memory"], pid

# worker_look_a ran in the same interpreter, after the globals were reset and restored
a = probe("worker_look_a")
assert a["seen_ops"] == ["worker_mutate"], a
assert a["pid"] == pid["worker_mutate"], a
assert (a["recursion_limit"], a["root_log_level"], a["sigusr1_default"]) == (1000, 30, True), a
assert (a["cwd"], a["path_leak"], a["env_leak"]) == (fix, False, None), a
assert a["run_dir"] == os.path.join(b, "runs", "worker_look_a") and a["visible"] == "0", a
reset = ident("worker_look_a")["start"]["reset"]
for name in ("python recursion limit", "python root logger", "python signal handlers"):
    assert name in reset, reset
assert ident("worker_mutate")["start"]["retired_after"] is None

# the ops after a retired or dead worker got a fresh interpreter: nothing of the ops before
assert "flag_gems enabled" in ident("worker_gems")["start"]["retired_after"], ident("worker_gems")["start"]
assert "device memory" in ident("worker_memory")["start"]["retired_after"], ident("worker_memory")["start"]
for op in ("worker_look_b", "worker_look_c", "worker_look_d", "worker_look_e"):
    p = probe(op)
    assert p["seen_ops"] == [] and not p["gems_enabled"] and not p["overrides"], (op, p)
    assert p["memory"] < 16384, (op, p)
    assert ident(op)["start"]["reset"] == [], ident(op)["start"]
assert "Segmentation fault" in rows["crash"]["reason"], rows["crash"]
assert "timeout" in rows["hang"]["reason"], rows["hang"]

# every worker is accounted for in events.jsonl, and none outlived the batch
ev = [json.loads(l) for l in open(os.path.join(b, "workers", "events.jsonl"))]
started = [e["pid"] for e in ev if e["event"] == "started"]
assert len(started) == 5 and sorted(started) == sorted(e["pid"] for e in ev if e["event"] == "ended"), ev
print(" ".join(str(p) for p in started))
PY
for p in $("$ZL_TEST_PYTHON" -c 'import json,sys; print(" ".join(str(json.loads(l)["pid"]) for l in open(sys.argv[1]) if "\"started\"" in l))' "$TMP/b/workers/events.jsonl"); do
	if kill -0 "$p" 2>/dev/null; then
		kill -9 "$p"
		fail "worker $p outlived the batch"
	fi
done
contains "$TMP/out" "worker on device 0: 5 started, 5 ready"
# the directory of the sockets and exit records is gone
sock=$(json_get "$TMP/b/workers/events.jsonl" 'd' 2>/dev/null || head -1 "$TMP/b/workers/events.jsonl" |
	"$ZL_TEST_PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["socket"])')
[ -n "$sock" ] && [ ! -e "$(dirname "$sock")" ] || fail "socket directory of '$sock' is left"
pass
