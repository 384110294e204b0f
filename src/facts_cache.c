/* Adapters from the run's facts to the tuner-cache and compile-cache modules. */
#include <stdlib.h>
#include "zlbench/facts.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

void zl_tuner_facts(const char *cache_dir, const char *vendor, long *winners, long *configs, char **note)
{
	(void)cache_dir; (void)vendor;
	*winners = -1;
	*configs = -1;
	free(*note);
	*note = xstrdup("tuner cache not inspected yet");
}

struct zl_compile_snapshot *zl_compile_facts_snapshot(const char *triton_cache)
{
	(void)triton_cache;
	return NULL;
}

void zl_compile_facts(const char *triton_cache, const struct zl_compile_snapshot *snap,
		      long *variants, long *convert_layout, char **note)
{
	(void)triton_cache; (void)snap;
	*variants = *convert_layout = -1;
	free(*note);
	*note = xstrdup("compile stats not collected yet");
}

void zl_compile_facts_free(struct zl_compile_snapshot *snap)
{
	(void)snap;
}
