#!/bin/bash
# calibrate: usage errors (exit 2, nothing created), the dry run's per-round batch argv, and
# an interrupt (exit 130, the batch's runs recorded as interrupted, no process left) that
# --resume then finishes.
. "$(dirname "$0")/lib.sh"
FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"
export ZL_KILL_GRACE=2
cal() { run_zl calibrate --backend cuda --flaggems-dir "$FX" --python "$ZL_TEST_PYTHON" "$@"; }

usage() {
	local want=$1
	shift
	cal "$@"
	expect_rc 2
	contains "$TMP/err" "$want"
	[ ! -e "$TMP/c" ] || fail "a usage error created the directory: $*"
}
usage "no operators: give --ops LIST (or --op OP)" --out c
usage "invalid operator name 'a-b'" --ops add,a-b --out c
usage "invalid value '1' for --runs: a whole number from 2 to 50" --op add --runs 1 --out c
usage "invalid value 'x' for --runs" --op add --runs x --out c
usage "a calibration measures one device; --devices '0,1' names 2" --op add --devices 0,1 --out c
usage "--op-file names one run; a calibration takes --ops LIST (or --op OP)" --op-file benchmark/test_add.py --out c
usage "unknown option '--rounds'" --op add --rounds 3 --out c
mkdir used && touch used/x
usage "calibration directory '$TMP/used' exists and is not empty" --op add --out used
run_zl calibrate --resume "$TMP/used"
expect_rc 2
contains "$TMP/err" "calibrate.json"
run_zl calibrate --resume used --ops add
expect_rc 2
contains "$TMP/err" "--resume uses the settings saved in the calibration directory"
run_zl calibrate --help
expect_rc 0
contains "$TMP/out" "usage: zlbench calibrate"
contains "$TMP/out" "--timeout-per-op SECONDS"

# the plan: K rounds, each a batch on one device with the settings forwarded
cal --ops add,softmax --runs 2 --timeout-per-op 60 --level core --out c --dry-run -- --dtypes float16
expect_rc 0
[ ! -e "$TMP/c" ] || fail "--dry-run created the directory"
for want in "rounds: 2" "round 2 argv:" "  batch" "  --backend=cuda" "  --flaggems-dir=$FX" "  --level=core" \
	"  --timeout-per-op=60" "  --devices=0" "  --ops=add,softmax" "  --progress=plain" "  --out=$TMP/c/round-1" \
	"  --out=$TMP/c/round-2" "  --dtypes" "  float16"; do
	contains "$TMP/out" "$want"
done

# SIGINT: forwarded to the round's batch, which records its run as interrupted; nothing left
export ZL_BATCH_PLAN='{"batch_p01": {"do": "hang"}}'
( exec "$ZLBENCH" calibrate --backend cuda --flaggems-dir "$FX" --python "$ZL_TEST_PYTHON" --op batch_p01 \
	--out i >i.out 2>i.err ) &
zl=$!
for n in $(seq 600); do [ -s i/round-1/runs/batch_p01/batch_probe.json ] && break; sleep 0.1; done
[ -s i/round-1/runs/batch_p01/batch_probe.json ] || fail "the round never started its run"
probe=$(json_get i/round-1/runs/batch_p01/batch_probe.json 'd["pid"]')
kill -INT "$zl"
set +e
wait "$zl"
rc=$?
set -e
[ "$rc" -eq 130 ] || { cat i.err; fail "interrupted calibrate exited $rc"; }
contains i.err "interrupted (signal 2, Interrupt): continue with zlbench calibrate --resume $TMP/i"
! kill -0 "$probe" 2>/dev/null || fail "the benchmark process $probe survived"
[ "$(json_get i/round-1/runs/batch_p01/run_identity.json 'd["status"]')" = interrupted ] || fail "run identity not interrupted"
grep -q '^batch_p01,interrupted,' i/round-1/ops_status.csv || fail "ops_status.csv: $(cat i/round-1/ops_status.csv)"
[ ! -e i/round-2 ] || fail "round 2 started after the interrupt"
[ ! -e i/calibration.json ] || fail "an interrupted calibration measured"

# --resume: round 1 continued by batch --resume, rounds 2 and 3 new; the fixture op reports no
# latency, so there is nothing to measure: exit 1, said so
unset ZL_BATCH_PLAN
run_zl calibrate --resume i
expect_rc 1
contains "$TMP/err" "(resumed)"
for k in 1 2 3; do contains "$TMP/err" "round $k/3: 1 of 1 ops passed"; done
[ "$(grep -c '^batch_p01,' i/round-1/ops_status.csv)" = 2 ] || fail "round 1 was not resumed: $(cat i/round-1/ops_status.csv)"
contains "$TMP/out" "not stored:"
pass
