#!/bin/bash
# The run directory is claimed atomically: two runs never share one.
. "$(dirname "$0")/lib.sh"

FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"
export ZL_NO_HISTORY=1 ZL_RUNS_DIR=$TMP/runs
zlrun() { "$ZLBENCH" run --backend cuda --flaggems-dir "$FX" --op mm --python "$ZL_TEST_PYTHON" "$@"; }

# Another run just made this second's default directory (and the next few seconds'):
# this run takes a name of its own and leaves those untouched.
now=$(date -u +%s)
for i in 0 1 2 3 4 5; do
	mkdir -p "runs/$(date -u -d "@$((now + i))" +%Y%m%d-%H%M%S)-cuda-mm"
done
run_zl run --backend cuda --flaggems-dir "$FX" --op mm --python "$ZL_TEST_PYTHON"
expect_rc 0
dir=$(sed -n 's/^RUN_DIR=//p' "$TMP/out")
case "$dir" in
"$TMP"/runs/*-cuda-mm-2) ;;
*) fail "the run did not take a fresh name: $dir" ;;
esac
[ -s "$dir/run_identity.json" ] || fail "no identity in $dir"
contains "$TMP/err" "run dir:     $dir"
[ "$(find "$TMP/runs" -mindepth 2 | grep -vc "^$dir/")" -eq 0 ] || fail "a taken directory was written to: $(find runs -mindepth 2)"

# Two runs started together with the default name: two directories.
zlrun >p1.out 2>p1.err &
p1=$!
zlrun >p2.out 2>p2.err &
p2=$!
wait "$p1" || fail "parallel run 1: $(cat p1.err)"
wait "$p2" || fail "parallel run 2: $(cat p2.err)"
d1=$(sed -n 's/^RUN_DIR=//p' p1.out)
d2=$(sed -n 's/^RUN_DIR=//p' p2.out)
[ -n "$d1" ] && [ "$d1" != "$d2" ] || fail "two runs shared '$d1'"

# The same --out for two runs at once: one gets it, the other fails the out_dir check.
zlrun --out same >s1.out 2>s1.err &
p1=$!
zlrun --out same >s2.out 2>s2.err &
p2=$!
set +e
wait "$p1"
r1=$?
wait "$p2"
r2=$?
set -e
[ "$(printf '%s\n' "$r1" "$r2" | sort | tr '\n' ' ')" = "0 3 " ] || fail "same --out: exits $r1 and $r2, want 0 and 3"
cat s1.err s2.err | grep -qx "PREFLIGHT_FAILED check=out_dir" ||
	fail "the loser did not fail out_dir: $(cat s1.err s2.err)"
[ "$(json_get same/run_identity.json 'd["status"]')" = passed ] || fail "the winner's identity"

# An empty directory named with --out is used; the claim is plugins/ inside it.
mkdir empty
run_zl run --backend cuda --flaggems-dir "$FX" --op mm --python "$ZL_TEST_PYTHON" --out empty
expect_rc 0
[ -d empty/plugins ] && [ -s empty/run_identity.json ] || fail "the empty --out was not used"
pass
