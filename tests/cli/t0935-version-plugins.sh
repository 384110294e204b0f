#!/bin/bash
# zlbench --version names the plugins directory a run will use and how it was found:
# ZL_PLUGINS_DIR, the source tree beside a build directory, the install layout
# (<prefix>/bin/../share/zlbench/plugins), the binary's own directory; and a run uses that one.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
unset ZL_PLUGINS_DIR

# plugins_line BINARY: the "plugins DIR (HOW)" line of its --version, in $TMP/line
plugins_line() {
	"$@" --version >"$TMP/version" || fail "$* --version exited $?"
	grep '^plugins ' "$TMP/version" >"$TMP/line" || fail "no plugins line: $(cat "$TMP/version")"
	[ "$(wc -l <"$TMP/line")" -eq 1 ] || fail "several plugins lines: $(cat "$TMP/line")"
}

# the build under test, in or beside the source tree: the source tree's plugins
src_plugins=$(cd "$ZL_SOURCE_DIR/plugins" && pwd -P)
plugins_line "$ZLBENCH"
case "$(cat "$TMP/line")" in
"plugins $src_plugins (source tree: beside the binary's build directory)" | \
	"plugins $src_plugins (source tree zlbench was built from)") ;;
*) fail "the build's plugins line: $(cat "$TMP/line")" ;;
esac

# the environment wins, made absolute
mkdir -p mine
ZL_PLUGINS_DIR=mine plugins_line "$ZLBENCH"
[ "$(cat "$TMP/line")" = "plugins $TMP/mine (environment: ZL_PLUGINS_DIR)" ] || fail "env: $(cat "$TMP/line")"

# the install layout: <prefix>/bin/zlbench finds <prefix>/share/zlbench/plugins
mkdir -p p/bin p/share/zlbench/plugins
cp "$ZLBENCH" p/bin/zlbench
: >p/share/zlbench/plugins/README.md
plugins_line p/bin/zlbench
# a directory without zl_timer.py is not the plugins
case "$(cat "$TMP/line")" in
"plugins $TMP/p/share/zlbench/plugins "*) fail "a plugins directory without zl_timer.py was taken: $(cat "$TMP/line")" ;;
esac
cp "$ZL_SOURCE_DIR"/plugins/*.py p/share/zlbench/plugins/
plugins_line p/bin/zlbench
[ "$(cat "$TMP/line")" = "plugins $TMP/p/share/zlbench/plugins (install layout: ../share/zlbench/plugins from the binary)" ] ||
	fail "install layout: $(cat "$TMP/line")"
# and a run takes the same directory
p/bin/zlbench run --backend cuda --flaggems-dir "$ZL_SOURCE_DIR/examples/demo" --op mm --python "$ZL_TEST_PYTHON" \
	--dry-run >"$TMP/out" 2>"$TMP/err" || fail "dry run: $(cat "$TMP/err")"
contains "$TMP/out" "from $TMP/p/share/zlbench/plugins):"
ZL_PLUGINS_DIR=$TMP/mine plugins_line p/bin/zlbench
[ "$(cat "$TMP/line")" = "plugins $TMP/mine (environment: ZL_PLUGINS_DIR)" ] || fail "env over install: $(cat "$TMP/line")"

# beside the binary
mkdir -p q/plugins
cp "$ZLBENCH" q/zlbench
cp "$ZL_SOURCE_DIR"/plugins/*.py q/plugins/
plugins_line q/zlbench
[ "$(cat "$TMP/line")" = "plugins $TMP/q/plugins (beside the binary)" ] || fail "beside: $(cat "$TMP/line")"
pass
