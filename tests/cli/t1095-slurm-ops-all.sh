#!/bin/bash
# zlbench batch --launcher slurm --ops all through the one-node cluster: every operator mark
# of the checkout (less --exclude) is one array task, each ends with its row, the cost table
# and its files come at the end; --collect shows the same table again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t1000-slurm-cluster.sh"
slurm_up

FG="$TMP/fg"
cp -r "$ZL_SOURCE_DIR/examples/demo" "$FG"
rm -f "$FG"/benchmark/test_*.py
mkdir -p "$FG/benchmark/nested"
printf 'import pytest\n\n\n@pytest.mark.sa_one\ndef test_one():\n    pass\n\n\n@pytest.mark.sa_two\ndef test_two():\n    pass\n' \
	>"$FG/benchmark/test_sa.py"
printf 'import pytest\n\n\n@pytest.mark.sa_three\ndef test_three():\n    pass\n\n\n@pytest.mark.sa_skipped\ndef test_skipped():\n    pass\n' \
	>"$FG/benchmark/nested/test_sb.py"
B="$TMP/b"
cd "$TMP"
run_zl batch --launcher slurm --backend cuda --flaggems-dir "$FG" --python "$ZL_TEST_PYTHON" --ops all \
	--exclude sa_skipped --out "$B" --progress plain
expect_rc 0
contains "$TMP/out" "3 operators: 3 passed"
contains "$TMP/out" "where the time went"
contains "$TMP/err" "submitted Slurm job"
contains "$B/slurm/submit-1.sbatch" "#SBATCH --array=0-2"
"$ZL_TEST_PYTHON" - "$B" <<'PY' || fail "rows, batch.json or costs of --ops all through Slurm"
import csv, json, os, sys
b = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(b, "ops_status.csv"), newline="")))
assert sorted((r["op"], r["status"]) for r in rows) == [("sa_one", "passed"), ("sa_three", "passed"), ("sa_two", "passed")], rows
d = json.load(open(os.path.join(b, "batch.json")))
assert d["ops_all"] is True and d["exclude"] == ["sa_skipped"] and d["launcher"] == "slurm", d
c = json.load(open(os.path.join(b, "costs.json")))
assert sorted(o["op"] for o in c["ops"]) == ["sa_one", "sa_three", "sa_two"], c["ops"]
# Slurm tasks start fresh: no worker start-ups
assert c["worker_startups"]["started"] == 0, c["worker_startups"]
assert all(o["wall_s"] is not None for o in c["ops"]), c["ops"]
PY
run_zl batch --collect "$B" --no-wait
expect_rc 0
contains "$TMP/out" "where the time went"
pass
