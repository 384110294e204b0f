#!/bin/bash
# doctor step 3 (collect): the op resolves to nodes and pytest collects tests from them.
# Instances: a misspelt op (near names suggested), a marker or -k that removes every test,
# a benchmark file that fails to import, a pytest command line refused.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/fixtures/doctor/doctor_lib.sh"
cd "$TMP"
fg_tree fg

# a misspelt operator: nothing resolves; the near name is the fix
doctor --backend cuda --flaggems-dir fg --op mmm
expect_failed_at collect
contains "$TMP/out" "no benchmark for operator 'mmm'"
contains "$TMP/out" "near name: mm"
contains "$TMP/out" "did you mean --op mm?"

# -m removes everything: the file's tests carry another marker
doctor --backend cuda --flaggems-dir fg --op-file benchmark/test_mm.py --op addmm
expect_failed_at collect
contains "$TMP/out" "-m addmm removed all 1 tests: none carries @pytest.mark.addmm"
contains "$TMP/out" "markers on those tests: mm"
contains "$TMP/out" "collected before the filters: benchmark/test_mm.py::test_mm"
contains "$TMP/out" "use --op mm"

# the user's -k removes them
doctor --backend cuda --flaggems-dir fg --op mm -- -k nomatch
expect_failed_at collect
contains "$TMP/out" "-k 'nomatch' removed the 1 test(s) marked mm"
contains "$TMP/out" "drop -k 'nomatch'"

# a benchmark file that cannot be imported
fg_tree badimport
printf 'import nosuchmodule_zl\n' >>badimport/benchmark/test_mm.py
doctor --backend cuda --flaggems-dir badimport --op mm
expect_failed_at collect
contains "$TMP/out" "collecting benchmark/test_mm.py failed: ModuleNotFoundError: No module named 'nosuchmodule_zl'"

# pytest refuses its command line (exit 4)
doctor --backend cuda --flaggems-dir fg --op mm -- --no-such-pytest-option-zl
expect_failed_at collect
contains "$TMP/out" "pytest refused to collect (exit 4)"
contains "$TMP/out" "--no-such-pytest-option-zl"

# the good case lists what was collected
doctor --backend cuda --flaggems-dir fg --op mm --json
[ "$(json_get "$TMP/out" 'd["steps"][2]["status"]')" = ok ] || fail "collect not ok"
[ "$(json_get "$TMP/out" 'd["steps"][2]["evidence"]')" = "['benchmark/test_mm.py::test_mm']" ] ||
	fail "collect evidence: $(json_get "$TMP/out" 'd["steps"][2]["evidence"]')"
# a diagnosis leaves nothing in the checkout
[ -z "$(find fg -name __pycache__ -o -name .pytest_cache)" ] || fail "doctor left caches in the checkout"
pass
