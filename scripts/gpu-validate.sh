#!/bin/bash
# GPU validation of zlbench against real FlagGems (docs/validation.md records the results).
# usage: scripts/gpu-validate.sh PHASE OUTDIR
# Run one phase per device call, under an outer `timeout -s INT` shorter than the call's limit,
# writing to a file (not a pipe): an interrupted zlbench run ends the phase and its run
# directory still holds a truthful identity.
#   PHASE: record-replay | caches | batch | calibrate | ab
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
		zl "${op}G" run $F --op $op --out "$out/${op}G" -- --dtypes float16
		zl "${op}D" run $F --op $op --no-cudagraph --direct-repeat 5 --out "$out/${op}D" -- --dtypes float16
		zl "cmp${op}" compare "$out/${op}G" "$out/${op}D" --allow-caliber-mismatch --json
	done
	;;
batch)
	nvidia-smi --query-gpu=index,name,uuid,memory.total,driver_version --format=csv,noheader,nounits >"$out/smi2.csv"
	zl batch batch $F --devices 0,1 --ops abs,add,mul,exp,relu,sigmoid,sum,softmax,neg,sin --out "$out/batch" -- --dtypes float16
	cat "$out/batch/ops_status.csv" >>"$out/phases.log"
	;;
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
