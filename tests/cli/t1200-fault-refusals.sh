#!/bin/bash
# Refusals before anything runs (docs/hardening.md): no operator outside a checkout, control
# characters in the paths printed for scripts, --out as a link to nothing, a line break in
# ZL_PUSH_TOKEN, and a newline in --op echoed escaped on one line.
. "$(dirname "$0")/lib.sh"

FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
mkdir "$TMP/empty"
cd "$TMP/empty"
export ZL_NO_HISTORY=1

# no operator, outside a checkout: "nothing to run" (2), before any path check
run_zl run --backend cuda
expect_rc 2
contains "$TMP/err" "nothing to run"
lacks "$TMP/err" "PREFLIGHT_FAILED"
run_zl run --backend cuda --dry-run
expect_rc 2
contains "$TMP/err" "nothing to run"

cd "$TMP"
R() { run_zl run --backend cuda --flaggems-dir "$FX" --python "$ZL_TEST_PYTHON" --op sleepy "$@"; }

# a newline in --out (or in ZL_RUNS_DIR) would make the last stdout line RUN_DIR=/etc
R --out $'x\nRUN_DIR=/etc'
expect_rc 3
contains "$TMP/err" "PREFLIGHT_FAILED check=out_dir"
contains "$TMP/err" 'x\nRUN_DIR=/etc'
contains "$TMP/err" "contains a control character"
lacks "$TMP/out" "RUN_DIR=/etc"
[ ! -e $'x\nRUN_DIR=/etc' ] || fail "the run directory with a newline was made"
ZL_RUNS_DIR=$'r\x1b[2Jr' R --dry-run
expect_rc 3
contains "$TMP/err" 'r\x1b[2Jr'
[ "$(grep -c '' "$TMP/err")" -eq 2 ] || fail "the preflight failure is not two lines: $(cat "$TMP/err")"
# the same for a batch directory (BATCH_DIR=)
run_zl batch --backend cuda --flaggems-dir "$FX" --python "$ZL_TEST_PYTHON" --ops sleepy --devices 0 \
	--out $'b\nBATCH_DIR=/etc' --dry-run
expect_rc 2
contains "$TMP/err" 'b\nBATCH_DIR=/etc'
lacks "$TMP/out" "BATCH_DIR=/etc"

# --out as a symbolic link to nothing (or below one): preflight out_dir, exit 3, nothing made
ln -s "$TMP/nowhere/run" dangling
R --out dangling
expect_rc 3
contains "$TMP/err" "PREFLIGHT_FAILED check=out_dir"
contains "$TMP/err" "symbolic link to nothing"
R --out dangling/sub
expect_rc 3
contains "$TMP/err" "PREFLIGHT_FAILED check=out_dir"
[ ! -e "$TMP/nowhere" ] || fail "the link's target was made"

# a line break in ZL_PUSH_TOKEN: refused before the run starts (run and batch), token not shown
ZL_PUSH_TOKEN=$'tok-s3cr3t\nX-Evil: 1' R --out p1 --push http://127.0.0.1:9/api/runs
expect_rc 2
contains "$TMP/err" "ZL_PUSH_TOKEN contains a line break"
lacks "$TMP/err" "s3cr3t"
[ ! -e p1 ] || fail "the run started with a token that cannot be sent"
ZL_PUSH_URL=http://127.0.0.1:9/api/runs ZL_PUSH_TOKEN=$'tok\r' R --out p2
expect_rc 2
[ ! -e p2 ] || fail "the run started (ZL_PUSH_URL) with a token that cannot be sent"
R --out p3 --push 'ftp://example.invalid/x'
expect_rc 2
[ ! -e p3 ] || fail "the run started with a push URL that cannot be used"
ZL_PUSH_TOKEN=$'tok\n' run_zl batch --backend cuda --flaggems-dir "$FX" --python "$ZL_TEST_PYTHON" \
	--ops sleepy --devices 0 --out pb --push http://127.0.0.1:9/api/runs
expect_rc 2
contains "$TMP/err" "ZL_PUSH_TOKEN contains a line break"
[ ! -e pb ] || fail "the batch started with a token that cannot be sent"

# a newline in --op (or OP) is echoed escaped, on one line, in every command
for cmd in run preflight doctor; do
	run_zl "$cmd" --backend cuda --flaggems-dir "$FX" --op $'mm\nzlbench: fake line'
	expect_rc 2
	contains "$TMP/err" 'mm\nzlbench: fake line'
	[ "$(grep -c '' "$TMP/err")" -eq 1 ] || fail "$cmd: the error is not one line: $(cat "$TMP/err")"
done
OP=$'mm\n' run_zl run --backend cuda --flaggems-dir "$FX"
expect_rc 2
contains "$TMP/err" "'mm\\n' (from OP)"
run_zl batch --backend cuda --flaggems-dir "$FX" --ops $'mm\nfake' --devices 0 --dry-run
expect_rc 2
contains "$TMP/err" 'mm\nfake'
[ "$(grep -c '' "$TMP/err")" -eq 1 ] || fail "batch: the error is not one line: $(cat "$TMP/err")"
pass
