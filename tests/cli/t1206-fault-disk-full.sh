#!/bin/bash
# A disk that fills during the run (a 1 MiB tmpfs): the final status lands somewhere true.
# The final run_identity.json is tried again (after the run's isolated caches are removed,
# which may be what filled the disk); when it still cannot be written, the history row gets
# the final identity and zlbench says where it went; when neither can take it, it says that.
# Nothing stored is lost: the provisional identity stays readable JSON.
. "$(dirname "$0")/../helpers/mount_ns.sh"
. "$(dirname "$0")/lib.sh"

cd "$TMP"
mkdir full
trap 'umount "$TMP/full" 2>/dev/null || :; rm -rf "$TMP"' EXIT
mount -t tmpfs -o size=1m tmpfs full || fail "cannot mount a tmpfs on '$TMP/full'"

# a benchmark that writes into $ZL_FILL_DIR (the run directory unless told) until the disk is full
mkdir -p fg/benchmark
cat >fg/benchmark/conftest.py <<'PY'
def pytest_addoption(parser):
    for o in ("--level", "--mode", "--record", "--output"):
        parser.addoption(o)
PY
cat >fg/benchmark/test_fill.py <<'PY'
import errno, os
import pytest

@pytest.mark.fill
def test_fill():
    where = os.environ.get("ZL_FILL_DIR") or os.environ["ZL_RUN_DIR"]
    if where == "FLAGGEMS_CACHE_DIR":
        where = os.environ["FLAGGEMS_CACHE_DIR"]
    try:
        with open(os.path.join(where, "fill.bin"), "wb") as f:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
    except OSError as e:
        assert e.errno == errno.ENOSPC, e
PY
R() { run_zl run --backend cuda --flaggems-dir fg --python "$ZL_TEST_PYTHON" --op fill "$@"; }
id_of() { json_get "$1/run_identity.json" "$2"; }
db_status() {
	"$ZL_TEST_PYTHON" -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(
		"SELECT status, exit_code FROM runs WHERE run_dir = ?", (sys.argv[2],)).fetchall())' "$1" "$2"
}

# 1. the disk fills and stays full; the history (elsewhere) takes the final identity
export ZL_HISTORY_DB="$TMP/h.db"
R --out full/r1
expect_rc 0
[ "$(id_of full/r1 'd["status"]')" = running ] || fail "r1: the provisional identity is not there"
contains "$TMP/err" "cannot write the final run_identity.json in '$TMP/full/r1'"
contains "$TMP/err" "No space left on device (3 tries)"
contains "$TMP/err" "the run's final status (passed, exit 0) is stored in the history database '$TMP/h.db'"
contains "$TMP/err" "run_identity.json still says 'running'"
[ "$(db_status "$TMP/h.db" "$TMP/full/r1")" = "[('passed', 0)]" ] || fail "history row: $(db_status "$TMP/h.db" "$TMP/full/r1")"
[ "$(tail -n 1 "$TMP/out")" = "RUN_DIR=$TMP/full/r1" ] || fail "RUN_DIR"
rm -rf full/r1

# 2. what filled the disk was the run's own isolated cache: removed, then the write succeeds
TMPDIR="$TMP/full" ZL_FILL_DIR=FLAGGEMS_CACHE_DIR R --out r2 --isolate-tuner-cache
expect_rc 0
lacks "$TMP/err" "cannot write the final run_identity.json"
[ "$(id_of r2 'd["status"], d["tuner_cache"]["removed"]')" = "('passed', True)" ] || fail "r2: $(id_of r2 'd["status"]')"
[ -z "$(ls full)" ] || fail "the isolated caches are left: $(ls full)"

# 3. the history is on the full disk too: zlbench says the status could not be stored anywhere
export ZL_HISTORY_DB="$TMP/full/h.db"
R --out full/r3
expect_rc 0
contains "$TMP/err" "cannot write the final run_identity.json in '$TMP/full/r3'"
contains "$TMP/err" "history not updated"
contains "$TMP/err" "the run's final status (passed, exit 0) could not be stored anywhere (history not written either)"
[ "$(id_of full/r3 'd["status"]')" = running ] || fail "r3: the provisional identity is lost"
pass
