#!/bin/bash
# zlbench history: --ingest, the list as text, JSON and CSV, filters, idempotent re-ingest.
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" || fail "make_run.py $*"; }
ago() { date -u -d "@$(( $(date +%s) - $1 * 86400 ))" +%Y-%m-%dT%H:%M:%SZ; }

A=20261129-100000-cuda-mm-aaaaaa
B=20261130-100000-musa-router_gemm-bbbbbb
C=20261201-100000-cuda-mm-cccccc
# A ten days ago, B two days ago, C (a crash with no results) one hour ago
mk "$TMP/runs/a" --run-id $A --results "$R/mm_core_kernel_h200.results.json" --timer-iqr 0.01 \
	--set started_at="\"$(ago 10)\""
mk "$TMP/runs/b" --run-id $B --results "$R/router_gemm_core_kernel_h200.results.json" \
	--set backend='"musa"' --set vendor='"mthreads"' --set duration_s=107 \
	--set started_at="\"$(ago 2)\""
mk "$TMP/runs/c" --run-id $C --set status='"crashed"' --set exit_code=null \
	--set host='"node7, \"rack 2\""' --set started_at="\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\""

# an empty history is created under ZL_HOME and says so
run_zl history
expect_rc 0
contains "$TMP/out" "no runs in '$ZL_HOME/history.db'"
[ -f "$ZL_HOME/history.db" ] || fail "history.db not created under ZL_HOME"

run_zl history --ingest "$TMP/runs/a" "$TMP/runs/b" "$TMP/runs/c"
expect_rc 0
contains "$TMP/out" "ingested $A (passed, 30 result rows)"
contains "$TMP/out" "ingested $C (crashed, 0 result rows)"

# ingesting again replaces, never duplicates
run_zl history --ingest "$TMP/runs/a" "$TMP/runs/a"
expect_rc 0

run_zl history
expect_rc 0
contains "$TMP/out" "$B"
contains "$TMP/out" "router_gemm"
[ "$(grep -c -- "-cuda-mm-\|-musa-" "$TMP/out")" -eq 3 ] || fail "text list should have 3 runs"

run_zl history --json
expect_rc 0
cp "$TMP/out" "$TMP/list.json"
run_zl history --csv
expect_rc 0
cp "$TMP/out" "$TMP/list.csv"
"$ZL_TEST_PYTHON" - "$TMP/list.json" "$TMP/list.csv" "$R/mm_core_kernel_h200.results.json" "$A" "$B" "$C" <<'PY' || fail "json/csv check"
import csv, json, math, sys
lst, csv_path, results, a, b, c = sys.argv[1:]
d = json.load(open(lst))
assert [r["run_id"] for r in d] == [c, b, a], [r["run_id"] for r in d]
by = {r["run_id"]: r for r in d}
assert by[a]["results"] == 30 and by[b]["results"] == 20 and by[c]["results"] == 0
assert by[c]["speedup_geomean"] is None and by[c]["exit_code"] is None
assert by[b]["backend"] == "musa" and by[b]["duration_s"] == 107
assert by[a]["run_dir"].endswith("/runs/a") and by[a]["device_name"] == "NVIDIA H200"
# FlagGems' own speedups, geomean over the 15 shapes
sp = [row["speedup"] for det in json.load(open(results))["mm"]["details"] for row in det["result"]]
g = math.exp(sum(math.log(s) for s in sp) / len(sp))
assert abs(by[a]["speedup_geomean"] - g) < 1e-9 * g, (by[a]["speedup_geomean"], g)
rows = list(csv.DictReader(open(csv_path, newline="")))
assert len(rows) == 3
# each JSON run names its schema first; the CSV has the other keys as its columns, in order
assert all(r["schema"] == "zlbench.history-run/1" and list(r)[0] == "schema" for r in d), d[0]
assert list(rows[0].keys()) == list(d[0].keys())[1:], (list(rows[0].keys()), list(d[0].keys()))
for jr, cr in zip(d, rows):
    for k, v in jr.items():
        if k == "schema":
            continue
        if v is None:
            assert cr[k] == "", (k, cr[k])
        elif isinstance(v, str):
            assert cr[k] == v, (k, cr[k], v)
        else:
            assert abs(float(cr[k]) - v) <= 1e-9 * abs(v), (k, cr[k], v)
assert rows[0]["host"] == 'node7, "rack 2"'
PY
# the raw CSV quotes the awkward field per RFC 4180
contains "$TMP/list.csv" '"node7, ""rack 2"""'

# filters
run_zl history --op mm --json
expect_rc 0
[ "$(json_get "$TMP/out" 'len(d)')" = 2 ] || fail "--op mm should list 2 runs"
run_zl history --backend mthreads --json
expect_rc 0
[ "$(json_get "$TMP/out" '[r["run_id"] for r in d]')" = "['$B']" ] || fail "--backend alias"
run_zl history --since 5d --json
expect_rc 0
[ "$(json_get "$TMP/out" 'len(d)')" = 2 ] || fail "--since 5d should list 2 runs"
run_zl history --since "$(date -u -d '@'$(( $(date +%s) - 3 * 86400 )) +%Y-%m-%d)" --json
expect_rc 0
[ "$(json_get "$TMP/out" 'len(d)')" = 2 ] || fail "--since DATE should list 2 runs"
run_zl history --limit 1 --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd[0]["run_id"]')" = "$C" ] || fail "--limit 1 keeps the newest"
[ "$(json_get "$TMP/out" 'len(d)')" = 1 ] || fail "--limit 1"

# usage errors
run_zl history --since yesterday
expect_rc 2
contains "$TMP/err" "invalid --since 'yesterday'"
run_zl history --limit -3
expect_rc 2
run_zl history --json --csv
expect_rc 2
run_zl history --backend nosuch
expect_rc 2
contains "$TMP/err" "unknown backend 'nosuch'"
run_zl history "$TMP/runs/a"
expect_rc 2
contains "$TMP/err" "--ingest"
run_zl history --ingest "$TMP/runs"
expect_rc 2
contains "$TMP/err" "'$TMP/runs' is not a run directory"

# --db elsewhere leaves ZL_HOME's database alone
run_zl history --db "$TMP/other.db" --ingest "$TMP/runs/b"
expect_rc 0
run_zl history --db "$TMP/other.db" --json
[ "$(json_get "$TMP/out" 'len(d)')" = 1 ] || fail "--db should hold 1 run"
run_zl history --json --limit 0
[ "$(json_get "$TMP/out" 'len(d)')" = 3 ] || fail "ZL_HOME's history should still hold 3 runs"
pass
