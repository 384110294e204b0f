#!/bin/bash
# A batch directory and a history whose files carry markup where a status, a reason, a
# device or a timer name goes (ops_status.csv, schedule.jsonl, run_identity.json): the
# report pages show it as text. A real headless Chromium opens each page, and the DOM after
# load shows that no script ran (no attribute it would set, no element it would create, the
# title as zlbench wrote it); tests/helpers/html_check.py finds no forbidden element.
# Skips (exit 0) when chromium is missing outside CI; in CI (CI=true) that fails.
. "$(dirname "$0")/lib.sh"
FIX="$ZL_SOURCE_DIR/tests/fixtures/flaggems"
MK="$ZL_SOURCE_DIR/tests/fixtures/runs/make_run.py"
CHECK="$ZL_SOURCE_DIR/tests/helpers/html_check.py"
R="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
export ZL_KILL_GRACE=2

if ! command -v chromium >/dev/null; then
	[ "${CI:-}" = true ] && fail "missing in CI: chromium (scripts/deps.sh installs it)"
	echo "skip [$TEST_NAME]: chromium not installed (scripts/deps.sh installs it)"
	exit 0
fi

# each payload, if it ran, marks the document: an attribute on <html>, an element, the title
js='document.documentElement.setAttribute(`data-xss`,1);document.title=`XSS`'
payloads=(
	"passed\"><script>$js</script><i x=\""
	"failed' onmouseover='$js' x='"
	"crashed><img src=nowhere onerror=\"$js\">"
	"timeout\"><svg onload=\"$js\"><a href=\"javascript:$js\">x</a></svg>"
)

run_zl batch --backend cuda --flaggems-dir "$FIX" --python "$ZL_TEST_PYTHON" --progress none \
	--devices 0,1 --ops mm,add,sum,crash --out "$TMP/b"
[ -s "$TMP/b/ops_status.csv" ] || fail "the batch wrote no ops_status.csv (exit $RC)"
# the crafted strings where the statuses, reasons and devices are
"$ZL_TEST_PYTHON" - "$TMP/b" "${payloads[@]}" <<'PY' || fail "cannot craft the batch"
import csv, json, os, sys
b, payloads = sys.argv[1], sys.argv[2:]
path = os.path.join(b, "ops_status.csv")
rows = list(csv.DictReader(open(path, newline="")))
head = list(rows[0].keys())
for i, r in enumerate(rows):
    r["status"] = payloads[i % len(payloads)]
    r["reason"] = payloads[(i + 1) % len(payloads)]
    r["timer"] = payloads[(i + 2) % len(payloads)]
with open(path, "w", newline="") as f:
    w = csv.DictWriter(f, head, lineterminator="\r\n")
    w.writeheader()
    w.writerows(rows)
sp = os.path.join(b, "schedule.jsonl")
lines = [json.loads(l) for l in open(sp)]
with open(sp, "w") as f:
    for i, l in enumerate(lines):
        l["status"] = payloads[i % len(payloads)]
        l["device"] = payloads[(i + 3) % len(payloads)]
        f.write(json.dumps(l) + "\n")
PY
run_zl report "$TMP/b" -o "$TMP/batch.html"
expect_rc 0

# a history whose runs' statuses, devices and timers are the payloads
for i in 0 1 2 3; do
	p=${payloads[$i]}
	q=$("$ZL_TEST_PYTHON" -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$p")
	"$ZL_TEST_PYTHON" "$MK" "$TMP/h$i" --run-id "2026110$((i + 1))-100000-cuda-mm-00000$i" --results "$R" \
		--set started_at="\"2026-11-0$((i + 1))T10:00:00Z\"" --set status="$q" \
		--set "devices=[{\"index\": 0, \"name\": $q}]" --set timer.used="$q" >/dev/null || fail "make_run.py"
	run_zl history --ingest "$TMP/h$i"
	expect_rc 0
done
run_zl report --history --op mm -o "$TMP/history.html"
expect_rc 0
run_zl report "$TMP/h0" -o "$TMP/run.html"
expect_rc 0
run_zl report --compare "$TMP/h0" "$TMP/h1" --allow-caliber-mismatch -o "$TMP/compare.html"
expect_rc 0

for page in batch history run compare; do
	f="$TMP/$page.html"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$TMP/chrome.XXXXXX")" --virtual-time-budget=2000 \
		--dump-dom "file://$f" >"$TMP/$page.dom" 2>"$TMP/chromium.log" ||
		{ cat "$TMP/chromium.log" >&2; fail "chromium failed on $page"; }
	grep -q '</main>' "$TMP/$page.dom" || fail "chromium's DOM of $page is not the page"
	"$ZL_TEST_PYTHON" - "$TMP/$page.dom" <<'PY' || fail "the DOM of $page holds what the input created"
import html.parser, sys
bad = []
class P(html.parser.HTMLParser):
    title = None
    def handle_starttag(self, tag, attrs):
        if tag in ("script", "img", "iframe", "object", "embed"):
            bad.append(tag)
        # the pages link only within themselves (the batch's op table to each op's section)
        if tag == "a" and not all(k == "href" and v and v.startswith("#") for k, v in attrs):
            bad.append("a %r" % (attrs,))
        for k, v in attrs:
            if k.startswith("on") or k.startswith("data-") or (v and "javascript:" in v):
                bad.append("%s %s=%r" % (tag, k, v))
        if tag == "title" and self.title is None:
            self.title = ""
    def handle_data(self, data):
        if self.title == "":
            self.title = data
p = P()
p.feed(open(sys.argv[1]).read())
if not p.title or "XSS" in p.title:
    bad.append("title %r" % p.title)
if bad:
    print("elements or attributes from the input:", bad, file=sys.stderr)
    sys.exit(1)
PY
	"$ZL_TEST_PYTHON" "$CHECK" "$f" >/dev/null || fail "html_check: $page"
	# the payloads are on the page, as text
	contains "$f" "&lt;script&gt;"
	lacks "$f" "<script"
	lacks "$f" "<img"
done
pass
