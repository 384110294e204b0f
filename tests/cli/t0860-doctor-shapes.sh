#!/bin/bash
# doctor step 7 (shapes): the op missing from the shape file (FlagGems falls back to its
# defaults), or the shapes the user wants coming only with --level comprehensive
# (mm: 5 shapes at core, 29 at comprehensive). Counts come from FlagGems' own set_shapes,
# run by zl_doctor.py's probe with Benchmark.run replaced.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/fixtures/doctor/doctor_lib.sh"
cd "$TMP"
fg_tree fg

# mm at core: 5 shapes; comprehensive adds 24
doctor --backend cuda --flaggems-dir fg --op mm --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["steps"][6]["summary"]')" = "mm runs 5 shape(s) at level core" ] ||
	fail "summary: $(json_get "$TMP/out" 'd["steps"][6]["summary"]')"
json_get "$TMP/out" '"\n".join(d["steps"][6]["evidence"])' | grep -q "BlasBenchmark 'mm': core 5 shapes, comprehensive 29 (from '$TMP/fg/benchmark/core_shapes.yaml' entry 'BlasBenchmark')" ||
	fail "evidence: $(json_get "$TMP/out" 'd["steps"][6]["evidence"]')"
json_get "$TMP/out" '"\n".join(d["steps"][6]["evidence"])' | grep -q "level comprehensive adds 24 shape(s) (29 in all)" ||
	fail "no note on comprehensive"

# a wanted shape that only comprehensive runs
doctor --backend cuda --flaggems-dir fg --op mm --shape 1,512,14336,4096 --shape "(2, 384, 384, 384)"
expect_failed_at shapes
contains "$TMP/out" "shape [1,512,14336,4096] runs only at level comprehensive (level core runs 5 shape(s), level comprehensive 29 for mm)"
contains "$TMP/out" "shape [2,384,384,384] runs at level core"
contains "$TMP/out" "fix:      --level comprehensive"
doctor --backend cuda --flaggems-dir fg --op mm --shape 1x512x14336x4096 --level comprehensive
expect_passed
contains "$TMP/out" "mm runs 29 shape(s) at level comprehensive"

# a shape no level runs: add it to the entry the benchmark reads
doctor --backend cuda --flaggems-dir fg --op mm --shape 3,3,3,3
expect_failed_at shapes
contains "$TMP/out" "shape [3,3,3,3] is in no shape list of mm"
contains "$TMP/out" "add [3,3,3,3] to the 'BlasBenchmark' entry of a shape file"
# ... unless the benchmark sets its shapes itself (router_gemm's 10)
doctor --backend cuda --flaggems-dir fg --op router_gemm --shape 9,9,9
expect_failed_at shapes
contains "$TMP/out" "set by RouterGemmBenchmark.set_shapes, not read from the shape file"
contains "$TMP/out" "no shape file adds one"

# an op missing from the shape file: a warning (FlagGems falls back to DEFAULT_SHAPES)
doctor --backend cuda --flaggems-dir fg --op add
expect_passed
expect_step shapes WARN
contains "$TMP/out" "'add' has no entry in shape file '$TMP/fg/benchmark/core_shapes.yaml'"
contains "$TMP/out" "GenericBenchmark 'add': core 2 shapes, comprehensive 6 (the benchmark's default shapes"
# router_gemm is not in the file either, but never reads it: no warning
doctor --backend cuda --flaggems-dir fg --op router_gemm
expect_step shapes ok
contains "$TMP/out" "router_gemm runs 10 shape(s) at level core"

# a shape file of the user's: its entry is what runs
printf 'mm:\n  shapes:\n    - [1, 64, 64, 64]\n    - [1, 128, 128, 128]\n' >mine.yaml
doctor --backend cuda --flaggems-dir fg --op mm --shape-file mine.yaml --shape 1,128,128,128
expect_passed
contains "$TMP/out" "mm runs 2 shape(s) at level core"

# upstream mode without FlagGems' core_shapes.yaml
rm fg/benchmark/core_shapes.yaml
doctor --backend cuda --flaggems-dir fg --op add
expect_step shapes WARN
contains "$TMP/out" "core_shapes.yaml' is missing"
pass
