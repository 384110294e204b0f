#!/bin/bash
# batch: exit 3 when every op fails preflight (a broken environment) or an op is unknown (refused up front);
# devices checked against the enumeration; usage errors exit 2 and create nothing.
. "$(dirname "$0")/lib.sh"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
export ZL_KILL_GRACE=2
batch() { run_zl batch --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --progress plain "$@"; }

# every op fails preflight: the interpreter does not exist
run_zl batch --backend cuda --flaggems-dir "$FIX" --python /nonexistent/python3 --devices 0,1 \
	--ops batch_p01,batch_p02,sleepy --out "$TMP/p" --progress plain
expect_rc 3
contains "$TMP/out" "3 operators: 0 passed, 0 failed, 0 crashed, 0 timed out, 3 preflight failed"
"$ZL_TEST_PYTHON" - "$TMP/p" <<'PY' || fail "preflight rows"
import csv, os, sys
rows = list(csv.DictReader(open(os.path.join(sys.argv[1], "ops_status.csv"), newline="")))
assert len(rows) == 3, rows
for r in rows:
    assert r["status"] == "preflight_failed" and r["exit_code"] == "3", r
    assert "interpreter '/nonexistent/python3'" in r["reason"], r["reason"]
    assert r["run_dir"] == "", r  # a run that fails preflight leaves no run directory
    assert os.path.isfile(os.path.join(sys.argv[1], r["log"]))
PY
contains "$TMP/p/logs/sleepy.log" "PREFLIGHT_FAILED check=python"

# preflight_failed is not final: fix the environment, and --resume runs those ops
batch --devices 0 --python "$TMP/py/python3" --ops batch_p01,sleepy --out "$TMP/f"
expect_rc 3
mkdir -p "$TMP/py"
ln -s "$ZL_TEST_PYTHON" "$TMP/py/python3"
run_zl batch --resume "$TMP/f" --progress plain
expect_rc 0
contains "$TMP/out" "2 operators: 2 passed"
"$ZL_TEST_PYTHON" - "$TMP/f" <<'PY' || fail "resume after a preflight failure"
import csv, os, sys
rows = [(r["op"], r["status"], r["attempt"], r["run_dir"], r["log"])
        for r in csv.DictReader(open(os.path.join(sys.argv[1], "ops_status.csv"), newline=""))]
# the latest attempt has the op's own paths; the earlier one (its log) was kept aside
assert sorted(rows[:2]) == [("batch_p01", "preflight_failed", "1", "", "logs/batch_p01.attempt1.log"),
                            ("sleepy", "preflight_failed", "1", "", "logs/sleepy.attempt1.log")], rows
assert sorted(rows[2:]) == [("batch_p01", "passed", "2", "runs/batch_p01", "logs/batch_p01.log"),
                            ("sleepy", "passed", "2", "runs/sleepy", "logs/sleepy.log")], rows
for r in rows:
    assert os.path.isfile(os.path.join(sys.argv[1], r[4])), r
assert "PREFLIGHT_FAILED" in open(os.path.join(sys.argv[1], "logs/sleepy.attempt1.log")).read()
assert "PREFLIGHT_FAILED" not in open(os.path.join(sys.argv[1], "logs/sleepy.log")).read()
PY
# the ops that passed stay passed
run_zl batch --resume "$TMP/f" --progress plain
expect_rc 0
[ "$(wc -l <"$TMP/f/ops_status.csv")" -eq 5 ] || fail "a passed op ran again: $(cat "$TMP/f/ops_status.csv")"

# an operator no benchmark carries is refused before anything runs, each on a line of its
# own, with what to type instead (as `zlbench run --op` refuses it), exit 3: no batch directory
batch --devices 0 --ops nosuchop,batch_p01,batch_p0l --out "$TMP/m"
expect_rc 3
contains "$TMP/err" "PREFLIGHT_FAILED check=op_resolution"
contains "$TMP/err" "failed for 2 of the batch's 3 operators; nothing was run:"
contains "$TMP/err" "  no benchmark for operator 'nosuchop': no benchmark/test_nosuchop.py and no file carries @pytest.mark.nosuchop"
contains "$TMP/err" "  no benchmark for operator 'batch_p0l': "
contains "$TMP/err" "did you mean: batch_p01"
[ "$(grep -c "^  no benchmark for operator" "$TMP/err")" -eq 2 ] || fail "one line per unknown op: $(cat "$TMP/err")"
[ -e "$TMP/m" ] && fail "an unknown operator created the batch directory"
# the same with --dry-run; a dry run of known ones says how they resolved
batch --devices 0 --ops nosuchop --dry-run --out "$TMP/m"
expect_rc 3
contains "$TMP/err" "PREFLIGHT_FAILED check=op_resolution"
batch --devices 0 --ops batch_p01,sleepy --dry-run --out "$TMP/m"
expect_rc 0
contains "$TMP/out" "operators resolved: 2 of 2 (1 by their own file, 1 by marker scan;"

# with a query tool the devices are checked before anything starts
fake_tool nvidia-smi "exec /bin/cat '$ZL_FIXTURES_DIR/devices/nvidia-smi-h200x2/query-gpu-noheader-nounits.csv'"
batch --devices 0,5 --ops batch_p01 --out "$TMP/d"
expect_rc 3
contains "$TMP/err" "PREFLIGHT_FAILED check=devices"
contains "$TMP/err" "device 5 (from --devices) does not exist"
[ -e "$TMP/d" ] && fail "a failed device check created the batch directory"
# no --devices: every enumerated device
batch --ops batch_p01 --dry-run --out "$TMP/d"
expect_rc 0
contains "$TMP/out" "devices: 0 1"
lacks "$TMP/err" "not verified"
# a query tool that is there but cannot answer: a broken driver, as `zlbench run` says it
fake_tool nvidia-smi 'echo "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver" >&2; exit 9'
batch --devices 0 --ops batch_p01 --out "$TMP/d"
expect_rc 3
contains "$TMP/err" "PREFLIGHT_FAILED check=devices"
contains "$TMP/err" "a broken driver stack?"
[ -e "$TMP/d" ] && fail "a broken driver created the batch directory"
fake_tool nvidia-smi "exec /bin/cat '$ZL_FIXTURES_DIR/devices/nvidia-smi-h200x2/query-gpu-noheader-nounits.csv'"

# usage errors
batch --devices 0 --out "$TMP/u"
expect_rc 2
contains "$TMP/err" "no operators"
batch --devices 0 --ops mm,bmm,mm --out "$TMP/u"
expect_rc 2
contains "$TMP/err" "'mm' is listed twice"
batch --devices 0 --ops 'mm;rm' --out "$TMP/u"
expect_rc 2
batch --devices 0 --op mm --out "$TMP/u"
expect_rc 2
contains "$TMP/err" "--op names one run"
batch --devices 0,0 --ops mm --out "$TMP/u"
expect_rc 2
contains "$TMP/err" "device 0 is listed twice"
# two spellings of one device are one device; signs and blanks are no index
batch --devices 1,01 --ops mm --out "$TMP/u"
expect_rc 2
contains "$TMP/err" "device 1 is listed twice"
batch --devices 0,+1 --ops mm --out "$TMP/u"
expect_rc 2
batch --devices "0, 1" --ops mm --out "$TMP/u"
expect_rc 2
# the canonical spelling reaches the children
batch --devices 01,00 --ops batch_p01 --dry-run --out "$TMP/u"
expect_rc 0
contains "$TMP/out" "devices: 1 0"
batch --devices 0 --ops mm --retry-failed --out "$TMP/u"
expect_rc 2
batch --devices 0 --ops mm --progress loud --out "$TMP/u"
expect_rc 2
batch --devices 0 --ops-file "$TMP/missing.txt" --out "$TMP/u"
expect_rc 2
contains "$TMP/err" "cannot read ops file '$TMP/missing.txt'"
batch --devices 0 --ops mm --level everything --out "$TMP/u"
expect_rc 2
[ -e "$TMP/u" ] && fail "a usage error created the batch directory"

# the default batch directory: $ZL_RUNS_DIR/<UTC stamp>-<backend>-batch
ZL_RUNS_DIR="$TMP/runs" batch --devices 0 --ops batch_p01 --dry-run
expect_rc 0
grep -qE "^batch dir: $TMP/runs/[0-9]{8}-[0-9]{6}-cuda-batch\$" "$TMP/out" || fail "default batch dir: $(head -n 1 "$TMP/out")"

# --ops-file: comments and blank lines
printf '# nightly\nbatch_p01   # quick\n\nbatch_p02\n' >"$TMP/ops.txt"
batch --devices 0 --ops-file "$TMP/ops.txt" --dry-run --out "$TMP/u"
expect_rc 0
contains "$TMP/out" "  batch_p01"
contains "$TMP/out" "  batch_p02"
pass
