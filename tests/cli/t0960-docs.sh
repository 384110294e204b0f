#!/bin/bash
# The reference cannot drift from the binary: every docs/commands/<cmd>.md ends with
# `zlbench help <cmd>` exactly (scripts/gen-docs.sh --check), README.md links every command's
# page, the README stays a front door (under 300 lines), and every relative link of the
# README and docs/ reaches a file (and heading) that exists. gen-docs.sh itself: it sees a
# changed block, a missing page and a page for no command, and refreshes only its blocks.
. "$(dirname "$0")/lib.sh"
cd "$TMP"

# the tree as committed
bash "$ZL_SOURCE_DIR/scripts/gen-docs.sh" --check "$ZLBENCH" 2>"$TMP/check.err" ||
	fail "the reference pages differ from the binary's help (bash scripts/gen-docs.sh refreshes them): $(head -30 "$TMP/check.err")"
lines=$(wc -l <"$ZL_SOURCE_DIR/README.md")
[ "$lines" -lt 300 ] || fail "README.md has $lines lines: keep it a front door, the reference goes to docs/"
grep -qF "](docs/reference.md)" "$ZL_SOURCE_DIR/README.md" || fail "README.md does not link docs/reference.md"

# every relative link resolves, anchors included (GitHub's heading ids)
"$ZL_TEST_PYTHON" - "$ZL_SOURCE_DIR" <<'PY' || fail "broken links in README.md or docs/"
import os, re, sys
root = sys.argv[1]
pages = [os.path.join(root, "README.md")]
for d, _, files in os.walk(os.path.join(root, "docs")):
    pages += [os.path.join(d, f) for f in files if f.endswith(".md")]

def anchors(path):
    ids, seen, fence = set(), {}, False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"#{1,6} (.*)", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            ids.add(slug if n == 0 else f"{slug}-{n}")
    return ids

bad = []
for page in pages:
    text = open(page, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        if not os.path.exists(dest):
            bad.append(f"{os.path.relpath(page, root)}: {target}: no such file")
        elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
            bad.append(f"{os.path.relpath(page, root)}: {target}: no such heading")
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# gen-docs.sh on a copy: a changed block is caught, then refreshed; the prose around it stays
mkdir tree
cp -r "$ZL_SOURCE_DIR/README.md" "$ZL_SOURCE_DIR/docs" "$ZL_SOURCE_DIR/scripts" tree/
page=tree/docs/commands/run.md
grep -q '^<!-- BEGIN generated: zlbench help run -->$' "$page" || fail "run.md has no generated block"
sed -i '/^<!-- BEGIN generated: zlbench help run -->$/,/^<!-- END/ s/^Exit codes: /Exit status: /' "$page"
echo "A line of prose the script must keep." >>"$page"
sed '/^<!-- BEGIN generated/,/^<!-- END generated/d' "$page" >"$TMP/prose-before"
bash tree/scripts/gen-docs.sh --check "$ZLBENCH" 2>"$TMP/err" && fail "--check missed a changed help block"
contains "$TMP/err" "docs/commands/run.md: the block for 'zlbench help run' differs from the binary's help"
bash tree/scripts/gen-docs.sh "$ZLBENCH" 2>"$TMP/err" || fail "gen-docs.sh failed: $(cat "$TMP/err")"
contains "$TMP/err" "refreshed docs/commands/run.md"
bash tree/scripts/gen-docs.sh --check "$ZLBENCH" 2>"$TMP/err" || fail "still differs after a refresh: $(cat "$TMP/err")"
sed '/^<!-- BEGIN generated/,/^<!-- END generated/d' "$page" | cmp -s - "$TMP/prose-before" ||
	fail "gen-docs.sh changed the page outside its block"
"$ZLBENCH" help run >"$TMP/help"
sed -n '/^<!-- BEGIN generated: zlbench help run -->$/,/^<!-- END/p' "$page" | sed '1,2d;$d' | sed '$d' | cmp -s - "$TMP/help" ||
	fail "the block is not 'zlbench help run' verbatim"

# a command without a page, a page without a command
rm tree/docs/commands/plan.md
echo "# gone" >tree/docs/commands/frobnicate.md
bash tree/scripts/gen-docs.sh --check "$ZLBENCH" 2>"$TMP/err" && fail "--check missed a missing page"
contains "$TMP/err" "docs/commands/plan.md is missing"
contains "$TMP/err" "docs/commands/frobnicate.md: zlbench has no command 'frobnicate'"
pass
