#!/bin/bash
# push: TLS certificates are verified unless --insecure is given.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"

command -v openssl >/dev/null || fail "openssl is needed to make a test certificate"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" \
	-addext "subjectAltName=IP:127.0.0.1" \
	-keyout "$TMP/key.pem" -out "$TMP/cert.pem" >"$TMP/openssl.log" 2>&1 ||
	{ cat "$TMP/openssl.log" >&2; fail "openssl could not make a certificate"; }

RUN="$TMP/run"
make_run "$RUN" 20260101-120000-cuda-mm-abc123
export ZL_PUSH_TOKEN=$TOKEN
start_collector c1 --script 200 --tls-cert "$TMP/cert.pem" --tls-key "$TMP/key.pem"
HTTPS_URL=${URL/http:/https:}

# a self-signed certificate is refused: not retried (waiting cannot fix it), spooled, exit 1
push_zl push "$RUN" --url "$HTTPS_URL" --retries 3
expect_rc 1
contains "$TMP/err" "TLS verification failed; --insecure skips it"
lacks "$TMP/err" "attempt 1 of"
[ "$(spool_files | wc -l)" -eq 1 ] || fail "the refused payload was not spooled"
expect_requests c1 0

# --insecure delivers it, token and all
push_zl push "$RUN" --url "$HTTPS_URL" --insecure
expect_rc 0
expect_requests c1 1
expect_document "$TMP/c1/req/0001.body" "$RUN"
[ "$(json_get "$TMP/c1/req/0001.json" 'd["headers"]["Authorization"]')" = "Bearer $TOKEN" ] ||
	fail "no token over https"

# and the spooled one follows with --flush-spool --insecure
push_zl push --flush-spool --insecure
expect_rc 0
expect_requests c1 2
[ -z "$(spool_files)" ] || fail "the spool is not empty"

no_token_under "$ZL_HOME"
pass
