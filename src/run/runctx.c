#include <stdlib.h>
#include <string.h>

#include "zlbench/runctx.h"
#include "zlbench/banned.h"

void zl_run_ctx_init(struct zl_run_ctx *c, const struct zl_settings *s, const struct zl_preflight *pf)
{
	struct zl_plan plan = ZL_PLAN_INIT;

	memset(c, 0, sizeof(*c));
	c->s = s;
	c->pf = pf;
	c->plan = plan;
	zl_plan_make(s, &c->plan);
	c->plugins_dir = zl_plugins_dir();
	strvec_init(&c->child_argv);
	strvec_init(&c->child_env);
	zl_run_facts_init(&c->f);
}

void zl_run_ctx_release(struct zl_run_ctx *c)
{
	zl_run_facts_release(&c->f);
	strvec_clear(&c->child_argv);
	strvec_clear(&c->child_env);
	free(c->run_dir);
	free(c->plugins_dir);
	zl_plan_release(&c->plan);
	memset(c, 0, sizeof(*c));
}

const char *zl_run_ctx_dir(const struct zl_run_ctx *c)
{
	return c->run_dir ? c->run_dir : c->pf->out_dir;
}
