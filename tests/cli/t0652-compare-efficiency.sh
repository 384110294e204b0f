#!/bin/bash
# compare --efficiency and compare --json's efficiency fields: each row's bytes and FLOPs with
# the rule that counted them, the GB/s and TFLOP/s A's and B's times achieve, and their share of
# the device's datasheet peaks. The real H200 mm run checks the GEMM rule against FlagGems' own
# tflops figure row by row; the issue's arctan sentence (2**30 float16 elements at 1.515 ms on
# an H200 move 4 GiB: 2.83 TB/s, 59 % of 4.8 TB/s) is checked as printed; an unknown device and
# an op outside the family table say "unknown" rather than guess.
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" >/dev/null || fail "make_run.py $*"; }

mk "$TMP/a" --run-id 20261129-100000-cuda-mm-aaaaaa --results "$R" --timer-iqr 0.01
mk "$TMP/b" --run-id 20261129-110000-cuda-mm-bbbbbb --results "$R" --timer-iqr 0.01 --scale gems:float16=1.2
run_zl compare "$TMP/a" "$TMP/b" --efficiency
expect_rc 0
contains "$TMP/out" "Hardware efficiency:"
contains "$TMP/out" "H200 SXM: HBM 4.8 TB/s; dense fp32 67, tf32 494.5, fp16 989.5, bf16 989.5, fp8 1979 TFLOP/s"
contains "$TMP/out" "source: NVIDIA H200 Tensor Core GPU datasheet, www.nvidia.com/en-us/data-center/h200/"
contains "$TMP/out" "bytes: GEMM: A (MxK) and B (KxN) read once, C (MxN) written once"
contains "$TMP/out" "FLOPs: GEMM: 2*M*N*K"
# fp16 4096^3: 137 GFLOP in 0.2294 ms = 599 TFLOP/s = 61 % of 989.5 (A); B is 1.2x slower: 499, 50 %
grep -E "^mm +torch.float16 +\[\[4096, 4096\], \[4096, 4096\]\] +gems +96 MiB .* 137 GFLOP +599 TFLOP/s +61 % +499 TFLOP/s +50 %$" \
	"$TMP/out" >/dev/null || { cat "$TMP/out"; fail "the fp16 4096 gems row"; }
# the section comes after the main table, which is unchanged
awk '/^verdicts:/{v=NR} /^Hardware efficiency:/{h=NR} END{exit !(v && h > v)}' "$TMP/out" ||
	fail "the efficiency section is not after the main table"
run_zl compare "$TMP/a" "$TMP/b"
expect_rc 0
lacks "$TMP/out" "Hardware efficiency"

# --json: every row, the GEMM rule against FlagGems' own tflops, and the device peaks
run_zl compare "$TMP/a" "$TMP/b" --json
expect_rc 0
"$ZL_TEST_PYTHON" - "$TMP/out" "$R" <<'PY' || fail "json efficiency"
import json, sys
d = json.load(open(sys.argv[1]))
res = json.load(open(sys.argv[2]))
fg = {}
for det in res["mm"]["details"]:
    for r in det["result"]:
        fg.setdefault((det["dtype"], json.dumps(r["shape_detail"])), []).append(r)
assert d["device_peaks"]["a"]["model"] == "H200 SXM" and d["device_peaks"]["a"]["hbm_gbps"] == 4800
assert d["device_peaks"]["b"]["tflops"]["fp16"] == 989.5 and "datasheet" in d["device_peaks"]["b"]["source"]
seen = 0
for row in d["rows"]:
    e = row["efficiency"]
    (m, k), (k2, n) = json.loads(row["shape"])
    es = {"torch.float16": 2, "torch.bfloat16": 2, "torch.float32": 4}[row["dtype"]]
    assert e["family"] == "gemm" and e["flops"] == 2 * m * n * k and e["bytes"] == (m * k + k * n + m * n) * es, e
    assert e["flops_peak"] == {"torch.float16": "fp16", "torch.bfloat16": "bf16", "torch.float32": "fp32"}[row["dtype"]]
    for side, ms in (("a", row["a_ms"]), ("b", row["b_ms"])):
        assert abs(e[side]["tflops"] - e["flops"] / ms / 1e9) < 1e-9 * e[side]["tflops"], e
        assert abs(e[side]["bw_frac"] - e[side]["gbps"] / 4800) < 1e-12, e
    if row["side"] == "gems":
        # A's gems time is FlagGems' latency, so A's TFLOP/s is FlagGems' own tflops
        r = fg[(row["dtype"], row["shape"])][row["occurrence"] - 1]
        assert abs(e["a"]["tflops"] / r["tflops"] - 1) < 1e-9, (e["a"]["tflops"], r["tflops"])
        seen += 1
assert seen == 15, seen
PY

# the issue's arctan: torch 1.119 ms, FlagGems 1.515 ms over 2**30 float16 elements on an H200
cat >"$TMP/arctan.json" <<'JSON'
{"arctan": {"details": [{"op_name": "arctan", "dtype": "torch.float16", "mode": "kernel", "level": "core",
  "result": [{"legacy_shape": null, "shape_detail": [[1073741824]], "latency_base": 1.119, "latency": 1.515,
    "gbps_base": null, "gbps": null, "speedup": 0.7386, "accuracy": null, "tflops": 0.7087, "utilization": null,
    "compared_speedup": null, "error_msg": null}]}]}}
JSON
mk "$TMP/t1" --run-id 20261129-120000-cuda-arctan-cccccc --op arctan --results "$TMP/arctan.json"
mk "$TMP/t2" --run-id 20261129-130000-cuda-arctan-dddddd --op arctan --results "$TMP/arctan.json"
run_zl compare "$TMP/t1" "$TMP/t2" --efficiency
expect_rc 0
grep -E "^arctan +torch.float16 +\[\[1073741824\]\] +torch +4 GiB +3.84 TB/s +80 % +3.84 TB/s +80 % +- +- +- +- +-$" "$TMP/out" >/dev/null ||
	{ cat "$TMP/out"; fail "the arctan torch row"; }
grep -E "^arctan +torch.float16 +\[\[1073741824\]\] +gems +4 GiB +2.83 TB/s +59 % +2.83 TB/s +59 %" "$TMP/out" >/dev/null ||
	{ cat "$TMP/out"; fail "the arctan gems row"; }
contains "$TMP/out" "bytes: pointwise: each tensor input read once, the broadcast output written once"
contains "$TMP/out" "FLOPs: not counted: a pointwise op's work per element depends on its function"

# a device without peaks, an op outside the table: said, not guessed
mk "$TMP/u1" --run-id 20261129-140000-cuda-mm-eeeeee --results "$R" \
	--set devices='[{"index": 0, "name": "Mystery GPU 9000", "uuid": "GPU-9", "memory_mib": 1, "driver": "1"}]'
sed 's/"mm"/"frobnicate"/g' "$R" >"$TMP/frob.json"
mk "$TMP/u2" --run-id 20261129-150000-cuda-frobnicate-ffffff --op frobnicate --results "$TMP/frob.json" \
	--set devices='[{"index": 0, "name": "Mystery GPU 9000", "uuid": "GPU-9", "memory_mib": 1, "driver": "1"}]'
run_zl compare "$TMP/u1" "$TMP/u1" --efficiency --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["device_peaks"]["a"]["unknown"]')" = "device 'Mystery GPU 9000' is not in zlbench's table of peaks" ] ||
	fail "unknown device: $(json_get "$TMP/out" 'd["device_peaks"]')"
[ "$(json_get "$TMP/out" 'd["rows"][0]["efficiency"]["a"]["bw_frac"]')" = None ] || fail "a fraction without peaks"
run_zl compare "$TMP/u2" "$TMP/u2" --efficiency
expect_rc 0
contains "$TMP/out" "unknown: device 'Mystery GPU 9000' is not in zlbench's table of peaks"
# frobnicate is no family: FlagGems' tflops is used for FLOPs, bytes stay unknown
contains "$TMP/out" "bytes: op 'frobnicate' is in no family of zlbench's table, and results.json has no gbps"
contains "$TMP/out" "FLOPs: FlagGems' figure: results.json tflops x FlagGems latency"

# usage
run_zl compare "$TMP/a" "$TMP/b" --efficiency --csv
expect_rc 2
contains "$TMP/err" "--efficiency adds a section to the terminal table; --json always has the figures"
pass
