#!/bin/bash
# ZL_NO_HISTORY: `zlbench run` stores its run in the history database unless the variable is
# set to something other than empty or 0 (README: ZL_NO_HISTORY=1 turns it off).
. "$(dirname "$0")/lib.sh"
cd "$TMP"
cp -r "$ZL_SOURCE_DIR/examples/demo" demo
export FLAGGEMS_VENDOR=nvidia

# stored VALUE N: a demo run with ZL_NO_HISTORY=VALUE ("unset": not set) leaves N runs in the history
stored() {
	local value=$1 want=$2
	if [ "$value" = unset ]; then
		unset ZL_NO_HISTORY
	else
		export ZL_NO_HISTORY="$value"
	fi
	run_zl run --backend cuda --flaggems-dir demo --op add --python "$ZL_TEST_PYTHON" --out "$TMP/run-${value:-empty}"
	expect_rc 0
	unset ZL_NO_HISTORY
	run_zl history --json
	expect_rc 0
	[ "$(json_get "$TMP/out" 'len(d)')" = "$want" ] ||
		fail "ZL_NO_HISTORY='$value': $(json_get "$TMP/out" 'len(d)') runs in the history, want $want"
}

stored unset 1
stored 0 2
stored "" 3
stored 1 3
stored yes 3

# batch reads the same variable the same way: with 0 its run is stored too
ZL_NO_HISTORY=0 run_zl batch --backend cuda --flaggems-dir demo --python "$ZL_TEST_PYTHON" --devices 0 --ops add \
	--out "$TMP/b0" --progress none
expect_rc 0
run_zl history --json
[ "$(json_get "$TMP/out" 'len(d)')" = 4 ] || fail "ZL_NO_HISTORY=0 batch: $(json_get "$TMP/out" 'len(d)') runs, want 4"
ZL_NO_HISTORY=1 run_zl batch --backend cuda --flaggems-dir demo --python "$ZL_TEST_PYTHON" --devices 0 --ops add \
	--out "$TMP/b1" --progress none
expect_rc 0
run_zl history --json
[ "$(json_get "$TMP/out" 'len(d)')" = 4 ] || fail "ZL_NO_HISTORY=1 batch: $(json_get "$TMP/out" 'len(d)') runs, want 4"
pass
