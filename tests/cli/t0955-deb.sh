#!/bin/bash
# CPack's DEB: a release build of a copy of the sources (no tests, no benchmarks) packaged as
# zlbench_<version>_<arch>.deb, whose Depends name the package of every shared library the
# binary needs (dpkg-shlibdeps), with libcurl (loaded at first use) and python3 recommended.
# Unpacked with dpkg-deb -x into a temporary root, its zlbench runs the demo it ships with
# the plugins it ships: the sources it was built from are gone by then, plugins included.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
unset ZL_PLUGINS_DIR PYTHONDONTWRITEBYTECODE
for tool in cpack dpkg-deb dpkg-shlibdeps file readelf; do
	command -v "$tool" >/dev/null || fail "'$tool' not found (scripts/deps.sh installs dpkg-dev, file, binutils)"
done

SRC=$TMP/src
mkdir "$SRC"
for f in CMakeLists.txt LICENSE README.md include src backends plugins scripts docs examples; do
	cp -r "$ZL_SOURCE_DIR/$f" "$SRC/"
done
cmake -S "$SRC" -B "$TMP/build" -DCMAKE_BUILD_TYPE=Release -DZL_TESTS=OFF -DZL_BENCH=OFF >"$TMP/build.log" 2>&1 &&
	cmake --build "$TMP/build" -j"$(nproc)" >>"$TMP/build.log" 2>&1 ||
	{ tail -30 "$TMP/build.log" >&2; fail "the package build failed"; }
(cd "$TMP/build" && cpack -G DEB) >"$TMP/cpack.log" 2>&1 || { cat "$TMP/cpack.log" >&2; fail "cpack -G DEB failed"; }

version=$(sed -n 's/^project(zlbench VERSION \([0-9.]*\).*/\1/p' "$ZL_SOURCE_DIR/CMakeLists.txt")
deb=$TMP/build/zlbench_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || fail "no $deb: $(ls "$TMP/build"/*.deb 2>&1)"
[ "$(ls "$TMP/build"/*.deb | wc -l)" -eq 1 ] || fail "more than one package: $(ls "$TMP/build"/*.deb)"
echo "package: $(basename "$deb"), $(stat -c %s "$deb") bytes"
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = zlbench ] && [ "$(field Version)" = "$version" ] || fail "control: $(dpkg-deb -f "$deb")"

dpkg-deb -x "$deb" "$TMP/root"
Z=$TMP/root/usr/bin/zlbench
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
