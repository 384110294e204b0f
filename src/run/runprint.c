#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/error.h"
#include "zlbench/json.h"
#include "zlbench/runprint.h"
#include "zlbench/tunercache.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

/* ---- the header ------------------------------------------------------------ */

/* "flag: --backend" for a value given by flag or environment; the bare source otherwise. */
static void print_source(FILE *o, const struct zl_setting_value *v)
{
	int given = v->source == ZL_SRC_FLAG || v->source == ZL_SRC_ENV;

	fprintf(o, "%s%s%s", zl_source_name(v->source), given ? ": " : "", given ? v->from : "");
}

static void header_devices(const struct zl_run_ctx *c, FILE *o)
{
	const struct zl_settings *s = c->s;
	size_t i;

	fprintf(o, "backend:     %s (", s->backend->name);
	print_source(o, &s->v[ZL_SET_BACKEND]);
	fprintf(o, "), vendor %s, %s=%s\n", s->backend->vendor_name, s->backend->visibility_var,
		c->f.visibility_value);
	for (i = 0; i < s->devices.nr; i++) {
		long idx = -1;
		const struct zl_device *d = NULL;

		if (!zl_parse_long(s->devices.v[i], &idx))
			d = zl_devlist_find(&c->pf->devs, (int)idx);
		if (d)
			fprintf(o, "device:      %d  %s  %s\n", d->index, d->name ? d->name : "?", d->uuid ? d->uuid : "?");
		else
			fprintf(o, "device:      %s  (%s)\n", s->devices.v[i], c->pf->devs.how ? c->pf->devs.how : "not verified");
	}
}

static void header_shapes(const struct zl_run_ctx *c, FILE *o)
{
	const struct zl_preflight *pf = c->pf;
	const char *mode = c->s->shape_mode_file ? "file" : "upstream";
	const char *op = pf->nodes.op ? pf->nodes.op : pf->nodes.marker ? pf->nodes.marker : "the op";

	if (pf->shape_sha256[0] && pf->shapes_for_op >= 0)
		fprintf(o, "shapes:      %s: %s sha256 %.16s…, %ld shapes for %s\n", mode, pf->shape_source,
			pf->shape_sha256, pf->shapes_for_op, op);
	else if (pf->shape_sha256[0])
		fprintf(o, "shapes:      %s: %s sha256 %.16s…, no shapes for %s in that file (FlagGems defaults)\n",
			mode, pf->shape_source, pf->shape_sha256, op);
	else
		fprintf(o, "shapes:      %s: %s (not found: FlagGems defaults)\n", mode,
			pf->shape_source ? pf->shape_source : "-");
	/* only when not FlagGems' own way: the run's numbers then stand apart (compare's caliber) */
	if (c->s->draw_inputs && !strcmp(c->s->draw_inputs, "device"))
		fprintf(o, "inputs:      integer and bool inputs drawn on the device (%s; FlagGems draws them on the CPU)\n",
			c->s->v[ZL_SET_DRAW_INPUTS].from);
}

static void header_plan(const struct zl_run_ctx *c, FILE *o)
{
	const struct zl_plan *plan = &c->plan;
	const struct zl_nodes *n = &c->pf->nodes;
	size_t i;

	fprintf(o, "test node:   ");
	for (i = 0; i < n->nodes.nr; i++)
		fprintf(o, "%s%s", i ? " " : "", n->nodes.v[i]);
	if (n->marker)
		fprintf(o, "  -m %s", n->marker);
	fprintf(o, "  (%s)\n", n->how);
	fprintf(o, "plugins:     ");
	for (i = 0; i < plan->plugins.nr; i++)
		fprintf(o, "%s%s", i ? " " : "", plan->plugins.v[i]);
	fputc('\n', o);
	fprintf(o, "timer:       %s", plan->timer);
	if (!strcmp(plan->timer, "profiler"))
		fprintf(o, " (device timestamps, each call from an idle device, L2 flushed outside it, "
			"leading transient cut; noise target %g %%%s, at most %g s per shape)",
			plan->noise_target * 100,
			plan->noise_target_pinned ? "" : " (2 % under 5 us)",
			plan->max_time_per_shape_s);
	else if (!strcmp(plan->timer, "graph"))
		fprintf(o, " (graph replay, L2 flushed)");
	fprintf(o, "; fallback per shape: %s; SM clock: %s\n", plan->fallback, plan->clock_source);
}

static void header_tuner_cache(const struct zl_run_ctx *c, int db_url, FILE *o)
{
	const struct zl_run_facts *f = &c->f;

	if (c->s->isolate)
		fprintf(o, "tuner cache: isolated: %s (removed afterwards)%s\n", f->flaggems_cache,
			db_url ? "; " ZL_TUNER_DB_URL_VAR " removed from the child's environment" : "");
	else if (f->winners_before < 0)
		fprintf(o, "tuner cache: shared: %s, winners already stored unknown: %s\n", f->flaggems_cache,
			f->tuner_note_before ? f->tuner_note_before : "not counted");
	else
		fprintf(o, "tuner cache: shared: %s, %ld winners already stored%s%s\n", f->flaggems_cache,
			f->winners_before, f->tuner_note_before ? "; " : "", f->tuner_note_before ? f->tuner_note_before : "");
}

/* A shared tuner cache can make an A/B side inherit winners instead of tuning: said every time. */
static void warn_shared_cache(const struct zl_run_ctx *c, int db_url, FILE *o)
{
	const struct zl_run_facts *f = &c->f;

	if (c->s->isolate)
		return;
	if (f->winners_before > 0)
		fprintf(o, "zlbench: warning: the shared tuner cache already holds %ld winners: an A/B side may inherit them instead of tuning (use --isolate-tuner-cache)\n",
			f->winners_before);
	else if (f->winners_before < 0)
		fprintf(o, "zlbench: warning: the shared tuner cache could not be counted, so it may hold winners: an A/B side may inherit them instead of tuning (use --isolate-tuner-cache)\n");
	if (db_url)
		fprintf(o, "zlbench: warning: " ZL_TUNER_DB_URL_VAR " is set: FlagGems' tuner uses that database, not '%s' counted here, so the winner counts say nothing about it (use --isolate-tuner-cache)\n",
			f->flaggems_cache);
}

void zl_run_print_header(const struct zl_run_ctx *c)
{
	const struct zl_settings *s = c->s;
	FILE *o = stderr;
	char *demo;
	int db_url = zl_tuner_db_url_set();

	if (zl_verbosity < 0)
		return;
	demo = zl_demo_label(s->flaggems_dir);
	fprintf(o, "zlbench %s\n", ZL_VERSION_STRING);
	header_devices(c, o);
	fprintf(o, "flaggems:    %s%s%s%s\n", s->flaggems_dir, demo ? "  [" : "", demo ? demo : "", demo ? "]" : "");
	fprintf(o, "level:       %s (%s)\n", s->level, zl_source_name(s->v[ZL_SET_LEVEL].source));
	header_shapes(c, o);
	header_plan(c, o);
	header_tuner_cache(c, db_url, o);
	fprintf(o, "replay:      %s\n", s->replay_from ? s->replay_from
				       : s->autotune_records ? "none (recording autotune winners)"
				       : "none; autotune records off (FlagGems' tuners run unwatched)");
	fprintf(o, "run dir:     %s\n", c->run_dir);
	warn_shared_cache(c, db_url, o);
	free(demo);
}

/* ---- the summary ----------------------------------------------------------- */

/* A figure of the summary: a missing one (null, NaN, Infinity in results.json) is "-", never "nan". */
static void add_figure(struct strbuf *sb, int width, int prec, double v)
{
	if (isfinite(v))
		strbuf_addf(sb, " %*.*f", width, prec, v);
	else
		strbuf_addf(sb, " %*s", width, "-");
}

void zl_run_print_summary(const struct zl_run *run, FILE *out)
{
	struct strbuf line = STRBUF_INIT;
	size_t i;

	if (!run->has_results || !run->nr_results) {
		fprintf(out, "(no results.json rows)\n");
		goto notes;
	}
	fprintf(out, "\n%-12s %-16s %-34s %12s %12s %9s\n", "op", "dtype", "shape", "torch ms", "gems ms", "speedup");
	for (i = 0; i < run->nr_results; i++) {
		const struct zl_result *r = &run->results[i];
		const struct zl_result *t;

		if (r->side != ZL_SIDE_GEMS)
			continue;
		t = zl_run_find(run, r->op, r->dtype, r->shape, r->occurrence, ZL_SIDE_TORCH);
		strbuf_reset(&line);
		strbuf_addf(&line, "%-12s %-16s %-34s", r->op, r->dtype, r->shape);
		add_figure(&line, 12, 6, t ? t->latency_ms : r->latency_base_ms);
		add_figure(&line, 12, 6, r->latency_ms);
		add_figure(&line, 9, 3, r->speedup);
		fprintf(out, "%s%s%s\n", line.buf, r->error_msg ? "  error: " : "", r->error_msg ? r->error_msg : "");
	}
	fputc('\n', out);
notes:
	/* what the table cannot show: rows without figures, a file that could not be read */
	for (i = 0; i < run->notes.nr; i++)
		fprintf(out, "note: %s\n", run->notes.v[i]);
	strbuf_release(&line);
}

/* ---- the footer ------------------------------------------------------------ */

/* "N" for a JSON number, "?" for anything else. */
static const char *count_text(const cJSON *o, const char *key, char buf[32])
{
	long n = zl_json_long(cJSON_GetObjectItemCaseSensitive(o, key), LONG_MIN);

	if (n == LONG_MIN)
		return "?";
	snprintf(buf, 32, "%ld", n);
	return buf;
}

/* The timer the plugins used, against the plan: a plan that fell back must show. */
static void footer_timer(const cJSON *id, FILE *out)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(id, "timer");
	const char *plan = zl_json_path_string(id, "timer.plan"), *used = zl_json_path_string(id, "timer.used");
	const cJSON *planned = plan ? cJSON_GetObjectItemCaseSensitive(t, plan) : NULL;
	char b1[32], b2[32], b3[32], b4[32];

	if (!used) {
		fprintf(out, "timer:       planned %s; no timer report\n", plan ? plan : "?");
		return;
	}
	fprintf(out, "timer:       used %s%s%s: profiler %s, graph %s, direct %s, fallbacks %s\n", used,
		plan && strcmp(plan, used) ? ", planned " : "", plan && strcmp(plan, used) ? plan : "",
		count_text(t, "profiler", b4), count_text(t, "graph", b1), count_text(t, "direct", b2),
		count_text(t, "fallbacks", b3));
	if (plan && strcmp(plan, "direct") && cJSON_IsNumber(planned) && planned->valuedouble == 0)
		zl_print_warning("the %s timer was planned but every measurement fell back (plugins/timer_summary.json "
				 "says why)", plan);
}

/* The SM clock over the run; a warning when samples were dropped for it or it could not be read. */
static void footer_clock(const cJSON *id, FILE *out)
{
	const char *source = zl_json_path_string(id, "timer.clock_source");
	const cJSON *mhz = zl_json_path(id, "timer.clock_mhz");
	const cJSON *dropped = zl_json_path(id, "timer.dropped_throttled");
	static const char *const keys[] = { "min", "median", "max", "max_supported" };
	const cJSON *v[4];
	size_t i;
	int known = cJSON_IsObject(mhz);

	if (!source)
		return;
	for (i = 0; i < ZL_ARRAY_SIZE(keys); i++) {
		v[i] = known ? cJSON_GetObjectItemCaseSensitive(mhz, keys[i]) : NULL;
		known = known && cJSON_IsNumber(v[i]);
	}
	if (known)
		fprintf(out, "clock:       SM %.0f-%.0f MHz (median %.0f, max supported %.0f) by %s\n", v[0]->valuedouble,
			v[2]->valuedouble, v[1]->valuedouble, v[3]->valuedouble, source);
	else
		fprintf(out, "clock:       %s\n", source);
	if (cJSON_IsNumber(dropped) && dropped->valuedouble > 0)
		zl_print_warning("%.0f samples were dropped: the SM clock read below 75 %% of its maximum (throttling); "
				 "plugins/timer.jsonl has dropped_throttled per measurement", dropped->valuedouble);
	if (zl_starts_with(source, "unknown"))
		zl_print_warning("the SM clock could not be read (%s): samples taken while throttled were kept",
				 source);
}

static void footer_autotune(const cJSON *id, FILE *out)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(id, "autotune");
	const char *mode = zl_json_path_string(id, "autotune.mode");
	char b1[32], b2[32], b3[32], b4[32];

	if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(a, "recorded"))) {
		fprintf(out, "autotune:    %s; no autotune report%s\n", mode ? mode : "?",
			mode && !strcmp(mode, "off") ? " (records turned off)" : "");
		return;
	}
	const cJSON *conflicts = cJSON_GetObjectItemCaseSensitive(a, "replay_conflicts");
	const char *miss = zl_json_path_string(id, "autotune.replay_miss");

	fprintf(out, "autotune:    %s: recorded %s, pinned %s, missed %s, no_tuner %s", mode ? mode : "?",
		count_text(a, "recorded", b1), count_text(a, "pinned", b2), count_text(a, "missed", b3),
		count_text(a, "no_tuner", b4));
	/* a sweep replaying the last one's winners: how many keys it had to tune itself */
	if (miss && !strcmp(miss, "tune"))
		fprintf(out, ", tuned on a miss %s", count_text(a, "tuned_on_miss", b3));
	fputc('\n', out);
	if (cJSON_GetArraySize(conflicts) > 0)
		zl_print_warning("the replay source records %d autotune key%s with two different configs: the last "
				 "one read was pinned (autotune.replay_conflicts in run_identity.json lists them)",
				 cJSON_GetArraySize(conflicts), cJSON_GetArraySize(conflicts) == 1 ? "" : "s");
}

static void footer_foreign(const cJSON *id, FILE *out)
{
	const cJSON *vendors = zl_json_path(id, "foreign_vendor.vendors");
	const cJSON *modules = zl_json_path(id, "foreign_vendor.modules");
	const cJSON *v;
	int n = 0;

	if (!cJSON_IsArray(vendors)) {
		fprintf(out, "foreign:     not reported\n");
		return;
	}
	if (!cJSON_GetArraySize(vendors)) {
		fprintf(out, "foreign:     none\n");
		return;
	}
	fprintf(out, "foreign:     ");
	cJSON_ArrayForEach(v, vendors)
		fprintf(out, "%s%s", n++ ? ", " : "", cJSON_IsString(v) ? v->valuestring : "?");
	fprintf(out, " (%d modules: plugins/foreign_vendor.json)\n", cJSON_GetArraySize(modules));
}

/* A count for a human: -1 is "unknown". */
static const char *count_or_unknown(long n, char buf[32])
{
	if (n < 0)
		return "unknown";
	snprintf(buf, 32, "%ld", n);
	return buf;
}

void zl_run_print_footer(const struct zl_run_facts *f, const cJSON *identity, FILE *out)
{
	char b1[32], b2[32];

	if (zl_verbosity < 0)
		return;
	fprintf(out, "status:      %s (exit %d) after %.1f s%s%s\n", f->status, f->exit_code,
		f->finished_epoch - f->started_epoch, f->reason ? ": " : "", f->reason ? f->reason : "");
	if (identity) {
		footer_timer(identity, out);
		footer_clock(identity, out);
		footer_autotune(identity, out);
		footer_foreign(identity, out);
	}
	if (f->compile_variants >= 0)
		fprintf(out, "compile:     %ld variants, %ld convert_layout\n", f->compile_variants,
			f->compile_convert_layout);
	else
		fprintf(out, "compile:     unknown (%s)\n", f->compile_note ? f->compile_note : "no Triton cache");
	fprintf(out, "tuner:       winners %s -> %s%s%s\n", count_or_unknown(f->winners_before, b1),
		count_or_unknown(f->winners_after, b2), f->winners_after < 0 && f->tuner_note_after ? ": " : "",
		f->winners_after < 0 && f->tuner_note_after ? f->tuner_note_after : "");
}

