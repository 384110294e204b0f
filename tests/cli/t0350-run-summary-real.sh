#!/bin/bash
# The summary table comes from results.json: a stand-in benchmark hands FlagGems' real H200
# results to zlbench, which must print every row with its real figures: mm in kernel mode
# (15 cases), mm in cudagraph mode (15), router_gemm (10 hard-coded bf16 shapes).
. "$(dirname "$0")/lib.sh"

RUNS="$ZL_FIXTURES_DIR/flaggems-runs"
mkdir -p "$TMP/fg/benchmark"
cat >"$TMP/fg/benchmark/conftest.py" <<'PY'
import shutil, os
def pytest_addoption(parser):
    for o in ("--level", "--mode", "--record", "--output"):
        parser.addoption(o)
def pytest_sessionfinish(session):
    shutil.copyfile(os.environ["ZL_TEST_REAL_RESULTS"], session.config.getoption("--output"))
PY
for op in mm router_gemm; do
	printf 'import pytest\n\n@pytest.mark.%s\ndef test_%s():\n    pass\n' "$op" "$op" >"$TMP/fg/benchmark/test_$op.py"
done
cd "$TMP"

# summary OP FILE ROWS: a run of OP handing over FILE prints its ROWS rows, each with its figures
summary() {
	local op=$1 real=$RUNS/$2 rows=$3 n
	[ -s "$real" ] || fail "missing fixture $real"
	ZL_TEST_REAL_RESULTS=$real run_zl run --backend cuda --flaggems-dir fg --op "$op" --python "$ZL_TEST_PYTHON" --out "r-$2"
	expect_rc 0
	# every (dtype, shape) case of the real file, with its torch ms, gems ms and speedup
	n=$("$ZL_TEST_PYTHON" - "$real" "$TMP/out" "$op" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read().splitlines()
op = sys.argv[3]
n = 0
for detail in d[op]["details"]:
    for r in detail["result"]:
        shape = json.dumps(r["shape_detail"]).replace(",", ", ").replace(",  ", ", ")
        want = "%12.6f %12.6f %9.3f" % (r["latency_base"], r["latency"], r["speedup"])
        hits = [l for l in out if l.startswith(op + " ") and detail["dtype"] in l and shape in l and want in l]
        if not hits:
            sys.exit("missing row: %s %s %s" % (detail["dtype"], shape, want))
        n += 1
print(n)
PY
) || fail "$2 summary: $n"
	[ "$n" -eq "$rows" ] || fail "$2: expected $rows real rows, checked $n"
	cp "$TMP/out" "$2.out"
}

summary mm mm_core_kernel_h200.results.json 15
summary mm mm_core_cudagraph_h200.results.json 15
summary router_gemm router_gemm_core_kernel_h200.results.json 10

# the figures SOURCE.md quotes: fp16 384x384 gems 0.139872 ms in kernel mode, 0.002720 ms
# under cudagraph (the timer, not the kernel, dominates small shapes)
row() { grep -E "^$1 +$2 +$(printf '%s' "$3" | sed 's/[][]/\\&/g') " "$4"; }
row mm torch.float16 '[[384, 384], [384, 384]]' mm_core_kernel_h200.results.json.out | grep -q ' 0\.139872 ' ||
	fail "kernel-mode fp16 384 row"
row mm torch.float16 '[[384, 384], [384, 384]]' mm_core_cudagraph_h200.results.json.out | grep -q ' 0\.002720 ' ||
	fail "cudagraph fp16 384 row"
# router_gemm's first hard-coded shape, bf16 [1, 4096] x [8, 4096]: 0.012784 vs 0.028432 ms, speedup 0.450
row router_gemm torch.bfloat16 '[[1, 4096], [8, 4096]]' router_gemm_core_kernel_h200.results.json.out |
	grep -q ' 0\.012784 \+0\.028432 \+0\.450' || fail "router_gemm first row"
pass
