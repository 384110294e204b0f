#!/bin/bash
# doctor step 1 (paths): the preflight checks, with the instance of a checkout
# without benchmark/ (pytest dies with "unrecognized arguments: --level ... --mode kernel");
# and the usage errors doctor shares with run.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/fixtures/doctor/doctor_lib.sh"
cd "$TMP"

# usage: nothing to diagnose, an invalid operator name, a bad step timeout
doctor --backend cuda --flaggems-dir .
expect_rc 2
contains "$TMP/err" "nothing to diagnose"
doctor --backend cuda --op "m m"
expect_rc 2
contains "$TMP/err" "invalid operator name 'm m'"
fg_tree fg
doctor --backend cuda --flaggems-dir fg --op mm --step-timeout 0
expect_rc 2
contains "$TMP/err" "--step-timeout"
ZL_DOCTOR_TIMEOUT=soon doctor --backend cuda --flaggems-dir fg --op mm
expect_rc 2
contains "$TMP/err" "ZL_DOCTOR_TIMEOUT"

# a checkout without benchmark/: FlagGems' conftest.py is never loaded
mkdir -p nobench/src
doctor --backend cuda --flaggems-dir nobench --op mm
expect_failed_at paths
contains "$TMP/out" "has no benchmark/ directory"
contains "$TMP/out" "preflight check 'benchmark_dir' failed"
contains "$TMP/out" "unrecognized arguments: --level core --mode kernel"
contains "$TMP/out" "fix:"

# the evidence names the level this diagnosis would pass, not a fixed text
doctor --backend cuda --flaggems-dir nobench --op mm --level comprehensive
expect_failed_at paths
contains "$TMP/out" "unrecognized arguments: --level comprehensive --mode kernel"

# benchmark/ without conftest.py: the same death
fg_tree noconf
rm noconf/benchmark/conftest.py
doctor --backend cuda --flaggems-dir noconf --op mm --json
expect_rc 3
[ "$(json_get "$TMP/out" 'd["failed_step"]')" = paths ] || fail "failed_step is not paths"
[ "$(json_get "$TMP/out" 'd["steps"][0]["status"]')" = failed ] || fail "paths is not failed in JSON"
[ "$(json_get "$TMP/out" '[s["status"] for s in d["steps"][1:]]')" = "['not_run', 'not_run', 'not_run', 'not_run', 'not_run', 'not_run']" ] ||
	fail "later steps ran after paths failed"
json_get "$TMP/out" 'd["steps"][0]["summary"]' | grep -q "conftest.py" || fail "summary does not name conftest.py"
json_get "$TMP/out" '"\n".join(d["steps"][0]["evidence"])' | grep -q 'unrecognized arguments: --level core --mode kernel' ||
	fail "evidence lacks the pytest death"

# an interpreter that is not there: paths fails on check python, nothing else starts
doctor --backend cuda --flaggems-dir fg --op mm --python "$TMP/no/python3"
expect_failed_at paths
contains "$TMP/out" "preflight check 'python' failed"

# the same tree with everything in place passes this step
doctor --backend cuda --flaggems-dir fg --op mm
expect_step paths ok
pass
