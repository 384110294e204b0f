#!/bin/bash
# The test suite's hold on the one-node Slurm cluster of scripts/slurm-up.sh, so that a test
# run leaves the machine as it found it (ctest's fixture "slurm": tests/CMakeLists.txt).
#
#   slurm-suite.sh setup     before the first Slurm test: take a lease for this ctest run
#                            and note whether the cluster was already up
#   slurm-suite.sh cleanup   after the last one: give the lease back; the last suite to leave
#                            a cluster that a suite brought up stops it (scripts/slurm-down.sh:
#                            slurmd, slurmctld, and munged when slurm-up.sh started it) and
#                            removes $ZL_SLURM_DIR when no suite found it there
#
# A cluster that was up before any suite (someone's own, a benchmark's) is never stopped.
# Several suites may run at once on one machine: each holds a lease, named by its ctest
# process (the parent of this script), and a lease whose process is gone is dropped.
# Installs and starts nothing; without Slurm's programs or as non-root it does nothing.
set -uo pipefail

dir=${ZL_SLURM_DIR:-/tmp/zl-slurm}
here=$(cd "$(dirname "$0")" && pwd)
suites=$dir/suites
suite=$PPID

say() { echo "slurm-suite: $*" >&2; }

alive() {
	[ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

cluster_up() {
	alive "$dir/run/slurmctld.pid" || alive "$dir/run/slurmd.pid"
}

# live_leases: the leases whose ctest is still running (the others are dropped)
live_leases() {
	local f n=0
	for f in "$suites"/[0-9]*; do
		[ -e "$f" ] || continue
		if kill -0 "${f##*/}" 2>/dev/null; then
			n=$((n + 1))
		else
			rm -f "$f"
		fi
	done
	echo "$n"
}

case "${1:-}" in
setup | cleanup) ;;
*)
	echo "usage: slurm-suite.sh setup|cleanup" >&2
	exit 2
	;;
esac
if ! command -v slurmctld >/dev/null 2>&1 && [ ! -x /usr/sbin/slurmctld ]; then
	exit 0
fi
[ "$(id -u)" -eq 0 ] || exit 0

if [ "$1" = setup ]; then
	[ -d "$dir" ] || { mkdir -p "$dir" && touch "$dir/suite-created"; } || exit 1
	mkdir -p "$suites" || exit 1
	exec 8>"$suites/.lock"
	flock 8
	if [ "$(live_leases)" -eq 0 ] && ! cluster_up; then
		# down and no suite holds it: whatever comes up now is the suites' to stop
		touch "$dir/suite-owned"
	fi
	echo "$PWD" >"$suites/$suite"
	if [ -e "$dir/suite-owned" ]; then
		say "lease $suite; the suites stop the cluster in $dir when the last one ends"
	else
		say "lease $suite; the cluster in $dir was up before the suite and stays up"
	fi
	exit 0
fi

[ -d "$suites" ] || exit 0
exec 8>"$suites/.lock"
flock 8
rm -f "$suites/$suite"
left=$(live_leases)
if [ "$left" -gt 0 ]; then
	say "$left other suite(s) still hold the cluster in $dir: left up"
	exit 0
fi
if [ ! -e "$dir/suite-owned" ]; then
	say "the cluster in $dir was up before the suite: left as it was"
	exit 0
fi
# stopped under the lock: a suite starting meanwhile must not take the cluster for someone else's
purge=
[ -e "$dir/suite-created" ] && purge=--purge
"$here/slurm-down.sh" $purge
rc=$?
rm -f "$dir/suite-owned"
[ -z "$purge" ] && rm -rf "$suites"
exit "$rc"
