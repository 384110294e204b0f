/*
 * Where a batch's hours went: each op's wall split by its timer_summary.json's "cost",
 * the workers' start-ups and the warm-up shards; costs.json, costs.csv and the terminal's
 * table (batch_costs.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "zlbench/batch.h"
#include "zlbench/batch_costs.h"
#include "zlbench/batch_schedule.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/json.h"
#include "zlbench/schema.h"
#include "zlbench/table.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

static const struct {
	const char *key, *title;
} parts[ZL_COST__COUNT] = {
	[ZL_COST_SESSION] = { "session_s", "session" },
	[ZL_COST_COLLECTION] = { "collection_s", "collection" },
	[ZL_COST_INPUTS] = { "inputs_s", "inputs" },
	[ZL_COST_FIRST_CALL] = { "first_call_s", "compile/autotune" },
	[ZL_COST_TIMER] = { "timer_s", "timer" },
	[ZL_COST_USE_GEMS] = { "use_gems_s", "use_gems" },
	[ZL_COST_OTHER] = { "other_s", "other" },
};

const char *zl_cost_key(enum zl_cost_part p)
{
	return p < ZL_COST__COUNT ? parts[p].key : "?";
}

const char *zl_cost_title(enum zl_cost_part p)
{
	return p < ZL_COST__COUNT ? parts[p].title : "?";
}

int zl_cost_parse(const char *text, size_t len, double v[ZL_COST__COUNT])
{
	cJSON *doc = cJSON_ParseWithLength(text, len);
	const cJSON *cost = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "cost") : NULL;
	int i, rc = cJSON_IsObject(doc) ? cJSON_IsObject(cost) : -1;

	for (i = 0; i < ZL_COST__COUNT; i++) {
		const cJSON *n = rc == 1 ? cJSON_GetObjectItemCaseSensitive(cost, parts[i].key) : NULL;

		v[i] = cJSON_IsNumber(n) && isfinite(n->valuedouble) && n->valuedouble >= 0 ? n->valuedouble : NAN;
	}
	cJSON_Delete(doc);
	return rc;
}

/* ---- worker start-ups ------------------------------------------------------------------ */

void zl_batch_startups_init(struct zl_batch_startups *s)
{
	memset(s, 0, sizeof(*s));
}

void zl_batch_startups_release(struct zl_batch_startups *s)
{
	free(s->wall);
	zl_batch_startups_init(s);
}

void zl_batch_startups_parse(const char *text, size_t len, struct zl_batch_startups *s)
{
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		cJSON *ev = cJSON_ParseWithLength(text + pos, n);
		const char *name = zl_json_path_string(ev, "event");
		const cJSON *w = zl_json_path(ev, "wall_s");

		if (name && !strcmp(name, "started"))
			s->started++;
		if (name && !strcmp(name, "ready") && cJSON_IsNumber(w) && isfinite(w->valuedouble) &&
		    w->valuedouble >= 0) {
			ALLOC_GROW(s->wall, s->nr + 1, s->alloc);
			s->wall[s->nr++] = w->valuedouble;
		}
		cJSON_Delete(ev);
		pos += n + 1;
	}
}

void zl_batch_startups_read(const char *batch_dir, struct zl_batch_startups *s)
{
	char *path = zl_path_join(batch_dir, "workers/events.jsonl");
	struct strbuf text = STRBUF_INIT;

	if (!zl_read_file(&text, path, NULL, ZL_CAP_LARGE, NULL))
		zl_batch_startups_parse(text.buf, text.len, s);
	strbuf_release(&text);
	free(path);
}

/* ---- loading ------------------------------------------------------------------------------ */

void zl_batch_costs_init(struct zl_batch_costs *k)
{
	memset(k, 0, sizeof(*k));
	zl_batch_startups_init(&k->startups);
}

void zl_batch_costs_release(struct zl_batch_costs *k)
{
	size_t i;

	for (i = 0; i < k->nr; i++) {
		free(k->v[i].op);
		free(k->v[i].status);
		free(k->v[i].run_dir);
	}
	free(k->v);
	zl_batch_startups_release(&k->startups);
	zl_batch_costs_init(k);
}

/* A row's run directory is read only when it lies below the batch directory. */
static int below(const char *rel)
{
	const char *p = rel;

	if (!rel || !*rel || *rel == '/')
		return 0;
	while (p) {
		if (!strncmp(p, "..", 2) && (p[2] == '/' || !p[2]))
			return 0;
		p = strchr(p, '/');
		if (p)
			p++;
	}
	return 1;
}

static void op_cost(const char *batch_dir, const struct zl_batch_row *r, struct zl_op_cost *o)
{
	struct strbuf text = STRBUF_INIT;
	char *path;
	double wall;
	int i;

	o->op = xstrdup(r->v[ZL_BCOL_OP]);
	o->status = r->v[ZL_BCOL_STATUS] ? xstrdup(r->v[ZL_BCOL_STATUS]) : NULL;
	o->attempt = r->v[ZL_BCOL_ATTEMPT] ? atoi(r->v[ZL_BCOL_ATTEMPT]) : 0;
	o->run_dir = r->v[ZL_BCOL_RUN_DIR] && *r->v[ZL_BCOL_RUN_DIR] ? xstrdup(r->v[ZL_BCOL_RUN_DIR]) : NULL;
	o->wall_s = r->v[ZL_BCOL_WALL_S] && !zl_parse_double(r->v[ZL_BCOL_WALL_S], &wall) && isfinite(wall) && wall >= 0
			    ? wall : NAN;
	for (i = 0; i < ZL_COST__COUNT; i++)
		o->v[i] = NAN;
	o->drew_on_device = 0;
	if (below(o->run_dir)) {
		path = xstrfmt("%s/%s/plugins/timer_summary.json", batch_dir, o->run_dir);
		if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL))
			zl_cost_parse(text.buf, text.len, o->v);
		free(path);
		path = xstrfmt("%s/%s/plugins/inputs.json", batch_dir, o->run_dir);
		o->drew_on_device = zl_is_file(path);
		free(path);
	}
	o->outside_s = NAN;
	if (!isnan(o->wall_s) && !isnan(o->v[ZL_COST_SESSION]))
		/* Slurm's times are whole seconds: the wall can come out below the session */
		o->outside_s = o->wall_s > o->v[ZL_COST_SESSION] ? o->wall_s - o->v[ZL_COST_SESSION] : 0;
	strbuf_release(&text);
}

/* Longest wall first, unknown walls last, then by name. */
static int by_wall(const void *a, const void *b)
{
	const struct zl_op_cost *x = a, *y = b;

	if (isnan(x->wall_s) != isnan(y->wall_s))
		return isnan(x->wall_s) ? 1 : -1;
	if (!isnan(x->wall_s) && x->wall_s != y->wall_s)
		return x->wall_s > y->wall_s ? -1 : 1;
	return strcmp(x->op, y->op);
}

static void add_known(double v, double *sum, size_t *unknown)
{
	if (isnan(v))
		(*unknown)++;
	else
		*sum += v;
}

static void warmup_shards(const char *batch_dir, struct zl_batch_costs *k)
{
	struct zl_schedule s;
	struct strbuf err = STRBUF_INIT;
	size_t i;

	zl_schedule_init(&s);
	if (!zl_schedule_load(batch_dir, &s, &err))
		for (i = 0; i < s.nr; i++)
			if (s.v[i].role && !strcmp(s.v[i].role, "warmup_shard") && s.v[i].end_epoch >= s.v[i].start_epoch) {
				k->shards++;
				k->shards_s += s.v[i].end_epoch - s.v[i].start_epoch;
			}
	zl_schedule_release(&s);
	strbuf_release(&err);
}

void zl_batch_costs_load(const struct zl_batch_config *c, struct zl_batch_costs *k)
{
	struct zl_batch_rows rows = ZL_BATCH_ROWS_INIT;
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	char *path = zl_path_join(c->dir, ZL_BATCH_STATUS_FILE);
	size_t i, complete;
	int p;

	if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL))
		zl_batch_rows_parse(text.buf, text.len, &rows, &complete, &err);
	for (i = 0; i < c->ops.nr; i++) {
		const struct zl_batch_row *r = zl_batch_rows_last(&rows, c->ops.v[i]);

		if (!r) {
			k->not_run++;
			continue;
		}
		ALLOC_GROW(k->v, k->nr + 1, k->alloc);
		op_cost(c->dir, r, &k->v[k->nr++]);
	}
	if (k->nr)
		qsort(k->v, k->nr, sizeof(*k->v), by_wall);
	for (i = 0; i < k->nr; i++) {
		add_known(k->v[i].wall_s, &k->wall_s, &k->wall_unknown);
		for (p = 0; p < ZL_COST__COUNT; p++)
			add_known(k->v[i].v[p], &k->total[p], &k->unknown[p]);
		add_known(k->v[i].outside_s, &k->outside_s, &k->outside_unknown);
	}
	/* a sum over no op is unknown, not 0 */
	for (p = 0; p < ZL_COST__COUNT; p++)
		if (k->unknown[p] == k->nr)
			k->total[p] = NAN;
	if (k->outside_unknown == k->nr)
		k->outside_s = NAN;
	zl_batch_startups_read(c->dir, &k->startups);
	for (i = 0; i < k->startups.nr; i++)
		k->startup_s += k->startups.wall[i];
	warmup_shards(c->dir, k);
	k->device_s = k->wall_s + k->startup_s + k->shards_s;
	if (k->nr && k->wall_unknown == k->nr)
		k->wall_s = NAN;
	zl_batch_rows_release(&rows);
	strbuf_release(&text);
	strbuf_release(&err);
	free(path);
}

/* ---- the files ---------------------------------------------------------------------------- */

static int add_parts(cJSON *o, const double *v, double wall, double outside)
{
	int p, bad = zl_json_add_number(o, "wall_s", wall);

	for (p = 0; p < ZL_COST__COUNT && !bad; p++)
		bad = zl_json_add_number(o, parts[p].key, v[p]);
	return bad || zl_json_add_number(o, "outside_s", outside);
}

static cJSON *costs_json(const struct zl_batch_costs *k)
{
	cJSON *doc = cJSON_CreateObject(), *ops = NULL, *tot = NULL, *unknown = NULL, *st = NULL, *sh = NULL;
	int bad, p;
	size_t i;

	/* each container is attached as it is made: doc owns everything */
	bad = !doc || zl_json_add_string(doc, "schema", ZL_SCHEMA_BATCH_COSTS) ||
	      !(ops = cJSON_AddArrayToObject(doc, "ops")) || !(tot = cJSON_AddObjectToObject(doc, "totals")) ||
	      !(unknown = cJSON_AddObjectToObject(tot, "unknown")) ||
	      !(st = cJSON_AddObjectToObject(doc, "worker_startups")) || !(sh = cJSON_AddObjectToObject(doc, "warmup_shards"));
	for (i = 0; i < k->nr && !bad; i++) {
		const struct zl_op_cost *o = &k->v[i];
		cJSON *e = cJSON_CreateObject();

		bad = !e || !cJSON_AddItemToArray(ops, e);
		if (bad)
			cJSON_Delete(e);
		bad = bad || zl_json_add_string(e, "op", o->op) || zl_json_add_string(e, "status", o->status) ||
		      zl_json_add_number(e, "attempt", o->attempt) || zl_json_add_string(e, "run_dir", o->run_dir) ||
		      add_parts(e, o->v, o->wall_s, o->outside_s);
	}
	bad = bad || zl_json_add_number(tot, "ops", (double)k->nr) || zl_json_add_number(tot, "not_run", (double)k->not_run) ||
	      add_parts(tot, k->total, k->wall_s, k->outside_s) ||
	      zl_json_add_number(unknown, "wall_s", (double)k->wall_unknown) ||
	      zl_json_add_number(unknown, "outside_s", (double)k->outside_unknown);
	for (p = 0; p < ZL_COST__COUNT && !bad; p++)
		bad = zl_json_add_number(unknown, parts[p].key, (double)k->unknown[p]);
	bad = bad || zl_json_add_number(st, "started", (double)k->startups.started) ||
	      zl_json_add_number(st, "ready", (double)k->startups.nr) || zl_json_add_number(st, "wall_s", k->startup_s) ||
	      zl_json_add_number(sh, "count", (double)k->shards) || zl_json_add_number(sh, "wall_s", k->shards_s) ||
	      zl_json_add_number(doc, "device_time_s", k->device_s);
	if (bad) {
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

/* A number field ("" when unknown: never 0). */
static void csv_number(struct strbuf *sb, double v)
{
	char buf[64];

	if (isnan(v))
		buf[0] = '\0';
	else
		snprintf(buf, sizeof(buf), "%.3f", v);
	zl_csv_field(sb, buf, 0);
}

static void csv_row(struct strbuf *sb, const char *op, const char *status, int attempt, const double *v, double wall,
		    double outside, const char *run_dir)
{
	char n[32] = "";
	int p;

	if (attempt > 0)
		snprintf(n, sizeof(n), "%d", attempt);
	zl_csv_field(sb, op, 1);
	zl_csv_field(sb, status ? status : "", 0);
	zl_csv_field(sb, n, 0);
	csv_number(sb, wall);
	for (p = 0; p < ZL_COST__COUNT; p++)
		csv_number(sb, v ? v[p] : NAN);
	csv_number(sb, outside);
	zl_csv_field(sb, run_dir ? run_dir : "", 0);
	zl_csv_end_row(sb);
}

static void costs_csv(const struct zl_batch_costs *k, struct strbuf *sb)
{
	size_t i;
	int p;

	zl_csv_field(sb, "op", 1);
	zl_csv_field(sb, "status", 0);
	zl_csv_field(sb, "attempt", 0);
	zl_csv_field(sb, "wall_s", 0);
	for (p = 0; p < ZL_COST__COUNT; p++)
		zl_csv_field(sb, parts[p].key, 0);
	zl_csv_field(sb, "outside_s", 0);
	zl_csv_field(sb, "run_dir", 0);
	zl_csv_end_row(sb);
	for (i = 0; i < k->nr; i++)
		csv_row(sb, k->v[i].op, k->v[i].status, k->v[i].attempt, k->v[i].v, k->v[i].wall_s, k->v[i].outside_s,
			k->v[i].run_dir);
	csv_row(sb, "(total)", NULL, 0, k->total, k->wall_s, k->outside_s, NULL);
	csv_row(sb, "(worker start-ups)", NULL, 0, NULL, k->startup_s, NAN, NULL);
	csv_row(sb, "(warm-up shards)", NULL, 0, NULL, k->shards_s, NAN, NULL);
}

int zl_batch_costs_write(const char *batch_dir, const struct zl_batch_costs *k, struct strbuf *err)
{
	char *json_path = zl_path_join(batch_dir, ZL_BATCH_COSTS_JSON), *csv_path = zl_path_join(batch_dir, ZL_BATCH_COSTS_CSV);
	struct strbuf csv = STRBUF_INIT;
	cJSON *doc = costs_json(k);
	int rc = -1;

	if (!doc) {
		zl_error(err, "out of memory building '%s'", json_path);
		goto out;
	}
	costs_csv(k, &csv);
	if (zl_json_write_atomic(json_path, doc, err) || zl_write_file_atomic(csv_path, csv.buf, csv.len, err))
		goto out;
	rc = 0;
out:
	cJSON_Delete(doc);
	strbuf_release(&csv);
	free(json_path);
	free(csv_path);
	return rc;
}

/* ---- the terminal ------------------------------------------------------------------------ */

static void cell(struct zl_table *t, double v)
{
	if (isnan(v))
		zl_table_add(t, "unknown", ZL_COLOR_YELLOW);
	else
		zl_table_addf(t, ZL_COLOR_NONE, "%.1f", v);
}

/* A total: the sum of the known values, with how many ops did not know it. */
static void total_cell(struct zl_table *t, double sum, size_t unknown)
{
	if (isnan(sum))
		zl_table_add(t, "unknown", ZL_COLOR_YELLOW);
	else if (unknown)
		zl_table_addf(t, ZL_COLOR_YELLOW, "%.1f (%zu unknown)", sum, unknown);
	else
		zl_table_addf(t, ZL_COLOR_BOLD, "%.1f", sum);
}

static void share_cell(struct zl_table *t, double part, size_t unknown, double whole)
{
	if (unknown || isnan(part) || !(whole > 0))
		zl_table_add(t, "", ZL_COLOR_NONE);
	else
		zl_table_addf(t, ZL_COLOR_NONE, "%.0f%%", 100.0 * part / whole);
}

/* The table's columns: op, status, wall, the parts but the session, outside. */
static const enum zl_cost_part shown[] = { ZL_COST_COLLECTION, ZL_COST_INPUTS, ZL_COST_FIRST_CALL, ZL_COST_TIMER,
					   ZL_COST_USE_GEMS, ZL_COST_OTHER };

/* Inputs FlagGems drew at ZL_INPUTS_HINT_SHARE of the wall or more: the one thing zlbench can do about them. */
#define ZL_INPUTS_HINT_SHARE 0.2

static void inputs_hint(const struct zl_batch_costs *k, FILE *out)
{
	const struct zl_op_cost *top = NULL;
	double sum = 0;
	size_t i, n = 0;

	for (i = 0; i < k->nr; i++) {
		const struct zl_op_cost *o = &k->v[i];

		if (o->drew_on_device || isnan(o->v[ZL_COST_INPUTS]) || o->v[ZL_COST_INPUTS] <= 0)
			continue;
		sum += o->v[ZL_COST_INPUTS];
		n++;
		if (!top || o->v[ZL_COST_INPUTS] > top->v[ZL_COST_INPUTS])
			top = o;
	}
	if (!top || k->wall_s <= 0 || sum < ZL_INPUTS_HINT_SHARE * k->wall_s)
		return;
	fprintf(out, "inputs: FlagGems making the benchmarks' inputs took %.0f %% of the wall (%.1f s over %zu "
		     "operator%s, most in %s: %.1f s); where they are integer or bool, --draw-inputs device draws them "
		     "on the device (docs/plugins.md)\n",
		100 * sum / k->wall_s, sum, n, n == 1 ? "" : "s", top->op, top->v[ZL_COST_INPUTS]);
}

void zl_batch_costs_print(const struct zl_batch_costs *k, const char *batch_dir, FILE *out, int use_color)
{
	struct zl_table t;
	struct strbuf sb = STRBUF_INIT;
	size_t i, j, n = k->nr > ZL_BATCH_COSTS_SHOWN + 5 ? ZL_BATCH_COSTS_SHOWN : k->nr;
	size_t with_split = k->nr - k->unknown[ZL_COST_SESSION];

	if (!k->nr)
		return;
	/* every column but op and status holds numbers */
	zl_table_init(&t, 4 + ZL_ARRAY_SIZE(shown), ~0ul << 2);
	zl_table_add(&t, "op", ZL_COLOR_BOLD);
	zl_table_add(&t, "status", ZL_COLOR_BOLD);
	zl_table_add(&t, "wall", ZL_COLOR_BOLD);
	for (j = 0; j < ZL_ARRAY_SIZE(shown); j++)
		zl_table_add(&t, parts[shown[j]].title, ZL_COLOR_BOLD);
	zl_table_add(&t, "outside", ZL_COLOR_BOLD);
	for (i = 0; i < n; i++) {
		const struct zl_op_cost *o = &k->v[i];

		zl_table_add(&t, o->op, ZL_COLOR_NONE);
		zl_table_add(&t, o->status ? o->status : "-", ZL_COLOR_NONE);
		cell(&t, o->wall_s);
		for (j = 0; j < ZL_ARRAY_SIZE(shown); j++)
			cell(&t, o->v[shown[j]]);
		cell(&t, o->outside_s);
	}
	zl_table_addf(&t, ZL_COLOR_BOLD, "total (%zu)", k->nr);
	zl_table_add(&t, "", ZL_COLOR_NONE);
	total_cell(&t, k->wall_s, k->wall_unknown);
	for (j = 0; j < ZL_ARRAY_SIZE(shown); j++)
		total_cell(&t, k->total[shown[j]], k->unknown[shown[j]]);
	total_cell(&t, k->outside_s, k->outside_unknown);
	/* shares of the wall: only when every op knows its split */
	if (with_split < k->nr || k->wall_unknown)
		goto print;
	zl_table_add(&t, "share of wall", ZL_COLOR_NONE);
	zl_table_add(&t, "", ZL_COLOR_NONE);
	share_cell(&t, k->wall_s, k->wall_unknown, k->wall_s);
	for (j = 0; j < ZL_ARRAY_SIZE(shown); j++)
		share_cell(&t, k->total[shown[j]], k->unknown[shown[j]] + k->wall_unknown, k->wall_s);
	share_cell(&t, k->outside_s, k->outside_unknown + k->wall_unknown, k->wall_s);
print:
	fprintf(out, "\nwhere the time went (seconds, longest first; outside: the run's own work outside pytest's "
		     "session):\n");
	zl_table_print(&t, out, use_color);
	if (n < k->nr)
		fprintf(out, "... and %zu more operators (%s/%s has every one)\n", k->nr - n, batch_dir,
			ZL_BATCH_COSTS_CSV);
	if (with_split < k->nr)
		fprintf(out, "%zu of %zu operators have no cost split (their timer_summary.json has no \"cost\": an older "
			     "zlbench, or a run that was killed): unknown, not 0\n", k->nr - with_split, k->nr);
	inputs_hint(k, out);
	if (k->startups.started) {
		zl_batch_fmt_seconds(&sb, k->startup_s);
		fprintf(out, "worker start-ups: %zu started, %zu ready, %s in all\n", k->startups.started, k->startups.nr,
			sb.buf);
	}
	if (k->shards) {
		strbuf_reset(&sb);
		zl_batch_fmt_seconds(&sb, k->shards_s);
		fprintf(out, "warm-up shards: %zu, %s in all\n", k->shards, sb.buf);
	}
	strbuf_reset(&sb);
	zl_batch_fmt_seconds(&sb, k->device_s);
	fprintf(out, "device time: %s (operators", sb.buf);
	strbuf_reset(&sb);
	zl_batch_fmt_seconds(&sb, k->wall_s);
	fprintf(out, " %s", sb.buf);
	if (k->startups.started) {
		strbuf_reset(&sb);
		zl_batch_fmt_seconds(&sb, k->startup_s);
		fprintf(out, ", worker start-ups %s", sb.buf);
	}
	if (k->shards) {
		strbuf_reset(&sb);
		zl_batch_fmt_seconds(&sb, k->shards_s);
		fprintf(out, ", warm-up shards %s", sb.buf);
	}
	fprintf(out, ")\n");
	zl_table_release(&t);
	strbuf_release(&sb);
}
