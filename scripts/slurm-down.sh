#!/bin/bash
# Stop the test cluster that scripts/slurm-up.sh started: slurmd and slurmctld by
# their pid files, and munged only when slurm-up.sh was the one that started it.
# --purge also removes the private directory ($ZL_SLURM_DIR, default /tmp/zl-slurm).
set -uo pipefail

dir=${ZL_SLURM_DIR:-/tmp/zl-slurm}

stop() { # stop PIDFILE NAME
	local pid
	[ -s "$1" ] || return 0
	pid=$(cat "$1")
	kill -0 "$pid" 2>/dev/null || return 0
	kill "$pid" 2>/dev/null
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || { echo "slurm-down: stopped $2 ($pid)" >&2; return 0; }
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null
	echo "slurm-down: killed $2 ($pid) after 5 s" >&2
}

[ -d "$dir" ] || exit 0
exec 9>"$dir.lock"
flock 9
stop "$dir/run/slurmd.pid" slurmd
stop "$dir/run/slurmctld.pid" slurmctld
if [ -e "$dir/munged.started" ]; then
	stop /run/munge/munged.pid munged
	rm -f "$dir/munged.started"
fi
if [ "${1:-}" = "--purge" ]; then
	rm -rf "$dir"
	rm -f "$dir.lock"
fi
exit 0
