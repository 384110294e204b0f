#!/bin/bash
# Bytes that are not UTF-8 in a crafted run's results.json: compare --json and a pushed
# document are valid UTF-8 all the same (each such byte is U+FFFD), so a JSON consumer parses
# them, and a warning counts the bytes replaced.
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

# JSON: valid UTF-8, what was not is U+FFFD, and the warning counts it
run_zl compare a b --json
expect_rc 0
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "compare --json is not valid UTF-8 JSON"
import json, sys
raw = open(sys.argv[1], "rb").read()
d = json.loads(raw.decode("utf-8"))   # strict: raises on invalid UTF-8
assert "\ufffd\ufffd" in raw.decode("utf-8"), "no U+FFFD where the bytes were"
PY
contains "$TMP/err" "compare --json: 4 bytes that were not UTF-8 written as U+FFFD"

# push: the document sent is valid UTF-8 too, and says so
start_collector c1 --script 200
run_zl push a --url "$URL"
expect_rc 0
expect_requests c1 1
"$ZL_TEST_PYTHON" -c 'import json,sys; json.loads(open(sys.argv[1],"rb").read().decode("utf-8"))' \
	"$TMP/c1/req/0001.body" || fail "the pushed document is not valid UTF-8 JSON"
contains "$TMP/err" "results.json': 2 bytes that were not UTF-8 sent as U+FFFD"
pass
