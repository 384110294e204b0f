#!/bin/bash
# A mistyped command, topic, option or choice value names the nearest ones (one suggestion
# function for all of them and for operators); nothing is suggested when nothing is near.
. "$(dirname "$0")/lib.sh"
cd "$TMP"

# usage CODE MESSAGE ARGS...: zlbench ARGS exits CODE and says MESSAGE on stderr
usage() {
	local code=$1 msg=$2
	shift 2
	run_zl "$@"
	expect_rc "$code"
	contains "$TMP/err" "$msg"
}

# commands and help's topics
usage 2 "unknown command 'rnu' (see 'zlbench help'); did you mean 'run'?" rnu --op add
usage 2 "unknown command 'comapre' (see 'zlbench help'); did you mean 'compare'?" comapre a b
usage 2 "unknown command or topic 'enviroment' (see 'zlbench help'); did you mean 'environment'?" help enviroment
usage 2 "unknown command or topic 'calibrte' (see 'zlbench help'); did you mean 'calibrate'?" help calibrte
run_zl frobnicate
expect_rc 2
lacks "$TMP/err" "did you mean"

# options: the command's own, the run settings', the global ones
usage 2 "unknown option '--tmer' (see --help); did you mean '--timer'?" run --op add --tmer graph
usage 2 "unknown option '--tmeout' (see --help); did you mean '--timeout'?" run --op add --tmeout 3
usage 2 "unknown option '--jsn' (see --help); did you mean '--json'?" backends --jsn
usage 2 "unknown option '--quite' (see --help); did you mean '--quiet'?" history --quite
usage 2 "unknown option '--flagems-dir' (see --help); did you mean '--flaggems-dir'?" batch --flagems-dir x
run_zl run --op add --zzzzzz
expect_rc 2
lacks "$TMP/err" "did you mean"

# choice values of the settings: from a flag and from the variable
usage 2 "invalid value 'profilr' for --timer: choose profiler, graph or direct; did you mean 'profiler'?" \
	plan --backend cuda --timer profilr
ZL_TIMER=grph usage 2 "invalid value 'grph' for ZL_TIMER: choose profiler, graph or direct; did you mean 'graph'?" \
	plan --backend cuda
usage 2 "invalid value 'cor' for --level: choose core or comprehensive; did you mean 'core'?" plan --backend cuda --level cor
usage 2 "invalid value 'chnage' for --sort: choose change, name or time; did you mean 'change'?" compare a b --sort chnage
usage 2 "invalid value 'uptream' for --shape-mode: choose file or upstream; did you mean 'upstream'?" \
	plan --backend cuda --shape-mode uptream
usage 2 "invalid value 'nvdia' for --backend: choose one of cuda (nvidia, cu)" plan --backend nvdia
contains "$TMP/err" "; did you mean 'nvidia'?"
usage 2 "unknown backend 'rcom' from --backend; choices: cuda (nvidia, cu)" devices --backend rcom
contains "$TMP/err" "; did you mean 'rocm'?"
# a command's own rows with choices: refused before anything starts, from a flag or a variable
usage 2 "invalid value 'frsh' for --start: choose worker or fresh; did you mean 'fresh'?" \
	batch --backend cuda --ops add --start frsh --out b1
usage 2 "invalid value 'lve' for --progress: choose auto, live, plain or none; did you mean 'live'?" \
	batch --backend cuda --ops add --progress lve --out b1
usage 2 "invalid value 'slrum' for --launcher: choose local or slurm; did you mean 'slurm'?" \
	batch --backend cuda --ops add --launcher slrum --out b1
ZL_START=wroker usage 2 "invalid value 'wroker' for ZL_START: choose worker or fresh; did you mean 'worker'?" \
	batch --backend cuda --ops add --out b1
usage 2 "invalid value 'wrker' for --start: choose worker or fresh; did you mean 'worker'?" \
	calibrate --backend cuda --op add --start wrker --out c1
[ ! -e b1 ] && [ ! -e c1 ] || fail "a refused command left its directory"
# --help answers whatever the values before it
run_zl batch --start frsh --help
expect_rc 0
contains "$TMP/out" "usage: zlbench batch"

# operators: the same suggestion function (resolve.c's did you mean)
mkdir -p fg/benchmark
printf 'import pytest\n\n\n@pytest.mark.softmax\ndef test_softmax():\n    pass\n' >fg/benchmark/test_softmax.py
: >fg/benchmark/conftest.py
run_zl preflight --backend cuda --flaggems-dir fg --op sofmax --python "$ZL_TEST_PYTHON"
cat "$TMP/out" "$TMP/err" >all
contains all "did you mean: softmax"
pass
