#!/bin/bash
# FLAGGEMS_DB_URL points libtuner at another database: an isolated run removes it from the
# child's environment (and says so); a shared run warns that it is not the database counted.
. "$(dirname "$0")/lib.sh"

DEMO="$ZL_SOURCE_DIR/examples/demo"
cd "$TMP"
export ZL_NO_HISTORY=1
R() { run_zl run --backend cuda --flaggems-dir "$DEMO" --op mm --python "$ZL_TEST_PYTHON" "$@"; }

# isolated: the run tunes into its own cache, the URL's database is never touched
FLAGGEMS_DB_URL="sqlite:///$TMP/elsewhere.db" R --out iso --isolate-tuner-cache
expect_rc 0
[ ! -e "$TMP/elsewhere.db" ] || fail "the isolated run's tuner wrote to FLAGGEMS_DB_URL's database"
contains "$TMP/err" "FLAGGEMS_DB_URL removed from the child's environment"
id=iso/run_identity.json
[ "$(json_get $id '"FLAGGEMS_DB_URL" in d["env"], d["tuner_cache"]["db_url"], d["tuner_cache"]["winners_after"] > 0')" = \
	"(False, 'removed', True)" ] || fail "isolated: $(json_get $id 'd["env"], d["tuner_cache"]')"
FLAGGEMS_DB_URL="sqlite:///$TMP/elsewhere.db" run_zl run --backend cuda --flaggems-dir "$DEMO" --op mm \
	--python "$ZL_TEST_PYTHON" --out dry --isolate-tuner-cache --dry-run
expect_rc 0
contains "$TMP/out" "unset FLAGGEMS_DB_URL"

# shared: the child uses the URL (that is the user's choice), and the header says the counts miss it
FLAGGEMS_DB_URL="sqlite:///$TMP/elsewhere.db" R --out sh
expect_rc 0
[ -s "$TMP/elsewhere.db" ] || fail "the shared run did not use FLAGGEMS_DB_URL"
contains "$TMP/err" "warning: FLAGGEMS_DB_URL is set: FlagGems' tuner uses that database, not '$FLAGGEMS_CACHE_DIR' counted here"
[ "$(json_get sh/run_identity.json 'd["tuner_cache"]["db_url"], d["env"]["FLAGGEMS_DB_URL"]')" = \
	"('not counted', 'sqlite:///$TMP/elsewhere.db')" ] || fail "shared: $(json_get sh/run_identity.json 'd["tuner_cache"]')"

# unset: no word about it
R --out plain
expect_rc 0
lacks "$TMP/err" "FLAGGEMS_DB_URL"
[ "$(json_get plain/run_identity.json 'd["tuner_cache"]["db_url"]')" = None ] || fail "db_url without the variable"
pass
