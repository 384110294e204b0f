#!/bin/bash
# Resolution against the real suite's marks (FlagGems ed2508bc, tests/fixtures/flaggems-marks):
# every mark resolves, in one run and in a batch's dry run; each kind of near miss is refused
# before pytest with what to type instead.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
TSV="$ZL_FIXTURES_DIR/flaggems-marks/ed2508bc.tsv"
"$ZL_TEST_PYTHON" "$ZL_SOURCE_DIR/tests/helpers/flaggems_marks_tree.py" "$TSV" fg || fail "stub tree"
R() { run_zl run --backend cuda --flaggems-dir fg --dry-run "$@"; }
nodes() { sed -n '/^nodes (/,/^marker:/p' "$TMP/out" | grep '^  ' | tr -d ' ' | tr '\n' ' '; }

# the operator lister: every mark, and only marks
run_zl completion --list-ops --flaggems-dir fg
expect_rc 0
cut -f3 "$TSV" | tr , '\n' | sort -u >marks.txt
[ "$(wc -l <marks.txt)" -eq 1058 ] || fail "fixture marks: $(wc -l <marks.txt)"
sort "$TMP/out" | diff - marks.txt >/dev/null || fail "list-ops differs from the fixture's marks"

# a batch's dry run over every mark resolves them all
run_zl batch --backend cuda --flaggems-dir fg --devices 0 --ops-file marks.txt --dry-run --out b
expect_rc 0
contains "$TMP/out" "operators resolved: 1058 of 1058 ("
contains "$TMP/out" "700 benchmark files scanned in"

# a file named after no mark of its own
R --op div
expect_rc 3
contains "$TMP/err" "PREFLIGHT_FAILED check=op_resolution"
contains "$TMP/err" "no benchmark for operator 'div' (from --op): benchmark/test_div.py has no mark 'div' (its marks: div_tensor, div_tensor_, div_tensor_mode, div_tensor_mode_, div_scalar_mode, div_scalar_mode_, div_scalar_, div_out)"
contains "$TMP/err" "did you mean: div_out, div_scalar, div_tensor"
contains "$TMP/err" "to run the whole file: --op-file benchmark/test_div.py"
[ "$(grep -c . "$TMP/err")" -le 3 ] || fail "the refusal is more than a line: $(cat "$TMP/err")"
# which does run the whole file
R --op-file benchmark/test_div.py
expect_rc 0
[ "$(nodes)" = "benchmark/test_div.py " ] || fail "op file: $(nodes)"

# a name that is only a file's name (the suite has 59 such files)
R --op bitwise_and
expect_rc 3
contains "$TMP/err" "benchmark/test_bitwise_and.py has no mark 'bitwise_and' (its marks: bitwise_and_tensor, bitwise_and_tensor_, bitwise_and_scalar"

# a typo: the close marks, and the file of the closest
R --op div_tensr
expect_rc 3
contains "$TMP/err" "no benchmark/test_div_tensr.py and no file carries @pytest.mark.div_tensr (700 files scanned)"
contains "$TMP/err" "did you mean: div_tensor, div_tensor_"
contains "$TMP/err" "the nearest file, benchmark/test_div.py, has marks div_tensor"
# the environment's OP is named as such
OP=div_tensr R
expect_rc 3
contains "$TMP/err" "no benchmark for operator 'div_tensr' (from OP)"

# a mark only in a nested folder
R --op chunk_gated_delta_rule_fwd
expect_rc 0
[ "$(nodes)" = "benchmark/test_FLA/test_chunk_gated_delta_rule_fwd.py " ] || fail "nested: $(nodes)"
grep -qx "marker: chunk_gated_delta_rule_fwd" "$TMP/out" || fail "nested marker"

# a mark in another file than its name suggests (test_unfold.py carries unfold_backward only)
R --op unfold
expect_rc 0
[ "$(nodes)" = "benchmark/test_unfold_view.py " ] || fail "unfold: $(nodes)"
# a mark in two files, neither its own
R --op div_tensor
expect_rc 0
[ "$(nodes)" = "benchmark/test_div.py benchmark/test_true_divide.py " ] || fail "div_tensor: $(nodes)"
# its own file when that carries it, though another does too
R --op mul
expect_rc 0
[ "$(nodes)" = "benchmark/test_mul.py " ] || fail "mul: $(nodes)"
contains "$TMP/out" "nodes (file):"

# a batch refuses every unknown op up front, one line each, and runs nothing
run_zl batch --backend cuda --flaggems-dir fg --devices 0 --ops mul,div,div_tensr,unfold --out nb
expect_rc 3
contains "$TMP/err" "failed for 2 of the batch's 4 operators; nothing was run:"
contains "$TMP/err" "  no benchmark for operator 'div': benchmark/test_div.py has no mark 'div'"
contains "$TMP/err" "  no benchmark for operator 'div_tensr': no benchmark/test_div_tensr.py"
[ -e nb ] && fail "a refused batch left a directory"
pass
