#!/bin/bash
# ab refuses (exit 2) after A1 and B1 when something besides the named variable differs:
# a second FlagGems checkout (the named variable) whose shape file differs too, an
# environment variable that changes the level, a named FlagGems directory whose flag_gems
# is not the one imported. Nothing past B1 runs.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
demo_checkout "$TMP/demo"
export ZL_KILL_GRACE=2
common=(--backend cuda --python "$ZL_TEST_PYTHON" --op add)

cp -r demo demo2
sed -i 's/16384/8192/' demo2/benchmark/core_shapes.yaml
git -C demo2 -c user.email=test@example.com -c user.name=test commit -qam "other shapes"
run_zl ab "${common[@]}" --a-flaggems-dir demo --b-flaggems-dir demo2 --out r1 -- --dtypes float16
expect_rc 2
contains "$TMP/err" "caliber: A1 vs B1: shape sha256:"
contains "$TMP/err" "use --allow-caliber-mismatch to compare anyway"
lacks "$TMP/err" "flaggems commit"
[ "$(tail -n 1 "$TMP/out")" = "AB_DIR=$TMP/r1" ] || fail "last line: $(tail -n 1 "$TMP/out")"
[ -d r1/A1 ] && [ -d r1/B1 ] && [ ! -e r1/B2 ] && [ ! -e r1/A2 ] || fail "runs after the refusal: $(ls r1)"
[ "$(json_get r1/ab.json 'd["status"], len(d["caliber_refusals"]), [r["status"] for r in d["rounds"]]')" = \
	"('refused', 1, ['passed', 'passed', 'pending', 'pending'])" ] || fail "ab.json: $(cat r1/ab.json)"
[ "$(json_get r1/ab.json '"flaggems commit" in d["variables"]["explained"] and d["variables"]["b"]["flaggems_dir_named"]')" = True ] ||
	fail "variables: $(json_get r1/ab.json 'd["variables"]')"

# the named variable is BENCH_LEVEL; the level it changes is a caliber field all the same
run_zl ab "${common[@]}" --flaggems-dir demo --b-env BENCH_LEVEL=comprehensive --out r2 -- --dtypes float16
expect_rc 2
contains "$TMP/err" "caliber: A1 vs B1: level: core vs comprehensive"
[ ! -e r2/B2 ] || fail "B2 ran after the refusal"

# B's FlagGems directory named, but its flag_gems imported from A's (found on PYTHONPATH):
# both sides would be one FlagGems
cp -r demo demo3
rm -rf demo3/src/flag_gems
run_zl ab "${common[@]}" --flaggems-dir demo --b-flaggems-dir demo3 --b-env "PYTHONPATH=$TMP/demo/src" --out r4 -- --dtypes float16
expect_rc 2
contains "$TMP/err" "caliber: B1 imported flag_gems from '$TMP/demo/src/flag_gems/__init__.py', outside its FlagGems directory '$TMP/demo3'"
lacks "$TMP/err" "caliber: A1 imported"

# the same with --allow-caliber-mismatch goes on: 4 runs, and the difference is listed
run_zl ab "${common[@]}" --a-flaggems-dir demo --b-flaggems-dir demo2 --allow-caliber-mismatch --out r3 -- --dtypes float16
expect_rc 0
contains "$TMP/out" "caliber: 2 differences besides the named variables (--allow-caliber-mismatch):"
contains "$TMP/out" "A1 vs B1: shape sha256:"
contains "$TMP/out" "A2 vs B2: shape sha256:"
# the shapes only one side has are rows without pairs
[ "$(json_get r3/ab.json 'd["verdicts"]["missing"] > 0')" = True ] || fail "no missing rows"
[ "$(json_get r3/ab.json 'd["status"], [r["status"] for r in d["rounds"]]')" = \
	"('done', ['passed', 'passed', 'passed', 'passed'])" ] || fail "ab.json: $(json_get r3/ab.json 'd["rounds"]')"
pass
