#!/bin/bash
# compare names timer measurements that match no results row in one warning with its counts
# and what it costs (issue 26: an embedding run's timer keyed its rows by the int64 index
# tensor, results.json by float16; 20 measurements lost their samples and only a run note said so).
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" || fail "make_run.py $*"; }

mk "$TMP/a" --run-id 20261129-120000-cuda-mm-cccccc --results "$R" --raw-samples 50 --seed 3
mk "$TMP/b" --run-id 20261129-130000-cuda-mm-dddddd --results "$R" --raw-samples 50 --seed 4
run_zl compare "$TMP/a" "$TMP/b"
lacks "$TMP/out" "match no results row"
lacks "$TMP/err" "match no results row"

# B's float16 measurements keyed by another dtype, as the embedding timer did
"$ZL_TEST_PYTHON" - "$TMP/b/plugins/timer.jsonl" <<'PY' || fail "rekey"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
n = 0
for rec in lines:
    if rec.get("dtype") == "torch.float16":
        rec["dtype"] = "torch.int64"
        n += 1
assert n > 0
open(sys.argv[1], "w").write("".join(json.dumps(r) + "\n" for r in lines))
print(n, file=open(sys.argv[1] + ".n", "w"))
PY
n=$(cat "$TMP/b/plugins/timer.jsonl.n")
run_zl compare "$TMP/a" "$TMP/b"
all="$TMP/all"
cat "$TMP/out" "$TMP/err" >"$all"
contains "$all" "warning: 0 timer measurements of A and $n of B match no results row (plugins/timer.jsonl keys them by another op, dtype or shape than results.json): their samples are unused, and the rows they belong to are judged by the medians rule"
# said once: the run's own note is not repeated
[ "$(grep -c "match no results row" "$all")" -eq 1 ] || fail "said more than once: $(grep "match no results row" "$all")"
# in every format that carries the warnings
run_zl compare "$TMP/a" "$TMP/b" --json
json_get "$TMP/out" '[w for w in d["warnings"] if "match no results row" in w][0]' | grep -q "^0 timer measurements of A and $n of B" ||
	fail "json warnings: $(cat "$TMP/out")"
run_zl compare "$TMP/a" "$TMP/b" --markdown
contains "$TMP/out" "- warning: 0 timer measurements of A and $n of B match no results row"
pass
