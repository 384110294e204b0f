#!/bin/bash
# Build zlbench and run the main job: one operator's benchmark, end to end.
# With FLAGGEMS_DIR set it runs against that FlagGems checkout (backend from ZL_BACKEND or
# auto-detected); without it, against the bundled CPU demo in examples/demo.
# OP picks the operator (default mm); arguments are passed on to `zlbench run`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
zl_install_deps
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DZL_SANITIZE=OFF -DZL_WERROR=OFF -DZL_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
echo "zlbench built: $PWD/build/zlbench" >&2
if [ -n "${FLAGGEMS_DIR:-}" ]; then
	exec build/zlbench run --op "${OP:-mm}" "$@"
fi
exec build/zlbench run --flaggems-dir examples/demo --backend "${ZL_BACKEND:-cuda}" --op "${OP:-mm}" \
	--python "${ZL_PYTHON:-/usr/bin/python3}" --isolate-tuner-cache "$@"
