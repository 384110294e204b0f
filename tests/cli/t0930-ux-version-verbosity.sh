#!/bin/bash
# --version names zlbench's and the four libraries' versions; global --quiet and --verbose
# change what run and doctor print.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/fixtures/doctor/doctor_lib.sh"
cd "$TMP"

run_zl --version
expect_rc 0
[ "$(head -1 "$TMP/out")" = "zlbench $(sed -n 's/^project(zlbench VERSION \([0-9.]*\).*/\1/p' "$ZL_SOURCE_DIR/CMakeLists.txt")" ] ||
	fail "first line is not zlbench <project version>: $(head -1 "$TMP/out")"
for lib in libyaml sqlite3 cjson libcurl; do
	grep -qE "^$lib [0-9]+\.[0-9]+" "$TMP/out" || fail "no '$lib <version>' line: $(cat "$TMP/out")"
done
# the versions are the linked libraries' own, not fixed text
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "sqlite3 version differs from the library's"
import sqlite3, sys
lines = dict(l.split(" ", 1) for l in open(sys.argv[1]).read().split("\n") if " " in l)
assert lines["sqlite3"] == sqlite3.sqlite_version, (lines["sqlite3"], sqlite3.sqlite_version)
PY
run_zl -V
expect_rc 0
contains "$TMP/out" "libcurl "

# run on the bundled demo: the header is there by default, gone with --quiet
cp -r "$ZL_SOURCE_DIR/examples/demo" demo
export ZL_NO_HISTORY=1
run_zl run --backend cuda --flaggems-dir demo --op add --python "$ZL_TEST_PYTHON" --out "$TMP/run-normal"
expect_rc 0
contains "$TMP/err" "backend:     cuda"
contains "$TMP/out" "RUN_DIR=$TMP/run-normal"
run_zl --quiet run --backend cuda --flaggems-dir demo --op add --python "$ZL_TEST_PYTHON" --out "$TMP/run-quiet"
expect_rc 0
lacks "$TMP/err" "backend:"
lacks "$TMP/err" "status:"
lacks "$TMP/err" "warning:"
contains "$TMP/out" "RUN_DIR=$TMP/run-quiet"
run_zl --verbose run --backend cuda --flaggems-dir demo --op add --python "$ZL_TEST_PYTHON" --out "$TMP/run-verbose"
expect_rc 0
contains "$TMP/err" "backend:     cuda"

# doctor: --quiet keeps only what is wrong, --verbose adds evidence and commands
fg_tree fg
run_zl --quiet doctor --python "$ZL_TEST_PYTHON" --backend cuda --flaggems-dir fg --op mm
expect_rc 0
[ ! -s "$TMP/out" ] || fail "doctor --quiet printed: $(cat "$TMP/out")"
run_zl --verbose doctor --python "$ZL_TEST_PYTHON" --backend cuda --flaggems-dir fg --op mm
expect_rc 0
contains "$TMP/out" "evidence:"
contains "$TMP/out" "command: "

# preflight: --quiet prints only the failing check
run_zl --quiet preflight --python "$ZL_TEST_PYTHON" --backend cuda --flaggems-dir fg --op mm
expect_rc 0
[ ! -s "$TMP/out" ] || fail "preflight --quiet printed: $(cat "$TMP/out")"
run_zl --quiet preflight --python "$ZL_TEST_PYTHON" --backend cuda --flaggems-dir fg --op mm --shape-file "$TMP/nope.yaml"
expect_rc 3
contains "$TMP/out" "FAILED  shape_file"
lacks "$TMP/out" "ok      "
run_zl preflight --python "$ZL_TEST_PYTHON" --backend cuda --flaggems-dir fg --op mm
contains "$TMP/out" "ok      pytest"
pass
