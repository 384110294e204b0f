"""Checks the plugin files of run_gpu_check.sh's runs; prints a table; exits 1 on a failure."""
import json
import os
import sys

OUT = sys.argv[1]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def load(run, *parts):
    with open(os.path.join(OUT, run, *parts)) as f:
        return json.load(f)


def jsonl(run):
    with open(os.path.join(OUT, run, "plugins", "timer.jsonl")) as f:
        return [json.loads(x) for x in f if x.strip()]


def rc(run):
    with open(os.path.join(OUT, run, "rc")) as f:
        return int(f.read())


def log(run):
    with open(os.path.join(OUT, run, "pytest.log")) as f:
        return f.read()


check(rc("graph") == 0, "graph run passes")
check(rc("direct") == 0, "direct run passes")
g, d = jsonl("graph"), jsonl("direct")
gs = load("graph", "plugins", "timer_summary.json")
print(json.dumps(gs))
check(gs["used"] == "mixed" and gs["fallbacks"] == 2, "graph plan: nonzero (both sides) fell back")
check(all("graph capture failed" in r for r in gs["fallback_reasons"]),
      "fallback reasons name the capture failure: %s" % gs["fallback_reasons"])


def key(r):
    return (r["op"], r["side"], json.dumps(r["shape"]))


direct = {key(r): r for r in d}
print("%-8s %-5s %-12s %12s %12s %12s %7s %6s" % ("op", "side", "shape", "graph ms", "direct ms",
                                                 "flush ms", "ratio", "iters"))
for r in g:
    if r["timer"] != "graph":
        continue
    o = direct.get(key(r))
    ratio = r["median_ms"] / o["median_ms"] if o else float("nan")
    print("%-8s %-5s %-12s %12.5f %12.5f %12.5f %7.3f %6d" % (
        r["op"], r["side"], r["shape"][0][0], r["median_ms"], o["median_ms"] if o else -1,
        r["flush_ms"], ratio, r["graph_iterations"]))
    if r["shape"][0][0] == 1 << 24:
        check(0.6 < ratio < 1.4, "graph agrees with flushed do_bench on a large shape: %s %s"
              % (r["op"], r["side"]))
check(not [r for r in g if r["node"].endswith("test_tune_outside_a_measurement")],
      "tuning outside a measurement is not recorded as one")
ds = load("direct", "plugins", "timer_summary.json")
check(ds["used"] == "direct" and ds["direct_repeat"] == 3, "direct plan used, 3 repeats")
check(all(len(r["repeat_values_ms"]) == 3 for r in d), "every direct record has 3 repeat values")

check(rc("profiler") == 0, "profiler run passes")
p = jsonl("profiler")
ps = load("profiler", "plugins", "timer_summary.json")
print(json.dumps(ps))
# nonzero syncs inside the call: the graph cannot capture it, the profiler can time it
check(ps["used"] == "profiler" and ps["fallbacks"] == 0, "profiler plan timed every shape itself")
check(all(r["stop_reason"] in ("noise_target", "noise_plateau", "time_cap", "max_samples")
          and r["noise_rel"] is not None and r["kernels_per_call"] >= 1 for r in p),
      "every profiler record has a stop reason, noise_rel and its kernels")
check(ps["clock_source"] == "nvml" and ps["clock_mhz"] is not None, "the SM clock was read by NVML")
print("%-8s %-5s %-12s %12s %12s %9s %6s %-13s %3s" % ("op", "side", "shape", "profiler ms",
                                                      "direct ms", "noise_rel", "n", "stop", "k"))
for r in p:
    o = direct.get(key(r))
    print("%-8s %-5s %-12s %12.5f %12.5f %9.4f %6d %-13s %3d" % (
        r["op"], r["side"], r["shape"][0][0], r["estimate_ms"], o["median_ms"] if o else -1,
        r["noise_rel"], r["samples_total"], r["stop_reason"], r["kernels_per_call"]))
    if o and r["shape"][0][0] == 1 << 24:
        check(0.6 < r["estimate_ms"] / o["median_ms"] < 1.4,
              "profiler agrees with flushed do_bench on a large shape: %s %s" % (r["op"], r["side"]))

v = load("graph", "plugins", "vendor.json")
print(json.dumps(v))
check(v["match"] is True and v["device_name"] and v["capability"], "vendor.json match with device")

a = load("graph", "plugins", "autotune_summary.json")
print(json.dumps(a))
check(a["recorded"] == 5 and a["no_tuner"] >= 1,
      "5 autotune picks recorded (4 measured, 1 outside), copy has no tuner")
check(any(k.endswith("copy_kernel") for k in a["no_tuner_kernels"]), "copy_kernel is the untuned one")

check(rc("replay") == 0, "replay run passes")
ra = load("replay", "plugins", "autotune_summary.json")
print(json.dumps(ra))
check(ra["pinned"] == 5 and ra["missed"] == 0, "replay pinned all 5 picks")
for name in os.listdir(os.path.join(OUT, "graph", "autotune_records")):
    src = {e["key"]: e["config"] for e in load("graph", "autotune_records", name)["entries"]}
    if not src:
        continue
    dst = {e["key"]: e["config"] for e in load("replay", "autotune_records", name)["entries"]}
    check(src == dst, "replayed configs equal recorded ones: %s" % name)

check(rc("miss") != 0 and "REPLAY_MISS kernel=" in log("miss"), "replay from an empty run misses")

check(rc("mismatch") == 3, "vendor mismatch exits 3")
check("\nVENDOR_MISMATCH expected=nvidia detected=mthreads\n" in log("mismatch"),
      "VENDOR_MISMATCH line on its own")
check(load("mismatch", "plugins", "vendor.json")["match"] is False, "vendor.json match=false")

check(rc("foreign") == 0, "foreign run passes")
f = load("foreign", "plugins", "foreign_vendor.json")
print(json.dumps(f))
check(f["vendors"] == ["mthreads"], "foreign vendor mthreads reported on cuda")

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
