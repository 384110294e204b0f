/*
 * The run's child: pytest's argv and the edits of its environment, from the run context.
 * The same child serves a run, --dry-run (which prints it), doctor's probes and a batch's
 * worker, so that each sees FlagGems exactly as a run does.
 */
#include <stdlib.h>
#include <string.h>

#include "zlbench/cachedir.h"
#include "zlbench/env.h"
#include "zlbench/fsutil.h"
#include "zlbench/run.h"
#include "zlbench/tunercache.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* Variables only zlbench itself reads, holding credentials: removed from the child's environment. */
static const char *child_secrets[] = { "ZL_PUSH_TOKEN", "ZL_PUSH_URL", NULL };

static void child_argv(const struct zl_run_ctx *c, struct strvec *argv)
{
	const struct zl_settings *s = c->s;
	const struct zl_preflight *pf = c->pf;
	const char *dir = zl_run_ctx_dir(c);
	char *results = zl_path_join(dir ? dir : ".", "results.json");
	size_t i;

	strvec_push(argv, pf->python_path ? pf->python_path : s->python);
	strvec_pushv(argv, (const char *[]){ "-m", "pytest", NULL });
	strvec_pushv(argv, pf->nodes.nodes.v);
	if (pf->nodes.marker)
		strvec_pushv(argv, (const char *[]){ "-m", pf->nodes.marker, NULL });
	for (i = 0; i < c->plan.plugins.nr; i++)
		strvec_pushv(argv, (const char *[]){ "-p", c->plan.plugins.v[i], NULL });
	strvec_pushv(argv, (const char *[]){ "--level", s->level, "--mode", "kernel", "--record", "json",
					     "--output", results, "-s", NULL });
	if (s->shape_mode_file)
		strvec_pushv(argv, (const char *[]){ "--shape_file", s->shape_file, NULL });
	strvec_pushv(argv, s->passthrough.v);
	free(results);
}

/* Pin the devices through the backend's own variable; no other vendor's variable survives. */
static void pin_devices(const struct zl_settings *s, struct strvec *env)
{
	const struct zl_backend *b;
	struct strbuf devs = STRBUF_INIT;
	size_t i;

	for (i = 0; i < s->devices.nr; i++)
		strbuf_addf(&devs, "%s%s", i ? "," : "", s->devices.v[i]);
	for (b = zl_backend_table; b->name; b++) {
		const char *const *x;

		if (b != s->backend)
			strvec_push(env, b->visibility_var);
		for (x = b->extra_visibility_vars; x && *x; x++)
			if (strcmp(*x, s->backend->visibility_var))
				strvec_push(env, *x);
	}
	strvec_pushf(env, "%s=%s", s->backend->visibility_var, devs.buf);
	strvec_pushv(env, (const char **)s->backend->pin_env);
	strbuf_release(&devs);
}

/* What the plugins are told: the run directory, the backend, the timer plan, autotune. */
static void plugin_env(const struct zl_run_ctx *c, struct strvec *env)
{
	const struct zl_settings *s = c->s;
	const char *dir = zl_run_ctx_dir(c);

	strvec_pushf(env, "ZL_RUN_DIR=%s", dir ? dir : "");
	strvec_pushf(env, "ZL_BACKEND=%s", s->backend->name);
	strvec_pushf(env, "ZL_EXPECTED_VENDOR=%s", s->backend->vendor_name);
	strvec_pushf(env, "ZL_VENDOR_MODULE=%s", s->backend->vendor_module);
	strvec_pushf(env, "ZL_TIMER_PLAN=%s", c->plan.timer);
	strvec_pushf(env, "ZL_NOISE_TARGET=%g", c->plan.noise_target);
	strvec_pushf(env, "ZL_NOISE_TARGET_PINNED=%d", c->plan.noise_target_pinned);
	strvec_pushf(env, "ZL_MAX_TIME_PER_SHAPE=%g", c->plan.max_time_per_shape_s);
	strvec_pushf(env, "ZL_CLOCK_SOURCE=%s", c->plan.clock_source);
	strvec_pushf(env, "ZL_DIRECT_REPEAT=%ld", s->direct_repeat);
	if (s->autotune_records)
		strvec_pushf(env, "ZL_AUTOTUNE_MODE=%s", s->replay_from ? "replay" : "record");
	else
		strvec_push(env, "ZL_AUTOTUNE_MODE"); /* not inherited: the plugin is not loaded */
	if (s->replay_from) {
		strvec_pushf(env, "ZL_REPLAY_FROM=%s", s->replay_from);
		strvec_pushf(env, "ZL_REPLAY_MISS=%s", s->replay_miss);
	} else {
		strvec_push(env, "ZL_REPLAY_FROM");
		strvec_push(env, "ZL_REPLAY_MISS");
	}
}

static void child_env(const struct zl_run_ctx *c, struct strvec *env)
{
	const char *old_pp = zl_env(ZL_ENV_PYTHONPATH);
	char *src = zl_path_join(c->s->flaggems_dir, "src");

	/* the plugins and the FlagGems under test come first, not whatever is installed */
	if (old_pp)
		strvec_pushf(env, "PYTHONPATH=%s:%s:%s", c->plugins_dir, src, old_pp);
	else
		strvec_pushf(env, "PYTHONPATH=%s:%s", c->plugins_dir, src);
	strvec_push(env, "PYTHONUNBUFFERED=1");
	/* zlbench's own credentials: FlagGems and plugin code could read or log them */
	strvec_pushv(env, child_secrets);
	pin_devices(c->s, env);
	plugin_env(c, env);
	zl_cache_dir_env(ZL_CACHE_FLAGGEMS, c->f.isolated_flaggems_cache, env);
	/* libtuner would use that database instead of the isolated cache */
	if (c->s->isolate && zl_tuner_db_url_set())
		strvec_push(env, ZL_TUNER_DB_URL_VAR);
	zl_cache_dir_env(ZL_CACHE_TRITON, c->f.isolated_triton_cache, env);
	free(src);
}

void zl_run_build_child(const struct zl_run_ctx *c, struct strvec *argv, struct strvec *env)
{
	child_argv(c, argv);
	child_env(c, env);
}
