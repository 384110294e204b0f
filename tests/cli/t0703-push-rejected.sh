#!/bin/bash
# push: a 4xx is final: no retry, no spool, the server's message shown, exit 1.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"

RUN="$TMP/run"
make_run "$RUN" 20260101-120000-cuda-mm-abc123
export ZL_PUSH_TOKEN=$TOKEN

# JSON {"message": ...}
start_collector c1 --script 403 --message "token lacks the push scope"
push_zl push "$RUN" --url "$URL"
expect_rc 1
expect_requests c1 1
contains "$TMP/err" "rejected 20260101-120000-cuda-mm-abc123: HTTP 403: token lacks the push scope"
[ -z "$(spool_files)" ] || fail "a rejected run was spooled"
lacks "$TMP/err" "attempt"

# a plain-text body: its first line
start_collector c2 --script "422:identity.run_id already stored"
push_zl push "$RUN" --url "$URL" --retries 5
expect_rc 1
expect_requests c2 1
contains "$TMP/err" "HTTP 422: identity.run_id already stored"

# a redirect is not followed (it would turn the POST into something else); it is final too
start_collector c3 --script 301
push_zl push "$RUN" --url "$URL"
expect_rc 1
expect_requests c3 1
contains "$TMP/err" "HTTP 301"
[ -z "$(spool_files)" ] || fail "a redirected run was spooled"

no_token_under "$ZL_HOME"
pass
