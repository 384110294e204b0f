#!/bin/bash
# The pytest preflight probe: cached per interpreter, never believed once pytest changed or went away.
. "$(dirname "$0")/lib.sh"

mini_tree "$TMP/fg"
cd "$TMP"
# an interpreter that counts its starts and sees no site packages (-S), and a pytest
# of our own on PYTHONPATH: the only one it can find
mkdir -p pylib/pytest pylib/_pytest
echo "" >pylib/pytest/__init__.py
echo "" >pylib/_pytest/__init__.py
echo "version = '9.9.9'" >pylib/_pytest/_version.py
# an mtime whose nanoseconds a JSON double printed to 15 digits would not give back
touch -d @1764567890.123459789 pylib/pytest/__init__.py
[ "$(stat -c %Y.%y pylib/pytest/__init__.py | grep -c 123459789)" = 1 ] || fail "this file system keeps no nanoseconds"
cat >py <<EOF2
#!/bin/sh
echo start >>"$TMP/starts"
exec "$ZL_TEST_PYTHON" -S "\$@"
EOF2
chmod +x py
export PYTHONPATH=$TMP/pylib
starts() { [ -f starts ] && wc -l <starts || echo 0; }

run_zl preflight --backend cuda --flaggems-dir fg --op mm --python "$TMP/py"
expect_rc 0
[ "$(starts)" -eq 1 ] || fail "first preflight: $(starts) interpreter starts"
ls "$ZL_HOME"/cache/pyprobe-*.json >/dev/null || fail "no probe cache written"
run_zl preflight --backend cuda --flaggems-dir fg --op mm --python "$TMP/py"
expect_rc 0
[ "$(starts)" -eq 1 ] || fail "second preflight did not use the cache"
[ "$(json_get "$(ls "$ZL_HOME"/cache/pyprobe-*.json)" 'd["pytest_version"]')" = 9.9.9 ] || fail "pytest version"
before=$(starts)
# pytest upgraded (its __init__.py changed): probe again
sleep 1.1
echo "# upgraded" >>pylib/pytest/__init__.py
run_zl preflight --backend cuda --flaggems-dir fg --op mm --python "$TMP/py"
expect_rc 0
[ "$(starts)" -eq $((before + 1)) ] || fail "a changed pytest was not probed again"
# pytest uninstalled: the cache must not hide it
rm -rf pylib/pytest
run_zl preflight --backend cuda --flaggems-dir fg --op mm --python "$TMP/py"
expect_rc 3
contains "$TMP/err" "PREFLIGHT_FAILED check=pytest"
contains "$TMP/err" "No module named pytest"
# pytest back, under another PYTHONPATH: another key, so a fresh probe finds it
mkdir -p pylib2/pytest pylib2/_pytest
echo "" >pylib2/pytest/__init__.py
echo "version = '9.9.10'" >pylib2/_pytest/_version.py
before=$(starts)
PYTHONPATH=$TMP/pylib2 run_zl preflight --backend cuda --flaggems-dir fg --op mm --python "$TMP/py"
expect_rc 0
[ "$(starts)" -eq $((before + 1)) ] || fail "another PYTHONPATH reused the cache"

# found is not importable: a pytest whose __init__.py raises fails preflight (exit 3, not 1 later)
mkdir -p broken/pytest
echo 'raise ImportError("pytest is broken here")' >broken/pytest/__init__.py
PYTHONPATH=$TMP/broken run_zl run --backend cuda --flaggems-dir fg --op mm --python "$ZL_TEST_PYTHON" --out b1
expect_rc 3
grep -qx "PREFLIGHT_FAILED check=pytest" "$TMP/err" || fail "broken pytest: $(cat "$TMP/err")"
contains "$TMP/err" "ImportError: pytest is broken here"
[ ! -e b1 ] || fail "a failed preflight made the run directory"

# the cache must see a pytest that appears ahead of the cached one on the same PYTHONPATH
mkdir -p shadow
PYTHONPATH=$TMP/shadow run_zl preflight --backend cuda --flaggems-dir fg --op mm --python "$ZL_TEST_PYTHON"
expect_rc 0
cp -r broken/pytest shadow/
PYTHONPATH=$TMP/shadow run_zl preflight --backend cuda --flaggems-dir fg --op mm --python "$ZL_TEST_PYTHON"
expect_rc 3
grep -qx "PREFLIGHT_FAILED check=pytest" "$TMP/err" || fail "a shadowing pytest was hidden by the cache"
# fixed in place (its __init__.py changed): probed again, and cached again
echo "" >shadow/pytest/__init__.py
PYTHONPATH=$TMP/shadow run_zl preflight --backend cuda --flaggems-dir fg --op mm --python "$ZL_TEST_PYTHON"
expect_rc 0
pass
