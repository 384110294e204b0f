#!/bin/bash
# What the run ends with and starts with: the footer folds in the plugins' findings from the
# identity (timer used, autotune counts, foreign vendors); per-table tuner winners; header
# and --dry-run details.
. "$(dirname "$0")/lib.sh"

FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"
export ZL_NO_HISTORY=1
zlrun() { run_zl run --flaggems-dir "$FX" --python "$ZL_TEST_PYTHON" "$@"; }

# router_gemm plans the profiler timer on cuda, but the stand-in has no torch: all direct
zlrun --backend cuda --op router_gemm --out rg
expect_rc 0
id=rg/run_identity.json
t=$(json_get $id '"used %s, planned %s: profiler %d, graph %d, direct %d, fallbacks %d" % tuple(d["timer"][k] for k in ("used", "plan", "profiler", "graph", "direct", "fallbacks"))')
[ "$t" = "used direct, planned profiler: profiler 0, graph 0, direct 6, fallbacks 6" ] || fail "identity timer: $t"
contains "$TMP/err" "timer:       $t"
contains "$TMP/err" "warning: the profiler timer was planned but every measurement fell back"
# its device module has no properties to find the NVML device by: the clock is unknown, and said
[ "$(json_get $id 'd["timer"]["clock_mhz"], d["timer"]["dropped_throttled"]')" = "(None, 0)" ] ||
	fail "identity clock: $(json_get $id 'd["timer"]')"
contains "$TMP/err" "clock:       unknown: cannot read the torch device's properties"
contains "$TMP/err" "warning: the SM clock could not be read (unknown: "
a=$(json_get $id '"%s: recorded %d, pinned %d, missed %d, no_tuner %d" % tuple(d["autotune"][k] for k in ("mode", "recorded", "pinned", "missed", "no_tuner"))')
[ "$a" = "record: recorded 3, pinned 0, missed 0, no_tuner 0" ] || fail "identity autotune: $a"
contains "$TMP/err" "autotune:    $a"
contains "$TMP/err" "foreign:     none"
# the footer comes after the status line
[ "$(grep -n '^status:' "$TMP/err" | cut -d: -f1)" -lt "$(grep -n '^foreign:' "$TMP/err" | cut -d: -f1)" ] ||
	fail "footer order: $(cat "$TMP/err")"
# the tuner note is about the cache after the run, not the empty one before it
contains "$TMP/err" "nothing tuned there yet"
[ "$(json_get $id 'd["tuner_cache"]["note"], d["tuner_cache"]["winners_after"]')" = "(None, 3)" ] ||
	fail "stale tuner note: $(json_get $id 'd["tuner_cache"]')"
[ "$(json_get $id '[(t["name"].split("_")[:3], t["winners_before"], t["winners_after"]) for t in d["tuner_cache"]["tables"]]')" = \
	"[(['mm', 'kernel', 'cpu'], 0, 3)]" ] || fail "tables: $(json_get $id 'd["tuner_cache"]["tables"]')"

# the graph plan that falls back says so too
zlrun --backend cuda --op router_gemm --timer graph --out rgg
expect_rc 0
contains "$TMP/err" "warning: the graph timer was planned but every measurement fell back"

# foreign vendor modules: router_gemm imports _nvidia whatever the backend
GEMS_VENDOR=mthreads zlrun --backend musa --op router_gemm --out fv
expect_rc 0
want=$(json_get fv/run_identity.json '", ".join(d["foreign_vendor"]["vendors"]) + " (%d modules" % len(d["foreign_vendor"]["modules"])')
case "$want" in nvidia*) ;; *) fail "foreign vendors in the identity: $want" ;; esac
contains "$TMP/err" "foreign:     $want"

# winners per table on FlagGems' real mm tuner DB (replacing the DB the runs above made):
# its 12 stored winners are inherited, the stand-in's 9 are new
mkdir -p "$FLAGGEMS_CACHE_DIR/config_cache"
cp "$ZL_FIXTURES_DIR/flaggems-runs/tuner-db/mm_TunedConfig_nvidia_triton_3_6.db" \
	"$FLAGGEMS_CACHE_DIR/config_cache/TunedConfig_nvidia_triton_3_6.db"
chmod u+w "$FLAGGEMS_CACHE_DIR/config_cache/TunedConfig_nvidia_triton_3_6.db"
zlrun --backend cuda --op mm --out real
expect_rc 0
contains "$TMP/err" "12 winners already stored"
tables=$(json_get real/run_identity.json 'sorted((t["name"].split("_5c4d")[0].split("_677d")[0], t["winners_before"], t["winners_after"]) for t in d["tuner_cache"]["tables"])')
[ "$tables" = "[('mm_kernel_cpu', 0, 9), ('mm_kernel_general_host_tma', 12, 12)]" ] || fail "real tables: $tables"
[ "$(json_get real/run_identity.json 'd["tuner_cache"]["winners_before"], d["tuner_cache"]["winners_after"]')" = "(12, 21)" ] ||
	fail "totals: $(json_get real/run_identity.json 'd["tuner_cache"]')"

# header: an op missing from the shape file is said in words, not as "-1 shapes"
printf 'add:\n  shapes:\n    - [4]\n' >other.yaml
zlrun --backend cuda --op softmax --shape-file other.yaml --out ns
expect_rc 0
contains "$TMP/err" "no shapes for softmax in that file"
lacks "$TMP/err" "-1 shapes"

# --dry-run lists every chosen device, not only the first
fake_tool nvidia-smi 'printf "0, NVIDIA H200, GPU-aaaa, 00000000:00:06.0, 143771, 570.1\n1, NVIDIA H200, GPU-bbbb, 00000000:00:07.0, 143771, 570.1\n"'
zlrun --backend cuda --op mm --devices 1,0 --dry-run
expect_rc 0
contains "$TMP/out" "devices (nvidia-smi):"
contains "$TMP/out" "  1  NVIDIA H200  GPU-bbbb"
contains "$TMP/out" "  0  NVIDIA H200  GPU-aaaa"
pass
