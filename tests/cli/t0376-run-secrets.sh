#!/bin/bash
# Credentials in a URL (--push, ZL_PUSH_URL, any recorded variable) and secret-named variables in
# any case (ZL_api_token) never reach the run's identity.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"

FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"
export ZL_NO_HISTORY=1
R() { run_zl run --backend cuda --flaggems-dir "$FX" --op sleepy --python "$ZL_TEST_PYTHON" "$@"; }

# user:password in the push URL and a lower-case secret name: redacted in the identity
start_collector c1 --script 200
cred_url=${URL/http:\/\//http://alice:pw-$$-s3cr3t@}
ZL_api_token="tok-$$-s3cr3t" R --out p1 --push "$cred_url"
expect_rc 0
expect_requests c1 1
[ "$(json_get p1/run_identity.json 'd["env"]["ZL_api_token"]')" = "<redacted>" ] || fail "ZL_api_token not redacted"
[ "$(json_get p1/run_identity.json '[a for a in d["argv"] if "127.0.0.1" in a]')" = \
	"['${URL/http:\/\//http://alice:***@}']" ] || fail "argv: $(json_get p1/run_identity.json 'd["argv"]')"
if grep -rqF -- "-$$-s3cr3t" p1 "$TMP/c1/req"; then
	grep -rlF -- "-$$-s3cr3t" p1 "$TMP/c1/req" >&2
	fail "a credential was written"
fi
# the push URL from the environment, and any URL in a recorded variable
ZL_PUSH_URL="$cred_url" ZL_MIRROR_URL="https://carol:mi-$$-s3cr3t@mirror.example/x?y=1" R --out p2
expect_rc 0
expect_requests c1 2
# (ZL_PUSH_URL is zlbench's own: removed from the child's environment, so not recorded there)
[ "$(json_get p2/run_identity.json '"ZL_PUSH_URL" in d["env"], d["env"]["ZL_MIRROR_URL"]')" = \
	"(False, 'https://carol:***@mirror.example/x?y=1')" ] ||
	fail "env: $(json_get p2/run_identity.json 'd["env"]')"
if grep -rqF -- "-$$-s3cr3t" p2 "$TMP/c1/req"; then
	grep -rlF -- "-$$-s3cr3t" p2 "$TMP/c1/req" >&2
	fail "a credential from the environment was written"
fi
pass
