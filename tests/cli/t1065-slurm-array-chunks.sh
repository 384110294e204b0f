#!/bin/bash
# batch --launcher slurm with more operators than the cluster's MaxArraySize (Slurm's default
# 1001 is less than FlagGems' ~1,060 marks): one job array per MaxArraySize operators, longest
# expected first across them, each saved in slurm.json as sbatch takes it; a later array that
# sbatch refuses leaves its operators without a row, said, and the ones before stay submitted.
# Stand-in sbatch and scontrol (no cluster): they record what they were given.
. "$(dirname "$0")/lib.sh"

FG="$TMP/fg"
cp -r "$ZL_SOURCE_DIR/examples/demo" "$FG"
rm -f "$FG"/benchmark/test_*.py
for m in ch_a ch_b ch_c ch_d ch_e; do
	printf 'import pytest\n\n\n@pytest.mark.%s\ndef test_%s():\n    pass\n' "$m" "$m" >"$FG/benchmark/test_$m.py"
done
# the history: ch_c 900 s, ch_a 600 s; the others none: the median of those, 750 s
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
for s in ch_c:900:1 ch_a:600:2; do
	IFS=: read -r op d n <<<"$s"
	"$ZL_TEST_PYTHON" "$MK" "$TMP/hist/$op" --run-id "20260101-00000$n-cuda-$op" --op "$op" --set duration_s="$d" ||
		fail "make_run.py $op"
	run_zl history --ingest "$TMP/hist/$op"
	expect_rc 0
done

export SBATCH_LOG="$TMP/sbatch.log" SBATCH_REFUSE=
: >"$SBATCH_LOG"
fake_tool scontrol 'if [ "$1 $2" = "show config" ]; then printf "Configuration data as of 2026-01-01T00:00:00\nKillWait                = 5 sec\nMaxArraySize            = 2\nMaxJobCount             = 10000\n"; exit 0; fi
echo "slurm_load_jobs error: Invalid job id specified" >&2; exit 1'
fake_tool sbatch 'n=$(($(wc -l <"$SBATCH_LOG") + 1))
for a; do script=$a; done
echo "$n $script" >>"$SBATCH_LOG"
if [ "$n" = "$SBATCH_REFUSE" ]; then echo "sbatch: error: QOSMaxSubmitJobPerUserLimit" >&2; exit 1; fi
echo "70$n"'
ARGS=(batch --backend cuda --flaggems-dir "$FG" --python "$ZL_TEST_PYTHON" --launcher slurm --ops all)

# ---- the plan: three submissions of at most two tasks -------------------------------------
run_zl "${ARGS[@]}" --dry-run --out "$TMP/dry"
expect_rc 0
contains "$TMP/out" "submissions: 3 (at most 2 tasks each: MaxArraySize from scontrol show config)"
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "the plan's tasks"
import sys
import re
tasks = [l.split()[:2] for l in open(sys.argv[1]) if re.match(r"  \d+:\d+ ", l)]
assert tasks == [["1:0", "ch_c"], ["1:1", "ch_b"], ["2:0", "ch_d"], ["2:1", "ch_e"], ["3:0", "ch_a"]], tasks
PY
contains "$TMP/out" "#SBATCH --array=0-1"
[ -s "$SBATCH_LOG" ] && fail "--dry-run ran sbatch"

# ---- submitted: three job arrays, each in slurm.json, longest expected first ----------------
run_zl "${ARGS[@]}" --detach --out "$TMP/b"
expect_rc 0
[ "$(grep -c '^SLURM_JOB_ID=' "$TMP/out")" = 3 ] || fail "not one SLURM_JOB_ID= line per job array: $(cat "$TMP/out")"
contains "$TMP/out" "SLURM_JOB_ID=701"
contains "$TMP/out" "SLURM_JOB_ID=703"
"$ZL_TEST_PYTHON" - "$TMP/b" <<'PY' || fail "slurm.json or the scripts"
import json, os, re, sys
b = sys.argv[1]
d = json.load(open(os.path.join(b, "slurm", "slurm.json")))
subs = d["submissions"]
assert [s["job_id"] for s in subs] == ["701", "702", "703"], subs
assert [[t["op"] for t in s["tasks"]] for s in subs] == [["ch_c", "ch_b"], ["ch_d", "ch_e"], ["ch_a"]], subs
assert [[t["index"] for t in s["tasks"]] for s in subs] == [[0, 1], [0, 1], [0]], subs
for k, s in enumerate(subs, 1):
    script = open(os.path.join(b, s["script"])).read()
    assert s["script"] == "slurm/submit-%d.sbatch" % k, s
    assert "#SBATCH --array=0-%d\n" % (len(s["tasks"]) - 1) in script, script
    for t in s["tasks"]:
        assert "%d) op=%s attempt=1 ;;" % (t["index"], t["op"]) in script, script
PY

# ---- sbatch refuses the second array: the first stays submitted, its ops said --------------
: >"$SBATCH_LOG"
SBATCH_REFUSE=2 run_zl "${ARGS[@]}" --detach --out "$TMP/r"
expect_rc 0
contains "$TMP/err" "submission 2 of 3: sbatch refused the job"
contains "$TMP/err" "QOSMaxSubmitJobPerUserLimit"
contains "$TMP/err" "its 3 operators and those after stay without a row (zlbench batch --resume $TMP/r submits them)"
[ "$(grep -c '^SLURM_JOB_ID=' "$TMP/out")" = 1 ] || fail "SLURM_JOB_ID= lines: $(cat "$TMP/out")"
[ "$(json_get "$TMP/r/slurm/slurm.json" 'len(d["submissions"])')" = 1 ] || fail "slurm.json names a refused job"

# ---- sbatch refuses the first: nothing submitted, nothing kept ------------------------------
: >"$SBATCH_LOG"
SBATCH_REFUSE=1 run_zl "${ARGS[@]}" --detach --out "$TMP/n"
expect_rc 2
contains "$TMP/err" "sbatch refused the job"
[ ! -e "$TMP/n" ] || fail "a refused submission left '$TMP/n'"
pass
