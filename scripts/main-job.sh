#!/bin/bash
# Build zlbench and run the main job: one operator's benchmark, end to end.
# With FLAGGEMS_DIR set it runs against that FlagGems checkout (backend from ZL_BACKEND or
# auto-detected); without it, against the bundled CPU demo in examples/demo.
# OP picks the operator (default mm); arguments are passed on to `zlbench run`.
# ZLBENCH names a zlbench already built to use instead of building one (the tests do).
#
# The run gets a fresh FlagGems tuner cache and Triton cache, removed afterwards
# (--isolate-tuner-cache): FlagGems' and Triton's default caches are ~/.flaggems and
# ~/.triton, and a first command must leave a user's HOME as it was (outside the run
# directory it writes only to ZL_HOME). Pass --shared-tuner-cache to use the shared ones.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${ZLBENCH:-}" ]; then
	zl=$ZLBENCH
else
	. scripts/deps.sh
	zl_install_deps
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DZL_SANITIZE=OFF -DZL_WERROR=OFF -DZL_TESTS=OFF >/dev/null
	cmake --build build -j"$(nproc)" >/dev/null
	echo "zlbench built: $PWD/build/zlbench" >&2
	zl=build/zlbench
fi
if [ -n "${FLAGGEMS_DIR:-}" ]; then
	exec "$zl" run --op "${OP:-mm}" --isolate-tuner-cache "$@"
fi
exec "$zl" run --flaggems-dir examples/demo --backend "${ZL_BACKEND:-cuda}" --op "${OP:-mm}" \
	--python "${ZL_PYTHON:-/usr/bin/python3}" --isolate-tuner-cache "$@"
