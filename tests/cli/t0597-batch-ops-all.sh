#!/bin/bash
# batch --ops all: every operator mark of the checkout's benchmark/ tree (pytest's own marks,
# and marks in comments, left out) runs, over two devices; --exclude drops some, with an
# explicit list too; an excluded name that is no mark is refused with a did-you-mean; the
# same --ops all plans through --launcher slurm; --resume refuses --exclude.
. "$(dirname "$0")/lib.sh"
export ZL_KILL_GRACE=2

# a stub checkout: the demo's conftest and base, five marks in three files (one mark in two)
FG="$TMP/fg"
cp -r "$ZL_SOURCE_DIR/examples/demo" "$FG"
rm -f "$FG"/benchmark/test_*.py
mkdir -p "$FG/benchmark/nested"
cat >"$FG/benchmark/test_stub_a.py" <<'PY'
import pytest


@pytest.mark.stub_one
def test_one():
    pass


@pytest.mark.stub_two
@pytest.mark.parametrize("n", [1, 2])
def test_two(n):
    pass
PY
cat >"$FG/benchmark/test_stub_b.py" <<'PY'
import pytest

# @pytest.mark.stub_commented is no mark: pytest never sees it


@pytest.mark.stub_three
def test_three():
    pass


@pytest.mark.skipif(False, reason="never")
@pytest.mark.stub_four
def test_four():
    pass
PY
cat >"$FG/benchmark/nested/test_stub_c.py" <<'PY'
import pytest


@pytest.mark.stub_five
def test_five():
    pass


@pytest.mark.stub_one
def test_one_again():
    pass
PY
MARKS="stub_five stub_four stub_one stub_three stub_two"
ARGS=(batch --backend cuda --flaggems-dir "$FG" --python "$ZL_TEST_PYTHON" --progress plain)

# rows DIR: "op:status" of every row, sorted
rows() {
	"$ZL_TEST_PYTHON" -c '
import csv, sys
print(" ".join(sorted("%s:%s" % (r["op"], r["status"]) for r in csv.DictReader(open(sys.argv[1], newline="")))))
' "$1/ops_status.csv"
}

# ---- the plan: every mark, with the files each resolves to ----------------------------
run_zl "${ARGS[@]}" --devices 0,1 --ops all --dry-run --out "$TMP/dry"
expect_rc 0
[ -e "$TMP/dry" ] && fail "--dry-run created the batch directory"
"$ZL_TEST_PYTHON" - "$TMP/out" <<'PY' || fail "the dry run's marks"
import sys
lines = [l.split() for l in open(sys.argv[1]) if l.startswith("  stub_")]
files = {l[0]: l[-1] for l in lines}
assert sorted(files) == ["stub_five", "stub_four", "stub_one", "stub_three", "stub_two"], lines
assert files["stub_one"] == "benchmark/nested/test_stub_c.py,benchmark/test_stub_a.py", files
assert files["stub_five"] == "benchmark/nested/test_stub_c.py", files
assert files["stub_four"] == "benchmark/test_stub_b.py", files
PY
lacks "$TMP/out" "stub_commented"
lacks "$TMP/out" "  parametrize"
lacks "$TMP/out" "  skipif"
contains "$TMP/out" "estimate: 5 operators, 0 from their history, 5 guessed"
contains "$TMP/out" "(goal for the whole suite on 8 GPUs: 15m00s or less"

# ---- the batch: every mark ran, on both devices ---------------------------------------
run_zl "${ARGS[@]}" --devices 0,1 --ops all --out "$TMP/all"
expect_rc 0
contains "$TMP/out" "5 operators: 5 passed"
[ "$(rows "$TMP/all")" = "stub_five:passed stub_four:passed stub_one:passed stub_three:passed stub_two:passed" ] ||
	fail "rows of --ops all: $(rows "$TMP/all")"
"$ZL_TEST_PYTHON" - "$TMP/all" <<'PY' || fail "batch.json or devices of --ops all"
import csv, json, os, sys
b = sys.argv[1]
d = json.load(open(os.path.join(b, "batch.json")))
assert d["ops_all"] is True and d["exclude"] == [], d
assert d["ops"] == ["stub_five", "stub_four", "stub_one", "stub_three", "stub_two"], d["ops"]
rows = list(csv.DictReader(open(os.path.join(b, "ops_status.csv"), newline="")))
assert {r["device"] for r in rows} == {"0", "1"}, rows
# stub_one ran both files that carry the mark
ident = json.load(open(os.path.join(b, "runs", "stub_one", "run_identity.json")))
assert sorted(ident["test_node"]) == ["benchmark/nested/test_stub_c.py", "benchmark/test_stub_a.py"], ident["test_node"]
PY

# ---- --exclude: with --ops all, and with an explicit list ------------------------------
run_zl "${ARGS[@]}" --devices 0,1 --ops all --exclude stub_two --exclude stub_four,stub_five --out "$TMP/ex"
expect_rc 0
[ "$(rows "$TMP/ex")" = "stub_one:passed stub_three:passed" ] || fail "rows with --exclude: $(rows "$TMP/ex")"
[ "$(json_get "$TMP/ex/batch.json" '",".join(d["exclude"])')" = "stub_two,stub_four,stub_five" ] ||
	fail "batch.json's exclude: $(cat "$TMP/ex/batch.json")"
run_zl "${ARGS[@]}" --devices 0 --ops stub_one,stub_three --exclude stub_three --out "$TMP/ex2"
expect_rc 0
[ "$(rows "$TMP/ex2")" = "stub_one:passed" ] || fail "rows of a list with --exclude: $(rows "$TMP/ex2")"

# ---- refused before anything is written -------------------------------------------------
run_zl "${ARGS[@]}" --devices 0 --ops all --exclude stub_tree --out "$TMP/bad"
expect_rc 2
contains "$TMP/err" "--exclude names 'stub_tree', which is no operator mark of '$FG/benchmark'"
contains "$TMP/err" "did you mean 'stub_three'"
run_zl "${ARGS[@]}" --devices 0 --ops stub_one --exclude stub_on --out "$TMP/bad"
expect_rc 2
contains "$TMP/err" "--exclude names 'stub_on', which is no operator mark of '$FG/benchmark' nor an operator of the batch"
contains "$TMP/err" "did you mean 'stub_one'"
run_zl "${ARGS[@]}" --devices 0 --ops all --exclude 'stub-one' --out "$TMP/bad"
expect_rc 2
contains "$TMP/err" "--exclude: invalid operator name 'stub-one'"
run_zl "${ARGS[@]}" --devices 0 --ops stub_one --exclude stub_one --out "$TMP/bad"
expect_rc 2
contains "$TMP/err" "--exclude leaves no operator to run"
mkdir -p "$TMP/empty/benchmark"
run_zl batch --backend cuda --flaggems-dir "$TMP/empty" --python "$ZL_TEST_PYTHON" --devices 0 --ops all --out "$TMP/bad"
expect_rc 2
contains "$TMP/err" "--ops all: no operator mark in any test_*.py under '$TMP/empty/benchmark'"
[ -e "$TMP/bad" ] && fail "a refused batch left '$TMP/bad'"
run_zl batch --resume "$TMP/all" --exclude stub_one
expect_rc 2
contains "$TMP/err" "--resume uses the settings saved in the batch directory; --ops, --ops-file, --exclude"

# ---- "all" in a list or a file is FlagGems' operator all, not the suite ----------------
# (this checkout has no mark all: the batch refuses it as `zlbench run --op all` would)
run_zl "${ARGS[@]}" --devices 0 --ops all,stub_one --dry-run --out "$TMP/dry"
expect_rc 3
contains "$TMP/err" "PREFLIGHT_FAILED check=op_resolution"
contains "$TMP/err" "'all'"
printf 'all\n' >"$TMP/ops.txt"
run_zl "${ARGS[@]}" --devices 0 --ops-file "$TMP/ops.txt" --dry-run --out "$TMP/dry"
expect_rc 3
contains "$TMP/err" "'all'"

# ---- the same --ops all through Slurm: the plan (no cluster needed) ---------------------
run_zl "${ARGS[@]}" --ops all --exclude stub_three --launcher slurm --dry-run --out "$TMP/sl"
expect_rc 0
[ -e "$TMP/sl" ] && fail "--dry-run created the Slurm batch directory"
contains "$TMP/out" "array tasks (4, longest expected first"
for op in stub_five stub_four stub_one stub_two; do
	contains "$TMP/out" "op=$op attempt=1"
done
lacks "$TMP/out" "op=stub_three"
contains "$TMP/out" "#SBATCH --array=0-3"
contains "$TMP/out" "makespan: as many GPUs at once as Slurm grants"
pass
