#!/bin/bash
# Exit codes and statuses of `zlbench run` against real pytest on the fixture tree.
. "$(dirname "$0")/lib.sh"

FX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
cd "$TMP"
R() { run_zl run --backend cuda --flaggems-dir "$FX" --python "$ZL_TEST_PYTHON" "$@"; }
status() { json_get "$1/run_identity.json" "$2"; }

# operator failure -> 1, status failed, reason from pytest's summary
R --op fail --out f
expect_rc 1
[ "$(status f 'd["status"], d["exit_code"]')" = "('failed', 1)" ] || fail "fail: $(status f 'd["status"]')"
case "$(status f 'd["reason"]')" in "FAILED benchmark/test_fail.py::test_fail"*) ;; *) fail "reason: $(status f 'd["reason"]')" ;; esac
[ "$(tail -n 1 "$TMP/out")" = "RUN_DIR=$TMP/f" ] || fail "RUN_DIR after a failure"

# crash by SIGSEGV -> 139, status crashed, signal 11
R --op crash --out c
expect_rc 139
[ "$(status c 'd["status"], d["exit_code"], d["signal"]')" = "('crashed', 139, 11)" ] || fail "crash: $(status c 'd["status"], d["signal"]')"

# no tests collected -> 5 (a file without tests; --op empty is refused before pytest: no file carries the mark)
R --op-file benchmark/test_empty.py --out e
expect_rc 5
[ "$(status e 'd["status"], d["exit_code"]')" = "('failed', 5)" ] || fail "empty"

# pytest usage error -> 4 (an option pytest does not know, after --)
R --op sleepy --out u -- --no-such-pytest-option
expect_rc 4
[ "$(status u 'd["exit_code"]')" = 4 ] || fail "usage"
contains u/pytest.log "unrecognized arguments"

# a benchmark file that does not import: pytest stops with its 2 ("Interrupted: 1 error during
# collection"), but nobody interrupted anything: a failed op, exit 1, the collection error as reason
cp -rL "$FX" ce
printf 'import pytest\nimport no_such_module_zl\n\n@pytest.mark.broken\ndef test_broken():\n    pass\n' \
	>ce/benchmark/test_broken.py
run_zl run --backend cuda --flaggems-dir ce --python "$ZL_TEST_PYTHON" --op broken --out ce-run
expect_rc 1
[ "$(status ce-run 'd["status"], d["exit_code"]')" = "('failed', 1)" ] || fail "collection error: $(status ce-run 'd["status"], d["exit_code"]')"
contains ce-run/pytest.log "error during collection"
case "$(status ce-run 'd["reason"]')" in "ERROR benchmark/test_broken.py"*) ;; *) fail "collection error reason: $(status ce-run 'd["reason"]')" ;; esac

# pytest's internal error (its own exit 3) -> 70, never 3: a conftest that raises in a hook
mkdir -p ie/benchmark
cp -r "$FX/src" ie/src 2>/dev/null || ln -s "$FX/src" ie/src
cat >ie/benchmark/conftest.py <<'PY'
def pytest_addoption(parser):
    for o in ("--level", "--mode", "--record", "--output"):
        parser.addoption(o)
def pytest_collection_modifyitems(items):
    raise RuntimeError("internal error on purpose")
PY
printf 'import pytest\n\n@pytest.mark.x\ndef test_x():\n    pass\n' >ie/benchmark/test_x.py
R --flaggems-dir ie --op x --out i
expect_rc 70
[ "$(status i 'd["status"], d["exit_code"]')" = "('crashed', 70)" ] || fail "internal: $(status i 'd["status"], d["exit_code"]')"

# the isolated caches cannot be made (TMPDIR unusable) before pytest starts: preflight_failed
# (exit 3) with the reason in a final identity, never a run directory without one
TMPDIR="$TMP/no/such/dir" R --op sleepy --out nt --isolate-tuner-cache
expect_rc 3
contains "$TMP/err" "PREFLIGHT_FAILED check=isolate_tuner_cache"
[ "$(status nt 'd["status"], d["exit_code"], d["finished_at"] is not None, d["child_argv"]')" = "('preflight_failed', 3, True, [])" ] ||
	fail "no TMPDIR: $(status nt 'd["status"], d["exit_code"], d["reason"]')"
case "$(status nt 'd["reason"]')" in *"$TMP/no/such/dir"*) ;; *) fail "reason: $(status nt 'd["reason"]')" ;; esac
[ "$(tail -n 1 "$TMP/out")" = "RUN_DIR=$TMP/nt" ] || fail "RUN_DIR after a failure before the child"
pass
