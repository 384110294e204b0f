#!/bin/bash
# Cheap checks before device enumeration: a missing FlagGems directory fails at once,
# without waiting for a slow vendor query tool (and without starting it at all).
. "$(dirname "$0")/lib.sh"

mini_tree "$TMP/fg"
cd "$TMP"
# a query tool that takes 5 s and leaves a mark that it ran
fake_tool nvidia-smi "touch '$TMP/tool-ran'; sleep 5; exit 9"

run_zl run --backend cuda --flaggems-dir /nonexistent/FlagGems --op mm --python "$ZL_TEST_PYTHON"
expect_rc 3
grep -qx "PREFLIGHT_FAILED check=flaggems_dir" "$TMP/err" || fail "not check=flaggems_dir: $(cat "$TMP/err")"
[ ! -e tool-ran ] || fail "the query tool ran before the cheap checks"

# zlbench preflight lists the checks in the documented order: backend (a table lookup) first,
# the device enumeration (devices) after pytest
run_zl preflight --backend cuda --flaggems-dir fg --op mm --python "$ZL_TEST_PYTHON"
expect_rc 3
[ -e tool-ran ] || fail "the query tool never ran: the enumeration was not checked"
order=$(sed -n 's/^\(ok\|FAILED\) *\([a-z_]*\).*/\2/p' "$TMP/out" | tr '\n' ' ')
[ "$order" = "backend level flaggems_dir benchmark_dir benchmark_file op_resolution shape_file replay_from python pytest devices out_dir " ] ||
	fail "check order: $order"
# the broken driver is found by the enumeration, and says so
grep -qE "^FAILED +devices .*broken driver stack" "$TMP/out" || fail "broken driver not reported: $(cat "$TMP/out")"
pass
