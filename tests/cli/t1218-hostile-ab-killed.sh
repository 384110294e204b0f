#!/bin/bash
# An ab killed with SIGKILL leaves ab.json saying "running": its report says the ab did not
# finish (in the title and a notice first: how many rounds ended, that the figures are not
# the ab's result), and each round shows its own status, instead of drawing it as a
# finished ab.
. "$(dirname "$0")/lib.sh"
CHECK="$ZL_SOURCE_DIR/tests/helpers/html_check.py"
cd "$TMP"
demo_checkout "$TMP/demo"
export ZL_KILL_GRACE=2

"$ZLBENCH" ab --backend cuda --flaggems-dir demo --python "$ZL_TEST_PYTHON" --op add --rounds 2 --out ab \
	-- --iter 5 >"$TMP/ab.out" 2>"$TMP/ab.err" &
pid=$!
status() { json_get ab/ab.json "[r['status'] for r in d['rounds']]" 2>/dev/null || :; }
for i in $(seq 600); do
	case "$(status)" in "['passed', "*) break ;; esac
	kill -0 $pid 2>/dev/null || { cat "$TMP/ab.err" >&2; fail "ab ended before it could be killed"; }
	sleep 0.2
done
case "$(status)" in "['passed', "*) ;; *) kill -9 $pid; fail "A1 did not pass in time: $(status)" ;; esac
kill -9 $pid
wait $pid 2>/dev/null || :
[ "$(json_get ab/ab.json 'd["status"]')" = running ] || fail "ab.json: $(json_get ab/ab.json 'd["status"]')"
# B1, started before the kill, is in its own process group: wait until it has an identity
for i in $(seq 600); do
	[ -s ab/B1/run_identity.json ] && break
	sleep 0.2
done
[ -s ab/B1/run_identity.json ] || fail "B1 never started"

run_zl report ab -o "$TMP/ab.html"
expect_rc 0
"$ZL_TEST_PYTHON" "$CHECK" "$TMP/ab.html" --json "$TMP/ab.json" >/dev/null || fail "html_check"
[ "$(json_get "$TMP/ab.json" 'd["headings"]["h1"][0]')" = "zlbench ab: add (not finished)" ] ||
	fail "title: $(json_get "$TMP/ab.json" 'd["headings"]["h1"]')"
contains "$TMP/ab.html" "This ab did not finish"
contains "$TMP/ab.html" "ab.json says &quot;running&quot;: this ab is still running, or its process was killed"
contains "$TMP/ab.html" "of the 4 rounds ended; the figures below are those rounds&#39; only"
# the rounds that never ran are shown as ab.json says them
contains "$TMP/ab.html" '<td class="v-other">pending</td>'

# the B1 child ends on its own; wait for it so that nothing outlives the test
for i in $(seq 600); do
	[ "$(json_get ab/B1/run_identity.json 'd["status"]')" != running ] && break
	sleep 0.2
done
pass
