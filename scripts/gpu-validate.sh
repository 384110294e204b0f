#!/bin/bash
# GPU validation of zlbench against real FlagGems (docs/validation.md records the results).
# usage: scripts/gpu-validate.sh PHASE OUTDIR
# Run one phase per device call, under an outer `timeout -s INT` shorter than the call's limit,
# writing to a file (not a pipe): an interrupted zlbench run ends the phase and its run
# directory still holds a truthful identity.
#   PHASE: record-replay | caches | batch | worker | calibrate | ab
# Environment: ZLBENCH (binary), FLAGGEMS_DIR (checkout with src/flag_gems and benchmark/),
# and whatever PYTHONPATH FlagGems' own dependencies need. The ab phase also reads
# PROD_BEFORE_4618 (default .gpu/prod_before_4618.py in this checkout: FlagGems'
# src/flag_gems/ops/prod.py as it was before FlagGems PR #4618).
set -u
phase=$1 out=$2
: "${ZLBENCH:?}" "${FLAGGEMS_DIR:?}"
mkdir -p "$out"
log() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$out/phases.log"; }
# zl NAME ARGS...: one zlbench call, its output saved, its exit code and wall time logged
zl() {
	local name=$1 t0 rc
	shift
	t0=$(date +%s%N)
	"$ZLBENCH" "$@" >"$out/$name.out" 2>"$out/$name.err"
	rc=$?
	log "$name rc=$rc wall=$(( ($(date +%s%N) - t0) / 1000000 ))ms: zlbench $*"
	# an interrupted call ends the phase: an outer time limit must stop the script, not one run
	case $rc in 130 | 143) log "interrupted: stopping phase $phase"; exit "$rc" ;; esac
	return $rc
}
ident() { python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/run_identity.json"))
print("  status=%s duration=%.1fs compile=%s tuner=%s->%s timer=%s autotune=%s" % (
    d["status"], d["duration_s"] or 0, d["compile"], d["tuner_cache"]["winners_before"],
    d["tuner_cache"]["winners_after"], d["timer"], d["autotune"]))
PY
}
F="--flaggems-dir $FLAGGEMS_DIR --backend cuda"
case $phase in
record-replay)
	# record (isolated) -> replay (isolated) -> compare; then an A/A pair
	zl mmA run $F --op mm --isolate-tuner-cache --out "$out/mmA" -- --dtypes float16; ident "$out/mmA" | tee -a "$out/phases.log"
	zl mmB run $F --op mm --isolate-tuner-cache --replay-from "$out/mmA" --out "$out/mmB" -- --dtypes float16; ident "$out/mmB" | tee -a "$out/phases.log"
	zl cmpAB compare "$out/mmA" "$out/mmB"
	zl mmA2 run $F --op mm --isolate-tuner-cache --out "$out/mmA2" -- --dtypes float16; ident "$out/mmA2" | tee -a "$out/phases.log"
	zl cmpAA compare "$out/mmA" "$out/mmA2" --json
	zl musa run --flaggems-dir "$FLAGGEMS_DIR" --backend musa --op abs --out "$out/musa" -- --dtypes float16
	;;
caches)
	# the same op twice on one shared cache, then the router_gemm run, then graph vs direct
	export FLAGGEMS_CACHE_DIR=$out/shared-fg TRITON_CACHE_DIR=$out/shared-triton
	zl mmS1 run $F --op mm --out "$out/mmS1" -- --dtypes float16; ident "$out/mmS1" | tee -a "$out/phases.log"
	zl mmS2 run $F --op mm --out "$out/mmS2" -- --dtypes float16; ident "$out/mmS2" | tee -a "$out/phases.log"
	unset FLAGGEMS_CACHE_DIR TRITON_CACHE_DIR
	zl router run $F --op router_gemm --isolate-tuner-cache --out "$out/router"; ident "$out/router" | tee -a "$out/phases.log"
	for op in abs softmax; do
		zl "${op}G" run $F --op $op --timer graph --out "$out/${op}G" -- --dtypes float16
		zl "${op}D" run $F --op $op --timer direct --direct-repeat 5 --out "$out/${op}D" -- --dtypes float16
		zl "cmp${op}" compare "$out/${op}G" "$out/${op}D" --allow-caliber-mismatch --json
	done
	;;
batch)
	nvidia-smi --query-gpu=index,name,uuid,memory.total,driver_version --format=csv,noheader,nounits >"$out/smi2.csv"
	zl batch batch $F --devices 0,1 --ops abs,add,mul,exp,relu,sigmoid,sum,softmax,neg,sin --out "$out/batch" -- --dtypes float16
	cat "$out/batch/ops_status.csv" >>"$out/phases.log"
	;;
worker)
	# issue 15 (docs/worker.md): the 10 core ops on one device with a fresh interpreter per op,
	# then in the device's worker, back to back; then every op compared between the two
	ops=${ZL_WORKER_PHASE_OPS:-abs,add,exp,relu,sum,softmax,layer_norm,mean,sigmoid,gelu}
	for mode in fresh worker; do
		t0=$(date +%s%N)
		zl "w$mode" batch $F --devices 0 --ops $ops --start $mode --progress plain --out "$out/$mode" -- --dtypes float16
		echo $(( ($(date +%s%N) - t0) / 1000000 )) >"$out/$mode.makespan_ms"
	done
	for op in ${ops//,/ }; do
		zl "cmp_$op" compare "$out/fresh/runs/$op" "$out/worker/runs/$op" --json
	done
	python3 - "$out" "$ops" <<'PY' | tee -a "$out/phases.log"
import csv, json, os, sys
out, ops = sys.argv[1], sys.argv[2].split(",")

def timer_wall(run):
    path = os.path.join(run, "plugins", "timer.jsonl")
    if not os.path.exists(path):
        return 0.0
    return sum(json.loads(l).get("wall_s") or 0 for l in open(path) if l.strip())

for mode in ("fresh", "worker"):
    b = os.path.join(out, mode)
    makespan = int(open(os.path.join(out, mode + ".makespan_ms")).read()) / 1000.0
    rows = {r["op"]: r for r in csv.DictReader(open(os.path.join(b, "ops_status.csv"), newline=""))}
    walls = {op: timer_wall(os.path.join(b, "runs", op)) for op in ops}
    timers = sum(walls.values())
    # start-up: a worker's ready time; fresh: an op's wall beyond its timers, the smallest one
    ev = os.path.join(b, "workers", "events.jsonl")
    ready = [json.loads(l)["wall_s"] for l in open(ev) if '"ready"' in l] if os.path.exists(ev) else []
    beyond = [float(rows[op]["wall_s"]) - walls[op] for op in ops if op in rows and rows[op]["wall_s"]]
    startup = ready[0] if ready else min(beyond) if beyond else 0.0
    print("%s: makespan %.1f s, timers' wall %.1f s, start-up %.1f s (%s), makespan / (timers + one start-up) = %.2f (goal <= 1.3)"
          % (mode, makespan, timers, startup, "worker ready" if ready else "smallest op wall - its timers",
             makespan / (timers + startup) if timers + startup else float("nan")))
    if ready:
        print("  workers ready after: %s s" % ", ".join("%.1f" % r for r in ready))
    for op in ops:
        r = rows.get(op, {})
        print("  %-11s %-8s exit %-3s start %-6s ops_before %-2s wall %6.1f s timers %6.1f s" % (
            op, r.get("status", "-"), r.get("exit_code", "-"), r.get("start", "-"), r.get("ops_before", "-"),
            float(r.get("wall_s") or 0), walls[op]))
print("compare fresh (A) vs worker (B), per op:")
for op in ops:
    path = os.path.join(out, "cmp_%s.out" % op)
    try:
        d = json.load(open(path))
    except Exception as e:
        print("  %-11s no compare: %s" % (op, e))
        continue
    rows = [r for r in d.get("rows", []) if r.get("side") == "gems"]
    verdicts = {}
    for r in rows:
        verdicts[r.get("verdict")] = verdicts.get(r.get("verdict"), 0) + 1
    ratios = [r["ratio"] for r in rows if isinstance(r.get("ratio"), (int, float))]
    worst = max(ratios, key=lambda x: abs(x - 1)) if ratios else float("nan")
    cal = d.get("caliber", {})
    print("  %-11s %d gems rows: %s; B/A from %.3f to %.3f, furthest %.3f; caliber %s" % (
        op, len(rows), ", ".join("%s %d" % kv for kv in sorted(verdicts.items())),
        min(ratios) if ratios else float("nan"), max(ratios) if ratios else float("nan"), worst,
        "mismatch" if cal.get("mismatches") else "ok"))
calibrate)
	# >= 6 core ops, 3 identical rounds on one device: the per-size-class figures and the floor
	zl cal calibrate $F --ops abs,add,exp,sum,softmax,layer_norm --devices 0 --timeout-per-op 300 \
		--out "$out/cal" -- --dtypes float16
	sed -n '/^calibration of/,/^CALIBRATE_DIR=/p' "$out/cal.out" | tee -a "$out/phases.log"
	# compare now names the calibration as its floor
	zl calcmp compare "$out/cal/round-1/runs/add" "$out/cal/round-2/runs/add"
	grep -E '^(floor|verdicts):' "$out/calcmp.out" | tee -a "$out/phases.log"
	;;
ab)
	# A/A on one small op: the same FlagGems on both sides, no row may come out faster or slower
	zl abAA ab $F --op abs --out "$out/abAA" -- --dtypes float16
	grep -E '^(floor|caliber|verdicts|geomean)' "$out/abAA.out" | tee -a "$out/phases.log"
	# FlagGems as is (A) against FlagGems with prod.py from before PR #4618 (B): a sibling copy
	# with that one file replaced; expected: B slower on the 3-D non-inner reductions
	old=${PROD_BEFORE_4618:-$(cd "$(dirname "$0")/.." && pwd)/.gpu/prod_before_4618.py}
	fgB="$(dirname "$FLAGGEMS_DIR")/$(basename "$FLAGGEMS_DIR")-prod-before-4618"
	[ -f "$old" ] || { log "no $old: skipping the prod A/B"; exit 2; }
	rm -rf "$fgB" && cp -a "$FLAGGEMS_DIR" "$fgB" && cp "$old" "$fgB/src/flag_gems/ops/prod.py" || exit 2
	log "B: $fgB (prod.py from $old)"
	zl abProd ab $F --op prod --b-flaggems-dir "$fgB" --out "$out/abProd" -- --dtypes float16
	grep -E '^(floor|caliber|verdicts|geomean)' "$out/abProd.out" | tee -a "$out/phases.log"
	python3 - "$out/abProd/ab.json" <<'PY' | tee -a "$out/phases.log"
import json, sys
d = json.load(open(sys.argv[1]))
print("status %s, order %s" % (d["status"], d["order"]))
for r in d.get("rows", []):
    if r["side"] == "gems":
        print("  %-15s %-28s B/A %7.3f [%.3f, %.3f] per round %s  %s" % (
            r["dtype"], r["shape"], r["ratio"] or 0, r["ci_low"] or 0, r["ci_high"] or 0,
            " ".join("%.3f" % x for x in r["pairs"]), r["verdict"]))
PY
	;;
esac
