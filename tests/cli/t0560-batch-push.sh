#!/bin/bash
# batch --push URL (or ZL_PUSH_URL): every run of the batch is posted once, at the end,
# by the batch; the runs do not post themselves as well.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
export ZL_KILL_GRACE=2
batch() { push_zl batch --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --progress plain "$@"; }

export ZL_PUSH_TOKEN=$TOKEN
start_collector c1 --script 200
batch --devices 0,1 --ops batch_p01,batch_p02 --push "$URL" --out "$TMP/b"
expect_rc 0
expect_requests c1 2
contains "$TMP/err" "delivered"
# the bodies are the two runs' documents (in name order)
expect_document "$TMP/c1/req/0001.body" "$TMP/b/runs/batch_p01"
expect_document "$TMP/c1/req/0002.body" "$TMP/b/runs/batch_p02"
[ "$(tail -n 1 "$TMP/out")" = "BATCH_DIR=$TMP/b" ] || fail "BATCH_DIR is not the last line"

# ZL_PUSH_URL in the environment: still one document per run, from the batch only
ZL_PUSH_URL=$URL batch --devices 0 --ops batch_p03 --out "$TMP/e"
expect_rc 0
expect_requests c1 3
no_token_under "$TMP/b"
no_token_under "$TMP/e"
pass
