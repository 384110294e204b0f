#!/bin/bash
# What reaches the pytest child: zlbench's own credentials (ZL_PUSH_TOKEN, ZL_PUSH_URL) never do,
# while the push still uses them; PYTEST_ADDOPTS is checked as the arguments after '--' are
# (what they would refuse it refuses, exit 2, before the run directory exists) and recorded.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"

FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"
export ZL_NO_HISTORY=1
R() { run_zl run --backend cuda --flaggems-dir "$FX" --python "$ZL_TEST_PYTHON" "$@"; }

# the token and the push URL are zlbench's: the child's environment has neither, the push works
start_collector c1 --script 200
ZL_PUSH_TOKEN="$TOKEN" ZL_PUSH_URL="$URL" R --op envdump --out e1
expect_rc 0
expect_requests c1 1
[ "$(json_get e1/child_env.json '"ZL_PUSH_TOKEN" in d, "ZL_PUSH_URL" in d, "ZL_RUN_DIR" in d')" = \
	"(False, False, True)" ] || fail "child env: $(json_get e1/child_env.json 'sorted(d)')"
[ "$(json_get "$TMP/c1/req/0001.json" 'd["headers"].get("Authorization")')" = "Bearer $TOKEN" ] ||
	fail "the push lost its token"
if grep -rqF -- "$TOKEN" e1; then
	grep -rlF -- "$TOKEN" e1 >&2
	fail "the token was written into the run directory"
fi
# --dry-run shows the removal
ZL_PUSH_TOKEN="$TOKEN" R --op envdump --dry-run
expect_rc 0
contains "$TMP/out" "unset ZL_PUSH_TOKEN"
lacks "$TMP/out" "$TOKEN"

# PYTEST_ADDOPTS: what '--' would refuse is refused, naming the variable; no run directory
refused() {
	PYTEST_ADDOPTS="$1" R --op sleepy --out "$2"
	expect_rc 2
	contains "$TMP/err" "$3"
	[ ! -e "$2" ] || fail "PYTEST_ADDOPTS='$1': the run started"
}
refused "--shape_file=$TMP/other.yaml" a1 "'--shape_file' in PYTEST_ADDOPTS would override the run's shapes"
refused "-v   --level comprehensive" a2 "'--level' in PYTEST_ADDOPTS"
refused "-p 'no:zl_timer'" a3 "would disable zlbench's plugin 'zl_timer'"
refused "-m 'not slow'" a4 "'-m' in PYTEST_ADDOPTS would replace the run's '-m sleepy'"
refused "-k x --" a5 "'--' in PYTEST_ADDOPTS"
refused "-k 'open" a6 "PYTEST_ADDOPTS has no closing quotation"
refused '--output="a b"' a7 "'--output' in PYTEST_ADDOPTS"
PYTEST_ADDOPTS="--record=csv" R --op sleepy --dry-run
expect_rc 2
contains "$TMP/err" "'--record' in PYTEST_ADDOPTS"
# a batch refuses it once, before its directory exists
PYTEST_ADDOPTS="--shape_file=$TMP/other.yaml" run_zl batch --backend cuda --flaggems-dir "$FX" \
	--python "$ZL_TEST_PYTHON" --ops sleepy --devices 0 --out b1
expect_rc 2
contains "$TMP/err" "in PYTEST_ADDOPTS"
[ ! -e b1 ] || fail "the batch started"

# an accepted one reaches pytest and is recorded in the identity (compare sees it)
PYTEST_ADDOPTS="-k 'envdump or nothing' -p no:cacheprovider" R --op envdump --out k1
expect_rc 0
[ "$(json_get k1/run_identity.json 'd["env"]["PYTEST_ADDOPTS"]')" = "-k 'envdump or nothing' -p no:cacheprovider" ] ||
	fail "PYTEST_ADDOPTS not recorded: $(json_get k1/run_identity.json 'd["env"]')"
[ "$(json_get k1/child_env.json 'd["PYTEST_ADDOPTS"]')" = "-k 'envdump or nothing' -p no:cacheprovider" ] ||
	fail "PYTEST_ADDOPTS did not reach pytest"
pass
