#!/bin/bash
# A FlagGems directory (or a run directory) that is a symbolic link loop is reported as one,
# not as missing; a dangling link as a link to nothing; a file as no directory.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
export ZL_NO_HISTORY=1
ln -s loop1 loop2
ln -s loop2 loop1
ln -s nowhere dangling
touch plainfile
R() { run_zl run --backend cuda --op mm --python "$ZL_TEST_PYTHON" --flaggems-dir "$1"; }

R loop1
[ "$RC" -ne 0 ] || fail "a symlink loop passed preflight"
contains "$TMP/err" "FlagGems directory '$TMP/loop1' is a symbolic link loop"
lacks "$TMP/err" "does not exist"
R dangling
[ "$RC" -ne 0 ] || fail "a dangling link passed preflight"
contains "$TMP/err" "FlagGems directory '$TMP/dangling' is a symbolic link to nothing"
R plainfile
[ "$RC" -ne 0 ] || fail "a file passed preflight"
contains "$TMP/err" "FlagGems directory '$TMP/plainfile' is not a directory"
R missing
contains "$TMP/err" "FlagGems directory '$TMP/missing' does not exist"

# a run directory that loops, for compare
run_zl compare loop1 loop2
[ "$RC" -ne 0 ] || fail "compare took a symlink loop"
contains "$TMP/err" "'loop1' is not a run directory: it is a symbolic link loop"
pass
