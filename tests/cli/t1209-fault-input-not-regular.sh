#!/bin/bash
# Readers take regular files only: a shape file, results.json, run_identity.json, batch.json
# or ops_status.csv that is a FIFO or a link to /dev/zero is refused at once, naming the file
# (no command hangs on it; each runs under a timeout so that a regression fails, not hangs).
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" >/dev/null || fail "make_run.py $*"; }
# run_t: run_zl under a timeout; 124 is a hang
run_t() {
	set +e
	timeout 60 "$ZLBENCH" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	set -e
	[ "$RC" -ne 124 ] || fail "zlbench $* hung on a file that is not regular"
}

mkfifo "$TMP/fifo.yaml"
ln -s /dev/zero "$TMP/zero.yaml"

# ---- shape files: preflight refuses them as its shape_file check (exit 3) --------------
for f in "$TMP/fifo.yaml" "$TMP/zero.yaml"; do
	run_t preflight --backend cuda --flaggems-dir "$FIX" --op add --shape-file "$f" \
		--python "$ZL_TEST_PYTHON"
	expect_rc 3
	contains "$TMP/out" "FAILED  shape_file"
	contains "$TMP/out" "not a regular file"
	run_t run --backend cuda --flaggems-dir "$FIX" --op add --shape-file "$f" \
		--python "$ZL_TEST_PYTHON" --out "$TMP/run-shape"
	expect_rc 3
	contains "$TMP/err" "PREFLIGHT_FAILED check=shape_file"
done
contains "$TMP/err" "cannot read shape file '/dev/zero': a character device, not a regular file"
# over the cap: the limit is stated
head -c $((16 * 1024 * 1024 + 1)) /dev/zero | tr '\0' '#' >"$TMP/big.yaml"
run_t preflight --backend cuda --flaggems-dir "$FIX" --op add --shape-file "$TMP/big.yaml" \
	--python "$ZL_TEST_PYTHON"
expect_rc 3
contains "$TMP/out" "over the 16 MiB limit for this file"

# ---- run directories: compare, history --ingest, push --------------------------------------
mk "$TMP/a" --run-id A --results "$R/mm_core_kernel_h200.results.json"
mk "$TMP/b" --run-id B --results "$R/mm_core_kernel_h200.results.json"
rm "$TMP/b/results.json"
mkfifo "$TMP/b/results.json"
run_t compare "$TMP/a" "$TMP/b"
contains "$TMP/out" "cannot read '$TMP/b/results.json': a fifo, not a regular file"
# (ingest finishes; what it stores for an unreadable results.json is issue 19's item 1)
run_t history --ingest "$TMP/b"
run_t push "$TMP/b" --url http://127.0.0.1:9/api/runs --dry-run
[ "$RC" -ne 0 ] || fail "push sent a run whose results.json is a fifo"
contains "$TMP/err" "cannot read '$TMP/b/results.json': a fifo, not a regular file"

rm "$TMP/b/run_identity.json"
ln -s /dev/zero "$TMP/b/run_identity.json"
run_t compare "$TMP/a" "$TMP/b"
expect_rc 2
contains "$TMP/err" "is not a run directory: cannot read '$TMP/b/run_identity.json': a character device, not a regular file"
run_t history --ingest "$TMP/b"
[ "$RC" -ne 0 ] || fail "history ingested a run whose identity is /dev/zero"
contains "$TMP/err" "a character device, not a regular file"
run_t push "$TMP/b" --url http://127.0.0.1:9/api/runs --dry-run
[ "$RC" -ne 0 ] || fail "push sent a run whose identity is /dev/zero"
contains "$TMP/err" "'$TMP/b' is neither a run directory nor a batch directory"

# ---- batch directories on --resume: batch.json, ops_status.csv ---------------------------
B="$TMP/batch"
run_t batch --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --progress plain \
	--devices 0 --ops batch_p01 --out "$B"
expect_rc 0
mv "$B/ops_status.csv" "$TMP/ops_status.csv"
ln -s /dev/zero "$B/ops_status.csv"
run_t batch --resume "$B" --progress plain
[ "$RC" -ne 0 ] || fail "resume read /dev/zero as ops_status.csv"
contains "$TMP/err" "ops_status.csv': a character device, not a regular file"
rm "$B/ops_status.csv"
mv "$TMP/ops_status.csv" "$B/ops_status.csv"
mv "$B/batch.json" "$TMP/batch.json"
mkfifo "$B/batch.json"
run_t batch --resume "$B" --progress plain
[ "$RC" -ne 0 ] || fail "resume read a fifo as batch.json"
contains "$TMP/err" "batch.json': a fifo, not a regular file"

pass
