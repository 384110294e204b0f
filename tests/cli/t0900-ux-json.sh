#!/bin/bash
# Every listing command takes --json and prints one JSON document that parses
# (backends, devices, plan, preflight, history, doctor), and its content is the command's.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/fixtures/doctor/doctor_lib.sh"
cd "$TMP"
fg_tree fg
PY="$ZL_TEST_PYTHON"

# json_ok CODE CHECK ARGS...: zlbench ARGS exits CODE, stdout parses, and the Python CHECK over d holds
json_ok() {
	local code=$1 check=$2
	shift 2
	run_zl "$@"
	expect_rc "$code"
	"$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/out" 2>"$TMP/jerr" ||
		fail "'zlbench $*' --json output does not parse: $(head -c 300 "$TMP/out") $(cat "$TMP/jerr")"
	[ "$(json_get "$TMP/out" "$check")" = True ] || fail "'zlbench $*': $check does not hold: $(head -c 600 "$TMP/out")"
}

json_ok 0 '"cuda" in json.dumps(d) and "musa" in json.dumps(d)' backends --json
json_ok 0 'd["backend"] == "cuda"' devices --backend cuda --json
json_ok 0 'd["backend"] == "musa" and d["timer"] == "direct"' plan --backend musa --json
json_ok 0 '[c["name"] for c in d["checks"]][0] == "backend" and d["ok"] is True' \
	preflight --backend cuda --flaggems-dir fg --op mm --python "$PY" --json
json_ok 3 'd["ok"] is False' preflight --backend cuda --flaggems-dir fg --op mmm --python "$PY" --json
json_ok 0 'isinstance(d, (list, dict))' history --json
json_ok 0 'd["ok"] is True and len(d["steps"]) == 7' doctor --backend cuda --flaggems-dir fg --op mm --python "$PY" --json
json_ok 3 'd["failed_step"] == "collect"' doctor --backend cuda --flaggems-dir fg --op mmm --python "$PY" --json
pass
