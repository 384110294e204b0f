#!/bin/bash
# The history database on a read-only mount (with and without its -wal/-shm files): every
# command that only reads it (history's list, compare by run id, batch's start order) works;
# an ingest says why it cannot, and nothing changes. A corrupt database: a clear message,
# the file left as it was, and a run still finishes with its identity and exit code.
. "$(dirname "$0")/../helpers/mount_ns.sh"
. "$(dirname "$0")/lib.sh"

MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
RF="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
cd "$TMP"
mkdir ro
trap 'umount "$TMP/ro" 2>/dev/null || :; rm -rf "$TMP"' EXIT
export ZL_HISTORY_DB="$TMP/ro/history.db"
"$ZL_TEST_PYTHON" "$MK" A --run-id A1 --results "$RF" --set duration_s=30 || fail "make_run A"
"$ZL_TEST_PYTHON" "$MK" B --run-id B1 --results "$RF" --op sum --set duration_s=90 || fail "make_run B"
run_zl history --ingest A B
expect_rc 0
"$ZL_TEST_PYTHON" "$MK" C --run-id C1 --results "$RF" || fail "make_run C"
sum_db() { cat ro/history.db* | sha256sum; }

# readonly_checks CODE: CODE is the ingest's exit status (1: opened, the write failed; 2: not opened)
readonly_checks() {
	local before
	before=$(sum_db)
	run_zl history
	expect_rc 0
	contains "$TMP/out" "A1"
	contains "$TMP/out" "B1"
	run_zl history --json --op sum
	expect_rc 0
	[ "$(json_get "$TMP/out" '[e["run_id"] for e in d]')" = "['B1']" ] || fail "history --json: $(cat "$TMP/out")"
	run_zl compare A1 A1
	expect_rc 0
	contains "$TMP/out" "caliber: ok"
	# batch's start order reads the durations: the longest (sum, 90 s) first
	run_zl batch --backend cuda --flaggems-dir "$FX" --python "$ZL_TEST_PYTHON" --devices 0 --ops mm,sum \
		--dry-run --out "$TMP/b"
	expect_rc 0
	lacks "$TMP/err" "history not used"
	[ "$(grep -E '^  (mm|sum) ' "$TMP/out" | awk '{print $1 $2}' | tr '\n' ' ')" = "sum90.0 mm30.0 " ] ||
		fail "batch start order: $(cat "$TMP/out")"
	# an ingest cannot write there: it says so, exit 2, nothing changes
	run_zl history --ingest C
	expect_rc "$1"
	contains "$TMP/err" "history database '$TMP/ro/history.db'"
	[ "$(sum_db)" = "$before" ] || fail "the read-only database changed"
}

# 1. as zlbench leaves it (the -wal and -shm files beside it), then 2. the file alone (a copy)
ls ro/history.db-wal ro/history.db-shm >/dev/null || fail "expected the WAL files beside the database"
mount --bind ro ro && mount -o remount,ro,bind ro || fail "cannot remount '$TMP/ro' read-only"
touch ro/probe 2>/dev/null && fail "'$TMP/ro' is still writable"
readonly_checks 1
umount ro
"$ZL_TEST_PYTHON" - ro/history.db <<'PY' || fail "checkpoint"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
c.close()
PY
rm -f ro/history.db-wal ro/history.db-shm
mount --bind ro ro && mount -o remount,ro,bind ro || fail "cannot remount '$TMP/ro' read-only"
readonly_checks 2
umount ro

# a corrupt database: every command names it and says why; the file is never rewritten
export ZL_HISTORY_DB="$TMP/corrupt.db"
head -c 8192 /dev/urandom >corrupt.db
before=$(sha256sum <corrupt.db)
run_zl history
expect_rc 2
contains "$TMP/err" "history database '$TMP/corrupt.db'"
contains "$TMP/err" "not a database"
run_zl history --ingest A
expect_rc 2
contains "$TMP/err" "not a database"
run_zl compare A1 B1
expect_rc 2
contains "$TMP/err" "not a database"
# the run itself is not lost: it passes, its identity is final, the history warning says why
run_zl run --backend cuda --flaggems-dir "$FX" --python "$ZL_TEST_PYTHON" --op sleepy --out r1
expect_rc 0
contains "$TMP/err" "history not updated"
contains "$TMP/err" "not a database"
[ "$(json_get r1/run_identity.json 'd["status"]')" = passed ] || fail "run identity"
[ "$(sha256sum <corrupt.db)" = "$before" ] || fail "the corrupt database was rewritten"
pass
