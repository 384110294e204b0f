/*
 * compare: the caliber check of two runs, their rows paired by key and judged (compare_verdict.c),
 * the geomeans, the baseline's drift and the gate. compare_render.c prints the result.
 */
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
	/* the profiler timer waits for the device before each call since wave 3; before, calls
	 * queued behind each other, which moved two-kernel calls by up to 20 % on an H200
	 * (docs/timer.md): caliber */
	{ "profiler call mode", "timer.profiler_call_mode", "queued", 1 },
	/* long calls settle on their own profiled batches since wave 4; before, on back-to-back
	 * calls or not at all, which moved power-capped ones by up to 11 % (docs/timer.md): caliber */
	{ "profiler settling", "timer.profiler_settle", "unrecorded", 1 },
	/* integer and bool inputs drawn on the device (--draw-inputs device) are other values than
	 * FlagGems' CPU draws; an op whose time depends on its values would move: caliber */
	{ "inputs drawn", "inputs.draw", "flaggems", 1 },
};

/* Fields of how the profiler timer measured: their values name a calibration's timer. */
#define PROFILER_METHOD_PREFIX "timer.profiler_"

#define NONE_TEXT ZL_COMPARE_NONE_TEXT
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

void zl_profiler_method(const struct zl_run *run, struct strbuf *sb)
{
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(defaulted_fields); i++) {
		char *v;

		if (!defaulted_fields[i].caliber ||
		    strncmp(defaulted_fields[i].path, PROFILER_METHOD_PREFIX, strlen(PROFILER_METHOD_PREFIX)))
			continue;
		v = value_text(zl_json_path(run->identity, defaulted_fields[i].path));
		strbuf_addf(sb, "/%s", v ? v : defaulted_fields[i].absent);
		free(v);
	}
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
	"ZL_NOISE_TARGET", "ZL_NOISE_TARGET_PINNED", "ZL_MAX_TIME_PER_SHAPE", "ZL_CLOCK_SOURCE",
	"ZL_DIRECT_REPEAT", "ZL_AUTOTUNE_MODE", "ZL_REPLAY_FROM", "ZL_REPLAY_MISS",
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
	long n = zl_json_long(zl_json_path(r->identity, path), -1);

	return n >= 0 ? n : -1;
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
 * Whether B is the later run, the one that can have inherited the other's winners: the
 * later start, and where both started in the same second (started_at's resolution: two
 * runs of the demo's mm did) or a start is unknown, the run that found more winners in
 * the shared cache. Otherwise B, the "after" side.
 */
static int b_is_later(const struct zl_run *a, const struct zl_run *b)
{
	int order = a->started_at && b->started_at ? strcmp(b->started_at, a->started_at) : 0;
	long found_a = winners_found(a), found_b = winners_found(b);

	if (order)
		return order > 0;
	if (found_a >= 0 && found_b >= 0 && found_a != found_b)
		return found_b > found_a;
	return 1;
}

/*
 * Cache inheritance can matter only when the earlier run stored winners, the later
 * one found winners stored, and the later one's kernels asked a tuner; when both
 * runs name their tuned kernels, they must share one. Unknown facts count as
 * "may have": the flag is a warning, and a missed trap costs more than a spare line.
 */
static void check_inheritance(const struct zl_run *a, const struct zl_run *b, struct zl_caliber *cal)
{
	int b_later = b_is_later(a, b);
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
	/* a replay that tuned what its source lacked (--replay-miss tune) ran those keys on its own picks */
	for (int side = 0; side < 2; side++) {
		long n = zl_json_long(zl_json_path((side ? b : a)->identity, "autotune.tuned_on_miss"), 0);

		if (n > 0)
			strvec_pushf(&cal->flags, "autotune: %c tuned %ld key%s that its replay source lacked "
				     "(--replay-miss tune): the shapes of %s may run other configs than %c's",
				     side ? 'B' : 'A', n, n == 1 ? "" : "s", n == 1 ? "it" : "them", side ? 'A' : 'B');
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
	strvec_init(&c->ops_only_a);
	strvec_init(&c->ops_only_b);
}

void zl_compare_release(struct zl_compare *c)
{
	size_t i;

	zl_caliber_release(&c->caliber);
	for (i = 0; i < c->nr_rows; i++) {
		free(c->rows[i].unsure_reason);
		free(c->rows[i].advice);
		free(c->rows[i].a_kernels);
		free(c->rows[i].b_kernels);
	}
	free(c->rows);
	for (i = 0; i < c->nr_ops; i++)
		free(c->ops[i].op);
	free(c->ops);
	free(c->drift.torch_a);
	free(c->drift.torch_b);
	strvec_clear(&c->gate_reasons);
	strvec_clear(&c->warnings);
	strvec_clear(&c->ops_only_a);
	strvec_clear(&c->ops_only_b);
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
	/* borrowed, not copied: a million rows need no more copies of their keys */
	row->op = key->op;
	row->dtype = key->dtype;
	row->shape = key->shape;
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
	row->a_clock_mhz = ra ? ra->clock_mhz : NAN;
	row->b_clock_mhz = rb ? rb->clock_mhz : NAN;
	row->a_host_bound = ra ? ra->host_bound : -1;
	row->b_host_bound = rb ? rb->host_bound : -1;
	row->a_no_device_work = ra ? ra->no_device_work : -1;
	row->b_no_device_work = rb ? rb->no_device_work : -1;
	if (ra && rb && ra->kernels && rb->kernels && strcmp(ra->kernels, rb->kernels)) {
		row->a_kernels = xstrdup(ra->kernels);
		row->b_kernels = xstrdup(rb->kernels);
	}
	row->ratio = row->band_ms = row->ci_low = row->ci_high = row->p_value = NAN;
	row->norm_ratio = NAN;
	judge_row(c, row, ra, rb);
	row->lost_in_b = row->side == ZL_SIDE_GEMS && positive(row->a_ms) && !positive(row->b_ms);
	c->gems_rows += row->side == ZL_SIDE_GEMS;
}

/* Rows of A in A's order (paired with B's by key), then B's rows that A lacks. */
static void build_rows(struct zl_compare *c, size_t *only_a, size_t *only_b)
{
	char *used = xcalloc(c->b->nr_results ? c->b->nr_results : 1, 1);
	size_t i;

	/* B's own row index (runload.h) pairs each row of A: no second index of every key */
	for (i = 0; i < c->a->nr_results; i++) {
		const struct zl_result *ra = &c->a->results[i];
		const struct zl_result *rb = zl_run_find(c->b, ra->op, ra->dtype, ra->shape, ra->occurrence, ra->side);
		size_t j = rb ? (size_t)(rb - c->b->results) : SIZE_MAX;

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

void zl_compare_row_label(struct strbuf *sb, const struct zl_compare_row *r)
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

/*
 * Rows called faster or slower whose measurements ran at SM clocks CLOCK_MOVED_PCT or more
 * apart: the change may be the clocks' (on an H200 a 0.06 ms cuBLAS call read 0.060 ms at
 * 1620 MHz and 0.052 ms near 1900 MHz in one A/A pair). Named, not judged: the SM clock of
 * a memory-bound call moves without moving its time.
 */
#define CLOCK_MOVED_PCT 5.0
#define CLOCK_ROWS_LISTED 3

static void clock_warning(struct zl_compare *c)
{
	struct strbuf sb = STRBUF_INIT, label = STRBUF_INIT;
	size_t i, n = 0, flagged = 0;

	for (i = 0; i < c->nr_rows; i++) {
		const struct zl_compare_row *r = &c->rows[i];
		double moved;

		if (r->verdict != ZL_VERDICT_FASTER && r->verdict != ZL_VERDICT_SLOWER)
			continue;
		flagged++;
		if (!positive(r->a_clock_mhz) || !positive(r->b_clock_mhz))
			continue;
		moved = (r->b_clock_mhz / r->a_clock_mhz - 1) * 100;
		if (fabs(moved) < CLOCK_MOVED_PCT)
			continue;
		if (n++ < CLOCK_ROWS_LISTED) {
			strbuf_reset(&label);
			zl_compare_row_label(&label, r);
			strbuf_addf(&sb, "%s%s %s, %.0f -> %.0f MHz (%+.1f%%)", n > 1 ? "; " : "", label.buf,
				    zl_verdict_name(r->verdict), r->a_clock_mhz, r->b_clock_mhz, moved);
		}
	}
	if (n)
		strvec_pushf(&c->warnings, "the SM clock moved by %g%% or more on %zu of the %zu rows called faster "
			     "or slower (the median of each measurement's readings, A -> B): %s%s; the change may "
			     "be the clocks': interleave A and B (zlbench ab) or fix the clocks before trusting it",
			     CLOCK_MOVED_PCT, n, flagged, sb.buf, n > CLOCK_ROWS_LISTED ? "; ..." : "");
	strbuf_release(&label);
	strbuf_release(&sb);
}

/*
 * One warning that names the rows pick() selects, whatever their verdict: "N rows WHAT:
 * <label> <verdict><note>; ..." (at most ROWS_LISTED of them, then "...").
 */
#define ROWS_LISTED 3

static void rows_warning(struct zl_compare *c, int (*pick)(const struct zl_compare_row *),
			 void (*note)(struct strbuf *, const struct zl_compare_row *), const char *what)
{
	struct strbuf sb = STRBUF_INIT, label = STRBUF_INIT;
	size_t i, n = 0;

	for (i = 0; i < c->nr_rows; i++) {
		const struct zl_compare_row *r = &c->rows[i];

		if (!pick(r) || n++ >= ROWS_LISTED)
			continue;
		strbuf_reset(&label);
		zl_compare_row_label(&label, r);
		strbuf_addf(&sb, "%s%s %s", n > 1 ? "; " : "", label.buf, zl_verdict_name(r->verdict));
		note(&sb, r);
	}
	if (n)
		strvec_pushf(&c->warnings, "%zu %s %s: %s%s", n, n == 1 ? "row" : "rows", what, sb.buf,
			     n > ROWS_LISTED ? "; ..." : "");
	strbuf_release(&label);
	strbuf_release(&sb);
}

/*
 * Rows whose calls ran other kernels in A than in B (timer.jsonl's kernels): the difference
 * may be the library's choice, not the change under test (on an H200, torch's bmm of
 * 16x1024x1024 read 0.0647 ms in one round and 0.0544 ms in the next at the same clock).
 */
static int kernels_differ(const struct zl_compare_row *r)
{
	return r->a_kernels != NULL;
}

static void kernels_note(struct strbuf *sb, const struct zl_compare_row *r)
{
	strbuf_addf(sb, ": %s -> %s", r->a_kernels, r->b_kernels);
}

/*
 * Rows whose samples hold the host's issue time on either side (timer.jsonl's host_bound):
 * the call queues its kernels slower than the device runs them, past the longest hold, so a
 * sample times the host's launching as well (on an H200 the torch side of FlagGems' mhc_bwd,
 * 256 kernels a call, read 4.2 ms in one sweep and 1.4 ms in the next).
 */
static int host_bound(const struct zl_compare_row *r)
{
	return r->a_host_bound == 1 || r->b_host_bound == 1;
}

/* " (A and B)", " (A)" or " (B)": the sides of which a fact holds (a, b: 1 when it does). */
static void sides_note(struct strbuf *sb, int a, int b)
{
	strbuf_addf(sb, " (%s)", a == 1 && b == 1 ? "A and B" : a == 1 ? "A" : "B");
}

static void host_bound_note(struct strbuf *sb, const struct zl_compare_row *r)
{
	sides_note(sb, r->a_host_bound, r->b_host_bound);
}

/*
 * Rows of which the profiler saw no kernel in any call on either side (timer.jsonl's
 * no_device_work): a view op such as tensor_split launches none, and the graph timer it falls
 * back to reads next to nothing (on an H200, 21 of tensor_split's 72 rows were called faster
 * or slower between two sweeps with nothing changed). On one side only, the device work
 * itself changed.
 */
static int no_device_work(const struct zl_compare_row *r)
{
	return r->a_no_device_work == 1 || r->b_no_device_work == 1;
}

static void no_device_work_note(struct strbuf *sb, const struct zl_compare_row *r)
{
	sides_note(sb, r->a_no_device_work, r->b_no_device_work);
}

/* The run's own note of its unmatched measurements, which unmatched_warning() says instead. */
static int is_unmatched_note(const struct zl_run *r, const char *note)
{
	char *own;
	int same;

	if (!r->timer_unmatched)
		return 0;
	own = xstrfmt(ZL_NOTE_TIMER_UNMATCHED, r->timer_unmatched);
	same = !strcmp(own, note);
	free(own);
	return same;
}

/*
 * Timer measurements that match no results row lose their samples: the rows they belong to
 * are judged on FlagGems' medians. Said once, with the counts, before the runs' other notes.
 */
static void unmatched_warning(struct zl_compare *c)
{
	size_t a = c->a->timer_unmatched, b = c->b->timer_unmatched;

	if (!a && !b)
		return;
	strvec_pushf(&c->warnings, "%zu timer measurement%s of A and %zu of B match no results row (plugins/timer.jsonl "
		     "keys them by another op, dtype or shape than results.json): their samples are unused, and "
		     "the rows they belong to are judged by the medians rule", a, a == 1 ? "" : "s", b);
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
	unmatched_warning(c);
	for (i = 0; i < c->a->notes.nr; i++)
		if (!is_unmatched_note(c->a, c->a->notes.v[i]))
			strvec_pushf(&c->warnings, "A: %s", c->a->notes.v[i]);
	for (i = 0; i < c->b->notes.nr; i++)
		if (!is_unmatched_note(c->b, c->b->notes.v[i]))
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
	clock_warning(c);
	rows_warning(c, kernels_differ, kernels_note,
		     "ran other kernels in B than in A (the library or tuner chose differently; the time "
		     "may differ for that reason alone)");
	rows_warning(c, host_bound, host_bound_note,
		     "timed the host as well as the device: the calls queue their kernels slower than "
		     "the device runs them, past the timer's longest hold, so the change may be the "
		     "host's (its load, its clocks), not the kernels'");
	rows_warning(c, no_device_work, no_device_work_note,
		     "ran no kernel that the profiler saw: their times are the fallback timer's reading "
		     "of next to nothing, so a change there is noise (on one side only: the device work "
		     "changed)");
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
		zl_compare_row_label(&label, r);
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
		zl_compare_row_label(&label, r);
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
			zl_compare_row_label(&first, &c->rows[i]);
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

/* The same run on both sides: one directory (symbolic links followed), or one run id. */
static int same_run(const struct zl_run *a, const struct zl_run *b)
{
	char *da, *db;
	int same;

	if (a->run_id && b->run_id && !strcmp(a->run_id, b->run_id))
		return 1;
	if (!a->dir || !b->dir)
		return 0;
	da = zl_absolute_path(a->dir);
	db = zl_absolute_path(b->dir);
	same = !strcmp(da, db);
	free(da);
	free(db);
	return same;
}

/* The operators of run's rows, each once, in row order. */
static void run_ops(const struct zl_run *run, struct strvec *ops)
{
	size_t i;

	const char *last = NULL;

	/* rows come grouped by op: look a name up only where it changes */
	for (i = 0; i < run->nr_results; i++) {
		const char *op = run->results[i].op;

		if (!op || (last && !strcmp(op, last)))
			continue;
		last = op;
		if (strvec_find(ops, op) < 0)
			strvec_push(ops, op);
	}
}

/* Operators with rows in one run only, when both have rows. */
static void build_op_sets(struct zl_compare *c)
{
	struct strvec a = STRVEC_INIT, b = STRVEC_INIT;
	size_t i;

	run_ops(c->a, &a);
	run_ops(c->b, &b);
	for (i = 0; a.nr && b.nr && i < a.nr; i++)
		if (strvec_find(&b, a.v[i]) < 0)
			strvec_push(&c->ops_only_a, a.v[i]);
	for (i = 0; a.nr && b.nr && i < b.nr; i++)
		if (strvec_find(&a, b.v[i]) < 0)
			strvec_push(&c->ops_only_b, b.v[i]);
	strvec_clear(&a);
	strvec_clear(&b);
}

int zl_compare_disjoint_ops(const struct zl_compare *c)
{
	struct strvec a = STRVEC_INIT;
	int disjoint;

	run_ops(c->a, &a);
	disjoint = a.nr && c->ops_only_a.nr == a.nr;
	strvec_clear(&a);
	return disjoint;
}

static void join_ops(struct strbuf *sb, const struct strvec *ops)
{
	size_t i;

	for (i = 0; i < ops->nr; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", ops->v[i]);
}

void zl_compare_alerts(const struct zl_compare *c, struct strvec *lines)
{
	struct strbuf sb = STRBUF_INIT;

	if (c->same_run) {
		strbuf_addf(&sb, "A and B are the same run (%s", c->a->run_id ? c->a->run_id : ZL_COMPARE_NONE_TEXT);
		if (c->a->dir)
			strbuf_addf(&sb, " in '%s'", c->a->dir);
		strbuf_addstr(&sb, "): every row is compared with itself; give two runs");
		strvec_push(lines, sb.buf);
		strbuf_reset(&sb);
	}
	if (c->ops_only_a.nr || c->ops_only_b.nr) {
		strbuf_addstr(&sb, "A and B ran different operators:");
		if (c->ops_only_a.nr) {
			strbuf_addstr(&sb, " only in A: ");
			join_ops(&sb, &c->ops_only_a);
		}
		if (c->ops_only_b.nr) {
			strbuf_addstr(&sb, c->ops_only_a.nr ? "; only in B: " : " only in B: ");
			join_ops(&sb, &c->ops_only_b);
		}
		strbuf_addstr(&sb, zl_compare_disjoint_ops(c) ? " (none in common: nothing to pair)" :
			      " (their rows have no partner: missing on the other side)");
		strvec_push(lines, sb.buf);
	}
	strbuf_release(&sb);
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
	out->same_run = same_run(a, b);
	build_op_sets(out);
	build_rows(out, &only_a, &only_b);
	build_drift(out);
	build_warnings(out, only_a, only_b);
	apply_gate(out);
}
