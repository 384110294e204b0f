#!/bin/bash
# A relative FLAGGEMS_CACHE_DIR / TRITON_CACHE_DIR means a directory under zlbench's cwd:
# the child (which runs in the FlagGems root) gets it as an absolute path, and zlbench counts
# the same directory. An empty one is unset, for the child and for the counts.
. "$(dirname "$0")/lib.sh"

cd "$TMP"
export ZL_NO_HISTORY=1
# a copy of the demo, so that a cache written in the wrong place stays under $TMP
cp -r "$ZL_SOURCE_DIR/examples/demo" demo
mkdir -p work/rel-cache/config_cache
cp "$ZL_FIXTURES_DIR/flaggems-runs/tuner-db/mm_TunedConfig_nvidia_triton_3_6.db" \
	work/rel-cache/config_cache/TunedConfig_nvidia_triton_3_6.db
chmod u+w work/rel-cache/config_cache/TunedConfig_nvidia_triton_3_6.db
cd work
FLAGGEMS_CACHE_DIR=rel-cache TRITON_CACHE_DIR=rel-triton run_zl run --backend cuda --flaggems-dir ../demo --op mm \
	--python "$ZL_TEST_PYTHON" --out r1
expect_rc 0
id=r1/run_identity.json
[ "$(json_get $id 'd["tuner_cache"]["path"], d["env"]["FLAGGEMS_CACHE_DIR"], d["triton_cache"]["path"], d["env"]["TRITON_CACHE_DIR"]')" = \
	"('$TMP/work/rel-cache', '$TMP/work/rel-cache', '$TMP/work/rel-triton', '$TMP/work/rel-triton')" ] ||
	fail "paths: $(json_get $id 'd["tuner_cache"]["path"], d["triton_cache"]["path"], d["env"]')"
# counted where the child tuned: the 12 stored, and what this run added to the same DB
[ "$(json_get $id 'd["tuner_cache"]["winners_before"], d["tuner_cache"]["winners_after"] > 12')" = "(12, True)" ] ||
	fail "counts: $(json_get $id 'd["tuner_cache"]')"
[ "$(json_get $id 'd["compile"]["variants"] > 0')" = True ] || fail "compile: $(json_get $id 'd["compile"]')"
[ -n "$(ls rel-triton)" ] || fail "the child did not compile into ./rel-triton"
[ ! -e ../demo/rel-cache ] && [ ! -e ../demo/rel-triton ] || fail "the child resolved the caches in the FlagGems root"
contains "$TMP/err" "tuner cache: shared: $TMP/work/rel-cache, 12 winners already stored"
FLAGGEMS_CACHE_DIR=rel-cache run_zl run --backend cuda --flaggems-dir ../demo --op mm --python "$ZL_TEST_PYTHON" \
	--out dry --dry-run
expect_rc 0
contains "$TMP/out" "FLAGGEMS_CACHE_DIR=$TMP/work/rel-cache"

# empty: the defaults under HOME, for the child and the counts alike
mkdir -p "$TMP/home"
HOME="$TMP/home" FLAGGEMS_CACHE_DIR= TRITON_CACHE_DIR= run_zl run --backend cuda --flaggems-dir ../demo --op mm \
	--python "$ZL_TEST_PYTHON" --out r2
expect_rc 0
id=r2/run_identity.json
[ "$(json_get $id 'd["tuner_cache"]["path"], d["triton_cache"]["path"], "FLAGGEMS_CACHE_DIR" in d["env"], "TRITON_CACHE_DIR" in d["env"]')" = \
	"('$TMP/home/.flaggems', '$TMP/home/.triton/cache', False, False)" ] || fail "empty: $(json_get $id 'd["tuner_cache"]["path"], d["env"]')"
[ "$(json_get $id 'd["tuner_cache"]["winners_before"], d["tuner_cache"]["winners_after"] > 0')" = "(0, True)" ] ||
	fail "empty counts: $(json_get $id 'd["tuner_cache"]')"
[ ! -e ../demo/config_cache ] || fail "an empty FLAGGEMS_CACHE_DIR put the tuner DB in the FlagGems root"
pass
