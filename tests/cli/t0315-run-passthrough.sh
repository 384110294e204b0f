#!/bin/bash
# Arguments after "--" that would override what zlbench sets (and so make the identity
# lie) are refused with exit 2, before preflight: --dry-run refuses them too.
. "$(dirname "$0")/lib.sh"

FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"
R() { run_zl run --backend cuda --flaggems-dir "$FX" --python "$ZL_TEST_PYTHON" "$@"; }

# refused ARGS... -- TEXT: exit 2, TEXT on stderr, no run directory, nothing started
refused() {
	local text=${!#} n=$(($# - 1))
	R --op sleepy --out r "${@:1:$n}"
	expect_rc 2
	contains "$TMP/err" "$text"
	[ ! -e r ] || fail "a refused run left a run directory: ${*:1:$n}"
	lacks "$TMP/err" PREFLIGHT_FAILED
}

refused -- --level comprehensive "'--level' after '--' would override the run's level: use --level / BENCH_LEVEL"
refused -- --level=comprehensive "'--level' after '--'"
refused --dry-run -- --level comprehensive "'--level' after '--'"
refused -- --output /tmp/elsewhere.json "'--output' after '--' would override where results.json goes"
refused -- --output=x.json "'--output' after '--'"
refused -- --mode operator "'--mode' after '--'"
refused -- --record=log "'--record' after '--'"
refused -- --shape_file s.yaml "use --shape-file / SHAPE_FILE"
refused -- -p no:zl_timer "would disable zlbench's plugin 'zl_timer'"
refused -- -pno:zl_autotune "use --no-autotune-records"
refused -- -p " no:zl_graph_timer" "use --no-cudagraph"
refused -- -p no:zl_profiler_timer "use --timer graph or --timer direct / ZL_TIMER"
refused -- --mode operator "--timer / ZL_TIMER chooses the timer"
# zlbench passes -m OP with --op: another -m, alone or in a cluster of flags, would replace it
refused -- -m "not slow" "'-m' after '--' would replace the run's '-m sleepy': narrow the tests with -k EXPR"
refused -- -mslow "'-mslow' after '--'"
refused -- -vsm slow "'-vsm' after '--'"
refused --dry-run -- -m slow "'-m' after '--'"
# the environment's operator counts as well
OP=sleepy run_zl run --backend cuda --flaggems-dir "$FX" --python "$ZL_TEST_PYTHON" --out r --dry-run -- -m slow
expect_rc 2
contains "$TMP/err" "'-m' after '--'"

# what stays allowed: other options, -m with a test node (no -m of zlbench's), words after a
# second "--" (pytest takes them as paths), a plugin that is not zlbench's
R --op sleepy --out ok1 --dry-run -- --dtypes float16 -k mm -p no:cacheprovider --levels
expect_rc 0
contains "$TMP/out" "--levels"
R --test-node benchmark/test_sleepy.py --out ok2 --dry-run -- -m sleepy
expect_rc 0
R --op sleepy --out ok3 --dry-run -- -- --level
expect_rc 0
# a real run with an allowed option still runs
R --op sleepy --out ok4 -- -k sleepy
expect_rc 0
[ "$(json_get ok4/run_identity.json 'd["status"], d["level"], d["child_argv"][-2:]')" = "('passed', 'core', ['-k', 'sleepy'])" ] ||
	fail "allowed passthrough: $(json_get ok4/run_identity.json 'd["status"], d["child_argv"]')"
# ZL_KILL_GRACE must be seconds
ZL_KILL_GRACE=soon R --op sleepy --out g1
expect_rc 2
contains "$TMP/err" "invalid value 'soon' for ZL_KILL_GRACE"
[ ! -e g1 ] || fail "a usage error left a run directory"
ZL_KILL_GRACE=-1 R --op sleepy --out g2 --dry-run
expect_rc 2
contains "$TMP/err" "invalid value '-1' for ZL_KILL_GRACE"
ZL_KILL_GRACE=0.5 R --op sleepy --out g3 --dry-run
expect_rc 0
pass
