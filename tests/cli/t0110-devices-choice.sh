#!/bin/bash
# zlbench devices: which backend (--backend, ZL_BACKEND, aliases), unknown ones, "not verified".
. "$(dirname "$0")/lib.sh"

# only fake tools are on the PATH zlbench sees: a real GPU host must not change the result
mkdir -p "$TMP/bin"
zl() { PATH="$TMP/bin" run_zl "$@"; }

zl devices --backend xpu
expect_rc 2
contains "$TMP/err" "unknown backend 'xpu' from --backend"
contains "$TMP/err" "cuda (nvidia, cu), musa (mthreads, mt, moore), rocm (amd, hip), ascend (npu, huawei)"

zl devices --backend nvdia
expect_rc 2
contains "$TMP/err" "did you mean 'nvidia'?"

ZL_BACKEND=tpu zl devices
expect_rc 2
contains "$TMP/err" "unknown backend 'tpu' from ZL_BACKEND"

# every alias, in any case
for pair in cuda:cuda NVIDIA:cuda Cu:cuda mthreads:musa MT:musa Moore:musa amd:rocm HIP:rocm npu:ascend Huawei:ascend; do
	zl devices --backend "${pair%%:*}"
	expect_rc 0
	contains "$TMP/out" "backend: ${pair##*:} (from --backend)"
done

# the flag beats the environment
ZL_BACKEND=musa zl devices -b ascend
expect_rc 0
contains "$TMP/out" "backend: ascend (from --backend)"
ZL_BACKEND=Musa zl devices
expect_rc 0
contains "$TMP/out" "backend: musa (from ZL_BACKEND)"

# nothing to enumerate: exit 0, and the reason
zl devices --backend cuda
expect_rc 0
contains "$TMP/out" "devices: not verified: no nvidia-smi on PATH and no $ZL_DEV_ROOT/nvidia* nodes"

zl devices --backend rocm --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["verified"]')" = "False" ] || fail "verified should be false"
[ "$(json_get "$TMP/out" 'd["devices"]')" = "[]" ] || fail "devices should be empty"
[ "$(json_get "$TMP/out" 'd["backend_source"]')" = "flag" ] || fail "backend_source"
[ "$(json_get "$TMP/out" 'd["vendor"]')" = "amd" ] || fail "vendor"
[ "$(json_get "$TMP/out" 'd["visibility"]["variable"]')" = "HIP_VISIBLE_DEVICES" ] || fail "visibility variable"
json_get "$TMP/out" 'd["how"]' | grep -qF "not verified: no rocm-smi on PATH; no amd-smi on PATH and no " ||
	fail "how: $(json_get "$TMP/out" 'd["how"]')"

zl devices --backend
expect_rc 2
contains "$TMP/err" "needs a value"

zl devices extra
expect_rc 2
contains "$TMP/err" "unexpected argument 'extra'"

zl devices --help
expect_rc 0
contains "$TMP/out" "usage: zlbench devices"
contains "$TMP/out" "ZL_BACKEND"
contains "$TMP/out" "ZL_QUERY_TIMEOUT"
contains "$TMP/out" "Examples:"

pass
