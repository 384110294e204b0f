#!/bin/bash
# The reference pages carry the binary's own help, so that they cannot drift from it:
# docs/commands/<cmd>.md ends with `zlbench help <cmd>` verbatim, docs/reference.md with
# `zlbench --help`, each between the markers
#   <!-- BEGIN generated: zlbench help <cmd> -->  ...  <!-- END generated: zlbench help <cmd> -->
# This script rewrites those blocks from a built zlbench (and makes a stub page for a new
# command); with --check it changes nothing and exits 1 when a block differs, a command has
# no page, a page has no command, or README.md does not link a command's page.
#
#   bash scripts/gen-docs.sh [--check] [ZLBENCH]    (default: $ZLBENCH, else build/zlbench,
#                                                    else build-test/zlbench)
set -euo pipefail
cd "$(dirname "$0")/.."

check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
zl=${1:-${ZLBENCH:-}}
if [ -z "$zl" ]; then
	for b in build/zlbench build-test/zlbench; do
		[ -x "$b" ] && zl=$b && break
	done
fi
if [ -z "$zl" ] || [ ! -x "$zl" ]; then
	echo "gen-docs: no zlbench binary${zl:+ at '$zl'}: build one (cmake --build build) or name it" >&2
	exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zl-gen-docs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
bad=0
say() { echo "gen-docs: $*" >&2; }

commands=$("$zl" help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 { print $1 }')
[ -n "$commands" ] || { say "'$zl help' lists no commands"; exit 2; }

# refresh PAGE WHAT ARGS...: the block for `zlbench WHAT` in PAGE is what `zlbench ARGS` prints
refresh() {
	local page=$1 what=$2 new=$tmp/page
	shift 2
	{
		echo "<!-- BEGIN generated: zlbench $what -->"
		echo '```text'
		"$zl" "$@"
		echo '```'
		echo "<!-- END generated: zlbench $what -->"
	} >"$tmp/block"
	if [ ! -f "$page" ]; then
		if [ "$check" -eq 1 ]; then
			say "$page is missing (run scripts/gen-docs.sh to start it)"
			bad=1
			return
		fi
		printf '# `zlbench %s`\n\n## The help text (`zlbench %s`)\n\n' "${what#help }" "$what" >"$page"
	fi
	awk -v begin="<!-- BEGIN generated: zlbench $what -->" -v end="<!-- END generated: zlbench $what -->" \
		-v block="$tmp/block" '
		$0 == begin { while ((getline line < block) > 0) print line; skip = 1; found = 1; next }
		skip { if ($0 == end) skip = 0; next }
		{ print }
		END {
			if (skip) exit 3
			if (!found) { print ""; while ((getline line < block) > 0) print line }
		}' "$page" >"$new" || { say "$page: a BEGIN marker for 'zlbench $what' without its END"; bad=1; return; }
	cmp -s "$page" "$new" && return
	if [ "$check" -eq 1 ]; then
		say "$page: the block for 'zlbench $what' differs from the binary's help (run scripts/gen-docs.sh):"
		diff -u "$page" "$new" | sed -n '3,40p' >&2 || true
		bad=1
		return
	fi
	cp "$new" "$page.tmp" && mv "$page.tmp" "$page"
	say "refreshed $page"
}

for c in $commands; do
	refresh "docs/commands/$c.md" "help $c" help "$c"
done
refresh docs/reference.md --help --help
for topic in environment exit-status files; do
	refresh docs/reference.md "help $topic" help "$topic"
done

for page in docs/commands/*.md; do
	c=$(basename "$page" .md)
	grep -qx -- "$c" <<<"$commands" || { say "$page: zlbench has no command '$c'"; bad=1; }
done
for c in $commands; do
	grep -qF "](docs/commands/$c.md)" README.md || { say "README.md does not link docs/commands/$c.md"; bad=1; }
done
exit "$bad"
