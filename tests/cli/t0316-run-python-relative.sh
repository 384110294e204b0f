#!/bin/bash
# A relative interpreter (--python venv/bin/python, ZL_PYTHON, or found through a relative
# PATH entry) is made absolute against zlbench's cwd, without resolving links (a venv's
# python is a link): the child, which starts in the FlagGems root, runs the same file.
. "$(dirname "$0")/lib.sh"

FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"
export ZL_NO_HISTORY=1
mkdir -p venv/bin
ln -s "$ZL_TEST_PYTHON" venv/bin/python
R() { run_zl run --backend cuda --flaggems-dir "$FX" --op sleepy "$@"; }
py() { json_get "$1/run_identity.json" 'd["status"], d["python"]["path"], d["child_argv"][0]'; }

R --python venv/bin/python --out r1
expect_rc 0
[ "$(py r1)" = "('passed', '$TMP/venv/bin/python', '$TMP/venv/bin/python')" ] || fail "--python venv/bin/python: $(py r1)"

ZL_PYTHON=./venv/bin/python R --out r2
expect_rc 0
[ "$(py r2)" = "('passed', '$TMP/venv/bin/python', '$TMP/venv/bin/python')" ] || fail "ZL_PYTHON=./venv/bin/python: $(py r2)"

PATH="venv/bin:$PATH" R --python python --out r3
expect_rc 0
[ "$(py r3)" = "('passed', '$TMP/venv/bin/python', '$TMP/venv/bin/python')" ] || fail "relative PATH entry: $(py r3)"

R --python venv/bin/python --out dry --dry-run
expect_rc 0
contains "$TMP/out" "  $TMP/venv/bin/python"
pass
