#!/bin/bash
# A password and a token planted in a push URL (user:password@, ?token=) and a secret-named
# variable given to ab (--b-env ZL_API_TOKEN=...) or to a run: none of them is in any file
# that run, batch, ab, report or push write (ZL_HOME and its spool included), nor in their
# output; where they were, the redacted form shows the host and "***" (or <redacted>). The
# push itself still sends the real credentials, and a spooled payload whose URL lost its
# secrets is resent only to that URL given again.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"
FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
export ZL_KILL_GRACE=2
cd "$TMP"
PW="pw-$$-$RANDOM-s3cr3t"
QT="qt-$$-$RANDOM-s3cr3t"
ET="et-$$-$RANDOM-s3cr3t"
LOGS="$TMP/logs"
mkdir -p "$LOGS"
n=0
# zl ARGS...: run_zl, keeping its stdout and stderr for the final grep
zl() {
	run_zl "$@"
	n=$((n + 1))
	cp "$TMP/out" "$LOGS/$n.out"
	cp "$TMP/err" "$LOGS/$n.err"
}

start_collector c1 --script 200
port=$(cat "$TMP/c1/port")
cred_url="http://bob:$PW@127.0.0.1:$port/api/runs?token=$QT&team=perf"
shown_url="http://bob:***@127.0.0.1:$port/api/runs?token=***&team=perf"

# a run that pushes, with a secret-named variable in its environment
ZL_API_TOKEN="$ET" zl run --backend cuda --flaggems-dir "$FX" --op sleepy --python "$ZL_TEST_PYTHON" \
	--out "$TMP/r1" --push "$cred_url"
expect_rc 0
expect_requests c1 1
# the push used the real credentials: the password as basic auth, the token in the query
"$ZL_TEST_PYTHON" - "$TMP/c1/req/0001.json" "$PW" "$QT" <<'PY' || fail "the push did not send the real credentials"
import base64, json, sys
req, pw, qt = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
auth = {k.lower(): v for k, v in req["headers"].items()}.get("authorization", "")
assert base64.b64decode(auth.split()[1]).decode() == "bob:" + pw, auth
assert ("token=" + qt) in req["path"], req["path"]
PY
rm -rf "$TMP/c1/req"/* # it holds the credentials, as the collector must see them
contains "$TMP/err" "delivered"
contains "$TMP/err" "$shown_url"
[ "$(json_get r1/run_identity.json '[a for a in d["argv"] if "127.0.0.1" in a]')" = "['$shown_url']" ] ||
	fail "argv: $(json_get r1/run_identity.json 'd["argv"]')"
[ "$(json_get r1/run_identity.json 'd["env"]["ZL_API_TOKEN"]')" = "<redacted>" ] || fail "ZL_API_TOKEN not redacted"

# a batch whose push finds the collector down: spooled, the file private, its URL redacted
stop_collector c1
zl batch --backend cuda --flaggems-dir "$FX" --python "$ZL_TEST_PYTHON" --progress none --devices 0 \
	--ops batch_p01 --push "$cred_url" --out "$TMP/b1"
expect_rc 0
contains "$TMP/err" "spooled"
[ "$(spool_files | wc -l)" -eq 1 ] || fail "expected one spool file: $(spool_files)"
sf=$(spool_files)
[ "$(stat -c %a "$sf")" = 600 ] || fail "spool file mode $(stat -c %a "$sf"), expected 600"
[ "$(head -n 1 "$sf" | json_get /dev/stdin 'd["url"], d["url_redacted"]')" = "('$shown_url', True)" ] ||
	fail "spool header: $(head -n 1 "$sf")"
[ "$(json_get b1/batch.json '[a for a in d["argv"] if "127.0.0.1" in a]')" = "['$shown_url']" ] ||
	fail "batch.json argv: $(json_get b1/batch.json 'd["argv"]')"
[ "$(json_get b1/batch.json '[a for s in d["sessions"] for a in s["argv"] if "127.0.0.1" in a]')" = \
	"['$shown_url']" ] || fail "batch.json sessions: $(json_get b1/batch.json 'd["sessions"]')"
# resumed: batch.json has no usable push URL; the resume pushes to the one given again
start_collector c2 --script 200
port2=$(cat "$TMP/c2/port")
url2="http://bob:$PW@127.0.0.1:$port2/api/runs?token=$QT&team=perf"
zl batch --resume "$TMP/b1" --retry-failed --progress none --push "$url2"
expect_rc 0
expect_requests c2 1
rm -rf "$TMP/c2/req"/*

# the flush: not to the stored (redacted) URL, nor to another ZL_PUSH_URL; to the same URL given again
ZL_PUSH_URL="$url2" zl push --flush-spool
[ "$RC" -ne 0 ] || fail "a flush sent a payload whose credentials were not stored"
contains "$TMP/err" "whose credentials are not stored"
contains "$TMP/err" "$shown_url"
[ "$(spool_files | wc -l)" -eq 1 ] || fail "the payload left the spool"
expect_requests c2 0
# a collector on the planted URL's port again: ZL_PUSH_URL naming it, secrets and all, resends
stop_collector c2
start_collector c3 --script 200 --port "$port"
ZL_PUSH_URL="$cred_url" zl push --flush-spool
expect_rc 0
expect_requests c3 1
[ -z "$(spool_files)" ] || fail "the flushed payload is still spooled"
"$ZL_TEST_PYTHON" - "$TMP/c3/req/0001.json" "$PW" "$QT" <<'PY' || fail "the flush did not send the real credentials"
import base64, json, sys
req, pw, qt = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
auth = {k.lower(): v for k, v in req["headers"].items()}.get("authorization", "")
assert base64.b64decode(auth.split()[1]).decode() == "bob:" + pw, auth
assert ("token=" + qt) in req["path"], req["path"]
PY
rm -rf "$TMP/c3/req"/*

# ab with a secret-named variable on one side: ab.json, its printed plan and header
demo_checkout "$TMP/demo"
abargs=(--backend cuda --flaggems-dir demo --python "$ZL_TEST_PYTHON" --op add --rounds 1
	--b-env "ZL_API_TOKEN=$ET" --a-env "ZL_MIRROR_URL=https://carol:$PW@mirror.example/x?sig=$QT")
zl ab "${abargs[@]}" --out ab-dry --dry-run -- --iter 5
expect_rc 0
contains "$TMP/out" "env ZL_API_TOKEN=<redacted>"
contains "$TMP/out" "env ZL_MIRROR_URL=https://carol:***@mirror.example/x?sig=***"
zl ab "${abargs[@]}" --out ab -- --iter 5
[ -s ab/ab.json ] || fail "ab wrote no ab.json (exit $RC)"
contains "$TMP/out" "env ZL_API_TOKEN=<redacted>"
[ "$(json_get ab/ab.json 'd["variables"]["b"]["env"]["ZL_API_TOKEN"], d["variables"]["a"]["env"]["ZL_MIRROR_URL"]')" = \
	"('<redacted>', 'https://carol:***@mirror.example/x?sig=***')" ] || fail "ab.json: $(json_get ab/ab.json 'd["variables"]')"

# the reports of all of them
zl report "$TMP/r1" -o "$TMP/r1.html"
expect_rc 0
zl report "$TMP/b1" -o "$TMP/b1.html"
expect_rc 0
contains "$TMP/b1.html" "http://bob:***@127.0.0.1:$port/api/runs?token=***&amp;team=perf"
zl report "$TMP/ab" -o "$TMP/ab.html"
expect_rc 0

# every file written (names too) and every output: not one of the three secrets
for s in "$PW" "$QT" "$ET"; do
	if grep -rlF -- "$s" "$TMP" "$ZL_HOME" 2>/dev/null | grep -q .; then
		grep -rlF -- "$s" "$TMP" "$ZL_HOME" >&2
		fail "a planted secret was written"
	fi
	if find "$TMP" "$ZL_HOME" 2>/dev/null | grep -qF -- "$s"; then
		fail "a planted secret is in a file name"
	fi
done
pass
