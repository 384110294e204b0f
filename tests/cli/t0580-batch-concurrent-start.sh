#!/bin/bash
# batch: new batches started at once with the same --out. One claims the directory (its
# lock is taken before batch.json is written, and the directory is checked empty under
# it); the others are refused (exit 2) and leave the winner's files as they were. The race
# is short, so each round starts six batches at once, and there are several rounds.
. "$(dirname "$0")/lib.sh"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
ARGS=(batch --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --devices 0 --progress none)
for round in $(seq 10); do
	B="$TMP/b$round"
	pids=()
	for k in 1 2 3 4 5 6; do
		"$ZLBENCH" "${ARGS[@]}" --ops batch_p0$k --out "$B" >"$TMP/$k.out" 2>"$TMP/$k.err" &
		pids+=($!)
	done
	winner= wins=0
	for k in 1 2 3 4 5 6; do
		set +e
		wait ${pids[k - 1]}
		rc=$?
		set -e
		case $rc in
		0) winner=batch_p0$k wins=$((wins + 1)) ;;
		2) grep -qE "is in use by zlbench batch|exists and is not empty|still locked" "$TMP/$k.err" ||
			{ cat "$TMP/$k.err" >&2; fail "round $round: refused batch $k does not say why"; } ;;
		*) cat "$TMP/$k.err" >&2; fail "round $round: batch $k exited $rc" ;;
		esac
	done
	[ $wins -eq 1 ] || fail "round $round: $wins batches ran, expected one"
	"$ZL_TEST_PYTHON" - "$B" "$winner" <<'PY' || fail "round $round: the winner's batch directory is not its own"
import csv, json, os, sys
B, winner = sys.argv[1:]
conf = json.load(open(os.path.join(B, "batch.json")))
assert conf["ops"] == [winner], (conf["ops"], winner)
assert len(conf["sessions"]) == 1, conf["sessions"]
rows = list(csv.DictReader(open(os.path.join(B, "ops_status.csv"), newline="")))
assert [(r["op"], r["status"]) for r in rows] == [(winner, "passed")], rows
assert sorted(os.listdir(os.path.join(B, "runs"))) == [winner], os.listdir(os.path.join(B, "runs"))
PY
done
pass
