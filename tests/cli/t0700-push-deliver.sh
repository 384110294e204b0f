#!/bin/bash
# push: a run reaches the collector as one document with the bearer token; --dry-run sends nothing.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"

RUN="$TMP/runs/20260101-120000-cuda-mm-abc123"
make_run "$RUN" 20260101-120000-cuda-mm-abc123
start_collector c1 --script 201

# delivered: the body is the files' JSON, the token is in the Authorization header only
ZL_PUSH_TOKEN=$TOKEN push_zl push "$RUN" --url "$URL"
expect_rc 0
contains "$TMP/out" "delivered 20260101-120000-cuda-mm-abc123 to $URL (HTTP 201, 1 attempt)"
expect_requests c1 1
[ "$(json_get "$TMP/c1/req/0001.json" 'd["method"]')" = POST ] || fail "not a POST"
[ "$(json_get "$TMP/c1/req/0001.json" 'd["path"]')" = /api/runs ] || fail "wrong path"
[ "$(json_get "$TMP/c1/req/0001.json" 'd["headers"]["Authorization"]')" = "Bearer $TOKEN" ] ||
	fail "no bearer token in the Authorization header"
[ "$(json_get "$TMP/c1/req/0001.json" 'd["headers"]["Content-Type"]')" = application/json ] ||
	fail "wrong content type"
expect_document "$TMP/c1/req/0001.body" "$RUN"
[ -z "$(spool_files)" ] || fail "a delivered run was spooled"

# no token: no Authorization header at all; ZL_PUSH_URL stands in for --url
ZL_PUSH_URL=$URL push_zl push "$RUN"
expect_rc 0
expect_requests c1 2
[ "$(json_get "$TMP/c1/req/0002.json" '"Authorization" in d["headers"]')" = False ] ||
	fail "an Authorization header was sent without ZL_PUSH_TOKEN"
expect_document "$TMP/c1/req/0002.body" "$RUN"

# --url wins over ZL_PUSH_URL
start_collector c2 --script 200
URL2=$URL
ZL_PUSH_URL="http://127.0.0.1:1/nowhere" ZL_PUSH_TOKEN=$TOKEN push_zl push "$RUN" --url "$URL2"
expect_rc 0
expect_requests c2 1

# a run without results.json (it crashed early) still explains itself: results is null
FAILED="$TMP/runs/20260101-130000-cuda-mm-def456"
make_run "$FAILED" 20260101-130000-cuda-mm-def456 crashed
rm "$FAILED/results.json"
ZL_PUSH_TOKEN=$TOKEN push_zl push "$FAILED" --url "$URL2"
expect_rc 0
expect_requests c2 2
[ "$(json_get "$TMP/c2/req/0002.body" 'd["results"]')" = None ] || fail "results not null"
expect_document "$TMP/c2/req/0002.body" "$FAILED"

# --dry-run prints the document and sends nothing (no URL needed)
ZL_PUSH_TOKEN=$TOKEN push_zl push --dry-run "$RUN"
expect_rc 0
expect_document "$TMP/out" "$RUN"
expect_requests c1 2
expect_requests c2 2

# -q keeps stdout clean on success
ZL_PUSH_TOKEN=$TOKEN push_zl -q push "$RUN" --url "$URL2"
expect_rc 0
[ ! -s "$TMP/out" ] || fail "--quiet printed: $(cat "$TMP/out")"
expect_requests c2 3

no_token_under "$ZL_HOME"
no_token_under "$TMP/runs"
pass
