#!/bin/bash
# Bytes that are not UTF-8 in a crafted run's results.json: compare --json and a pushed
# document are valid UTF-8 all the same (each such byte is U+FFFD), so a JSON consumer parses
# them, and a warning counts the bytes replaced.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/hostile_runs.sh"

# JSON: valid UTF-8, what was not is U+FFFD, and the warning counts it
run_zl compare a b --json
expect_rc 0
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "compare --json is not valid UTF-8 JSON"
import json, sys
raw = open(sys.argv[1], "rb").read()
d = json.loads(raw.decode("utf-8"))   # strict: raises on invalid UTF-8
assert "\ufffd\ufffd" in raw.decode("utf-8"), "no U+FFFD where the bytes were"
PY
contains "$TMP/err" "compare --json: 4 bytes that were not UTF-8 written as U+FFFD"

# push: the document sent is valid UTF-8 too, and says so
start_collector c1 --script 200
run_zl push a --url "$URL"
expect_rc 0
expect_requests c1 1
"$ZL_TEST_PYTHON" -c 'import json,sys; json.loads(open(sys.argv[1],"rb").read().decode("utf-8"))' \
	"$TMP/c1/req/0001.body" || fail "the pushed document is not valid UTF-8 JSON"
contains "$TMP/err" "results.json': 2 bytes that were not UTF-8 sent as U+FFFD"
pass
