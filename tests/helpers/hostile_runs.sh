# Sourced by the hostile-file tests (t1212-t1214) after lib.sh: two compare-able runs, a and b,
# in $TMP, made by tests/fixtures/runs/make_run.py from the real H200 mm results and then
# crafted (craft below). ESC is the escape byte the tests look for in what zlbench prints.
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
cd "$TMP"
ESC=$(printf '\033')

# craft RUN: an op name with a title-setting escape and a bell, a dtype that is a formula,
# a shape holding bytes that are not UTF-8 (0xff, 0xfe), a device name that clears the screen
craft() {
	"$ZL_TEST_PYTHON" - "$1" <<'PY' || fail "cannot craft $1"
import json, os, sys
d = sys.argv[1]
p = os.path.join(d, "results.json")
res = json.load(open(p))
det = res["mm"]["details"]
det[0]["op_name"] = "mm\x1b]0;pwned\x07"
det[1]["dtype"] = "=HYPERLINK(\"http://evil.example\",\"x\")"
det[2]["result"][0]["shape_detail"] = ["XXBADXX"]
text = json.dumps(res).encode().replace(b"XXBADXX", b"\xff\xfe")
open(p, "wb").write(text)
ip = os.path.join(d, "run_identity.json")
ident = json.load(open(ip))
ident["devices"][0]["name"] = "H200\x1b[2J\x1b[H"
json.dump(ident, open(ip, "w"))
PY
}
"$ZL_TEST_PYTHON" "$MK" a --run-id 20261129-100000-cuda-mm-aaaaaa --results "$R" >/dev/null || fail "make_run a"
"$ZL_TEST_PYTHON" "$MK" b --run-id 20261129-110000-cuda-mm-bbbbbb --results "$R" --scale gems=1.1 >/dev/null ||
	fail "make_run b"
craft a
craft b
