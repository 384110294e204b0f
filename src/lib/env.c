/*
 * The environment table (env.h): one row a variable, and the one getenv() of the program.
 * The defaults written here that are numbers of the code (push's backoff, Slurm's poll and
 * command timeout, the kill grace) are checked against it by tests/unit/test_env.c. A
 * variable that is an option's default (ZL_START of batch --start) leaves its default to
 * the option row, which the parser reads it for.
 */
#include <stdlib.h>
#include <string.h>

#include "zlbench/env.h"
#include "zlbench/banned.h"

#define OWN(id_, name_, meaning_, default_) \
	[id_] = { .id = id_, .name = name_, .group = ZL_ENVG_OWN, .meaning = meaning_, .default_doc = default_ }
#define FOREIGN(id_, name_, meaning_, default_) \
	[id_] = { .id = id_, .name = name_, .group = ZL_ENVG_FOREIGN, .meaning = meaning_, .default_doc = default_ }
#define INTERNAL(id_, name_, meaning_) \
	[id_] = { .id = id_, .name = name_, .group = ZL_ENVG_INTERNAL, .meaning = meaning_ }
#define CHILD(id_, name_, meaning_) \
	[id_] = { .id = id_, .name = name_, .group = ZL_ENVG_CHILD, .meaning = meaning_ }

const struct zl_env_def zl_env_defs[ZL_ENV__COUNT] = {
	OWN(ZL_ENV_HOME, "ZL_HOME", "zlbench's data directory: history.db, spool/ (push), cache/",
	    "$XDG_DATA_HOME/zlbench, else ~/.local/share/zlbench"),
	OWN(ZL_ENV_HISTORY_DB, "ZL_HISTORY_DB", "the history database of every command (a command's --db wins)",
	    "$ZL_HOME/history.db"),
	OWN(ZL_ENV_NO_HISTORY, "ZL_NO_HISTORY", "anything but 0: runs are not stored in the history database",
	    "stored"),
	OWN(ZL_ENV_PLUGINS_DIR, "ZL_PLUGINS_DIR", "the pytest plugins a run loads (zlbench --version names them)",
	    "found from the binary: its source tree, the install layout, beside it"),
	OWN(ZL_ENV_KILL_GRACE, "ZL_KILL_GRACE", "seconds between SIGTERM and SIGKILL when a child is stopped (>= 0)",
	    "10"),
	OWN(ZL_ENV_QUERY_TIMEOUT, "ZL_QUERY_TIMEOUT", "seconds a vendor's query tool may run (> 0)", "10"),
	OWN(ZL_ENV_DEV_ROOT, "ZL_DEV_ROOT", "where device nodes are looked for", "/dev"),
	OWN(ZL_ENV_PUSH_URL, "ZL_PUSH_URL", "the collector runs are POSTed to; never passed to pytest", NULL),
	OWN(ZL_ENV_PUSH_TOKEN, "ZL_PUSH_TOKEN", "the collector's bearer token; never printed, written or passed to pytest",
	    NULL),
	OWN(ZL_ENV_PUSH_BACKOFF_MS, "ZL_PUSH_BACKOFF_MS", "milliseconds before push's first retry, doubled each retry "
	    "(0 to 60000)", "500"),
	OWN(ZL_ENV_CURL_LIB, "ZL_CURL_LIB", "the libcurl push loads (a path or a soname)",
	    "libcurl.so.4, else libcurl-gnutls.so.4, else libcurl.so"),
	OWN(ZL_ENV_START, "ZL_START", "how a batch starts each operator's Python: worker or fresh", NULL),
	OWN(ZL_ENV_PARALLEL_WARMUP_GPUS, "PARALLEL_WARMUP_GPUS", "warm-up shards per operator of a batch", NULL),
	OWN(ZL_ENV_WORKER_MEM_SLACK_MIB, "ZL_WORKER_MEM_SLACK_MIB", "device memory (MiB) an operator may leave "
	    "allocated before its batch worker retires", "256"),
	OWN(ZL_ENV_DOCTOR_TIMEOUT, "ZL_DOCTOR_TIMEOUT", "seconds each doctor step that starts Python may take", NULL),
	OWN(ZL_ENV_SLURM_POLL, "ZL_SLURM_POLL", "seconds between a Slurm batch's looks at its tasks", "1"),
	OWN(ZL_ENV_SLURM_TIMEOUT, "ZL_SLURM_TIMEOUT", "seconds sbatch, scontrol and scancel may take", "30"),

	FOREIGN(ZL_ENV_NO_COLOR, "NO_COLOR", "set and not empty: no colour (colour is used only on a terminal)", NULL),
	FOREIGN(ZL_ENV_TERM, "TERM", "dumb or empty: no colour", NULL),
	FOREIGN(ZL_ENV_COLUMNS, "COLUMNS", "the width the tables for people fit", "the terminal's width, else 80"),
	FOREIGN(ZL_ENV_TMPDIR, "TMPDIR", "where temporary files and directories go", "/tmp"),
	FOREIGN(ZL_ENV_HOME_DIR, "HOME", "the defaults of ZL_HOME and of the caches below", NULL),
	FOREIGN(ZL_ENV_XDG_DATA_HOME, "XDG_DATA_HOME", "ZL_HOME's default is $XDG_DATA_HOME/zlbench",
	    "~/.local/share"),
	FOREIGN(ZL_ENV_PATH, "PATH", "where the Python interpreter, the vendors' query tools and Slurm's "
		"commands are found", NULL),
	FOREIGN(ZL_ENV_PYTHONPATH, "PYTHONPATH", "kept in the child's, after the plugins and <flaggems>/src", NULL),
	FOREIGN(ZL_ENV_PYTHONHOME, "PYTHONHOME", "part of the key of the cached interpreter probe", NULL),
	FOREIGN(ZL_ENV_VIRTUAL_ENV, "VIRTUAL_ENV", "part of the key of the cached interpreter probe", NULL),
	FOREIGN(ZL_ENV_PYTEST_ADDOPTS, "PYTEST_ADDOPTS", "checked like the words after '--' (what zlbench passes "
		"itself is refused), then passed on", NULL),
	FOREIGN(ZL_ENV_FLAGGEMS_CACHE_DIR, "FLAGGEMS_CACHE_DIR", "FlagGems' tuner cache, which a run counts "
		"(--isolate-tuner-cache gives the run a fresh one)", "~/.flaggems"),
	FOREIGN(ZL_ENV_TRITON_CACHE_DIR, "TRITON_CACHE_DIR", "Triton's kernel cache, which a run counts", "~/.triton/cache"),
	FOREIGN(ZL_ENV_FLAGGEMS_DB_URL, "FLAGGEMS_DB_URL", "FlagGems' tuner database: not counted; removed from an "
		"isolated run's child", NULL),
	FOREIGN(ZL_ENV_SLURM_JOB_ID, "SLURM_JOB_ID", "a Slurm task's job (recorded)", NULL),
	FOREIGN(ZL_ENV_SLURM_ARRAY_JOB_ID, "SLURM_ARRAY_JOB_ID", "a Slurm task's array job (recorded)", NULL),
	FOREIGN(ZL_ENV_SLURM_ARRAY_TASK_ID, "SLURM_ARRAY_TASK_ID", "which operator of the batch a Slurm task runs",
		NULL),
	FOREIGN(ZL_ENV_SLURMD_NODENAME, "SLURMD_NODENAME", "a Slurm task's node (recorded)", NULL),
	FOREIGN(ZL_ENV_SLURM_JOB_PARTITION, "SLURM_JOB_PARTITION", "a Slurm task's partition (recorded)", NULL),
	FOREIGN(ZL_ENV_SLURM_STEP_GPUS, "SLURM_STEP_GPUS", "the GPUs Slurm granted a task's step", NULL),
	FOREIGN(ZL_ENV_SLURM_JOB_GPUS, "SLURM_JOB_GPUS", "the GPUs Slurm granted a task's job", NULL),

	INTERNAL(ZL_ENV_SCHEDULER, "ZL_SCHEDULER", "a batch's or Slurm task's account of a run (identity: scheduler)"),
	INTERNAL(ZL_ENV_WARMUP, "ZL_WARMUP", "a timed run's warm-up shards (identity: warmup)"),
	INTERNAL(ZL_ENV_WARMUP_SHARD, "ZL_WARMUP_SHARD", "i/k: a warm-up shard run keeps that share of the shapes"),
	INTERNAL(ZL_ENV_WORKER_SERVE, "ZL_WORKER_SERVE", "a run that becomes a batch's worker serves on this socket"),
	INTERNAL(ZL_ENV_WORKER_SOCKET, "ZL_WORKER_SOCKET", "a batch's run hands its pytest session to this worker"),
	INTERNAL(ZL_ENV_WORKER_READY_FD, "ZL_WORKER_READY_FD", "where a worker says it is ready"),
	INTERNAL(ZL_ENV_WORKER_PARENT, "ZL_WORKER_PARENT", "the batch a worker ends with"),

	CHILD(ZL_ENV_RUN_DIR, "ZL_RUN_DIR", "the run directory the plugins write under"),
	CHILD(ZL_ENV_EXPECTED_VENDOR, "ZL_EXPECTED_VENDOR", "the vendor FlagGems must detect (the vendor guard)"),
	CHILD(ZL_ENV_VENDOR_MODULE, "ZL_VENDOR_MODULE", "the backend's FlagGems vendor module"),
	CHILD(ZL_ENV_TIMER_PLAN, "ZL_TIMER_PLAN", "the timer plan: profiler, graph or direct"),
	CHILD(ZL_ENV_NOISE_TARGET_PINNED, "ZL_NOISE_TARGET_PINNED", "1: the noise target was given, and every size "
	      "class samples to it; 0: a short kernel may stop sooner"),
	CHILD(ZL_ENV_CLOCK_SOURCE, "ZL_CLOCK_SOURCE", "where the SM clock is read (the backend row's)"),
	CHILD(ZL_ENV_AUTOTUNE_MODE, "ZL_AUTOTUNE_MODE", "record or replay the tuners' winners"),
	CHILD(ZL_ENV_REPLAY_FROM, "ZL_REPLAY_FROM", "the run whose autotune records are replayed"),
	CHILD(ZL_ENV_REPLAY_MISS, "ZL_REPLAY_MISS", "what replay does with a key the records lack: fail or tune"),
	CHILD(ZL_ENV_DOCTOR_MODE, "ZL_DOCTOR_MODE", "what doctor's plugin does: collect or probe"),
};

const char *zl_env_raw_by_name(const char *name)
{
	return getenv(name);
}

const char *zl_env_by_name(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

const char *zl_env_raw(enum zl_env_id id)
{
	return getenv(zl_env_defs[id].name);
}

const char *zl_env(enum zl_env_id id)
{
	return zl_env_by_name(zl_env_defs[id].name);
}

const char *zl_env_name(enum zl_env_id id)
{
	return zl_env_defs[id].name;
}

const struct zl_env_def *zl_env_find(const char *name)
{
	size_t i;

	for (i = 0; i < ZL_ENV__COUNT; i++)
		if (!strcmp(zl_env_defs[i].name, name))
			return &zl_env_defs[i];
	return NULL;
}
