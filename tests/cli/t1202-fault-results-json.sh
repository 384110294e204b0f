#!/bin/bash
# results.json as it really comes: NaN and Infinity (Python's json.dump writes them) are missing
# values with a note in every command (run summary, history, compare, push), never a file read
# as empty; a bad copy (truncated, empty, an array, absent) never replaces stored rows by none;
# a NUL byte or text after the value is never pushed as JSON.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"

MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
cd "$TMP"
export ZL_HISTORY_DB="$TMP/h.db"
rows() { "$ZLBENCH" history --json | "$ZL_TEST_PYTHON" -c \
	'import json,sys; print({e["run_id"]: e["results"] for e in json.load(sys.stdin)}[sys.argv[1]])' "$1"; }

# nan_copy SRC DST: DST is SRC with a NaN gems latency and speedup, an Infinity tflops and a
# -Infinity torch latency, written by json.dump as FlagGems does
nan_copy() {
	"$ZL_TEST_PYTHON" - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["mm"]["details"][0]["result"]
r[0]["latency"] = float("nan"); r[0]["speedup"] = float("nan")
r[1]["tflops"] = float("inf"); r[2]["latency_base"] = float("-inf")
json.dump(d, open(sys.argv[2], "w"), indent=2)
PY
}

# --- a run whose benchmark writes NaN/Infinity: summary, history, notes ---
mkdir -p fg/benchmark
cat >fg/benchmark/conftest.py <<'PY'
import os
def pytest_addoption(parser):
    for o in ("--level", "--mode", "--record", "--output"):
        parser.addoption(o)
def pytest_sessionfinish(session):
    with open(os.environ["ZL_TEST_NAN_RESULTS"]) as src, open(session.config.getoption("--output"), "w") as dst:
        dst.write(src.read())
PY
printf 'import pytest\n\n@pytest.mark.mm\ndef test_mm():\n    pass\n' >fg/benchmark/test_mm.py
nan_copy "$RESULTS_FIXTURE" nan.json
grep -q NaN nan.json && grep -q Infinity nan.json || fail "the NaN fixture has no NaN/Infinity"
ZL_TEST_NAN_RESULTS=$TMP/nan.json run_zl run --backend cuda --flaggems-dir fg --op mm --python "$ZL_TEST_PYTHON" --out n1
expect_rc 0
lacks "$TMP/out" "(no results.json rows)"
lacks "$TMP/out" "nan"
contains "$TMP/out" "note: results.json: 4 NaN/Infinity numbers read as missing values"
# the NaN row: its gems latency and speedup are "-"; the others keep their figures
grep -E '^mm +torch.float16 +\[\[384, 384\], \[384, 384\]\] +0\.006224 +- +-$' "$TMP/out" >/dev/null ||
	fail "NaN row: $(grep '384, 384' "$TMP/out")"
grep -E '^mm +torch.float16 +\[\[4096, 4096\], \[4096, 4096\]\] +0\.226992 +0\.229408 ' "$TMP/out" >/dev/null ||
	fail "a finite row lost its figures"
[ "$(rows "$(json_get n1/run_identity.json 'd["run_id"]')")" = 30 ] || fail "history: NaN run stored without its rows"

# --- compare: the NaN row is missing, the other rows are compared ---
"$ZL_TEST_PYTHON" "$MK" A --run-id A1 --results "$RESULTS_FIXTURE" || fail "make_run A"
"$ZL_TEST_PYTHON" "$MK" B --run-id B1 --results "$RESULTS_FIXTURE" || fail "make_run B"
nan_copy B/results.json B/results.json
run_zl compare A B
expect_rc 0
contains "$TMP/out" "warning: B: results.json: 4 NaN/Infinity numbers read as missing values"
# the missing rows are among the changed ones, their verdict the last column at 80 columns
[ "$(grep -cE '  missing( |$)' "$TMP/out")" -eq 2 ] || fail "compare: expected 2 missing rows: $(cat "$TMP/out")"
grep -E 'overall +1\.0000 .* n=14' "$TMP/out" >/dev/null || fail "compare: the finite rows were not compared"
run_zl history --ingest B
expect_rc 0
contains "$TMP/err" "B1: results.json: 4 NaN/Infinity numbers read as missing values"
[ "$(rows B1)" = 30 ] || fail "history: B1 has $(rows B1) rows"

# --- push: valid JSON, NaN/Infinity sent as null ---
start_collector c1 --script 200
run_zl push B --url "$URL"
expect_rc 0
expect_requests c1 1
"$ZL_TEST_PYTHON" - "$TMP/c1/req/0001.body" <<'PY' || fail "push sent invalid JSON or lost the nulls"
import json, sys
raw = open(sys.argv[1], "rb").read()
doc = json.loads(raw, parse_constant=lambda c: sys.exit("non-finite %s sent" % c))
r = doc["results"]["mm"]["details"][0]["result"]
assert r[0]["latency"] is None and r[1]["tflops"] is None and r[2]["latency_base"] is None, r[:3]
assert r[3]["latency"] > 0
PY

# --- a bad copy never replaces the stored rows by none ---
run_zl history --ingest A
expect_rc 0
[ "$(rows A1)" = 30 ] || fail "A1 not stored"
bad_copy() {
	rm -rf "$1"
	mkdir "$1"
	cp A/run_identity.json "$1/"
}
bad_copy trunc && head -c 700 A/results.json >trunc/results.json
bad_copy empty && : >empty/results.json
bad_copy array && echo '[]' >array/results.json
bad_copy none
bad_copy nul && "$ZL_TEST_PYTHON" -c 'import sys; b=open(sys.argv[1],"rb").read(); open(sys.argv[2],"wb").write(b[:400]+b"\0"+b[400:])' \
	A/results.json nul/results.json
for copy in trunc empty array none nul; do
	run_zl history --ingest "$copy"
	expect_rc 1
	contains "$TMP/err" "run 'A1' is stored in '$TMP/h.db' with 30 result rows, but '$TMP/$copy' has none"
	contains "$TMP/err" "the stored rows are kept"
	[ "$(rows A1)" = 30 ] || fail "$copy: the stored rows were replaced: $(rows A1)"
done
contains "$TMP/err" "a NUL byte at byte 400"
# a good copy still replaces (idempotent ingest)
run_zl history --ingest A
expect_rc 0
[ "$(rows A1)" = 30 ] || fail "re-ingest"
# a run never stored before with no rows is stored (a failed run has none)
"$ZL_TEST_PYTHON" "$MK" F --run-id F1 --set status='"failed"' || fail "make_run F"
run_zl history --ingest F
expect_rc 0
[ "$(rows F1)" = 0 ] || fail "F1"

# --- a NUL byte or a second value in results.json: push refuses it, nothing is sent ---
for body in nul tail; do
	mkdir -p "p-$body"
	cp A/run_identity.json "p-$body/"
done
cp nul/results.json p-nul/results.json
printf '{"mm": {}}\n{"extra": 1}\n' >p-tail/results.json
run_zl push p-nul --url "$URL"
expect_rc 2
contains "$TMP/err" "p-nul/results.json' is not valid JSON: a NUL byte at byte 400"
lacks "$TMP/out" "delivered"
run_zl push p-tail --url "$URL"
expect_rc 2
contains "$TMP/err" "not valid JSON: text after the value"
expect_requests c1 1
pass
