#!/bin/bash
# A test run leaves the machine as it found it: the suite's "slurm" fixture
# (scripts/slurm-suite.sh) stops the one-node cluster that the suite brought up, and leaves
# alone one that was up before the suite. Checked with a nested ctest (t1000 and the fixture)
# on a private cluster, its own directory and ports, so the suite's own cluster is untouched.
. "$(dirname "$0")/lib.sh"
: "${ZL_BUILD_DIR:?ZL_BUILD_DIR must name the build directory under test}"

if [ "$(id -u)" -ne 0 ] || { ! command -v slurmctld >/dev/null 2>&1 && [ ! -x /usr/sbin/slurmctld ]; }; then
	[ "${CI:-}" = true ] && fail "needs root and Slurm's packages in CI (scripts/deps.sh installs them)"
	echo "skip [$TEST_NAME]: needs root and Slurm's packages (slurm-wlm, munge)"
	exit 0
fi
PATH=$PATH:/usr/sbin

# Under /tmp, not $TMP: slurmctld runs as user slurm, and $TMP is root's alone.
ZL_SLURM_DIR=$(mktemp -u /tmp/zl-slurm-t1090.XXXXXX)
read -r ZL_SLURM_CTLD_PORT ZL_SLURM_SLURMD_PORT < <("$ZL_TEST_PYTHON" -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("", 0))
print(*[x.getsockname()[1] for x in s])')
export ZL_SLURM_DIR ZL_SLURM_CTLD_PORT ZL_SLURM_SLURMD_PORT
trap '"$ZL_SOURCE_DIR/scripts/slurm-down.sh" --purge >/dev/null 2>&1; rm -rf "$TMP"' EXIT

# The private cluster's processes (daemons, job steps): their environment names its slurm.conf.
# This shell never exports that SLURM_CONF, so it does not count itself.
cluster_pids() {
	local p
	for p in /proc/[0-9]*; do
		tr '\0' '\n' <"$p/environ" 2>/dev/null | grep -qxF "SLURM_CONF=$ZL_SLURM_DIR/etc/slurm.conf" &&
			echo "${p##*/}"
	done | sort -n | tr '\n' ' '
}

# nested_suite NAME: ctest of t1000 (with the fixture it requires) in a test directory of
# its own, so that this ctest's logs are not the outer suite's
nested_suite() {
	mkdir -p "$TMP/ct-$1"
	echo "subdirs(\"$ZL_BUILD_DIR/tests\")" >"$TMP/ct-$1/CTestTestfile.cmake"
	ctest --test-dir "$TMP/ct-$1" -R '^cli/t1000-' --output-on-failure >"$TMP/ctest-$1.log" 2>&1 ||
		{ cat "$TMP/ctest-$1.log" >&2; fail "the nested suite ($1) failed"; }
	# the cluster was up during it (t1000 passes only then) and the fixture ran around it
	for t in slurm/setup cli/t1000-slurm-cluster slurm/cleanup; do
		grep -qE "Test +#[0-9]+: $t \.+ +Passed" "$TMP/ctest-$1.log" ||
			{ cat "$TMP/ctest-$1.log" >&2; fail "nested suite ($1): $t did not pass"; }
	done
}

munged_before=$(pgrep -x munged | sort -n | tr '\n' ' ')

# 1. No cluster before the suite: none after it, and its directory is gone.
[ -z "$(cluster_pids)" ] || fail "the private cluster runs already: $(cluster_pids)"
nested_suite down
left=$(cluster_pids)
[ -z "$left" ] || fail "the suite left its cluster running: $(ps -o pid=,comm= -p "$(echo $left | tr ' ' ,)" | tr '\n' ';')"
[ ! -e "$ZL_SLURM_DIR" ] || fail "the suite left $ZL_SLURM_DIR behind: $(ls -A "$ZL_SLURM_DIR")"
[ ! -e "$ZL_SLURM_DIR.lock" ] || fail "the suite left $ZL_SLURM_DIR.lock behind"
# a munged that ran before stays; one the suite started (none ran) is gone
[ "$(pgrep -x munged | sort -n | tr '\n' ' ')" = "$munged_before" ] ||
	fail "munged before the suite: '$munged_before', after: '$(pgrep -x munged | tr '\n' ' ')'"

# 2. A cluster that was up before the suite stays up, the same daemons.
"$ZL_SOURCE_DIR/scripts/slurm-up.sh" >/dev/null 2>"$TMP/up.err" || { cat "$TMP/up.err" >&2; fail "slurm-up.sh failed"; }
ctld=$(cat "$ZL_SLURM_DIR/run/slurmctld.pid") slurmd=$(cat "$ZL_SLURM_DIR/run/slurmd.pid")
nested_suite up
kill -0 "$ctld" 2>/dev/null || fail "the suite stopped slurmctld ($ctld), which ran before it"
kill -0 "$slurmd" 2>/dev/null || fail "the suite stopped slurmd ($slurmd), which ran before it"
[ "$(cat "$ZL_SLURM_DIR/run/slurmctld.pid") $(cat "$ZL_SLURM_DIR/run/slurmd.pid")" = "$ctld $slurmd" ] ||
	fail "the suite restarted the cluster that ran before it"
pass
