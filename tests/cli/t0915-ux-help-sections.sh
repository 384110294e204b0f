#!/bin/bash
# Every command's --help has the sections README promises ("synopsis, options, environment,
# exit codes and examples"): a "usage: zlbench CMD" synopsis, an "Options:" (or "<kind> options:")
# heading, "Environment:", "Exit codes:" (or "Exit status:") and "Example(s):".
. "$(dirname "$0")/lib.sh"
cd "$TMP"

run_zl help
expect_rc 0
commands=$(sed -n '/^Commands:/,/^$/p' "$TMP/out" | awk 'NF > 1 { print $1 }')
[ "$(echo "$commands" | wc -w)" -ge 10 ] || fail "command list too short: $commands"
short=""
for c in $commands; do
	run_zl "$c" --help
	[ "$RC" -eq 0 ] || { short="$short $c(--help exits $RC)"; continue; }
	grep -q "^usage: zlbench $c" "$TMP/out" || short="$short $c(synopsis)"
	grep -qE '^([A-Z][a-z]+ )?[Oo]ptions:' "$TMP/out" || short="$short $c(options)"
	grep -q 'Environment:' "$TMP/out" || short="$short $c(environment)"
	grep -qE '^Exit (codes|status):' "$TMP/out" || short="$short $c(exit codes)"
	grep -qE '^Examples?:' "$TMP/out" || short="$short $c(examples)"
done
[ -z "$short" ] || fail "help lacks sections:$short"
pass
