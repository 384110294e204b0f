#!/bin/bash
# push: usage errors exit 2 before anything is sent; the token is never echoed.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"

RUN="$TMP/run"
make_run "$RUN" 20260101-120000-cuda-mm-abc123
export ZL_PUSH_TOKEN=$TOKEN
start_collector c1 --script 200

push_zl push "$RUN"
expect_rc 2
contains "$TMP/err" "no collector URL: give --url URL or set ZL_PUSH_URL"

push_zl push "$RUN" --url "ftp://127.0.0.1/x"
expect_rc 2
contains "$TMP/err" "only http:// and https://"

push_zl push "$RUN" --url "http://user:pass@[bad"
expect_rc 2
contains "$TMP/err" "invalid push URL 'http://user:***@[bad'"
lacks "$TMP/err" "pass"

push_zl push "$TMP/nowhere" --url "$URL"
expect_rc 2
contains "$TMP/err" "'$TMP/nowhere' is not a directory"

mkdir -p "$TMP/empty"
push_zl push "$TMP/empty" --url "$URL"
expect_rc 2
contains "$TMP/err" "neither a run directory nor a batch directory"

mkdir -p "$TMP/broken"
echo '{"run_id": ' >"$TMP/broken/run_identity.json"
push_zl push "$TMP/broken" --url "$URL"
expect_rc 2
contains "$TMP/err" "run_identity.json' is not valid JSON"

make_run "$TMP/busy" 20260101-140000-cuda-mm-000001 running
push_zl push "$TMP/busy" --url "$URL"
expect_rc 2
contains "$TMP/err" "is still running"

push_zl push
expect_rc 2
contains "$TMP/err" "nothing to push"
push_zl push --flush-spool "$RUN"
expect_rc 2
push_zl push "$RUN" --url "$URL" --retries -1
expect_rc 2
contains "$TMP/err" "invalid --retries '-1'"
push_zl push "$RUN" --url "$URL" --connect-timeout 0
expect_rc 2
push_zl push "$RUN" --url "$URL" --max-time soon
expect_rc 2
push_zl push "$RUN" --url "$URL" --token x
expect_rc 2

# a token with a line break would inject headers: refused, and not echoed
ZL_PUSH_TOKEN="$TOKEN
X-Injected: 1" push_zl push "$RUN" --url "$URL"
expect_rc 2
contains "$TMP/err" "ZL_PUSH_TOKEN contains a line break"

# none of the above reached the collector
expect_requests c1 0

push_zl push --help
expect_rc 0
contains "$TMP/out" "ZL_PUSH_TOKEN"
contains "$TMP/out" "--flush-spool"
pass
