#!/usr/bin/env bash
# Code figures for the redesign's before/after note (issue 16): the longest functions,
# the largest files, the getenv call sites and the duplicates count. Run from anywhere;
# it reads the tracked C sources of the checkout it lives in. Needs universal-ctags;
# the duplicates count is printed only where the `duplicates` tool is installed.
set -eu
cd "$(dirname "$0")/.."

mapfile -t files < <(git ls-files -co --exclude-standard -- 'src/*.c' 'src/**/*.c' 'backends/*.c' \
	'include/*.h' 'include/**/*.h' 'backends/*.h' | sort -u)
mapfile -t cfiles < <(printf '%s\n' "${files[@]}" | grep '\.c$')
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

echo "== the 15 longest functions in src/ and backends/ (lines, from the line of the name to the closing brace)"
ctags --c-kinds=f --fields=+ne -o - "${cfiles[@]}" 2>/dev/null |
	awk -F'\t' '{ line = ""; end = "";
		for (i = 4; i <= NF; i++) {
			if ($i ~ /^line:/) line = substr($i, 6);
			if ($i ~ /^end:/) end = substr($i, 5);
		}
		if (line != "" && end != "") printf "%5d  %s:%s  %s\n", end - line + 1, $2, line, $1 }' |
	sort -rn >"$tmp"
head -15 "$tmp"
echo "== functions over 60 lines (a screen): $(awk '$1 > 60' "$tmp" | wc -l); over 80: $(awk '$1 > 80' "$tmp" | wc -l)"
echo "== of those, long on purpose (a comment right above says why)"
awk '$1 > 60 { split($2, a, ":"); print a[1], a[2], $3 }' "$tmp" | while read -r f l name; do
	# the comment block ending right above the function's name line (or its return type's)
	if head -n "$l" "$f" | tail -n 12 | grep -q 'Long on purpose:'; then
		printf '  %s:%s  %s: %s\n' "$f" "$l" "$name" \
			"$(head -n "$l" "$f" | tail -n 12 | grep -o 'Long on purpose:.*' | head -1 | sed 's/ *\*\/$//')"
	fi
done

echo "== the 10 largest files (lines)"
wc -l "${files[@]}" | grep -v ' total$' | sort -rn | head -10

echo "== getenv call sites"
sites=$(grep -n 'getenv(' "${cfiles[@]}" | grep -v '^\s*\*' || true)
printf '%s\n' "$sites" | grep -c . || true
echo "== files with a getenv call"
printf '%s\n' "$sites" | cut -d: -f1 | sort -u | wc -l
echo "== variables read in more than one file (variable: files)"
printf '%s\n' "$sites" | sed -n 's/^\([^:]*\):[0-9]*:.*getenv("\{0,1\}\([A-Z][A-Z_0-9]*\)"\{0,1\}).*/\2 \1/p' | sort -u |
	awk '{ n[$1]++; f[$1] = f[$1] " " $2 } END { for (v in n) if (n[v] > 1) printf "%s (%d):%s\n", v, n[v], f[v] }' | sort

echo "== duplicates (pairs of places sharing six or more lines, whole tree)"
if command -v duplicates >/dev/null; then
	echo "whole tree: $(duplicates --seconds 120 | head -1)"
	echo "src/: $(duplicates --repo src --seconds 120 | head -1)"
else
	echo "(duplicates not installed)"
fi
