#!/bin/bash
# batch --resume reads the names batch.json gives like user input: an operator named
# "../../victim" (or a device "../x") is refused with an error naming it, before anything
# is moved, run or written; the directory it points at outside the batch stays as it was.
# The batch page leaves out a run whose ops_status.csv run_dir points outside the batch.
. "$(dirname "$0")/lib.sh"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
export ZL_KILL_GRACE=2
cd "$TMP"

run_zl batch --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --progress none --devices 0 \
	--ops add,fail --out "$TMP/w/b"
[ -s "$TMP/w/b/batch.json" ] || fail "no batch.json (exit $RC)"
cp "$TMP/w/b/batch.json" "$TMP/batch.json.orig"
mkdir -p "$TMP/victim" "$TMP/w/victim"
echo keep >"$TMP/victim/data"
echo keep >"$TMP/w/victim/data"
# the crafted op, and a device that would name a worker's socket and log outside
for craft in 'd["ops"].append("../../victim")' 'd["ops"].append("../victim")' 'd["warmup_ops"] = ["../victim"]' \
	'd["devices"] = ["../../victim"]'; do
	"$ZL_TEST_PYTHON" - "$TMP/batch.json.orig" "$TMP/w/b/batch.json" "$craft" <<'PY' || fail "cannot craft"
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
	run_zl batch --resume "$TMP/w/b" --retry-failed --progress none
	for v in "$TMP/victim" "$TMP/w/victim"; do
		[ "$(cat "$v/data" 2>/dev/null)" = keep ] || fail "$v was touched ($craft)"
		if ls -d "$v".* 2>/dev/null | grep -q .; then
			fail "resume moved something outside the batch: $(ls -d "$v".*)"
		fi
	done
	if find "$TMP" -name '*victim*' -newer "$TMP/batch.json.orig" | grep -v "^$TMP/victim\$\|^$TMP/w/victim\$\|/data\$" | grep -q .; then
		fail "resume made a path named after the crafted name: $(find "$TMP" -name '*victim*')"
	fi
	[ "$RC" -ne 0 ] || fail "resume accepted a batch.json with $craft"
	contains "$TMP/err" "refusing to use it"
	contains "$TMP/err" "victim'"
done

# the report: a run_dir outside the batch is not read
cp "$TMP/batch.json.orig" "$TMP/w/b/batch.json"
mkdir -p "$TMP/outside"
cp -r "$TMP/w/b/runs/add/." "$TMP/outside/"
"$ZL_TEST_PYTHON" - "$TMP/w/b/ops_status.csv" <<'PY' || fail "cannot craft ops_status.csv"
import csv, sys
p = sys.argv[1]
rows = list(csv.DictReader(open(p, newline="")))
for r in rows:
    if r["op"] == "add":
        r["run_dir"] = "../../outside"
with open(p, "w", newline="") as f:
    w = csv.DictWriter(f, list(rows[0].keys()), lineterminator="\r\n")
    w.writeheader()
    w.writerows(rows)
PY
run_zl report "$TMP/w/b" -o "$TMP/b.html"
expect_rc 0
contains "$TMP/b.html" "add: its run &#39;../../outside&#39; is not a directory inside the batch: not loaded"
pass
