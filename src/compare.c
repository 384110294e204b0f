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
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

static const char *const verdict_names[] = {
	[ZL_VERDICT_SAME] = "same",
	[ZL_VERDICT_FASTER] = "faster",
	[ZL_VERDICT_SLOWER] = "slower",
	[ZL_VERDICT_MISSING] = "missing",
};

static const enum zl_color verdict_colors[] = {
	[ZL_VERDICT_SAME] = ZL_COLOR_NONE,
	[ZL_VERDICT_FASTER] = ZL_COLOR_GREEN,
	[ZL_VERDICT_SLOWER] = ZL_COLOR_RED,
	[ZL_VERDICT_MISSING] = ZL_COLOR_YELLOW,
};

static const char *const basis_names[] = {
	[ZL_BASIS_IQR] = "iqr",
	[ZL_BASIS_THRESHOLD] = "threshold",
	[ZL_BASIS_NONE] = "none",
};

const char *zl_verdict_name(enum zl_verdict v)
{
	return (size_t)v < ZL_ARRAY_SIZE(verdict_names) ? verdict_names[v] : "?";
}

const char *zl_noise_basis_name(enum zl_noise_basis b)
{
	return (size_t)b < ZL_ARRAY_SIZE(basis_names) ? basis_names[b] : "?";
}

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
	{ "timer used", "timer.used" },
	{ "timer fallbacks", "timer.fallbacks" },
	{ "compiled variants", "compile.variants" },
	{ "convert_layout ops", "compile.convert_layout" },
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

double zl_compare_gate_floor(const struct zl_compare_opts *opts)
{
	return opts->fail_pct < opts->threshold_pct ? opts->fail_pct : opts->threshold_pct;
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

/* ---- the comparison ------------------------------------------------------- */

void zl_compare_init(struct zl_compare *c)
{
	struct zl_compare_opts defaults = ZL_COMPARE_OPTS_INIT;

	memset(c, 0, sizeof(*c));
	c->opts = defaults;
	zl_caliber_init(&c->caliber);
	c->overall.geomean = c->overall.lo = c->overall.hi = NAN;
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
	}
	free(c->rows);
	for (i = 0; i < c->nr_ops; i++)
		free(c->ops[i].op);
	free(c->ops);
	strvec_clear(&c->gate_reasons);
	strvec_clear(&c->warnings);
	zl_compare_init(c);
}

static void add_row(struct zl_compare *c, const struct zl_result *ra, const struct zl_result *rb)
{
	const struct zl_result *key = ra ? ra : rb;
	struct zl_compare_row *row;

	ALLOC_GROW(c->rows, c->nr_rows + 1, c->alloc_rows);
	row = &c->rows[c->nr_rows++];
	row->op = xstrdup(key->op);
	row->dtype = xstrdup(key->dtype);
	row->shape = xstrdup(key->shape);
	row->occurrence = key->occurrence;
	row->side = key->side;
	row->a_ms = ra ? ra->latency_ms : NAN;
	row->b_ms = rb ? rb->latency_ms : NAN;
	row->a_iqr = ra ? ra->iqr_ms : NAN;
	row->b_iqr = rb ? rb->iqr_ms : NAN;
	row->a_samples = ra ? ra->samples : -1;
	row->b_samples = rb ? rb->samples : -1;
	row->verdict = zl_compare_verdict(row->a_ms, row->b_ms, row->a_iqr, row->a_samples,
					  row->b_iqr, row->b_samples, c->opts.threshold_pct,
					  &row->band_ms, &row->basis);
	row->ratio = row->verdict == ZL_VERDICT_MISSING ? NAN : row->b_ms / row->a_ms;
	row->gate_band_ms = NAN;
	row->gate_failed = 0;
	row->lost_in_b = row->side == ZL_SIDE_GEMS && isfinite(row->a_ms) && row->a_ms > 0 &&
			 !(isfinite(row->b_ms) && row->b_ms > 0);
	c->gems_rows += row->side == ZL_SIDE_GEMS;
	if (row->basis == ZL_BASIS_IQR)
		c->rows_iqr++;
	else if (row->basis == ZL_BASIS_THRESHOLD)
		c->rows_threshold++;
}

static void build_rows(struct zl_compare *c)
{
	size_t i;

	for (i = 0; i < c->a->nr_results; i++) {
		const struct zl_result *ra = &c->a->results[i];
		add_row(c, ra, zl_run_find(c->b, ra->op, ra->dtype, ra->shape, ra->occurrence, ra->side));
	}
	for (i = 0; i < c->b->nr_results; i++) {
		const struct zl_result *rb = &c->b->results[i];
		if (!zl_run_find(c->a, rb->op, rb->dtype, rb->shape, rb->occurrence, rb->side))
			add_row(c, NULL, rb);
	}
}

static void build_geomeans(struct zl_compare *c)
{
	double *ratios = xcalloc(c->nr_rows ? c->nr_rows : 1, sizeof(*ratios));
	size_t i, j, n;

	for (i = 0; i < c->nr_rows; i++) {
		const char *op = c->rows[i].op;
		struct zl_geomean *g;

		for (j = 0; j < c->nr_ops; j++)
			if (!strcmp(c->ops[j].op, op))
				break;
		if (j < c->nr_ops)
			continue;
		for (n = 0, j = i; j < c->nr_rows; j++)
			if (c->rows[j].side == ZL_SIDE_GEMS && c->rows[j].verdict != ZL_VERDICT_MISSING &&
			    !strcmp(c->rows[j].op, op))
				ratios[n++] = c->rows[j].ratio;
		ALLOC_GROW(c->ops, c->nr_ops + 1, c->alloc_ops);
		g = &c->ops[c->nr_ops++];
		g->op = xstrdup(op);
		zl_geomean_ci(ratios, n, c->opts.resamples, c->opts.seed, g);
	}
	for (n = 0, i = 0; i < c->nr_rows; i++)
		if (c->rows[i].side == ZL_SIDE_GEMS && c->rows[i].verdict != ZL_VERDICT_MISSING)
			ratios[n++] = c->rows[i].ratio;
	zl_geomean_ci(ratios, n, c->opts.resamples, c->opts.seed, &c->overall);
	free(ratios);
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

static void build_warnings(struct zl_compare *c)
{
	size_t i, only_a = 0, only_b = 0, no_latency = 0, torch_moved = 0, torch_rows = 0;
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
			continue;
		}
		if (!zl_run_find(c->b, r->op, r->dtype, r->shape, r->occurrence, r->side))
			only_a++;
		else if (!zl_run_find(c->a, r->op, r->dtype, r->shape, r->occurrence, r->side))
			only_b++;
		else if (r->verdict == ZL_VERDICT_MISSING)
			no_latency++;
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

/* Why a row's band is what it is, for a gate line. */
static void band_reason(struct strbuf *sb, const struct zl_compare_row *r, double floor_pct)
{
	if (r->basis != ZL_BASIS_IQR)
		strbuf_addf(sb, "the %g%% gate floor, no timer IQR", floor_pct);
	else if ((r->a_iqr + r->b_iqr) / 2 > r->a_ms * floor_pct / 100)
		strbuf_addstr(sb, "the timer IQRs");
	else
		strbuf_addf(sb, "the %g%% gate floor over tighter timer IQRs", floor_pct);
}

/*
 * A row fails when B/A > 1 + pct and B - A is beyond band(min(threshold, pct)): the
 * user's pct is honoured below the run-to-run floor that keeps verdicts quiet on A/A.
 */
static void gate_row(struct zl_compare *c, struct zl_compare_row *r, double limit, double floor_pct)
{
	struct strbuf label = STRBUF_INIT, why = STRBUF_INIT;
	enum zl_noise_basis basis;

	if (r->verdict == ZL_VERDICT_MISSING) {
		/* a shape B lost is no pass: it may be the very one that regressed */
		if (r->lost_in_b && !c->opts.allow_missing) {
			r->gate_failed = 1;
			c->gate_rows++;
		}
		return;
	}
	r->gate_band_ms = zl_compare_band(r->a_ms, r->a_iqr, r->a_samples, r->b_iqr, r->b_samples,
					  floor_pct, &basis);
	if (r->ratio <= limit || r->b_ms - r->a_ms <= r->gate_band_ms)
		return;
	row_label(&label, r);
	band_reason(&why, r, floor_pct);
	if (r->verdict != ZL_VERDICT_SLOWER)
		strbuf_addf(&why, "; verdict %s: within the %g%% run-to-run floor",
			    zl_verdict_name(r->verdict), c->opts.threshold_pct);
	if (r->side == ZL_SIDE_GEMS) {
		r->gate_failed = 1;
		c->gate_failed = 1;
		c->gate_rows++;
		strvec_pushf(&c->gate_reasons, "%s: B/A %.4f, %.1f%% slower beyond noise (limit %g%%): "
			     "B-A %.6f ms > band %.6f ms from %s", label.buf, r->ratio, (r->ratio - 1) * 100,
			     c->opts.fail_pct, r->b_ms - r->a_ms, r->gate_band_ms, why.buf);
	} else {
		strvec_pushf(&c->warnings, "baseline %s: B/A %.4f, slower beyond noise (not gated)",
			     label.buf, r->ratio);
	}
	strbuf_release(&why);
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
		gate_row(c, &c->rows[i], limit, zl_compare_gate_floor(&c->opts));
}

void zl_compare_runs(const struct zl_run *a, const struct zl_run *b,
		     const struct zl_compare_opts *opts, struct zl_compare *out)
{
	out->a = a;
	out->b = b;
	if (opts)
		out->opts = *opts;
	zl_caliber_check(a, b, &out->caliber);
	build_rows(out);
	build_geomeans(out);
	build_warnings(out);
	apply_gate(out);
}

/* ---- rendering -------------------------------------------------------------- */

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

static void noise_summary(const struct zl_compare *c, struct strbuf *sb)
{
	if (c->rows_iqr)
		strbuf_addf(sb, "%zu rows by timer IQR (same when |B-A| <= max((IQR_A+IQR_B)/2, %g%% of A))",
			    c->rows_iqr, c->opts.threshold_pct);
	if (c->rows_iqr && c->rows_threshold)
		strbuf_addstr(sb, "; ");
	if (c->rows_threshold) {
		strbuf_addf(sb, "%zu rows by the %g%% threshold (no timer IQR from 2 or more samples",
			    c->rows_threshold, c->opts.threshold_pct);
		if (!c->a->has_timer || !c->b->has_timer)
			strbuf_addf(sb, ": no plugins/timer.jsonl in %s",
				    !c->a->has_timer && !c->b->has_timer ? "A and B" :
				    !c->a->has_timer ? "A" : "B");
		strbuf_addch(sb, ')');
	}
	if (!c->rows_iqr && !c->rows_threshold)
		strbuf_addstr(sb, "no comparable rows");
}

static void gate_rule(const struct zl_compare *c, struct strbuf *sb)
{
	double floor_pct = zl_compare_gate_floor(&c->opts);

	strbuf_addf(sb, "fails when the overall geomean is more than %g%% slower, or a gems shape is more "
		    "than %g%% slower and B-A exceeds max((IQR_A+IQR_B)/2, %g%% of A) (%g%% of A without "
		    "timer IQR)", c->opts.fail_pct, c->opts.fail_pct, floor_pct, floor_pct);
	strbuf_addf(sb, "; also when A or B did not pass, no gems shape is on both sides%s",
		    c->opts.allow_missing ? "" : ", or B lacks a gems shape of A");
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

static void print_diffs(FILE *out, const char *title, const struct zl_diffs *d)
{
	size_t i;

	if (!d->nr)
		return;
	fprintf(out, "%s\n", title);
	for (i = 0; i < d->nr; i++)
		fprintf(out, "  %s: %s -> %s\n", d->v[i].field, d->v[i].a, d->v[i].b);
}

static void print_rows_table(const struct zl_compare *c, FILE *out, int use_color)
{
	static const char *const head[] = { "op", "dtype", "shape", "side", "A ms", "B ms", "B/A",
					    "change", "verdict", "noise", "gate" };
	/* the gate column only when there is a gate */
	size_t ncols = ZL_ARRAY_SIZE(head) - (c->opts.fail_pct < 0);
	struct zl_table t;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	zl_table_init(&t, ncols, (1ul << 4) | (1ul << 5) | (1ul << 6) | (1ul << 7));
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
		zl_table_add(&t, zl_verdict_name(r->verdict), verdict_colors[r->verdict]);
		strbuf_reset(&sb);
		if (r->basis == ZL_BASIS_IQR)
			strbuf_addf(&sb, "iqr ±%.6f", r->band_ms);
		else if (r->basis == ZL_BASIS_THRESHOLD)
			strbuf_addf(&sb, "±%g%%", c->opts.threshold_pct);
		else
			strbuf_addch(&sb, '-');
		zl_table_add(&t, sb.buf, ZL_COLOR_NONE);
		if (ncols == ZL_ARRAY_SIZE(head))
			zl_table_add(&t, r->gate_failed ? "FAILED" : "", ZL_COLOR_RED);
	}
	zl_table_print(&t, out, use_color);
	zl_table_release(&t);
	strbuf_release(&sb);
}

static void print_geomeans(const struct zl_compare *c, FILE *out, int use_color)
{
	struct zl_table t;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	fprintf(out, "geomean of B/A, gems side (95%% bootstrap CI over shapes, %d resamples):\n",
		c->opts.resamples);
	zl_table_init(&t, 4, (1ul << 1) | (1ul << 3));
	for (i = 0; i <= c->nr_ops; i++) {
		const struct zl_geomean *g = i < c->nr_ops ? &c->ops[i] : &c->overall;
		enum zl_color color = !g->n ? ZL_COLOR_NONE :
				      g->hi < 1 ? ZL_COLOR_GREEN : g->lo > 1 ? ZL_COLOR_RED : ZL_COLOR_NONE;

		zl_table_addf(&t, ZL_COLOR_NONE, "  %s", i < c->nr_ops ? g->op : "overall");
		strbuf_reset(&sb);
		fmt_geomean(&sb, g);
		zl_table_add(&t, sb.buf, color);
		strbuf_reset(&sb);
		fmt_ci(&sb, g);
		zl_table_add(&t, sb.buf, ZL_COLOR_NONE);
		zl_table_addf(&t, ZL_COLOR_NONE, "n=%zu", g->n);
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

void zl_compare_print_text(const struct zl_compare *c, FILE *out, int use_color)
{
	const char *warn = use_color ? zl_color_start(ZL_COLOR_YELLOW) : "";
	const char *red = use_color ? zl_color_start(ZL_COLOR_RED) : "";
	const char *green = use_color ? zl_color_start(ZL_COLOR_GREEN) : "";
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
	noise_summary(c, &sb);
	fprintf(out, "noise: %s\n\n", sb.buf);
	print_rows_table(c, out, use_color);
	fputc('\n', out);
	print_geomeans(c, out, use_color);
	for (i = 0; i < c->warnings.nr; i++)
		fprintf(out, "%swarning: %s%s\n", warn, c->warnings.v[i], reset);
	if (c->opts.fail_pct >= 0) {
		fprintf(out, "gate (--fail-on-regression %g%%): %s%s%s\n", c->opts.fail_pct,
			c->gate_failed ? red : green, c->gate_failed ? "FAILED" : "passed", reset);
		strbuf_reset(&sb);
		gate_rule(c, &sb);
		fprintf(out, "  rule: %s\n", sb.buf);
		for (i = 0; i < c->gate_reasons.nr; i++)
			fprintf(out, "  %s\n", c->gate_reasons.v[i]);
		fprintf(out, "  %zu of %zu gems shapes failed the gate%s\n", c->gate_rows, c->gems_rows,
			c->gate_rows ? " (FAILED in the gate column)" : "");
	}
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

		if (!o || !cJSON_AddItemToArray(arr, o)) {
			cJSON_Delete(o);
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

/* Attach item under key; frees item and fails when it is NULL or cannot be attached. */
static int attach(cJSON *obj, const char *key, cJSON *item)
{
	if (!item)
		return -1;
	if (!cJSON_AddItemToObject(obj, key, item)) {
		cJSON_Delete(item);
		return -1;
	}
	return 0;
}

static int run_json(cJSON *root, const char *key, const struct zl_run *r)
{
	cJSON *o = cJSON_AddObjectToObject(root, key);

	return !o || zl_json_add_string(o, "run_id", r->run_id) ||
	       zl_json_add_string(o, "dir", r->dir) || zl_json_add_string(o, "status", r->status) ||
	       zl_json_add_string(o, "started_at", r->started_at) ||
	       zl_json_add_bool(o, "has_results", r->has_results) ||
	       zl_json_add_bool(o, "has_timer", r->has_timer) ||
	       zl_json_add_string(o, "history", zl_history_loaded_note(r)) ? -1 : 0;
}

static int caliber_json(cJSON *root, const struct zl_compare *c)
{
	const struct zl_caliber *cal = &c->caliber;
	cJSON *o = cJSON_AddObjectToObject(root, "caliber");

	return !o || zl_json_add_bool(o, "ok", !cal->mismatches.nr) ||
	       zl_json_add_bool(o, "mismatch_allowed", cal->mismatches.nr > 0) ||
	       attach(o, "mismatches", diffs_json(&cal->mismatches)) ||
	       zl_json_add_string(o, "autotune", cal->autotune) ||
	       zl_json_add_bool(o, "autotune_proper", cal->autotune_proper) ||
	       zl_json_add_bool(o, "cache_inheritance", cal->cache_inheritance) ||
	       attach(o, "flags", zl_json_strvec(&cal->flags)) ||
	       attach(o, "variables", diffs_json(&cal->variables)) ? -1 : 0;
}

static int row_json(cJSON *arr, const struct zl_compare_row *r)
{
	cJSON *o = cJSON_CreateObject();

	if (!o || !cJSON_AddItemToArray(arr, o)) {
		cJSON_Delete(o);
		return -1;
	}
	return zl_json_add_string(o, "op", r->op) || zl_json_add_string(o, "dtype", r->dtype) ||
	       zl_json_add_string(o, "shape", r->shape) ||
	       zl_json_add_number(o, "occurrence", r->occurrence) ||
	       zl_json_add_string(o, "side", zl_side_name(r->side)) ||
	       zl_json_add_number(o, "a_ms", r->a_ms) || zl_json_add_number(o, "b_ms", r->b_ms) ||
	       zl_json_add_number(o, "ratio", r->ratio) ||
	       zl_json_add_string(o, "verdict", zl_verdict_name(r->verdict)) ||
	       zl_json_add_string(o, "basis", zl_noise_basis_name(r->basis)) ||
	       zl_json_add_number(o, "band_ms", r->band_ms) ||
	       zl_json_add_number(o, "a_iqr_ms", r->a_iqr) || zl_json_add_number(o, "b_iqr_ms", r->b_iqr) ||
	       zl_json_add_number(o, "a_samples", r->a_samples < 0 ? NAN : (double)r->a_samples) ||
	       zl_json_add_number(o, "b_samples", r->b_samples < 0 ? NAN : (double)r->b_samples) ||
	       zl_json_add_number(o, "gate_band_ms", r->gate_band_ms) ||
	       zl_json_add_bool(o, "gate_failed", r->gate_failed) ? -1 : 0;
}

static int geomean_json(cJSON *o, const struct zl_geomean *g)
{
	return (g->op && zl_json_add_string(o, "op", g->op)) ||
	       zl_json_add_number(o, "n", (double)g->n) || zl_json_add_number(o, "geomean", g->geomean) ||
	       zl_json_add_number(o, "ci_low", g->lo) || zl_json_add_number(o, "ci_high", g->hi) ? -1 : 0;
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
	if (!overall || !ops || geomean_json(overall, &c->overall))
		return -1;
	for (i = 0; i < c->nr_ops; i++) {
		cJSON *g = cJSON_CreateObject();
		if (!g || !cJSON_AddItemToArray(ops, g)) {
			cJSON_Delete(g);
			return -1;
		}
		if (geomean_json(g, &c->ops[i]))
			return -1;
	}
	return 0;
}

int zl_compare_render_json(const struct zl_compare *c, struct strbuf *sb, struct strbuf *err)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *rows, *noise, *gate;
	struct strbuf rule = STRBUF_INIT;
	char *text = NULL;
	size_t i;

	if (!root || run_json(root, "a", c->a) || run_json(root, "b", c->b) || caliber_json(root, c))
		goto oom;
	if (c->caliber.mismatches.nr) {
		struct strbuf w = STRBUF_INIT;
		int bad;

		strbuf_addstr(&w, "caliber mismatch allowed (--allow-caliber-mismatch): ");
		mismatch_summary(c, &w, "; ");
		bad = zl_json_add_string(root, "warning", w.buf);
		strbuf_release(&w);
		if (bad)
			goto oom;
	}
	noise = cJSON_AddObjectToObject(root, "noise");
	if (!noise || zl_json_add_string(noise, "rule", "iqr: same when |B-A| <= max((IQR_A+IQR_B)/2, threshold * A); "
					 "threshold: same when |B/A-1| <= threshold") ||
	    zl_json_add_number(noise, "threshold_pct", c->opts.threshold_pct) ||
	    zl_json_add_number(noise, "rows_iqr", (double)c->rows_iqr) ||
	    zl_json_add_number(noise, "rows_threshold", (double)c->rows_threshold))
		goto oom;
	rows = cJSON_AddArrayToObject(root, "rows");
	if (!rows)
		goto oom;
	for (i = 0; i < c->nr_rows; i++)
		if (row_json(rows, &c->rows[i]))
			goto oom;
	if (geomeans_json(root, c))
		goto oom;
	gate = cJSON_AddObjectToObject(root, "gate");
	strbuf_reset(&rule);
	if (c->opts.fail_pct >= 0)
		gate_rule(c, &rule);
	if (!gate || zl_json_add_number(gate, "fail_pct", c->opts.fail_pct >= 0 ? c->opts.fail_pct : NAN) ||
	    zl_json_add_number(gate, "floor_pct",
			       c->opts.fail_pct >= 0 ? zl_compare_gate_floor(&c->opts) : NAN) ||
	    zl_json_add_string(gate, "rule", c->opts.fail_pct >= 0 ? rule.buf : NULL) ||
	    zl_json_add_bool(gate, "failed", c->gate_failed) ||
	    zl_json_add_number(gate, "failed_rows", (double)c->gate_rows) ||
	    attach(gate, "reasons", zl_json_strvec(&c->gate_reasons)) ||
	    attach(root, "warnings", zl_json_strvec(&c->warnings)))
		goto oom;
	text = cJSON_Print(root);
	if (!text)
		goto oom;
	strbuf_addstr(sb, text);
	strbuf_addch(sb, '\n');
	cJSON_free(text);
	cJSON_Delete(root);
	strbuf_release(&rule);
	return 0;
oom:
	cJSON_Delete(root);
	strbuf_release(&rule);
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

/*
 * CSV: one line per row; the caliber, gate_result, autotune and flags columns carry
 * the run-level facts (an allowed mismatch, the gate's reasons, the autotune set-up,
 * cache inheritance and other flags) into every row. With no row at all, one line
 * with empty row fields still carries them.
 */
void zl_compare_render_csv(const struct zl_compare *c, struct strbuf *sb)
{
	static const char *const head[] = { "op", "dtype", "shape", "occurrence", "side", "a_ms",
					    "b_ms", "ratio", "change_pct", "verdict", "basis",
					    "band_ms", "caliber", "gate", "gate_result", "autotune",
					    "flags" };
	struct strbuf cell = STRBUF_INIT, caliber = STRBUF_INIT, gate = STRBUF_INIT;
	struct strbuf flags = STRBUF_INIT;
	size_t i;

	if (c->caliber.mismatches.nr) {
		strbuf_addstr(&caliber, "mismatch allowed: ");
		mismatch_summary(c, &caliber, "; ");
	} else {
		strbuf_addstr(&caliber, "ok");
	}
	gate_summary(c, &gate);
	for (i = 0; i < c->caliber.flags.nr; i++)
		strbuf_addf(&flags, "%s%s", i ? "; " : "", c->caliber.flags.v[i]);
	for (i = 0; i < ZL_ARRAY_SIZE(head); i++)
		zl_csv_field(sb, head[i], i == 0);
	zl_csv_end_row(sb);
	if (!c->nr_rows) {
		for (i = 0; i < ZL_ARRAY_SIZE(head) - 5; i++)
			zl_csv_field(sb, "", i == 0);
		zl_csv_field(sb, caliber.buf, 0);
		zl_csv_field(sb, "", 0);
		zl_csv_field(sb, gate.buf, 0);
		zl_csv_field(sb, c->caliber.autotune, 0);
		zl_csv_field(sb, flags.buf, 0);
		zl_csv_end_row(sb);
	}
	for (i = 0; i < c->nr_rows; i++) {
		const struct zl_compare_row *r = &c->rows[i];
		const double nums[] = { r->a_ms, r->b_ms, r->ratio,
					isfinite(r->ratio) ? (r->ratio - 1) * 100 : NAN };
		size_t k;

		zl_csv_field(sb, r->op, 1);
		zl_csv_field(sb, r->dtype, 0);
		zl_csv_field(sb, r->shape, 0);
		strbuf_reset(&cell);
		strbuf_addf(&cell, "%d", r->occurrence);
		zl_csv_field(sb, cell.buf, 0);
		zl_csv_field(sb, zl_side_name(r->side), 0);
		for (k = 0; k < ZL_ARRAY_SIZE(nums); k++) {
			strbuf_reset(&cell);
			if (isfinite(nums[k]))
				strbuf_addf(&cell, "%.10g", nums[k]);
			zl_csv_field(sb, cell.buf, 0);
		}
		zl_csv_field(sb, zl_verdict_name(r->verdict), 0);
		zl_csv_field(sb, zl_noise_basis_name(r->basis), 0);
		strbuf_reset(&cell);
		if (isfinite(r->band_ms))
			strbuf_addf(&cell, "%.10g", r->band_ms);
		zl_csv_field(sb, cell.buf, 0);
		zl_csv_field(sb, caliber.buf, 0);
		/* empty without a gate, and on rows the gate does not judge (torch, new in B) */
		zl_csv_field(sb, c->opts.fail_pct < 0 || r->side != ZL_SIDE_GEMS ? "" :
				 r->gate_failed ? "failed" : isfinite(r->gate_band_ms) ? "passed" : "", 0);
		zl_csv_field(sb, gate.buf, 0);
		zl_csv_field(sb, c->caliber.autotune, 0);
		zl_csv_field(sb, flags.buf, 0);
		zl_csv_end_row(sb);
	}
	strbuf_release(&cell);
	strbuf_release(&caliber);
	strbuf_release(&gate);
	strbuf_release(&flags);
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

void zl_compare_render_markdown(const struct zl_compare *c, struct strbuf *sb)
{
	struct strbuf cell = STRBUF_INIT;
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
	if (c->caliber.variables.nr) {
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
	strbuf_addf(sb, "**Geomean of B/A, gems side** (95%% bootstrap CI over shapes, %d resamples)\n\n",
		    c->opts.resamples);
	strbuf_addstr(sb, "| op | geomean B/A | 95% CI | shapes |\n|---|---:|---:|---:|\n");
	for (i = 0; i <= c->nr_ops; i++) {
		const struct zl_geomean *g = i < c->nr_ops ? &c->ops[i] : &c->overall;

		strbuf_addch(sb, '|');
		strbuf_reset(&cell);
		strbuf_addf(&cell, i < c->nr_ops ? "%s" : "**%s**", i < c->nr_ops ? g->op : "overall");
		md_cell(sb, cell.buf);
		strbuf_reset(&cell);
		fmt_geomean(&cell, g);
		md_cell(sb, cell.buf);
		strbuf_reset(&cell);
		fmt_ci(&cell, g);
		md_cell(sb, cell.buf);
		strbuf_addf(sb, " %zu |\n", g->n);
	}
	strbuf_reset(&cell);
	noise_summary(c, &cell);
	strbuf_addf(sb, "\nNoise: %s.\n\n", cell.buf);
	strbuf_addf(sb, "<details><summary>%zu rows</summary>\n\n", c->nr_rows);
	strbuf_addstr(sb, "| op | dtype | shape | side | A ms | B ms | B/A | verdict |\n"
		      "|---|---|---|---|---:|---:|---:|---|\n");
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
		strbuf_addf(&cell, r->verdict == ZL_VERDICT_SLOWER ? "**%s**" : "%s",
			    zl_verdict_name(r->verdict));
		if (r->gate_failed)
			strbuf_addstr(&cell, ", **gate failed**");
		md_cell(sb, cell.buf);
		strbuf_addch(sb, '\n');
	}
	strbuf_addstr(sb, "\n</details>\n\n");
	for (i = 0; i < c->warnings.nr; i++)
		strbuf_addf(sb, "- warning: %s\n", c->warnings.v[i]);
	if (c->warnings.nr)
		strbuf_addch(sb, '\n');
	if (c->opts.fail_pct >= 0) {
		strbuf_addf(sb, "**Gate** (`--fail-on-regression %g`): %s\n", c->opts.fail_pct,
			    c->gate_failed ? "**FAILED**" : "passed");
		for (i = 0; i < c->gate_reasons.nr; i++)
			strbuf_addf(sb, "- %s\n", c->gate_reasons.v[i]);
		strbuf_reset(&cell);
		gate_rule(c, &cell);
		strbuf_addf(sb, "\nThe gate %s.\n", cell.buf);
	}
	strbuf_release(&cell);
}
