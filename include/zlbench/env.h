/*
 * The environment table: every variable zlbench reads, or sets for the processes it starts,
 * declared once with its meaning and default (after git's `git help --config`), and the only
 * place that calls getenv(). A run setting's variable is declared by its settings row
 * (settings.h: zl_setting_defs[].env) and a backend's visibility variables by its backend row
 * (backend.h); every other one has a row here. An option row's .env names one of these
 * (options.h). `zlbench help environment` and the man page's ENVIRONMENT section render from
 * the three tables (src/cmd/topics.c).
 *
 * An empty variable is unset: zl_env() and zl_env_by_name() return NULL for it; the _raw
 * forms return what the environment holds, for the few readers that tell them apart (an
 * empty visibility variable hides every device). The strings belong to the environment.
 */
#ifndef ZLBENCH_ENV_H
#define ZLBENCH_ENV_H

enum zl_env_id {
	/* zlbench's own */
	ZL_ENV_HOME,
	ZL_ENV_HISTORY_DB,
	ZL_ENV_NO_HISTORY,
	ZL_ENV_PLUGINS_DIR,
	ZL_ENV_KILL_GRACE,
	ZL_ENV_QUERY_TIMEOUT,
	ZL_ENV_DEV_ROOT,
	ZL_ENV_PUSH_URL,
	ZL_ENV_PUSH_TOKEN,
	ZL_ENV_PUSH_BACKOFF_MS,
	ZL_ENV_CURL_LIB,
	ZL_ENV_START,
	ZL_ENV_PARALLEL_WARMUP_GPUS,
	ZL_ENV_WORKER_MEM_SLACK_MIB,
	ZL_ENV_DOCTOR_TIMEOUT,
	ZL_ENV_SLURM_POLL,
	ZL_ENV_SLURM_TIMEOUT,
	/* others', read */
	ZL_ENV_NO_COLOR,
	ZL_ENV_TERM,
	ZL_ENV_COLUMNS,
	ZL_ENV_TMPDIR,
	ZL_ENV_HOME_DIR,
	ZL_ENV_XDG_DATA_HOME,
	ZL_ENV_PATH,
	ZL_ENV_PYTHONPATH,
	ZL_ENV_PYTHONHOME,
	ZL_ENV_VIRTUAL_ENV,
	ZL_ENV_PYTEST_ADDOPTS,
	ZL_ENV_FLAGGEMS_CACHE_DIR,
	ZL_ENV_TRITON_CACHE_DIR,
	ZL_ENV_FLAGGEMS_DB_URL,
	ZL_ENV_SLURM_JOB_ID,
	ZL_ENV_SLURM_ARRAY_JOB_ID,
	ZL_ENV_SLURM_ARRAY_TASK_ID,
	ZL_ENV_SLURMD_NODENAME,
	ZL_ENV_SLURM_JOB_PARTITION,
	ZL_ENV_SLURM_STEP_GPUS,
	ZL_ENV_SLURM_JOB_GPUS,
	/* set by zlbench for the zlbench processes it starts (a batch's runs, a worker) */
	ZL_ENV_SCHEDULER,
	ZL_ENV_WARMUP,
	ZL_ENV_WARMUP_SHARD,
	ZL_ENV_WORKER_SERVE,
	ZL_ENV_WORKER_SOCKET,
	ZL_ENV_WORKER_READY_FD,
	ZL_ENV_WORKER_PARENT,
	/* set by zlbench for the pytest child: its plugins read them */
	ZL_ENV_RUN_DIR,
	ZL_ENV_EXPECTED_VENDOR,
	ZL_ENV_VENDOR_MODULE,
	ZL_ENV_TIMER_PLAN,
	ZL_ENV_NOISE_TARGET_PINNED,
	ZL_ENV_CLOCK_SOURCE,
	ZL_ENV_AUTOTUNE_MODE,
	ZL_ENV_REPLAY_FROM,
	ZL_ENV_REPLAY_MISS,
	ZL_ENV_DOCTOR_MODE,
	ZL_ENV__COUNT
};

/* Who sets a variable, which is how `zlbench help environment` groups them. */
enum zl_env_group {
	ZL_ENVG_OWN,      /* zlbench's own: you set it */
	ZL_ENVG_FOREIGN,  /* another program's or the system's: zlbench reads it too */
	ZL_ENVG_INTERNAL, /* zlbench sets it for the zlbench processes it starts: not yours to set */
	ZL_ENVG_CHILD,    /* zlbench sets it for the pytest child, whose plugins read it */
};

struct zl_env_def {
	enum zl_env_id id;
	const char *name;
	enum zl_env_group group;
	const char *meaning;     /* one line; a '\n' starts a line of its own */
	const char *default_doc; /* what unset means, or NULL when it means nothing more than "off" */
};
extern const struct zl_env_def zl_env_defs[ZL_ENV__COUNT];

/* The variable's value; NULL when unset or empty. */
const char *zl_env(enum zl_env_id id);
/* As the environment holds it: NULL unset, "" empty. */
const char *zl_env_raw(enum zl_env_id id);
/* Its name ("ZL_HOME"). */
const char *zl_env_name(enum zl_env_id id);
/*
 * A variable another table declares (a run setting's, a backend row's) or a row here, by name:
 * its value, NULL when unset or empty; the _raw form as the environment holds it.
 */
const char *zl_env_by_name(const char *name);
const char *zl_env_raw_by_name(const char *name);
/* The row of a name, or NULL. */
const struct zl_env_def *zl_env_find(const char *name);

#endif
