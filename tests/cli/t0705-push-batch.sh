#!/bin/bash
# push: a batch directory posts one document per run, in name order; a broken run does not stop the others.
. "$(dirname "$0")/lib.sh"
. "$ZL_SOURCE_DIR/tests/helpers/push_lib.sh"

B="$TMP/batch"
make_run "$B/runs/20260101-120000-cuda-mm-aaaaaa" 20260101-120000-cuda-mm-aaaaaa
make_run "$B/runs/20260101-120500-cuda-addmm-bbbbbb" 20260101-120500-cuda-addmm-bbbbbb failed
printf 'op,status,run_dir\nmm,passed,runs/20260101-120000-cuda-mm-aaaaaa\n' >"$B/ops_status.csv"
export ZL_PUSH_TOKEN=$TOKEN
start_collector c1 --script 200

push_zl push "$B" --url "$URL"
expect_rc 0
expect_requests c1 2
expect_document "$TMP/c1/req/0001.body" "$B/runs/20260101-120000-cuda-mm-aaaaaa"
expect_document "$TMP/c1/req/0002.body" "$B/runs/20260101-120500-cuda-addmm-bbbbbb"
contains "$TMP/out" "pushed 2 runs: 2 delivered, 0 spooled, 0 rejected, 0 failed"

# a damaged run is reported, the others still go, and the exit status says so
mkdir -p "$B/runs/20260101-119999-cuda-bad-cccccc"
echo 'not json' >"$B/runs/20260101-119999-cuda-bad-cccccc/run_identity.json"
push_zl push "$B" --url "$URL"
expect_rc 1
expect_requests c1 4
contains "$TMP/err" "20260101-119999-cuda-bad-cccccc/run_identity.json' is not valid JSON"
contains "$TMP/out" "pushed 3 runs: 2 delivered, 0 spooled, 0 rejected, 1 failed"

# several directories in one call
push_zl push "$B/runs/20260101-120000-cuda-mm-aaaaaa" "$B/runs/20260101-120500-cuda-addmm-bbbbbb" --url "$URL"
expect_rc 0
expect_requests c1 6
pass
