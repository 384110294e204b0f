#!/bin/bash
# zlbench devices with each vendor's query tool answering (real captured outputs).
. "$(dirname "$0")/lib.sh"

F="$ZL_FIXTURES_DIR/devices"
mkdir -p "$TMP/bin"
zl() { PATH="$TMP/bin" run_zl "$@"; }
# cat_tool NAME FILE: a fake tool printing FILE (PATH holds only fakes, so /bin/cat by path)
cat_tool() { fake_tool "$1" "exec /bin/cat '$2'"; }

cat_tool nvidia-smi "$F/nvidia-smi-h200x2/query-gpu-noheader-nounits.csv"
zl devices
expect_rc 0
contains "$TMP/out" "backend: cuda (auto-detected: nvidia-smi on PATH)"
contains "$TMP/out" "devices: 2, found by nvidia-smi"
grep -E "^0 +NVIDIA H200 +143771 MiB +GPU-40eae92e-7184-a15d-5b9a-58a69d4e49b3 +00000000:00:06.0 +580.159.04$" "$TMP/out" >/dev/null ||
	fail "row 0: $(cat "$TMP/out")"
grep -qE "^1 +NVIDIA H200 .*GPU-07a9c116-3155-df8f-d562-84890a359ef8" "$TMP/out" || fail "row 1"
lacks "$TMP/out" "note:"

# nvidia-smi ignores CUDA_VISIBLE_DEVICES: the output says the indices are physical
CUDA_VISIBLE_DEVICES=1 zl devices --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["verified"]')" = "True" ] || fail "verified"
[ "$(json_get "$TMP/out" 'd["how"]')" = "nvidia-smi" ] || fail "how"
[ "$(json_get "$TMP/out" 'd["tool_failed"]')" = "False" ] || fail "tool_failed"
[ "$(json_get "$TMP/out" 'd["backend_source"]')" = "auto" ] || fail "backend_source"
[ "$(json_get "$TMP/out" 'len(d["devices"])')" = "2" ] || fail "device count"
[ "$(json_get "$TMP/out" 'd["devices"][1]["uuid"]')" = "GPU-07a9c116-3155-df8f-d562-84890a359ef8" ] || fail "uuid"
[ "$(json_get "$TMP/out" 'd["devices"][0]["memory_mib"]')" = "143771" ] || fail "memory"
[ "$(json_get "$TMP/out" 'd["devices"][0]["driver"]')" = "580.159.04" ] || fail "driver"
[ "$(json_get "$TMP/out" 'd["devices"][0]["bus_id"]')" = "00000000:00:06.0" ] || fail "bus id"
[ "$(json_get "$TMP/out" 'd["devices"][0]["node"]')" = "None" ] || fail "node"
[ "$(json_get "$TMP/out" 'd["visibility"]["value"]')" = "1" ] || fail "visibility value"
CUDA_VISIBLE_DEVICES=1 zl devices
contains "$TMP/out" "note: CUDA_VISIBLE_DEVICES=1 is set here"
rm "$TMP/bin/nvidia-smi"

cat_tool mthreads-gmi "$F/mthreads-gmi/mthreads-gmi_8x-MTT-S5000_gmi2.4.1_drv5.1.0-server.txt"
zl devices --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["backend"]')" = "musa" ] || fail "musa detected"
[ "$(json_get "$TMP/out" 'len(d["devices"])')" = "8" ] || fail "8 S5000"
[ "$(json_get "$TMP/out" 'd["devices"][7]["name"]')" = "MTT S5000" ] || fail "S5000 name"
[ "$(json_get "$TMP/out" 'd["devices"][7]["uuid"]')" = "00000000:da:00.0" ] || fail "S5000 bus id as uuid"
[ "$(json_get "$TMP/out" 'd["devices"][7]["memory_mib"]')" = "81920" ] || fail "S5000 memory"
[ "$(json_get "$TMP/out" 'd["devices"][7]["driver"]')" = "5.1.0-server" ] || fail "S5000 driver"
rm "$TMP/bin/mthreads-gmi"

cat_tool rocm-smi "$F/rocm-smi/rocm-smi-json_1x-RX7800XT_rocm6.2.4_pretty-printed_gpustack.json"
zl devices
expect_rc 0
contains "$TMP/out" "backend: rocm (auto-detected: rocm-smi on PATH)"
contains "$TMP/out" "Navi 32 [Radeon RX 7700 XT / 7800 XT]"
contains "$TMP/out" "0x5c88007d760374f3"
contains "$TMP/out" "16368 MiB"
rm "$TMP/bin/rocm-smi"

cat_tool amd-smi "$F/rocm-smi/amd-smi-list_2x-MI210_dup-uuid_rocm6.3.3.txt"
zl devices --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["how"]')" = "amd-smi (no rocm-smi on PATH; 2 devices share a uuid: bus ids shown instead)" ] ||
	fail "how: $(json_get "$TMP/out" 'd["how"]')"
[ "$(json_get "$TMP/out" '[x["uuid"] for x in d["devices"]]')" = "['0000:03:00.0', '0000:83:00.0']" ] || fail "uuids"
rm "$TMP/bin/amd-smi"

cat_tool npu-smi "$F/npu-smi/npu-smi-info_A3-8npu-16chip_Ascend910_npu-smi24.1.rc3.7.txt"
ASCEND_RT_VISIBLE_DEVICES=3 zl devices --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["backend"]')" = "ascend" ] || fail "ascend detected"
[ "$(json_get "$TMP/out" 'len(d["devices"])')" = "16" ] || fail "16 chips"
[ "$(json_get "$TMP/out" '[x["index"] for x in d["devices"]] == list(range(16))')" = "True" ] || fail "indices"
[ "$(json_get "$TMP/out" 'd["devices"][1]["uuid"]')" = "0000:9F:00.0" ] || fail "chip 1 bus id"
[ "$(json_get "$TMP/out" 'd["devices"][15]["memory_mib"]')" = "65536" ] || fail "chip memory"
[ "$(json_get "$TMP/out" 'd["visibility"]')" = "{'variable': 'ASCEND_RT_VISIBLE_DEVICES', 'value': '3'}" ] ||
	fail "visibility"

pass
