#!/bin/bash
# The man page the build generates: troff has nothing to warn about at any width (man
# --warnings), and besides the commands it has EXIT STATUS (every code of the exit-code
# table), ENVIRONMENT (every variable `zlbench help environment` lists) and FILES, in the
# order man-pages(7) gives them.
. "$(dirname "$0")/lib.sh"
: "${ZL_BUILD_DIR:?ZL_BUILD_DIR must name the build directory under test}"
cd "$TMP"
command -v man >/dev/null || fail "man not found (scripts/deps.sh installs man-db)"
page=$ZL_BUILD_DIR/generated/zlbench.1
[ -f "$page" ] || fail "no generated page at $page"
"$ZLBENCH" help --man | cmp -s - "$page" || fail "$page is not 'zlbench help --man'"

# what the issue asks for, as written, and every warning troff has, at several widths
man --warnings -l "$page" >/dev/null 2>"$TMP/warn"
[ ! -s "$TMP/warn" ] || fail "man --warnings: $(head -5 "$TMP/warn")"
for w in 50 80 120; do
	MANWIDTH=$w man --warnings=all -l "$page" >/dev/null 2>"$TMP/warn"
	[ ! -s "$TMP/warn" ] || fail "man --warnings=all at $w columns: $(head -5 "$TMP/warn")"
done

MANWIDTH=100 man -l "$page" 2>/dev/null | col -b >man.txt
grep -E '^[A-Z][A-Z ]+$' man.txt >sections
[ "$(tr '\n' '|' <sections)" = "NAME|SYNOPSIS|DESCRIPTION|COMMANDS|EXIT STATUS|ENVIRONMENT|FILES|SEE ALSO|" ] ||
	fail "the sections: $(tr '\n' '|' <sections)"
# section NAME: its text, up to the next section
section() { sed -n "/^$1\$/,/^[A-Z][A-Z ]*\$/p" man.txt | sed '1d;$d'; }
section "EXIT STATUS" >exit.txt
for code in 0 1 2 3 4 5 70 124 128+N 130; do
	grep -qE "^ +${code/+/[+]} +[^ ]" exit.txt || fail "EXIT STATUS lacks $code: $(cat exit.txt)"
done
contains exit.txt "usage or configuration error"
section ENVIRONMENT >env.txt
missing=""
for v in $("$ZLBENCH" help environment | grep -oE '^  [A-Z][A-Z0-9_]+' | tr -d ' '); do
	grep -qE "^ +$v( |\$)" env.txt || missing="$missing $v"
done
[ -z "$missing" ] || fail "ENVIRONMENT lacks:$missing"
contains env.txt "zlbench's data directory"
section FILES >files.txt
contains files.txt '$ZL_HOME/history.db'
contains files.txt "the history database"
contains files.txt "RUN_DIR/"
pass
