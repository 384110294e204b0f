#!/bin/bash
# Replay records that give one key two different configs (a hand-merged copy) are not pinned
# silently: the run warns, names the key and both files, and its identity lists them.
. "$(dirname "$0")/lib.sh"

FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"
export ZL_NO_HISTORY=1
R() { run_zl run --backend cuda --flaggems-dir "$FX" --python "$ZL_TEST_PYTHON" --op mm --isolate-tuner-cache "$@"; }

R --out rec
expect_rc 0
rec=$(ls rec/autotune_records)
[ "$(echo "$rec" | wc -l)" -eq 1 ] || fail "expected one record file: $rec"
# a clean replay: no conflict
R --out ok --replay-from rec
expect_rc 0
lacks "$TMP/err" "two different configs"
[ "$(json_get ok/run_identity.json 'd["autotune"]["replay_conflicts"]')" = "[]" ] || fail "clean replay conflicts"

# a second file of the same kernel whose first key has another config, read after the first
"$ZL_TEST_PYTHON" - "rec/autotune_records/$rec" "rec/autotune_records/zz-merged.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
e = doc["entries"][0]
# another config than the one recorded (the demo's autotuner may have picked either)
other = 64 if e["config"]["kwargs"]["BLOCK_M"] == 32 else 32
e["config"]["kwargs"]["BLOCK_M"] = e["config"]["all_kwargs"]["BLOCK_M"] = other
doc["entries"] = [e]
json.dump(doc, open(sys.argv[2], "w"))
PY
R --out rp --replay-from rec
expect_rc 0
contains "$TMP/out" "zl_autotune: warning: the replay source records 1 key with two different configs"
contains "$TMP/out" "zz-merged.json over $rec"
contains "$TMP/err" "zlbench: warning: the replay source records 1 autotune key with two different configs"
[ "$(json_get rp/run_identity.json '[(c["kept"], c["dropped"]) for c in d["autotune"]["replay_conflicts"]]')" = \
	"[('zz-merged.json', '$rec')]" ] || fail "identity: $(json_get rp/run_identity.json 'd["autotune"]')"
pass
