#!/bin/bash
# doctor step 2 (vendor): the interpreter imports flag_gems with the run's PYTHONPATH and
# its vendor_name matches the backend. Instance: a run pinned for one vendor importing
# another vendor's FlagGems build.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/fixtures/doctor/doctor_lib.sh"
cd "$TMP"
fg_tree fg

# the fixture's FlagGems is the nvidia build unless GEMS_VENDOR says otherwise
doctor --backend musa --flaggems-dir fg --op mm
expect_failed_at vendor
contains "$TMP/out" "flag_gems reports vendor 'nvidia' but backend 'musa' expects 'mthreads'"
contains "$TMP/out" "imported from $TMP/fg/src/flag_gems/__init__.py"
contains "$TMP/out" "flag_gems 0.0.0+doctor.fixture imported from"
contains "$TMP/out" "run it with --backend cuda"

# a FlagGems without __version__ (a checkout, as on the H200) is not "flag_gems None"
fg_tree nover
sed -i '/^__version__ = /d' nover/src/flag_gems/__init__.py
doctor --backend musa --flaggems-dir nover --op mm
expect_failed_at vendor
contains "$TMP/out" "flag_gems (no __version__) imported from $TMP/nover/src/flag_gems/__init__.py"
lacks "$TMP/out" "None"

# a variable forcing FlagGems' vendor is named, and unsetting it is the fix
GEMS_VENDOR=nvidia doctor --backend musa --flaggems-dir fg --op mm --json
expect_rc 3
[ "$(json_get "$TMP/out" 'd["failed_step"]')" = vendor ] || fail "failed_step is not vendor"
json_get "$TMP/out" '"\n".join(d["steps"][1]["evidence"])' | grep -q "GEMS_VENDOR=nvidia forces" ||
	fail "evidence does not name GEMS_VENDOR"
json_get "$TMP/out" 'd["steps"][1]["fix"]' | grep -q "unset" || fail "fix does not say unset"

# the matching vendor passes (and the walk goes on)
GEMS_VENDOR=mthreads doctor --backend musa --flaggems-dir fg --op mm
expect_step vendor ok
contains "$TMP/out" "flag_gems reports vendor 'mthreads', as backend 'musa' expects"

# a FlagGems that cannot be imported: the error and where it was raised
fg_tree broken
printf 'raise ImportError("libcuda.so.1: cannot open shared object file")\n' >broken/src/flag_gems/__init__.py
doctor --backend cuda --flaggems-dir broken --op mm
expect_failed_at vendor
contains "$TMP/out" "cannot import flag_gems: ImportError: libcuda.so.1: cannot open shared object file"
contains "$TMP/out" "raised at $TMP/broken/src/flag_gems/__init__.py:1"

# a checkout without src/flag_gems imports whatever FlagGems comes next on PYTHONPATH: a warning of
# this step that names both places and the fix (it used to be an evidence line under "ok")
fg_tree nosrc
mkdir -p other
mv nosrc/src/flag_gems other/flag_gems
PYTHONPATH="$TMP/other" doctor --backend cuda --flaggems-dir nosrc --op mm
expect_passed
expect_step vendor WARN
contains "$TMP/out" "flag_gems was imported from '$TMP/other/flag_gems', outside the checkout's '$TMP/nosrc/src/flag_gems'"
contains "$TMP/out" "imported from $TMP/other/flag_gems/__init__.py"
contains "$TMP/out" "'$TMP/nosrc/src/flag_gems' does not exist, so Python imported the next FlagGems on its path"
contains "$TMP/out" "fix:      point --flaggems-dir at the checkout whose src/ holds '$TMP/other/flag_gems'"
contains "$TMP/out" "result: no step failed (1 warning)"
PYTHONPATH="$TMP/other" doctor --backend cuda --flaggems-dir nosrc --op mm --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["steps"][1]["status"]')" = warn ] || fail "vendor step does not warn"
[ "$(json_get "$TMP/out" 'd["warnings"]')" = 1 ] || fail "warnings: $(json_get "$TMP/out" 'd["warnings"]')"
json_get "$TMP/out" '"\n".join(d["steps"][1]["evidence"])' | grep -q "imported from $TMP/other/flag_gems/__init__.py" ||
	fail "evidence does not show where flag_gems came from"
# --strict: that warning fails the walk at this step
PYTHONPATH="$TMP/other" doctor --backend cuda --flaggems-dir nosrc --op mm --strict
expect_failed_at vendor

# the checkout has src/flag_gems, but another FlagGems comes first on the path: the fix takes that one off
mkdir -p plug
cp -r "$ZL_SOURCE_DIR"/plugins/. plug/
cp -r fg/src/flag_gems plug/flag_gems
ZL_PLUGINS_DIR="$TMP/plug" doctor --backend cuda --flaggems-dir fg --op mm
expect_step vendor WARN
contains "$TMP/out" "flag_gems was imported from '$TMP/plug/flag_gems', outside the checkout's '$TMP/fg/src/flag_gems'"
contains "$TMP/out" "'$TMP/fg/src/flag_gems' exists, but another FlagGems came first on the interpreter's path"
contains "$TMP/out" "take the FlagGems in '$TMP/plug/flag_gems' off the interpreter's path"

# the checkout's own FlagGems: no warning
doctor --backend cuda --flaggems-dir fg --op mm
expect_step vendor ok
# a crash while importing flag_gems: the signal, and where Python was (PYTHONFAULTHANDLER=1);
# zl_doctor.py is there, so it is not blamed
fg_tree crash
printf 'import os\nimport signal\n\nos.kill(os.getpid(), signal.SIGSEGV)\n' >crash/src/flag_gems/__init__.py
doctor --backend cuda --flaggems-dir crash --op mm
expect_failed_at vendor
contains "$TMP/out" "'$ZL_TEST_PYTHON' was killed by signal 11 (Segmentation fault) while importing flag_gems"
contains "$TMP/out" "output: Fatal Python error: Segmentation fault"
contains "$TMP/out" "output: File \"$TMP/crash/src/flag_gems/__init__.py\", line 4 in <module>"
lacks "$TMP/out" "holds zl_doctor.py"
lacks "$TMP/out" "<frozen importlib"
# no zl_doctor.py where the plugins should be: that is said, with the path
mkdir -p noplug
ZL_PLUGINS_DIR="$TMP/noplug" doctor --backend cuda --flaggems-dir fg --op mm
expect_failed_at vendor
contains "$TMP/out" "wrote no answer: there is no '$TMP/noplug/zl_doctor.py'"
contains "$TMP/out" "No module named zl_doctor"
pass
