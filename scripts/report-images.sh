#!/bin/bash
# Refresh docs/images/report-{run,compare,history,batch}.png (docs/report.md shows them): the
# 1280 px screenshots that tests/cli/t1140-report-render.sh takes of the four kinds of page,
# rendered by Debian's chromium (scripts/deps.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${ZL_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target zlbench >/dev/null
mkdir -p docs/images
ZLBENCH="$PWD/$build/zlbench" ZL_TEST_PYTHON=/usr/bin/python3 ZL_REPORT_PNG_DIR="$PWD/docs/images" \
	bash tests/cli/t1140-report-render.sh
ls -l docs/images/report-*.png
