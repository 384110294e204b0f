#!/bin/bash
# compare's terminal layout against golden files (tests/fixtures/golden/compare-layout/): the
# verdict line first, the same-run and operator-set warnings, the changed rows by size of
# change, the unsure rows grouped by reason with one piece of advice, the rest with --all;
# times autoscaled, tables fitted to COLUMNS (80: the CI, p, floor and method columns left
# out, in that order), --sort, --only-changed, --time-unit, Markdown. Runs of seeded samples,
# so every figure is reproducible. ZL_GOLDEN_UPDATE=1 rewrites the files (read the diff).
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
RG="$ZL_FIXTURES_DIR/flaggems-runs/router_gemm_core_kernel_h200.results.json"
GOLDEN="$ZL_SOURCE_DIR/tests/fixtures/golden/compare-layout"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" || fail "make_run.py $*"; }
unset COLUMNS

mk "$TMP/a" --run-id 20261129-100000-cuda-mm-aaaaaa --results "$R" --raw-samples 200 --seed 3
# float16 gems 20 % slower (changed), bfloat16 gems 3 % slower (unsure under the 5 % floor)
mk "$TMP/b" --run-id 20261129-110000-cuda-mm-bbbbbb --results "$R" --raw-samples 200 --seed 4 \
	--scale gems:float16=1.2 --scale gems:bfloat16=1.03
mk "$TMP/rg" --run-id 20261129-120000-cuda-router_gemm-cccccc --results "$RG"

# golden NAME: the last output (stdout, then stderr when not empty) with this test's temporary
# directory written <TMP>, against NAME.txt
golden() {
	local got="$TMP/golden-$1.txt"
	{
		cat "$TMP/out"
		if [ -s "$TMP/err" ]; then echo "--- stderr"; cat "$TMP/err"; fi
		echo "--- exit $RC"
	} | sed "s|$TMP|<TMP>|g" >"$got"
	if [ -n "${ZL_GOLDEN_UPDATE:-}" ]; then
		cp "$got" "$GOLDEN/$1.txt"
		return
	fi
	diff -u "$GOLDEN/$1.txt" "$got" || fail "'$1' differs from its golden file (ZL_GOLDEN_UPDATE=1 rewrites it)"
}

# 80 columns when COLUMNS is unset and stdout is no terminal
run_zl compare "$TMP/a" "$TMP/b" --fail-on-regression 5
golden default-80
head -n 1 "$TMP/out" | grep -q '^gate (--fail-on-regression 5%): FAILED; gems: 5 slower, 5 unsure, 5 same' ||
	fail "the verdict line is not the first"
awk 'length > 80 && /^mm / { bad = 1 } END { exit bad }' "$TMP/out" || fail "a table line is wider than 80"
COLUMNS=200 run_zl compare "$TMP/a" "$TMP/b" --fail-on-regression 5 --all --sort name
golden wide-all-name
COLUMNS=120 run_zl compare "$TMP/a" "$TMP/b" --only-changed --sort time --time-unit ns
golden only-changed-time-ns
run_zl compare "$TMP/a" "$TMP/b" --markdown --fail-on-regression 5
golden markdown
# the same run on both sides
run_zl compare "$TMP/a" "$TMP/a"
golden same-run
# no operator in common: said so, and no hint to --allow-caliber-mismatch
run_zl compare "$TMP/a" "$TMP/rg"
golden different-ops
lacks "$TMP/err" "--allow-caliber-mismatch"
# allowed anyway: every output says which operators differ
run_zl compare "$TMP/a" "$TMP/rg" --allow-caliber-mismatch --json
expect_rc 0
[ "$(json_get "$TMP/out" '(d["schema"], d["ops_only_a"], d["ops_only_b"], d["same_run"], len(d["alerts"]))')" = \
  "('zlbench.compare/1', ['mm'], ['router_gemm'], False, 1)" ] || fail "json: operator sets"

# the exports: written whole while the terminal keeps its table
run_zl compare "$TMP/a" "$TMP/b" --json-out "$TMP/x.json" --csv-out "$TMP/x.csv" --md-out "$TMP/x.md"
expect_rc 0
head -n 1 "$TMP/out" | grep -q '^gems: 5 slower' || fail "the terminal lost its table"
run_zl compare "$TMP/a" "$TMP/b" --json
cmp -s "$TMP/out" "$TMP/x.json" || fail "--json-out differs from --json"
run_zl compare "$TMP/a" "$TMP/b" --csv
cmp -s "$TMP/out" "$TMP/x.csv" || fail "--csv-out differs from --csv"
run_zl compare "$TMP/a" "$TMP/b" --markdown
cmp -s "$TMP/out" "$TMP/x.md" || fail "--md-out differs from --markdown"
ls "$TMP" | grep -q '\.tmp\.' && fail "a temporary file was left"
# a file that cannot be written is refused before anything is compared
run_zl compare "$TMP/a" "$TMP/b" --json-out "$TMP/nodir/x.json"
expect_rc 2
contains "$TMP/err" "--json-out '$TMP/nodir/x.json': no directory '$TMP/nodir'"
run_zl compare "$TMP/a" "$TMP/b" --md-out "$TMP"
expect_rc 2
contains "$TMP/err" "is not a regular file"
for bad in "--sort size" "--time-unit sec" "--all --only-changed"; do
	run_zl compare "$TMP/a" "$TMP/b" $bad
	expect_rc 2
done
pass
