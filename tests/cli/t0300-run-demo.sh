#!/bin/bash
# A whole run against the bundled demo: header, identity, shapes.yaml, summary, RUN_DIR.
. "$(dirname "$0")/lib.sh"

DEMO="$ZL_SOURCE_DIR/examples/demo"
cd "$TMP"
export ZL_PUSH_TOKEN=do-not-write-me FLAGGEMS_VENDOR=nvidia

run_zl run --backend cuda --flaggems-dir "$DEMO" --op softmax --python "$ZL_TEST_PYTHON" --out r1
expect_rc 0
# the last line on stdout names the run directory
[ "$(tail -n 1 "$TMP/out")" = "RUN_DIR=$TMP/r1" ] || fail "last line: $(tail -n 1 "$TMP/out")"
# summary table from results.json, before RUN_DIR
contains "$TMP/out" "torch ms"
grep -qE '^softmax +torch.float16 +\[\[4096\]\]' "$TMP/out" || fail "summary row missing"
# the header names the caliber, one line each
for h in "zlbench " "backend:     cuda (flag: --backend), vendor nvidia, CUDA_VISIBLE_DEVICES=0" \
	"device:      0  (not verified" "bundled demo: CPU stand-ins" "level:       core (default)" \
	"shapes:      upstream:" "test node:   benchmark/test_softmax.py  -m softmax  (file)" \
	"plugins:     zl_vendor_guard zl_timer zl_profiler_timer zl_graph_timer zl_foreign_vendor zl_autotune zl_skips" \
	"timer:       profiler (device timestamps, each call from an idle device, L2 flushed outside it, leading transient cut; noise target 0.5 % (2 % under 5 us), at most 0.3 s per shape); fallback per shape: graph, direct; SM clock: nvml" "tuner cache: shared: $FLAGGEMS_CACHE_DIR, 0 winners already stored" \
	"replay:      none" "run dir:     $TMP/r1"; do
	contains "$TMP/err" "$h"
done
# inputs drawn as FlagGems draws them: no line for it
lacks "$TMP/err" "inputs:      "
# the run directory holds everything
for f in run_identity.json shapes.yaml pytest.log results.json plugins/vendor.json plugins/timer_summary.json; do
	[ -s "r1/$f" ] || fail "r1/$f missing"
done
contains r1/pytest.log "passed"
# identity fields
id=r1/run_identity.json
check() { [ "$(json_get "$id" "$1")" = "$2" ] || fail "identity: $1 = $(json_get "$id" "$1"), want $2"; }
check 'd["schema_version"]' 1
check 'd["status"]' passed
check 'd["exit_code"]' 0
check 'd["backend"]' cuda
check 'd["backend_source"]' flag
check 'd["vendor"]' nvidia
check 'd["level"]' core
check 'd["shape_mode"]' upstream
check 'd["shape_file"]["sha256"]' "$(sha256sum "$DEMO/benchmark/core_shapes.yaml" | cut -d" " -f1)"
check 'd["test_node"]' "['benchmark/test_softmax.py']"
check 'd["op"]' softmax
check 'd["flaggems_mode"]' kernel
check 'd["timer"]["plan"]' profiler
# the demo has no torch: every measurement falls back to direct, and says why in the identity
check 'd["timer"]["used"], d["timer"]["profiler"], d["timer"]["fallbacks"] > 0' "('direct', 0, True)"
check 'd["timer"]["noise_target"], d["timer"]["max_time_per_shape_s"], d["timer"]["dropped_throttled"]' '(0.005, 0.3, 0)'
check 'd["timer"]["clock_mhz"], d["timer"]["clock_source"].startswith("unknown: ")' '(None, True)'
check 'd["env"]["ZL_TIMER_PLAN"], d["env"]["ZL_NOISE_TARGET"], d["env"]["ZL_MAX_TIME_PER_SHAPE"], d["env"]["ZL_CLOCK_SOURCE"]' "('profiler', '0.005', '0.3', 'nvml')"
check 'd["tuner_cache"]["mode"]' shared
check 'd["autotune"]["mode"]' record
check 'd["visibility"]' "{'variable': 'CUDA_VISIBLE_DEVICES', 'value': '0'}"
check 'd["devices_verified"]' False
check 'd["vendor_guard"]["match"]' True
check 'd["foreign_vendor"]["vendors"]' "[]"
# zlbench's own credential never reaches the child, so the child's environment lacks it
check '"ZL_PUSH_TOKEN" in d["env"]' False
check 'd["env"]["FLAGGEMS_VENDOR"]' nvidia
check 'd["finished_at"] is not None and d["duration_s"] > 0' True
check 'd["run_id"].startswith(d["started_at"][:4])' True
check '"--record" in d["child_argv"] and d["child_argv"][-1] == "-s"' True
# the token is written nowhere
if grep -rqF do-not-write-me r1 "$TMP/out" "$TMP/err"; then fail "token leaked"; fi

# shapes.yaml, upstream/core: the demo's file, resolved through anchors and merge keys
yget() { "$ZL_TEST_PYTHON" -c 'import yaml,sys; d=yaml.safe_load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
[ "$(yget r1/shapes.yaml 'd["level"], d["shape_mode"], d["count"], d["level_adds_shapes"]')" = "('core', 'upstream', 5, False)" ] ||
	fail "shapes.yaml upstream/core: $(cat r1/shapes.yaml)"
[ "$(yget r1/shapes.yaml 'd["source"]["sha256"]')" = "$(json_get "$id" 'd["shape_file"]["sha256"]')" ] || fail "shapes.yaml sha"

# file mode at comprehensive: the given file, and the note that the level adds shapes
cat >mine.yaml <<'YAML'
base: &b
  shapes:
    - [16]
    - [32]
    - [48]
softmax:
  <<: *b
  shape_desc: "M"
YAML
run_zl run --backend cuda --flaggems-dir "$DEMO" --op softmax --python "$ZL_TEST_PYTHON" --out r2 \
	--shape-file mine.yaml --level comprehensive
expect_rc 0
[ "$(yget r2/shapes.yaml 'd["level"], d["shape_mode"], d["count"], d["shapes"], d["level_adds_shapes"]')" = \
	"('comprehensive', 'file', 3, [[16], [32], [48]], True)" ] || fail "shapes.yaml file/comprehensive: $(cat r2/shapes.yaml)"
contains "$TMP/err" "shapes:      file: $TMP/mine.yaml"
contains "$TMP/err" "3 shapes for softmax"
[ "$(json_get r2/run_identity.json 'd["child_argv"][d["child_argv"].index("--shape_file")+1]')" = "$TMP/mine.yaml" ] || fail "--shape_file"
# FlagGems really ran those shapes
[ "$(json_get r2/results.json 'sorted({str(r["shape_detail"]) for x in d["softmax"]["details"] for r in x["result"]})[:3]')" != "[]" ] || fail "no results"

# upstream at comprehensive, and file mode at core
run_zl run --backend cuda --flaggems-dir "$DEMO" --op softmax --python "$ZL_TEST_PYTHON" --out r3 --level comprehensive
expect_rc 0
[ "$(yget r3/shapes.yaml 'd["level"], d["shape_mode"], d["level_adds_shapes"]')" = "('comprehensive', 'upstream', True)" ] || fail "r3"
SHAPE_FILE=mine.yaml run_zl run --backend cuda --flaggems-dir "$DEMO" --op softmax --python "$ZL_TEST_PYTHON" --out r4
expect_rc 0
[ "$(yget r4/shapes.yaml 'd["level"], d["shape_mode"], d["count"]')" = "('core', 'file', 3)" ] || fail "r4"

# --verbose shows the exact child (to repeat it by hand); --quiet shows no header
run_zl --verbose run --backend cuda --flaggems-dir "$DEMO" --op add --python "$ZL_TEST_PYTHON" --out r5
expect_rc 0
contains "$TMP/err" "child argv:  $ZL_TEST_PYTHON -m pytest benchmark/test_add.py -m add -p zl_vendor_guard"
contains "$TMP/err" "-u MUSA_VISIBLE_DEVICES"
run_zl --quiet run --backend cuda --flaggems-dir "$DEMO" --op add --python "$ZL_TEST_PYTHON" --out r6
expect_rc 0
lacks "$TMP/err" "backend:     cuda"
lacks "$TMP/err" "child argv:"

# where the integer inputs were drawn is recorded: FlagGems' way by default; --draw-inputs device
# loads zl_inputs, which says it found nothing to replace in the demo (its base.py imports no torch)
check 'd["inputs"]["draw"], d["inputs"]["replaced"], d["inputs"]["drawn_on_device"]' "('flaggems', None, None)"
run_zl run --backend cuda --flaggems-dir "$DEMO" --op add --python "$ZL_TEST_PYTHON" --out r7 --draw-inputs device
expect_rc 0
contains "$TMP/err" "plugins:     zl_vendor_guard zl_timer zl_profiler_timer zl_graph_timer zl_foreign_vendor zl_autotune zl_skips zl_inputs"
contains "$TMP/err" "inputs:      integer and bool inputs drawn on the device (--draw-inputs; FlagGems draws them on the CPU)"
contains r7/pytest.log "zl_inputs: no FlagGems generate_tensor_input"
id=r7/run_identity.json
check 'd["inputs"]["draw"], d["inputs"]["replaced"], d["inputs"]["drawn_on_device"]' "('device', [], 0)"

# a run directory is never reused
run_zl run --backend cuda --flaggems-dir "$DEMO" --op softmax --python "$ZL_TEST_PYTHON" --out r1
expect_rc 3
contains "$TMP/err" "PREFLIGHT_FAILED check=out_dir"
pass
