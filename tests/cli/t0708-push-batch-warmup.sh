#!/bin/bash
# push BATCH_DIR leaves out the batch's warm-up shards (warmup.role "shard": record runs over a
# slice of the shapes) and says how many; the timed run and plain runs go. A shard given by
# itself is pushed.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"

B="$TMP/batch"
set_warmup() {
	"$ZL_TEST_PYTHON" - "$1/run_identity.json" "$2" <<'PY' || fail "set warmup in $1"
import json, sys
path, role = sys.argv[1:3]
d = json.load(open(path))
d["warmup"] = {"role": role, "op": "mm", "shards": 2}
json.dump(d, open(path, "w"))
PY
}
make_run "$B/runs/20260101-120000-cuda-mm-aaaaaa" 20260101-120000-cuda-mm-aaaaaa
set_warmup "$B/runs/20260101-120000-cuda-mm-aaaaaa" timed
make_run "$B/runs/20260101-120500-cuda-add-bbbbbb" 20260101-120500-cuda-add-bbbbbb
make_run "$B/warmup/mm/shard-1" 20260101-110000-cuda-mm-s1s1s1
set_warmup "$B/warmup/mm/shard-1" shard
make_run "$B/warmup/mm/shard-2" 20260101-110000-cuda-mm-s2s2s2
set_warmup "$B/warmup/mm/shard-2" shard
export ZL_PUSH_TOKEN=$TOKEN
start_collector c1 --script 200

push_zl push "$B" --url "$URL"
expect_rc 0
expect_requests c1 2
expect_document "$TMP/c1/req/0001.body" "$B/runs/20260101-120000-cuda-mm-aaaaaa"
expect_document "$TMP/c1/req/0002.body" "$B/runs/20260101-120500-cuda-add-bbbbbb"
contains "$TMP/err" "skipped 2 warm-up shard runs (warmup.role \"shard\""
contains "$TMP/out" "pushed 2 runs: 2 delivered, 0 spooled, 0 rejected, 0 failed; 2 warm-up shards skipped"
lacks "$TMP/out" "s1s1s1"

# --dry-run: the same documents, the shards left out
push_zl push "$B" --dry-run
expect_rc 0
[ "$(wc -l <"$TMP/out")" -eq 2 ] || fail "dry run: expected 2 documents"
lacks "$TMP/out" "s1s1s1"

# a batch of nothing but shards is not an error: nothing to push
push_zl push "$B/warmup" --url "$URL"
expect_rc 0
expect_requests c1 2
contains "$TMP/err" "skipped 2 warm-up shard runs"

# a shard asked for by name is pushed
push_zl push "$B/warmup/mm/shard-1" --url "$URL"
expect_rc 0
expect_requests c1 3
expect_document "$TMP/c1/req/0003.body" "$B/warmup/mm/shard-1"
pass
