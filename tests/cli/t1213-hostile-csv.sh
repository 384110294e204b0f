#!/bin/bash
# compare --csv on a crafted run: a cell a spreadsheet would take for a formula (= + - @ TAB
# CR first) gets OWASP's leading ' and is quoted (zl_csv_field), so it opens as text.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/hostile_runs.sh"

# CSV: the formula is text
run_zl compare a b --csv
expect_rc 0
contains "$TMP/out" "\"'=HYPERLINK("
if grep -q '^=\|,=' "$TMP/out"; then
	fail "compare --csv wrote a cell that starts with ="
fi

pass
