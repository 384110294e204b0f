#!/bin/bash
# batch refuses, once and before its directory exists, the pytest arguments after '--' that
# every op's run would refuse (they would override what zlbench sets), and a bad ZL_KILL_GRACE.
. "$(dirname "$0")/lib.sh"

FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"
B() { run_zl batch --backend cuda --flaggems-dir "$FX" --python "$ZL_TEST_PYTHON" --ops batch_p01,batch_p02 --out b "$@"; }

B -- --level comprehensive
expect_rc 2
contains "$TMP/err" "'--level' after '--' would override the run's level"
[ ! -e b ] || fail "a refused batch left its directory"
B --dry-run -- -p no:zl_timer
expect_rc 2
contains "$TMP/err" "would disable zlbench's plugin 'zl_timer'"
[ ! -e b ] || fail "a refused batch left its directory"
ZL_KILL_GRACE=soon B
expect_rc 2
contains "$TMP/err" "soon"
[ ! -e b ] || fail "a refused batch left its directory"
# what a run accepts after '--' still reaches every op
ZL_FIXTURE_SLEEP=0 B --devices 0 -- -k batch
expect_rc 0
contains "$TMP/out" "2 operators: 2 passed"
pass
