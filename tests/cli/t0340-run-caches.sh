#!/bin/bash
# Tuner cache and compile stats: winners counted read-only in the real libtuner DB,
# inheritance warned about, isolated caches fresh and removed, new Triton variants counted.
. "$(dirname "$0")/lib.sh"

DEMO="$ZL_SOURCE_DIR/examples/demo"
cd "$TMP"
# a shared cache that already holds the real H200 mm winners (12) and benchmarked configs (1944)
mkdir -p "$FLAGGEMS_CACHE_DIR/config_cache"
cp "$ZL_FIXTURES_DIR/flaggems-runs/tuner-db/mm_TunedConfig_nvidia_triton_3_6.db" \
	"$FLAGGEMS_CACHE_DIR/config_cache/TunedConfig_nvidia_triton_3_6.db"
# and a Triton cache with the real 3-variant fixture in it
mkdir -p "$TRITON_CACHE_DIR"
cp -r "$ZL_FIXTURES_DIR/triton-cache-h200/." "$TRITON_CACHE_DIR/"

run_zl run --backend cuda --flaggems-dir "$DEMO" --op softmax --python "$ZL_TEST_PYTHON" --out s1
expect_rc 0
contains "$TMP/err" "tuner cache: shared: $FLAGGEMS_CACHE_DIR, 12 winners already stored"
contains "$TMP/err" "an A/B side may inherit them"
id=s1/run_identity.json
[ "$(json_get $id 'd["tuner_cache"]["winners_before"], d["tuner_cache"]["configs_before"], d["tuner_cache"]["mode"]')" = \
	"(12, 1944, 'shared')" ] || fail "winners before: $(json_get $id 'd["tuner_cache"]')"
# shared mode counts only the Triton entries that appeared during the run (the demo's
# stand-in compiler writes one per variant), never the 3 real ones already there
v=$(json_get $id 'd["compile"]["variants"]')
[ "$v" -gt 0 ] || fail "no new variants counted"
n_new=$(( $(ls "$TRITON_CACHE_DIR" | wc -l) - 6 ))
[ "$v" -le "$n_new" ] || fail "counted $v variants but only $n_new entries are new"

# isolated: a fresh tuner cache and Triton cache (0 winners before), both removed afterwards
run_zl run --backend cuda --flaggems-dir "$DEMO" --op mm --python "$ZL_TEST_PYTHON" --out i1 --isolate-tuner-cache
expect_rc 0
contains "$TMP/err" "tuner cache: isolated:"
id=i1/run_identity.json
[ "$(json_get $id 'd["tuner_cache"]["mode"], d["tuner_cache"]["winners_before"], d["tuner_cache"]["removed"]')" = \
	"('isolated', 0, True)" ] || fail "isolated: $(json_get $id 'd["tuner_cache"]')"
[ "$(json_get $id 'd["tuner_cache"]["winners_after"] > 0 and d["compile"]["variants"] > 0')" = True ] ||
	fail "isolated run tuned nothing: $(json_get $id 'd["tuner_cache"], d["compile"]')"
[ ! -e "$(json_get $id 'd["tuner_cache"]["path"]')" ] || fail "isolated tuner cache left behind"
[ ! -e "$(json_get $id 'd["triton_cache"]["path"]')" ] || fail "isolated triton cache left behind"
# the winners survive in the run's autotune records
[ "$(json_get $id 'd["autotune"]["recorded"]')" -gt 0 ] || fail "no autotune records"
ls i1/autotune_records/*.json >/dev/null || fail "autotune_records empty"
# the shared DB was only read
[ "$(json_get $id 'd["env"]["FLAGGEMS_CACHE_DIR"] != "'"$FLAGGEMS_CACHE_DIR"'"')" = True ] || fail "child used the shared cache"

# record then replay: every winner pinned, none missed
run_zl run --backend cuda --flaggems-dir "$DEMO" --op mm --python "$ZL_TEST_PYTHON" --out i2 --isolate-tuner-cache --replay-from i1
expect_rc 0
[ "$(json_get i2/run_identity.json 'd["autotune"]["mode"], d["autotune"]["missed"], d["autotune"]["pinned"] > 0, d["autotune"]["replay_run_id"] == "'"$(json_get $id 'd["run_id"]')"'"')" = \
	"('replay', 0, True, True)" ] || fail "replay: $(json_get i2/run_identity.json 'd["autotune"]')"
run_zl compare i1 i2
expect_rc 0
contains "$TMP/out" "proper A/B: B replays A's autotune records"
# moved directories keep the pair named (the replay source's run id is in B's identity)
mv i1 moved-i1 && mv i2 moved-i2
run_zl compare moved-i1 moved-i2
expect_rc 0
contains "$TMP/out" "proper A/B: B replays A's autotune records"
pass
