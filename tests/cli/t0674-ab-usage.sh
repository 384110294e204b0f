#!/bin/bash
# ab: usage errors (exit 2, nothing created), the dry run's order and argv, a run that fails
# preflight (exit 3, the ab stops there).
. "$(dirname "$0")/lib.sh"
FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"
ab() { run_zl ab --backend cuda --flaggems-dir "$FX" --python "$ZL_TEST_PYTHON" "$@"; }

usage() {
	local want=$1
	shift
	ab "$@"
	expect_rc 2
	contains "$TMP/err" "$want"
	[ ! -e "$TMP/x" ] || fail "a usage error created the directory: $*"
}
usage "ab needs the operator: --op OP" --out x
usage "invalid value '0' for --rounds: a whole number from 1 to 50" --op add --rounds 0 --out x
usage "invalid value '51' for --rounds" --op add --rounds 51 --out x
usage "invalid value 'two' for --rounds" --op add --rounds two --out x
usage "invalid value 'FOO' for --a-env: expected NAME=VALUE" --op add --a-env FOO --out x
usage "invalid value '1X=2' for --b-env" --op add --b-env 1X=2 --out x
usage "--b-flaggems-dir '$TMP/nope' is not a directory" --op add --b-flaggems-dir "$TMP/nope" --out x
usage "choose one of --json, --csv and --markdown" --op add --json --csv --out x
usage "invalid --fail-on-regression 'abc'" --op add --fail-on-regression abc --out x
usage "invalid --threshold '-1'" --op add --threshold -1 --out x
usage "unknown option '--a-python-typo'" --op add --a-python-typo p --out x
usage "invalid value 'sometimes' for --level" --op add --level sometimes --out x
usage "--replay-miss tunes the keys that replayed records lack, but no --replay-from names" --op add --replay-miss tune --out x
mkdir recs
usage "--replay-miss tunes a missed key in each run on its own, so A and B would not run the same configs" \
	--op add --replay-from recs --replay-miss tune --out x
mkdir used && touch used/f
usage "ab directory '$TMP/used' exists and is not empty" --op add --out used
run_zl ab --help
expect_rc 0
contains "$TMP/out" "usage: zlbench ab --op OP"
contains "$TMP/out" "A1 B1 B2 A2 A3 B3"

# the plan: ABBA, each side's first run records and the others replay it, isolated caches
ab --op add --rounds 3 --a-env X=1 --b-env X=2 --b-python /opt/b/python3 --out x --dry-run -- --dtypes float16
expect_rc 0
[ ! -e "$TMP/x" ] || fail "--dry-run created the directory"
[ "$(grep -E '^[AB][0-9] argv:$' "$TMP/out" | tr -d '\n')" = "A1 argv:B1 argv:B2 argv:A2 argv:A3 argv:B3 argv:" ] ||
	fail "order: $(grep -E 'argv:$' "$TMP/out")"
"$ZL_TEST_PYTHON" - "$TMP/out" "$TMP/x" <<'PY' || fail "dry-run argv"
import sys
text, ab = open(sys.argv[1]).read(), sys.argv[2]
runs = {}
name = None
for line in text.splitlines():
    if line.endswith(" argv:"):
        name = line.split()[0]
        runs[name] = []
    elif name and line.startswith("  "):
        runs[name].append(line.strip())
for name, lines in runs.items():
    arm, rnd = name[0], int(name[1])
    env = [a for a in lines if a.startswith("env ")]
    args = [a for a in lines if not a.startswith("env ")]
    assert args[1] == "run" and "--op=add" in args and "--isolate-tuner-cache" in args, args
    assert "--out=%s/%s" % (ab, name) in args, args
    assert args[-2:] == ["--", "float16"] or args[-3:] == ["--", "--dtypes", "float16"], args
    assert env == ["env X=1" if arm == "A" else "env X=2"], env
    assert ("--python=/opt/b/python3" in args) == (arm == "B"), args
    replay = [a for a in args if a.startswith("--replay-from=")]
    assert replay == ([] if rnd == 1 else ["--replay-from=%s/%s1" % (ab, arm)]), (name, replay)
PY

# a run that fails preflight stops the ab with its exit code
run_zl ab --backend cuda --flaggems-dir "$FX" --python "$TMP/no-such-python" --op add --out p
expect_rc 3
contains "$TMP/err" "A1 exited 3"
[ -d p/A1 ] || [ -f p/logs/A1.log ] || fail "no trace of A1"
[ ! -e p/B1 ] || fail "B1 ran after A1 failed preflight"
[ "$(json_get p/ab.json 'd["status"]')" = failed ] || fail "ab.json status: $(json_get p/ab.json 'd["status"]')"
pass
