#!/bin/bash
# CPack's DEB: a release build of a copy of the sources (no tests, no benchmarks, the system's
# sqlite3 and libyaml) packaged as zlbench_<version>-<revision>_<arch>.deb, whose Depends name
# the package of every shared library the binary needs (dpkg-shlibdeps), with libcurl (loaded
# at first use) and python3 recommended. Debian policy: the maintainer the build was given,
# files owned by root with the modes policy gives them, the man page and the changelog
# gzipped (gzip -9n: no name, no time stamp), a machine-readable copyright file, and lintian
# finds no error (its warnings are printed). Unpacked with dpkg-deb -x into a temporary root,
# its zlbench runs the demo it ships with the plugins it ships: the sources it was built from
# are gone by then, plugins included.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
unset ZL_PLUGINS_DIR PYTHONDONTWRITEBYTECODE
for tool in cpack dpkg-deb dpkg-shlibdeps file readelf lintian gzip; do
	command -v "$tool" >/dev/null || fail "'$tool' not found (scripts/deps.sh installs dpkg-dev, file, binutils, lintian)"
done
MAINTAINER="Test Packager <packager@zlbench-test.example.org>"

SRC=$TMP/src
mkdir "$SRC"
for f in CMakeLists.txt LICENSE README.md include src backends plugins scripts docs examples packaging; do
	cp -r "$ZL_SOURCE_DIR/$f" "$SRC/"
done
# a build that would embed sqlite3 and libyaml is refused by cpack (configured only: the check is CPack's)
if cmake -S "$SRC" -B "$TMP/static" -DCMAKE_BUILD_TYPE=Release -DZL_TESTS=OFF -DZL_BENCH=OFF >"$TMP/static.log" 2>&1 &&
	grep -q 'static sqlite3 and libyaml' "$TMP/static.log"; then
	grep -q 'refuse-static.cmake' "$TMP/static/CPackConfig.cmake" || fail "cpack would package a build that embeds sqlite3 and libyaml"
else
	echo "note [$TEST_NAME]: no static sqlite3 and libyaml archives here: the refusal is not exercised" >&2
fi
rm -rf "$TMP/static"
cmake -S "$SRC" -B "$TMP/build" -DCMAKE_BUILD_TYPE=Release -DZL_TESTS=OFF -DZL_BENCH=OFF -DZL_STATIC_DEPS=OFF \
	-DZL_DEB_MAINTAINER="$MAINTAINER" >"$TMP/build.log" 2>&1 &&
	cmake --build "$TMP/build" -j"$(nproc)" >>"$TMP/build.log" 2>&1 ||
	{ tail -30 "$TMP/build.log" >&2; fail "the package build failed"; }
(cd "$TMP/build" && cpack -G DEB) >"$TMP/cpack.log" 2>&1 || { cat "$TMP/cpack.log" >&2; fail "cpack -G DEB failed"; }

version=$(sed -n 's/^project(zlbench VERSION \([0-9.]*\).*/\1/p' "$ZL_SOURCE_DIR/CMakeLists.txt")
deb=$TMP/build/zlbench_${version}-1_$(dpkg --print-architecture).deb
[ -f "$deb" ] || fail "no $deb: $(ls "$TMP/build"/*.deb 2>&1)"
[ "$(ls "$TMP/build"/*.deb | wc -l)" -eq 1 ] || fail "more than one package: $(ls "$TMP/build"/*.deb)"
echo "package: $(basename "$deb"), $(stat -c %s "$deb") bytes"
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = zlbench ] && [ "$(field Version)" = "$version-1" ] || fail "control: $(dpkg-deb -f "$deb")"
[ "$(field Maintainer)" = "$MAINTAINER" ] || fail "Maintainer: '$(field Maintainer)', not the ZL_DEB_MAINTAINER given"

# Debian policy: lintian finds no error; what it warns about is printed
lintian --fail-on error --display-level '>=warning' "$deb" >"$TMP/lintian" 2>&1 ||
	{ cat "$TMP/lintian" >&2; fail "lintian finds errors in the package"; }
grep -E '^[EW]: ' "$TMP/lintian" | sed "s/^/note [$TEST_NAME]: lintian: /" >&2 || true
# owners and modes: root's; directories and the binary 0755, every other file 0644
dpkg-deb -c "$deb" >"$TMP/contents"
awk '$2 != "root/root"' "$TMP/contents" | grep . && fail "files not owned by root"
awk '$1 ~ /^d/ && $1 != "drwxr-xr-x"' "$TMP/contents" | grep . && fail "directories not 0755"
awk '$1 ~ /^-/ && $6 != "./usr/bin/zlbench" && $1 != "-rw-r--r--"' "$TMP/contents" | grep . && fail "files not 0644"
grep -qE '^-rwxr-xr-x .* \./usr/bin/zlbench$' "$TMP/contents" || fail "usr/bin/zlbench is not 0755"

dpkg-deb -x "$deb" "$TMP/root"
Z=$TMP/root/usr/bin/zlbench
DOC=$TMP/root/usr/share/doc/zlbench
# gzip -9n: no original name and no time stamp in the header (flags byte 0, mtime 0)
gzipped_n() {
	[ "$(od -An -tx1 -j3 -N5 "$1" | tr -d ' \n')" = 0000000000 ] || fail "$1 is not gzip -n: $(od -An -tx1 -N10 "$1")"
	gzip -t "$1" || fail "$1 is not gzip"
}
page=$TMP/root/usr/share/man/man1/zlbench.1.gz
[ -f "$page" ] && [ ! -e "${page%.gz}" ] || fail "the man page is not gzipped: $(dpkg-deb -c "$deb" | grep man1)"
gzipped_n "$page"
gzipped_n "$DOC/changelog.Debian.gz"
zcat "$DOC/changelog.Debian.gz" >"$TMP/changelog"
head -1 "$TMP/changelog" | grep -qE "^zlbench \($version-1\) [a-z]+; urgency=" || fail "changelog: $(head -1 "$TMP/changelog")"
grep -qE "^ -- $MAINTAINER  [A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} " "$TMP/changelog" || fail "changelog trailer: $(tail -1 "$TMP/changelog")"
head -1 "$DOC/copyright" | grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' ||
	fail "copyright is not machine-readable: $(head -1 "$DOC/copyright")"
grep -qx 'License: Apache-2.0' "$DOC/copyright" || fail "copyright names no license"
[ -x "$Z" ] || fail "the package has no usr/bin/zlbench: $(dpkg-deb -c "$deb" | head)"
# Depends: the package of each library the binary is linked with, from the system's dpkg
depends=$(field Depends)
for lib in $(readelf -d "$Z" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
	path=$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')
	[ -n "$path" ] || fail "cannot find $lib on this system"
	# dpkg knows a library by one of its names (merged /usr: /lib or /usr/lib; the link or its target)
	pkg=
	for p in "$path" "$(readlink -f "$path")" "${path#/usr}" "/usr$path"; do
		pkg=$(dpkg -S "$p" 2>/dev/null | head -1 | cut -d: -f1)
		[ -n "$pkg" ] && break
	done
	[ -n "$pkg" ] || fail "no package ships $lib ($path)"
	case ", $depends" in *", $pkg "* | *", $pkg,"* | *", $pkg") ;; *) fail "Depends '$depends' lacks $pkg ($lib)" ;; esac
done
case "$depends" in *libcjson1*) ;; *) fail "Depends '$depends' lacks libcjson1" ;; esac
# libcurl is not linked (dlopen at first use): recommended, never a hard dependency
readelf -d "$Z" | grep -q 'NEEDED.*libcurl' && fail "the packaged binary links libcurl at load time"
case "$depends" in *libcurl*) fail "Depends names libcurl: $depends" ;; esac
case "$(field Recommends)" in *python3*libcurl4*) ;; *) fail "Recommends: '$(field Recommends)'" ;; esac

"$ZLBENCH" help --man | cmp -s - <(zcat "$page") || fail "the packaged man page is not 'zlbench help --man'"
# the sources it was built from (its last resort for the plugins) are gone: only the package is left
rm -rf "$SRC" "$TMP/build"
"$Z" --version >"$TMP/version" || fail "the packaged --version exited $?"
contains "$TMP/version" "plugins $TMP/root/usr/share/zlbench/plugins (install layout: ../share/zlbench/plugins from the binary)"
# the demo the package ships, run with the plugins it ships
DEMO=$TMP/root/usr/share/doc/zlbench/examples/demo
ZL_NO_HISTORY=1 "$Z" run --flaggems-dir "$DEMO" --backend cuda --op mm --python /usr/bin/python3 \
	--out "$TMP/run" >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err" >&2; fail "the packaged zlbench's demo run failed"; }
contains "$TMP/err" "[bundled demo: CPU stand-ins for FlagGems operators, not FlagGems]"
contains "$TMP/out" "RUN_DIR=$TMP/run"
[ "$(json_get "$TMP/run/run_identity.json" 'd["status"]')" = passed ] || fail "status: $(json_get "$TMP/run/run_identity.json" 'd["status"]')"
for f in timer_summary.json vendor.json foreign_vendor.json autotune_summary.json; do
	[ -s "$TMP/run/plugins/$f" ] || fail "the run has no plugins/$f"
done
ls "$TMP/root/usr/share/zlbench/plugins/__pycache__"/zl_timer.*.pyc >/dev/null 2>&1 ||
	fail "pytest did not import zl_timer from the package's plugins"
# taken out of its layout, with no source tree left, it says the plugins are not found
mkdir "$TMP/lonely"
cp "$Z" "$TMP/lonely/zlbench"
"$TMP/lonely/zlbench" --version >"$TMP/version" || fail "a lone --version exited $?"
contains "$TMP/version" "(not found: no zl_timer.py beside the binary, in the install layout or in the source tree it was built from; set ZL_PLUGINS_DIR)"
pass
