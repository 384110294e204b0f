#!/bin/bash
# push against a collector that is down, hangs (reads the request, never answers) or resets
# every connection: bounded in time, the document spooled (nothing lost), a message naming the
# URL and the spool file, exit 1; the run directory untouched; --flush-spool delivers it once
# the collector is back.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"

RUN="$TMP/run"
make_run "$RUN" 20260101-120000-cuda-mm-fault1
before=$(cd "$RUN" && sha256sum run_identity.json results.json)
spooled() { ls "$ZL_HOME/spool"/*.jsonl 2>/dev/null | wc -l; }

# timed PUSH-ARGS...: push, and the seconds it took in $SECS
timed() {
	local t0 t1
	t0=$(date +%s.%N)
	run_zl push "$RUN" "$@"
	t1=$(date +%s.%N)
	SECS=$("$ZL_TEST_PYTHON" -c 'import sys; print(int(float(sys.argv[2]) - float(sys.argv[1]) + 0.999))' "$t0" "$t1")
}

# down: nothing listens on the port
DOWN="http://127.0.0.1:$(free_port)/api/runs"
timed --url "$DOWN" --retries 2 --connect-timeout 2
expect_rc 1
contains "$TMP/err" "could not push 20260101-120000-cuda-mm-fault1 to $DOWN after 3 attempts"
contains "$TMP/err" "spooled to '$ZL_HOME/spool/"
[ "$(spooled)" -eq 1 ] || fail "down: $(spooled) spooled"
[ "$SECS" -le 10 ] || fail "down: took $SECS s"

# hanging: the first request is read and never answered; --max-time bounds every attempt
start_collector hang --script hang
timed --url "$URL" --retries 1 --max-time 1 --connect-timeout 1
expect_rc 1
contains "$TMP/err" "after 2 attempts"
contains "$TMP/err" "spooled to"
[ "$(spooled)" -eq 2 ] || fail "hang: $(spooled) spooled"
[ "$SECS" -le 8 ] || fail "hang: took $SECS s with --max-time 1 --retries 1"
[ "$(requests hang)" -ge 1 ] || fail "the hanging collector saw no request"
stop_collector hang

# resetting: every connection is closed without a reply
start_collector reset --script close
timed --url "$URL" --retries 2
expect_rc 1
expect_requests reset 3
contains "$TMP/err" "after 3 attempts"
[ "$(spooled)" -eq 3 ] || fail "reset: $(spooled) spooled"
stop_collector reset

# nothing of the run changed; the collector comes back and gets each document once
[ "$(cd "$RUN" && sha256sum run_identity.json results.json)" = "$before" ] || fail "the run directory changed"
start_collector back --script 200
run_zl push --flush-spool --url "$URL"
expect_rc 0
expect_requests back 3
[ "$(spooled)" -eq 0 ] || fail "the spool kept $(spooled) after delivery"
"$ZL_TEST_PYTHON" - "$TMP/back/req" <<'PY' || fail "a delivered document differs"
import glob, json, sys
docs = [json.load(open(p)) for p in sorted(glob.glob(sys.argv[1] + "/*.body"))]
assert len(docs) == 3 and all(d == docs[0] for d in docs), len(docs)
assert docs[0]["identity"]["run_id"] == "20260101-120000-cuda-mm-fault1"
assert docs[0]["results"]["mm"]["details"], "results lost"
PY
pass
