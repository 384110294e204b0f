#!/usr/bin/env python3
"""The figures of scripts/gpu-wave.sh's phases, printed goal beside measurement.

usage: gpu-wave-digest.py A OUTDIR OPS | gpu-wave-digest.py B OUTDIR
Reads only what the phase left in OUTDIR (run directories, compare/ab JSON, wave.log)."""
import csv
import glob
import json
import os
import re
import statistics
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except Exception:
        return None


def timer_rows(run):
    path = os.path.join(run, "plugins", "timer.jsonl")
    if not os.path.exists(path):
        return []
    return [json.loads(line) for line in open(path) if line.strip()]


def wave_wall(out, name):
    """The wall time (s) gpu-wave.sh logged for one zlbench call."""
    for line in open(os.path.join(out, "wave.log")):
        m = re.search(r" %s rc=(-?\d+) wall=(\d+)ms" % re.escape(name), line)
        if m:
            return int(m.group(2)) / 1000.0, int(m.group(1))
    return None, None


def verdicts(doc, side=None):
    counts = {}
    for r in (doc or {}).get("rows", []):
        if side and r.get("side") != side:
            continue
        counts[r.get("verdict")] = counts.get(r.get("verdict"), 0) + 1
    return counts


def size_class(ms):
    us = ms * 1000.0
    return "<5us" if us < 5 else "5-50us" if us < 50 else "50-500us" if us < 500 else ">=500us"


def batch_figures(name, batch, ops, makespan, startup_hint):
    rows = {}
    path = os.path.join(batch, "ops_status.csv")
    if os.path.exists(path):
        rows = {r["op"]: r for r in csv.DictReader(open(path, newline=""))}
    walls = {op: sum(r.get("wall_s") or 0 for r in timer_rows(os.path.join(batch, "runs", op))) for op in ops}
    timers = sum(walls.values())
    ev = os.path.join(batch, "workers", "events.jsonl")
    ready = [json.loads(l).get("wall_s") for l in open(ev) if '"ready"' in l] if os.path.exists(ev) else []
    beyond = [float(rows[op]["wall_s"]) - walls[op] for op in ops if op in rows and rows[op].get("wall_s")]
    startup = ready[0] if ready else (min(beyond) if beyond else startup_hint)
    ratio = makespan / (timers + startup) if makespan and timers + startup else float("nan")
    passed = sum(1 for op in ops if rows.get(op, {}).get("status") == "passed")
    print("%s: %d/%d passed; makespan %.1f s; timers' wall %.1f s; one start-up %.1f s (%s); "
          "makespan / (timers + one start-up) = %.2f (goal <= 1.3)" % (
              name, passed, len(ops), makespan or float("nan"), timers, startup,
              "worker ready" if ready else "smallest op wall minus its timers", ratio))
    for op in ops:
        r = rows.get(op, {})
        print("  %-11s %-8s start %-7s ops_before %-3s wall %6.1f s  timers %6.1f s" % (
            op, r.get("status", "-"), r.get("start", "-"), r.get("ops_before", "-"),
            float(r.get("wall_s") or 0), walls[op]))
    return timers


def phase_a(out, ops):
    if os.path.exists(os.path.join(out, "probe.txt")):
        probe_and_batches(out, ops)
    a_a(out, ops)


def probe_and_batches(out, ops):
    print("---- probe")
    for line in open(os.path.join(out, "probe.txt")):
        if line.startswith(("calls:", "clock:", "torch")):
            print("  " + line.rstrip())
    print("---- issue 15: fresh batch vs worker batch (calibrate round 1)")
    fresh_wall, _ = wave_wall(out, "fresh")
    worker_wall = None
    for line in open(os.path.join(out, "cal.err")):
        m = re.match(r"round 1/\d+: .*\(batch exit (-?\d+), ([0-9.]+) s\)", line)
        if m:
            worker_wall = float(m.group(2))
    t_fresh = batch_figures("fresh", os.path.join(out, "fresh"), ops, fresh_wall, 0)
    t_worker = batch_figures("worker", os.path.join(out, "cal", "round-1"), ops, worker_wall, 0)
    if fresh_wall and worker_wall:
        print("worker makespan / fresh makespan = %.2f" % (worker_wall / fresh_wall))
    print("compare fresh (A) vs worker (B: round 1 in phase A, round 2 in A2), fixed floor, per op (all rows):")
    for op in ops:
        d = load(os.path.join(out, "fw_%s.out" % op))
        rs = [r["ratio"] for r in (d or {}).get("rows", []) if isinstance(r.get("ratio"), (int, float))]
        print("  %-11s %s; B/A %s" % (op, verdicts(d), "%.3f..%.3f" % (min(rs), max(rs)) if rs else "-"))


def a_a(out, ops):
    for label, prefix in (("fixed 5 % floor", "aa_"), ("the stored calibration", "aacal_")):
        print("---- issue 13: A/A, calibrate round 1 vs round 2, %s" % label)
        total = flagged = gate_fail = 0
        counts = {}
        for op in ops:
            d = load(os.path.join(out, "%s%s.out" % (prefix, op)))
            if d is None:
                print("  %-11s no compare" % op)
                continue
            v = verdicts(d)
            for k, n in v.items():
                counts[k] = counts.get(k, 0) + n
            n = sum(v.values())
            f = v.get("faster", 0) + v.get("slower", 0)
            total += n
            flagged += f
            g = (d.get("gate") or {}).get("failed")
            gate_fail += bool(g)
            geo = ((d.get("geomean") or {}).get("overall") or {})
            print("  %-11s %2d rows: %s; gems geomean %s; gate %s; floor %s" % (
                op, n, ", ".join("%s %d" % kv for kv in sorted(v.items())),
                "%.4f [%.4f, %.4f]" % (geo["geomean"], geo["ci_low"], geo["ci_high"]) if geo.get("geomean") else "-",
                "FAILED" if g else "passed", (d.get("floor") or {}).get("summary", "-")[:60]))
        print("  rows flagged faster/slower: %d of %d = %.2f %% (goal <= 1 %%); gate failures at 5 %%: %d of %d ops (goal 0); verdicts %s" % (
            flagged, total, 100.0 * flagged / total if total else float("nan"), gate_fail, len(ops), counts))
        if prefix == "aa_":
            # the rows whose calls ran other kernels in round 2 than in round 1 (issue 25: bmm)
            for op in ops:
                for r in (load(os.path.join(out, "aa_%s.out" % op)) or {}).get("rows", []):
                    if r.get("a_kernels") or len(ops) == 1:
                        print("    %s %s %s %s: B/A %s %s, clock %s/%s MHz, samples %s/%s, kernels %s -> %s" % (
                            op, r.get("side"), r.get("dtype"), r.get("shape"), r.get("ratio"), r.get("verdict"),
                            r.get("a_clock_mhz"), r.get("b_clock_mhz"), r.get("a_samples"), r.get("b_samples"),
                            (r.get("a_kernels") or "same")[:120], (r.get("b_kernels") or "same")[:120]))
    print("---- the profiler timer in calibrate round 1 (all ops)")
    rows = []
    for op in ops:
        rows += timer_rows(os.path.join(out, "cal", "round-1", "runs", op))
    used = {}
    stops = {}
    for r in rows:
        used[r.get("timer")] = used.get(r.get("timer"), 0) + 1
        stops[r.get("stop_reason")] = stops.get(r.get("stop_reason"), 0) + 1
    print("  measurements %d; timer used %s; stop reasons %s" % (len(rows), used, stops))
    big = [r["noise_rel"] for r in rows if r.get("noise_rel") is not None and (r.get("estimate_ms") or 0) >= 0.005]
    if big:
        print("  median noise_rel of kernels >= 5 us: %.4f %% over %d measurements (goal <= 0.5 %%); max %.4f %%" % (
            100 * statistics.median(big), len(big), 100 * max(big)))
    by = {}
    for r in rows:
        if r.get("noise_rel") is not None and r.get("estimate_ms"):
            by.setdefault(size_class(r["estimate_ms"]), []).append(r["noise_rel"])
    for k in ("<5us", "5-50us", "50-500us", ">=500us"):
        if k in by:
            print("  %-9s noise_rel median %.4f %% (n=%d)" % (k, 100 * statistics.median(by[k]), len(by[k])))
    kpc = {}
    for r in rows:
        kpc[r.get("kernels_per_call")] = kpc.get(r.get("kernels_per_call"), 0) + 1
    clocks = [r["clock_mhz"] for r in rows if r.get("clock_mhz")]
    print("  kernels_per_call %s; dropped_throttled %d; SM clock %s MHz" % (
        kpc, sum(r.get("dropped_throttled") or 0 for r in rows),
        "%d..%d of %d" % (min(c["min"] for c in clocks), max(c["max"] for c in clocks), clocks[0]["max_supported"]) if clocks else "unknown"))
    fb = [r.get("fallback_reason") for r in rows if r.get("fallback_reason")]
    if fb:
        print("  fallbacks: %d: %s" % (len(fb), "; ".join(sorted(set(fb)))[:400]))


def ab_digest(name, d):
    if d is None:
        print("  %s: no JSON" % name)
        return
    rows = d.get("rows", [])
    v = {}
    for r in rows:
        v[r.get("verdict")] = v.get(r.get("verdict"), 0) + 1
    print("  %s: status %s, order %s; verdicts %s" % (name, d.get("status"), d.get("order"), v))
    geo = ((d.get("geomean") or {}).get("overall") or {}) if isinstance(d.get("geomean"), dict) else {}
    if geo.get("geomean"):
        print("    gems geomean B/A %.4f [%.4f, %.4f]" % (geo["geomean"], geo["ci_low"], geo["ci_high"]))
    for r in rows:
        if r.get("side") == "gems":
            print("    %-15s %-28s B/A %7.3f [%s, %s] pairs %s  %s" % (
                r.get("dtype"), r.get("shape"), r.get("ratio") or 0,
                "%.3f" % r["ci_low"] if r.get("ci_low") else "-", "%.3f" % r["ci_high"] if r.get("ci_high") else "-",
                " ".join("%.3f" % x for x in r.get("pairs") or []), r.get("verdict")))


def phase_b(out):
    print("---- issue 13: mm record -> replay")
    for name in ("mmA", "mmB"):
        wall, rc = wave_wall(out, name)
        ident = load(os.path.join(out, name, "run_identity.json")) or {}
        at = ident.get("autotune") or {}
        t = ident.get("timer") or {}
        print("  %s rc %s wall %s s: status %s; autotune recorded %s pinned %s missed %s; compile %s; timer used %s" % (
            name, rc, wall, ident.get("status"), at.get("recorded"), at.get("pinned"), at.get("missed"),
            (ident.get("compile") or {}).get("variants"), t.get("used")))
    d = load(os.path.join(out, "mmcmp.out"))
    if d:
        geo = (d.get("geomean") or {}).get("overall") or {}
        print("  compare mmA mmB: verdicts %s; gems geomean %s; gate at 5 %%: %s (goal: passed)" % (
            verdicts(d), "%.4f [%.4f, %.4f]" % (geo["geomean"], geo["ci_low"], geo["ci_high"]) if geo.get("geomean") else "-",
            "FAILED" if (d.get("gate") or {}).get("failed") else "passed"))
        for r in d.get("rows", []):
            print("    %-5s %-18s %-30s B/A %.4f [%.4f, %.4f] %s" % (
                r.get("side"), r.get("op"), r.get("shape"), r.get("ratio") or 0, r.get("ci_low") or 0,
                r.get("ci_high") or 0, r.get("verdict")))
    print("---- issue 14: ab")
    ab_digest("A/A abs", load(os.path.join(out, "abAA.out")))
    ab_digest("prod: FlagGems (A) vs prod.py before #4618 (B)", load(os.path.join(out, "abProd.out")))
    for name in ("abAA", "abProd"):
        wall, rc = wave_wall(out, name)
        print("  %s rc %s wall %s s" % (name, rc, wall))


def quantile(values, q):
    v = sorted(values)
    if not v:
        return float("nan")
    return v[min(len(v) - 1, int(q * (len(v) - 1) + 0.5))]


def op_costs(batch, op):
    """(ops_status row, timer.jsonl rows, timer_summary cost) of one op of a batch."""
    rows = {}
    path = os.path.join(batch, "ops_status.csv")
    if os.path.exists(path):
        rows = {r["op"]: r for r in csv.DictReader(open(path, newline=""))}
    run = os.path.join(batch, "runs", op)
    summary = load(os.path.join(run, "plugins", "timer_summary.json")) or {}
    return rows.get(op, {}), timer_rows(run), summary.get("cost") or {}


def cost_line(op, st, cost, recs):
    wall = float(st.get("wall_s") or "nan")
    parts = " ".join("%s %.1f" % (k.replace("_s", ""), cost[k]) for k in
                     ("collection_s", "inputs_s", "first_call_s", "timer_s", "use_gems_s", "other_s")
                     if cost.get(k) is not None)
    return "  %-22s %-8s wall %6.1f s  session %s  [%s]  %d measurements" % (
        op, st.get("status", "-"), wall, "%.1f" % cost["session_s"] if cost.get("session_s") else "-",
        parts, len(recs))


def worker_events(batch):
    ev = os.path.join(batch, "workers", "events.jsonl")
    out = []
    if os.path.exists(ev):
        for line in open(ev):
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if d.get("event") not in ("ready",):
                out.append(d)
    return out


def timer_figures(recs, label):
    t = [r["timer_s"] for r in recs if r.get("timer_s") is not None]
    print("  %s: %d measurements; timer wall per measurement median %.3f s (goal <= 0.1), p90 %.3f s "
          "(goal <= 0.3), max %.3f s; first calls %.1f s in all" % (
              label, len(t), statistics.median(t) if t else float("nan"), quantile(t, 0.9),
              max(t) if t else float("nan"), sum(r.get("first_call_s") or 0 for r in recs)))
    # the profiler's split, and its stop and parse per session and per call (wave 8: stop_s)
    split = {}
    calls = sessions = 0
    for r in recs:
        if r.get("timer") != "profiler":
            continue
        calls += r.get("profiler_calls") or 0
        sessions += r.get("profiler_batches") or 0
        for k, v in (r.get("cost") or {}).items():
            split[k] = split.get(k, 0.0) + (v or 0.0)
    if calls:
        print("  profiler split: %s over %d sessions and %d calls" % (
            ", ".join("%s %.1f s" % kv for kv in sorted(split.items())), sessions, calls))
    by = {}
    for r in recs:
        if r.get("estimate_ms") and r.get("timer_s") is not None:
            by.setdefault(size_class(r["estimate_ms"]), []).append(r)
    for k in ("<5us", "5-50us", "50-500us", ">=500us"):
        if k in by:
            rs = by[k]
            noise = [x["noise_rel"] for x in rs if x.get("noise_rel") is not None]
            print("    %-9s n=%-4d timer median %.3f p90 %.3f s; noise_rel median %.3f %%; windows %s; "
                  "cut>0 %d; steady false %d; time_cap %d" % (
                      k, len(rs), statistics.median(x["timer_s"] for x in rs),
                      quantile([x["timer_s"] for x in rs], 0.9),
                      100 * statistics.median(noise) if noise else float("nan"),
                      "%.1f" % statistics.mean(x.get("profiler_batches") or 0 for x in rs),
                      sum(1 for x in rs if (x.get("transient_cut") or 0) > 0),
                      sum(1 for x in rs if x.get("steady") is False),
                      sum(1 for x in rs if x.get("stop_reason") == "time_cap")))
    big = [r["noise_rel"] for r in recs if r.get("noise_rel") is not None and (r.get("estimate_ms") or 0) >= 0.005]
    if big:
        print("  median noise_rel of kernels >= 5 us: %.3f %% (goal <= 0.5 %%), max %.3f %%, n=%d" % (
            100 * statistics.median(big), 100 * max(big), len(big)))
    # the timer's wall by the timer that took each row (wave 17: the direct timer's backward
    # rows were half of a sweep's timer)
    per = {}
    for r in recs:
        if r.get("timer_s") is not None:
            per.setdefault(r.get("timer"), []).append(r["timer_s"])
    print("  timer wall by timer: %s" % "; ".join(
        "%s %d rows %.1f s (median %.3f, p90 %.3f s)" % (k, len(v), sum(v), statistics.median(v),
                                                          quantile(v, 0.9))
        for k, v in sorted(per.items(), key=lambda kv: -sum(kv[1]))))
    used, stops = {}, {}
    for r in recs:
        used[r.get("timer")] = used.get(r.get("timer"), 0) + 1
        stops[r.get("stop_reason")] = stops.get(r.get("stop_reason"), 0) + 1
    print("  timers %s; stops %s; dropped_throttled %d; kernel variants > 1: %d" % (
        used, stops, sum(r.get("dropped_throttled") or 0 for r in recs),
        sum(1 for r in recs if (r.get("kernel_variants") or 0) > 1)))
    fb = sorted({r.get("fallback_reason") for r in recs if r.get("fallback_reason")})
    if fb:
        print("  fallbacks: %s" % "; ".join(fb)[:600])


def phase_speed(out, ops):
    batch = os.path.join(out, "speed")
    print("---- issue 25: the timer's wall, the 10 core ops and arctan, every dtype, worker")
    core = []
    for op in ops + ["arctan"]:
        st, recs, cost = op_costs(batch, op)
        print(cost_line(op, st, cost, recs))
        if op in ops:
            core += recs
    timer_figures(core, "the %d ops" % len(ops))
    st, recs, cost = op_costs(batch, "arctan")
    if st.get("wall_s") and cost.get("timer_s") is not None:
        wall = float(st["wall_s"])
        print("  arctan: wall %.1f s (goal <= 8; 31.8 s with 85c077e), timer %.1f s = %.0f %% of it (goal <= 25 %%)" % (
            wall, cost["timer_s"], 100 * cost["timer_s"] / wall))
        timer_figures(recs, "arctan")
    for e in worker_events(batch):
        print("  worker event: %s" % json.dumps(e)[:400])


def device_of(batch):
    """The device the batch's runs name (run_identity.json), not the one this script was
    written for: wave 13's sweeps ran on an H100."""
    for ident in sorted(glob.glob(os.path.join(batch, "runs", "*", "run_identity.json"))):
        try:
            devs = json.load(open(ident)).get("devices") or []
        except (OSError, ValueError):
            continue
        if devs and devs[0].get("name"):
            return devs[0]["name"]
    return "device (no run names it)"


def phase_sample(out):
    batch = os.path.join(out, "sample")
    ops = [l.strip() for l in open(os.path.join(out, "sample.ops")) if l.strip()]
    print("---- issue 25: %d marks drawn at random, every dtype, worker" % len(ops))
    walls, passed, recs, tot = [], 0, [], {}
    lines = []
    for op in ops:
        st, r, cost = op_costs(batch, op)
        lines.append((float(st.get("wall_s") or 0), cost_line(op, st, cost, r)))
        recs += r
        if st.get("status") == "passed":
            passed += 1
            walls.append(float(st.get("wall_s") or 0))
        for k, v in cost.items():
            if v is not None:
                tot[k] = tot.get(k, 0.0) + v
    for _, line in sorted(lines, reverse=True):
        print(line)
    statuses = {}
    for op in ops:
        s = op_costs(batch, op)[0].get("status", "-")
        statuses[s] = statuses.get(s, 0) + 1
    mean = statistics.mean(walls) if walls else float("nan")
    print("  statuses %s; mean wall per passing mark %.1f s -> 1,055 marks %.2f h on one %s (goal <= 2 h)" % (
        statuses, mean, mean * 1055 / 3600, device_of(batch)))
    # the stricter figure: every mark that ended, timeouts and skips included (wave 9)
    ended = [float(op_costs(batch, op)[0].get("wall_s") or 0) for op in ops
             if op_costs(batch, op)[0].get("status") not in (None, "-")]
    if ended:
        every = statistics.mean(ended)
        print("  every mark that ended: %d, mean wall %.1f s -> 1,055 marks %.2f h (%d not run)" % (
            len(ended), every, every * 1055 / 3600, len(ops) - len(ended)))
    print("  cost over the sample: %s" % ", ".join("%s %.0f s" % kv for kv in sorted(tot.items())))
    timer_figures(recs, "the sample")
    # wave 9: what the tuners did (a replaying sweep pins the last one's winners, tunes the rest)
    at, tuned = {}, []
    for op in ops:
        a = (load(os.path.join(batch, "runs", op, "run_identity.json")) or {}).get("autotune") or {}
        for k in ("recorded", "pinned", "missed", "tuned_on_miss"):
            if isinstance(a.get(k), int):
                at[k] = at.get(k, 0) + a[k]
        if a.get("tuned_on_miss"):
            tuned.append("%s %d" % (op, a["tuned_on_miss"]))
    print("  autotune over the sample: %s; tuned on a miss: %s" % (
        ", ".join("%s %d" % kv for kv in sorted(at.items())), ", ".join(tuned) or "none"))
    ev = worker_events(batch)
    starts = sum(1 for e in ev if e.get("event") in ("start", "started", "spawn"))
    print("  worker events: %d (ops %d)" % (len(ev), len(ops)))
    for e in ev:
        print("    %s" % json.dumps(e)[:400])


def phase_inputs(out):
    """Wave 7: one worker over the device-drawn batch; what FlagGems' CPU draws cost; the
    kernel times of the two draws compared per op."""
    dev, cpu = os.path.join(out, "dev"), os.path.join(out, "cpu")
    print("---- wave 7: --draw-inputs device, and a worker that serves on after skips and conj_copy")
    rows = {}
    path = os.path.join(dev, "ops_status.csv")
    if os.path.exists(path):
        rows = {r["op"]: r for r in csv.DictReader(open(path, newline=""))}
    for op in rows:
        st, recs, cost = op_costs(dev, op)
        ident = load(os.path.join(dev, "runs", op, "run_identity.json")) or {}
        start = ident.get("start") or {}
        print(cost_line(op, st, cost, recs) + "  ops_before %s retired %s; inputs %s" % (
            start.get("ops_before"), start.get("retired_after"), json.dumps(ident.get("inputs"))[:160]))
    ev = worker_events(dev)
    print("  workers started: %d for %d ops (goal: 1)" % (
        sum(1 for e in ev if e.get("event") == "started"), len(rows)))
    for op in ("floor_divide_tensor_", "bitwise_xor_scalar"):
        a, _, ca = op_costs(cpu, op)
        b, _, cb = op_costs(dev, op)
        d = load(os.path.join(out, "cmp_%s.out" % op)) or {}
        geo = (d.get("geomean") or {}).get("overall") or {}
        vs = verdicts(d)
        print("  %-22s FlagGems' draws: wall %s s, inputs %s s; device draws: wall %s s, inputs %s s; "
              "kernel times device/CPU draws: geomean %s, verdicts %s" % (
                  op, a.get("wall_s"), ca.get("inputs_s"), b.get("wall_s"), cb.get("inputs_s"),
                  "%.4f [%.4f, %.4f]" % (geo["geomean"], geo["ci_low"], geo["ci_high"]) if geo.get("geomean") else "-",
                  vs))


def main():
    phase, out = sys.argv[1], sys.argv[2]
    if phase in ("A", "A2"):
        phase_a(out, sys.argv[3].split(","))
    elif phase == "SPEED":
        phase_speed(out, sys.argv[3].split(","))
    elif phase in ("SAMPLE", "RSAMPLE"):
        phase_sample(out)
    elif phase == "INPUTS":
        phase_inputs(out)
    else:
        phase_b(out)


if __name__ == "__main__":
    main()
