#!/bin/bash
# The global options anywhere on the line up to '--' (what follows goes to pytest untouched);
# -q quiets pytest too, whose output still goes to the run directory's pytest.log, and a run
# that does not pass says so in one line that names the log.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
cp -r "$ZL_SOURCE_DIR/examples/demo" demo
export ZL_NO_HISTORY=1
RUN=(run --backend cuda --flaggems-dir demo --python "$ZL_TEST_PYTHON")

# -q after the command, as before it: nothing but RUN_DIR=, pytest's session in its log
for where in after before; do
	if [ $where = after ]; then
		run_zl "${RUN[@]}" --op add --out "$TMP/q-$where" -q
	else
		run_zl -q "${RUN[@]}" --op add --out "$TMP/q-$where"
	fi
	expect_rc 0
	[ "$(cat "$TMP/out")" = "RUN_DIR=$TMP/q-$where" ] || fail "-q $where the command printed: $(cat "$TMP/out")"
	[ ! -s "$TMP/err" ] || fail "-q $where the command printed on stderr: $(cat "$TMP/err")"
	contains "q-$where/pytest.log" "test session starts"
	contains "q-$where/pytest.log" "1 passed"
done
# --quiet, its long name, in the middle of the run's options
run_zl "${RUN[@]}" --quiet --op add --out "$TMP/q-long"
expect_rc 0
[ "$(cat "$TMP/out")" = "RUN_DIR=$TMP/q-long" ] || fail "--quiet printed: $(cat "$TMP/out")"

# without it, pytest's output reaches the terminal as before
run_zl "${RUN[@]}" --op add --out "$TMP/loud"
expect_rc 0
contains "$TMP/out" "test session starts"
contains "$TMP/err" "backend:     cuda"

# after '--' a -q is pytest's: zlbench prints its header, pytest is quiet
run_zl "${RUN[@]}" --op add --out "$TMP/pyq" -- -q
expect_rc 0
contains "$TMP/err" "backend:     cuda"
lacks "$TMP/out" "test session starts"
lacks pyq/pytest.log "test session starts"
[ "$(json_get pyq/run_identity.json 'd["child_argv"][-1]')" = -q ] ||
	fail "pytest's argv does not end with its -q: $(json_get pyq/run_identity.json 'd["child_argv"]')"

# a run that fails under -q: one line that says how and where pytest's output is
cat >demo/benchmark/test_boom.py <<'PY'
import pytest


@pytest.mark.boom
def test_boom():
    assert 1 == 2, "the kernel is wrong"
PY
run_zl "${RUN[@]}" --op boom --out "$TMP/boom" -q
expect_rc 1
[ "$(cat "$TMP/out")" = "RUN_DIR=$TMP/boom" ] || fail "failing -q run printed: $(cat "$TMP/out")"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "failing -q run: not one line on stderr: $(cat "$TMP/err")"
contains "$TMP/err" "zlbench: run failed (exit 1): FAILED benchmark/test_boom.py::test_boom - AssertionError: the kernel is wrong; pytest's output: $TMP/boom/pytest.log"
contains boom/pytest.log "AssertionError: the kernel is wrong"

# --version after the command answers instead of it: nothing runs
run_zl "${RUN[@]}" --op add --out "$TMP/never" --version
expect_rc 0
grep -qE '^zlbench [0-9]' "$TMP/out" || fail "--version after the command: $(cat "$TMP/out")"
[ ! -e never ] || fail "--version after the command ran it"
# -v after the command: more detail where a command has it (doctor's evidence)
. "$ZL_SOURCE_DIR/tests/fixtures/doctor/doctor_lib.sh"
fg_tree fg
run_zl doctor --python "$ZL_TEST_PYTHON" --backend cuda --flaggems-dir fg --op mm -v
expect_rc 0
contains "$TMP/out" "evidence:"
# global options are listed as taking any place, and completed after the command too
run_zl --help
contains "$TMP/out" "Global options (before or after the command, up to '--'):"
"$ZLBENCH" completion bash >zl.bash
bash -c 'source "$1"; COMP_WORDS=(zlbench run --op add --qu); COMP_CWORD=4; _zlbench; printf "%s\n" "${COMPREPLY[@]}"' _ zl.bash >offered
grep -qx -- --quiet offered || fail "completion after the command does not offer --quiet: $(cat offered)"
pass
