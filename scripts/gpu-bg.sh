#!/bin/bash
# A GPU validation session longer than one device call (docs/validation.md): the device tool
# runs a command for at most 10 minutes and releases an idle machine after 30 s, so a long
# phase is started in the background and waited on by the calls that follow, each of which
# packs what is there so far into $OUT/res.tgz.
# usage: scripts/gpu-bg.sh start SPEC...   copy the repository to $work/app, start
#                                          scripts/gpu-session.sh SPEC... there (setsid), wait
#        scripts/gpu-bg.sh wait            wait on the session started before
# Both wait at most WAIT_S seconds (default 540) for the session to end, then pack $work/res,
# the session's log and whether it ended. The machine must stay the same between the calls
# (chain them: a call more than 30 s after the last one gets a fresh machine).
set -u
work=${ZL_GPU_WORK:-/tmp/zlgpu}
: "${OUT:?OUT: the folder whose files come back}"
mode=${1:-}
shift || true
case $mode in
start)
	mkdir -p "$work/app" "$work/res"
	rm -f "$work/bg.done"
	# the device tool replaces the working tree between calls: the session runs from a copy
	tar -cf - --exclude=./.git --exclude='./build*' --exclude=./.gpu/build-rel --exclude=./.gpu/w5 \
		--exclude=./.gpu/w6 . | tar -xf - -C "$work/app" || exit 1
	(
		cd "$work/app" || exit 1
		# shellcheck disable=SC2016 # expanded by the inner shell
		setsid nohup bash -c 'OUT=$1/bgout bash scripts/gpu-session.sh "${@:2}"; echo $? >"$1/bg.done"' \
			_ "$work" "$@" >"$work/bg.log" 2>&1 </dev/null &
	)
	mkdir -p "$work/bgout"
	;;
wait) ;;
*)
	echo "usage: scripts/gpu-bg.sh start SPEC... | wait" >&2
	exit 2
	;;
esac
end=$(($(date +%s) + ${WAIT_S:-540}))
while [ ! -e "$work/bg.done" ] && [ "$(date +%s)" -lt "$end" ]; do
	sleep 5
done
if [ -e "$work/bg.done" ]; then
	echo "session ended: rc $(cat "$work/bg.done")"
else
	echo "session still running after ${WAIT_S:-540} s"
fi
cp "$work/bg.log" "$work/res/bg.log" 2>/dev/null
tail -n 30 "$work/bg.log"
tar -czf "$OUT/res.tgz" -C "$work" res 2>/dev/null
ls -la "$OUT"
