#!/bin/bash
# --help is rendered from the rows that parse: every option a command's help lists is one it
# takes; a command lists the run settings it refuses nowhere and names those it ignores on one
# line; each setting shows its variable and default; the Slurm task entry is hidden.
. "$(dirname "$0")/lib.sh"
cd "$TMP"

run_zl help
expect_rc 0
commands=$(sed -n '/^Commands:/,/^$/p' "$TMP/out" | awk 'NF > 1 { print $1 }')
bad=""
for c in $commands; do
	run_zl "$c" --help
	cp "$TMP/out" "$TMP/help-$c"
	# option rows: "  --name ARG   help" (ARG one space after the name: it takes a value)
	grep -E '^  (-[a-zA-Z], )?--[a-z]' "$TMP/help-$c" |
		sed -E 's/^  (-[a-zA-Z], )?(--[a-z0-9-]+)( [A-Z][A-Z_=]*)?( {2,}.*)?$/\2\3/; s/ [A-Z].*/=x/' >"$TMP/rows-$c"
	while read -r opt; do
		[ "$opt" = --help ] && continue
		run_zl "$c" "$opt" --help
		[ "$RC" -eq 0 ] || bad="$bad $c:$opt"
	done <"$TMP/rows-$c"
done
[ -z "$bad" ] || fail "help lists options the command refuses:$bad"

# the settings batch sets per operator are not offered; plan names those it ignores
lacks "$TMP/help-batch" "  --op OP "
lacks "$TMP/help-batch" "  --test-node NODE "
contains "$TMP/help-batch" "  --ops LIST "
lacks "$TMP/help-calibrate" "  --op-file FILE "
contains "$TMP/help-calibrate" "  --op OP "
contains "$TMP/help-plan" "  --timer NAME "
contains "$TMP/help-plan" "Accepted and ignored"
grep -A1 "Accepted and ignored" "$TMP/help-plan" | grep -q -- "--op OP" || fail "plan does not name --op among the ignored"
contains "$TMP/help-doctor" "Accepted and ignored"
# a setting's variable and default, from the settings table
contains "$TMP/help-run" "[env ZL_TIMER; default: the best the backend offers"
contains "$TMP/help-run" "[env BENCH_LEVEL; default: core]"
contains "$TMP/help-batch" "[env ZL_START; default: worker]"

# the Slurm task entry: reached as `batch --slurm-task`, listed nowhere
lacks "$TMP/help-batch" "slurm-task"
run_zl batch --slurm-task
expect_rc 2
contains "$TMP/err" "usage: zlbench batch --slurm-task DIR --op OP --attempt K"
run_zl completion bash
expect_rc 0
lacks "$TMP/out" "slurm-task"
pass
