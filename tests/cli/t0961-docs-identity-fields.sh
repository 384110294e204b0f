#!/bin/bash
# run_identity.json's fields are listed once in include/zlbench/identity_fields.h; the
# contract page docs/run-directory.md documents each of them, top-level fields in the
# order they are written, an object's members inside its row. And a demo run's identity has
# exactly the table's keys, in its order.
. "$(dirname "$0")/lib.sh"
cd "$TMP"

run_zl run --backend cuda --flaggems-dir "$ZL_SOURCE_DIR/examples/demo" --op softmax \
	--python "$ZL_TEST_PYTHON" --out r1
expect_rc 0
"$ZL_TEST_PYTHON" - "$ZL_SOURCE_DIR" "$TMP/r1/run_identity.json" <<'PY' || fail "identity_fields.h, docs/run-directory.md and a run's identity disagree"
import json, re, sys
root, identity = sys.argv[1], sys.argv[2]
keys = re.findall(r'^ZL_IDENTITY_FIELD\("([^"]+)"', open(f"{root}/include/zlbench/identity_fields.h").read(), re.M)
doc = open(f"{root}/docs/run-directory.md").read()
table = doc[doc.index("## run_identity.json"):]
table = table[:table.index("\n## ", 1)]
rows = {}
order = []
for line in table.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) < 2 or cells[0] in ("field", "---"):
        continue
    for name in cells[0].split(", "):
        rows[name] = cells[1]
        order.append(name)
bad = []
top = [k for k in keys if "." not in k]
for k in keys:
    parent, _, member = k.partition(".")
    if parent not in rows:
        bad.append(f"'{parent}' has no row in docs/run-directory.md")
    elif member and not re.search(r"[{,]\s*" + re.escape(member) + r"\s*[,}]", rows[parent]):
        bad.append(f"'{k}' is not among the members in the row of '{parent}'")
if [k for k in order if k in top] != top:
    bad.append("docs/run-directory.md lists the fields in another order than they are written")
extra = [k for k in order if k not in top]
if extra:
    bad.append(f"docs/run-directory.md documents fields zlbench does not write: {extra}")
written = []
def walk(d, prefix):
    for k, v in d.items():
        written.append(prefix + k)
        if isinstance(v, dict) and not prefix and any(x.startswith(k + ".") for x in keys):
            walk(v, k + ".")
walk(json.load(open(identity)), "")
if written != keys:
    bad.append(f"a run's identity has keys {written}, the table {keys}")
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
pass
