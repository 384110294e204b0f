#!/bin/bash
# The child's environment per backend: its own visibility variable, no other vendor's,
# plugins and <flaggems>/src first on PYTHONPATH, ZL_* knobs, cwd = the FlagGems root.
. "$(dirname "$0")/lib.sh"

FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"
# everything a vendor might have left in the environment
export CUDA_VISIBLE_DEVICES=7 MUSA_VISIBLE_DEVICES=7 HIP_VISIBLE_DEVICES=7 ROCR_VISIBLE_DEVICES=7 \
	GPU_DEVICE_ORDINAL=7 ASCEND_RT_VISIBLE_DEVICES=7 PYTHONPATH=/somewhere/else

envof() { json_get "$1/child_env.json" "$2"; }
for pair in cuda:CUDA_VISIBLE_DEVICES:nvidia musa:MUSA_VISIBLE_DEVICES:mthreads \
	rocm:HIP_VISIBLE_DEVICES:amd ascend:ASCEND_RT_VISIBLE_DEVICES:ascend; do
	IFS=: read -r be var vendor <<<"$pair"
	GEMS_VENDOR=$vendor run_zl run --backend "$be" --flaggems-dir "$FX" --op envdump --python "$ZL_TEST_PYTHON" \
		--devices 1,3 --out "$be"
	expect_rc 0
	[ "$(envof "$be" "d[\"$var\"]")" = "1,3" ] || fail "$be: $var"
	for other in CUDA_VISIBLE_DEVICES MUSA_VISIBLE_DEVICES HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES \
		GPU_DEVICE_ORDINAL ASCEND_RT_VISIBLE_DEVICES; do
		[ "$other" = "$var" ] && continue
		[ "$(envof "$be" "\"$other\" in d")" = False ] || fail "$be: $other survived"
	done
	# GEMS_VENDOR passes through untouched; FLAGGEMS_VENDOR is never set by zlbench
	[ "$(envof "$be" 'd.get("GEMS_VENDOR"), "FLAGGEMS_VENDOR" in d')" = "('$vendor', False)" ] || fail "$be: vendor vars"
	[ "$(envof "$be" 'd["ZL_BACKEND"], d["ZL_EXPECTED_VENDOR"], d["ZL_RUN_DIR"]')" = "('$be', '$vendor', '$TMP/$be')" ] ||
		fail "$be: ZL knobs"
	pp=$(envof "$be" 'd["PYTHONPATH"]')
	case "$pp" in "$ZL_SOURCE_DIR/plugins:$FX/src:/somewhere/else") ;; *) fail "$be: PYTHONPATH $pp" ;; esac
	[ "$(json_get "$be/child_argv.json" 'd["cwd"]')" = "$FX" ] || fail "$be: cwd"
done
# the profiler timer where the backend has a kernel profiler, the graph timer as its fallback
# where it can capture graphs; the sampling settings and the clock source of the backend row
[ "$(envof cuda 'd["ZL_TIMER_PLAN"], d["ZL_NOISE_TARGET"], d["ZL_MAX_TIME_PER_SHAPE"], d["ZL_CLOCK_SOURCE"]')" = \
	"('profiler', '0.005', '0.3', 'nvml')" ] || fail "cuda timer: $(envof cuda 'd["ZL_TIMER_PLAN"]')"
[ "$(envof musa 'd["ZL_TIMER_PLAN"], d["ZL_CLOCK_SOURCE"]')" = "('direct', 'none')" ] || fail "musa timer"
[ "$(envof cuda 'd["CUDA_DEVICE_ORDER"]')" = PCI_BUS_ID ] || fail "cuda device order"
# no graph-timer plugin in musa's argv, a strict subset of cuda's
[ "$(json_get musa/run_identity.json 'd["plugins"]')" = "['zl_vendor_guard', 'zl_timer', 'zl_foreign_vendor', 'zl_autotune', 'zl_skips']" ] || fail "musa plugins"
pass
