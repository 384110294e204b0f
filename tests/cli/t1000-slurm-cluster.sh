#!/bin/bash
# The one-node Slurm test cluster of scripts/slurm-up.sh: up (idempotently), idle,
# 4 fake GPUs that --gres=gpu:1 hands out one per task, 8 declared CPUs.
# Sourced by the other t10*-slurm tests (after lib.sh) for slurm_up and slurm_wait_job.

# slurm_up: bring the cluster up and export its environment. Skips the test (exit 0)
# only when Slurm's packages are absent outside CI; in CI (CI=true) that fails.
slurm_up() {
	local rc=0 env
	env=$("$ZL_SOURCE_DIR/scripts/slurm-up.sh" 2>"$TMP/slurm-up.err") || rc=$?
	if [ "$rc" -eq 77 ]; then
		if [ "${CI:-}" = true ]; then
			cat "$TMP/slurm-up.err" >&2
			fail "Slurm's packages are absent in CI (.ci/run installs slurm-wlm and munge)"
		fi
		echo "skip [$TEST_NAME]: $(cat "$TMP/slurm-up.err")"
		exit 0
	fi
	[ "$rc" -eq 0 ] || { cat "$TMP/slurm-up.err" >&2; fail "scripts/slurm-up.sh exited $rc"; }
	eval "$env"
	# tests follow Slurm more closely than users need to
	export ZL_SLURM_POLL=0.3
}

# slurm_wait_job JOB SECONDS: wait until no task of JOB is pending or running.
slurm_wait_job() {
	local i
	for ((i = 0; i < $2 * 5; i++)); do
		[ -z "$(squeue -h -j "$1" -t pending,running,completing 2>/dev/null)" ] && return 0
		sleep 0.2
	done
	fail "Slurm job $1 still has tasks after $2 s"
}

# slurm_job_of DIR: the job id of the batch's last submission.
slurm_job_of() {
	json_get "$1/slurm/slurm.json" 'd["submissions"][-1]["job_id"]'
}

# sourced by another test: the functions are all it wants
[ "$(basename "$0")" = t1000-slurm-cluster.sh ] || return 0

. "$(dirname "$0")/lib.sh"

slurm_up
[ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ] || fail "slurm-up.sh printed no SLURM_CONF"
first=$SLURM_CONF
# idempotent: a second call reuses the running cluster and prints the same environment
start=$(date +%s)
slurm_up
[ "$SLURM_CONF" = "$first" ] || fail "SLURM_CONF changed: $first -> $SLURM_CONF"
[ $(($(date +%s) - start)) -le 5 ] || fail "slurm-up.sh took more than 5 s on a running cluster"

state=$(timeout 5 sinfo -h -o %T | head -n 1)
case "$state" in idle | mixed | allocated) ;; *) fail "node state '$state'" ;; esac
node=$(timeout 5 scontrol -o show node)
case "$node" in *"Gres=gpu:4"*) ;; *) fail "the node lacks Gres=gpu:4: $node" ;; esac
case "$node" in *"CPUTot=8"*) ;; *) fail "the node does not declare 8 CPUs: $node" ;; esac

# concurrent one-GPU tasks never share a GPU (other tests may hold some of the four)
cat >"$TMP/probe.sh" <<'EOF'
#!/bin/bash
start=$(date +%s.%N)
sleep 2
echo "${SLURM_JOB_GPUS:-none} $start $(date +%s.%N)" >"$OUT/$SLURM_ARRAY_TASK_ID"
EOF
mkdir -p "$TMP/probe"
job=$(OUT=$TMP/probe sbatch --parsable --array=0-3 --gres=gpu:1 -o /dev/null "$TMP/probe.sh")
slurm_wait_job "$job" 120
[ "$(ls "$TMP/probe" | wc -l)" -eq 4 ] || fail "not every task ran: $(ls "$TMP/probe")"
"$ZL_TEST_PYTHON" - "$TMP"/probe/* <<'PY' || fail "two tasks ran on one GPU at once"
import sys
runs = [open(p).read().split() for p in sys.argv[1:]]
assert all(r[0] != "none" for r in runs), runs
for i, a in enumerate(runs):
    for b in runs[i + 1:]:
        if float(a[1]) < float(b[2]) and float(b[1]) < float(a[2]):
            assert a[0] != b[0], (a, b)
PY
pass
