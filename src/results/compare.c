#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/compare.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/history.h"
#include "zlbench/json.h"
#include "zlbench/table.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

/* ---- caliber ---------------------------------------------------------------- */

/* Fields that must match for A and B to be measured with the same caliber. */
static const struct {
	const char *label;
	size_t offset;
} must_match[] = {
	{ "backend", offsetof(struct zl_run, backend) },
	{ "vendor", offsetof(struct zl_run, vendor) },
	{ "device name", offsetof(struct zl_run, device_name) },
	{ "level", offsetof(struct zl_run, level) },
	{ "shape mode", offsetof(struct zl_run, shape_mode) },
	{ "shape sha256", offsetof(struct zl_run, shape_sha256) },
	{ "test node", offsetof(struct zl_run, test_node) },
	{ "flaggems mode", offsetof(struct zl_run, flaggems_mode) },
	{ "timer plan", offsetof(struct zl_run, timer_plan) },
	{ "tuner cache mode", offsetof(struct zl_run, tuner_cache_mode) },
};

/* What usually is the A/B variable: listed when it differs, never refused. */
static const struct {
	const char *label;
	const char *path;
} ab_variables[] = {
	{ "flaggems commit", "flaggems.commit" },
	{ "flaggems dirty", "flaggems.dirty" },
	{ "flaggems dir", "flaggems.dir" },
	{ "triton version", "vendor_guard.triton_version" },
	{ "torch version", "vendor_guard.torch_version" },
	{ "python", "python.version" },
	{ "zlbench version", "zlbench_version" },
	{ "host", "host" },
	{ "direct repeat", "direct_repeat" },
	{ "noise target", "timer.noise_target" },
	{ "max time per shape", "timer.max_time_per_shape_s" },
	{ "timer used", "timer.used" },
	{ "timer fallbacks", "timer.fallbacks" },
	{ "compiled variants", "compile.variants" },
	{ "convert_layout ops", "compile.convert_layout" },
};

/*
 * Identity fields a run without them has a value for (absent). Listed with the A/B
 * variables when they differ; refused like the fields above when caliber is set.
 */
static const struct {
	const char *label;
	const char *path;
	const char *absent;
	int caliber;
} defaulted_fields[] = {
	/* fresh, or reused in a batch's worker (docs/worker.md): caliber once the GPU shows it moves numbers */
	{ "interpreter start", "start.mode", "fresh", 0 },
};

#define NONE_TEXT "(none)"
#define UNSET_TEXT "(unset)"

static const char *run_field(const struct zl_run *run, size_t offset)
{
	return *(char *const *)((const char *)run + offset);
}

static void diffs_add(struct zl_diffs *d, const char *field, const char *a, const char *b)
{
	struct zl_diff *x;

	ALLOC_GROW(d->v, d->nr + 1, d->alloc);
	x = &d->v[d->nr++];
	x->field = xstrdup(field);
	x->a = xstrdup(a ? a : NONE_TEXT);
	x->b = xstrdup(b ? b : NONE_TEXT);
}

static void diffs_release(struct zl_diffs *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++) {
		free(d->v[i].field);
		free(d->v[i].a);
		free(d->v[i].b);
	}
	free(d->v);
	d->v = NULL;
	d->nr = d->alloc = 0;
}

void zl_caliber_init(struct zl_caliber *c)
{
	memset(c, 0, sizeof(*c));
	strvec_init(&c->flags);
}

void zl_caliber_release(struct zl_caliber *c)
{
	diffs_release(&c->mismatches);
	diffs_release(&c->variables);
	free(c->autotune);
	strvec_clear(&c->flags);
	zl_caliber_init(c);
}

/* A JSON value as text for a diff line; NULL when absent or null. */
static char *value_text(const cJSON *item)
{
	struct strbuf sb = STRBUF_INIT;

	if (!item || cJSON_IsNull(item))
		return NULL;
	if (cJSON_IsString(item))
		return xstrdup(item->valuestring);
	zl_json_canonical(&sb, item);
	return strbuf_detach(&sb, NULL);
}

static int same_text(const char *a, const char *b)
{
	if (!a || !b)
		return !a && !b;
	return !strcmp(a, b);
}

static void diff_json(struct zl_diffs *d, const char *label, const cJSON *a, const cJSON *b,
		      const char *absent)
{
	char *ta = value_text(a), *tb = value_text(b);

	/* an absent field with a meaning (NONE_TEXT and UNSET_TEXT have none) is that value */
	if (!ta && strcmp(absent, NONE_TEXT) && strcmp(absent, UNSET_TEXT))
		ta = xstrdup(absent);
	if (!tb && strcmp(absent, NONE_TEXT) && strcmp(absent, UNSET_TEXT))
		tb = xstrdup(absent);

	if (!same_text(ta, tb))
		diffs_add(d, label, ta ? ta : absent, tb ? tb : absent);
	free(ta);
	free(tb);
}

/*
 * Variables zlbench sets for every run from settings the caliber and autotune
 * checks already compare (the plugins' contract): not A/B variables.
 */
static const char *const run_managed_env[] = {
	"ZL_RUN_DIR", "ZL_BACKEND", "ZL_EXPECTED_VENDOR", "ZL_VENDOR_MODULE", "ZL_TIMER_PLAN",
	"ZL_NOISE_TARGET", "ZL_MAX_TIME_PER_SHAPE", "ZL_CLOCK_SOURCE",
	"ZL_DIRECT_REPEAT", "ZL_AUTOTUNE_MODE", "ZL_REPLAY_FROM",
};

/* Also per-run by construction: a cache directory the identity records as the run's own. */
static int managed_env(const struct zl_run *run, const char *name, const cJSON *value)
{
	static const char *const cache_paths[] = { "tuner_cache.path", "triton_cache.path" };
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(run_managed_env); i++)
		if (!strcmp(name, run_managed_env[i]))
			return 1;
	if (!cJSON_IsString(value) || !same_text(zl_json_path_string(run->identity, "tuner_cache.mode"),
						 "isolated"))
		return 0;
	for (i = 0; i < ZL_ARRAY_SIZE(cache_paths); i++)
		if (same_text(value->valuestring, zl_json_path_string(run->identity, cache_paths[i])))
			return 1;
	return 0;
}

static void diff_env(struct zl_diffs *d, const struct zl_run *a, const struct zl_run *b)
{
	const struct zl_run *runs[2] = { a, b };
	const cJSON *sides[2] = { zl_json_path(a->identity, "env"), zl_json_path(b->identity, "env") };
	const cJSON *it;
	int s;

	for (s = 0; s < 2; s++) {
		if (!cJSON_IsObject(sides[s]))
			continue;
		cJSON_ArrayForEach(it, sides[s]) {
			const cJSON *other = cJSON_IsObject(sides[!s]) ?
				cJSON_GetObjectItemCaseSensitive(sides[!s], it->string) : NULL;
			char *label;

			/* a name present on both sides is reported once, from A's pass */
			if (s == 1 && other)
				continue;
			if (managed_env(runs[s], it->string, it) &&
			    (!other || managed_env(runs[!s], it->string, other)))
				continue;
			label = xstrfmt("env %s", it->string);
			diff_json(d, label, s == 0 ? it : other, s == 0 ? other : it, UNSET_TEXT);
			free(label);
		}
	}
}

/*
 * Does the replay source of `replayer` (autotune.replay_from, and the run id it had
 * when the replaying run started) name the run `run`?
 */
static int names_run(const struct zl_run *replayer, const struct zl_run *run)
{
	const char *dir = replayer->replay_from;
	const char *recorded_id = zl_json_path_string(replayer->identity, "autotune.replay_run_id");
	char *abs, *id_path;
	struct strbuf text = STRBUF_INIT;
	const char *base;
	int match;

	if (!dir)
		return 0;
	/* the id written at run time survives moving both run directories */
	if (recorded_id && run->run_id && !strcmp(recorded_id, run->run_id))
		return 1;
	abs = zl_absolute_path(dir);
	match = abs && run->dir && !strcmp(abs, run->dir);
	free(abs);
	if (match)
		return 1;
	/* the runs may have been moved or copied: the records' run id still tells */
	id_path = zl_path_join(dir, "run_identity.json");
	if (!zl_read_file(&text, id_path, NULL, ZL_CAP_DOC, NULL)) {
		cJSON *id = cJSON_ParseWithLength(text.buf, text.len);
		const char *rid = zl_json_path_string(id, "run_id");
		match = rid && !strcmp(rid, run->run_id);
		cJSON_Delete(id);
	}
	strbuf_release(&text);
	free(id_path);
	if (match)
		return 1;
	base = strrchr(dir, '/');
	base = base && base[1] ? base + 1 : dir;
	return !strcmp(base, run->run_id);
}

static int same_dir(const char *x, const char *y)
{
	char *ax, *ay;
	int same;

	if (!x || !y)
		return 0;
	ax = zl_absolute_path(x);
	ay = zl_absolute_path(y);
	same = ax && ay && !strcmp(ax, ay);
	free(ax);
	free(ay);
	return same;
}

static const char *mode_of(const struct zl_run *r)
{
	return r->autotune_mode ? r->autotune_mode : "off";
}

static int mode_is(const struct zl_run *r, const char *mode)
{
	return !strcmp(mode_of(r), mode);
}

/* A count from the identity, -1 when null or absent. */
static long identity_count(const struct zl_run *r, const char *path)
{
	const cJSON *item = zl_json_path(r->identity, path);

	return cJSON_IsNumber(item) && item->valuedouble >= 0 ? (long)item->valuedouble : -1;
}

/*
 * How many tuner picks the autotune plugin recorded; -1 when unknown (no count, or
 * autotune off: then the plugin does not watch the tuners).
 */
static long tuner_picks(const struct zl_run *r)
{
	return mode_is(r, "off") ? -1 : identity_count(r, "autotune.recorded");
}

/*
 * The tuned kernels a run names: autotune.kernels in its identity, else the autotune
 * plugin's summary in its directory. 0 and sv filled, or -1 when neither names them.
 */
static int tuned_kernels(const struct zl_run *r, struct strvec *sv)
{
	const cJSON *list = zl_json_path(r->identity, "autotune.kernels");
	struct strbuf text = STRBUF_INIT;
	cJSON *summary = NULL;
	char *path;
	int ret;

	if (list)
		return mode_is(r, "off") || zl_json_to_strvec(list, sv) ? -1 : 0;
	if (mode_is(r, "off") || !r->dir)
		return -1;
	path = zl_path_join(r->dir, "plugins/autotune_summary.json");
	if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL))
		summary = cJSON_ParseWithLength(text.buf, text.len);
	ret = zl_json_to_strvec(cJSON_GetObjectItemCaseSensitive(summary, "kernels"), sv);
	if (ret)
		strvec_clear(sv);
	cJSON_Delete(summary);
	strbuf_release(&text);
	free(path);
	return ret;
}

/* The part of a kernel id after its module ("flag_gems.ops.mm.mm_kernel" -> "mm_kernel"). */
static const char *kernel_name(const char *id)
{
	const char *dot = strrchr(id, '.');

	return dot && dot[1] ? dot + 1 : id;
}

/*
 * The tuner winners a run found stored when it started; -1 when unknown: null
 * (not counted), or an old identity's 0 whose tuner_cache.note says a database
 * could not be read (locked, unreadable): a 0 that means "not counted".
 */
static long winners_found(const struct zl_run *r)
{
	const char *note = zl_json_path_string(r->identity, "tuner_cache.note");

	if (r->winners_before < 0)
		return -1;
	if (!r->winners_before && note && (strstr(note, "not counted") || strstr(note, "cannot read")))
		return -1;
	return r->winners_before;
}

/* "12 tuner winners already", or "an unknown number of tuner winners (not counted)". */
static void found_text(struct strbuf *sb, long found)
{
	if (found >= 0)
		strbuf_addf(sb, "%ld tuner winners already", found);
	else
		strbuf_addstr(sb, "an unknown number of tuner winners (not counted)");
}

/*
 * Cache inheritance can matter only when the earlier run stored winners, the later
 * one found winners stored, and the later one's kernels asked a tuner; when both
 * runs name their tuned kernels, they must share one. Unknown facts count as
 * "may have": the flag is a warning, and a missed trap costs more than a spare line.
 */
static void check_inheritance(const struct zl_run *a, const struct zl_run *b, struct zl_caliber *cal)
{
	/* the later run is the one that can have inherited the other's winners */
	int b_later = !a->started_at || !b->started_at || strcmp(b->started_at, a->started_at) >= 0;
	const struct zl_run *later = b_later ? b : a, *earlier = b_later ? a : b;
	long before = identity_count(earlier, "tuner_cache.winners_before");
	long after = identity_count(earlier, "tuner_cache.winners_after");
	long earlier_picks = tuner_picks(earlier), later_picks = tuner_picks(later);
	struct strvec ek = STRVEC_INIT, lk = STRVEC_INIT;
	long found = winners_found(later);
	struct strbuf shared = STRBUF_INIT, found_sb = STRBUF_INIT;
	int earlier_stored, named;
	size_t i;

	earlier_stored = (before >= 0 && after > before) || earlier_picks > 0 ||
			 ((before < 0 || after < 0) && earlier_picks < 0);
	if (!found || !earlier_stored || later_picks == 0)
		return;
	found_text(&found_sb, found);
	named = !tuned_kernels(earlier, &ek) && !tuned_kernels(later, &lk);
	for (i = 0; named && i < lk.nr; i++)
		if (strvec_find(&ek, lk.v[i]) >= 0)
			strbuf_addf(&shared, "%s%s", shared.len ? ", " : "", kernel_name(lk.v[i]));
	if (named && !shared.len)
		goto out;
	cal->cache_inheritance = 1;
	if (shared.len)
		strvec_pushf(&cal->flags, "cache inheritance: %s started with %s "
			     "in the shared tuner cache and tuned kernels that %s tuned too (%s), so they may "
			     "reuse %s's winners instead of tuning; use --isolate-tuner-cache or replay "
			     "records for a fair A/B", b_later ? "B" : "A", found_sb.buf,
			     b_later ? "A" : "B", shared.buf, b_later ? "A" : "B");
	else
		strvec_pushf(&cal->flags, "cache inheritance: %s started with %s "
			     "in the shared tuner cache, so its kernels may reuse %s's winners instead of "
			     "tuning; use --isolate-tuner-cache or replay records for a fair A/B",
			     b_later ? "B" : "A", found_sb.buf, b_later ? "A" : "B");
out:
	strbuf_release(&found_sb);
	strbuf_release(&shared);
	strvec_clear(&ek);
	strvec_clear(&lk);
}

static void check_autotune(const struct zl_run *a, const struct zl_run *b, struct zl_caliber *cal)
{
	if (mode_is(b, "replay") && names_run(b, a)) {
		cal->autotune = xstrdup("proper A/B: B replays A's autotune records");
		cal->autotune_proper = 1;
	} else if (mode_is(a, "replay") && names_run(a, b)) {
		cal->autotune = xstrdup("proper A/B (reversed): A replays B's autotune records");
		cal->autotune_proper = 1;
	} else if (mode_is(a, "replay") && mode_is(b, "replay") && same_dir(a->replay_from, b->replay_from)) {
		cal->autotune = xstrfmt("proper A/B: A and B replay the same autotune records (%s)",
					a->replay_from);
		cal->autotune_proper = 1;
	} else if (!strcmp(mode_of(a), mode_of(b))) {
		cal->autotune = xstrfmt("%s vs %s: each side autotuned on its own", mode_of(a), mode_of(b));
		strvec_pushf(&cal->flags, "autotune: %s vs %s: A and B may run different kernel "
			     "configs; replay A's records in B (--replay-from A) for a proper A/B",
			     mode_of(a), mode_of(b));
	} else {
		cal->autotune = xstrfmt("mixed: A %s, B %s%s%s", mode_of(a), mode_of(b),
					b->replay_from ? " from " : "",
					b->replay_from ? b->replay_from : "");
		strvec_pushf(&cal->flags, "autotune: A is '%s' and B is '%s'%s: the sides may run "
			     "different kernel configs", mode_of(a), mode_of(b),
			     mode_is(b, "replay") ? " (B replays records that are not A's)" : "");
	}
	/* without replay on either side, FlagGems' tuner reads whatever winners the cache holds */
	if (!cal->autotune_proper && !mode_is(a, "replay") && !mode_is(b, "replay") &&
	    same_text(a->tuner_cache_mode, "shared") && same_text(b->tuner_cache_mode, "shared"))
		check_inheritance(a, b, cal);
}

/* Same plan, different timer in the end (graph capture fell back): not like for like. */
static void check_timer_used(const struct zl_run *a, const struct zl_run *b, struct zl_caliber *cal)
{
	const char *ua = zl_json_path_string(a->identity, "timer.used");
	const char *ub = zl_json_path_string(b->identity, "timer.used");

	if (ua && ub && strcmp(ua, ub))
		strvec_pushf(&cal->flags, "timer: A was measured with the %s timer and B with the %s "
			     "timer (see the timer fallbacks): shapes may not compare like for like",
			     ua, ub);
}

size_t zl_caliber_check(const struct zl_run *a, const struct zl_run *b, struct zl_caliber *cal)
{
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(must_match); i++) {
		const char *va = run_field(a, must_match[i].offset);
		const char *vb = run_field(b, must_match[i].offset);
		if (!same_text(va, vb))
			diffs_add(&cal->mismatches, must_match[i].label, va, vb);
	}
	for (i = 0; i < ZL_ARRAY_SIZE(ab_variables); i++)
		diff_json(&cal->variables, ab_variables[i].label,
			  zl_json_path(a->identity, ab_variables[i].path),
			  zl_json_path(b->identity, ab_variables[i].path), NONE_TEXT);
	for (i = 0; i < ZL_ARRAY_SIZE(defaulted_fields); i++)
		diff_json(defaulted_fields[i].caliber ? &cal->mismatches : &cal->variables, defaulted_fields[i].label,
			  zl_json_path(a->identity, defaulted_fields[i].path),
			  zl_json_path(b->identity, defaulted_fields[i].path), defaulted_fields[i].absent);
	diff_env(&cal->variables, a, b);
	check_timer_used(a, b, cal);
	check_autotune(a, b, cal);
	return cal->mismatches.nr;
}

/* ---- statistics ------------------------------------------------------------- */

uint64_t zl_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

void zl_geomean_ci(const double *ratios, size_t n, int resamples, uint64_t seed,
		   struct zl_geomean *g)
{
	double *logs, *gm, sum = 0;
	uint64_t state = seed;
	size_t i, j, k, r = resamples > 0 ? (size_t)resamples : 0;

	g->n = n;
	if (!n) {
		g->geomean = g->lo = g->hi = NAN;
		return;
	}
	logs = xcalloc(n, sizeof(*logs));
	for (i = 0; i < n; i++) {
		logs[i] = log(ratios[i]);
		sum += logs[i];
	}
	g->geomean = exp(sum / (double)n);
	if (!r) {
		g->lo = g->hi = g->geomean;
		free(logs);
		return;
	}
	gm = xcalloc(r, sizeof(*gm));
	for (k = 0; k < r; k++) {
		sum = 0;
		for (j = 0; j < n; j++)
			sum += logs[zl_splitmix64(&state) % n];
		gm[k] = exp(sum / (double)n);
	}
	qsort(gm, r, sizeof(*gm), cmp_double);
	/* nearest rank, in integers so that 0.025 * R cannot round up past a whole rank */
	g->lo = gm[(25 * r + 999) / 1000 - 1];
	g->hi = gm[(975 * r + 999) / 1000 - 1];
	free(gm);
	free(logs);
}

static int has_noise(double iqr, long samples)
{
	return isfinite(iqr) && iqr >= 0 && (samples < 0 || samples >= 2);
}

double zl_compare_band(double a_ms, double a_iqr, long a_samples, double b_iqr, long b_samples,
		       double floor_pct, enum zl_noise_basis *basis)
{
	double floor_ms = a_ms * floor_pct / 100, band;

	if (!has_noise(a_iqr, a_samples) || !has_noise(b_iqr, b_samples)) {
		*basis = ZL_BASIS_THRESHOLD;
		return floor_ms;
	}
	/*
	 * The IQR is the spread within one run; two runs also differ by clocks,
	 * placement and tuning. On an H200 A/A pair of mm (docs/validation.md) the
	 * IQR band alone called 10 of 28 rows faster/slower, run-to-run differences
	 * reached 6.4 %; so the band never goes below the floor.
	 */
	*basis = ZL_BASIS_IQR;
	band = (a_iqr + b_iqr) / 2;
	return band < floor_ms ? floor_ms : band;
}

enum zl_verdict zl_compare_verdict(double a_ms, double b_ms, double a_iqr, long a_samples,
				   double b_iqr, long b_samples, double threshold_pct,
				   double *band_ms, enum zl_noise_basis *basis)
{
	double diff;

	if (!isfinite(a_ms) || !isfinite(b_ms) || a_ms <= 0 || b_ms <= 0) {
		*band_ms = NAN;
		*basis = ZL_BASIS_NONE;
		return ZL_VERDICT_MISSING;
	}
	*band_ms = zl_compare_band(a_ms, a_iqr, a_samples, b_iqr, b_samples, threshold_pct, basis);
	diff = b_ms - a_ms;
	if (fabs(diff) <= *band_ms)
		return ZL_VERDICT_SAME;
	return diff < 0 ? ZL_VERDICT_FASTER : ZL_VERDICT_SLOWER;
}

double zl_compare_floor(const struct zl_compare_opts *opts, double a_ms, double *spread_rel,
			int *calibrated)
{
	const struct zl_calibration *cal = opts->calibration;
	enum zl_size_class sc = zl_size_class_of(a_ms);

	*spread_rel = NAN;
	*calibrated = 0;
	if (cal && sc < ZL_SIZE__COUNT && cal->cls[sc].present) {
		*spread_rel = cal->cls[sc].spread_rel;
		*calibrated = 1;
		return cal->cls[sc].floor_pct;
	}
	return ZL_FIXED_FLOOR_PCT;
}

/* ---- the comparison ------------------------------------------------------- */

static void geomean_init(struct zl_geomean *g)
{
	memset(g, 0, sizeof(*g));
	g->geomean = g->lo = g->hi = NAN;
	g->norm = g->norm_lo = g->norm_hi = NAN;
}

void zl_compare_init(struct zl_compare *c)
{
	struct zl_compare_opts defaults = ZL_COMPARE_OPTS_INIT;

	memset(c, 0, sizeof(*c));
	c->opts = defaults;
	zl_caliber_init(&c->caliber);
	geomean_init(&c->overall);
	geomean_init(&c->drift.torch);
	strvec_init(&c->gate_reasons);
	strvec_init(&c->warnings);
}

void zl_compare_release(struct zl_compare *c)
{
	size_t i;

	zl_caliber_release(&c->caliber);
	for (i = 0; i < c->nr_rows; i++) {
		free(c->rows[i].op);
		free(c->rows[i].dtype);
		free(c->rows[i].shape);
		free(c->rows[i].unsure_reason);
		free(c->rows[i].advice);
	}
	free(c->rows);
	for (i = 0; i < c->nr_ops; i++)
		free(c->ops[i].op);
	free(c->ops);
	free(c->drift.torch_a);
	free(c->drift.torch_b);
	strvec_clear(&c->gate_reasons);
	strvec_clear(&c->warnings);
	zl_compare_init(c);
}

/*
 * Rows by key, sorted for binary search: zl_run_find scans every row, which made
 * comparing two runs of 10,000 rows quadratic.
 */
struct keyed {
	char *key;
	size_t idx;
};
struct key_index {
	struct keyed *v;
	size_t nr, alloc;
};

static const char *dtype_key(const char *dtype)
{
	if (!dtype)
		return "";
	return zl_starts_with(dtype, "torch.") ? dtype + strlen("torch.") : dtype;
}

/* side < 0: a key for both sides of a shape */
static char *row_key(const char *op, const char *dtype, const char *shape, int occurrence, int side)
{
	return xstrfmt("%s\n%s\n%s\n%d\n%d", op ? op : "", dtype_key(dtype), shape ? shape : "",
		       occurrence, side);
}

static int cmp_keyed(const void *x, const void *y)
{
	return strcmp(((const struct keyed *)x)->key, ((const struct keyed *)y)->key);
}

static void index_add(struct key_index *ix, char *key, size_t idx)
{
	ALLOC_GROW(ix->v, ix->nr + 1, ix->alloc);
	ix->v[ix->nr].key = key;
	ix->v[ix->nr++].idx = idx;
}

static void index_sort(struct key_index *ix)
{
	if (ix->nr)
		qsort(ix->v, ix->nr, sizeof(*ix->v), cmp_keyed);
}

/* The index of key, or SIZE_MAX (the first of equal keys: rows are unique by key). */
static size_t index_find(const struct key_index *ix, const char *key)
{
	struct keyed probe = { (char *)key, 0 };
	const struct keyed *hit = ix->nr ? bsearch(&probe, ix->v, ix->nr, sizeof(*ix->v), cmp_keyed) : NULL;

	return hit ? hit->idx : SIZE_MAX;
}

static void index_release(struct key_index *ix)
{
	size_t i;

	for (i = 0; i < ix->nr; i++)
		free(ix->v[i].key);
	free(ix->v);
	memset(ix, 0, sizeof(*ix));
}

static int has_samples(const struct zl_result *r)
{
	return r && r->samples_ms && r->nr_samples_ms >= 2;
}

static int positive(double v)
{
	return isfinite(v) && v > 0;
}

static void judge_samples(struct zl_compare *c, struct zl_compare_row *row, const struct zl_result *ra,
			  const struct zl_result *rb, double spread)
{
	struct zl_verdict_opts vo = ZL_VERDICT_OPTS_INIT;
	struct strbuf sb = STRBUF_INIT;

	vo.threshold_pct = c->opts.threshold_pct;
	vo.floor_pct = row->floor_pct;
	vo.spread_rel = spread;
	zl_verdict_samples(ra->samples_ms, ra->nr_samples_ms, rb->samples_ms, rb->nr_samples_ms, &vo,
			   &row->detail);
	row->method = ZL_METHOD_SAMPLES;
	row->basis = ZL_BASIS_SAMPLES;
	row->verdict = row->detail.verdict;
	row->a_ms = row->detail.a_ms;
	row->b_ms = row->detail.b_ms;
	row->ratio = row->detail.ratio;
	row->ci_low = row->detail.ci_low;
	row->ci_high = row->detail.ci_high;
	row->p_value = row->detail.p_value;
	c->rows_samples++;
	if (row->verdict != ZL_VERDICT_UNSURE)
		return;
	c->rows_unsure++;
	zl_verdict_reason(&row->detail, &sb);
	row->unsure_reason = strbuf_detach(&sb, NULL);
	zl_verdict_advice(&row->detail, row->op, row->floor_calibrated, &sb);
	row->advice = strbuf_detach(&sb, NULL);
}

/* The verdict of a row: on samples when both sides have them, else today's rule on the latencies. */
static void judge_row(struct zl_compare *c, struct zl_compare_row *row, const struct zl_result *ra,
		      const struct zl_result *rb)
{
	double spread;
	double by = positive(row->a_ms) ? row->a_ms : row->b_ms;

	row->floor_pct = zl_compare_floor(&c->opts, by, &spread, &row->floor_calibrated);
	row->floor_class = (int)zl_size_class_of(by);
	row->threshold_pct = c->opts.threshold_pct > row->floor_pct ? c->opts.threshold_pct : row->floor_pct;
	if (!positive(row->a_ms) || !positive(row->b_ms)) {
		row->verdict = ZL_VERDICT_MISSING;
		row->method = ZL_METHOD_NONE;
		row->basis = ZL_BASIS_NONE;
		return;
	}
	if (has_samples(ra) && has_samples(rb)) {
		judge_samples(c, row, ra, rb, spread);
		return;
	}
	c->a_without_samples += !has_samples(ra);
	c->b_without_samples += !has_samples(rb);
	row->method = ZL_METHOD_MEDIANS;
	row->verdict = zl_compare_verdict(row->a_ms, row->b_ms, row->a_iqr, row->a_samples, row->b_iqr,
					  row->b_samples, row->threshold_pct, &row->band_ms, &row->basis);
	row->ratio = row->b_ms / row->a_ms;
	if (row->basis == ZL_BASIS_IQR)
		c->rows_iqr++;
	else
		c->rows_threshold++;
}

static void add_row(struct zl_compare *c, const struct zl_result *ra, const struct zl_result *rb)
{
	const struct zl_result *key = ra ? ra : rb;
	struct zl_compare_row *row;

	ALLOC_GROW(c->rows, c->nr_rows + 1, c->alloc_rows);
	row = &c->rows[c->nr_rows++];
	memset(row, 0, sizeof(*row));
	row->op = xstrdup(key->op);
	row->dtype = xstrdup(key->dtype);
	row->shape = xstrdup(key->shape);
	row->occurrence = key->occurrence;
	row->side = key->side;
	row->in_a = ra != NULL;
	row->in_b = rb != NULL;
	row->a_ms = ra ? ra->latency_ms : NAN;
	row->b_ms = rb ? rb->latency_ms : NAN;
	row->a_iqr = ra ? ra->iqr_ms : NAN;
	row->b_iqr = rb ? rb->iqr_ms : NAN;
	row->a_samples = ra ? ra->samples : -1;
	row->b_samples = rb ? rb->samples : -1;
	row->ratio = row->band_ms = row->ci_low = row->ci_high = row->p_value = NAN;
	row->norm_ratio = NAN;
	judge_row(c, row, ra, rb);
	row->lost_in_b = row->side == ZL_SIDE_GEMS && positive(row->a_ms) && !positive(row->b_ms);
	c->gems_rows += row->side == ZL_SIDE_GEMS;
}

/* Rows of A in A's order (paired with B's by key), then B's rows that A lacks. */
static void build_rows(struct zl_compare *c, size_t *only_a, size_t *only_b)
{
	struct key_index ib = { NULL, 0, 0 };
	char *used = xcalloc(c->b->nr_results ? c->b->nr_results : 1, 1);
	size_t i;

	for (i = 0; i < c->b->nr_results; i++) {
		const struct zl_result *r = &c->b->results[i];
		index_add(&ib, row_key(r->op, r->dtype, r->shape, r->occurrence, (int)r->side), i);
	}
	index_sort(&ib);
	for (i = 0; i < c->a->nr_results; i++) {
		const struct zl_result *ra = &c->a->results[i];
		char *key = row_key(ra->op, ra->dtype, ra->shape, ra->occurrence, (int)ra->side);
		size_t j = index_find(&ib, key);

		free(key);
		if (j != SIZE_MAX)
			used[j] = 1;
		else if (ra->side == ZL_SIDE_GEMS)
			(*only_a)++;
		add_row(c, ra, j != SIZE_MAX ? &c->b->results[j] : NULL);
	}
	for (i = 0; i < c->b->nr_results; i++) {
		if (used[i])
			continue;
		*only_b += c->b->results[i].side == ZL_SIDE_GEMS;
		add_row(c, NULL, &c->b->results[i]);
	}
	free(used);
	index_release(&ib);
}

/* gems B/A over torch B/A of the same shape: what is left when the machine moved both. */
static void build_norm_ratios(struct zl_compare *c)
{
	struct key_index torch = { NULL, 0, 0 };
	size_t i;

	for (i = 0; i < c->nr_rows; i++) {
		const struct zl_compare_row *r = &c->rows[i];
		if (r->side == ZL_SIDE_TORCH && isfinite(r->ratio))
			index_add(&torch, row_key(r->op, r->dtype, r->shape, r->occurrence, -1), i);
	}
	index_sort(&torch);
	for (i = 0; i < c->nr_rows; i++) {
		struct zl_compare_row *r = &c->rows[i];
		char *key;
		size_t j;

		if (r->side != ZL_SIDE_GEMS || !isfinite(r->ratio))
			continue;
		key = row_key(r->op, r->dtype, r->shape, r->occurrence, -1);
		j = index_find(&torch, key);
		free(key);
		if (j != SIZE_MAX)
			r->norm_ratio = r->ratio / c->rows[j].ratio;
	}
	index_release(&torch);
}

/* Geomean of the rows of op (NULL: all) on side; norm: of their gems/torch ratios. */
static void geomean_of(const struct zl_compare *c, const char *op, enum zl_side side, int norm,
		       double *buf, struct zl_geomean *g)
{
	struct zl_geomean tmp;
	size_t i, n = 0;

	for (i = 0; i < c->nr_rows; i++) {
		const struct zl_compare_row *r = &c->rows[i];
		double v = norm ? r->norm_ratio : r->ratio;

		if (r->side != side || r->verdict == ZL_VERDICT_MISSING || !positive(v) ||
		    (op && strcmp(r->op, op)))
			continue;
		buf[n++] = v;
	}
	if (!norm) {
		zl_geomean_ci(buf, n, c->opts.resamples, c->opts.seed, g);
		return;
	}
	zl_geomean_ci(buf, n, c->opts.resamples, c->opts.seed, &tmp);
	g->norm_n = tmp.n;
	g->norm = tmp.geomean;
	g->norm_lo = tmp.lo;
	g->norm_hi = tmp.hi;
}

static void build_geomeans(struct zl_compare *c)
{
	double *buf = xcalloc(c->nr_rows ? c->nr_rows : 1, sizeof(*buf));
	size_t i, j;

	for (i = 0; i < c->nr_rows; i++) {
		const char *op = c->rows[i].op;
		struct zl_geomean *g;

		for (j = 0; j < c->nr_ops; j++)
			if (!strcmp(c->ops[j].op, op))
				break;
		if (j < c->nr_ops)
			continue;
		ALLOC_GROW(c->ops, c->nr_ops + 1, c->alloc_ops);
		g = &c->ops[c->nr_ops++];
		geomean_init(g);
		g->op = xstrdup(op);
		geomean_of(c, op, ZL_SIDE_GEMS, 0, buf, g);
		if (c->drift.control)
			geomean_of(c, op, ZL_SIDE_GEMS, 1, buf, g);
	}
	geomean_of(c, NULL, ZL_SIDE_GEMS, 0, buf, &c->overall);
	if (c->drift.control) {
		geomean_of(c, NULL, ZL_SIDE_GEMS, 1, buf, &c->overall);
		geomean_of(c, NULL, ZL_SIDE_TORCH, 0, buf, &c->drift.torch);
	}
	free(buf);
}

/* The torch side is a control when both runs name the same torch version. */
static void build_drift(struct zl_compare *c)
{
	struct zl_drift *d = &c->drift;
	const struct zl_geomean *t = &d->torch;

	d->torch_a = zl_json_path_dup(c->a->identity, "vendor_guard.torch_version");
	d->torch_b = zl_json_path_dup(c->b->identity, "vendor_guard.torch_version");
	d->control = d->torch_a && d->torch_b && !strcmp(d->torch_a, d->torch_b);
	if (d->control)
		build_norm_ratios(c);
	build_geomeans(c);
	d->moved = d->control && t->n >= 2 && (t->hi < 1 || t->lo > 1) &&
		   fabs(t->geomean - 1) >= ZL_DRIFT_MIN_PCT / 100;
}

static void row_label(struct strbuf *sb, const struct zl_compare_row *r)
{
	strbuf_addf(sb, "%s %s %s", r->op, r->dtype, r->shape);
	if (r->occurrence > 1)
		strbuf_addf(sb, " #%d", r->occurrence);
	strbuf_addf(sb, " (%s)", zl_side_name(r->side));
}

static int passed(const struct zl_run *r)
{
	return same_text(r->status, "passed");
}

/* "'crashed' (reason: ...)": a run's status and, when it has one, its reason. */
static void status_text(struct strbuf *sb, const struct zl_run *r)
{
	const char *reason = zl_json_path_string(r->identity, "reason");

	strbuf_addf(sb, "'%s'", r->status ? r->status : "(none)");
	if (reason && *reason)
		strbuf_addf(sb, " (%s)", reason);
}

static void build_warnings(struct zl_compare *c, size_t only_a, size_t only_b)
{
	size_t i, no_latency = 0, torch_moved = 0, torch_rows = 0;
	struct strbuf sb = STRBUF_INIT;

	for (i = 0; i < 2; i++) {
		const struct zl_run *r = i ? c->b : c->a;

		if (passed(r))
			continue;
		strbuf_reset(&sb);
		status_text(&sb, r);
		strvec_pushf(&c->warnings, "%s's status is %s, not passed: its figures may be incomplete",
			     i ? "B" : "A", sb.buf);
	}
	strbuf_release(&sb);
	for (i = 0; i < c->a->notes.nr; i++)
		strvec_pushf(&c->warnings, "A: %s", c->a->notes.v[i]);
	for (i = 0; i < c->b->notes.nr; i++)
		strvec_pushf(&c->warnings, "B: %s", c->b->notes.v[i]);
	for (i = 0; i < c->nr_rows; i++) {
		const struct zl_compare_row *r = &c->rows[i];

		if (r->side != ZL_SIDE_GEMS) {
			torch_rows++;
			torch_moved += r->verdict == ZL_VERDICT_FASTER || r->verdict == ZL_VERDICT_SLOWER;
		} else if (r->verdict == ZL_VERDICT_MISSING && r->in_a && r->in_b) {
			no_latency++;
		}
	}
	if (only_a)
		strvec_pushf(&c->warnings, "%zu shapes are only in A", only_a);
	if (only_b)
		strvec_pushf(&c->warnings, "%zu shapes are only in B", only_b);
	if (no_latency)
		strvec_pushf(&c->warnings, "%zu shapes lack a latency on one side", no_latency);
	if (torch_moved)
		strvec_pushf(&c->warnings, "the torch baseline moved beyond noise on %zu of %zu rows: "
			     "the machine or its load may have changed between A and B",
			     torch_moved, torch_rows);
}

/*
 * A gems row fails when it is "slower" and more than pct slower; with
 * --fail-on-unsure also when it is "unsure" and its interval does not rule out
 * more than pct slower. Verdicts carry the floor: a pct below it cannot be decided.
 */
static void gate_row(struct zl_compare *c, struct zl_compare_row *r, double limit)
{
	struct strbuf label = STRBUF_INIT;

	if (r->verdict == ZL_VERDICT_MISSING) {
		/* a shape B lost is no pass: it may be the very one that regressed */
		if (r->lost_in_b && !c->opts.allow_missing) {
			r->gate_failed = 1;
			c->gate_rows++;
		}
		return;
	}
	if (r->side != ZL_SIDE_GEMS)
		return;
	if (r->verdict == ZL_VERDICT_SLOWER && r->ratio > limit) {
		row_label(&label, r);
		if (r->method == ZL_METHOD_SAMPLES)
			strvec_pushf(&c->gate_reasons, "%s: B/A %.4f [%.4f, %.4f], %.1f%% slower (limit %g%%): "
				     "slower beyond its %g%% threshold, Mann-Whitney p %.2g", label.buf, r->ratio,
				     r->ci_low, r->ci_high, (r->ratio - 1) * 100, c->opts.fail_pct,
				     r->threshold_pct, r->p_value);
		else
			strvec_pushf(&c->gate_reasons, "%s: B/A %.4f, %.1f%% slower (limit %g%%): slower by "
				     "the medians rule (%s, no samples_ms)", label.buf, r->ratio,
				     (r->ratio - 1) * 100, c->opts.fail_pct,
				     r->basis == ZL_BASIS_IQR ? "beyond the timer IQRs and its threshold" :
				     "beyond its threshold");
	} else if (c->opts.fail_on_unsure && r->verdict == ZL_VERDICT_UNSURE && !(r->ci_high <= limit)) {
		row_label(&label, r);
		strvec_pushf(&c->gate_reasons, "%s: unsure (%s) and --fail-on-unsure: B/A %.4f, its %g%% CI "
			     "reaches %.4f, beyond the %g%% limit", label.buf, zl_unsure_name(r->detail.unsure),
			     r->ratio, ZL_VERDICT_CONF * 100, r->ci_high, c->opts.fail_pct);
	} else {
		return;
	}
	r->gate_failed = 1;
	c->gate_failed = 1;
	c->gate_rows++;
	strbuf_release(&label);
}

/*
 * The gate passes only on evidence: both runs passed, some gems shape has a
 * latency on both sides, and B kept every gems shape of A (unless allowed).
 */
static void gate_evidence(struct zl_compare *c)
{
	struct strbuf sb = STRBUF_INIT, first = STRBUF_INIT;
	size_t i, lost = 0;

	if (!passed(c->a)) {
		status_text(&sb, c->a);
		strvec_pushf(&c->gate_reasons, "A's status is %s, not passed: a baseline that did not "
			     "pass is no baseline", sb.buf);
		strbuf_reset(&sb);
	}
	if (!passed(c->b)) {
		status_text(&sb, c->b);
		strvec_pushf(&c->gate_reasons, "B's status is %s, not passed: a run that did not pass "
			     "cannot pass the gate", sb.buf);
	}
	if (!c->overall.n)
		strvec_pushf(&c->gate_reasons, "no gems shape has a latency in both A and B: nothing "
			     "was compared");
	for (i = 0; i < c->nr_rows; i++) {
		if (!c->rows[i].lost_in_b)
			continue;
		if (!lost++)
			row_label(&first, &c->rows[i]);
	}
	if (lost && !c->opts.allow_missing)
		strvec_pushf(&c->gate_reasons, "%zu gems shape%s of A %s no latency in B (first: %s): "
			     "B failed, crashed or dropped them; --allow-missing-shapes gates only the "
			     "shapes both runs have", lost, lost == 1 ? "" : "s", lost == 1 ? "has" : "have",
			     first.buf);
	else if (lost)
		strvec_pushf(&c->warnings, "%zu gems shape%s of A %s no latency in B (first: %s): not "
			     "gated (--allow-missing-shapes)", lost, lost == 1 ? "" : "s",
			     lost == 1 ? "has" : "have", first.buf);
	if (c->gate_reasons.nr)
		c->gate_failed = 1;
	strbuf_release(&sb);
	strbuf_release(&first);
}

static void apply_gate(struct zl_compare *c)
{
	double limit = 1 + c->opts.fail_pct / 100;
	size_t i;

	if (c->opts.fail_pct < 0)
		return;
	gate_evidence(c);
	if (c->overall.n && c->overall.geomean > limit) {
		c->gate_failed = 1;
		strvec_pushf(&c->gate_reasons, "overall geomean B/A %.4f is %.1f%% slower (limit %g%%)",
			     c->overall.geomean, (c->overall.geomean - 1) * 100, c->opts.fail_pct);
	}
	for (i = 0; i < c->nr_rows; i++)
		gate_row(c, &c->rows[i], limit);
}

void zl_compare_runs(const struct zl_run *a, const struct zl_run *b,
		     const struct zl_compare_opts *opts, struct zl_compare *out)
{
	size_t only_a = 0, only_b = 0;

	out->a = a;
	out->b = b;
	if (opts)
		out->opts = *opts;
	zl_caliber_check(a, b, &out->caliber);
	build_rows(out, &only_a, &only_b);
	build_drift(out);
	build_warnings(out, only_a, only_b);
	apply_gate(out);
}

/* ---- rendering -------------------------------------------------------------- */

/* Unsure rows listed one by one in text and Markdown; JSON and CSV carry them all. */
#define UNSURE_LISTED 20

static int has_mismatch(const struct zl_compare *c)
{
	return c->caliber.mismatches.nr > 0;
}

static void mismatch_summary(const struct zl_compare *c, struct strbuf *sb, const char *sep)
{
	size_t i;

	for (i = 0; i < c->caliber.mismatches.nr; i++) {
		const struct zl_diff *d = &c->caliber.mismatches.v[i];
		strbuf_addf(sb, "%s%s: %s vs %s", i ? sep : "", d->field, d->a, d->b);
	}
}

/* "calibration 3" or "fixed": the contract's floor source of a row. */
static void floor_source(const struct zl_compare *c, const struct zl_compare_row *r, struct strbuf *sb)
{
	if (r->floor_calibrated)
		strbuf_addf(sb, "calibration %ld", c->opts.calibration->id);
	else
		strbuf_addstr(sb, "fixed");
}

/* Where the floor comes from, one line. */
void zl_compare_floor_summary(const struct zl_compare *c, struct strbuf *sb)
{
	const struct zl_calibration *cal = c->opts.calibration;
	size_t i, missing = 0;
	const char *sep = ": ";

	if (!cal) {
		strbuf_addf(sb, "fixed %g%%", ZL_FIXED_FLOOR_PCT);
		if (c->opts.floor_note)
			strbuf_addf(sb, " (%s)", c->opts.floor_note);
	} else {
		zl_calibration_describe(cal, sb);
		for (i = 0; i < ZL_SIZE__COUNT; i++) {
			if (!cal->cls[i].present) {
				missing++;
				continue;
			}
			strbuf_addf(sb, "%s%s %g%%", sep, zl_size_class_name((enum zl_size_class)i),
				    cal->cls[i].floor_pct);
			sep = ", ";
		}
		if (missing)
			strbuf_addf(sb, "; other size classes: fixed %g%%", ZL_FIXED_FLOOR_PCT);
	}
	if (c->opts.threshold_pct > 0)
		strbuf_addf(sb, "; --threshold %g%%: each row's threshold is max(%g%%, its floor)",
			    c->opts.threshold_pct, c->opts.threshold_pct);
}

static const char *sides_text(size_t a, size_t b)
{
	return a && b ? "A and B" : a ? "A" : "B";
}

/* The medians rows: how many by timer IQR, how many by the threshold alone, and why. */
static void medians_summary(const struct zl_compare *c, struct strbuf *sb)
{
	strbuf_addf(sb, "%s (in %s): ", zl_method_name(ZL_METHOD_MEDIANS),
		    sides_text(c->a_without_samples, c->b_without_samples));
	if (c->rows_iqr)
		strbuf_addf(sb, "%zu rows by timer IQR (same when |B-A| <= max((IQR_A+IQR_B)/2, "
			    "threshold * A))", c->rows_iqr);
	if (c->rows_iqr && c->rows_threshold)
		strbuf_addstr(sb, "; ");
	if (c->rows_threshold) {
		strbuf_addf(sb, "%zu rows by the threshold (no timer IQR from 2 or more samples",
			    c->rows_threshold);
		if (!c->a->has_timer || !c->b->has_timer)
			strbuf_addf(sb, ": no plugins/timer.jsonl in %s",
				    sides_text(!c->a->has_timer, !c->b->has_timer));
		strbuf_addch(sb, ')');
	}
}

static void verdict_summary(const struct zl_compare *c, struct strbuf *sb)
{
	if (c->rows_samples)
		strbuf_addf(sb, "%zu rows on samples (same: the %g%% CI of B/A inside ±threshold; "
			    "faster/slower: the CI beyond it and Mann-Whitney p < %g; otherwise unsure)",
			    c->rows_samples, ZL_VERDICT_CONF * 100, ZL_VERDICT_ALPHA);
	if (c->rows_samples && c->rows_iqr + c->rows_threshold)
		strbuf_addstr(sb, "; ");
	if (c->rows_iqr + c->rows_threshold)
		medians_summary(c, sb);
	if (!c->rows_samples && !c->rows_iqr && !c->rows_threshold)
		strbuf_addstr(sb, "no comparable rows");
	if (c->rows_unsure)
		strbuf_addf(sb, "; %zu unsure", c->rows_unsure);
}

static void gate_rule(const struct zl_compare *c, struct strbuf *sb)
{
	strbuf_addf(sb, "fails when the overall gems geomean is more than %g%% slower, or a gems shape "
		    "is slower (beyond its threshold, max(--threshold, floor)) and more than %g%% slower",
		    c->opts.fail_pct, c->opts.fail_pct);
	if (c->opts.fail_on_unsure)
		strbuf_addf(sb, ", or unsure with a %g%% CI reaching beyond %g%% slower (--fail-on-unsure)",
			    ZL_VERDICT_CONF * 100, c->opts.fail_pct);
	strbuf_addf(sb, "; also when A or B did not pass, no gems shape is on both sides%s",
		    c->opts.allow_missing ? "" : ", or B lacks a gems shape of A");
}

/* The drift line: only when the torch side moved. */
static void drift_line(const struct zl_compare *c, struct strbuf *sb)
{
	const struct zl_drift *d = &c->drift;

	strbuf_addf(sb, "machine drift: torch side geomean %.4f [%.4f, %.4f] over %zu shapes (torch %s in "
		    "A and B: the same library calls)", d->torch.geomean, d->torch.lo, d->torch.hi,
		    d->torch.n, d->torch_a);
	if (c->overall.norm_n)
		strbuf_addf(sb, "; gems/torch geomean %.4f [%.4f, %.4f] next to gems-only %.4f [%.4f, %.4f]",
			    c->overall.norm, c->overall.norm_lo, c->overall.norm_hi, c->overall.geomean,
			    c->overall.lo, c->overall.hi);
}

/* Why the torch side is no control, or NULL when it is one. */
static const char *no_control_reason(const struct zl_compare *c, struct strbuf *sb)
{
	const struct zl_drift *d = &c->drift;

	if (d->control)
		return NULL;
	if (d->torch_a && d->torch_b)
		strbuf_addf(sb, "torch %s in A, %s in B: the torch side changed too", d->torch_a, d->torch_b);
	else
		strbuf_addf(sb, "the torch version of %s is unknown", sides_text(!d->torch_a, !d->torch_b));
	return sb->buf;
}

static void fmt_ms(struct strbuf *sb, double v)
{
	if (isfinite(v))
		strbuf_addf(sb, "%.6f", v);
	else
		strbuf_addch(sb, '-');
}

static void fmt_change(struct strbuf *sb, double ratio)
{
	if (isfinite(ratio))
		strbuf_addf(sb, "%+.1f%%", (ratio - 1) * 100);
	else
		strbuf_addch(sb, '-');
}

static void fmt_row_ci(struct strbuf *sb, const struct zl_compare_row *r)
{
	if (isfinite(r->ci_low) && isfinite(r->ci_high))
		strbuf_addf(sb, "[%.4f, %.4f]", r->ci_low, r->ci_high);
	else
		strbuf_addch(sb, '-');
}

static void fmt_p(struct strbuf *sb, double p)
{
	if (isfinite(p))
		strbuf_addf(sb, "%.2g", p);
	else
		strbuf_addch(sb, '-');
}

/* "samples 2000/2000", "medians iqr ±0.000123", "medians ±5%". */
static void fmt_method(struct strbuf *sb, const struct zl_compare_row *r)
{
	if (r->method == ZL_METHOD_SAMPLES)
		strbuf_addf(sb, "samples %zu/%zu", r->detail.a_n, r->detail.b_n);
	else if (r->basis == ZL_BASIS_IQR)
		strbuf_addf(sb, "medians iqr ±%.6f", r->band_ms);
	else if (r->basis == ZL_BASIS_THRESHOLD)
		strbuf_addf(sb, "medians ±%g%%", r->threshold_pct);
	else
		strbuf_addch(sb, '-');
}

static void shape_cell(struct strbuf *sb, const struct zl_compare_row *r)
{
	strbuf_addstr(sb, r->shape);
	if (r->occurrence > 1)
		strbuf_addf(sb, " #%d", r->occurrence);
}

static void fmt_geomean(struct strbuf *sb, const struct zl_geomean *g)
{
	if (!g->n)
		strbuf_addstr(sb, "-");
	else
		strbuf_addf(sb, "%.4f", g->geomean);
}

static void fmt_ci(struct strbuf *sb, const struct zl_geomean *g)
{
	if (g->n)
		strbuf_addf(sb, "[%.4f, %.4f]", g->lo, g->hi);
	else
		strbuf_addch(sb, '-');
}

static void fmt_norm(struct strbuf *sb, const struct zl_geomean *g, int ci)
{
	if (!g->norm_n)
		strbuf_addch(sb, '-');
	else if (ci)
		strbuf_addf(sb, "[%.4f, %.4f]", g->norm_lo, g->norm_hi);
	else
		strbuf_addf(sb, "%.4f", g->norm);
}

static void print_diffs(FILE *out, const char *title, const struct zl_diffs *d)
{
	size_t i;

	if (!d->nr)
		return;
	fprintf(out, "%s\n", title);
	for (i = 0; i < d->nr; i++)
		fprintf(out, "  %s: %s -> %s\n", d->v[i].field, d->v[i].a, d->v[i].b);
}

static const enum zl_color verdict_colors[] = {
	[ZL_VERDICT_SAME] = ZL_COLOR_NONE,
	[ZL_VERDICT_FASTER] = ZL_COLOR_GREEN,
	[ZL_VERDICT_SLOWER] = ZL_COLOR_RED,
	[ZL_VERDICT_UNSURE] = ZL_COLOR_YELLOW,
	[ZL_VERDICT_MISSING] = ZL_COLOR_YELLOW,
};

static void print_rows_table(const struct zl_compare *c, FILE *out, int use_color)
{
	static const char *const head[] = { "op", "dtype", "shape", "side", "A ms", "B ms", "B/A",
					    "change", "95% CI", "p", "verdict", "method", "gate" };
	/* the gate column only when there is a gate */
	size_t ncols = ZL_ARRAY_SIZE(head) - (c->opts.fail_pct < 0);
	struct zl_table t;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	zl_table_init(&t, ncols, (1ul << 4) | (1ul << 5) | (1ul << 6) | (1ul << 7) | (1ul << 9));
	for (i = 0; i < ncols; i++)
		zl_table_add(&t, head[i], ZL_COLOR_BOLD);
	for (i = 0; i < c->nr_rows; i++) {
		const struct zl_compare_row *r = &c->rows[i];

		zl_table_add(&t, r->op, ZL_COLOR_NONE);
		zl_table_add(&t, r->dtype, ZL_COLOR_NONE);
		strbuf_reset(&sb);
		shape_cell(&sb, r);
		zl_table_add(&t, sb.buf, ZL_COLOR_NONE);
		zl_table_add(&t, zl_side_name(r->side), ZL_COLOR_NONE);
		strbuf_reset(&sb);
		fmt_ms(&sb, r->a_ms);
		zl_table_add(&t, sb.buf, ZL_COLOR_NONE);
		strbuf_reset(&sb);
		fmt_ms(&sb, r->b_ms);
		zl_table_add(&t, sb.buf, ZL_COLOR_NONE);
		strbuf_reset(&sb);
		if (isfinite(r->ratio))
			strbuf_addf(&sb, "%.4f", r->ratio);
		else
			strbuf_addch(&sb, '-');
		zl_table_add(&t, sb.buf, ZL_COLOR_NONE);
		strbuf_reset(&sb);
		fmt_change(&sb, r->ratio);
		zl_table_add(&t, sb.buf, verdict_colors[r->verdict]);
		strbuf_reset(&sb);
		fmt_row_ci(&sb, r);
		zl_table_add(&t, sb.buf, ZL_COLOR_NONE);
		strbuf_reset(&sb);
		fmt_p(&sb, r->p_value);
		zl_table_add(&t, sb.buf, ZL_COLOR_NONE);
		zl_table_add(&t, zl_verdict_name(r->verdict), verdict_colors[r->verdict]);
		strbuf_reset(&sb);
		fmt_method(&sb, r);
		zl_table_add(&t, sb.buf, ZL_COLOR_NONE);
		if (ncols == ZL_ARRAY_SIZE(head))
			zl_table_add(&t, r->gate_failed ? "FAILED" : "", ZL_COLOR_RED);
	}
	zl_table_print(&t, out, use_color);
	zl_table_release(&t);
	strbuf_release(&sb);
}

/* Each unsure row with its reason and advice, at most UNSURE_LISTED of them. */
static void print_unsure(const struct zl_compare *c, FILE *out, const char *warn, const char *reset)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, shown = 0;

	if (!c->rows_unsure)
		return;
	fprintf(out, "%sunsure: %zu rows (--fail-on-unsure makes the gate fail on gems rows among them "
		"that may be too slow):%s\n", warn, c->rows_unsure, reset);
	for (i = 0; i < c->nr_rows && shown < UNSURE_LISTED; i++) {
		const struct zl_compare_row *r = &c->rows[i];

		if (r->verdict != ZL_VERDICT_UNSURE)
			continue;
		strbuf_reset(&sb);
		row_label(&sb, r);
		fprintf(out, "  %s: %s\n    advice: %s\n", sb.buf, r->unsure_reason, r->advice);
		shown++;
	}
	if (c->rows_unsure > shown)
		fprintf(out, "  ... and %zu more (--json and --csv list them all)\n", c->rows_unsure - shown);
	fputc('\n', out);
	strbuf_release(&sb);
}

static void print_geomeans(const struct zl_compare *c, FILE *out, int use_color)
{
	int norm = c->drift.control;
	size_t ncols = norm ? 6 : 4, i;
	struct zl_table t;
	struct strbuf sb = STRBUF_INIT;

	fprintf(out, "geomean of B/A (95%% bootstrap CI over shapes, %d resamples):\n", c->opts.resamples);
	zl_table_init(&t, ncols, (1ul << 1) | (1ul << 3) | (1ul << 4));
	zl_table_add(&t, "", ZL_COLOR_BOLD);
	zl_table_add(&t, "gems", ZL_COLOR_BOLD);
	zl_table_add(&t, "95% CI", ZL_COLOR_BOLD);
	zl_table_add(&t, "shapes", ZL_COLOR_BOLD);
	if (norm) {
		zl_table_add(&t, "gems/torch", ZL_COLOR_BOLD);
		zl_table_add(&t, "95% CI", ZL_COLOR_BOLD);
	}
	for (i = 0; i <= c->nr_ops + (size_t)norm; i++) {
		const struct zl_geomean *g = i < c->nr_ops ? &c->ops[i] :
					     i == c->nr_ops ? &c->overall : &c->drift.torch;
		enum zl_color color = !g->n ? ZL_COLOR_NONE :
				      g->hi < 1 ? ZL_COLOR_GREEN : g->lo > 1 ? ZL_COLOR_RED : ZL_COLOR_NONE;

		zl_table_addf(&t, ZL_COLOR_NONE, "  %s", i < c->nr_ops ? g->op :
			      i == c->nr_ops ? "overall" : "torch side (control)");
		strbuf_reset(&sb);
		fmt_geomean(&sb, g);
		zl_table_add(&t, sb.buf, i > c->nr_ops ? ZL_COLOR_NONE : color);
		strbuf_reset(&sb);
		fmt_ci(&sb, g);
		zl_table_add(&t, sb.buf, ZL_COLOR_NONE);
		zl_table_addf(&t, ZL_COLOR_NONE, "n=%zu", g->n);
		if (norm) {
			strbuf_reset(&sb);
			if (i <= c->nr_ops)
				fmt_norm(&sb, g, 0);
			zl_table_add(&t, sb.buf, ZL_COLOR_NONE);
			strbuf_reset(&sb);
			if (i <= c->nr_ops)
				fmt_norm(&sb, g, 1);
			zl_table_add(&t, sb.buf, ZL_COLOR_NONE);
		}
	}
	zl_table_print(&t, out, use_color);
	zl_table_release(&t);
	strbuf_release(&sb);
}

static void print_run_line(FILE *out, const char *side, const struct zl_run *r, const char *warn,
			   const char *reset)
{
	const char *note = zl_history_loaded_note(r);

	fprintf(out, "%s: %s  %s  %s\n", side, r->run_id, r->status ? r->status : "?",
		r->dir ? r->dir : NONE_TEXT);
	if (note)
		fprintf(out, "%s   %s%s\n", warn, note, reset);
}

/* The caliber lines: ok or the mismatches, autotune, the flags and the A/B variables. */
static void print_caliber(const struct zl_compare *c, FILE *out, const char *warn, const char *reset)
{
	size_t i;

	if (!c->caliber.mismatches.nr)
		fprintf(out, "caliber: ok (backend %s, device %s, level %s, shape mode %s, timer plan %s, "
			"tuner cache %s)\n", c->a->backend ? c->a->backend : NONE_TEXT,
			c->a->device_name ? c->a->device_name : NONE_TEXT,
			c->a->level ? c->a->level : NONE_TEXT,
			c->a->shape_mode ? c->a->shape_mode : NONE_TEXT,
			c->a->timer_plan ? c->a->timer_plan : NONE_TEXT,
			c->a->tuner_cache_mode ? c->a->tuner_cache_mode : NONE_TEXT);
	else
		print_diffs(out, "caliber: MISMATCH (allowed)", &c->caliber.mismatches);
	fprintf(out, "autotune: %s\n", c->caliber.autotune);
	for (i = 0; i < c->caliber.flags.nr; i++)
		fprintf(out, "%sflag: %s%s\n", warn, c->caliber.flags.v[i], reset);
	print_diffs(out, "A/B variables:", &c->caliber.variables);
}

/* The gate's verdict, its rule, its reasons and the failed row count; nothing without a gate. */
static void print_gate(const struct zl_compare *c, FILE *out, int use_color)
{
	const char *red = use_color ? zl_color_start(ZL_COLOR_RED) : "";
	const char *green = use_color ? zl_color_start(ZL_COLOR_GREEN) : "";
	const char *reset = use_color ? ZL_COLOR_RESET : "";
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	if (c->opts.fail_pct < 0)
		return;
	fprintf(out, "gate (--fail-on-regression %g%%): %s%s%s\n", c->opts.fail_pct,
		c->gate_failed ? red : green, c->gate_failed ? "FAILED" : "passed", reset);
	gate_rule(c, &sb);
	fprintf(out, "  rule: %s\n", sb.buf);
	for (i = 0; i < c->gate_reasons.nr; i++)
		fprintf(out, "  %s\n", c->gate_reasons.v[i]);
	fprintf(out, "  %zu of %zu gems shapes failed the gate%s\n", c->gate_rows, c->gems_rows,
		c->gate_rows ? " (FAILED in the gate column)" : "");
	strbuf_release(&sb);
}

void zl_compare_print_text(const struct zl_compare *c, FILE *out, int use_color)
{
	const char *warn = use_color ? zl_color_start(ZL_COLOR_YELLOW) : "";
	const char *reset = use_color ? ZL_COLOR_RESET : "";
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	if (has_mismatch(c)) {
		mismatch_summary(c, &sb, "; ");
		fprintf(out, "%sWARNING: caliber mismatch allowed (--allow-caliber-mismatch): %s%s\n",
			warn, sb.buf, reset);
		strbuf_reset(&sb);
	}
	print_run_line(out, "A", c->a, warn, reset);
	print_run_line(out, "B", c->b, warn, reset);
	print_caliber(c, out, warn, reset);
	zl_compare_floor_summary(c, &sb);
	fprintf(out, "floor: %s\n", sb.buf);
	strbuf_reset(&sb);
	verdict_summary(c, &sb);
	fprintf(out, "verdicts: %s\n\n", sb.buf);
	print_rows_table(c, out, use_color);
	fputc('\n', out);
	print_unsure(c, out, warn, reset);
	print_geomeans(c, out, use_color);
	strbuf_reset(&sb);
	if (c->drift.moved) {
		drift_line(c, &sb);
		fprintf(out, "%s%s%s\n", warn, sb.buf, reset);
	} else if (no_control_reason(c, &sb)) {
		fprintf(out, "drift control: none (%s)\n", sb.buf);
	}
	for (i = 0; i < c->warnings.nr; i++)
		fprintf(out, "%swarning: %s%s\n", warn, c->warnings.v[i], reset);
	print_gate(c, out, use_color);
	if (has_mismatch(c))
		fprintf(out, "%sWARNING: A and B differ in caliber; the figures above may not be "
			"comparable%s\n", warn, reset);
	strbuf_release(&sb);
}

/* JSON */

static cJSON *diffs_json(const struct zl_diffs *d)
{
	cJSON *arr = cJSON_CreateArray();
	size_t i;

	for (i = 0; arr && i < d->nr; i++) {
		cJSON *o = cJSON_CreateObject();

		if (zl_json_add_item(arr, NULL, o)) {
			break;
		}
		if (zl_json_add_string(o, "field", d->v[i].field) ||
		    zl_json_add_string(o, "a", d->v[i].a) || zl_json_add_string(o, "b", d->v[i].b))
			break;
	}
	if (arr && i < d->nr) {
		cJSON_Delete(arr);
		return NULL;
	}
	return arr;
}

static int run_json(cJSON *root, const char *key, const struct zl_run *r)
{
	cJSON *o = cJSON_AddObjectToObject(root, key);

	return !o || zl_json_add_string(o, "run_id", r->run_id) ||
	       zl_json_add_string(o, "dir", r->dir) || zl_json_add_string(o, "status", r->status) ||
	       zl_json_add_string(o, "started_at", r->started_at) ||
	       zl_json_add_bool(o, "has_results", r->has_results) ||
	       zl_json_add_bool(o, "has_timer", r->has_timer) ||
	       zl_json_add_number(o, "rows_with_samples", (double)r->rows_with_samples) ||
	       zl_json_add_string(o, "history", zl_history_loaded_note(r)) ? -1 : 0;
}

static int caliber_json(cJSON *root, const struct zl_compare *c)
{
	const struct zl_caliber *cal = &c->caliber;
	cJSON *o = cJSON_AddObjectToObject(root, "caliber");

	return !o || zl_json_add_bool(o, "ok", !cal->mismatches.nr) ||
	       zl_json_add_bool(o, "mismatch_allowed", cal->mismatches.nr > 0) ||
	       zl_json_add_item(o, "mismatches", diffs_json(&cal->mismatches)) ||
	       zl_json_add_string(o, "autotune", cal->autotune) ||
	       zl_json_add_bool(o, "autotune_proper", cal->autotune_proper) ||
	       zl_json_add_bool(o, "cache_inheritance", cal->cache_inheritance) ||
	       zl_json_add_item(o, "flags", zl_json_strvec(&cal->flags)) ||
	       zl_json_add_item(o, "variables", diffs_json(&cal->variables)) ? -1 : 0;
}

static int modes_json(cJSON *o, const char *key, const struct zl_bimodal *m)
{
	cJSON *x = cJSON_AddObjectToObject(o, key);

	return !x || zl_json_add_bool(x, "bimodal", m->bimodal) ||
	       zl_json_add_number(x, "sarle", m->sarle) ||
	       zl_json_add_number(x, "low_mean_ms", m->low_mean) ||
	       zl_json_add_number(x, "high_mean_ms", m->high_mean) ||
	       zl_json_add_number(x, "high_frac", m->high_frac) || zl_json_add_number(x, "dip", m->dip) ? -1 : 0;
}

static int row_json(cJSON *arr, const struct zl_compare *c, const struct zl_compare_row *r)
{
	cJSON *o = cJSON_CreateObject(), *fl;
	struct strbuf src = STRBUF_INIT;
	int bad;

	if (zl_json_add_item(arr, NULL, o)) {
		return -1;
	}
	floor_source(c, r, &src);
	fl = cJSON_AddObjectToObject(o, "floor");
	bad = zl_json_add_string(o, "op", r->op) || zl_json_add_string(o, "dtype", r->dtype) ||
	      zl_json_add_string(o, "shape", r->shape) ||
	      zl_json_add_number(o, "occurrence", r->occurrence) ||
	      zl_json_add_string(o, "side", zl_side_name(r->side)) ||
	      zl_json_add_number(o, "a_ms", r->a_ms) || zl_json_add_number(o, "b_ms", r->b_ms) ||
	      zl_json_add_number(o, "ratio", r->ratio) ||
	      zl_json_add_number(o, "ci_low", r->ci_low) || zl_json_add_number(o, "ci_high", r->ci_high) ||
	      zl_json_add_number(o, "p_value", r->p_value) ||
	      zl_json_add_string(o, "verdict", zl_verdict_name(r->verdict)) ||
	      zl_json_add_string(o, "method", zl_method_name(r->method)) ||
	      !fl || zl_json_add_number(fl, "pct", r->floor_pct) || zl_json_add_string(fl, "source", src.buf) ||
	      zl_json_add_string(fl, "size_class", (size_t)r->floor_class < ZL_SIZE__COUNT
							   ? zl_size_class_name((enum zl_size_class)r->floor_class)
							   : NULL) ||
	      zl_json_add_number(o, "threshold_pct", r->threshold_pct) ||
	      zl_json_add_string(o, "unsure_reason", r->unsure_reason) ||
	      zl_json_add_string(o, "advice", r->advice) ||
	      zl_json_add_string(o, "basis", zl_noise_basis_name(r->basis)) ||
	      zl_json_add_number(o, "band_ms", r->band_ms) ||
	      zl_json_add_number(o, "a_iqr_ms", r->a_iqr) || zl_json_add_number(o, "b_iqr_ms", r->b_iqr) ||
	      zl_json_add_number(o, "a_samples", r->a_samples < 0 ? NAN : (double)r->a_samples) ||
	      zl_json_add_number(o, "b_samples", r->b_samples < 0 ? NAN : (double)r->b_samples) ||
	      zl_json_add_number(o, "gems_torch_ratio", r->norm_ratio) ||
	      zl_json_add_bool(o, "gate_failed", r->gate_failed);
	if (!bad && r->method == ZL_METHOD_SAMPLES) {
		cJSON *s = cJSON_AddObjectToObject(o, "samples");

		bad = !s || zl_json_add_number(s, "a_n", (double)r->detail.a_n) ||
		      zl_json_add_number(s, "b_n", (double)r->detail.b_n) ||
		      zl_json_add_number(s, "p_min", r->detail.p_min) ||
		      zl_json_add_number(s, "se_log", r->detail.se_log) ||
		      zl_json_add_number(s, "within_se_log", r->detail.within_se_log) ||
		      zl_json_add_number(s, "run_sd_log", r->detail.run_sd) ||
		      modes_json(s, "a_modes", &r->detail.a_modes) || modes_json(s, "b_modes", &r->detail.b_modes);
	}
	strbuf_release(&src);
	return bad ? -1 : 0;
}

static int geomean_json(cJSON *o, const struct zl_geomean *g, int norm)
{
	cJSON *n;

	if ((g->op && zl_json_add_string(o, "op", g->op)) ||
	    zl_json_add_number(o, "n", (double)g->n) || zl_json_add_number(o, "geomean", g->geomean) ||
	    zl_json_add_number(o, "ci_low", g->lo) || zl_json_add_number(o, "ci_high", g->hi))
		return -1;
	if (!norm)
		return 0;
	n = cJSON_AddObjectToObject(o, "gems_torch");
	return !n || zl_json_add_number(n, "n", (double)g->norm_n) ||
	       zl_json_add_number(n, "geomean", g->norm_n ? g->norm : NAN) ||
	       zl_json_add_number(n, "ci_low", g->norm_n ? g->norm_lo : NAN) ||
	       zl_json_add_number(n, "ci_high", g->norm_n ? g->norm_hi : NAN) ? -1 : 0;
}

static int geomeans_json(cJSON *root, const struct zl_compare *c)
{
	cJSON *o = cJSON_AddObjectToObject(root, "geomean");
	cJSON *overall, *ops;
	char seed[32];
	size_t i;

	/* as text: a 64-bit seed does not survive a JSON number */
	snprintf(seed, sizeof(seed), "0x%" PRIx64, c->opts.seed);
	if (!o || zl_json_add_string(o, "side", "gems") ||
	    zl_json_add_number(o, "confidence", 0.95) ||
	    zl_json_add_number(o, "resamples", c->opts.resamples) ||
	    zl_json_add_string(o, "seed", seed))
		return -1;
	overall = cJSON_AddObjectToObject(o, "overall");
	ops = cJSON_AddArrayToObject(o, "ops");
	if (!overall || !ops || geomean_json(overall, &c->overall, c->drift.control))
		return -1;
	for (i = 0; i < c->nr_ops; i++) {
		cJSON *g = cJSON_CreateObject();
		if (zl_json_add_item(ops, NULL, g)) {
			return -1;
		}
		if (geomean_json(g, &c->ops[i], c->drift.control))
			return -1;
	}
	return 0;
}

static int calibration_json(cJSON *o, const struct zl_calibration *cal)
{
	cJSON *x, *classes;
	size_t i, k;

	if (!cal)
		return cJSON_AddNullToObject(o, "calibration") ? 0 : -1;
	x = cJSON_AddObjectToObject(o, "calibration");
	if (!x || zl_json_add_number(x, "id", (double)cal->id) ||
	    zl_json_add_string(x, "backend", cal->backend) ||
	    zl_json_add_string(x, "device_name", cal->device_name) ||
	    zl_json_add_string(x, "timer", cal->timer) ||
	    zl_json_add_string(x, "flaggems_commit", cal->flaggems_commit) ||
	    zl_json_add_string(x, "created_at", cal->created_at) ||
	    !(classes = cJSON_AddObjectToObject(x, "classes")))
		return -1;
	for (i = 0; i < ZL_SIZE__COUNT; i++) {
		const struct zl_calibration_class *cc = &cal->cls[i];
		cJSON *c, *ff;

		if (!cc->present)
			continue;
		c = cJSON_AddObjectToObject(classes, zl_size_class_name((enum zl_size_class)i));
		if (!c || zl_json_add_number(c, "floor_pct", cc->floor_pct) ||
		    zl_json_add_number(c, "spread_rel", cc->spread_rel) ||
		    zl_json_add_number(c, "rows", (double)cc->rows) ||
		    !(ff = cJSON_AddObjectToObject(c, "false_flag")))
			return -1;
		for (k = 0; k < ZL_CALIBRATION_LEVELS; k++) {
			char key[16];

			snprintf(key, sizeof(key), "%g", zl_calibration_levels_pct[k]);
			if (zl_json_add_number(ff, key, cc->false_flag[k]))
				return -1;
		}
	}
	return 0;
}

static int verdicts_json(cJSON *root, const struct zl_compare *c)
{
	cJSON *v = cJSON_AddObjectToObject(root, "verdicts");
	cJSON *fl = cJSON_AddObjectToObject(root, "floor");
	struct strbuf sb = STRBUF_INIT;
	int bad;

	verdict_summary(c, &sb);
	bad = !v || zl_json_add_string(v, "summary", sb.buf) ||
	      zl_json_add_number(v, "alpha", ZL_VERDICT_ALPHA) ||
	      zl_json_add_number(v, "confidence", ZL_VERDICT_CONF) ||
	      zl_json_add_number(v, "trim", ZL_VERDICT_TRIM) ||
	      zl_json_add_number(v, "floor_sigmas", ZL_FLOOR_SIGMAS) ||
	      zl_json_add_number(v, "threshold_pct", c->opts.threshold_pct > 0 ? c->opts.threshold_pct : NAN) ||
	      zl_json_add_number(v, "rows_samples", (double)c->rows_samples) ||
	      zl_json_add_number(v, "rows_medians", (double)(c->rows_iqr + c->rows_threshold)) ||
	      zl_json_add_number(v, "rows_unsure", (double)c->rows_unsure);
	strbuf_reset(&sb);
	zl_compare_floor_summary(c, &sb);
	bad = bad || !fl || zl_json_add_number(fl, "fixed_pct", ZL_FIXED_FLOOR_PCT) ||
	      zl_json_add_string(fl, "summary", sb.buf) || zl_json_add_string(fl, "note", c->opts.floor_note) ||
	      calibration_json(fl, c->opts.calibration);
	strbuf_release(&sb);
	return bad ? -1 : 0;
}

static int drift_json(cJSON *root, const struct zl_compare *c)
{
	const struct zl_drift *d = &c->drift;
	cJSON *o = cJSON_AddObjectToObject(root, "drift"), *t;
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
	int bad;

	if (d->moved)
		drift_line(c, &sb);
	bad = !o || zl_json_add_bool(o, "control", d->control) ||
	      zl_json_add_string(o, "torch_a", d->torch_a) || zl_json_add_string(o, "torch_b", d->torch_b) ||
	      zl_json_add_string(o, "no_control", no_control_reason(c, &why)) ||
	      zl_json_add_bool(o, "moved", d->moved) ||
	      zl_json_add_string(o, "line", d->moved ? sb.buf : NULL) ||
	      !(t = cJSON_AddObjectToObject(o, "torch")) || geomean_json(t, &d->torch, 0);
	strbuf_release(&sb);
	strbuf_release(&why);
	return bad ? -1 : 0;
}

/* "warning": the allowed caliber mismatch, only when there is one. */
static int mismatch_json(cJSON *root, const struct zl_compare *c)
{
	struct strbuf w = STRBUF_INIT;
	int bad;

	if (!c->caliber.mismatches.nr)
		return 0;
	strbuf_addstr(&w, "caliber mismatch allowed (--allow-caliber-mismatch): ");
	mismatch_summary(c, &w, "; ");
	bad = zl_json_add_string(root, "warning", w.buf);
	strbuf_release(&w);
	return bad ? -1 : 0;
}

static int noise_json(cJSON *root, const struct zl_compare *c)
{
	cJSON *noise = cJSON_AddObjectToObject(root, "noise");

	return !noise || zl_json_add_string(noise, "rule", "medians without samples_ms: iqr: same when "
					    "|B-A| <= max((IQR_A+IQR_B)/2, threshold * A); threshold: same "
					    "when |B/A-1| <= threshold") ||
	       zl_json_add_number(noise, "rows_iqr", (double)c->rows_iqr) ||
	       zl_json_add_number(noise, "rows_threshold", (double)c->rows_threshold) ? -1 : 0;
}

static int rows_json(cJSON *root, const struct zl_compare *c)
{
	cJSON *rows = cJSON_AddArrayToObject(root, "rows");
	size_t i;

	if (!rows)
		return -1;
	for (i = 0; i < c->nr_rows; i++)
		if (row_json(rows, c, &c->rows[i]))
			return -1;
	return 0;
}

static int gate_json(cJSON *root, const struct zl_compare *c)
{
	cJSON *gate = cJSON_AddObjectToObject(root, "gate");
	struct strbuf rule = STRBUF_INIT;
	int bad;

	if (c->opts.fail_pct >= 0)
		gate_rule(c, &rule);
	bad = !gate || zl_json_add_number(gate, "fail_pct", c->opts.fail_pct >= 0 ? c->opts.fail_pct : NAN) ||
	      zl_json_add_bool(gate, "fail_on_unsure", c->opts.fail_on_unsure) ||
	      zl_json_add_string(gate, "rule", c->opts.fail_pct >= 0 ? rule.buf : NULL) ||
	      zl_json_add_bool(gate, "failed", c->gate_failed) ||
	      zl_json_add_number(gate, "failed_rows", (double)c->gate_rows) ||
	      zl_json_add_item(gate, "reasons", zl_json_strvec(&c->gate_reasons));
	strbuf_release(&rule);
	return bad ? -1 : 0;
}

int zl_compare_render_json(const struct zl_compare *c, struct strbuf *sb, struct strbuf *err)
{
	cJSON *root = cJSON_CreateObject();
	char *text;

	if (!root || run_json(root, "a", c->a) || run_json(root, "b", c->b) || caliber_json(root, c) ||
	    mismatch_json(root, c) || verdicts_json(root, c) || noise_json(root, c) || rows_json(root, c) ||
	    geomeans_json(root, c) || drift_json(root, c) || gate_json(root, c) ||
	    zl_json_add_item(root, "warnings", zl_json_strvec(&c->warnings)))
		goto oom;
	text = cJSON_Print(root);
	if (!text)
		goto oom;
	strbuf_addstr(sb, text);
	strbuf_addch(sb, '\n');
	cJSON_free(text);
	cJSON_Delete(root);
	return 0;
oom:
	cJSON_Delete(root);
	return zl_error(err, "cannot build the json comparison: out of memory");
}

/* The gate's verdict with its reasons on one line: empty without a gate. */
static void gate_summary(const struct zl_compare *c, struct strbuf *sb)
{
	size_t i;

	if (c->opts.fail_pct < 0)
		return;
	strbuf_addstr(sb, c->gate_failed ? "failed" : "passed");
	for (i = 0; i < c->gate_reasons.nr; i++)
		strbuf_addf(sb, "%s%s", i ? "; " : ": ", c->gate_reasons.v[i]);
}

static void csv_num(struct strbuf *sb, struct strbuf *cell, double v)
{
	strbuf_reset(cell);
	if (isfinite(v))
		strbuf_addf(cell, "%.10g", v);
	zl_csv_field(sb, cell->buf, 0);
}

/* The CSV's last columns carry the run's facts into every row. */
enum { RUN_COLUMNS = 6 };

/* The run-level columns' values, in the order of zl_compare_render_csv's head. */
static void csv_run_columns(const struct zl_compare *c, struct strbuf runcols[RUN_COLUMNS])
{
	size_t i;

	if (c->caliber.mismatches.nr) {
		strbuf_addstr(&runcols[0], "mismatch allowed: ");
		mismatch_summary(c, &runcols[0], "; ");
	} else {
		strbuf_addstr(&runcols[0], "ok");
	}
	gate_summary(c, &runcols[1]);
	strbuf_addstr(&runcols[2], c->caliber.autotune ? c->caliber.autotune : "");
	for (i = 0; i < c->caliber.flags.nr; i++)
		strbuf_addf(&runcols[3], "%s%s", i ? "; " : "", c->caliber.flags.v[i]);
	zl_compare_floor_summary(c, &runcols[4]);
	if (c->drift.moved)
		drift_line(c, &runcols[5]);
}

/* One row's own fields, up to the run-level columns; cell is scratch. */
static void csv_row(struct strbuf *sb, const struct zl_compare *c, const struct zl_compare_row *r,
		    struct strbuf *cell)
{
	zl_csv_field(sb, r->op, 1);
	zl_csv_field(sb, r->dtype, 0);
	zl_csv_field(sb, r->shape, 0);
	strbuf_reset(cell);
	strbuf_addf(cell, "%d", r->occurrence);
	zl_csv_field(sb, cell->buf, 0);
	zl_csv_field(sb, zl_side_name(r->side), 0);
	csv_num(sb, cell, r->a_ms);
	csv_num(sb, cell, r->b_ms);
	csv_num(sb, cell, r->ratio);
	csv_num(sb, cell, isfinite(r->ratio) ? (r->ratio - 1) * 100 : NAN);
	csv_num(sb, cell, r->ci_low);
	csv_num(sb, cell, r->ci_high);
	csv_num(sb, cell, r->p_value);
	zl_csv_field(sb, zl_verdict_name(r->verdict), 0);
	zl_csv_field(sb, zl_method_name(r->method), 0);
	csv_num(sb, cell, r->floor_pct);
	strbuf_reset(cell);
	floor_source(c, r, cell);
	zl_csv_field(sb, cell->buf, 0);
	csv_num(sb, cell, r->threshold_pct);
	zl_csv_field(sb, r->unsure_reason ? r->unsure_reason : "", 0);
	zl_csv_field(sb, r->advice ? r->advice : "", 0);
	zl_csv_field(sb, zl_noise_basis_name(r->basis), 0);
	csv_num(sb, cell, r->band_ms);
	csv_num(sb, cell, r->norm_ratio);
	/* empty without a gate, and on rows the gate does not judge (torch, new in B) */
	zl_csv_field(sb, c->opts.fail_pct < 0 || r->side != ZL_SIDE_GEMS ? "" :
			 r->gate_failed ? "failed" : r->verdict != ZL_VERDICT_MISSING ? "passed" : "", 0);
}

/*
 * CSV: one line per row; the run-level columns (caliber, gate_result, autotune,
 * flags, floor_summary, drift) carry the run's facts into every row. With no row
 * at all, one line with empty row fields still carries them.
 */
void zl_compare_render_csv(const struct zl_compare *c, struct strbuf *sb)
{
	static const char *const head[] = { "op", "dtype", "shape", "occurrence", "side", "a_ms",
					    "b_ms", "ratio", "change_pct", "ci_low", "ci_high",
					    "p_value", "verdict", "method", "floor_pct", "floor_source",
					    "threshold_pct", "unsure_reason", "advice", "basis", "band_ms",
					    "gems_torch_ratio", "gate",
					    /* run-level */
					    "caliber", "gate_result", "autotune", "flags", "floor_summary",
					    "drift" };
	struct strbuf cell = STRBUF_INIT, runcols[RUN_COLUMNS];
	size_t i, k;

	for (k = 0; k < RUN_COLUMNS; k++)
		strbuf_init(&runcols[k], 0);
	csv_run_columns(c, runcols);
	for (i = 0; i < ZL_ARRAY_SIZE(head); i++)
		zl_csv_field(sb, head[i], i == 0);
	zl_csv_end_row(sb);
	if (!c->nr_rows) {
		for (i = 0; i < ZL_ARRAY_SIZE(head) - RUN_COLUMNS; i++)
			zl_csv_field(sb, "", i == 0);
		for (k = 0; k < RUN_COLUMNS; k++)
			zl_csv_field(sb, runcols[k].buf, 0);
		zl_csv_end_row(sb);
	}
	for (i = 0; i < c->nr_rows; i++) {
		csv_row(sb, c, &c->rows[i], &cell);
		for (k = 0; k < RUN_COLUMNS; k++)
			zl_csv_field(sb, runcols[k].buf, 0);
		zl_csv_end_row(sb);
	}
	strbuf_release(&cell);
	for (k = 0; k < RUN_COLUMNS; k++)
		strbuf_release(&runcols[k]);
}

/*
 * s as a Markdown code span: a fence of one backtick more than the longest run
 * inside, padded with a blank when s starts or ends with a backtick (CommonMark).
 */
static void md_code(struct strbuf *sb, const char *s)
{
	size_t longest = 0, run = 0, i, len = strlen(s);
	int pad;

	for (i = 0; i < len; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	pad = len && (s[0] == '`' || s[len - 1] == '`');
	for (i = 0; i <= longest; i++)
		strbuf_addch(sb, '`');
	strbuf_addstr(sb, pad ? " " : "");
	strbuf_addstr(sb, s);
	strbuf_addstr(sb, pad ? " " : "");
	for (i = 0; i <= longest; i++)
		strbuf_addch(sb, '`');
}

/* Markdown for a PR comment. */
static void md_cell(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, ' ');
	for (; *s; s++) {
		if (*s == '|')
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *s);
	}
	strbuf_addstr(sb, " |");
}

static void md_geomeans(const struct zl_compare *c, struct strbuf *sb)
{
	int norm = c->drift.control;
	struct strbuf cell = STRBUF_INIT;
	size_t i;

	strbuf_addf(sb, "**Geomean of B/A** (95%% bootstrap CI over shapes, %d resamples)\n\n",
		    c->opts.resamples);
	strbuf_addstr(sb, norm ? "| op | gems B/A | 95% CI | shapes | gems/torch | 95% CI |\n"
				 "|---|---:|---:|---:|---:|---:|\n" :
				 "| op | gems B/A | 95% CI | shapes |\n|---|---:|---:|---:|\n");
	for (i = 0; i <= c->nr_ops + (size_t)norm; i++) {
		const struct zl_geomean *g = i < c->nr_ops ? &c->ops[i] :
					     i == c->nr_ops ? &c->overall : &c->drift.torch;

		strbuf_addch(sb, '|');
		strbuf_reset(&cell);
		if (i < c->nr_ops)
			strbuf_addstr(&cell, g->op);
		else
			strbuf_addstr(&cell, i == c->nr_ops ? "**overall**" : "torch side (control)");
		md_cell(sb, cell.buf);
		strbuf_reset(&cell);
		fmt_geomean(&cell, g);
		md_cell(sb, cell.buf);
		strbuf_reset(&cell);
		fmt_ci(&cell, g);
		md_cell(sb, cell.buf);
		strbuf_addf(sb, " %zu |", g->n);
		if (norm) {
			strbuf_reset(&cell);
			if (i <= c->nr_ops)
				fmt_norm(&cell, g, 0);
			md_cell(sb, cell.buf);
			strbuf_reset(&cell);
			if (i <= c->nr_ops)
				fmt_norm(&cell, g, 1);
			md_cell(sb, cell.buf);
		}
		strbuf_addch(sb, '\n');
	}
	strbuf_release(&cell);
}

static void md_rows(const struct zl_compare *c, struct strbuf *sb)
{
	struct strbuf cell = STRBUF_INIT;
	size_t i;

	strbuf_addf(sb, "<details><summary>%zu rows</summary>\n\n", c->nr_rows);
	strbuf_addstr(sb, "| op | dtype | shape | side | A ms | B ms | B/A | 95% CI | p | verdict | method "
		      "| floor |\n|---|---|---|---|---:|---:|---:|---:|---:|---|---|---|\n");
	for (i = 0; i < c->nr_rows; i++) {
		const struct zl_compare_row *r = &c->rows[i];

		strbuf_addch(sb, '|');
		md_cell(sb, r->op);
		md_cell(sb, r->dtype);
		strbuf_reset(&cell);
		shape_cell(&cell, r);
		md_cell(sb, cell.buf);
		md_cell(sb, zl_side_name(r->side));
		strbuf_reset(&cell);
		fmt_ms(&cell, r->a_ms);
		md_cell(sb, cell.buf);
		strbuf_reset(&cell);
		fmt_ms(&cell, r->b_ms);
		md_cell(sb, cell.buf);
		strbuf_reset(&cell);
		if (isfinite(r->ratio))
			strbuf_addf(&cell, "%.4f", r->ratio);
		else
			strbuf_addch(&cell, '-');
		md_cell(sb, cell.buf);
		strbuf_reset(&cell);
		fmt_row_ci(&cell, r);
		md_cell(sb, cell.buf);
		strbuf_reset(&cell);
		fmt_p(&cell, r->p_value);
		md_cell(sb, cell.buf);
		strbuf_reset(&cell);
		strbuf_addf(&cell, r->verdict == ZL_VERDICT_SLOWER ? "**%s**" : "%s",
			    zl_verdict_name(r->verdict));
		if (r->gate_failed)
			strbuf_addstr(&cell, ", **gate failed**");
		md_cell(sb, cell.buf);
		strbuf_reset(&cell);
		fmt_method(&cell, r);
		md_cell(sb, cell.buf);
		strbuf_reset(&cell);
		strbuf_addf(&cell, "%g%% ", r->floor_pct);
		floor_source(c, r, &cell);
		md_cell(sb, cell.buf);
		strbuf_addch(sb, '\n');
	}
	strbuf_addstr(sb, "\n</details>\n\n");
	strbuf_release(&cell);
}

static void md_unsure(const struct zl_compare *c, struct strbuf *sb)
{
	struct strbuf label = STRBUF_INIT;
	size_t i, shown = 0;

	if (!c->rows_unsure)
		return;
	strbuf_addf(sb, "**Unsure: %zu rows** (not judged; `--fail-on-unsure` gates them)\n\n", c->rows_unsure);
	for (i = 0; i < c->nr_rows && shown < UNSURE_LISTED; i++) {
		const struct zl_compare_row *r = &c->rows[i];

		if (r->verdict != ZL_VERDICT_UNSURE)
			continue;
		strbuf_reset(&label);
		row_label(&label, r);
		strbuf_addstr(sb, "- ");
		md_code(sb, label.buf);
		strbuf_addf(sb, ": %s. Advice: %s\n", r->unsure_reason, r->advice);
		shown++;
	}
	if (c->rows_unsure > shown)
		strbuf_addf(sb, "- ... and %zu more (`--json` lists them all)\n", c->rows_unsure - shown);
	strbuf_addch(sb, '\n');
	strbuf_release(&label);
}

/* The title (A → B) and the notes on how each run was loaded. */
static void md_title(const struct zl_compare *c, struct strbuf *sb)
{
	size_t i;

	strbuf_addstr(sb, "### zlbench compare: ");
	md_code(sb, c->a->run_id ? c->a->run_id : NONE_TEXT);
	strbuf_addstr(sb, " → ");
	md_code(sb, c->b->run_id ? c->b->run_id : NONE_TEXT);
	strbuf_addstr(sb, "\n\n");
	for (i = 0; i < 2; i++) {
		const char *note = zl_history_loaded_note(i ? c->b : c->a);
		if (note)
			strbuf_addf(sb, "> %s: %s\n\n", i ? "B" : "A", note);
	}
}

/* The caliber (ok or the allowed mismatch), autotune, the flags and the A/B variables. */
static void md_caliber(const struct zl_compare *c, struct strbuf *sb)
{
	size_t i;

	if (c->caliber.mismatches.nr) {
		strbuf_addstr(sb, "> **Warning: caliber mismatch allowed** (`--allow-caliber-mismatch`): ");
		mismatch_summary(c, sb, "; ");
		strbuf_addstr(sb, ". The figures may not be comparable.\n\n");
	} else {
		strbuf_addf(sb, "**Caliber:** ok (%s, %s, level %s, timer plan %s)\n\n",
			    c->a->backend ? c->a->backend : NONE_TEXT,
			    c->a->device_name ? c->a->device_name : NONE_TEXT,
			    c->a->level ? c->a->level : NONE_TEXT,
			    c->a->timer_plan ? c->a->timer_plan : NONE_TEXT);
	}
	strbuf_addf(sb, "**Autotune:** %s\n\n", c->caliber.autotune);
	for (i = 0; i < c->caliber.flags.nr; i++)
		strbuf_addf(sb, "- :warning: %s\n", c->caliber.flags.v[i]);
	if (c->caliber.flags.nr)
		strbuf_addch(sb, '\n');
	if (!c->caliber.variables.nr)
		return;
	strbuf_addstr(sb, "**A/B variables:**\n\n");
	for (i = 0; i < c->caliber.variables.nr; i++) {
		strbuf_addf(sb, "- %s: ", c->caliber.variables.v[i].field);
		md_code(sb, c->caliber.variables.v[i].a);
		strbuf_addstr(sb, " → ");
		md_code(sb, c->caliber.variables.v[i].b);
		strbuf_addch(sb, '\n');
	}
	strbuf_addch(sb, '\n');
}

/* The gate's verdict, its reasons and its rule; nothing without a gate. */
static void md_gate(const struct zl_compare *c, struct strbuf *sb)
{
	struct strbuf rule = STRBUF_INIT;
	size_t i;

	if (c->opts.fail_pct < 0)
		return;
	strbuf_addf(sb, "**Gate** (`--fail-on-regression %g`): %s\n", c->opts.fail_pct,
		    c->gate_failed ? "**FAILED**" : "passed");
	for (i = 0; i < c->gate_reasons.nr; i++)
		strbuf_addf(sb, "- %s\n", c->gate_reasons.v[i]);
	gate_rule(c, &rule);
	strbuf_addf(sb, "\nThe gate %s.\n", rule.buf);
	strbuf_release(&rule);
}

void zl_compare_render_markdown(const struct zl_compare *c, struct strbuf *sb)
{
	struct strbuf cell = STRBUF_INIT;
	size_t i;

	md_title(c, sb);
	md_caliber(c, sb);
	zl_compare_floor_summary(c, &cell);
	strbuf_addf(sb, "**Floor:** %s\n\n", cell.buf);
	strbuf_reset(&cell);
	verdict_summary(c, &cell);
	strbuf_addf(sb, "**Verdicts:** %s.\n\n", cell.buf);
	md_geomeans(c, sb);
	strbuf_reset(&cell);
	if (c->drift.moved) {
		drift_line(c, &cell);
		strbuf_addf(sb, "\n> :warning: **%s**\n", cell.buf);
	} else if (no_control_reason(c, &cell)) {
		strbuf_addf(sb, "\nDrift control: none (%s).\n", cell.buf);
	}
	strbuf_addch(sb, '\n');
	md_unsure(c, sb);
	md_rows(c, sb);
	for (i = 0; i < c->warnings.nr; i++)
		strbuf_addf(sb, "- warning: %s\n", c->warnings.v[i]);
	if (c->warnings.nr)
		strbuf_addch(sb, '\n');
	md_gate(c, sb);
	strbuf_release(&cell);
}
