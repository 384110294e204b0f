# Helpers for the push tests (tests/cli/t07*-push*.sh); source after lib.sh.
# Collectors are tests/helpers/http_collector.py processes on 127.0.0.1.

# A proxy from the developer's environment would swallow loopback requests.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy no_proxy NO_PROXY
# Retries wait 1 ms, 2 ms, ... instead of 0.5 s, 1 s, ...
export ZL_PUSH_BACKOFF_MS=1
COLLECTOR="$ZL_SOURCE_DIR/tests/helpers/http_collector.py"
RESULTS_FIXTURE="$ZL_FIXTURES_DIR/flaggems-runs/mm_core_kernel_h200.results.json"
# Unique per test run, so that finding it anywhere means it leaked.
TOKEN="zl-push-token-$$-$RANDOM-s3cr3t"
COLLECTOR_PIDS=""
trap 'for p in $COLLECTOR_PIDS; do kill "$p" 2>/dev/null || :; done; rm -rf "$TMP"' EXIT

[ -r "$RESULTS_FIXTURE" ] || fail "missing fixture $RESULTS_FIXTURE"

# make_run DIR RUN_ID [STATUS]: a synthetic run directory (identity + real results.json).
make_run() {
	mkdir -p "$1"
	"$ZL_TEST_PYTHON" - "$1/run_identity.json" "$2" "${3:-passed}" <<'EOF'
import json, sys
path, run_id, status = sys.argv[1:4]
ident = {
    "schema_version": 1, "run_id": run_id, "zlbench_version": "0.1.0",
    "started_at": "2026-01-01T12:00:00Z", "finished_at": "2026-01-01T12:03:56Z",
    "duration_s": 236.8, "host": "h200-test", "argv": ["zlbench", "run", "--op", "mm"],
    "backend": "cuda", "backend_source": "flag", "op": "mm", "level": "core",
    "devices": [{"index": 0, "name": "H200", "uuid": None, "memory_mib": 143771, "driver": None}],
    "env": {"ZL_PUSH_TOKEN": "<redacted>", "ZL_BACKEND": "cuda"},
    "status": status, "exit_code": 0, "signal": None, "reason": None,
}
with open(path, "w") as f:
    json.dump(ident, f, indent=2)
EOF
	cp "$RESULTS_FIXTURE" "$1/results.json"
}

# free_port: a port nobody listens on (bound, then released).
free_port() {
	"$ZL_TEST_PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# start_collector NAME [http_collector.py args...]: sets URL; requests go to $TMP/NAME/req.
start_collector() {
	local name=$1 i pid
	shift
	mkdir -p "$TMP/$name/req"
	"$ZL_TEST_PYTHON" "$COLLECTOR" --record-dir "$TMP/$name/req" --port-file "$TMP/$name/port" \
		"$@" >"$TMP/$name/log" 2>&1 &
	pid=$!
	COLLECTOR_PIDS="$COLLECTOR_PIDS $pid"
	echo "$pid" >"$TMP/$name/pid"
	for i in $(seq 100); do
		[ -s "$TMP/$name/port" ] && break
		kill -0 "$pid" 2>/dev/null || { cat "$TMP/$name/log" >&2; fail "collector $name died"; }
		sleep 0.1
	done
	[ -s "$TMP/$name/port" ] || fail "collector $name did not start"
	URL="http://127.0.0.1:$(cat "$TMP/$name/port")/api/runs"
}

stop_collector() {
	local pid
	pid=$(cat "$TMP/$1/pid")
	kill "$pid" 2>/dev/null || :
	wait "$pid" 2>/dev/null || :
}

# requests NAME: how many requests collector NAME has seen.
requests() {
	find "$TMP/$1/req" -name '*.json' | wc -l
}

# expect_requests NAME N
expect_requests() {
	local n
	n=$(requests "$1")
	[ "$n" -eq "$2" ] || { cat "$TMP/err" >&2; fail "collector $1 saw $n requests, expected $2"; }
}

# push_zl ARGS...: run_zl, then check that the token appears in neither output.
push_zl() {
	run_zl "$@"
	lacks "$TMP/out" "$TOKEN"
	lacks "$TMP/err" "$TOKEN"
}

# expect_document BODY_FILE RUN_DIR: BODY_FILE is the push document of RUN_DIR.
expect_document() {
	"$ZL_TEST_PYTHON" - "$1" "$2" <<'EOF' || fail "document $1 does not match run $2"
import json, os, sys
body, run = sys.argv[1:3]
got = json.load(open(body))
res = os.path.join(run, "results.json")
want = {
    "schema": "zlbench.push/1",
    "identity": json.load(open(os.path.join(run, "run_identity.json"))),
    "results": json.load(open(res)) if os.path.exists(res) else None,
}
if got != want:
    print("keys got", sorted(got), "want", sorted(want), file=sys.stderr)
    sys.exit(1)
EOF
}

# no_token_under DIR: the token is in no file below DIR (names included).
no_token_under() {
	[ -d "$1" ] || return 0
	if grep -rqF -- "$TOKEN" "$1"; then
		grep -rlF -- "$TOKEN" "$1" >&2
		fail "the token was written under $1"
	fi
	if find "$1" | grep -qF -- "$TOKEN"; then
		fail "the token is in a file name under $1"
	fi
}

# spool_files: the payload files in the spool, one per line.
spool_files() {
	find "$ZL_HOME/spool" -maxdepth 1 -name '*.jsonl' 2>/dev/null | sort
}
