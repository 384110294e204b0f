#!/bin/bash
# zlbench compare on real runs of the demo over one shared tuner cache that starts with the
# real H200 mm libtuner DB (12 winners): two runs of `add` (no tuner) are not flagged as
# cache inheritance however many winners the cache holds; two runs of mm are, naming the
# kernel the later run could take from the earlier one's winners.
. "$(dirname "$0")/lib.sh"

DEMO="$ZL_SOURCE_DIR/examples/demo"
cd "$TMP"
mkdir -p "$FLAGGEMS_CACHE_DIR/config_cache"
cp "$ZL_FIXTURES_DIR/flaggems-runs/tuner-db/mm_TunedConfig_nvidia_triton_3_6.db" \
	"$FLAGGEMS_CACHE_DIR/config_cache/TunedConfig_nvidia_triton_3_6.db"
# the fixture is read-only; the demo's tuner adds its winners to this copy
chmod u+w "$FLAGGEMS_CACHE_DIR/config_cache/TunedConfig_nvidia_triton_3_6.db"

zl_demo() {
	run_zl run --backend cuda --flaggems-dir "$DEMO" --python "$ZL_TEST_PYTHON" "$@"
	expect_rc 0
}
facts() {
	json_get "$1/run_identity.json" \
		'(d["tuner_cache"]["winners_before"], d["tuner_cache"]["winners_after"], d["autotune"]["recorded"], d["autotune"]["no_tuner"])'
}

# `add` launches a kernel without a tuner: it neither stores nor reads winners
zl_demo --op add --out add1
zl_demo --op add --out add2
[ "$(facts add1)" = "(12, 12, 0, 1)" ] || fail "add1: $(facts add1)"
[ "$(facts add2)" = "(12, 12, 0, 1)" ] || fail "add2: $(facts add2)"
run_zl compare add1 add2
expect_rc 0
contains "$TMP/out" "autotune: record vs record"
lacks "$TMP/out" "cache inheritance"
run_zl compare add1 add2 --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["caliber"]["cache_inheritance"], len(d["caliber"]["flags"])')" = "(False, 1)" ] ||
	fail "add: no cache inheritance flag"

# mm tunes: the first run stores its winners next to the real ones, the second finds them
zl_demo --op mm --out mm1
zl_demo --op mm --out mm2
w1=$(json_get mm1/run_identity.json 'd["tuner_cache"]["winners_after"]')
[ "$(json_get mm1/run_identity.json 'd["tuner_cache"]["winners_before"] == 12 and d["tuner_cache"]["winners_after"] > 12 and d["autotune"]["recorded"] > 0')" = True ] ||
	fail "mm1 stored no winners: $(facts mm1)"
# the identity names the tuned kernels itself, so the check holds without the run directory
[ "$(json_get mm1/run_identity.json '[k.rsplit(".", 1)[-1] for k in d["autotune"]["kernels"]]')" = "['mm_kernel_cpu']" ] ||
	fail "mm1 identity kernels: $(json_get mm1/run_identity.json 'd["autotune"]')"
[ "$(json_get mm2/run_identity.json 'd["tuner_cache"]["winners_before"]')" = "$w1" ] || fail "mm2: $(facts mm2)"
run_zl compare mm1 mm2
expect_rc 0
contains "$TMP/out" "flag: cache inheritance: B started with $w1 tuner winners already in the shared tuner cache and tuned kernels that A tuned too (mm_kernel_cpu)"
run_zl compare mm1 mm2 --json
[ "$(json_get "$TMP/out" 'd["caliber"]["cache_inheritance"]')" = True ] || fail "mm: cache inheritance"
# whichever side is named A: the later run is the one that inherits
run_zl compare mm2 mm1
expect_rc 0
contains "$TMP/out" "cache inheritance: A started with $w1 tuner winners"

# a replay of mm1's records is the proper A/B, shared cache or not
zl_demo --op mm --out mm3 --replay-from mm1
run_zl compare mm1 mm3
expect_rc 0
contains "$TMP/out" "proper A/B: B replays A's autotune records"
lacks "$TMP/out" "cache inheritance"
pass
