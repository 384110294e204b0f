#!/bin/bash
# history --since takes a date in any documented form and compares it as a time (the minute
# 12:00 includes 12:00:30); impossible dates are usage errors (exit 2); a query or a write that
# fails at run time exits 1, as the help says.
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" || fail "make_run.py $*"; }
unset ZL_HISTORY_DB
DB="$TMP/h.db"

mk "$TMP/early" --run-id 20261129-115959-cuda-mm-aaaaaa --set started_at='"2026-11-29T11:59:59Z"'
mk "$TMP/late" --run-id 20261129-120030-cuda-mm-bbbbbb --set started_at='"2026-11-29T12:00:30Z"'
run_zl history --db "$DB" --ingest "$TMP/early" "$TMP/late"
expect_rc 0

since_ids() {
	run_zl history --db "$DB" --since "$1" --json
	expect_rc 0
	json_get "$TMP/out" '" ".join(sorted(r["run_id"][9:15] for r in d))'
}
[ "$(since_ids 2026-11-29T12:00Z)" = "120030" ] || fail "--since 2026-11-29T12:00Z"
[ "$(since_ids 2026-11-29T12:00)" = "120030" ] || fail "--since 2026-11-29T12:00"
[ "$(since_ids '2026-11-29 12:00')" = "120030" ] || fail "--since with a blank"
[ "$(since_ids 2026-11-29T12:00:30Z)" = "120030" ] || fail "--since to the second"
[ "$(since_ids 2026-11-29T12:00:31)" = "" ] || fail "--since after both"
[ "$(since_ids 2026-11-29T11:59:59)" = "115959 120030" ] || fail "--since before both"
[ "$(since_ids 2026-11-29)" = "115959 120030" ] || fail "--since a day"
[ "$(since_ids 2028-02-29)" = "" ] || fail "a leap day exists"

for bad in 2026-13-45 2026-02-29 2026-04-31 2026-00-10 2026-11-29T24:00 2026-11-29T12:60 \
	   2026-11-29T12:00:60Z 2026-11-29T1200; do
	run_zl history --db "$DB" --since "$bad"
	expect_rc 2
	contains "$TMP/err" "invalid --since '$bad'"
done

# a database whose results table is gone: the query fails at run time (1), and so does a write
"$ZL_TEST_PYTHON" -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("DROP TABLE results"); c.commit(); c.close()' "$DB" ||
	fail "drop the results table"
run_zl history --db "$DB"
expect_rc 1
contains "$TMP/err" "history database"
run_zl history --db "$DB" --ingest "$TMP/late"
expect_rc 1
# a directory that is not a run stays a usage error
mkdir -p "$TMP/not-a-run"
run_zl history --db "$TMP/fresh.db" --ingest "$TMP/not-a-run"
expect_rc 2
pass
