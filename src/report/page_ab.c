/*
 * The A/B page: an `zlbench ab` directory (ab.json and the run directories of its
 * rounds, A1 B1 B2 A2 ...) drawn as a comparison.
 *
 * `zlbench ab` is being written while this is; what this page assumes of its
 * directory (docs/report.md says the same):
 *   - ab.json is a JSON object. Its rounds are listed in "rounds" (or "runs"): each
 *     an object with the run directory in "run_dir" (or "dir", "path"; relative to
 *     the ab directory and inside it: another path is left out, with a note), the round's name in "name" (or "round", "label") and its
 *     arm in "arm" (or "side"): "A"/"B", else the name's first letter; or a plain
 *     string, the run directory. Without such a list, the sub-directories (and
 *     those under runs/) named A<n>/B<n> that hold a run_identity.json are the rounds.
 *   - ab.json's "status" other than "done" ("running": killed, or still running) is
 *     said first, and each round's "status" stands for a round that did not load.
 *   - When ab.json holds "rows" (objects with op, dtype, shape, side, ratio, ci_low,
 *     ci_high, verdict as docs/verdicts.md names them), those rows are drawn.
 *   - Otherwise each arm is pooled: per row, the median latency over the arm's
 *     rounds, with the spread across rounds (their IQR) as the row's noise when it
 *     is wider than the rounds' own, and compare's rule is applied to the pooled A
 *     and B. The samples of an arm are its rounds' samples together.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "zlbench/compare.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/json.h"
#include "zlbench/report.h"
#include "zlbench/report/html.h"
#include "zlbench/report/parts.h"
#include "zlbench/report/svg.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

struct round {
	char *name;
	int arm;               /* 0 A, 1 B */
	char *dir;
	const char *status;    /* ab.json's (in ab->doc), or NULL */
	struct zl_run run;
	int loaded;
};

struct ab {
	const char *dir;
	cJSON *doc;
	struct round *v;
	size_t nr, alloc;
	struct strvec notes;
};

static const char *first_string(const cJSON *o, const char *const *keys)
{
	for (; *keys; keys++) {
		const char *s = zl_json_path_string(o, *keys);
		if (s)
			return s;
	}
	return NULL;
}

static int arm_of(const char *arm, const char *name)
{
	const char *s = arm && *arm ? arm : name;

	if (!s || !*s)
		return -1;
	return toupper((unsigned char)s[0]) == 'A' ? 0 : toupper((unsigned char)s[0]) == 'B' ? 1 : -1;
}

static void add_round(struct ab *ab, const char *name, int arm, const char *dir)
{
	struct round *r;

	ALLOC_GROW(ab->v, ab->nr + 1, ab->alloc);
	r = &ab->v[ab->nr++];
	memset(r, 0, sizeof(*r));
	r->name = xstrdup(name);
	r->arm = arm;
	r->dir = zl_path_join(ab->dir, dir);
	zl_run_init(&r->run);
}

static void rounds_from_json(struct ab *ab)
{
	static const char *const dir_keys[] = { "run_dir", "dir", "path", NULL };
	static const char *const name_keys[] = { "name", "round", "label", NULL };
	static const char *const arm_keys[] = { "arm", "side", NULL };
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(ab->doc, "rounds"), *it;

	if (!cJSON_IsArray(list))
		list = cJSON_GetObjectItemCaseSensitive(ab->doc, "runs");
	cJSON_ArrayForEach(it, list) {
		const char *dir = cJSON_IsString(it) ? it->valuestring : first_string(it, dir_keys);
		const char *name = cJSON_IsString(it) ? NULL : first_string(it, name_keys);
		const char *base;
		int arm;

		if (!dir)
			continue;
		base = strrchr(dir, '/');
		base = base && base[1] ? base + 1 : dir;
		if (!name)
			name = base;
		arm = arm_of(cJSON_IsString(it) ? NULL : first_string(it, arm_keys), name);
		if (arm < 0) {
			strvec_pushf(&ab->notes, "ab.json: round '%s' is neither A nor B: left out", name);
		} else if (!zl_path_is_inside(dir)) {
			/* a round is one of the ab directory's own: another path is no reason to read elsewhere */
			strvec_pushf(&ab->notes, "ab.json: round '%s' names '%s', not a directory inside '%s': left out",
				     name, dir, ab->dir);
		} else {
			add_round(ab, name, arm, dir);
			ab->v[ab->nr - 1].status = cJSON_IsString(it) ? NULL : zl_json_path_string(it, "status");
		}
	}
}

/* A<n> or B<n>. */
static int round_name(const char *s)
{
	size_t digits;

	if (arm_of(NULL, s) < 0)
		return 0;
	digits = strspn(s + 1, "0123456789");
	return digits > 0 && !s[1 + digits];
}

static int by_name(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void rounds_from_dirs(struct ab *ab, const char *sub)
{
	char *dir = sub ? zl_path_join(ab->dir, sub) : xstrdup(ab->dir);
	DIR *d = opendir(dir);
	struct dirent *e;
	struct strvec names = STRVEC_INIT;
	size_t i;

	while (d && (e = readdir(d))) {
		char *rel, *id;

		if (!round_name(e->d_name))
			continue;
		rel = sub ? xstrfmt("%s/%s", sub, e->d_name) : xstrdup(e->d_name);
		id = xstrfmt("%s/%s/run_identity.json", ab->dir, rel);
		if (zl_is_file(id))
			strvec_push(&names, rel);
		free(rel);
		free(id);
	}
	if (d)
		closedir(d);
	if (names.nr)
		qsort(names.v, names.nr, sizeof(*names.v), by_name);
	for (i = 0; i < names.nr; i++) {
		const char *base = strrchr(names.v[i], '/');
		base = base ? base + 1 : names.v[i];
		add_round(ab, base, arm_of(NULL, base), names.v[i]);
	}
	strvec_clear(&names);
	free(dir);
}

static void ab_release(struct ab *ab)
{
	size_t i;

	for (i = 0; i < ab->nr; i++) {
		free(ab->v[i].name);
		free(ab->v[i].dir);
		zl_run_release(&ab->v[i].run);
	}
	free(ab->v);
	cJSON_Delete(ab->doc);
	strvec_clear(&ab->notes);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Per row of pooled (a copy of the arm's first round): the median over the arm's rounds. */
static void pool_arm(const struct ab *ab, int arm, struct zl_run *pooled)
{
	double *vals = xcalloc(ab->nr ? ab->nr : 1, sizeof(*vals));
	double *iqrs = xcalloc(ab->nr ? ab->nr : 1, sizeof(*iqrs));
	size_t i, k;

	for (i = 0; i < pooled->nr_results; i++) {
		struct zl_result *p = &pooled->results[i];
		size_t n = 0, ni = 0;
		double spread, own;

		for (k = 0; k < ab->nr; k++) {
			const struct zl_result *r;

			if (ab->v[k].arm != arm || !ab->v[k].loaded)
				continue;
			r = zl_run_find(&ab->v[k].run, p->op, p->dtype, p->shape, p->occurrence, p->side);
			if (r && r->latency_ms > 0)
				vals[n++] = r->latency_ms;
			if (r && isfinite(r->iqr_ms))
				iqrs[ni++] = r->iqr_ms;
		}
		if (!n) {
			p->latency_ms = NAN;
			continue;
		}
		qsort(vals, n, sizeof(*vals), cmp_double);
		qsort(iqrs, ni, sizeof(*iqrs), cmp_double);
		p->latency_ms = zl_quantile_sorted(vals, n, 0.5);
		spread = n > 1 ? zl_quantile_sorted(vals, n, 0.75) - zl_quantile_sorted(vals, n, 0.25) : NAN;
		own = ni ? zl_quantile_sorted(iqrs, ni, 0.5) : NAN;
		p->iqr_ms = isfinite(spread) && !(own > spread) ? spread : own;
		if (n > 1 && (p->samples < 2 || !isfinite(own)))
			p->samples = (long)n;
	}
	free(vals);
	free(iqrs);
}

static void pool_samples(const struct ab *ab, int arm, struct zl_samples *out)
{
	size_t k, i;

	for (k = 0; k < ab->nr; k++) {
		struct zl_samples one;

		if (ab->v[k].arm != arm || !ab->v[k].loaded)
			continue;
		zl_samples_init(&one);
		zl_samples_load(ab->v[k].dir, &one);
		for (i = 0; i < one.nr; i++) {
			struct zl_samples_entry *e = zl_samples_add(out, one.v[i].key);

			e->v = xrealloc(e->v, (e->n + one.v[i].n + 1) * sizeof(*e->v));
			memcpy(e->v + e->n, one.v[i].v, one.v[i].n * sizeof(*e->v));
			e->n += one.v[i].n;
			e->subset |= one.v[i].subset;
		}
		zl_samples_release(&one);
	}
}

static double json_num(const cJSON *o, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(it) ? it->valuedouble : NAN;
}

/* ab.json's own rows (docs/verdicts.md names), when it has them. */
static int rows_from_json(const struct ab *ab, struct zl_report_cmp *rc)
{
	static const char *const names[] = { "faster", "slower", "same", "unsure", "missing" };
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(ab->doc, "rows"), *it;
	size_t n = 0;

	cJSON_ArrayForEach(it, rows) {
		const char *verdict = zl_json_path_string(it, "verdict"), *side_s = zl_json_path_string(it, "side");
		const char *why = zl_json_path_string(it, "unsure_reason");
		const cJSON *shape = cJSON_GetObjectItemCaseSensitive(it, "shape");
		struct zl_report_row *r;
		struct strbuf sh = STRBUF_INIT;
		enum zl_side side = ZL_SIDE_GEMS;
		const cJSON *occ = cJSON_GetObjectItemCaseSensitive(it, "occurrence");
		size_t v;

		if (!verdict || !zl_json_path_string(it, "op"))
			continue;
		if (side_s)
			zl_side_parse(side_s, &side);
		if (cJSON_IsString(shape))
			strbuf_addstr(&sh, shape->valuestring);
		else
			zl_json_canonical(&sh, shape);
		r = zl_report_cmp_add(rc, zl_json_path_string(it, "op"), zl_json_path_string(it, "dtype"), sh.buf,
				      zl_json_int(occ, 1), side);
		strbuf_release(&sh);
		r->ratio = json_num(it, "ratio");
		r->ci_low = json_num(it, "ci_low");
		r->ci_high = json_num(it, "ci_high");
		r->a_ms = json_num(it, "a_ms");
		r->b_ms = json_num(it, "b_ms");
		r->verdict = ZL_RV_UNSURE;
		for (v = 0; v < ZL_ARRAY_SIZE(names); v++)
			if (!strcmp(verdict, names[v]))
				r->verdict = (enum zl_report_verdict)v;
		if (why)
			r->note = xstrdup(why);
		n++;
	}
	return n > 0;
}

static void rounds_table(struct strbuf *out, const struct ab *ab, const char *how)
{
	static const char *const heads[] = { "round", "arm", "run", "status", "started", "duration",
					     "FlagGems speedup (geomean)", "directory" };
	const char *status;
	size_t i;

	strbuf_addstr(out, "<h2>Rounds</h2>\n");
	zl_html_elem(out, "p", "class=\"sub\"", how);
	zl_html_table_begin(out, NULL, heads, ZL_ARRAY_SIZE(heads));
	for (i = 0; i < ab->nr; i++) {
		const struct round *r = &ab->v[i];
		struct strvec ops = STRVEC_INIT;
		char buf[32];
		size_t n = 0, losses = 0;
		double g = NAN;

		if (i)
			zl_html_tr(out);
		zl_html_td(out, r->name, NULL);
		zl_html_td(out, r->arm ? "B" : "A", NULL);
		zl_html_td(out, r->loaded ? r->run.run_id : "not loaded", "mono");
		status = r->loaded && r->run.status ? r->run.status : r->status ? r->status : "not run";
		zl_html_td(out, status, zl_report_status_class(status));
		zl_html_td(out, r->loaded ? r->run.started_at : NULL, NULL);
		zl_report_duration(buf, r->loaded ? r->run.duration_s : NAN);
		zl_html_td(out, buf, "n");
		if (r->loaded) {
			zl_report_run_ops(&r->run, &ops);
			if (ops.nr)
				g = zl_report_op_speedup(&r->run, ops.v[0], &n, &losses);
		}
		zl_report_ratio(buf, g);
		zl_html_td(out, buf, "n");
		zl_html_td(out, r->dir, "mono");
		strvec_clear(&ops);
	}
	zl_html_table_end(out);
}

/*
 * ab.json's "status" when the ab did not finish: "running" is what a SIGKILLed ab leaves
 * (or one still running), "interrupted" a stopped one. Lines for a notice, else none.
 */
static void unfinished(const struct ab *ab, struct strvec *lines)
{
	const char *status = zl_json_path_string(ab->doc, "status");
	size_t i, ended = 0;

	if (!status || !strcmp(status, "done"))
		return;
	for (i = 0; i < ab->nr; i++)
		ended += ab->v[i].loaded && ab->v[i].run.status && strcmp(ab->v[i].run.status, "running");
	if (!strcmp(status, "running"))
		strvec_pushf(lines, "ab.json says \"running\": this ab is still running, or its process was "
			     "killed before it could say how it ended");
	else
		strvec_pushf(lines, "ab.json says \"%s\", not \"done\"", status);
	strvec_pushf(lines, "%zu of the %zu rounds ended; the figures below are those rounds' only, not the ab's "
		     "result (no verdict of ab's own, no gate)", ended, ab->nr);
}

/* Read ab.json into ab->doc and find its rounds (listed, else the A<n>/B<n> directories). */
static int ab_read(struct ab *ab, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	char *path = zl_path_join(ab->dir, "ab.json");
	int ret = -1;

	if (strbuf_read_file(&text, path) < 0) {
		zl_error(err, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	ab->doc = cJSON_ParseWithLength(text.buf, text.len);
	if (!cJSON_IsObject(ab->doc)) {
		zl_error(err, "'%s' is not a json object", path);
		goto out;
	}
	rounds_from_json(ab);
	if (!ab->nr)
		rounds_from_dirs(ab, NULL);
	if (!ab->nr)
		rounds_from_dirs(ab, "runs");
	ret = 0;
out:
	strbuf_release(&text);
	free(path);
	return ret;
}

/* Load every round (a failure is a note); first[arm]: the arm's first loaded round. */
static int ab_load_rounds(struct ab *ab, int first[2], struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	size_t i;

	first[0] = first[1] = -1;
	for (i = 0; i < ab->nr; i++) {
		strbuf_reset(&why);
		ab->v[i].loaded = !zl_run_load(ab->v[i].dir, &ab->v[i].run, &why);
		if (!ab->v[i].loaded)
			strvec_pushf(&ab->notes, "round %s: %s", ab->v[i].name, why.buf);
		else if (first[ab->v[i].arm] < 0)
			first[ab->v[i].arm] = (int)i;
	}
	strbuf_release(&why);
	if (first[0] < 0 || first[1] < 0)
		return zl_error(err, "'%s' names no loadable run of both A and B (rounds in ab.json's \"rounds\", or "
				"directories A1, B1, ...)", ab->dir);
	return 0;
}

/* Each arm pooled: its first round loaded again as the base, then its rows and samples pooled. */
static int ab_pool(const struct ab *ab, const int first[2], struct zl_run pooled[2], struct zl_samples samples[2],
		   struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	int arm, ret = 0;

	for (arm = 0; arm < 2; arm++) {
		strbuf_reset(&why);
		if (zl_run_load(ab->v[first[arm]].dir, &pooled[arm], &why)) {
			ret = zl_error(err, "%s", why.buf);
			break;
		}
		pool_arm(ab, arm, &pooled[arm]);
		pool_samples(ab, arm, &samples[arm]);
	}
	strbuf_release(&why);
	return ret;
}

/*
 * rows_from_json appended ab.json's rows after compare's first nr_pooled: those go, the
 * appended stay. The caliber and gate stay compare's.
 */
static void keep_own_rows(struct zl_report_cmp *rc, size_t nr_pooled)
{
	size_t keep = rc->nr, j;

	for (j = 0; j < nr_pooled && j < keep; j++) {
		free(rc->rows[j].op);
		free(rc->rows[j].dtype);
		free(rc->rows[j].shape);
		free(rc->rows[j].note);
	}
	memmove(rc->rows, rc->rows + nr_pooled, (keep - nr_pooled) * sizeof(*rc->rows));
	rc->nr = keep - nr_pooled;
	free(rc->interval);
	rc->interval = xstrdup("the interval ab.json gives (ci_low to ci_high)");
	free(rc->method);
	rc->method = xstrdup("verdicts as ab.json gives them");
}

/* The page: a title naming the op, the rounds and the directory, the rounds table, then compare's body. */
static void ab_render(const struct ab *ab, int own_rows, const struct zl_report_cmp *rc, const struct zl_run pooled[2],
		      const struct zl_samples samples[2], const char *now, struct strbuf *out)
{
	struct strbuf extra = STRBUF_INIT, sub = STRBUF_INIT, title = STRBUF_INIT;
	struct strvec notice = STRVEC_INIT;
	size_t i;

	unfinished(ab, &notice);
	strbuf_addf(&title, "zlbench ab: %s%s", pooled[0].op ? pooled[0].op : "B against A",
		    notice.nr ? " (not finished)" : "");
	for (i = 0; i < ab->nr; i++)
		strbuf_addf(&sub, "%s%s", i ? " " : "", ab->v[i].name);
	strbuf_addf(&sub, " \xc2\xb7 %s", ab->dir);
	rounds_table(&extra, ab, own_rows ? "The rounds in run order. The rows below are ab.json's own."
					  : "The rounds in run order. A and B below are each arm's rounds pooled: per "
					    "row the median latency over its rounds, with the spread across rounds as "
					    "the noise when it is wider than a round's own; the samples are the "
					    "rounds' together. Each arm's caliber is its first round's.");
	zl_html_page_begin(out, title.buf, NULL);
	zl_html_notes(out, "bad", "This ab did not finish", &notice);
	strvec_clear(&notice);
	zl_report_compare_body(rc, &pooled[0], &pooled[1], &samples[0], &samples[1], sub.buf, extra.buf, out);
	zl_html_page_end(out, now);
	strbuf_release(&extra);
	strbuf_release(&sub);
	strbuf_release(&title);
}

int zl_report_ab_page(const char *ab_dir, const struct zl_compare_opts *opts, const char *now,
		      struct strbuf *out, struct strbuf *err)
{
	struct ab ab;
	struct zl_run pooled[2];
	struct zl_samples samples[2];
	struct zl_compare cmp;
	struct zl_report_cmp rc;
	struct zl_compare_opts o = *opts;
	int first[2], rc_ret = -1, arm, own_rows;
	size_t i;

	memset(&ab, 0, sizeof(ab));
	ab.dir = ab_dir;
	strvec_init(&ab.notes);
	for (arm = 0; arm < 2; arm++) {
		zl_run_init(&pooled[arm]);
		zl_samples_init(&samples[arm]);
	}
	zl_compare_init(&cmp);
	zl_report_cmp_init(&rc);
	if (ab_read(&ab, err) || ab_load_rounds(&ab, first, err) || ab_pool(&ab, first, pooled, samples, err))
		goto out;
	o.allow_mismatch = 1;
	zl_compare_runs(&pooled[0], &pooled[1], &o, &cmp);
	zl_report_cmp_from_compare(&cmp, &rc);
	own_rows = rows_from_json(&ab, &rc);
	if (own_rows)
		keep_own_rows(&rc, cmp.nr_rows);
	for (i = 0; i < ab.notes.nr; i++)
		strvec_push(&rc.warnings, ab.notes.v[i]);
	ab_render(&ab, own_rows, &rc, pooled, samples, now, out);
	rc_ret = 0;
out:
	for (arm = 0; arm < 2; arm++) {
		zl_run_release(&pooled[arm]);
		zl_samples_release(&samples[arm]);
	}
	zl_compare_release(&cmp);
	zl_report_cmp_release(&rc);
	ab_release(&ab);
	return rc_ret;
}
