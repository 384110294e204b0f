#!/bin/bash
# push --flush-spool against a collector that is down: the first payload gets the retry schedule,
# the others for that URL are not tried (they stay for later) instead of each waiting through
# its own; payloads for another URL that answers are still delivered.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"

PORT1=$(free_port)
PORT2=$(free_port)
DOWN="http://127.0.0.1:$PORT1/api/runs"
LATER="http://127.0.0.1:$PORT2/api/runs"
for i in 1 2 3; do
	make_run "$TMP/run$i" 20260101-12000$i-cuda-mm-abc12$i
	push_zl push "$TMP/run$i" --url "$DOWN" --retries 0
	expect_rc 1
done
make_run "$TMP/run4" 20260101-120004-cuda-mm-abc124
push_zl push "$TMP/run4" --url "$LATER" --retries 0
expect_rc 1
[ "$(spool_files | wc -l)" -eq 4 ] || fail "expected four spooled payloads"
# the second URL comes up; the first stays down
start_collector c2 --port "$PORT2" --script 200

push_zl push --flush-spool --retries 2
expect_rc 1
# one retry schedule for DOWN (2 retries), not one per payload
[ "$(grep -c 'retrying in' "$TMP/err")" -eq 2 ] || { cat "$TMP/err" >&2; fail "expected 2 retries in all"; }
contains "$TMP/err" "2 more spooled payloads not tried: their collector did not answer earlier in this flush"
contains "$TMP/out" "1 delivered, 3 still spooled"
expect_requests c2 1
[ "$(spool_files | wc -l)" -eq 3 ] || fail "the untried payloads must stay in the spool"

# --url sends everything to one place: a down one stops the rest the same way
push_zl push --flush-spool --retries 1 --url "$DOWN"
expect_rc 1
[ "$(grep -c 'retrying in' "$TMP/err")" -eq 1 ] || fail "expected 1 retry in all"
contains "$TMP/err" "2 more spooled payloads not tried"

# a spool write syncs the spool directory after the rename (where strace can show it)
if command -v strace >/dev/null 2>&1; then
	make_run "$TMP/run5" 20260101-120005-cuda-mm-abc125
	strace -f -e trace=openat,rename,renameat,renameat2,fsync -o "$TMP/strace" \
		"$ZLBENCH" push "$TMP/run5" --url "$DOWN" --retries 0 >/dev/null 2>&1 || :
	"$ZL_TEST_PYTHON" - "$TMP/strace" "$ZL_HOME/spool" <<'PY' || fail "spool directory not synced after the rename"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
spool = sys.argv[2]
renamed = next(i for i, l in enumerate(lines) if re.search(r"rename", l) and spool in l)
dirfd = None
for l in lines[renamed:]:
    m = re.search(r'openat\(AT_FDCWD, "%s", [^)]*O_DIRECTORY[^)]*\) = (\d+)' % re.escape(spool), l)
    if m:
        dirfd = m.group(1)
    if dirfd and re.search(r"fsync\(%s\)\s+= 0" % dirfd, l):
        sys.exit(0)
sys.exit(1)
PY
else
	echo "skip: no strace to watch the spool directory's fsync" >&2
fi
pass
