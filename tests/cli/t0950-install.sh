#!/bin/bash
# cmake --install --prefix P: P/bin/zlbench, its plugins in P/share/zlbench/plugins (found
# with no ZL_PLUGINS_DIR, also after P is moved), the completions where bash-completion and
# zsh look, a man page (gzipped) that man -l renders with every command and option of the help,
# LICENSE, the copyright file and changelog, README and the docs README links to under
# P/share/doc/zlbench.
. "$(dirname "$0")/lib.sh"
: "${ZL_BUILD_DIR:?ZL_BUILD_DIR must name the build directory under test}"
cd "$TMP"
unset ZL_PLUGINS_DIR PYTHONDONTWRITEBYTECODE

cmake --install "$ZL_BUILD_DIR" --prefix "$TMP/p" >"$TMP/install.log" 2>&1 ||
	{ cat "$TMP/install.log" >&2; fail "cmake --install failed"; }
P=$TMP/p
for f in bin/zlbench share/bash-completion/completions/zlbench share/zsh/site-functions/_zlbench \
	share/man/man1/zlbench.1.gz share/doc/zlbench/LICENSE share/doc/zlbench/README.md \
	share/doc/zlbench/copyright share/doc/zlbench/changelog.Debian.gz \
	share/zlbench/plugins/README.md share/doc/zlbench/examples/demo/.zlbench-demo; do
	[ -f "$P/$f" ] || fail "not installed: $f"
done
[ -x "$P/bin/zlbench" ] || fail "bin/zlbench is not executable"
# every plugin module, as in the source tree, and nothing else
(cd "$ZL_SOURCE_DIR/plugins" && ls *.py README.md) >"$TMP/src-plugins"
(cd "$P/share/zlbench/plugins" && ls) >"$TMP/inst-plugins"
diff "$TMP/src-plugins" "$TMP/inst-plugins" >&2 || fail "the installed plugins differ from plugins/"
for m in $(cat "$TMP/src-plugins"); do
	cmp -s "$ZL_SOURCE_DIR/plugins/$m" "$P/share/zlbench/plugins/$m" || fail "plugins/$m differs once installed"
done
# the links README.md makes into docs/ resolve in the installed copy too
grep -o '](docs/[^)#]*' "$P/share/doc/zlbench/README.md" | cut -c3- | sort -u >"$TMP/links"
[ -s "$TMP/links" ] || fail "README.md links to nothing under docs/"
while read -r l; do
	[ -f "$P/share/doc/zlbench/$l" ] || fail "README.md links to $l, not installed"
done <"$TMP/links"

# completions: the binary's own scripts, which the shells pick up from there
"$ZLBENCH" completion bash | cmp -s - "$P/share/bash-completion/completions/zlbench" ||
	fail "the installed bash completion is not 'zlbench completion bash'"
"$ZLBENCH" completion zsh | cmp -s - "$P/share/zsh/site-functions/_zlbench" ||
	fail "the installed zsh completion is not 'zlbench completion zsh'"
bash -c 'source "$1" && complete -p zlbench' _ "$P/share/bash-completion/completions/zlbench" >/dev/null ||
	fail "sourcing the installed bash completion registers nothing for zlbench"
if command -v zsh >/dev/null; then
	zsh -f -c "fpath=('$P/share/zsh/site-functions' \$fpath); autoload -U compinit; compinit -u -d '$TMP/zcd';
		[[ \${_comps[zlbench]} == _zlbench ]]" || fail "zsh's compinit does not find _zlbench on its fpath"
fi

# the installed binary finds the installed plugins, with no ZL_PLUGINS_DIR
"$P/bin/zlbench" --version >"$TMP/version" || fail "installed --version exited $?"
contains "$TMP/version" "plugins $P/share/zlbench/plugins (install layout: "
# ... and runs the demo with them: the plugins' files are there, imported from the prefix
cp -r "$ZL_SOURCE_DIR/examples/demo" demo
ZL_NO_HISTORY=1 "$P/bin/zlbench" run --flaggems-dir demo --backend cuda --op mm --python "$ZL_TEST_PYTHON" \
	--out "$TMP/run" >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err" >&2; fail "the installed zlbench's demo run failed"; }
contains "$TMP/out" "RUN_DIR=$TMP/run"
for f in timer_summary.json vendor.json foreign_vendor.json autotune_summary.json; do
	[ -s "$TMP/run/plugins/$f" ] || fail "the run has no plugins/$f"
done
ls "$P/share/zlbench/plugins/__pycache__"/zl_timer.*.pyc >/dev/null 2>&1 ||
	fail "pytest did not import zl_timer from the installed plugins"
# relocatable: the same tree moved elsewhere still finds its own plugins
mv "$P" "$TMP/moved"
"$TMP/moved/bin/zlbench" --version >"$TMP/version" || fail "moved --version exited $?"
contains "$TMP/version" "plugins $TMP/moved/share/zlbench/plugins (install layout: "
P=$TMP/moved

# the man page: groff reads it cleanly, and man -l shows every command and every option of its help
page=$P/share/man/man1/zlbench.1.gz
zcat "$page" | groff -man -Tutf8 -ww -Wbreak -z 2>"$TMP/groff.err"
[ ! -s "$TMP/groff.err" ] || fail "groff warns about the man page: $(head -5 "$TMP/groff.err")"
MANWIDTH=120 man -l "$page" 2>"$TMP/man.err" | col -b >"$TMP/man.txt"
[ -s "$TMP/man.txt" ] || fail "man -l rendered nothing: $(cat "$TMP/man.err")"
contains "$TMP/man.txt" "ZLBENCH(1)"
contains "$TMP/man.txt" "zlbench $(sed -n 's/^project(zlbench VERSION \([0-9.]*\).*/\1/p' "$ZL_SOURCE_DIR/CMakeLists.txt")"
missing=""
for c in $("$ZLBENCH" help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 { print $1 }'); do
	grep -qE "^ +zlbench $c\$" "$TMP/man.txt" || missing="$missing section:$c"
	for o in $("$ZLBENCH" help "$c" | grep -oE -- '^ +--[a-z][a-z0-9-]*' | sort -u); do
		grep -qE -- "(^|[^a-z-])$o([^a-z-]|\$)" "$TMP/man.txt" || missing="$missing $c:$o"
	done
done
[ -z "$missing" ] || fail "the man page lacks:$missing"
# the generated page is the binary's help --man, byte for byte
"$ZLBENCH" help --man | cmp -s - <(zcat "$page") || fail "the installed man page is not 'zlbench help --man'"
pass
