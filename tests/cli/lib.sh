# Shared helpers for the command-line tests (tests/cli/tNNNN-*.sh).
# Each test sources this file, then calls the helpers; the first failure exits 1.
set -u

: "${ZLBENCH:?ZLBENCH must point at the built zlbench binary}"
: "${ZL_SOURCE_DIR:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${ZL_FIXTURES_DIR:=$ZL_SOURCE_DIR/tests/fixtures}"
: "${ZL_TEST_PYTHON:=/usr/bin/python3}"
export ZL_SOURCE_DIR ZL_FIXTURES_DIR ZL_TEST_PYTHON
# A test must not depend on the developer's environment.
unset ZL_BACKEND FLAGGEMS_DIR OP OP_FILE TEST_NODE BENCH_LEVEL SHAPE_FILE SHAPE_MODE \
      REPLAY_FROM ZL_ISOLATE_TUNER_CACHE ZL_DEVICES ZL_PYTHON ZL_RUNS_DIR \
      ZL_ENABLE_CUDAGRAPH ZL_TIMER ZL_NOISE_TARGET ZL_MAX_TIME_PER_SHAPE ZL_DIRECT_REPEAT ZL_TIMEOUT ZL_HOME ZL_PUSH_URL ZL_PUSH_TOKEN \
      ZL_HISTORY_DB ZL_CURL_LIB FLAGGEMS_CACHE_DIR FLAGGEMS_DB_URL TRITON_CACHE_DIR \
      CUDA_VISIBLE_DEVICES MUSA_VISIBLE_DEVICES HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES \
      GPU_DEVICE_ORDINAL ASCEND_RT_VISIBLE_DEVICES FLAGGEMS_VENDOR GEMS_VENDOR NO_COLOR

TEST_NAME=$(basename "$0" .sh)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/zl-$TEST_NAME.XXXXXX")
# no device nodes and no vendor tools unless a test asks for them
export ZL_DEV_ROOT="$TMP/dev"
mkdir -p "$ZL_DEV_ROOT"
export ZL_HOME="$TMP/zlhome"
export FLAGGEMS_CACHE_DIR="$TMP/flaggems-cache" TRITON_CACHE_DIR="$TMP/triton-cache"
trap 'rm -rf "$TMP"' EXIT

fail() {
	echo "FAIL [$TEST_NAME]: $*" >&2
	exit 1
}

# run_zl: run zlbench, saving stdout/stderr/exit status in $TMP/out, $TMP/err, $RC.
run_zl() {
	set +e
	"$ZLBENCH" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	set -e
	return 0
}

# expect_rc CODE: the last run_zl exited with CODE.
expect_rc() {
	[ "$RC" -eq "$1" ] || {
		echo "--- stdout"; cat "$TMP/out"; echo "--- stderr"; cat "$TMP/err"
		fail "expected exit $1, got $RC"
	} >&2
}

# contains FILE TEXT: FILE contains the fixed string TEXT.
contains() {
	grep -qF -- "$2" "$1" || {
		echo "--- $1:"; cat "$1"
		fail "'$1' does not contain '$2'"
	} >&2
}

# lacks FILE TEXT: FILE does not contain TEXT.
lacks() {
	if grep -qF -- "$2" "$1"; then
		echo "--- $1:" >&2; cat "$1" >&2
		fail "'$1' contains '$2'"
	fi
}

# json_get FILE EXPR: evaluate a Python expression over the parsed JSON `d`.
json_get() {
	"$ZL_TEST_PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# fake_tool NAME SCRIPT: a stand-in vendor tool on PATH for this test.
fake_tool() {
	mkdir -p "$TMP/bin"
	printf '#!/bin/sh\n%s\n' "$2" >"$TMP/bin/$1"
	chmod +x "$TMP/bin/$1"
	case ":$PATH:" in *":$TMP/bin:"*) ;; *) export PATH="$TMP/bin:$PATH" ;; esac
}

pass() {
	echo "ok [$TEST_NAME]"
	exit 0
}
set -e

# mini_tree DIR: a minimal FlagGems-shaped tree (conftest registering --level,
# benchmark/test_mm.py, a marker-only op in a shared file, a shape file).
mini_tree() {
	mkdir -p "$1/benchmark/fused" "$1/src"
	cat >"$1/benchmark/conftest.py" <<'PY'
def pytest_addoption(parser):
    parser.addoption("--level", choices=["core", "comprehensive"])
PY
	printf 'import pytest\n\n@pytest.mark.mm\ndef test_mm():\n    pass\n' >"$1/benchmark/test_mm.py"
	printf 'import pytest\n\n@pytest.mark.bmm\ndef test_bmm():\n    pass\n' >"$1/benchmark/test_bmm.py"
	printf 'import pytest\n\n@pytest.mark.amax\ndef test_amax():\n    pass\n\n@pytest.mark.amax_backward\ndef test_amax_bw():\n    pass\n' \
		>"$1/benchmark/fused/test_reductions.py"
	printf 'import pytest\n\n@pytest.mark.amax(recommended_shapes=[[4]])\ndef test_amax2():\n    pass\n' \
		>"$1/benchmark/test_more.py"
	cat >"$1/benchmark/core_shapes.yaml" <<'YAML'
single: &single
  shapes:
    - [64]
    - [1024]
amax:
  <<: *single
BlasBenchmark:
  shapes:
    - [2, 384, 384, 384]
YAML
}

# demo_checkout DIR: the bundled demo copied to DIR as the top of a git checkout (one
# commit), so that its runs name a FlagGems commit (calibrations are keyed by it), and a
# fake nvidia-smi naming one "NVIDIA H200" (the device name keys them too). Prints nothing.
demo_checkout() {
	cp -r "$ZL_SOURCE_DIR/examples/demo" "$1"
	git -C "$1" init -q
	git -C "$1" add -A
	git -C "$1" -c user.email=test@example.com -c user.name=test commit -qm demo
	fake_tool nvidia-smi 'printf "0, NVIDIA H200, GPU-aaaa, 00000000:00:06.0, 143771, 570.1\n"'
}

# schema_documented FILE: the JSON document in FILE (an object, or an array of objects) names
# its schema in its first key, and the section of docs/json.md headed by that schema names
# every top-level key it has (as `key`)
schema_documented() {
	"$ZL_TEST_PYTHON" - "$1" "$ZL_SOURCE_DIR/docs/json.md" <<'PY' || fail "'$1': schema or keys not documented in docs/json.md"
import json, re, sys
d = json.load(open(sys.argv[1]))
docs = open(sys.argv[2]).read()
for obj in d if isinstance(d, list) else [d]:
    assert list(obj)[0] == "schema", list(obj)[:3]
    schema = obj["schema"]
    m = re.search(r"^## `%s`\n(.*?)(?=^## |\Z)" % re.escape(schema), docs, re.S | re.M)
    assert m, "no section for %s" % schema
    missing = [k for k in obj if "`%s`" % k not in m.group(1)]
    assert not missing, (schema, missing)
PY
}
