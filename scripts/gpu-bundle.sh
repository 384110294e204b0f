#!/bin/bash
# What a GPU validation session carries (scripts/gpu-session.sh), built here into .gpu/ (which
# .git/info/exclude must ignore): .gpu/bin (a Release zlbench and the libcjson.so.1 the GPU
# image lacks), .gpu/fg.tgz (FlagGems' src/flag_gems, benchmark/, conf/ and pytest.ini at
# FG_REV, committed as one commit with fixed names and dates, so that every session's copy has
# the same commit id and calibrations keyed by it stay comparable from session to session),
# .gpu/py.tgz (SQLAlchemy's lib/sqlalchemy at SQLA_REV) and, with OLD_REV, .gpu/old/plugins
# (the plugins of that revision of this repository, for the phases that compare plugins).
# usage: scripts/gpu-bundle.sh FLAGGEMS_GIT_DIR SQLALCHEMY_GIT_DIR
#   (git directories holding FG_REV, default ed2508bc, and SQLA_REV, default rel_2_0_48)
set -euo pipefail
fg_git=${1:?usage: scripts/gpu-bundle.sh FLAGGEMS_GIT_DIR SQLALCHEMY_GIT_DIR}
sqla_git=${2:?usage: scripts/gpu-bundle.sh FLAGGEMS_GIT_DIR SQLALCHEMY_GIT_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if ! git check-ignore -q .gpu/; then
	echo "gpu-bundle: .gpu/ is not ignored: add it to .git/info/exclude first" >&2
	exit 2
fi
fg_rev=${FG_REV:-ed2508bc}
sqla_rev=${SQLA_REV:-rel_2_0_48}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/zl-bundle.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p .gpu/bin "$tmp/fg" "$tmp/py"

git -C "$fg_git" archive "$fg_rev" src/flag_gems benchmark conf pytest.ini | tar -x -C "$tmp/fg"
(
	cd "$tmp/fg"
	export GIT_AUTHOR_NAME=zlbench GIT_AUTHOR_EMAIL=zlbench@localhost GIT_COMMITTER_NAME=zlbench \
		GIT_COMMITTER_EMAIL=zlbench@localhost GIT_AUTHOR_DATE="2026-12-01T00:00:00Z" \
		GIT_COMMITTER_DATE="2026-12-01T00:00:00Z"
	git init -q
	git add -A
	git commit -q -m "FlagGems $fg_rev (src/flag_gems, benchmark, conf, pytest.ini)"
	echo "gpu-bundle: FlagGems $fg_rev as commit $(git rev-parse --short HEAD)"
)
tar -czf .gpu/fg.tgz -C "$tmp" fg

git -C "$sqla_git" archive "$sqla_rev" lib/sqlalchemy | tar -x -C "$tmp/py"
mv "$tmp/py/lib/sqlalchemy" "$tmp/py/sqlalchemy"
rmdir "$tmp/py/lib"
tar -czf .gpu/py.tgz -C "$tmp" py

cmake -S . -B .gpu/build-rel -DCMAKE_BUILD_TYPE=Release -DZL_SANITIZE=OFF >/dev/null
cmake --build .gpu/build-rel -j"$(nproc)" --target zlbench >/dev/null
cp .gpu/build-rel/zlbench .gpu/bin/
# the libraries the image lacks: those zlbench links that are not in the image's base system
for lib in libcjson.so.1 libyaml-0.so.2; do
	path=$(ldd .gpu/bin/zlbench | awk -v l="$lib" '$1 == l { print $3 }')
	if [ -n "$path" ]; then
		cp -L "$path" .gpu/bin/
	fi
done

if [ -n "${OLD_REV:-}" ]; then
	rm -rf .gpu/old
	mkdir -p .gpu/old
	git archive "$OLD_REV" plugins | tar -x -C .gpu/old
fi
du -sh .gpu/bin .gpu/fg.tgz .gpu/py.tgz ${OLD_REV:+.gpu/old}
