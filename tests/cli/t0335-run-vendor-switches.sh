#!/bin/bash
# The identity records the backend's own runtime and compiler switches (from the backend
# table) besides ZL_/FLAGGEMS_/GEMS_/TRITON_/MLIR_/LLVM_ ones, and not another vendor's;
# compare lists one that differs as an A/B variable.
. "$(dirname "$0")/lib.sh"

DEMO="$ZL_SOURCE_DIR/examples/demo"
cd "$TMP"
run_zl run --backend cuda --flaggems-dir "$DEMO" --op softmax --python "$ZL_TEST_PYTHON" --out a
expect_rc 0
CUDA_LAUNCH_BLOCKING=1 MLIR_ENABLE_DUMP=1 MUSA_LOG_LEVEL=3 HOME_IS=x \
	run_zl run --backend cuda --flaggems-dir "$DEMO" --op softmax --python "$ZL_TEST_PYTHON" --out b
expect_rc 0
"$ZL_TEST_PYTHON" - a/run_identity.json b/run_identity.json <<'PY' || fail "identity env"
import json, sys
a, b = (json.load(open(p))["env"] for p in sys.argv[1:])
assert "CUDA_LAUNCH_BLOCKING" not in a, a
assert b["CUDA_LAUNCH_BLOCKING"] == "1" and b["MLIR_ENABLE_DUMP"] == "1", b
# another vendor's switch and unrelated variables are not the run's caliber
assert "MUSA_LOG_LEVEL" not in b and "HOME_IS" not in b, b
# the pinned device order is recorded as well
assert b["CUDA_DEVICE_ORDER"] == "PCI_BUS_ID", b
PY
# on musa, the musa switch is recorded and the cuda one is not
GEMS_VENDOR=mthreads CUDA_LAUNCH_BLOCKING=1 MUSA_LOG_LEVEL=3 \
	run_zl run --backend musa --flaggems-dir "$DEMO" --op softmax --python "$ZL_TEST_PYTHON" --out m
expect_rc 0
[ "$(json_get m/run_identity.json '"MUSA_LOG_LEVEL" in d["env"] and "CUDA_LAUNCH_BLOCKING" not in d["env"]')" = True ] ||
	fail "musa identity env: $(json_get m/run_identity.json 'd["env"]')"
run_zl compare a b
contains "$TMP/out" "CUDA_LAUNCH_BLOCKING"
contains "$TMP/out" "MLIR_ENABLE_DUMP"
lacks "$TMP/out" "MUSA_LOG_LEVEL"
pass
