#!/bin/bash
# calibrate gives each round's batch the run settings as a batch gives them to its runs (the
# settings table's forwarding): the interpreter and the FlagGems directory pinned as found when
# the calibration starts, so that the rounds a --resume starts under another PATH run the same.
. "$(dirname "$0")/lib.sh"
FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"

# a name is looked up on PATH now; a defaulted interpreter is pinned too
mkdir -p bin
ln -s "$ZL_TEST_PYTHON" bin/mypython
PATH="$TMP/bin:$PATH" run_zl calibrate --backend cuda --flaggems-dir "$FX" --python mypython --ops add --out c --dry-run
expect_rc 0
contains "$TMP/out" "  --python=$TMP/bin/mypython"
run_zl calibrate --backend cuda --flaggems-dir "$FX" --ops add --out c --dry-run
expect_rc 0
grep -qE '^  --python=/.*python3$' "$TMP/out" || fail "the default interpreter is not pinned: $(grep -- --python "$TMP/out")"
# the FlagGems directory absolute (its links resolved); a relative shape file made absolute; booleans as their flag
ln -s "$FX" fg
run_zl calibrate --backend cuda --flaggems-dir fg --ops add --shape-file shapes.yaml --no-cudagraph --out c --dry-run
expect_rc 0
grep -qE '^  --flaggems-dir=/.*/flaggems$' "$TMP/out" || fail "the FlagGems directory: $(grep -- --flaggems-dir "$TMP/out")"
contains "$TMP/out" "  --shape-file=$TMP/shapes.yaml"
contains "$TMP/out" "  --no-cudagraph"
# what the calibration sets itself is not forwarded as given
lacks "$TMP/out" "--out=c"
pass
