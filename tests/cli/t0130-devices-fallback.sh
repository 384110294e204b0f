#!/bin/bash
# zlbench devices when the query tool is missing, fails or hangs: /dev nodes, or "not verified".
. "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/bin"
zl() { PATH="$TMP/bin" run_zl "$@"; }

# nodes only: counted (numbered ones), and how says why
touch "$ZL_DEV_ROOT/nvidia0" "$ZL_DEV_ROOT/nvidia1" "$ZL_DEV_ROOT/nvidiactl" "$ZL_DEV_ROOT/nvidia-uvm"
zl devices --backend cuda
expect_rc 0
contains "$TMP/out" "devices: 2, found by $ZL_DEV_ROOT nodes (no nvidia-smi on PATH)"
contains "$TMP/out" "$ZL_DEV_ROOT/nvidia1"
lacks "$TMP/out" "nvidia-uvm"
zl devices --backend cuda --json
[ "$(json_get "$TMP/out" 'd["verified"]')" = "True" ] || fail "nodes are a verified list"
[ "$(json_get "$TMP/out" '[x["node"].rsplit("/", 1)[1] for x in d["devices"]]')" = "['nvidia0', 'nvidia1']" ] ||
	fail "nodes"
[ "$(json_get "$TMP/out" 'd["devices"][0]["name"]')" = "None" ] || fail "no name from a node"

# the tool fails: its message is kept, the nodes answer
fake_tool nvidia-smi "echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\"; exit 9"
zl devices --backend cuda
expect_rc 0
contains "$TMP/out" "nodes (nvidia-smi exited 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.)"
zl devices --backend cuda --json
[ "$(json_get "$TMP/out" '(d["verified"], d["tool_failed"], len(d["devices"]))')" = "(True, True, 2)" ] ||
	fail "a failing tool with nodes: $(cat "$TMP/out")"

# the tool hangs: killed after ZL_QUERY_TIMEOUT seconds
fake_tool nvidia-smi "exec /bin/sleep 60"
ZL_QUERY_TIMEOUT=1 zl devices --backend cuda
expect_rc 0
contains "$TMP/out" "nvidia-smi did not finish within ZL_QUERY_TIMEOUT=1 s"

# no nodes either: not verified, with both reasons
rm -f "$ZL_DEV_ROOT"/nvidia*
fake_tool nvidia-smi "echo 'No devices were found'; exit 6"
zl devices --backend cuda
expect_rc 0
contains "$TMP/out" "devices: not verified: nvidia-smi exited 6: No devices were found and no $ZL_DEV_ROOT/nvidia* nodes"

# a probe node without numbered ones, and numbered ones without the probe
touch "$ZL_DEV_ROOT/davinci3"
zl devices --backend ascend
contains "$TMP/out" "not verified: no npu-smi on PATH and $ZL_DEV_ROOT/davinci* nodes without $ZL_DEV_ROOT/davinci_manager"
touch "$ZL_DEV_ROOT/davinci_manager" "$ZL_DEV_ROOT/davinci7"
zl devices --backend ascend --json
[ "$(json_get "$TMP/out" '[(x["index"], x["node"].rsplit("/", 1)[1]) for x in d["devices"]]')" = "[(0, 'davinci3'), (1, 'davinci7')]" ] ||
	fail "davinci nodes: $(cat "$TMP/out")"

# rocm: render nodes count only with /dev/kfd, and the caveat is shown
mkdir -p "$ZL_DEV_ROOT/dri"
touch "$ZL_DEV_ROOT/dri/renderD128" "$ZL_DEV_ROOT/dri/card0"
zl devices --backend rocm
contains "$TMP/out" "not verified"
touch "$ZL_DEV_ROOT/kfd"
zl devices --backend rocm
contains "$TMP/out" "devices: 1, found by $ZL_DEV_ROOT nodes (no rocm-smi on PATH; no amd-smi on PATH; render nodes of other vendors' GPUs are counted too)"

pass
