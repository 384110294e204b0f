#!/bin/bash
# GPU smoke test of the timers (docs/timer.md): abs and add at core, float16, timed by the
# profiler timer and by the graph timer, then an A/A pair of profiler runs of abs compared.
# Prints per measurement: timer, estimate, noise_rel, n, stop_reason, kernels_per_call, SM
# clock range and wall time; per run the wall time; under ~3 minutes on an H200.
# usage: FLAGGEMS_DIR=... ZLBENCH=... scripts/gpu-timer-smoke.sh OUTDIR
# First, python3 scripts/gpu-kineto-probe.py shows the profiler API this torch offers.
set -u
out=$1
: "${ZLBENCH:?}" "${FLAGGEMS_DIR:?}"
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
F="--flaggems-dir $FLAGGEMS_DIR --backend cuda --isolate-tuner-cache"
# zl NAME ARGS...: one zlbench call, output saved, exit code and wall time printed
zl() {
	local name=$1 t0 rc
	shift
	t0=$(date +%s%N)
	"$ZLBENCH" "$@" >"$out/$name.out" 2>"$out/$name.err"
	rc=$?
	echo "== $name rc=$rc wall=$(( ($(date +%s%N) - t0) / 1000000 )) ms: zlbench $*"
	case $rc in 130 | 143) exit "$rc" ;; esac
	return 0
}
# table RUN: one line per measurement of RUN's plugins/timer.jsonl, then the run's timer block
table() {
	python3 - "$1" <<'PY'
import json, sys
run = sys.argv[1]
print("%-5s %-5s %-22s %-8s %12s %9s %6s %-13s %3s %-11s %7s  %s" % (
    "op", "side", "shape", "timer", "estimate_ms", "noise_rel", "n", "stop", "k", "clock MHz",
    "wall_s", "fallback"))
for line in open(run + "/plugins/timer.jsonl"):
    r = json.loads(line)
    c = r.get("clock_mhz") or {}
    print("%-5s %-5s %-22.22s %-8s %12.6f %9s %6s %-13s %3s %-11s %7.3f  %s" % (
        r["op"], r["side"], json.dumps(r["shape"], separators=(",", ":")), r["timer"],
        r["estimate_ms"] or 0, "%.4f" % r["noise_rel"] if r.get("noise_rel") is not None else "-",
        r.get("samples_total"), r.get("stop_reason"), r.get("kernels_per_call") or "-",
        "%d-%d" % (c["min"], c["max"]) if c else "-", r["wall_s"], r["fallback_reason"] or ""))
t = json.load(open(run + "/run_identity.json"))["timer"]
print("  run: used %s, profiler %s graph %s direct %s, dropped_throttled %s, clock %s (%s)" % (
    t["used"], t["profiler"], t["graph"], t["direct"], t["dropped_throttled"], t["clock_mhz"],
    t["clock_source"]))
PY
}
PYTHONPATH="$here/../plugins:${PYTHONPATH:-}" timeout 60 python3 "$here/gpu-kineto-probe.py" >"$out/probe.txt" 2>&1
echo "== probe rc=$? (full output in $out/probe.txt)"
tail -n 3 "$out/probe.txt"
for op in abs add; do
	for timer in profiler graph; do
		zl "$op-$timer" run $F --op $op --timer $timer --out "$out/$op-$timer" -- --dtypes float16
		table "$out/$op-$timer"
	done
done
# A/A: the same op twice with the profiler timer, compared at the default threshold
zl abs-profiler-2 run $F --op abs --timer profiler --out "$out/abs-profiler-2" -- --dtypes float16
table "$out/abs-profiler-2"
zl aa compare "$out/abs-profiler" "$out/abs-profiler-2" --fail-on-regression 5
sed -n '1,40p' "$out/aa.out"
python3 - "$out/abs-profiler" "$out/abs-profiler-2" <<'PY'
import json, sys
def est(run):
    return {(r["op"], r["side"], json.dumps(r["shape"])): r for r in map(json.loads, open(run + "/plugins/timer.jsonl"))}
a, b = est(sys.argv[1]), est(sys.argv[2])
for k in sorted(a):
    if k in b and a[k]["estimate_ms"] and b[k]["estimate_ms"]:
        ratio = b[k]["estimate_ms"] / a[k]["estimate_ms"]
        print("A/A %-5s %-5s %-30.30s B/A %.4f  noise_rel %s / %s" % (k[0], k[1], k[2], ratio,
              a[k]["noise_rel"], b[k]["noise_rel"]))
PY
