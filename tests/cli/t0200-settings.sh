#!/bin/bash
# Settings: precedence flag > env > default, refusals naming the value and the choices.
. "$(dirname "$0")/lib.sh"

mini_tree "$TMP/fg"
cd "$TMP"

# default level is core, from the default
run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
expect_rc 0
grep -E '^  level += core +\(default\)' "$TMP/out" >/dev/null || fail "level default not shown: $(cat "$TMP/out")"

# devices and out show what their defaults resolve to, and say so
grep -E '^  devices += 0 +\(default: device 0, not verified\)' "$TMP/out" >/dev/null || fail "devices default not shown: $(cat "$TMP/out")"
grep -E "^  out += $TMP/runs/[0-9]{8}-[0-9]{6}-cuda-mm +\(default: a new directory under runs_dir\)" "$TMP/out" >/dev/null ||
	fail "out default not shown: $(cat "$TMP/out")"
ZL_RUNS_DIR=elsewhere run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
expect_rc 0
grep -E "^  out += $TMP/elsewhere/[0-9]{8}-[0-9]{6}-cuda-mm " "$TMP/out" >/dev/null || fail "out default ignores ZL_RUNS_DIR"
fake_tool nvidia-smi 'printf "3, NVIDIA H200, GPU-aaaa, 00000000:00:06.0, 143771, 570.1\n5, NVIDIA H200, GPU-bbbb, 00000000:00:07.0, 143771, 570.1\n"'
run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
expect_rc 0
grep -E '^  devices += 3 +\(default: the first device\)' "$TMP/out" >/dev/null || fail "first device not shown: $(cat "$TMP/out")"
contains "$TMP/out" "CUDA_VISIBLE_DEVICES=3"
rm -f "$TMP/bin/nvidia-smi"

# env beats default, flag beats env
BENCH_LEVEL=comprehensive run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
expect_rc 0
grep -E '^  level += comprehensive +\(env: BENCH_LEVEL\)' "$TMP/out" >/dev/null || fail "env level not shown"
BENCH_LEVEL=comprehensive run_zl run --backend cuda --flaggems-dir fg --op mm --level core --dry-run
expect_rc 0
grep -E '^  level += core +\(flag: --level\)' "$TMP/out" >/dev/null || fail "flag did not win over env"
contains "$TMP/out" "--level"

# a bad level is refused, never passed through to pytest
BENCH_LEVEL=quick run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
expect_rc 2
contains "$TMP/err" "invalid value 'quick' for BENCH_LEVEL"
contains "$TMP/err" "core or comprehensive"
run_zl run --backend cuda --flaggems-dir fg --op mm --level fast --dry-run
expect_rc 2
contains "$TMP/err" "'fast' for --level"

# booleans: every accepted spelling, and a refusal naming the variable and the choices
for v in 1 true YES on; do
	ZL_ISOLATE_TUNER_CACHE=$v run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
	expect_rc 0
	grep -E "^  isolate_tuner_cache += $v " "$TMP/out" >/dev/null || fail "isolate $v not taken"
	contains "$TMP/out" "FLAGGEMS_CACHE_DIR=<fresh temporary dir>"
done
for v in 0 false no OFF; do
	ZL_ISOLATE_TUNER_CACHE=$v run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
	expect_rc 0
	lacks "$TMP/out" "FLAGGEMS_CACHE_DIR="
done
ZL_ISOLATE_TUNER_CACHE=maybe run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
expect_rc 2
contains "$TMP/err" "invalid value 'maybe' for ZL_ISOLATE_TUNER_CACHE"
contains "$TMP/err" "0, 1, true, false, yes, no, on, off"
# the flag pair beats the environment
ZL_ISOLATE_TUNER_CACHE=1 run_zl run --backend cuda --flaggems-dir fg --op mm --shared-tuner-cache --dry-run
expect_rc 0
grep -E "^  isolate_tuner_cache += 0 +\(flag: --shared-tuner-cache\)" "$TMP/out" >/dev/null || fail "--shared-tuner-cache lost"

# unknown backend: the message names the value and lists the choices
ZL_BACKEND=tpu run_zl run --flaggems-dir fg --op mm --dry-run
expect_rc 2
contains "$TMP/err" "invalid value 'tpu' for ZL_BACKEND"
contains "$TMP/err" "cuda (nvidia, cu)"
contains "$TMP/err" "ascend (npu, huawei)"
# every alias, any case
for a in cuda NVIDIA cu musa mthreads MT moore rocm amd HIP ascend npu Huawei; do
	run_zl plan --backend "$a" --json
	expect_rc 0
done
# ZL_BACKEND env is taken, the flag wins over it
ZL_BACKEND=musa run_zl run --flaggems-dir fg --op mm --dry-run
expect_rc 0
contains "$TMP/out" "MUSA_VISIBLE_DEVICES=0"
ZL_BACKEND=musa run_zl run --backend amd --flaggems-dir fg --op mm --dry-run
expect_rc 0
contains "$TMP/out" "HIP_VISIBLE_DEVICES=0"
# no backend and nothing detectable: a usage error asking for --backend
run_zl run --flaggems-dir fg --op mm --dry-run
expect_rc 2
contains "$TMP/err" "--backend"

# numbers
ZL_DIRECT_REPEAT=0 run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
expect_rc 2
contains "$TMP/err" "ZL_DIRECT_REPEAT"
run_zl run --backend cuda --flaggems-dir fg --op mm --timeout -5 --dry-run
expect_rc 2
contains "$TMP/err" "'-5' for --timeout"
run_zl run --backend cuda --flaggems-dir fg --op mm --devices 0,x --dry-run
expect_rc 2
contains "$TMP/err" "invalid device index 'x'"
# device indices are plain decimal integers, stored canonically ("01" is 1) and listed once
for d in '+1' '-0' ' 1' '1 ' '0x1' '99999999999999999999' '4097'; do
	run_zl run --backend cuda --flaggems-dir fg --op mm --devices "$d" --dry-run
	expect_rc 2
	contains "$TMP/err" "invalid device index '$d' in --devices"
done
for d in '0,,1' '1,' ','; do
	ZL_DEVICES=$d run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
	expect_rc 2
	contains "$TMP/err" "invalid value '$d' for ZL_DEVICES: an empty device index"
done
run_zl run --backend cuda --flaggems-dir fg --op mm --devices 01,002 --dry-run
expect_rc 0
contains "$TMP/out" "CUDA_VISIBLE_DEVICES=1,2"
lacks "$TMP/out" "CUDA_VISIBLE_DEVICES=01"
grep -E '^  devices += 1,2 +\(flag: --devices\)' "$TMP/out" >/dev/null || fail "devices not canonical: $(cat "$TMP/out")"
run_zl run --backend cuda --flaggems-dir fg --op mm --devices 0,0 --dry-run
expect_rc 2
contains "$TMP/err" "device 0 is listed twice in --devices '0,0' (again as '0')"
ZL_DEVICES=3,03 run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
expect_rc 2
contains "$TMP/err" "device 3 is listed twice in ZL_DEVICES '3,03' (again as '03')"
# batch reads the same resolved list: the duplicate is refused, the child gets the canonical index
run_zl batch --backend cuda --flaggems-dir fg --ops mm --devices 2,02 --dry-run
expect_rc 2
contains "$TMP/err" "device 2 is listed twice in --devices '2,02' (again as '02')"
run_zl batch --backend cuda --flaggems-dir fg --ops mm --devices 01 --dry-run
expect_rc 0
contains "$TMP/out" "--devices=1"
# --gpus is an alias of --devices
run_zl run --backend cuda --flaggems-dir fg --op mm --gpus 1,3 --dry-run
expect_rc 0
contains "$TMP/out" "CUDA_VISIBLE_DEVICES=1,3"

# an empty flag value is refused (it would silently mean the current directory); an empty variable is unset
for f in out flaggems-dir shape-file replay-from op-file test-node python devices level; do
	run_zl run --backend cuda --flaggems-dir fg --op mm --$f= --dry-run
	expect_rc 2
	contains "$TMP/err" "empty value for --$f"
done
run_zl run --backend cuda --flaggems-dir fg --op mm --out '' --dry-run
expect_rc 2
contains "$TMP/err" "empty value for --out"
BENCH_LEVEL= run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
expect_rc 0
grep -E '^  level += core +\(default\)' "$TMP/out" >/dev/null || fail "an empty BENCH_LEVEL is not unset"

# ZL_QUERY_TIMEOUT is a number like the others, not silently the default
for v in abc 0 -1 5s; do
	ZL_QUERY_TIMEOUT=$v run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
	expect_rc 2
	contains "$TMP/err" "invalid value '$v' for ZL_QUERY_TIMEOUT"
done
ZL_QUERY_TIMEOUT=2.5 run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
expect_rc 0

# the graph timer cannot be forced on a backend without graph capture
run_zl run --backend musa --flaggems-dir fg --op mm --cudagraph --dry-run
expect_rc 2
contains "$TMP/err" "cannot capture graphs"

# the timer: the best the backend offers by default, env beats default, flag beats env; the
# sampling settings are shown with where they came from and refused with the value and source
run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
expect_rc 0
grep -E '^  timer += profiler +\(default\)' "$TMP/out" >/dev/null || fail "timer default not shown: $(cat "$TMP/out")"
grep -E '^  noise_target += 0.005 +\(default\)' "$TMP/out" >/dev/null || fail "noise target default not shown"
grep -E '^  max_time_per_shape += 0.3 +\(default\)' "$TMP/out" >/dev/null || fail "time cap default not shown"
contains "$TMP/out" "ZL_TIMER_PLAN=profiler"
contains "$TMP/out" "ZL_NOISE_TARGET=0.005"
contains "$TMP/out" "ZL_CLOCK_SOURCE=nvml"
ZL_TIMER=direct ZL_NOISE_TARGET=0.01 run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
expect_rc 0
grep -E '^  timer += direct +\(env: ZL_TIMER\)' "$TMP/out" >/dev/null || fail "env timer not shown"
grep -E '^  noise_target += 0.01 +\(env: ZL_NOISE_TARGET\)' "$TMP/out" >/dev/null || fail "env noise target not shown"
lacks "$TMP/out" "-p zl_graph_timer"
ZL_TIMER=direct run_zl run --backend cuda --flaggems-dir fg --op mm --timer graph --max-time-per-shape 2 --dry-run
expect_rc 0
grep -E '^  timer += graph +\(flag: --timer\)' "$TMP/out" >/dev/null || fail "flag timer did not win over env"
grep -E '^  max_time_per_shape += 2 +\(flag: --max-time-per-shape\)' "$TMP/out" >/dev/null || fail "flag time cap"
contains "$TMP/out" "ZL_MAX_TIME_PER_SHAPE=2"
ZL_NOISE_TARGET=1% run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
expect_rc 2
contains "$TMP/err" "invalid value '1%' for ZL_NOISE_TARGET: a fraction greater than 0 and at most 0.5"
run_zl run --backend cuda --flaggems-dir fg --op mm --max-time-per-shape 0 --dry-run
expect_rc 2
contains "$TMP/err" "invalid value '0' for --max-time-per-shape"
run_zl run --backend musa --flaggems-dir fg --op mm --timer profiler --dry-run
expect_rc 2
contains "$TMP/err" "--timer asks for the profiler timer, but backend 'musa' has no kernel profiler: torch_musa"

# shape mode file needs a shape file
SHAPE_MODE=file run_zl run --backend cuda --flaggems-dir fg --op mm --dry-run
expect_rc 2
contains "$TMP/err" "needs a shape file"
pass
