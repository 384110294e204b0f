#!/bin/bash
# Strings from a crafted run reach the terminal through its edge (strbuf_add_printable): a
# title-setting escape and a bell in an op name, a screen-clearing escape in a device name,
# are shown as \x1b and \x07 in compare's and history's tables and lines, never sent.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"
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

# the terminal: no escape byte reaches it, the escapes are shown
run_zl compare a b
expect_rc 0
if grep -q "$ESC" "$TMP/out"; then
	cat -v "$TMP/out" | grep -F '^[' | head -5 >&2
	fail "compare sent an escape sequence to the terminal"
fi
contains "$TMP/out" 'mm\x1b]0;pwned\x07'
contains "$TMP/out" 'H200\x1b[2J\x1b[H'
# history's list: the run's op (from its identity) with a screen-clearing escape
"$ZL_TEST_PYTHON" - a/run_identity.json <<'PY' || fail "cannot craft the op"
import json, sys
d = json.load(open(sys.argv[1]))
d["op"] = "mm\x1b[2J\x1b[H"
json.dump(d, open(sys.argv[1], "w"))
PY
run_zl history --ingest a
expect_rc 0
run_zl history
expect_rc 0
if grep -q "$ESC" "$TMP/out"; then
	cat -v "$TMP/out" >&2
	fail "history sent an escape sequence to the terminal"
fi
contains "$TMP/out" 'mm\x1b[2J\x1b[H'

pass
