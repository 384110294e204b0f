#!/bin/bash
# Every command's help (zlbench help CMD and CMD --help, the same text) has a synopsis
# ("usage:"), at least one example ("Example"), and, for commands with options, "--".
. "$(dirname "$0")/lib.sh"
cd "$TMP"

# commands whose only argument is an operand (no options but --help)
NO_OPTIONS=" help completion "

run_zl help
expect_rc 0
commands=$(sed -n '/^Commands:/,/^$/p' "$TMP/out" | awk 'NF > 1 { print $1 }')
[ "$(echo "$commands" | wc -w)" -ge 10 ] || fail "command list too short: $commands"
short=""
for c in $commands; do
	run_zl help "$c"
	expect_rc 0
	cp "$TMP/out" "$TMP/help-$c"
	run_zl "$c" --help
	if [ "$RC" -ne 0 ]; then
		short="$short $c(--help exits $RC)"
	elif ! cmp -s "$TMP/out" "$TMP/help-$c"; then
		short="$short $c(--help differs from help $c)"
	fi
	grep -q "usage: zlbench $c" "$TMP/help-$c" || short="$short $c(no usage:)"
	grep -q "Example" "$TMP/help-$c" || short="$short $c(no Example)"
	case "$NO_OPTIONS" in
	*" $c "*) ;;
	*) grep -qE -- '--[a-z]' "$TMP/help-$c" || short="$short $c(no --options)" ;;
	esac
done
[ -z "$short" ] || fail "help falls short:$short"
pass
