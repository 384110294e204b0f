#!/usr/bin/env bash
# Every text the front end renders, from two zlbench binaries, compared: `zlbench --help`,
# `zlbench` alone (usage on stderr), `zlbench help`, `zlbench help CMD` and `CMD --help` for
# every command, the man page (`help --man`) and both completion scripts. A change to the
# command or option tables is checked with it: byte-identical, or a diff to read.
#
#   bash scripts/help-diff.sh OLD_ZLBENCH NEW_ZLBENCH [OUT_DIR]
#
# Exit 0 when every text is identical, 1 with the diff on stdout; the snapshots stay in
# OUT_DIR/old and OUT_DIR/new (default: a temporary directory, removed).
set -euo pipefail

if [ $# -lt 2 ]; then
	echo "usage: bash scripts/help-diff.sh OLD_ZLBENCH NEW_ZLBENCH [OUT_DIR]" >&2
	exit 2
fi
old=$1 new=$2
out=${3:-}
if [ -z "$out" ]; then
	out=$(mktemp -d "${TMPDIR:-/tmp}/zl-help-diff.XXXXXX")
	trap 'rm -rf "$out"' EXIT
fi

# snapshot ZLBENCH DIR: one file per text; the exit code is kept beside the text
snapshot() {
	local zl=$1 dir=$2 c rc
	rm -rf "$dir"
	mkdir -p "$dir"
	shot() {
		local name=$1
		shift
		rc=0
		"$zl" "$@" >"$dir/$name.out" 2>"$dir/$name.err" || rc=$?
		echo "$rc" >"$dir/$name.rc"
	}
	shot main-help --help
	shot main-bare
	shot help help
	shot man help --man
	shot completion-bash completion bash
	shot completion-zsh completion zsh
	# the commands either binary lists, so that a command gone or added shows
	for c in $( { "$old" help; "$new" help; } | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 { print $1 }' | sort -u); do
		shot "help-$c" help "$c"
		shot "$c--help" "$c" --help
	done
	# the version line names the build; the man page's title line too
	sed -i '/^\.TH /d' "$dir/man.out"
}

snapshot "$old" "$out/old"
snapshot "$new" "$out/new"
if diff -ru "$out/old" "$out/new"; then
	echo "help-diff: every text identical ($(find "$out/new" -name '*.out' | wc -l) texts)" >&2
	exit 0
fi
exit 1
