#!/bin/bash
# Progress with an ETA (lib/progress.c, shared with batch): ab and calibrate draw a line on
# stderr, redrawn in place, while their runs or rounds go, when stderr is a terminal (a
# pseudo-terminal here); nothing of it when stderr is no terminal (the line per run or round
# stays) or with --progress none; report draws its line while a batch's runs load. stdout,
# a file, holds the result alone.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
demo_checkout "$TMP/demo"
export ZL_KILL_GRACE=2
unset COLUMNS
common=(--backend cuda --flaggems-dir demo --python "$ZL_TEST_PYTHON")

# on_pty OUT ERR CMD...: CMD with stderr on a pseudo-terminal of 100 columns, stdout to OUT;
# what the terminal showed goes to ERR, the exit status to $RC
on_pty() {
	set +e
	"$ZL_TEST_PYTHON" - "$@" <<'PY'
import fcntl, os, pty, struct, subprocess, sys, termios
out, err, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
with open(out, "wb") as o:
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=o, stderr=slave)
os.close(slave)
shown = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    shown += chunk
open(err, "wb").write(shown)
sys.exit(p.wait())
PY
	RC=$?
	set -e
}
live_line=$'\r\033[K'

# ab on a terminal: the live line names the run and what is left; each run's end stays
on_pty "$TMP/ab.out" "$TMP/ab.tty" "$ZLBENCH" ab "${common[@]}" --op add --rounds 1 --out ab1 -- --iter 10
expect_rc 0
contains "$TMP/ab.tty" "$live_line"
contains "$TMP/ab.tty" "ab add [1/2] A1 running"
contains "$TMP/ab.tty" "ab add [2/2] B1 running"
grep -q 'ETA [0-9]' "$TMP/ab.tty" || fail "no ETA once a run has ended: $(cat -v "$TMP/ab.tty")"
contains "$TMP/ab.tty" "ab: B1: passed (exit 0)"
lacks "$TMP/ab.out" "ETA"
if grep -q $'\033' "$TMP/ab.out"; then fail "escape codes in stdout"; fi
[ "$(tail -n 1 "$TMP/ab.out")" = "AB_DIR=$TMP/ab1" ] || fail "stdout: $(tail -n 1 "$TMP/ab.out")"

# no terminal: a line per run, no live line, no ETA
run_zl ab "${common[@]}" --op add --rounds 1 --out ab2 --json-out ab2.json --md-out ab2.md -- --iter 10
expect_rc 0
# the exports: ab.json's document, documented (docs/json.md), and the Markdown
schema_documented ab2.json
cmp -s ab2.json ab2/ab.json || "$ZL_TEST_PYTHON" -c '
import json, sys
sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' ab2.json ab2/ab.json || fail "--json-out is not ab.json"
contains ab2.md "**Verdict:**"
head -n 1 "$TMP/out" | grep -q '^gems: ' || fail "ab: the verdict line first: $(head -n 2 "$TMP/out")"
contains "$TMP/err" "ab: A1 (1/2) ..."
contains "$TMP/err" "ab: B1: passed (exit 0)"
lacks "$TMP/err" "ETA"
if grep -q $'\033' "$TMP/err"; then fail "escape codes on a stderr that is no terminal"; fi

# --progress none on a terminal: neither
on_pty "$TMP/ab3.out" "$TMP/ab3.tty" "$ZLBENCH" ab "${common[@]}" --op add --rounds 1 --out ab3 --progress none -- --iter 10
expect_rc 0
lacks "$TMP/ab3.tty" "ETA"
lacks "$TMP/ab3.tty" "ab: A1"
if grep -q $'\033\[K' "$TMP/ab3.tty"; then fail "a live line with --progress none"; fi
run_zl ab "${common[@]}" --op add --progress sometimes --out ab4
expect_rc 2
contains "$TMP/err" "invalid value 'sometimes' for --progress: choose auto, live, plain or none"

# calibrate on a terminal: the round, its ops done, the ETA over every round
on_pty "$TMP/cal.out" "$TMP/cal.tty" "$ZLBENCH" calibrate "${common[@]}" --ops add --runs 2 --out cal -- --iter 10
expect_rc 0
contains "$TMP/cal.tty" "$live_line"
contains "$TMP/cal.tty" "calibrate [round 1/2] 0 of 1 ops"
contains "$TMP/cal.tty" "calibrate [round 2/2]"
grep -q 'ETA [0-9]' "$TMP/cal.tty" || fail "no ETA in round 2: $(cat -v "$TMP/cal.tty")"
contains "$TMP/cal.tty" "round 2/2: 1 of 1 ops passed"
head -n 1 "$TMP/cal.out" | grep -q '^stored: calibration 1 ' || fail "calibrate: the answer first: $(head -n 3 "$TMP/cal.out")"
# resumed with no terminal: the round lines, no live line
run_zl calibrate --resume cal --json-out cal.json
expect_rc 0
schema_documented cal.json
schema_documented cal/calibration.json
contains "$TMP/err" "round 1/2: 1 of 1 ops passed"
lacks "$TMP/err" "ETA"
if grep -q $'\033' "$TMP/err"; then fail "escape codes on a stderr that is no terminal"; fi

# report: nothing on a stderr that is no terminal; asked for (live), the line while runs load
run_zl report cal/round-1 -o r1.html
expect_rc 0
lacks "$TMP/err" "loading"
run_zl report cal/round-1 -o r2.html --progress live
expect_rc 0
contains "$TMP/err" "report: loading the batch's runs 0/1"
contains "$TMP/err" "$live_line"
contains "$TMP/out" "wrote r2.html"
lacks "$TMP/out" "loading"
pass
