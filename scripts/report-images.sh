#!/bin/bash
# Refresh docs/images/report-{run,compare,history,batch}.png (docs/report.md shows them): 1280 px
# screenshots of the four kinds of page, rendered by Debian's chromium (scripts/deps.sh installs
# it) and cut to 2000 px high.
#
#   scripts/report-images.sh
#       all four from the test fixtures (tests/cli/t1140-report-render.sh's pages: the real H200
#       mm results of tests/fixtures/flaggems-runs, a demo batch on two stand-in devices);
#   scripts/report-images.sh [--run RUN_DIR] [--compare A B] [--batch BATCH_DIR]
#                            [--history DB [--op OP]] [--ab AB_DIR]
#       the pages of real runs (e.g. H200 runs): each kind given is drawn from them and replaces
#       its picture; the kinds not given are left as they are (--ab writes report-ab.png).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${ZL_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target zlbench >/dev/null
mkdir -p docs/images
zl="$PWD/$build/zlbench"

if [ $# -eq 0 ]; then
	ZLBENCH="$zl" ZL_TEST_PYTHON=/usr/bin/python3 ZL_REPORT_PNG_DIR="$PWD/docs/images" \
		bash tests/cli/t1140-report-render.sh
	ls -l docs/images/report-*.png
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zl-report-images.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
usage() {
	echo "usage: scripts/report-images.sh [--run RUN_DIR] [--compare A B] [--batch BATCH_DIR]" \
		"[--history DB [--op OP]] [--ab AB_DIR]" >&2
	exit 2
}
pages=()
op=()
while [ $# -gt 0 ]; do
	case "$1" in
	--run) [ $# -ge 2 ] || usage; "$zl" report "$2" -o "$tmp/run.html"; pages+=(run); shift 2 ;;
	--compare) [ $# -ge 3 ] || usage; "$zl" report --compare "$2" "$3" -o "$tmp/compare.html"; pages+=(compare); shift 3 ;;
	--batch) [ $# -ge 2 ] || usage; "$zl" report "$2" -o "$tmp/batch.html"; pages+=(batch); shift 2 ;;
	--ab) [ $# -ge 2 ] || usage; "$zl" report "$2" -o "$tmp/ab.html"; pages+=(ab); shift 2 ;;
	--history)
		[ $# -ge 2 ] || usage
		db=$2
		shift 2
		if [ "${1:-}" = --op ]; then
			[ $# -ge 2 ] || usage
			op=(--op "$2")
			shift 2
		fi
		"$zl" report --history --db "$db" "${op[@]}" -o "$tmp/history.html"
		pages+=(history)
		;;
	*) usage ;;
	esac
done

# the screenshot as tests/cli/t1140-report-render.sh takes it: the test stylesheet marks the
# page's width, tests/helpers/png_check.py checks it and keeps the top 2000 px
for kind in "${pages[@]}"; do
	sed 's#</style>#html{width:1280px!important;background:\#ff00ff!important}</style>#' "$tmp/$kind.html" \
		>"$tmp/$kind-shot.html"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$tmp/chrome.XXXXXX")" --hide-scrollbars \
		--window-size=1400,6000 --screenshot="$tmp/$kind.png" "file://$tmp/$kind-shot.html" >/dev/null 2>&1
	/usr/bin/python3 tests/helpers/png_check.py "$tmp/$kind.png" 1280 --crop "docs/images/report-$kind.png" 2000
done
ls -l docs/images/report-*.png
