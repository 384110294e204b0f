#!/bin/bash
# zlbench backends: the table in text and JSON, and its usage errors.
. "$(dirname "$0")/lib.sh"

run_zl backends
expect_rc 0
contains "$TMP/out" "NAME"
contains "$TMP/out" "VISIBILITY"
for row in "cuda" "musa" "rocm" "ascend"; do
	grep -q "^$row " "$TMP/out" || fail "no row for $row"
done
grep "^cuda " "$TMP/out" | grep -qF "CUDA_VISIBLE_DEVICES" || fail "cuda row lacks its variable"
grep "^cuda " "$TMP/out" | grep -qF "nvidia-smi" || fail "cuda row lacks nvidia-smi"
grep "^cuda " "$TMP/out" | grep -qF "graph_capture" || fail "cuda row lacks graph_capture"
grep "^musa " "$TMP/out" | grep -qF "MUSA_VISIBLE_DEVICES" || fail "musa row lacks its variable"
grep "^rocm " "$TMP/out" | grep -qF "rocm-smi, amd-smi" || fail "rocm row lacks its tools"
grep "^ascend " "$TMP/out" | grep -qF "ASCEND_RT_VISIBLE_DEVICES" || fail "ascend row lacks its variable"
[ "$(grep -c "^[a-z]* .*graph_capture" "$TMP/out")" -eq 1 ] || fail "graph_capture on more than the cuda row"
grep "^cuda " "$TMP/out" | grep -qF "graph_capture,kernel_profiler" || fail "cuda row lacks kernel_profiler"
grep "^rocm " "$TMP/out" | grep -qF "kernel_profiler" || fail "rocm row lacks kernel_profiler"
# the table, then why musa and ascend have no profiler timer
[ "$(sed -n '1,5p' "$TMP/out" | grep -c .)" -eq 5 ] || fail "expected a header and 4 rows"
grep -q "^musa: no kernel_profiler: torch_musa " "$TMP/out" || fail "no note for musa: $(cat "$TMP/out")"
grep -q "^ascend: no kernel_profiler: torch_npu " "$TMP/out" || fail "no note for ascend: $(cat "$TMP/out")"
[ "$(wc -l <"$TMP/out")" -eq 8 ] || fail "expected a header, 4 rows, a blank line and 2 notes"

run_zl backends --json
expect_rc 0
[ "$(json_get "$TMP/out" '[b["name"] for b in d["backends"]]')" = "['cuda', 'musa', 'rocm', 'ascend']" ] ||
	fail "json backend names"
[ "$(json_get "$TMP/out" '[b["name"] for b in d["backends"] if "graph_capture" in b["capabilities"]]')" = "['cuda']" ] ||
	fail "json capabilities"
[ "$(json_get "$TMP/out" '[b["name"] for b in d["backends"] if "kernel_profiler" in b["capabilities"]]')" = "['cuda', 'rocm']" ] ||
	fail "json kernel_profiler"
[ "$(json_get "$TMP/out" '[sorted(b["capability_notes"]) for b in d["backends"]]')" = "[[], ['kernel_profiler'], [], ['kernel_profiler']]" ] ||
	fail "json capability notes"
[ "$(json_get "$TMP/out" '[b["clock_source"] for b in d["backends"]]')" = "['nvml', 'none', 'none', 'none']" ] ||
	fail "json clock sources"
[ "$(json_get "$TMP/out" 'd["backends"][1]["aliases"]')" = "['mthreads', 'mt', 'moore']" ] || fail "json musa aliases"
[ "$(json_get "$TMP/out" 'd["backends"][2]["visibility_var"]')" = "HIP_VISIBLE_DEVICES" ] || fail "json rocm variable"
[ "$(json_get "$TMP/out" 'd["backends"][2]["extra_visibility_vars"]')" = "['ROCR_VISIBLE_DEVICES', 'GPU_DEVICE_ORDINAL']" ] ||
	fail "json rocm extra variables"
[ "$(json_get "$TMP/out" 'd["backends"][0]["query_argv"][0]')" = "nvidia-smi" ] || fail "json cuda argv"
[ "$(json_get "$TMP/out" 'd["backends"][3]["dev_node_probe"]')" = "davinci_manager" ] || fail "json ascend probe"

run_zl backends --help
expect_rc 0
contains "$TMP/out" "usage: zlbench backends"
contains "$TMP/out" "--json"

run_zl backends --jsn
expect_rc 2
contains "$TMP/err" "unknown option '--jsn'"

run_zl backends cuda
expect_rc 2
contains "$TMP/err" "unexpected argument 'cuda'"

pass
