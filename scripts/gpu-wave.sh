#!/bin/bash
# The GPU validation of this wave (issues 13, 14, 15; docs/validation.md), in two device calls:
#   A: the kineto probe; a 10-op core batch with a fresh interpreter per op; zlbench calibrate
#      over the same ops, 2 rounds in the device's worker (round 1 is the worker batch, round 2
#      its A/A); compare per op: fresh vs worker (issue 15), round 1 vs round 2 at the fixed
#      5 % floor and with the stored calibration (issue 13's A/A); a digest.
#   B: mm record -> replay -> compare (5 % gate); an A/A ab on abs; ab of FlagGems as is (A)
#      against FlagGems with prod.py from before PR #4618 (B) on prod.
#   AA: the A/A alone: calibrate (round 2 replays round 1's winners), then compare per op at
#       the fixed floor and with the stored calibration; a digest.
#   MM: mm record -> replay -> compare at the 5 % gate alone (B's first three steps).
#   AAX: AA over 10 operators no test or document of the project names (issue 25: rsqrt, tanh,
#       erf, div_tensor, addcmul, where_self, index_select, var_mean, cumprod, clamp; OPS_X
#       changes them).
#   S26: issue 26 on the real suite: --op div refused (and how fast), an int-only op skipped
#       under --dtypes float16, embedding's timer rows matched to its results rows, a dry run
#       over every mark.
#   EVENTS: wave 10: events a call in one profiled window of atan (torch, FlagGems), and
#       the seconds of the session's stop, events() and kineto_series (scripts/gpu-event-count.py);
#       EVENT_CALLS="10 50 200" (wave 15): windows of each size, and a window's fixed cost.
#   PROBE: wave 11: per-call costs of the profiler timer under each flush size, recorded scope
#       and wait, and the samples each gives (scripts/gpu-call-probe.py).
#   DRAIN: wave 15: a spin of 5-40 us after the flush, the wait after it and fill_(0) as the
#       flush, against torch's two-level 25 us calls (scripts/gpu-drain-probe.py; VARIANTS and
#       ROUNDS pass through); with SPIN_VAR, the shortest spin that removed the long level is
#       written into that plugin variant for a SPEEDAB after it.
#   PSTART: wave 11: where pytest.main goes before its first configure hook in one interpreter
#       (scripts/gpu-pytest-start-probe.py).
#   WORKER: wave 11: a float16 batch of 16 pointwise marks in the worker, twice with wave 10's
#       plugins (OLD_PLUGINS) and twice with these, alternating (ORDER: the batches, default
#       "old1 new1 old2 new2"): the wall outside each session.
#   SPEEDAB: wave 12: SPEED_OPS (default exp,sum,softmax) and arctan with the plugins before
#       a change (OLD_PLUGINS) and these, alternating (ORDER): the timer's cost per measurement.
#       Batches named other than old*/new* take the variant VAR_PLUGINS/<name less its digits>
#       (default .gpu/var/<name>).
#   SPEED: issue 25: the ops (SPEED_OPS, else OPS: default the 10 core ops) and arctan with every dtype in the
#       device's worker: the timer's wall per measurement, each op's wall and where it went.
#   SAMPLE: issue 25: N (default 40) marks drawn with SEED (default 25) from every mark of the
#       checkout, every dtype, in the device's worker: the mean wall per passing mark. PART=k/m
#       runs the k-th of m slices of the draw (a device call holds about 20 marks).
#   RSAMPLE: wave 9: SAMPLE replaying the newest earlier SAMPLE/RSAMPLE batch of the session
#       (--replay-from BATCH_DIR --replay-miss tune): a nightly sweep's steady state.
#   WARM: wave 8: the SAMPLE's draw compiled by WARM_K (default 4) batches at once, their tuner
#       caches thrown away, so that a SAMPLE after it measures a sweep with warm Triton caches.
#   INPUTS: wave 7: a worker batch with --draw-inputs device over conj_copy, two marks that
#       skip and four others (one worker must serve them all), then FlagGems' own CPU draws
#       for the two integer marks, and compare of the two draws per op.
# usage: scripts/gpu-wave.sh A|A2|AA|AAX|MM|B|S26|EVENTS|PROBE|PSTART|WORKER|SPEEDAB|SPEED|WARM|SAMPLE|RSAMPLE|INPUTS OUTDIR
#   A2: as A, every run on the same kernel configs (rounds and the fresh batch replay round 1's
#       merged winners), calibrate first; the fresh batch is compared with round 2.
# Environment: ZLBENCH, FLAGGEMS_DIR (as gpu-validate.sh), OPS (default the 10 core ops),
# DTYPES (default float16), DEADLINE_S (the phase's own time limit, default 540).
set -u
phase=$1 out=$2
: "${ZLBENCH:?}" "${FLAGGEMS_DIR:?}"
here=$(cd "$(dirname "$0")" && pwd)
OPS=${OPS:-abs,add,exp,relu,sum,softmax,layer_norm,mean,sigmoid,gelu}
DTYPES=${DTYPES:-float16}
start=$(date +%s)
deadline=$((start + ${DEADLINE_S:-540}))
mkdir -p "$out"
log() { echo "== $(date -u +%H:%M:%S) +$(( $(date +%s) - start ))s $*" | tee -a "$out/wave.log"; }
left() { echo $((deadline - $(date +%s))); }
# zl NAME ARGS...: one zlbench call under the phase's deadline, output saved, rc and wall logged
zl() {
	local name=$1 t0 rc lim
	shift
	lim=$(left)
	if [ "$lim" -le 5 ]; then
		log "$name skipped: the phase's deadline has passed"
		return 124
	fi
	t0=$(date +%s%N)
	timeout -s INT -k 15 "$lim" "$ZLBENCH" "$@" >"$out/$name.out" 2>"$out/$name.err"
	rc=$?
	log "$name rc=$rc wall=$(( ($(date +%s%N) - t0) / 1000000 ))ms: zlbench $*"
	return $rc
}
F="--flaggems-dir $FLAGGEMS_DIR --backend cuda"
export ZL_HOME="$out/home"

probe() {
	PYTHONPATH="$here/../plugins:${PYTHONPATH:-}" timeout 60 python3 "$here/gpu-kineto-probe.py" >"$out/probe.txt" 2>&1
	log "probe rc=$?: $(grep -E '^calls:' "$out/probe.txt")"
}
# calibrate: the 2-round A/A in the device's worker (round 2 replays round 1's winners)
calibrate() {
	zl cal calibrate $F --devices 0 --ops "$OPS" --runs 2 --start worker --out "$out/cal" -- --dtypes $DTYPES
	grep -E '^round |^rounds ' "$out/cal.err" | tee -a "$out/wave.log"
	sed -n '/^calibration/,$p' "$out/cal.out" | tee -a "$out/wave.log"
}
# compares [ROUND]: per op, the fresh batch against calibrate's ROUND (when given), and round 1
# against round 2 at the fixed floor (a history database that does not exist holds no
# calibration) and with the stored calibration; then the digest
compares() {
	for op in ${OPS//,/ }; do
		[ -n "${1:-}" ] &&
			ZL_HISTORY_DB="$out/none.db" zl "fw_$op" compare "$out/fresh/runs/$op" "$out/cal/$1/runs/$op" --json
		ZL_HISTORY_DB="$out/none.db" zl "aa_$op" compare "$out/cal/round-1/runs/$op" "$out/cal/round-2/runs/$op" \
			--json --fail-on-regression 5
		zl "aacal_$op" compare "$out/cal/round-1/runs/$op" "$out/cal/round-2/runs/$op" --json --fail-on-regression 5
	done
	python3 "$here/gpu-wave-digest.py" A "$out" "$OPS" | tee -a "$out/wave.log"
}
# mm_pair [COMPARE ARGS]: mm record -> replay -> compare at the 5 % gate
mm_pair() {
	zl mmA run $F --op mm --isolate-tuner-cache --out "$out/mmA" -- --dtypes $DTYPES
	zl mmB run $F --op mm --isolate-tuner-cache --replay-from "$out/mmA" --out "$out/mmB" -- --dtypes $DTYPES
	ZL_HISTORY_DB="$out/none.db" zl mmcmp compare "$out/mmA" "$out/mmB" "$@" --fail-on-regression 5
}

# plugins_of K: the plugins directory of batch K of WORKER and SPEEDAB: OLD_PLUGINS for old*,
# else this checkout's
plugins_of() {
	case $1 in
	old*) echo "${OLD_PLUGINS:?OLD_PLUGINS: a copy of the plugins before the change}" ;;
	new*) echo "$here/../plugins" ;;
	*)
		# VAR_PLUGINS/<name without its digits>: a variant of the plugins (wave 14)
		local d=${VAR_PLUGINS:-$here/../.gpu/var}/${1%%[0-9]*}
		[ -d "$d" ] || { echo "gpu-wave: no plugins for batch $1 ($d)" >&2; return 1; }
		echo "$d"
		;;
	esac
}

# draw: N marks drawn with SEED from every mark of the checkout into $out/sample.ops (PART=k/m:
# the k-th of m contiguous slices of the draw)
draw() {
	python3 - "$FLAGGEMS_DIR" "${SEED:-25}" "${N:-40}" >"$out/sample.ops" <<'PY'
import os, random, re, sys
root, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
builtin = {"parametrize", "skip", "skipif", "xfail", "usefixtures", "filterwarnings", "timeout",
           "tryfirst", "trylast"}
marks = set()
for d, _, files in os.walk(os.path.join(root, "benchmark")):
    for f in files:
        if f.startswith("test_") and f.endswith(".py"):
            marks |= set(re.findall(r"pytest\.mark\.(\w+)", open(os.path.join(d, f)).read())) - builtin
print("\n".join(sorted(random.Random(seed).sample(sorted(marks), n))))
PY
	local k m total
	if [ -n "${PART:-}" ]; then
		# PART=k/m: the k-th of m contiguous slices of the draw (one device call each)
		k=${PART%/*} m=${PART#*/} total=$(wc -l <"$out/sample.ops")
		awk -v k="$k" -v m="$m" -v n="$total" 'NR > int((k - 1) * n / m) && NR <= int(k * n / m)' \
			"$out/sample.ops" >"$out/sample.part" && mv "$out/sample.part" "$out/sample.ops"
	fi
}

case $phase in
A)
	probe
	zl fresh batch $F --devices 0 --ops "$OPS" --start fresh --progress plain --out "$out/fresh" -- --dtypes $DTYPES
	calibrate
	compares round-1
	;;
A2)
	# as A, with every run on the same kernel configs: calibrate first (round 2 replays round
	# 1's winners, merged in cal/records), then the fresh batch replaying the same records
	probe
	calibrate
	zl fresh batch $F --devices 0 --ops "$OPS" --start fresh --replay-from "$out/cal/records" --progress plain \
		--out "$out/fresh" -- --dtypes $DTYPES
	compares round-2
	;;
AA)
	calibrate
	compares
	;;
AAX)
	OPS=${OPS_X:-rsqrt,tanh,erf,div_tensor,addcmul,where_self,index_select,var_mean,cumprod,clamp}
	calibrate
	compares
	;;
MM)
	mm_pair
	sed -n '1,60p' "$out/mmcmp.out" | tee -a "$out/wave.log"
	;;
B)
	mm_pair --json
	zl abAA ab $F --op abs --out "$out/abAA" --json -- --dtypes $DTYPES
	old=${PROD_BEFORE_4618:-$here/../.gpu/prod_before_4618.py}
	fgB="$(dirname "$FLAGGEMS_DIR")/$(basename "$FLAGGEMS_DIR")-prod-before-4618"
	rm -rf "$fgB" && cp -a "$FLAGGEMS_DIR" "$fgB" && cp "$old" "$fgB/src/flag_gems/ops/prod.py" &&
		zl abProd ab $F --op prod --b-flaggems-dir "$fgB" --out "$out/abProd" --json -- --dtypes $DTYPES
	python3 "$here/gpu-wave-digest.py" B "$out" | tee -a "$out/wave.log"
	;;
S26)
	t0=$(date +%s%N)
	"$ZLBENCH" run $F --op div >"$out/div.out" 2>"$out/div.err"
	log "div rc=$? wall=$(( ($(date +%s%N) - t0) / 1000000 ))ms: $(grep -o "test_div.py has no mark 'div'[^;]*" "$out/div.err" | head -1)"
	zl gcd run $F --op gcd --out "$out/gcd" -- --dtypes float16
	log "gcd: $(grep -E '^status:' "$out/gcd.err")"
	zl skipb batch $F --devices 0 --ops add,gcd,bitwise_and_tensor --start worker --progress plain --out "$out/skipb" -- --dtypes float16
	grep -E "^[0-9]+ operators|^skipped" "$out/skipb.out" "$out/skipb.err" | tee -a "$out/wave.log"
	zl emb run $F --op embedding --out "$out/emb"
	ZL_HISTORY_DB="$out/none.db" zl embcmp compare "$out/emb" "$out/emb" --json
	python3 - "$out" <<'PY' | tee -a "$out/wave.log"
import json, sys
try:
    d = json.load(open(sys.argv[1] + "/embcmp.out"))
except (OSError, ValueError) as e:
    sys.exit("embedding: no compare JSON (%s)" % e)
un = [w for w in d.get("warnings", []) if "match no results row" in w]
print("embedding: %d rows, rows with samples %s of A; unmatched warning: %s; dtypes %s" % (
    len(d["rows"]), d["a"].get("rows_with_samples"), un[0] if un else "none",
    sorted({r["dtype"] for r in d["rows"]})))
PY
	"$ZLBENCH" completion --list-ops --flaggems-dir "$FLAGGEMS_DIR" >"$out/marks.txt"
	zl dry batch $F --ops-file "$out/marks.txt" --dry-run
	log "dry run: $(wc -l <"$out/marks.txt") marks: $(grep -m1 'operators resolved' "$out/dry.out" "$out/dry.err" | head -1)"
	;;
EVENTS)
	# wave 10: what a window records a call, and what its stop and read cost
	PYTHONPATH="$here/../plugins:$FLAGGEMS_DIR/src:${PYTHONPATH:-}" timeout "$(left)" python3 "$here/gpu-event-count.py" ${EVENT_CALLS:-100} \
		>"$out/events.txt" 2>&1
	log "events rc=$?"
	cat "$out/events.txt" | tee -a "$out/wave.log"
	;;
PROBE)
	# wave 11: the per-call costs (flush size, recorded scope, the wait) and what they change
	PYTHONPATH="$here/../plugins:$FLAGGEMS_DIR/src:${PYTHONPATH:-}" timeout "$(left)" python3 "$here/gpu-call-probe.py" "${ROUNDS:-3}" \
		>"$out/probe.txt" 2>&1
	log "probe rc=$?"
	cat "$out/probe.txt" | tee -a "$out/wave.log"
	;;
DRAIN)
	# wave 15: a spin after the flush against torch's two-level 25 us calls (and fill_ as the
	# flush); with SPIN_VAR set, the spin of the shortest length that removed the long level
	# is written into that plugin variant's zl_device.py (SPIN_US = ...) for a SPEEDAB after it
	PYTHONPATH="$here/../plugins:$FLAGGEMS_DIR/src:${PYTHONPATH:-}" timeout "$(left)" python3 "$here/gpu-drain-probe.py" "${ROUNDS:-3}" \
		>"$out/drain.txt" 2>&1
	log "drain probe rc=$?"
	cat "$out/drain.txt" | tee -a "$out/wave.log"
	best=$(awk '$1 == "best_spin" { print $2 }' "$out/drain.txt")
	if [ -n "${SPIN_VAR:-}" ] && [ -n "$best" ] && [ "$best" != none ]; then
		sed -i "s/^SPIN_US = .*/SPIN_US = $best/" "$SPIN_VAR/zl_device.py"
		log "spin variant $SPIN_VAR: $(grep '^SPIN_US' "$SPIN_VAR/zl_device.py")"
	fi
	;;
PSTART)
	# wave 11: where a worker op's pytest.main goes before its first configure hook
	(cd "$FLAGGEMS_DIR" && PYTHONPATH="$here/../plugins:$FLAGGEMS_DIR/src:${PYTHONPATH:-}" timeout "$(left)" \
		python3 "$here/gpu-pytest-start-probe.py" 4) >"$out/pstart.txt" 2>&1
	log "pstart rc=$?"
	cat "$out/pstart.txt" | tee -a "$out/wave.log"
	;;
WORKER)
	# wave 11: the worker's heap kept frozen from op to op against wave 10's plugins
	# (OLD_PLUGINS, a copy of them): the same batch twice each, alternating, and per batch the
	# mean wall an op spent outside its pytest session and the worker's collections
	ops=${OPS_W:-abs,add,exp,relu,sigmoid,gelu,sign,frac_,i0_,xor,arcsin_,arctanh_out,special_log1p,multiply_,smooth_l1_loss,hardswish_out}
	for k in ${ORDER:-old1 new1 old2 new2}; do
		dir=$(plugins_of "$k") || exit 1
		ZL_PLUGINS_DIR=$dir zl "w_$k" batch $F --devices 0 --ops "$ops" --start worker --progress plain \
			--timeout-per-op 120 --out "$out/$k" -- --dtypes float16
		python3 - "$out/$k" "$k" <<'PY' | tee -a "$out/wave.log"
import json, re, statistics, sys
d, k = sys.argv[1], sys.argv[2]
ops = [o for o in json.load(open(d + "/costs.json"))["ops"] if o["status"] == "passed"]
logs = open(d + "/workers/0.1.log").read() if __import__("os").path.exists(d + "/workers/0.1.log") else ""
col = [float(x) for x in re.findall(r"of which its collection ([0-9.]+) s", logs)]
main = dict(re.findall(r"/runs/([^)]+)\): pytest status \d+, [0-9.]+ s \(pytest\.main ([0-9.]+) s", logs))
whole = logs.count("the whole heap")
print("%s: %d passed; outside the session: mean %.3f s, median %.3f s; wall mean %.3f s; "
      "collections mean %.3f s (%d of the whole heap of %d); pytest.main - session mean %.3f s" % (
      k, len(ops), statistics.mean(o["outside_s"] for o in ops) if ops else 0,
      statistics.median(o["outside_s"] for o in ops) if ops else 0,
      statistics.mean(o["wall_s"] for o in ops) if ops else 0,
      statistics.mean(col) if col else 0, whole, len(col),
      statistics.mean(float(main[o["op"]]) - o["session_s"] for o in ops if o["op"] in main)
      if any(o["op"] in main for o in ops) else 0))
PY
	done
	;;
SPEEDAB)
	# wave 12: a timer change against the plugins before it (OLD_PLUGINS, a copy of them):
	# SPEED_OPS and arctan, every dtype, in the worker, alternating (ORDER, default
	# "old1 new1 old2 new2"); the first batch compiles
	ops=${SPEED_OPS:-exp,sum,softmax}
	for k in ${ORDER:-old1 new1 old2 new2}; do
		dir=$(plugins_of "$k") || exit 1
		mkdir -p "$out/$k"
		ZL_PLUGINS_DIR=$dir zl "s_$k" batch $F --devices 0 --ops "$ops,arctan" \
			--start worker --progress plain --timeout-per-op "${TIMEOUT_PER_OP:-240}" --out "$out/$k/speed"
		echo "==== $k ($dir)" | tee -a "$out/wave.log"
		python3 "$here/gpu-wave-digest.py" SPEED "$out/$k" "$ops" | tee -a "$out/wave.log"
	done
	;;
SPEED)
	# SPEED_OPS, when set, names SPEED's ops alone: OPS=exp,sum for SPEED also cut a later AA's
	# calibrate to those two ops (waves 14 and 15)
	ops=${SPEED_OPS:-$OPS}
	zl speed batch $F --devices 0 --ops "$ops,arctan" --start worker --progress plain \
		--timeout-per-op "${TIMEOUT_PER_OP:-240}" --out "$out/speed"
	python3 "$here/gpu-wave-digest.py" SPEED "$out" "$ops" | tee -a "$out/wave.log"
	;;
WARM)
	# the sample's compiles, WARM_K (default 4) batches at once on the one device, each its own
	# worker, so that the SAMPLE after it meets warm Triton caches (a nightly sweep's steady
	# state) in a fraction of a cold pass's wall. Autotuning under that contention would pick
	# the wrong configs: the tuner caches of these batches are thrown away (FLAGGEMS_CACHE_DIR),
	# so the SAMPLE after it still tunes, on its own, from Triton's warm cache. WARM_TIMEOUT
	# (default half the phase's deadline): wave 8 gave each op 280 s of a 300 s phase, and two
	# batches spent it all on one long compile, leaving 13 marks of theirs unwarmed.
	draw
	k=${WARM_K:-4}
	for i in $(seq 1 "$k"); do
		awk -v i="$i" -v k="$k" '(NR - 1) % k == i - 1' "$out/sample.ops" >"$out/warm_$i.ops"
		ZL_HOME="$out/home-$i" FLAGGEMS_CACHE_DIR="$out/tuners-$i" zl "warm_$i" batch $F --devices 0 --ops-file "$out/warm_$i.ops" \
			--start worker --progress plain --timeout-per-op "${WARM_TIMEOUT:-$((${DEADLINE_S:-540} / 2))}" --out "$out/warm_$i" &
	done
	wait
	rm -rf "$out"/tuners-*
	for i in $(seq 1 "$k"); do
		log "warm_$i: $(tail -n +2 "$out/warm_$i/ops_status.csv" 2>/dev/null | cut -d, -f1,2 | tr '\n' ' ')"
	done
	;;
SAMPLE)
	draw
	log "sample: $(wc -l <"$out/sample.ops") marks, seed ${SEED:-25}${PART:+, part $PART}: $(tr '\n' ' ' <"$out/sample.ops")"
	zl sample batch $F --devices 0 --ops-file "$out/sample.ops" --start worker --progress plain \
		--timeout-per-op "${TIMEOUT_PER_OP:-150}" --out "$out/sample"
	python3 "$here/gpu-wave-digest.py" SAMPLE "$out" | tee -a "$out/wave.log"
	;;
RSAMPLE)
	# wave 9: SAMPLE as a nightly sweep after the first: it replays the winners of the newest
	# sample batch of this session (--replay-from BATCH_DIR) and tunes only the keys that one
	# lacks (--replay-miss tune)
	last=$(ls -t "$(dirname "$out")"/*/sample/batch.json 2>/dev/null | grep -v "^$out/" | head -1)
	if [ -z "$last" ]; then
		log "RSAMPLE: no earlier sample batch to replay"
		exit 1
	fi
	draw
	log "sample: $(wc -l <"$out/sample.ops") marks, seed ${SEED:-25}, replaying $(dirname "$last")"
	zl sample batch $F --devices 0 --ops-file "$out/sample.ops" --start worker --progress plain \
		--timeout-per-op "${TIMEOUT_PER_OP:-150}" --replay-from "$(dirname "$last")" --replay-miss tune \
		--out "$out/sample"
	python3 "$here/gpu-wave-digest.py" SAMPLE "$out" | tee -a "$out/wave.log"
	;;
INPUTS)
	# the worker serves on after a skip and after conj_copy (its LibTuner is reset); integer
	# inputs drawn on the device against FlagGems' CPU draws: the cost, and whether the
	# kernel times move (compare refuses the pair, so --allow-caliber-mismatch)
	ZL_DRAW_INPUTS=device zl dev batch $F --devices 0 --start worker --progress plain --timeout-per-op 120 \
		--ops conj_copy,upsample_bicubic2d,fused_marlin_moe,floor_divide_tensor_,bitwise_xor_scalar,gelu,xor \
		--out "$out/dev"
	zl cpu batch $F --devices 0 --start worker --progress plain --timeout-per-op 150 \
		--ops floor_divide_tensor_,bitwise_xor_scalar --out "$out/cpu"
	for op in floor_divide_tensor_ bitwise_xor_scalar; do
		ZL_HISTORY_DB="$out/none.db" zl "refuse_$op" compare "$out/cpu/runs/$op" "$out/dev/runs/$op"
		log "refuse_$op: $(grep -m1 'caliber mismatch' "$out/refuse_$op.err")"
		ZL_HISTORY_DB="$out/none.db" zl "cmp_$op" compare "$out/cpu/runs/$op" "$out/dev/runs/$op" \
			--allow-caliber-mismatch --json
	done
	python3 "$here/gpu-wave-digest.py" INPUTS "$out" | tee -a "$out/wave.log"
	;;
*)
	echo "usage: scripts/gpu-wave.sh A|A2|AA|AAX|MM|B|S26|EVENTS|PROBE|PSTART|WORKER|SPEEDAB|SPEED|WARM|SAMPLE|RSAMPLE|INPUTS OUTDIR" >&2
	exit 2
	;;
esac
log "phase $phase done"
