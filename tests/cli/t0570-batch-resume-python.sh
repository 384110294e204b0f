#!/bin/bash
# batch: the interpreter a new batch finds on PATH (no --python given) is saved as an
# absolute path, links not resolved, so --resume runs the same one whatever PATH it has.
. "$(dirname "$0")/lib.sh"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
export ZL_KILL_GRACE=2
mkdir -p "$TMP/good" "$TMP/bad"
ln -s "$ZL_TEST_PYTHON" "$TMP/good/python3"
printf '#!/bin/sh\necho "broken python3" >&2\nexit 1\n' >"$TMP/bad/python3"
chmod +x "$TMP/bad/python3"
B="$TMP/b"

# the first session: batch_p01 holds the one device until the batch is killed
export ZL_BATCH_PLAN='{"batch_p01":{"sleep":60}}'
PATH="$TMP/good:$PATH" "$ZLBENCH" batch --backend cuda --flaggems-dir "$FIX" --devices 0 \
	--ops batch_p01,envdump --out "$B" --progress plain >"$TMP/k.out" 2>"$TMP/k.err" &
pid=$!
for i in $(seq 300); do
	[ -f "$B/runs/batch_p01/batch_probe.json" ] && break
	sleep 0.1
done
[ -f "$B/runs/batch_p01/batch_probe.json" ] || { cat "$TMP/k.err" >&2; fail "batch_p01 did not start"; }
kill -9 $pid
wait $pid 2>/dev/null || :
grep -qF -- "\"--python=$TMP/good/python3\"" "$B/batch.json" || { cat "$B/batch.json" >&2; fail "batch.json lacks the interpreter found on PATH"; }

unset ZL_BATCH_PLAN
PATH="$TMP/bad:$PATH" run_zl batch --resume "$B" --progress plain
expect_rc 0
contains "$TMP/out" "2 operators: 2 passed"
exe=$(json_get "$B/runs/envdump/child_argv.json" 'd["executable"]')
[ "$exe" = "$TMP/good/python3" ] || fail "the resumed run used '$exe', not $TMP/good/python3"
pass
