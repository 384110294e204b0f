#!/bin/bash
# push: collector down -> spool; --flush-spool resends; a payload leaves the spool only after a 2xx.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"

RUN="$TMP/run"
make_run "$RUN" 20260101-120000-cuda-mm-abc123
export ZL_PUSH_TOKEN=$TOKEN
PORT=$(free_port)
DOWN="http://127.0.0.1:$PORT/api/runs"

# nobody listens: every retry fails, the payload is spooled and the command says where
push_zl push "$RUN" --url "$DOWN"
expect_rc 1
[ "$(spool_files | wc -l)" -eq 1 ] || fail "expected one spooled payload"
SPOOLED=$(spool_files)
contains "$TMP/err" "spooled to '$SPOOLED'"
contains "$TMP/err" "zlbench push --flush-spool"
# the spool file holds the URL and the payload, nothing else: a header line, the payload line
[ "$(wc -l <"$SPOOLED")" -eq 2 ] || fail "spool file is not two lines"
head -n 1 "$SPOOLED" >"$TMP/header.json"
tail -n 1 "$SPOOLED" >"$TMP/payload.json"
[ "$(json_get "$TMP/header.json" 'sorted(d)')" = "['schema', 'url']" ] || fail "spool header keys"
[ "$(json_get "$TMP/header.json" 'd["url"]')" = "$DOWN" ] || fail "spool file URL"
expect_document "$TMP/payload.json" "$RUN"
no_token_under "$ZL_HOME"

# --list-spool names it
push_zl push --list-spool
expect_rc 0
contains "$TMP/out" "$SPOOLED"
contains "$TMP/out" "20260101-120000-cuda-mm-abc123"
contains "$TMP/out" "$DOWN"

# flushing while the collector is still down keeps it
push_zl push --flush-spool --retries 1
expect_rc 1
contains "$TMP/err" "it stays in the spool at '$SPOOLED'"
[ "$(spool_files)" = "$SPOOLED" ] || fail "a failed flush lost the payload"

# a new push says that older payloads wait
start_collector other --script 200
OTHER=$URL
push_zl push "$RUN" --url "$OTHER"
expect_rc 0
contains "$TMP/err" "1 earlier payload(s) wait in the spool"

# the collector comes up on the recorded URL (ZL_PUSH_URL does not redirect spooled payloads)
start_collector c1 --port "$PORT" --script 200
ZL_PUSH_URL=$OTHER push_zl push --flush-spool
expect_rc 0
expect_requests c1 1
expect_requests other 1
expect_document "$TMP/c1/req/0001.body" "$RUN"
[ "$(json_get "$TMP/c1/req/0001.json" 'd["headers"]["Authorization"]')" = "Bearer $TOKEN" ] ||
	fail "the flush did not send the token"
contains "$TMP/out" "1 delivered, 0 still spooled"
[ -z "$(spool_files)" ] || fail "the spool is not empty after a delivered flush"

# an empty spool is fine
push_zl push --flush-spool
expect_rc 0
contains "$TMP/out" "the spool is empty"
expect_requests c1 1

# --url sends spooled payloads elsewhere; a 4xx there keeps them
stop_collector c1
push_zl push "$RUN" --url "$DOWN" --retries 0
expect_rc 1
start_collector c2 --script 404 --message "no such project"
push_zl push --flush-spool --url "$URL"
expect_rc 1
expect_requests c2 1
contains "$TMP/err" "HTTP 404: no such project"
[ "$(spool_files | wc -l)" -eq 1 ] || fail "a rejected payload left the spool"
start_collector c3 --script 202
push_zl push --flush-spool --url "$URL"
expect_rc 0
expect_requests c3 1
expect_document "$TMP/c3/req/0001.body" "$RUN"
[ -z "$(spool_files)" ] || fail "the spool is not empty"

# a damaged spool file is reported and left alone
mkdir -p "$ZL_HOME/spool"
echo '{"not":"a spool file"}' >"$ZL_HOME/spool/20000101T000000Z-damaged.jsonl"
push_zl push --flush-spool --url "$URL"
expect_rc 1
contains "$TMP/err" "is not a zlbench spool file"
[ -f "$ZL_HOME/spool/20000101T000000Z-damaged.jsonl" ] || fail "a damaged spool file was removed"
expect_requests c3 1

# two flushes at once would send a payload twice: the second one stops (exit 1)
rm "$ZL_HOME/spool/20000101T000000Z-damaged.jsonl"
push_zl push "$RUN" --url "$DOWN" --retries 0
expect_rc 1
exec 9>"$ZL_HOME/spool/.lock"
flock -n 9 || fail "cannot take the spool lock for the test"
push_zl push --flush-spool --url "$URL"
expect_rc 1
contains "$TMP/err" "another 'zlbench push --flush-spool' holds"
exec 9>&-
expect_requests c3 1
[ "$(spool_files | wc -l)" -eq 1 ] || fail "the locked-out flush touched the spool"

# when the spool itself cannot be written, the command says so and that the run still holds it
no_token_under "$ZL_HOME"
echo "not a directory" >"$TMP/blocked"
ZL_HOME="$TMP/blocked" push_zl push "$RUN" --url "$DOWN" --retries 0
expect_rc 1
contains "$TMP/err" "could not spool it"
contains "$TMP/err" "the run directory '$RUN' still holds it"
pass
