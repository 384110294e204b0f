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

static struct zl_tuner_table_count *find_table(struct zl_run_facts *f, const struct zl_tuner_table *t)
{
	size_t i;

	for (i = 0; i < f->nr_tuner_tables; i++)
		if (!strcmp(f->tuner_tables[i].db, t->db) && !strcmp(f->tuner_tables[i].name, t->name))
			return &f->tuner_tables[i];
	return NULL;
}

/* Was database db there but not counted (or the whole directory unreadable)? */
static int unread_at(const struct strvec *unread, int dir_unread, const char *db)
{
	return dir_unread || strvec_find(unread, db) >= 0;
}

void zl_tuner_facts(struct zl_run_facts *f, const char *vendor, int after)
{
	struct zl_tuner_stats st = ZL_TUNER_STATS_INIT;
	int incomplete;
	size_t i;

	/* a missing or locked DB is a note, never fatal */
	zl_tuner_count_dir(f->flaggems_cache, vendor, ZL_TUNER_BUSY_MS, &st);
	/* a database that is there but was not counted makes the total unknown, never 0 */
	incomplete = zl_tuner_stats_incomplete(&st);
	*(after ? &f->winners_after : &f->winners_before) = incomplete ? -1 : st.winners;
	*(after ? &f->configs_after : &f->configs_before) = incomplete ? -1 : st.benchmarked;
	/* the note describes this count: one from before the run would be stale afterwards */
	free(f->tuner_note);
	f->tuner_note = NULL;
	replace_note(&f->tuner_note, &st.notes);
	free(*(after ? &f->tuner_note_after : &f->tuner_note_before));
	*(after ? &f->tuner_note_after : &f->tuner_note_before) = f->tuner_note ? xstrdup(f->tuner_note) : NULL;
	if (!after) {
		strvec_clear(&f->tuner_unread_before);
		strvec_pushv(&f->tuner_unread_before, st.unread_dbs.v);
		f->tuner_dir_unread_before = st.dir_unread;
	}
	for (i = 0; i < f->nr_tuner_tables && after; i++)
		f->tuner_tables[i].after = unread_at(&st.unread_dbs, st.dir_unread, f->tuner_tables[i].db) ? -1 : 0;
	for (i = 0; i < st.nr; i++) {
		const struct zl_tuner_table *t = &st.tables[i];
		struct zl_tuner_table_count *c;

		if (t->kind != ZL_TUNER_WINNERS)
			continue;
		if (!(c = find_table(f, t))) {
			ALLOC_GROW(f->tuner_tables, f->nr_tuner_tables + 1, f->alloc_tuner_tables);
			c = &f->tuner_tables[f->nr_tuner_tables++];
			c->db = xstrdup(t->db);
			c->name = xstrdup(t->name);
			/* first seen now: absent at the start holds 0, unread at the start is unknown */
			c->before = after && unread_at(&f->tuner_unread_before, f->tuner_dir_unread_before, t->db) ? -1 : 0;
			c->after = -1;
		}
		*(after ? &c->after : &c->before) = t->rows;
	}
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
