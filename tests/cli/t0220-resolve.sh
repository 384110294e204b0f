#!/bin/bash
# Node resolution: file, exact marker scan, op file, test node, shapes through << merges.
. "$(dirname "$0")/lib.sh"

mini_tree "$TMP/fg"
cd "$TMP"

# OP with benchmark/test_<op>.py
run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
expect_rc 0
contains "$TMP/out" "nodes (file):"
contains "$TMP/out" "  benchmark/test_mm.py"
grep -qx "marker: mm" "$TMP/out" || fail "marker"

# OP only by marker: every file with the exact marker, not amax_backward's file by prefix
run_zl run --backend cuda --flaggems-dir fg --op amax --dry-run
expect_rc 0
contains "$TMP/out" "nodes (marker scan):"
contains "$TMP/out" "  benchmark/fused/test_reductions.py"
contains "$TMP/out" "  benchmark/test_more.py"
run_zl run --backend cuda --flaggems-dir fg --op amax_backward --dry-run
expect_rc 0
contains "$TMP/out" "  benchmark/fused/test_reductions.py"
lacks "$TMP/out" "test_more.py"
run_zl run --backend cuda --flaggems-dir fg --op ama --dry-run
expect_rc 3
contains "$TMP/err" "did you mean: amax"

# symlinks in the marker scan: followed like pytest does, but each directory and file once
# (a link to an ancestor is a loop; two of them used to multiply the files); the files sorted
cp -R fg fl
ln -s . fl/benchmark/loop
ln -s .. fl/benchmark/fused/up
ln -s fused fl/benchmark/alias
ln -s test_more.py fl/benchmark/test_more_again.py
ln -s nowhere fl/benchmark/dangling
mkdir -p ext && printf 'import pytest\n\n@pytest.mark.amax\ndef test_ext():\n    pass\n' >ext/test_ext.py
ln -s "$TMP/ext" fl/benchmark/linked
run_zl run --backend cuda --flaggems-dir fl --op amax --dry-run
expect_rc 0
nodes=$(sed -n '/^nodes (marker scan):/,/^marker:/p' "$TMP/out" | grep '^  ' | tr -d ' ' | tr '\n' ' ')
[ "$nodes" = "benchmark/fused/test_reductions.py benchmark/linked/test_ext.py benchmark/test_more.py " ] ||
	fail "marker scan through links: $nodes"
run_zl run --backend cuda --flaggems-dir fl --op nosuchop --dry-run
expect_rc 3
contains "$TMP/err" "(5 files scanned)"

# OP_FILE + OP
OP_FILE=benchmark/fused/test_reductions.py OP=amax run_zl run --backend cuda --flaggems-dir fg --dry-run
expect_rc 0
contains "$TMP/out" "nodes (op file):"
grep -qx "marker: amax" "$TMP/out" || fail "marker for op file"

# TEST_NODE wins over OP and OP_FILE; used as given
TEST_NODE=benchmark/test_bmm.py::test_bmm OP=mm run_zl run --backend cuda --flaggems-dir fg --dry-run
expect_rc 0
contains "$TMP/out" "  benchmark/test_bmm.py::test_bmm"
grep -qx "marker: -" "$TMP/out" || fail "test node got a marker"

# a resolution failure names where the value came from
TEST_NODE=benchmark/test_nope.py::test_x run_zl run --backend cuda --flaggems-dir fg --dry-run
expect_rc 3
contains "$TMP/err" "test node file 'benchmark/test_nope.py' (from TEST_NODE) not found"
run_zl run --backend cuda --flaggems-dir fg --op-file benchmark/none.py --dry-run
expect_rc 3
contains "$TMP/err" "operator file 'benchmark/none.py' (from --op-file) not found"
OP=mmm run_zl run --backend cuda --flaggems-dir fg --dry-run
expect_rc 3
contains "$TMP/err" "no benchmark for operator 'mmm' (from OP)"

# a stray variable that changes what a flag asked for is named next to the flag
OP=bmm run_zl run --backend cuda --flaggems-dir fg --op-file benchmark/test_mm.py --dry-run
expect_rc 0
contains "$TMP/err" "warning: OP='bmm' from the environment is combined with --op-file 'benchmark/test_mm.py'"
OP_FILE=benchmark/test_more.py run_zl run --backend cuda --flaggems-dir fg --op amax --dry-run
expect_rc 0
contains "$TMP/err" "warning: OP_FILE='benchmark/test_more.py' from the environment is combined with --op 'amax'"
TEST_NODE=benchmark/test_bmm.py::test_bmm run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
expect_rc 0
contains "$TMP/err" "warning: TEST_NODE='benchmark/test_bmm.py::test_bmm' from the environment wins over --op 'mm'"
# no warning when both come from the same place, or the flag wins as usual
OP=amax OP_FILE=benchmark/test_more.py run_zl run --backend cuda --flaggems-dir fg --dry-run
expect_rc 0
lacks "$TMP/err" "from the environment"
OP=bmm run_zl run --backend cuda --flaggems-dir fg --test-node benchmark/test_mm.py --dry-run
expect_rc 0
lacks "$TMP/err" "from the environment"

# the argv is exact: nodes, -m, -p plugins, level, mode, record, output, -s, shape file, passthrough
run_zl run --backend cuda --flaggems-dir fg --op mm --shape-file fg/benchmark/core_shapes.yaml --out r1 --dry-run -- --dtypes float16
expect_rc 0
args=$(sed -n '/^argv:/,$p' "$TMP/out" | tail -n +2 | sed 's/^  //' | tr '\n' ' ')
case "$args" in
*" -m pytest benchmark/test_mm.py -m mm -p zl_vendor_guard -p zl_timer -p zl_profiler_timer -p zl_graph_timer -p zl_foreign_vendor -p zl_autotune -p zl_skips --level core --mode kernel --record json --output $TMP/r1/results.json -s --shape_file $TMP/fg/benchmark/core_shapes.yaml --dtypes float16 ") ;;
*) fail "argv: $args" ;;
esac
pass
