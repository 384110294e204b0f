#!/bin/bash
# A dtype an op does not support is a skip, not a failure (zl_skips): the run is `skipped`
# with the reason, exit 0; ops_status.csv has the status and reason; a batch whose only ops
# that did not pass are skipped exits 0 and says how many and why, and its worker serves on;
# the report counts them.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
cp -r "$ZL_SOURCE_DIR/examples/demo" fg
# an int-only op beside the demo's float ones (FlagGems has gcd_, bitwise_and_tensor, ...)
cat >fg/benchmark/test_int_add.py <<'PY'
import cpuref
import pytest

from . import base, consts


@pytest.mark.int_add
def test_int_add():
    bench = base.BinaryPointwiseBenchmark(op_name="int_add", torch_op=cpuref.add, dtypes=consts.INT_DTYPES)
    bench.run()
PY
reason="dtype float16 not supported by this op; it supports int16, int32"

# one run
run_zl run --backend cuda --flaggems-dir fg --python "$ZL_TEST_PYTHON" --op int_add --out r1 -- --dtypes float16
expect_rc 0
contains "$TMP/err" "status:      skipped (exit 0)"
contains "$TMP/err" "$reason"
[ "$(json_get r1/run_identity.json 'd["status"], d["exit_code"], d["reason"]')" = "('skipped', 0, '$reason')" ] ||
	fail "identity: $(json_get r1/run_identity.json 'd["status"], d["reason"]')"
contains r1/pytest.log "1 skipped"
lacks r1/pytest.log "ValueError"
# a supported dtype runs as ever
run_zl run --backend cuda --flaggems-dir fg --python "$ZL_TEST_PYTHON" --op int_add --out r2 -- --dtypes int32
expect_rc 0
[ "$(json_get r2/run_identity.json 'd["status"]')" = passed ] || fail "int32 run"

# a batch: add passes in float16, int_add is skipped: exit 0, counted and explained
for start in worker fresh; do
	run_zl batch --backend cuda --flaggems-dir fg --python "$ZL_TEST_PYTHON" --devices 0 --start $start \
		--ops add,int_add --progress plain --out b-$start -- --dtypes float16
	expect_rc 0
	contains "$TMP/out" "2 operators: 1 passed, 1 skipped, 0 failed"
	contains "$TMP/out" "skipped (1): int_add: $reason"
	"$ZL_TEST_PYTHON" - "b-$start" "$reason" <<'PY' || fail "ops_status.csv ($start)"
import csv, os, sys
rows = {r["op"]: r for r in csv.DictReader(open(os.path.join(sys.argv[1], "ops_status.csv"), newline=""))}
assert rows["add"]["status"] == "passed", rows["add"]
assert (rows["int_add"]["status"], rows["int_add"]["exit_code"], rows["int_add"]["reason"]) == ("skipped", "0", sys.argv[2]), rows["int_add"]
PY
done

# a skip ends its session cleanly: the device's worker serves the ops after it (wave 7 on the
# H200: each skipped op ended its worker, ~11 s of start-up for the next op). A home without
# history keeps the order given (history would put the short skip last).
ZL_HOME="$TMP/keep-home" run_zl batch --backend cuda --flaggems-dir fg --python "$ZL_TEST_PYTHON" --devices 0 \
	--start worker --ops int_add,add,softmax --progress plain --out b-keep -- --dtypes float16
expect_rc 0
contains "$TMP/out" "3 operators: 2 passed, 1 skipped, 0 failed"
[ "$(grep -c '"event":"started"' b-keep/workers/events.jsonl)" -eq 1 ] ||
	fail "the worker did not outlive the skip: $(cat b-keep/workers/events.jsonl)"
"$ZL_TEST_PYTHON" - b-keep <<'PY' || fail "runs after the skip"
import json, os, sys
ids = [json.load(open(os.path.join(sys.argv[1], "runs", op, "run_identity.json"))) for op in ("int_add", "add", "softmax")]
assert [d["status"] for d in ids] == ["skipped", "passed", "passed"], [d["status"] for d in ids]
assert ids[0]["start"]["ops_before"] == 0, ids[0]["start"]          # the skip came first
assert len({d["start"]["worker_pid"] for d in ids}) == 1, [d["start"] for d in ids]
assert sorted(d["start"]["ops_before"] for d in ids) == [0, 1, 2], [d["start"] for d in ids]
PY

# skipped is final: --resume (with --retry-failed too) does not run it again
run_zl batch --resume b-fresh --progress plain
expect_rc 0
run_zl batch --resume b-fresh --retry-failed --progress plain
expect_rc 0
[ "$(grep -c '^int_add,' b-fresh/ops_status.csv)" -eq 1 ] || fail "a skipped op ran again: $(cat b-fresh/ops_status.csv)"

# a failure beside a skip still fails the batch
run_zl batch --backend cuda --flaggems-dir fg --python "$ZL_TEST_PYTHON" --devices 0 --start fresh \
	--ops add,int_add --progress plain --out b-fail -- --dtypes float16 --no-such-option
expect_rc 1

# the report's batch page counts them and shows the reason
run_zl report b-worker -o b.html
expect_rc 0
contains b.html "1 skipped"
contains b.html "$reason"
pass
