#!/bin/bash
# push without a usable libcurl: the URL is still checked (exit 2 when bad), the payload is
# spooled and the message says why; a libcurl older than 7.85 (no CURLOPT_PROTOCOLS_STR)
# still delivers, restricted to http/https by the CURLOPT_PROTOCOLS bitmask.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"
unset ZL_CURL_LIB

RUN="$TMP/run"
make_run "$RUN" 20260101-120000-cuda-mm-abc123
export ZL_PUSH_TOKEN=$TOKEN
start_collector c1 --script 200

# a machine without libcurl: bad URLs are still refused, before anything is read
for bad in "ftp://127.0.0.1/x" "http:///api" "http://user:pass@[bad" "http://h:99999/x" \
	   "http://h:8x/x" "http://a b/x" "perf.example/api"; do
	ZL_CURL_LIB=/nonexistent/libcurl.so push_zl push "$RUN" --url "$bad"
	expect_rc 2
	contains "$TMP/err" "invalid push URL"
	lacks "$TMP/err" "pass"
done
# ... and a good one is spooled, saying why
ZL_CURL_LIB=/nonexistent/libcurl.so push_zl push "$RUN" --url "$URL"
expect_rc 1
contains "$TMP/err" "cannot load libcurl"
contains "$TMP/err" "libcurl is unusable: cannot initialise libcurl: libcurl could not be loaded"
[ "$(spool_files | wc -l)" -eq 1 ] || fail "expected one spooled payload"
SPOOLED=$(spool_files)
contains "$TMP/err" "spooled to '$SPOOLED'"
tail -n 1 "$SPOOLED" >"$TMP/payload.json"
expect_document "$TMP/payload.json" "$RUN"
[ "$(head -n 1 "$SPOOLED" | "$ZL_TEST_PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["url"])')" = "$URL" ] ||
	fail "spooled URL"
no_token_under "$ZL_HOME"
expect_requests c1 0
# a flush without libcurl keeps the payload
ZL_CURL_LIB=/nonexistent/libcurl.so push_zl push --flush-spool
expect_rc 1
contains "$TMP/err" "cannot resend the spool: cannot initialise libcurl: libcurl could not be loaded; its 1 payload stay in"
[ "$(spool_files)" = "$SPOOLED" ] || fail "a flush without libcurl lost the payload"
# with libcurl back, the flush delivers it
push_zl push --flush-spool
expect_rc 0
expect_requests c1 1
[ -z "$(spool_files)" ] || fail "the spool is not empty"

# a libcurl that refuses CURLOPT_PROTOCOLS_STR (older than 7.85) falls back to the bitmask
CC=$(command -v cc || command -v gcc || :)
if [ -n "$CC" ] && "$CC" -shared -fPIC -o "$TMP/old_libcurl.so" \
	"$ZL_SOURCE_DIR/tests/helpers/old_libcurl.c" -Wl,--no-as-needed -l:libcurl.so.4 -ldl 2>"$TMP/cc.err"; then
	ZL_TEST_OLDCURL_LOG="$TMP/oldcurl.log" ZL_CURL_LIB="$TMP/old_libcurl.so" push_zl push "$RUN" --url "$URL"
	expect_rc 0
	expect_requests c1 2
	# CURLPROTO_HTTP | CURLPROTO_HTTPS
	contains "$TMP/oldcurl.log" "CURLOPT_PROTOCOLS 3"
	expect_document "$TMP/c1/req/0002.body" "$RUN"
else
	echo "skip: no C compiler or libcurl to build an old libcurl stand-in: $(cat "$TMP/cc.err" 2>/dev/null)" >&2
fi
pass
