#!/bin/bash
# zlbench compare names the rows whose calls ran other kernels in B than in A (timer.jsonl's
# kernels): the library or the tuner chose differently, so the time may differ for that reason
# alone (an H200 A/A: torch's bmm of 16x1024x1024 read 0.0647 ms in one round, 0.0544 in the
# next). Rows with the same kernels, or with none recorded, are not named; --json carries
# both sides' kernels on the rows that differ.
. "$(dirname "$0")/lib.sh"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
mk() { "$ZL_TEST_PYTHON" "$MK" "$@" || fail "make_run.py $*"; }
export ZL_HISTORY_DB="$TMP/none.db"

mk "$TMP/a" --run-id 20261129-100000-cuda-mm-aaaaaa --results "$R" --raw-samples 100 --seed 1 \
	--kernels torch=sm90_gemm_128x128+Memset --kernels gems=mm_kernel
mk "$TMP/b" --run-id 20261129-110000-cuda-mm-bbbbbb --results "$R" --raw-samples 100 --seed 2 \
	--kernels torch=sm90_gemm_64x256_splitk+Memset --kernels gems=mm_kernel
mk "$TMP/c" --run-id 20261129-120000-cuda-mm-cccccc --results "$R" --raw-samples 100 --seed 3 \
	--kernels torch=sm90_gemm_128x128+Memset --kernels gems=mm_kernel
mk "$TMP/n" --run-id 20261129-130000-cuda-mm-dddddd --results "$R" --raw-samples 100 --seed 4

run_zl compare "$TMP/a" "$TMP/b"
line=$(grep -hE '^warning: [0-9]+ rows ran other kernels in B than in A' "$TMP/out" "$TMP/err" | head -1)
[ -n "$line" ] || fail "no kernels line: $(cat "$TMP/out" "$TMP/err")"
rows=$("$ZL_TEST_PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(len(x["result"]) for x in d["mm"]["details"]))' "$R")
case "$line" in
"warning: $rows rows ran other kernels in B than in A"*"(torch) "*": sm90_gemm_128x128 + Memset -> sm90_gemm_64x256_splitk + Memset"*"; ...") ;;
*) fail "kernels line ($rows torch rows): $line" ;;
esac
case "$line" in *"(gems)"*) fail "gems rows ran the same kernel: $line" ;; esac

run_zl compare "$TMP/a" "$TMP/b" --json
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "json"
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["rows"]:
    if r["side"] == "torch":
        assert (r["a_kernels"], r["b_kernels"]) == ("sm90_gemm_128x128 + Memset",
                                                    "sm90_gemm_64x256_splitk + Memset"), r
    else:
        assert r["a_kernels"] is None and r["b_kernels"] is None, r
assert any("ran other kernels" in w for w in d["warnings"]), d["warnings"]
PY

for other in c n; do
	run_zl compare "$TMP/a" "$TMP/$other" --json
	"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "a vs $other: a kernels line"
import json, sys
d = json.load(open(sys.argv[1]))
assert not any("other kernels" in w for w in d["warnings"]), d["warnings"]
assert all(r["a_kernels"] is None for r in d["rows"])
PY
done
pass
