#!/bin/bash
# zlbench devices without --backend: auto-detection finds none, one or several vendors.
. "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/bin"
zl() { PATH="$TMP/bin" run_zl "$@"; }

zl devices
expect_rc 2
contains "$TMP/err" "no backend detected: none of nvidia-smi, mthreads-gmi, rocm-smi, amd-smi, npu-smi is on PATH"
contains "$TMP/err" "pass --backend (choices: cuda (nvidia, cu), musa (mthreads, mt, moore), rocm (amd, hip), ascend (npu, huawei))"
[ ! -s "$TMP/out" ] || fail "nothing on stdout when detection fails"

# render nodes alone belong to any vendor: still none
mkdir -p "$ZL_DEV_ROOT/dri"
touch "$ZL_DEV_ROOT/dri/renderD128"
zl devices
expect_rc 2

# one vendor by its probe node
touch "$ZL_DEV_ROOT/kfd"
zl devices
expect_rc 0
contains "$TMP/out" "backend: rocm (auto-detected: $ZL_DEV_ROOT/kfd)"
rm "$ZL_DEV_ROOT/kfd"

# one vendor by its numbered nodes (musa has no probe)
touch "$ZL_DEV_ROOT/mtgpu.0"
zl devices --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["backend"]')" = "musa" ] || fail "musa by nodes"
[ "$(json_get "$TMP/out" 'd["backend_why"]')" = "auto-detected: $ZL_DEV_ROOT/mtgpu.0" ] || fail "why"
rm "$ZL_DEV_ROOT/mtgpu.0"

# one vendor by its tool
fake_tool npu-smi "exit 1"
zl devices
expect_rc 0
contains "$TMP/out" "backend: ascend (auto-detected: npu-smi on PATH)"
contains "$TMP/out" "devices: not verified: npu-smi exited 1 and no $ZL_DEV_ROOT/davinci* nodes"

# several: a tool and another vendor's nodes
touch "$ZL_DEV_ROOT/nvidiactl"
zl devices
expect_rc 2
contains "$TMP/err" "several backends detected: cuda ($ZL_DEV_ROOT/nvidiactl), ascend (npu-smi on PATH); pass --backend"

# ZL_BACKEND settles it
ZL_BACKEND=cuda zl devices
expect_rc 0
contains "$TMP/out" "backend: cuda (from ZL_BACKEND)"

pass
