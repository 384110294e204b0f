#!/bin/bash
# The main job (scripts/main-job.sh, README's first command) touches nothing in HOME when
# ZL_HOME is elsewhere: not FlagGems' tuner cache (~/.flaggems) nor Triton's (~/.triton), with
# the bundled demo and with a FlagGems checkout (FLAGGEMS_DIR). Every entry of HOME, with its
# type, size, mode and mtime, is the same afterwards.
. "$(dirname "$0")/lib.sh"
H="$TMP/home"
mkdir -p "$H/.flaggems/config_cache" "$H/.triton/cache" "$H/.local/share"
echo "a user's tuned configs" >"$H/.flaggems/config_cache/TunedConfig_nvidia_triton_3_2.db"
echo "a kernel" >"$H/.triton/cache/k.cubin"
touch -d '2026-01-01 00:00:00' "$H"/.flaggems/config_cache/* "$H"/.triton/cache/* "$H"/.*/ "$H"/.*/* "$H"
listing() { (cd "$H" && find . -printf '%p %y %s %m %T@\n' | LC_ALL=C sort); }
listing >before.txt
# as a user's shell has them: no cache directories set; zlbench's data elsewhere
unset FLAGGEMS_CACHE_DIR TRITON_CACHE_DIR
main_job() {
	set +e
	HOME="$H" ZL_HOME="$TMP/zlhome" ZLBENCH="$ZLBENCH" ZL_PYTHON="$ZL_TEST_PYTHON" ZL_BACKEND=cuda \
		bash "$ZL_SOURCE_DIR/scripts/main-job.sh" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	set -e
}

# the bundled demo
main_job --out "$TMP/r1"
expect_rc 0
grep -q "^RUN_DIR=$TMP/r1\$" "$TMP/out" || fail "no RUN_DIR line: $(tail -n 3 "$TMP/out")"
[ "$(json_get "$TMP/r1/run_identity.json" 'd["tuner_cache"]["mode"]')" = isolated ] || fail "tuner cache not isolated"
listing >after.txt
diff before.txt after.txt >&2 || fail "the demo's main job changed HOME"

# a FlagGems checkout (the demo copied, as a user's FLAGGEMS_DIR)
cp -r "$ZL_SOURCE_DIR/examples/demo" "$TMP/FlagGems"
FLAGGEMS_DIR="$TMP/FlagGems" OP=add main_job --out "$TMP/r2"
expect_rc 0
listing >after.txt
diff before.txt after.txt >&2 || fail "the main job on a FlagGems checkout changed HOME"
[ "$(json_get "$TMP/r2/run_identity.json" 'd["status"], d["tuner_cache"]["mode"]')" = "('passed', 'isolated')" ] ||
	fail "checkout run: $(json_get "$TMP/r2/run_identity.json" 'd["status"], d["tuner_cache"]["mode"]')"
# the user can still ask for the shared caches, later flags winning
FLAGGEMS_DIR="$TMP/FlagGems" OP=add main_job --out "$TMP/r3" --shared-tuner-cache
expect_rc 0
[ "$(json_get "$TMP/r3/run_identity.json" 'd["tuner_cache"]["mode"]')" = shared ] || fail "--shared-tuner-cache"
pass
