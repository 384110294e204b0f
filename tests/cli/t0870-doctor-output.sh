#!/bin/bash
# doctor's output: the JSON report, --quiet and --verbose, colour only on a terminal and
# never with NO_COLOR, and a clean checkout after a diagnosis.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/fixtures/doctor/doctor_lib.sh"
cd "$TMP"
fg_tree fg

# everything passes: JSON with seven ok steps
doctor --backend cuda --flaggems-dir fg --op mm --json
expect_rc 0
json_get "$TMP/out" 'd' >/dev/null || fail "doctor --json is not JSON"
[ "$(json_get "$TMP/out" '(d["ok"], d["failed_step"], d["op"], d["backend"], d["level"], d["warnings"])')" = \
  "(True, None, 'mm', 'cuda', 'core', 0)" ] || fail "JSON head: $(cat "$TMP/out")"
[ "$(json_get "$TMP/out" '[s["name"] for s in d["steps"]]')" = \
  "['paths', 'vendor', 'collect', 'skips', 'foreign_vendor', 'tuner_cache', 'shapes']" ] || fail "step names"
[ "$(json_get "$TMP/out" '{s["status"] for s in d["steps"]}')" = "{'ok'}" ] || fail "not all ok"
[ "$(json_get "$TMP/out" '[s["number"] for s in d["steps"]]')" = "[1, 2, 3, 4, 5, 6, 7]" ] || fail "numbers"
[ "$(json_get "$TMP/out" 'all(s["seen"] and s["title"] for s in d["steps"])')" = True ] || fail "seen/title missing"
[ "$(json_get "$TMP/out" 'len(d["commands"])')" = 3 ] || fail "commands: $(json_get "$TMP/out" 'd["commands"]')"
lacks "$TMP/err" "DOCTOR_FAILED"

# text: one line per step and the result
doctor --backend cuda --flaggems-dir fg --op mm
expect_passed
contains "$TMP/out" "zlbench doctor: mm on backend cuda, FlagGems $TMP/fg, level core"
lacks "$TMP/out" "evidence:"
lacks "$TMP/out" "command:"
# --quiet: nothing when nothing is wrong; only the failing step when something is
run_zl --quiet doctor --python "$ZL_TEST_PYTHON" --backend cuda --flaggems-dir fg --op mm
expect_rc 0
[ ! -s "$TMP/out" ] || fail "--quiet printed: $(cat "$TMP/out")"
run_zl --quiet doctor --python "$ZL_TEST_PYTHON" --backend cuda --flaggems-dir fg --op mmm
expect_rc 3
grep -qE '^  FAIL 3 collect ' "$TMP/out" || fail "no FAIL line under --quiet"
grep -qE '^  ok ' "$TMP/out" && fail "--quiet printed passing steps"
lacks "$TMP/out" "zlbench doctor:"
# --verbose: evidence of passing steps and the commands started
run_zl --verbose doctor --python "$ZL_TEST_PYTHON" --backend cuda --flaggems-dir fg --op mm
expect_rc 0
contains "$TMP/out" "interpreter: $ZL_TEST_PYTHON"
contains "$TMP/out" "-p zl_doctor -p zl_foreign_vendor --level core --mode kernel"
# each command is a line to paste: the run's environment (plugins and <fg>/src on PYTHONPATH,
# the pinned devices), a ZL_RUN_DIR that exists, every word quoted; it runs as doctor ran it
contains "$TMP/out" "command: (cd $TMP/fg && export ZL_RUN_DIR=\"\$(mktemp -d)\" && "
contains "$TMP/out" "PYTHONPATH=$ZL_SOURCE_DIR/plugins:$TMP/fg/src"
contains "$TMP/out" "CUDA_VISIBLE_DEVICES=0"
contains "$TMP/out" " ZL_DOCTOR_MODE=collect "
contains "$TMP/out" " PYTHONFAULTHANDLER=1 $ZL_TEST_PYTHON -m pytest --collect-only"
lacks "$TMP/out" "zlbench-doctor-"
[ "$(grep -c '^command: ' "$TMP/out")" = 3 ] || fail "not 3 commands: $(grep '^command: ' "$TMP/out")"
grep '^command: ' "$TMP/out" | sed 's/^command: //' >"$TMP/commands"
n=0
while IFS= read -r line; do
	n=$((n + 1))
	(cd / && env -u PYTHONPATH bash -c "$line") >"$TMP/cmd$n.out" 2>&1 || fail "command $n does not rerun: $line: $(cat "$TMP/cmd$n.out")"
done <"$TMP/commands"
contains "$TMP/cmd1.out" "files in "
contains "$TMP/cmd2.out" "1 test collected"
contains "$TMP/cmd3.out" "1 skipped"
# the JSON carries the same lines
doctor --backend cuda --flaggems-dir fg --op mm --json
[ "$(json_get "$TMP/out" 'd["commands"][1]')" = "$(sed -n 2p "$TMP/commands")" ] || fail "JSON commands differ"

# help: the JSON shape it shows is the one printed; run-only settings are not offered as doctor's
run_zl doctor --help
expect_rc 0
sed -n '/^  --json/,/^$/p' "$TMP/out" | tr -d '\n' | sed 's/^[^{]*//; s/}[^}]*$/}/' | tr -c 'a-z_' '\n' |
	grep -v '^$' | sort >"$TMP/help_keys"
doctor --backend cuda --flaggems-dir fg --op mm --json
json_get "$TMP/out" '"\n".join(sorted(list(d) + list(d["steps"][0])))' >"$TMP/json_keys"
diff "$TMP/help_keys" "$TMP/json_keys" >&2 || fail "the JSON keys in doctor --help are not the ones printed"
run_zl doctor --help
grep -E '^  --(direct-repeat|cudagraph|timeout|out|replay-from|autotune-records) ' "$TMP/out" &&
	fail "doctor --help lists run-only settings as its own"
contains "$TMP/out" "Accepted and ignored"
contains "$TMP/out" "--direct-repeat"

# colour: only on a terminal, never with NO_COLOR
doctor --backend cuda --flaggems-dir fg --op mmm
grep -q $'\033\[' "$TMP/out" && fail "colour on a pipe"
tty_run() {
	script -qec "$*" /dev/null </dev/null | tr -d '\r' >"$TMP/tty"
}
tty_run "'$ZLBENCH' doctor --python '$ZL_TEST_PYTHON' --backend cuda --flaggems-dir fg --op mmm"
grep -q $'\033\[1;31mFAIL' "$TMP/tty" || fail "no colour on a terminal: $(cat -v "$TMP/tty")"
tty_run "NO_COLOR=1 '$ZLBENCH' doctor --python '$ZL_TEST_PYTHON' --backend cuda --flaggems-dir fg --op mmm"
contains "$TMP/tty" "FAIL 3 collect"
grep -q $'\033\[' "$TMP/tty" && fail "colour despite NO_COLOR"

# the temporary directory of the Python steps is gone afterwards
TMPDIR="$TMP/doctortmp" && mkdir -p "$TMPDIR" && export TMPDIR
doctor --backend cuda --flaggems-dir fg --op mm
expect_rc 0
[ -z "$(ls -A "$TMP/doctortmp")" ] || fail "doctor left $(ls "$TMP/doctortmp")"
pass
