#!/bin/bash
# One device call of a GPU validation session (docs/validation.md), run on the GPU machine from
# the repository root: unpacks the carried FlagGems and SQLAlchemy copies, points zlbench at
# them, runs the given scripts/gpu-wave.sh phases one after another, each under its share of
# the call's deadline, and packs every phase's directory into $OUT/res.tgz (the device tool
# brings back only a few files).
# usage: scripts/gpu-session.sh PHASE[@NAME][:SECONDS]...  (results in res/NAME, default PHASE)
# Carried (ignored through .git/info/exclude, named in the call's carry list): .gpu/bin (a
# Release zlbench and the libcjson.so.1 the image lacks), .gpu/fg.tgz (FlagGems' src/flag_gems,
# benchmark/, conf/, pytest.ini as one git commit, so that runs name a FlagGems commit),
# .gpu/py.tgz (SQLAlchemy's lib/sqlalchemy at rel_2_0_48, which FlagGems needs).
# scripts/gpu-bundle.sh builds all three here.
set -u
root=$(pwd)
work=${ZL_GPU_WORK:-/tmp/zlgpu}
: "${OUT:?OUT: the folder whose files come back}"
mkdir -p "$work/res"
[ -d "$work/fg" ] || tar -xzf .gpu/fg.tgz -C "$work" || exit 1
[ -d "$work/py" ] || tar -xzf .gpu/py.tgz -C "$work" || exit 1
export FLAGGEMS_DIR=$work/fg ZLBENCH=$root/.gpu/bin/zlbench ZL_PLUGINS_DIR=$root/plugins
export LD_LIBRARY_PATH=$root/.gpu/bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONPATH=$work/py${PYTHONPATH:+:$PYTHONPATH}
export ZL_PYTHON=${ZL_PYTHON:-$(command -v python3)}
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
	"$ZLBENCH" --version
	python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
} >"$work/res/session.txt" 2>&1
cat "$work/res/session.txt"
for spec in "$@"; do
	phase=${spec%%:*}
	secs=${spec#*:}
	[ "$secs" = "$spec" ] && secs=540
	# PHASE@NAME: the phase's results go to res/NAME (a phase run twice in one session)
	name=${phase#*@}
	phase=${phase%%@*}
	# a warm machine keeps the last call's results (already sent back): a phase starts empty,
	# or AA finds the last calibration and measures nothing (wave 15)
	rm -rf "${work:?}/res/$name"
	DEADLINE_S=$secs bash scripts/gpu-wave.sh "$phase" "$work/res/$name"
done
# history databases and the demo's caches are small; tuner caches stay behind
tar -czf "$OUT/res.tgz" -C "$work" res 2>/dev/null
ls -la "$OUT"
