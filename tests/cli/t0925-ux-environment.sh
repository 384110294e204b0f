#!/bin/bash
# One environment table: getenv() is called by src/lib/env.c alone; every ZL_ variable the
# code names (and every variable an option row or a setting reads) is listed by
# `zlbench help environment` with its meaning; the vendors' visibility variables come from
# the backend rows and are named nowhere in src/.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
SRC=$ZL_SOURCE_DIR

# the one reader of the environment
hits=$(grep -rnE '\bgetenv[[:space:]]*\(' "$SRC/src" "$SRC/backends" | grep -v "^$SRC/src/lib/env.c:" || true)
[ -z "$hits" ] || fail "getenv outside src/lib/env.c (read through zl_env, env.h):
$hits"
hits=$(grep -rnE 'secure_getenv|[^_]environ\[' "$SRC/src" "$SRC/backends" | grep -vE '/(child|slurm)\.c:' || true)
[ -z "$hits" ] || fail "the environment read around the table: $hits"

run_zl help environment
expect_rc 0
cp "$TMP/out" env.txt
# listed VAR: VAR is a row of the text (at the start of its line, with a meaning after it)
listed() { grep -qE "^  $1 +[^ ]" env.txt; }

# every ZL_ name the C code and the plugins use as a variable (a string literal)
{
	grep -rhoE '"ZL_[A-Z0-9_]+[="]' "$SRC/src" "$SRC/backends" "$SRC/include" | tr -d '"='
	grep -rhoE "[\"']ZL_[A-Z0-9_]+[\"'=]" "$SRC/plugins"/*.py | tr -d "\"'="
} | sort -u >names
# ZL_PLUGIN_ERROR is the tag of a plugin's message on stderr, no variable
grep -vx ZL_PLUGIN_ERROR names >vars || true
[ "$(wc -l <vars)" -ge 30 ] || fail "too few ZL_ names found in the sources: $(tr '\n' ' ' <vars)"
missing=""
while read -r v; do listed "$v" || missing="$missing $v"; done <vars
[ -z "$missing" ] || fail "help environment does not list:$missing"
# every variable an option row takes its default from, and every setting's
for v in $(grep -rhoE '\.env = "[A-Z_]+"' "$SRC/src" | sed -E 's/.*"(.*)"/\1/' | sort -u); do
	listed "$v" || fail "help environment does not list $v, an option's variable"
done
for v in $("$ZLBENCH" run --help | grep -oE '\[env [A-Z_]+' | cut -c6- | sort -u); do
	listed "$v" || fail "help environment does not list $v, a run setting's variable"
done
# the foreign ones the issue names
for v in NO_COLOR TMPDIR HOME PYTEST_ADDOPTS FLAGGEMS_CACHE_DIR TRITON_CACHE_DIR; do
	listed "$v" || fail "help environment does not list $v"
done

# the vendors' visibility variables: from the backend rows, listed, and named nowhere in src/
"$ZLBENCH" backends --json | "$ZL_TEST_PYTHON" -c 'import json,sys
for b in json.load(sys.stdin)["backends"]:
    for v in [b["visibility_var"]] + b["extra_visibility_vars"] + b["slurm_sets"]: print(v)' | sort -u >vis
[ "$(wc -l <vis)" -ge 4 ] || fail "the backend table lists too few visibility variables: $(cat vis)"
while read -r v; do
	listed "$v" || fail "help environment does not list $v (a backend row's)"
	! grep -rn -- "$v" "$SRC/src" "$SRC/include" || fail "$v is named outside backends/"
done <vis
grep -E '^  CUDA_VISIBLE_DEVICES ' -A2 env.txt | grep -q 'the cuda devices a run sees' ||
	fail "the cuda row's variable lacks its meaning: $(grep -A2 CUDA_VISIBLE env.txt)"

# meaning and default from the row that declares them: a setting's flag, an option's default
grep -E '^  ZL_TIMER ' -A3 env.txt | tr -s ' \n' ' ' | grep -qF "[--timer; default: the best the backend offers" ||
	fail "ZL_TIMER's line: $(grep -A3 '^  ZL_TIMER' env.txt)"
grep -E '^  ZL_START ' -A2 env.txt | tr -s ' \n' ' ' | grep -qF "[batch --start; default: worker]" ||
	fail "ZL_START's line: $(grep -A2 '^  ZL_START' env.txt)"
grep -E '^  ZL_KILL_GRACE ' -A2 env.txt | tr -s ' \n' ' ' | grep -qF "[default: 10]" ||
	fail "ZL_KILL_GRACE's line: $(grep -A2 '^  ZL_KILL_GRACE' env.txt)"
# who sets what: the internal and the child's variables under their own headings
sed -n '/^Set by zlbench for the zlbench processes/,/^$/p' env.txt | grep -q '^  ZL_WORKER_SOCKET ' ||
	fail "ZL_WORKER_SOCKET is not among the variables zlbench sets for its own processes"
sed -n '/^Set for the pytest child/,$p' env.txt | grep -q '^  ZL_RUN_DIR ' ||
	fail "ZL_RUN_DIR is not among the child's variables"
# no line wider than 80 columns
! awk 'length > 80' env.txt | grep -q . || fail "help environment is wider than 80 columns: $(awk 'length > 80' env.txt)"

# the other topics
run_zl help exit-status
expect_rc 0
for code in 0 1 2 3 4 5 70 124 128+N 130; do
	grep -qE "^  ${code/+/[+]} +[a-z-]" "$TMP/out" || fail "help exit-status lacks $code"
done
run_zl help files
expect_rc 0
contains "$TMP/out" '$ZL_HOME/history.db'
contains "$TMP/out" 'RUN_DIR/'
run_zl help
contains "$TMP/out" "Topics:"
contains "$TMP/out" "  environment  "
pass
