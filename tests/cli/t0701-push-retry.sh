#!/bin/bash
# push: 5xx, 429 and dropped connections are retried with backoff; --retries bounds them.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"

RUN="$TMP/run"
make_run "$RUN" 20260101-120000-cuda-mm-abc123
export ZL_PUSH_TOKEN=$TOKEN

# 503 twice, then success: three requests, the same document each time, nothing spooled
start_collector c1 --script 503,503,200 --message "collector warming up"
push_zl push "$RUN" --url "$URL"
expect_rc 0
expect_requests c1 3
for n in 0001 0002 0003; do
	expect_document "$TMP/c1/req/$n.body" "$RUN"
	[ "$(json_get "$TMP/c1/req/$n.json" 'd["headers"]["Authorization"]')" = "Bearer $TOKEN" ] ||
		fail "request $n lacks the token"
done
contains "$TMP/err" "HTTP 503: collector warming up (attempt 1 of 4)"
contains "$TMP/err" "(attempt 2 of 4)"
contains "$TMP/out" "(HTTP 200, 3 attempts)"
[ -z "$(spool_files)" ] || fail "a delivered run was spooled"

# a connection closed without a reply and a 429 are retried too
start_collector c2 --script close,429,200
push_zl push "$RUN" --url "$URL"
expect_rc 0
expect_requests c2 3

# always 502: 1 + --retries attempts, then the spool, exit 1
start_collector c3 --script 502
push_zl push "$RUN" --url "$URL" --retries 2
expect_rc 1
expect_requests c3 3
contains "$TMP/err" "after 3 attempts: HTTP 502"
[ "$(spool_files | wc -l)" -eq 1 ] || fail "expected one spooled payload"
contains "$TMP/err" "spooled to '$(spool_files)'"

# --retries 0: one attempt only
push_zl push "$RUN" --url "$URL" --retries 0
expect_rc 1
expect_requests c3 4
[ "$(spool_files | wc -l)" -eq 2 ] || fail "expected two spooled payloads (unique names)"

# the default is 3 retries (4 attempts)
push_zl push "$RUN" --url "$URL"
expect_rc 1
expect_requests c3 8

# a bad backoff setting is a usage error, before anything is sent
ZL_PUSH_BACKOFF_MS=soon push_zl push "$RUN" --url "$URL"
expect_rc 2
contains "$TMP/err" "ZL_PUSH_BACKOFF_MS"
expect_requests c3 8

no_token_under "$ZL_HOME"
pass
