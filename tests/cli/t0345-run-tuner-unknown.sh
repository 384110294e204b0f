#!/bin/bash
# A tuner DB that is there but cannot be read (locked by a writer) is not "0 winners": the
# identity says null (total and per table) with a note of its own for each count, the header
# says the count is unknown and why, and still warns that an A/B side may inherit winners.
. "$(dirname "$0")/lib.sh"

FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
DEMO="$ZL_SOURCE_DIR/examples/demo"
cd "$TMP"
export ZL_NO_HISTORY=1
db="$FLAGGEMS_CACHE_DIR/config_cache/TunedConfig_nvidia_triton_3_6.db"
mkdir -p "$FLAGGEMS_CACHE_DIR/config_cache"
cp "$ZL_FIXTURES_DIR/flaggems-runs/tuner-db/mm_TunedConfig_nvidia_triton_3_6.db" "$db"
chmod u+w "$db"

# hold_lock UNTIL_FILE: an exclusive lock on the DB until UNTIL_FILE exists (then commit)
hold_lock() {
	"$ZL_TEST_PYTHON" - "$db" "$1" <<'PY' &
import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
open(sys.argv[1] + ".locked", "w").close()
while not os.path.exists(sys.argv[2]):
    time.sleep(0.05)
c.execute("COMMIT")
PY
	holder=$!
	for _ in $(seq 200); do [ -e "$db.locked" ] && break; sleep 0.05; done
	[ -e "$db.locked" ] || fail "the lock holder did not start"
	rm -f "$db.locked"
}

# locked for the whole run: both counts unknown, each with its own note
hold_lock "$TMP/never"
run_zl run --backend cuda --flaggems-dir "$FX" --op sleepy --python "$ZL_TEST_PYTHON" --out l1
touch "$TMP/never"
wait "$holder"
expect_rc 0
id=l1/run_identity.json
[ "$(json_get $id 'd["tuner_cache"]["winners_before"], d["tuner_cache"]["winners_after"], d["tuner_cache"]["configs_before"]')" = \
	"(None, None, None)" ] || fail "locked DB counted: $(json_get $id 'd["tuner_cache"]')"
[ "$(json_get $id '"locked" in d["tuner_cache"]["note_before"] and "locked" in d["tuner_cache"]["note_after"]')" = True ] ||
	fail "notes: $(json_get $id 'd["tuner_cache"]')"
contains "$TMP/err" "tuner cache: shared: $FLAGGEMS_CACHE_DIR, winners already stored unknown: tuner db '$db' not counted: database is locked"
lacks "$TMP/err" "0 winners already stored"
contains "$TMP/err" "warning: the shared tuner cache could not be counted, so it may hold winners: an A/B side may inherit them"
contains "$TMP/err" "tuner:       winners unknown -> unknown: tuner db '$db' not counted"

# locked at the start only (released once the run has begun): before unknown (total and the
# table first seen afterwards), after counted; the note of the start is kept apart
hold_lock "$TMP/l2/run_identity.json"
run_zl run --backend cuda --flaggems-dir "$DEMO" --op mm --python "$ZL_TEST_PYTHON" --out l2
wait "$holder"
expect_rc 0
id=l2/run_identity.json
[ "$(json_get $id 'd["tuner_cache"]["winners_before"], d["tuner_cache"]["winners_after"] >= 12, d["tuner_cache"]["note_after"]')" = \
	"(None, True, None)" ] || fail "locked at the start: $(json_get $id 'd["tuner_cache"]')"
[ "$(json_get $id '"locked" in d["tuner_cache"]["note_before"]')" = True ] || fail "note_before: $(json_get $id 'd["tuner_cache"]')"
[ "$(json_get $id 'sorted(set((t["winners_before"], t["winners_after"] is not None) for t in d["tuner_cache"]["tables"]))')" = \
	"[(None, True)]" ] || fail "tables: $(json_get $id 'd["tuner_cache"]["tables"]')"
contains "$TMP/err" "tuner:       winners unknown -> "

# unlocked: the same DB counts (its 12 and what the demo's mm added), with no note
run_zl run --backend cuda --flaggems-dir "$FX" --op sleepy --python "$ZL_TEST_PYTHON" --out l3
expect_rc 0
[ "$(json_get l3/run_identity.json 'd["tuner_cache"]["winners_before"] >= 12, d["tuner_cache"]["note_before"]')" = "(True, None)" ] ||
	fail "unlocked: $(json_get l3/run_identity.json 'd["tuner_cache"]')"
pass
