#!/bin/bash
# Every preflight check fails with its name on its own line and exit 3.
. "$(dirname "$0")/lib.sh"

mini_tree "$TMP/fg"
cd "$TMP"
PY="$ZL_TEST_PYTHON"

# expect_check NAME ARGS...: run fails preflight with check NAME
expect_check() {
	local name=$1
	shift
	run_zl run "$@"
	expect_rc 3
	grep -qx "PREFLIGHT_FAILED check=$name" "$TMP/err" || fail "no 'PREFLIGHT_FAILED check=$name' line: $(cat "$TMP/err")"
	# one human line follows, naming the check
	contains "$TMP/err" "preflight '$name' failed"
}

# devices: the query tool is there but fails (a broken driver); found by the enumeration,
# which runs after the cheap checks
fake_tool nvidia-smi 'echo "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver" >&2; exit 9'
expect_check devices --backend cuda --flaggems-dir fg --op mm --python "$PY"
contains "$TMP/err" "a broken driver stack?"
rm -f "$TMP/bin/nvidia-smi"

# backend: the checkout has FlagGems' vendor packages, but not the chosen backend's
# (a checkout without src/flag_gems/runtime/backend/ at all is not judged: fg passes below)
cp -R fg onevendor
mkdir -p onevendor/src/flag_gems/runtime/backend/_nvidia
expect_check backend --backend musa --flaggems-dir onevendor --op mm --python /nonexistent/python
contains "$TMP/err" "backend 'musa' (from --backend) needs FlagGems' vendor package '$TMP/onevendor/src/flag_gems/runtime/backend/_mthreads'"
ZL_BACKEND=amd expect_check backend --flaggems-dir onevendor --op mm --python "$PY"
contains "$TMP/err" "(from ZL_BACKEND)"
run_zl run --backend cuda --flaggems-dir onevendor --op mm --python "$PY" --dry-run
expect_rc 0
rm -rf onevendor

# level: a checkout whose conftest registers no --level (old FlagGems)
mkdir -p old/benchmark && echo 'def pytest_addoption(parser): pass' >old/benchmark/conftest.py
cp fg/benchmark/test_mm.py old/benchmark/
expect_check level --backend cuda --flaggems-dir old --op mm --python "$PY"

# flaggems_dir: missing, and nothing else runs (no interpreter started: a bogus python is never needed)
expect_check flaggems_dir --backend cuda --flaggems-dir nowhere --op mm --python /nonexistent/python
contains "$TMP/err" "nowhere"

# benchmark_dir: no benchmark/ and no conftest.py
mkdir -p empty
expect_check benchmark_dir --backend cuda --flaggems-dir empty --op mm --python "$PY"
mkdir -p noconf/benchmark
expect_check benchmark_dir --backend cuda --flaggems-dir noconf --op mm --python "$PY"
contains "$TMP/err" "unrecognized arguments"

# benchmark_file: the file half of a test node, and OP_FILE
expect_check benchmark_file --backend cuda --flaggems-dir fg --test-node benchmark/test_nope.py::test_x --python "$PY"
OP_FILE=benchmark/none.py expect_check benchmark_file --backend cuda --flaggems-dir fg --python "$PY"

# op_resolution with did-you-mean
expect_check op_resolution --backend cuda --flaggems-dir fg --op mmm --python "$PY"
contains "$TMP/err" "did you mean: mm"

# shape_file: missing, unreadable as YAML, not a mapping
expect_check shape_file --backend cuda --flaggems-dir fg --op mm --shape-file nope.yaml --python "$PY"
printf 'a: [1, 2\n' >bad.yaml
expect_check shape_file --backend cuda --flaggems-dir fg --op mm --shape-file bad.yaml --python "$PY"
contains "$TMP/err" "line"
printf -- '- 1\n- 2\n' >list.yaml
expect_check shape_file --backend cuda --flaggems-dir fg --op mm --shape-file list.yaml --python "$PY"

# replay_from: not a directory, then a directory without autotune_records/
expect_check replay_from --backend cuda --flaggems-dir fg --op mm --replay-from nope --python "$PY"
mkdir -p oldrun
expect_check replay_from --backend cuda --flaggems-dir fg --op mm --replay-from oldrun --python "$PY"

# python: not found
expect_check python --backend cuda --flaggems-dir fg --op mm --python /nonexistent/python3
ZL_PYTHON=no-such-python-zl expect_check python --backend cuda --flaggems-dir fg --op mm
contains "$TMP/err" "ZL_PYTHON"

# pytest: an interpreter without pytest
mkdir -p "$TMP/nopy"
printf '#!/bin/sh\necho "ModuleNotFoundError: No module named pytest" >&2\nexit 1\n' >"$TMP/nopy/python"
chmod +x "$TMP/nopy/python"
expect_check pytest --backend cuda --flaggems-dir fg --op mm --python "$TMP/nopy/python"
contains "$TMP/err" "No module named pytest"

# devices: an index the enumeration does not list (fake nvidia-smi with 2 GPUs)
fake_tool nvidia-smi 'printf "0, NVIDIA H200, GPU-aaaa, 00000000:00:06.0, 143771, 570.1\n1, NVIDIA H200, GPU-bbbb, 00000000:00:07.0, 143771, 570.1\n"'
expect_check devices --backend cuda --flaggems-dir fg --op mm --devices 0,5 --python "$PY"
contains "$TMP/err" "device 5"
rm -f "$TMP/bin/nvidia-smi"

# out_dir: a non-empty directory is refused untouched
mkdir -p used && echo keep >used/file
expect_check out_dir --backend cuda --flaggems-dir fg --op mm --out used --python "$PY"
[ "$(cat used/file)" = keep ] && [ "$(ls used)" = file ] || fail "out dir was touched"
# out_dir: a regular file is not a directory, and a file where a parent should be fails now,
# not when the run makes the directory (--out, and ZL_RUNS_DIR for the default name)
echo x >afile
expect_check out_dir --backend cuda --flaggems-dir fg --op mm --out afile --python "$PY"
contains "$TMP/err" "run directory '$TMP/afile' (from --out) exists and is not a directory"
expect_check out_dir --backend cuda --flaggems-dir fg --op mm --out afile/sub/run --python "$PY"
contains "$TMP/err" "'$TMP/afile' is not a directory, so run directory '$TMP/afile/sub/run' (from --out) cannot be made"
ZL_RUNS_DIR=afile expect_check out_dir --backend cuda --flaggems-dir fg --op mm --python "$PY" --dry-run
contains "$TMP/err" "'$TMP/afile' is not a directory"
contains "$TMP/err" "(from ZL_RUNS_DIR)"
ZL_RUNS_DIR=afile run_zl preflight --backend cuda --flaggems-dir fg --op mm --python "$PY"
expect_rc 3
grep -qE "^FAILED +out_dir" "$TMP/out" || fail "preflight passed ZL_RUNS_DIR naming a file"
[ "$(cat afile)" = x ] || fail "afile was touched"

# zlbench preflight: every check listed, ok or FAILED, exit 3 on a failure
run_zl preflight --backend cuda --flaggems-dir fg --op mm --python "$PY"
expect_rc 0
for c in backend level flaggems_dir benchmark_dir benchmark_file op_resolution shape_file replay_from python pytest devices out_dir; do
	grep -qE "^ok +$c\$" "$TMP/out" || fail "check $c not ok: $(cat "$TMP/out")"
done
run_zl preflight --backend cuda --flaggems-dir fg --op mmm --python "$PY"
expect_rc 3
grep -qE "^FAILED +op_resolution" "$TMP/out" || fail "op_resolution not FAILED"
run_zl preflight --backend cuda --flaggems-dir fg --op mm --python "$PY" --json
expect_rc 0
[ "$(json_get "$TMP/out" 'd["ok"] and len(d["checks"])')" = 12 ] || fail "preflight --json"
lacks "$TMP/err" "PREFLIGHT_FAILED"
# --json keeps the stderr contract: the first failure's line, once, then the human line
run_zl preflight --backend cuda --flaggems-dir fg --op mmm --replay-from nope --python "$PY" --json
expect_rc 3
[ "$(json_get "$TMP/out" '[c["name"] for c in d["checks"] if c["status"] == "failed"]')" = "['op_resolution', 'replay_from']" ] ||
	fail "preflight --json failures: $(cat "$TMP/out")"
[ "$(grep -c '^PREFLIGHT_FAILED' "$TMP/err")" = 1 ] && grep -qx "PREFLIGHT_FAILED check=op_resolution" "$TMP/err" ||
	fail "preflight --json: no PREFLIGHT_FAILED line for the first failure: $(cat "$TMP/err")"
contains "$TMP/err" "preflight 'op_resolution' failed: no benchmark for operator 'mmm'"

# usage errors are not preflight failures
run_zl run --backend cuda --flaggems-dir fg --op 'mm/../x' --python "$PY"
expect_rc 2
contains "$TMP/err" "invalid operator name"
run_zl run --backend cuda --flaggems-dir fg --python "$PY"
expect_rc 2
contains "$TMP/err" "nothing to run"
# the operator name is checked with the settings: every command agrees, and before any path check
run_zl run --backend cuda --flaggems-dir /nope --op ../x --python "$PY"
expect_rc 2
contains "$TMP/err" "invalid operator name '../x' (from --op)"
lacks "$TMP/err" "PREFLIGHT_FAILED"
for cmd in run preflight; do
	OP='mm;x' run_zl $cmd --backend cuda --flaggems-dir fg --python "$PY"
	expect_rc 2
	contains "$TMP/err" "invalid operator name 'mm;x' (from OP)"
	run_zl $cmd --backend cuda --flaggems-dir fg --op 'a/b' --python "$PY"
	expect_rc 2
	contains "$TMP/err" "invalid operator name 'a/b' (from --op)"
	lacks "$TMP/out" "op_resolution"
done
# preflight with nothing to check is the same usage error as run's
run_zl preflight --backend cuda --flaggems-dir fg --python "$PY"
expect_rc 2
contains "$TMP/err" "nothing to run"
lacks "$TMP/out" "ok "
run_zl preflight --backend cuda --flaggems-dir fg --python "$PY" --json
expect_rc 2
contains "$TMP/err" "nothing to run"
pass
