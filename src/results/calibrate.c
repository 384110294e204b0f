/* Calibrations: the run-to-run spread of identical runs per size class, and the floor it implies. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/calibrate.h"
#include "zlbench/compare.h"
#include "zlbench/fsutil.h"
#include "zlbench/json.h"
#include "zlbench/stats.h"
#include "zlbench/table.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

void zl_calib_result_init(struct zl_calib_result *r)
{
	size_t c, k;

	memset(r, 0, sizeof(*r));
	strvec_init(&r->notes);
	for (c = 0; c < ZL_SIZE__COUNT; c++) {
		struct zl_calib_class *cl = &r->cls[c];

		cl->spread_rel = cl->spread_upper = cl->q99_rel = cl->max_rel = cl->floor_pct = NAN;
		for (k = 0; k < ZL_CALIBRATION_LEVELS; k++)
			cl->flags[k] = 0;
	}
}

void zl_calib_result_release(struct zl_calib_result *r)
{
	strvec_clear(&r->notes);
	zl_calib_result_init(r);
}

/* The log ratios of one class's A/A rows. */
struct logs {
	double *v;
	size_t nr, alloc;
};

/* A calibration whose every class has floor[c] and spread[c]: the floor compare is asked to use. */
static void synthetic(struct zl_calibration *cal, const double *floor, const double *spread)
{
	size_t c;

	zl_calibration_init(cal);
	for (c = 0; c < ZL_SIZE__COUNT; c++) {
		cal->cls[c].present = 1;
		cal->cls[c].floor_pct = floor[c];
		cal->cls[c].spread_rel = spread[c];
	}
}

static int flagged(enum zl_verdict v)
{
	return v == ZL_VERDICT_FASTER || v == ZL_VERDICT_SLOWER;
}

/*
 * Compare every pair of every op's runs with compare's engine at the floors of cal;
 * flags[c] counts the A/A rows of class c called faster or slower. With logs (the
 * first pass), also each row's log(B/A), its samples method, and the classes' dof.
 */
static void judge_pairs(const struct zl_calib_op *ops, size_t n, const struct zl_calibration *cal,
			long *flags, struct logs *logs, struct zl_calib_result *out)
{
	struct zl_compare_opts opts = ZL_COMPARE_OPTS_INIT;
	size_t o, i, j, r;

	opts.calibration = cal;
	opts.allow_mismatch = 1;
	opts.resamples = 0;   /* no geomean intervals: only the rows are used */
	for (o = 0; o < n; o++) {
		const struct zl_calib_op *op = &ops[o];

		for (i = 0; op->nr >= 2 && i < op->nr; i++)
			for (j = i + 1; j < op->nr; j++) {
				struct zl_compare cmp;

				zl_compare_init(&cmp);
				zl_compare_runs(op->runs[i], op->runs[j], &opts, &cmp);
				for (r = 0; r < cmp.nr_rows; r++) {
					const struct zl_compare_row *row = &cmp.rows[r];
					const struct zl_result *ra = zl_run_find(op->runs[i], row->op, row->dtype,
										 row->shape, row->occurrence, row->side);
					enum zl_size_class sc = zl_size_class_of(ra ? ra->latency_ms : NAN);

					if (row->verdict == ZL_VERDICT_MISSING || sc >= ZL_SIZE__COUNT ||
					    !(row->ratio > 0) || !isfinite(row->ratio))
						continue;
					flags[sc] += flagged(row->verdict);
					if (!logs)
						continue;
					ALLOC_GROW(logs[sc].v, logs[sc].nr + 1, logs[sc].alloc);
					logs[sc].v[logs[sc].nr++] = log(row->ratio);
					out->cls[sc].rows++;
					out->cls[sc].rows_samples += row->method == ZL_METHOD_SAMPLES;
					out->cls[sc].dof += 2.0 / (double)op->nr;
				}
				if (logs)
					out->pairs++;
				zl_compare_release(&cmp);
			}
	}
}

static double round_up_tenth(double pct)
{
	return ceil(pct * 10 - 1e-9) / 10;
}

/* Spread, its upper bound, the tail figures of one class from its log ratios. */
static void class_figures(struct zl_calib_class *cl, struct logs *l)
{
	double sum2 = 0, *rel;
	size_t i;

	if (!l->nr)
		return;
	rel = xcalloc(l->nr, sizeof(*rel));
	for (i = 0; i < l->nr; i++) {
		sum2 += l->v[i] * l->v[i];
		rel[i] = fabs(expm1(l->v[i]));
	}
	zl_stats_sort(rel, l->nr);
	cl->spread_rel = sqrt(sum2 / (double)l->nr);
	cl->spread_upper = cl->spread_rel * sqrt(cl->dof / zl_stats_chi2_quantile(0.05, cl->dof));
	cl->q99_rel = rel[(size_t)ceil(0.99 * (double)l->nr) - 1];
	cl->max_rel = rel[l->nr - 1];
	free(rel);
}

/* Count the ops with two or more runs that passed; a note for each of the others. */
static void count_ops(const struct zl_calib_op *ops, size_t n, struct zl_calib_result *out)
{
	size_t o;

	for (o = 0; o < n; o++) {
		if (ops[o].nr >= 2)
			out->ops++;
		else
			strvec_pushf(&out->notes, "%s: %zu run%s that passed: nothing to compare", ops[o].op, ops[o].nr,
				     ops[o].nr == 1 ? "" : "s");
	}
}

/* The false-flag rates at the fixed levels; the first pass also collects each class's log ratios. */
static void rates_at_levels(const struct zl_calib_op *ops, size_t n, struct logs logs[ZL_SIZE__COUNT],
			    struct zl_calib_result *out)
{
	double floor[ZL_SIZE__COUNT], spread[ZL_SIZE__COUNT];
	long flags[ZL_SIZE__COUNT];
	struct zl_calibration cal;
	size_t c, k;

	for (k = 0; k < ZL_CALIBRATION_LEVELS; k++) {
		for (c = 0; c < ZL_SIZE__COUNT; c++) {
			floor[c] = zl_calibration_levels_pct[k];
			spread[c] = NAN;
			flags[c] = 0;
		}
		synthetic(&cal, floor, spread);
		judge_pairs(ops, n, &cal, flags, k ? NULL : logs, out);
		zl_calibration_release(&cal);
		for (c = 0; c < ZL_SIZE__COUNT; c++)
			out->cls[c].flags[k] = flags[c];
	}
}

/* Each class's figures from its log ratios (freed here), and the floor and spread to start from. */
static void start_floors(struct logs logs[ZL_SIZE__COUNT], double floor[ZL_SIZE__COUNT],
			 double spread[ZL_SIZE__COUNT], struct zl_calib_result *out)
{
	size_t c;

	for (c = 0; c < ZL_SIZE__COUNT; c++) {
		struct zl_calib_class *cl = &out->cls[c];

		out->rows += (size_t)cl->rows;
		class_figures(cl, &logs[c]);
		free(logs[c].v);
		floor[c] = cl->rows ? round_up_tenth(fmax(ZL_FLOOR_SIGMAS * cl->spread_upper * 100, ZL_CALIB_MIN_FLOOR_PCT))
				    : ZL_FIXED_FLOOR_PCT;
		spread[c] = cl->rows ? cl->spread_rel : NAN;
	}
}

/* The floor: raised until the measured A/A rows are (nearly) never flagged at it. */
static void raise_floors(const struct zl_calib_op *ops, size_t n, double floor[ZL_SIZE__COUNT],
			 const double spread[ZL_SIZE__COUNT], struct zl_calib_result *out)
{
	long flags[ZL_SIZE__COUNT];
	struct zl_calibration cal;
	size_t c;
	int step;

	for (step = 0; step <= ZL_CALIB_MAX_STEPS; step++) {
		int raised = 0;

		memset(flags, 0, sizeof(flags));
		synthetic(&cal, floor, spread);
		judge_pairs(ops, n, &cal, flags, NULL, out);
		zl_calibration_release(&cal);
		for (c = 0; c < ZL_SIZE__COUNT; c++) {
			struct zl_calib_class *cl = &out->cls[c];

			if (!cl->rows)
				continue;
			cl->floor_pct = floor[c];
			cl->floor_flags = flags[c];
			if ((double)flags[c] > ZL_CALIB_TARGET * (double)cl->rows && step < ZL_CALIB_MAX_STEPS) {
				floor[c] = round_up_tenth(floor[c] * ZL_CALIB_FLOOR_STEP);
				cl->floor_steps++;
				raised = 1;
			}
		}
		if (!raised)
			break;
	}
}

void zl_calib_compute(const struct zl_calib_op *ops, size_t n, struct zl_calib_result *out)
{
	struct logs logs[ZL_SIZE__COUNT];
	double floor[ZL_SIZE__COUNT], spread[ZL_SIZE__COUNT];

	memset(logs, 0, sizeof(logs));
	count_ops(ops, n, out);
	rates_at_levels(ops, n, logs, out);
	start_floors(logs, floor, spread, out);
	raise_floors(ops, n, floor, spread, out);
}

void zl_calib_fill(const struct zl_calib_result *r, struct zl_calibration *cal)
{
	size_t c, k;

	for (c = 0; c < ZL_SIZE__COUNT; c++) {
		const struct zl_calib_class *cl = &r->cls[c];
		struct zl_calibration_class *dst = &cal->cls[c];

		dst->present = cl->rows > 0;
		if (!dst->present)
			continue;
		dst->rows = cl->rows;
		dst->spread_rel = cl->spread_rel;
		for (k = 0; k < ZL_CALIBRATION_LEVELS; k++)
			dst->false_flag[k] = (double)cl->flags[k] / (double)cl->rows;
		dst->floor_pct = cl->floor_pct;
	}
}

char *zl_run_timer_key(const struct zl_run *run)
{
	const char *timer = zl_json_path_string(run->identity, "timer.used");
	struct strbuf sb = STRBUF_INIT;

	if (!timer || !strcmp(timer, "mixed"))
		timer = run->timer_plan;
	if (!timer || !*timer)
		return NULL;
	strbuf_addstr(&sb, timer);
	if (!strcmp(timer, "profiler"))
		zl_profiler_method(run, &sb);
	return strbuf_detach(&sb, NULL);
}

int zl_calib_key(const struct zl_run *run, struct zl_calibration *cal, struct strbuf *why)
{
	char *timer = zl_run_timer_key(run);
	const struct {
		const char *value;
		char **slot;
		const char *missing;
	} parts[] = {
		{ run->backend, &cal->backend, "no backend" },
		{ run->device_name, &cal->device_name, "no device name (the backend's query tool named none)" },
		{ timer, &cal->timer, "no timer" },
		{ run->flaggems_commit, &cal->flaggems_commit, "no FlagGems commit (the FlagGems directory is not the top of a git checkout)" },
	};
	size_t i;
	int ret = 0;

	for (i = 0; i < ZL_ARRAY_SIZE(parts); i++) {
		free(*parts[i].slot);
		*parts[i].slot = parts[i].value && *parts[i].value ? xstrdup(parts[i].value) : NULL;
		if (*parts[i].slot)
			continue;
		strbuf_addf(why, "%s%s", ret ? "; " : "", parts[i].missing);
		ret = -1;
	}
	free(timer);
	return ret;
}

static int same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

int zl_calib_key_matches(const struct zl_run *run, const struct zl_calibration *cal)
{
	char *timer = zl_run_timer_key(run);
	int match = same(run->backend, cal->backend) && same(run->device_name, cal->device_name) &&
		    same(timer, cal->timer) && same(run->flaggems_commit, cal->flaggems_commit);

	free(timer);
	return match;
}

int zl_calibration_lookup(const char *db, struct zl_history **h, const struct zl_run *a, const struct zl_run *b,
			  struct zl_calibration *cal, struct strbuf *note)
{
	char *timer = zl_run_timer_key(a);
	struct strbuf err = STRBUF_INIT;
	char *path = NULL;
	int rc = 0;

	if (!*h) {
		path = db ? xstrdup(db) : zl_history_default_path();
		if (!path || !zl_is_file(path)) {
			strbuf_addf(note, "no history database at '%s'", path ? path : "$ZL_HOME/history.db");
			goto out;
		}
		/* reading only: a database on a read-only mount serves, and none is migrated */
		if (zl_history_open_readonly(path, h, &err)) {
			strbuf_addf(note, "calibrations not read: %s", err.buf);
			goto out;
		}
	}
	rc = zl_history_find_calibration(*h, a->backend, a->device_name, timer, a->flaggems_commit, cal, &err);
	if (!rc && b->flaggems_commit && a->flaggems_commit && strcmp(a->flaggems_commit, b->flaggems_commit))
		rc = zl_history_find_calibration(*h, b->backend, b->device_name, timer, b->flaggems_commit, cal,
						 &err);
	if (rc < 0) {
		strbuf_addf(note, "calibrations not read: %s", err.buf);
		rc = 0;
	} else if (!rc) {
		strbuf_addf(note, "no calibration for %s, %s, %s timer, flaggems %s in '%s'; zlbench "
			    "calibrate measures one", a->backend ? a->backend : "(none)",
			    a->device_name ? a->device_name : "(none)", timer ? timer : "(none)",
			    a->flaggems_commit ? a->flaggems_commit : "(none)", zl_history_path(*h));
	}
out:
	free(timer);
	free(path);
	strbuf_release(&err);
	return rc;
}

static void pct_cell(struct zl_table *t, double frac)
{
	if (isfinite(frac))
		zl_table_addf(t, ZL_COLOR_NONE, "%.2f%%", frac * 100);
	else
		zl_table_add(t, "-", ZL_COLOR_NONE);
}

void zl_calib_print_text(const struct zl_calib_result *r, size_t width, FILE *out)
{
	static const char *const heads[] = { "size class", "rows", "spread", "upper 95%", "|B/A-1| p99", "max",
					     "flagged at 1%", "at 2%", "at 5%", "floor", "flagged at floor" };
	/* a narrow terminal loses the spread's bound first, then the tail, then the 2 and 5 % rates */
	static const size_t drop[] = { 3, 5, 4, 7, 8 };
	struct zl_table t;
	size_t c, k;

	zl_table_init(&t, ZL_ARRAY_SIZE(heads), ~1UL);
	for (k = 0; k < ZL_ARRAY_SIZE(heads); k++)
		zl_table_add(&t, heads[k], ZL_COLOR_NONE);
	for (c = 0; c < ZL_SIZE__COUNT; c++) {
		const struct zl_calib_class *cl = &r->cls[c];

		zl_table_add(&t, zl_size_class_name((enum zl_size_class)c), ZL_COLOR_NONE);
		zl_table_addf(&t, ZL_COLOR_NONE, "%ld", cl->rows);
		pct_cell(&t, cl->spread_rel);
		pct_cell(&t, cl->spread_upper);
		pct_cell(&t, cl->q99_rel);
		pct_cell(&t, cl->max_rel);
		for (k = 0; k < ZL_CALIBRATION_LEVELS; k++)
			pct_cell(&t, cl->rows ? (double)cl->flags[k] / (double)cl->rows : NAN);
		if (cl->rows) {
			zl_table_addf(&t, ZL_COLOR_NONE, "%.1f%%", cl->floor_pct);
			zl_table_addf(&t, ZL_COLOR_NONE, "%ld", cl->floor_flags);
		} else {
			zl_table_add(&t, "-", ZL_COLOR_NONE);
			zl_table_add(&t, "-", ZL_COLOR_NONE);
		}
	}
	if (width)
		zl_table_fit(&t, width, drop, ZL_ARRAY_SIZE(drop));
	zl_table_print(&t, out, 0);
	zl_table_release(&t);
}

void zl_calib_floors(const struct zl_calib_result *r, struct strbuf *sb)
{
	const char *sep = "";
	size_t c;

	for (c = 0; c < ZL_SIZE__COUNT; c++) {
		if (!r->cls[c].rows)
			continue;
		strbuf_addf(sb, "%s%s %.1f%%", sep, zl_size_class_name((enum zl_size_class)c), r->cls[c].floor_pct);
		sep = ", ";
	}
	if (!*sep)
		strbuf_addstr(sb, "none (no A/A row)");
}

cJSON *zl_calib_classes_json(const struct zl_calib_result *r)
{
	cJSON *arr = cJSON_CreateArray();
	size_t c, k;

	if (!arr)
		return NULL;
	for (c = 0; c < ZL_SIZE__COUNT; c++) {
		const struct zl_calib_class *cl = &r->cls[c];
		cJSON *o = cJSON_CreateObject(), *ff = cJSON_CreateObject();
		int bad = !o || !ff;

		for (k = 0; !bad && k < ZL_CALIBRATION_LEVELS; k++) {
			char key[16];

			snprintf(key, sizeof(key), "%g", zl_calibration_levels_pct[k]);
			bad |= zl_json_add_number(ff, key, cl->rows ? (double)cl->flags[k] / (double)cl->rows : NAN);
		}
		if (bad) {
			cJSON_Delete(ff);
			cJSON_Delete(o);
			goto oom;
		}
		/* zl_json_add_item deletes what it cannot attach */
		if (zl_json_add_item(o, "false_flag", ff) ||
		    zl_json_add_string(o, "class", zl_size_class_name((enum zl_size_class)c)) ||
		    zl_json_add_number(o, "rows", (double)cl->rows) ||
		    zl_json_add_number(o, "rows_samples", (double)cl->rows_samples) ||
		    zl_json_add_number(o, "dof", cl->rows ? cl->dof : NAN) ||
		    zl_json_add_number(o, "spread_rel", cl->spread_rel) ||
		    zl_json_add_number(o, "spread_upper", cl->spread_upper) ||
		    zl_json_add_number(o, "q99_rel", cl->q99_rel) || zl_json_add_number(o, "max_rel", cl->max_rel) ||
		    zl_json_add_number(o, "floor_pct", cl->floor_pct) ||
		    zl_json_add_number(o, "floor_flagged", cl->rows ? (double)cl->floor_flags : NAN) ||
		    zl_json_add_number(o, "floor_steps", (double)cl->floor_steps)) {
			cJSON_Delete(o);
			goto oom;
		}
		if (zl_json_add_item(arr, NULL, o))
			goto oom;
	}
	return arr;
oom:
	cJSON_Delete(arr);
	return NULL;
}
