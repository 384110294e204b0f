#!/bin/bash
# The summary table comes from results.json: a stand-in benchmark hands FlagGems' real H200
# mm results (15 cases) to zlbench, which must print every row with its real figures.
. "$(dirname "$0")/lib.sh"

REAL="$ZL_SHARED_DIR/fixtures/flaggems-runs/mm_core_kernel_h200.results.json"
[ -s "$REAL" ] || fail "missing fixture $REAL"
mkdir -p "$TMP/fg/benchmark"
cat >"$TMP/fg/benchmark/conftest.py" <<'PY'
import shutil, os
def pytest_addoption(parser):
    for o in ("--level", "--mode", "--record", "--output"):
        parser.addoption(o)
def pytest_sessionfinish(session):
    shutil.copyfile(os.environ["ZL_TEST_REAL_RESULTS"], session.config.getoption("--output"))
PY
printf 'import pytest\n\n@pytest.mark.mm\ndef test_mm():\n    pass\n' >"$TMP/fg/benchmark/test_mm.py"
cd "$TMP"
ZL_TEST_REAL_RESULTS=$REAL run_zl run --backend cuda --flaggems-dir fg --op mm --python "$ZL_TEST_PYTHON" --out r
expect_rc 0
# every (dtype, shape) case of the real file, with its torch ms, gems ms and speedup
n=$("$ZL_TEST_PYTHON" - "$REAL" "$TMP/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read().splitlines()
n = 0
for detail in d["mm"]["details"]:
    for r in detail["result"]:
        shape = json.dumps(r["shape_detail"]).replace(",", ", ").replace(",  ", ", ")
        want = "%12.6f %12.6f %9.3f" % (r["latency_base"], r["latency"], r["speedup"])
        hits = [l for l in out if l.startswith("mm ") and detail["dtype"] in l and shape in l and want in l]
        if not hits:
            sys.exit("missing row: %s %s %s" % (detail["dtype"], shape, want))
        n += 1
print(n)
PY
) || fail "summary: $n"
[ "$n" -eq 15 ] || fail "expected 15 real rows, checked $n"
pass
