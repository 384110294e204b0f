#!/bin/bash
# Autotune mode off (--no-autotune-records / ZL_AUTOTUNE_RECORDS=0): the autotune plugin is
# not loaded, the identity says mode off, header and footer say so; it cannot be combined
# with a replay or with warm-up sharding; batch forwards it; bad values are refused.
. "$(dirname "$0")/lib.sh"

DEMO="$ZL_SOURCE_DIR/examples/demo"
cd "$TMP"
export FLAGGEMS_VENDOR=nvidia
run_zl run --backend cuda --flaggems-dir "$DEMO" --op mm --python "$ZL_TEST_PYTHON" --no-autotune-records --out off
expect_rc 0
contains "$TMP/err" "replay:      none; autotune records off"
contains "$TMP/err" "autotune:    off; no autotune report (records turned off)"
lacks "$TMP/err" "zl_autotune"
[ ! -e off/autotune_records ] || fail "records written with autotune records off"
"$ZL_TEST_PYTHON" - off/run_identity.json <<'PY' || fail "identity of an autotune-off run"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["autotune"]["mode"] == "off" and d["autotune"]["recorded"] is None, d["autotune"]
assert d["plugins"] == ["zl_vendor_guard", "zl_timer", "zl_profiler_timer", "zl_graph_timer", "zl_foreign_vendor", "zl_skips"], d["plugins"]
assert "ZL_AUTOTUNE_MODE" not in d["env"], d["env"]
assert "-p" in d["child_argv"] and "zl_autotune" not in d["child_argv"], d["child_argv"]
PY

# the variable does the same, and an inherited ZL_AUTOTUNE_MODE does not reach the child
ZL_AUTOTUNE_RECORDS=0 ZL_AUTOTUNE_MODE=record run_zl run --backend cuda --flaggems-dir "$DEMO" --op mm \
	--python "$ZL_TEST_PYTHON" --out off2
expect_rc 0
[ "$(json_get off2/run_identity.json 'd["autotune"]["mode"], "ZL_AUTOTUNE_MODE" in d["env"]')" = "('off', False)" ] ||
	fail "ZL_AUTOTUNE_RECORDS=0: $(json_get off2/run_identity.json 'd["autotune"]')"
run_zl plan --backend cuda --no-autotune-records
expect_rc 0
contains "$TMP/out" "zl_autotune: dropped: autotune records turned off"

# refused: a bad value, a replay, warm-up sharding
ZL_AUTOTUNE_RECORDS=maybe run_zl run --backend cuda --flaggems-dir "$DEMO" --op mm --dry-run
expect_rc 2
contains "$TMP/err" "'maybe' for ZL_AUTOTUNE_RECORDS"
run_zl run --backend cuda --flaggems-dir "$DEMO" --op mm --no-autotune-records --replay-from off --dry-run
expect_rc 2
contains "$TMP/err" "--no-autotune-records turns autotune records off, but --replay-from asks to replay them"
run_zl batch --backend cuda --flaggems-dir "$DEMO" --devices 0,1 --ops mm --warmup-devices 2 --no-autotune-records \
	--out "$TMP/w"
expect_rc 2
contains "$TMP/err" "--no-autotune-records turns the records off"

# batch forwards it to every run
run_zl batch --backend cuda --flaggems-dir "$DEMO" --python "$ZL_TEST_PYTHON" --devices 0 --ops add \
	--no-autotune-records --out "$TMP/b" --progress none
expect_rc 0
grep -q -- '"--no-autotune-records"' "$TMP/b/batch.json" || fail "batch.json lacks --no-autotune-records"
[ "$(json_get "$TMP/b/runs/add/run_identity.json" 'd["autotune"]["mode"]')" = off ] || fail "batch run not off"

# compare says what the two sides did
run_zl compare off off2
expect_rc 0
contains "$TMP/out" "off vs off"
pass
