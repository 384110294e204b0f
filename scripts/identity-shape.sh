#!/usr/bin/env bash
# The shape of what a run leaves, for diffing two builds (issue 16: the identity's keys and
# their order must not change when the code that writes it does):
#
#   bash scripts/identity-shape.sh OLD_ZLBENCH >before.txt
#   bash scripts/identity-shape.sh NEW_ZLBENCH >after.txt
#   diff before.txt after.txt
#
# Runs a handful of demo runs (passed; isolated caches; replay; a failed run; an isolated run
# whose caches cannot be made; one with FLAGGEMS_DB_URL and a scheduler record; a batch op in
# a worker), then prints each run_identity.json with every key in order and its value, the
# values that differ from run to run (times, ids, host, temporary paths) masked, and the
# history row each run left. Needs Debian's python3 with pytest (the demo's interpreter).
set -eu
zl=$(realpath "${1:?usage: identity-shape.sh ZLBENCH}")
src=$(cd "$(dirname "$0")/.." && pwd)
py=${ZL_TEST_PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/zl-idshape.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# a fixed environment: nothing of the caller's leaks into the identities
unset $(env | sed -n 's/^\(ZL_[A-Z_]*\|FLAGGEMS_[A-Z_]*\|TRITON_[A-Z_]*\|PYTEST_[A-Z_]*\|[A-Z_]*VISIBLE_DEVICES\)=.*/\1/p') \
	BENCH_LEVEL SHAPE_FILE SHAPE_MODE OP OP_FILE TEST_NODE REPLAY_FROM GEMS_VENDOR NO_COLOR 2>/dev/null || true
export ZL_HOME="$tmp/home" ZL_DEV_ROOT="$tmp/dev" ZL_PLUGINS_DIR="$src/plugins"
export FLAGGEMS_CACHE_DIR="$tmp/fg-cache" TRITON_CACHE_DIR="$tmp/triton-cache" FLAGGEMS_VENDOR=nvidia
mkdir -p "$ZL_DEV_ROOT"
cd "$tmp"
demo="$src/examples/demo"
common=(--backend cuda --flaggems-dir "$demo" --python "$py")

run() { # name args...: a run, its exit code and the lines it printed that name no path
	local name=$1
	shift
	set +e
	"$zl" run "${common[@]}" --out "$tmp/$name" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo "== run $name: exit $?"
	set -e
}

run passed --op softmax
run isolated --op softmax --isolate-tuner-cache
run replay --op softmax --replay-from "$tmp/passed"
run failed --op softmax -- -k no_such_test
TMPDIR="$tmp/no-such-dir" run nocache --op softmax --isolate-tuner-cache
FLAGGEMS_DB_URL=postgresql://u:secret@db/x ZL_SCHEDULER='{"job": 7}' ZL_WARMUP='not json' \
	run dburl --op softmax -- -q
set +e
"$zl" batch "${common[@]}" --ops softmax --start worker --out "$tmp/batch" >"$tmp/batch.out" 2>"$tmp/batch.err"
echo "== batch: exit $?"
set -e

"$py" - "$tmp" <<'PY'
import glob, json, os, re, sqlite3, sys

tmp = sys.argv[1]
volatile = {"run_id", "started_at", "finished_at", "duration_s", "host", "replay_run_id", "pid",
            "ops_before", "worker_pid", "started", "ended", "seconds", "wall_s", "uptime_s"}

def mask(v):
    if isinstance(v, str):
        v = v.replace(tmp, "<tmp>")
        v = re.sub(r"/tmp/zlbench-caches-[A-Za-z0-9]+", "<isolated>", v)
        v = re.sub(r"\d{8}-\d{6}-[a-z0-9_-]+-[0-9a-f]{6}", "<run-id>", v)
    return v

def walk(v, path, out):
    if isinstance(v, dict):
        out.append(f"{path} {{}}")
        for k, x in v.items():
            walk(x, f"{path}.{k}", out)
    elif isinstance(v, list):
        out.append(f"{path} [{len(v)}]")
        for i, x in enumerate(v):
            walk(x, f"{path}[{i}]", out)
    elif path.rsplit(".", 1)[-1] in volatile:
        out.append(f"{path} <{type(v).__name__}>")
    else:
        out.append(f"{path} = {json.dumps(mask(v))}")

ids = sorted(glob.glob(f"{tmp}/*/run_identity.json") + glob.glob(f"{tmp}/batch/runs/*/run_identity.json"))
for p in ids:
    name = os.path.relpath(os.path.dirname(p), tmp)
    name = re.sub(r"runs/.*", "runs/<op>", name)
    print(f"== identity {name}")
    out = []
    walk(json.load(open(p)), "", out)
    print("\n".join(out))
db = f"{tmp}/home/history.db"
if os.path.exists(db):
    con = sqlite3.connect(db)
    cols = [r[1] for r in con.execute("PRAGMA table_info(runs)")]
    for row in con.execute("SELECT * FROM runs ORDER BY run_dir"):
        print("== history row")
        for c, v in zip(cols, row):
            if c in ("id", "identity", "ingested_at") or c in volatile:
                v = f"<{type(v).__name__}>" if c != "identity" else f"<identity: {json.loads(v).keys() == json.load(open(os.path.join(row[cols.index('run_dir')], 'run_identity.json'))).keys() if os.path.exists(os.path.join(row[cols.index('run_dir')], 'run_identity.json')) else 'no file'}>"
            print(f"  {c} = {json.dumps(mask(v))}")
for f in sorted(glob.glob(f"{tmp}/*.out") + glob.glob(f"{tmp}/*.err")):
    print(f"== {os.path.basename(f)}")
    for line in open(f, errors="replace"):
        line = mask(line.rstrip("\n"))
        line = re.sub(r"\d+\.\d+", "<f>", line)
        line = re.sub(r"pid \d+", "pid <n>", line)
        print("  " + line)
PY
