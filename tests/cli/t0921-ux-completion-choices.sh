#!/bin/bash
# Completion offers each option's value as its row declares it, in bash and in zsh: the fixed
# set of --timer, --start, --progress, --level ..., backend names from the backend table for
# --backend, directories, help's topics; every fixed set offered is the one the option's own
# --help line names, and is taken by the command.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
"$ZLBENCH" completion bash >zl.bash || fail "completion bash exited $?"
"$ZLBENCH" completion zsh >zl.zsh || fail "completion zsh exited $?"

# bash_offers WORDS...: what bash's _zlbench offers for WORDS (the last is the word completed)
bash_offers() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _zlbench; printf "%s\n" "${COMPREPLY[@]}"' \
		_ zl.bash zlbench "$@" | sort
}
# zsh_offers WORDS...: the same through zsh's _zlbench, compadd (matching the word's start, as zsh
# does) and _files stood in for
zsh_offers() {
	zsh -f -c 'compdef() { :; }; compset() { :; }
		compadd() { local w; while [[ $1 != -- ]]; do shift; done; shift
			for w; do [[ $w == ${words[CURRENT]}* ]] && print -- $w; done; }
		_files() { print -- "<files${1:+ $1}>"; }
		source "$1"; shift; words=(zlbench "$@"); CURRENT=$#words; _zlbench' _ zl.zsh "$@" | sort
}
# expect WORDS... :: OFFERS...: both shells offer exactly OFFERS
expect() {
	local words=() want
	while [ "$1" != :: ]; do words+=("$1"); shift; done
	shift
	want=$(printf '%s\n' "$@" | sort)
	[ "$(bash_offers "${words[@]}")" = "$want" ] || fail "bash offers for '${words[*]}': $(bash_offers "${words[@]}" | tr '\n' ' ')"
	if command -v zsh >/dev/null; then
		[ "$(zsh_offers "${words[@]}")" = "$want" ] || fail "zsh offers for '${words[*]}': $(zsh_offers "${words[@]}" | tr '\n' ' ')"
	fi
}

expect run --timer "" :: profiler graph direct
# bash splits --timer=VALUE at '=' (zsh does not: there the value is its own word)
[ "$(bash_offers plan --timer = "")" = "$(printf 'direct\ngraph\nprofiler')" ] || fail "bash: --timer= $(bash_offers plan --timer = "")"
expect batch --timer gr :: graph
expect batch --start "" :: worker fresh
expect calibrate --start "" :: worker fresh
expect batch --progress "" :: auto live plain none
# the view's and the other commands' progress rows declare theirs too
expect compare --sort "" :: change name time
expect ab --time-unit "" :: auto ns us ms s
expect calibrate --progress "" :: auto live plain none
expect report --progress "" :: auto live plain none
expect batch --launcher "" :: local slurm
expect run --level "" :: core comprehensive
expect doctor --shape-mode "" :: file upstream
backends=$("$ZLBENCH" backends --json | "$ZL_TEST_PYTHON" -c 'import json,sys
for b in json.load(sys.stdin)["backends"]: print(b["name"]); [print(a) for a in b["aliases"]]')
# shellcheck disable=SC2086
expect run --backend "" :: $backends
# shellcheck disable=SC2086
expect history --backend "" :: $backends
expect devices --backend ro :: rocm
expect help en :: environment
expect help exit :: exit-status
expect completion "" :: bash zsh
# a global option after the command, and options of the command
expect run --op add --qui :: --quiet
if command -v zsh >/dev/null; then
	[ "$(zsh_offers run --out "")" = "<files -/>" ] || fail "zsh: run --out does not complete directories"
	[ "$(zsh_offers report --output "")" = "<files>" ] || fail "zsh: report --output does not complete files"
fi
mkdir -p adir && : >afile
[ "$(bash_offers run --out a)" = adir ] || fail "bash: run --out does not complete directories only"
[ "$(bash_offers report --output a)" = "$(printf 'adir\nafile')" ] || fail "bash: report --output does not complete files"

# option_help CMD OPT: OPT's row in CMD's --help, with its further lines
option_help() {
	"$ZLBENCH" help "$1" | awk -v o="$2" '$1 == o && $2 !~ /,$/ { p = 1; print; next } p && /^      +[^ -]/ { print; next } { p = 0 }'
}
# every fixed set in the script is its option's: named on the option's --help line, and taken
grep -oE '"[a-z]+ --[a-z-]+"[|"a-z -]*\) COMPREPLY=\(\$\(compgen -W "[a-z -]+" ' zl.bash >sets
[ "$(wc -l <sets)" -ge 6 ] || fail "the bash script has fewer fixed sets than the rows declare: $(cat sets)"
while read -r line; do
	words=$(sed -E 's/.*compgen -W "([^"]*)".*/\1/' <<<"$line")
	for pat in $(grep -oE '"[a-z]+ --[a-z-]+"' <<<"$line" | tr ' ' '@'); do
		pat=${pat//\"/}
		cmd=${pat%%@*}
		opt=${pat#*@}
		help=$(option_help "$cmd" "$opt")
		# a setting a command accepts and ignores is named on one line: its row is run's
		if [ -z "$help" ] && "$ZLBENCH" help "$cmd" | sed -n '/Accepted and ignored/,/^$/p' | grep -qw -- "$opt"; then
			help=$(option_help run "$opt")
		fi
		[ -n "$help" ] || fail "$cmd's --help has no row for $opt"
		for w in $words; do
			grep -qw -- "$w" <<<"$help" || fail "$cmd $opt offers '$w', which its --help line does not name: $help"
		done
	done
done <sets
# the values offered are the values taken (batch checks them before anything starts)
for w in worker fresh; do
	run_zl batch --backend cuda --ops add --start "$w" --dry-run --out "$TMP/b-$w"
	lacks "$TMP/err" "invalid value"
done
for w in auto live plain none; do
	run_zl batch --backend cuda --ops add --progress "$w" --dry-run --out "$TMP/p-$w"
	lacks "$TMP/err" "invalid value"
done
pass
