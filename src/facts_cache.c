/* Adapters from the run's facts to the tuner-cache and compile-cache modules. */
#include <stdlib.h>
#include <string.h>

#include "zlbench/compilestats.h"
#include "zlbench/facts.h"
#include "zlbench/tunercache.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

static void replace_note(char **note, const struct strvec *notes)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	if (!notes->nr)
		return;
	for (i = 0; i < notes->nr; i++)
		strbuf_addf(&sb, "%s%s", i ? "; " : "", notes->v[i]);
	free(*note);
	*note = strbuf_detach(&sb, NULL);
}

void zl_tuner_facts(const char *cache_dir, const char *vendor, long *winners, long *configs, char **note)
{
	struct zl_tuner_stats st = ZL_TUNER_STATS_INIT;

	/* a missing or locked DB is a note, never fatal */
	zl_tuner_count_dir(cache_dir, vendor, ZL_TUNER_BUSY_MS, &st);
	*winners = st.winners;
	*configs = st.benchmarked;
	replace_note(note, &st.notes);
	zl_tuner_stats_release(&st);
}

struct zl_compile_snapshot *zl_compile_facts_snapshot(const char *triton_cache)
{
	struct zl_compile_snapshot *snap = xcalloc(1, sizeof(*snap));
	struct strbuf err = STRBUF_INIT;

	strvec_init(&snap->names);
	if (zl_compile_snapshot(triton_cache, snap, &err)) {
		/* without a snapshot every cached variant would look new: report unknown instead */
		zl_compile_snapshot_release(snap);
		free(snap);
		snap = NULL;
	}
	strbuf_release(&err);
	return snap;
}

void zl_compile_facts(const char *triton_cache, const struct zl_compile_snapshot *snap,
		      long *variants, long *convert_layout, char **note)
{
	struct zl_compile_stats st = ZL_COMPILE_STATS_INIT;
	struct strbuf err = STRBUF_INIT;

	if (zl_compile_stats(triton_cache, snap, &st, &err)) {
		*variants = *convert_layout = -1;
		free(*note);
		*note = strbuf_detach(&err, NULL);
	} else {
		*variants = st.variants;
		*convert_layout = st.convert_layout;
		replace_note(note, &st.notes);
	}
	zl_compile_stats_release(&st);
	strbuf_release(&err);
}

void zl_compile_facts_free(struct zl_compile_snapshot *snap)
{
	if (!snap)
		return;
	zl_compile_snapshot_release(snap);
	free(snap);
}
