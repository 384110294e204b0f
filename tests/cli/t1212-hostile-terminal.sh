#!/bin/bash
# Strings from a crafted run reach the terminal through its edge (strbuf_add_printable): a
# title-setting escape and a bell in an op name, a screen-clearing escape in a device name,
# are shown as \x1b and \x07 in compare's and history's tables and lines, never sent.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/hostile_runs.sh"

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
