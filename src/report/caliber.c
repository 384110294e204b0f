/* The caliber of a run as the report shows it: one grid of fields, one line, and the warnings. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "zlbench/fsutil.h"
#include "zlbench/report/html.h"
#include "zlbench/report/parts.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

static const cJSON *id_item(const struct zl_run *run, const char *path)
{
	const cJSON *it = zl_json_path(run->identity, path);

	return it && !cJSON_IsNull(it) ? it : NULL;
}

static double id_number(const struct zl_run *run, const char *path)
{
	const cJSON *it = id_item(run, path);

	return cJSON_IsNumber(it) ? it->valuedouble : NAN;
}

static const char *id_string(const struct zl_run *run, const char *path)
{
	return zl_json_path_string(run->identity, path);
}

/* "#0 <name> (<uuid>)" per device, joined; " - not verified" when enumeration was unavailable. */
static void devices_text(struct strbuf *sb, const struct zl_run *run)
{
	const cJSON *devs = id_item(run, "devices"), *d;
	const cJSON *verified = id_item(run, "devices_verified");

	cJSON_ArrayForEach(d, devs) {
		const char *name = zl_json_path_string(d, "name");
		const char *uuid = zl_json_path_string(d, "uuid");
		const cJSON *idx = cJSON_GetObjectItemCaseSensitive(d, "index");

		if (sb->len)
			strbuf_addstr(sb, "; ");
		if (cJSON_IsNumber(idx))
			strbuf_addf(sb, "#%.0f ", idx->valuedouble);
		strbuf_addstr(sb, name ? name : "unnamed");
		if (uuid)
			strbuf_addf(sb, " (%s)", uuid);
	}
	if (sb->len && cJSON_IsFalse(verified))
		strbuf_addstr(sb, " - not verified");
}

static void timer_text(struct strbuf *sb, const struct zl_run *run)
{
	const char *plan = id_string(run, "timer.plan"), *used = id_string(run, "timer.used");
	static const char *const counts[] = { "profiler", "graph", "direct", "fallbacks" };
	size_t i;
	int any = 0;

	if (!plan && !used)
		return;
	strbuf_addf(sb, "plan %s, used %s", plan ? plan : "?", used ? used : "?");
	for (i = 0; i < ZL_ARRAY_SIZE(counts); i++) {
		char *path = xstrfmt("timer.%s", counts[i]);
		double v = id_number(run, path);

		free(path);
		if (isnan(v))
			continue;
		strbuf_addf(sb, "%s%.0f %s", any ? ", " : " (", v, counts[i]);
		any = 1;
	}
	if (any)
		strbuf_addch(sb, ')');
}

static void clock_text(struct strbuf *sb, const struct zl_run *run)
{
	const cJSON *clk = id_item(run, "timer.clock_mhz");
	const char *src = id_string(run, "timer.clock_source");
	double mn = cJSON_IsObject(clk) ? id_number(run, "timer.clock_mhz.min") : NAN;
	double md = id_number(run, "timer.clock_mhz.median"), mx = id_number(run, "timer.clock_mhz.max");
	double sup = id_number(run, "timer.clock_mhz.max_supported");

	if (isfinite(mn))
		strbuf_addf(sb, "%.0f / %.0f / %.0f MHz (min / median / max)", mn, md, mx);
	if (isfinite(mn) && isfinite(sup))
		strbuf_addf(sb, " of %.0f", sup);
	if (src)
		strbuf_addf(sb, "%s%s", sb->len ? ", " : "", src);
}

static void start_text(struct strbuf *sb, const struct zl_run *run)
{
	const char *mode = id_string(run, "start.mode");
	double before = id_number(run, "start.ops_before");

	if (!mode) {
		strbuf_addstr(sb, ZL_HTML_NOT_RECORDED " (read as fresh)");
		return;
	}
	strbuf_addstr(sb, mode);
	if (isfinite(before) && before > 0)
		strbuf_addf(sb, " after %.0f %s", before, before == 1 ? "op" : "ops");
}

static void tuner_text(struct strbuf *sb, const struct zl_run *run)
{
	double before = id_number(run, "tuner_cache.winners_before");
	double after = id_number(run, "tuner_cache.winners_after");

	if (!run->tuner_cache_mode)
		return;
	strbuf_addstr(sb, run->tuner_cache_mode);
	if (isfinite(before) || isfinite(after)) {
		strbuf_addstr(sb, ", winners ");
		strbuf_addf(sb, isfinite(before) ? "%.0f" : "?", before);
		strbuf_addstr(sb, " before, ");
		strbuf_addf(sb, isfinite(after) ? "%.0f" : "?", after);
		strbuf_addstr(sb, " after");
	}
}

static void autotune_text(struct strbuf *sb, const struct zl_run *run)
{
	const char *rid = id_string(run, "autotune.replay_run_id");
	double rec = id_number(run, "autotune.recorded"), pin = id_number(run, "autotune.pinned");
	double miss = id_number(run, "autotune.missed"), tuned = id_number(run, "autotune.tuned_on_miss");

	if (!run->autotune_mode)
		return;
	strbuf_addstr(sb, run->autotune_mode);
	if (run->replay_from)
		strbuf_addf(sb, " from %s", rid ? rid : run->replay_from);
	if (isfinite(rec))
		strbuf_addf(sb, ", %.0f recorded", rec);
	if (isfinite(pin))
		strbuf_addf(sb, ", %.0f pinned", pin);
	if (isfinite(miss) && miss > 0)
		strbuf_addf(sb, ", %.0f missed", miss);
	if (isfinite(tuned) && tuned > 0)
		strbuf_addf(sb, ", %.0f tuned on a miss", tuned);
}

static void flaggems_text(struct strbuf *sb, const struct zl_run *run)
{
	const char *demo = id_string(run, "flaggems.demo");

	if (run->flaggems_commit)
		strbuf_addstr(sb, run->flaggems_commit);
	if (cJSON_IsTrue(id_item(run, "flaggems.dirty")))
		strbuf_addstr(sb, " (dirty)");
	if (demo)
		strbuf_addf(sb, "%sdemo: %s", sb->len ? ", " : "", demo);
}

static void status_text(struct strbuf *sb, const struct zl_run *run)
{
	if (!run->status)
		return;
	strbuf_addstr(sb, run->status);
	if (run->exit_code >= 0)
		strbuf_addf(sb, " (exit %ld)", run->exit_code);
}

static void started_text(struct strbuf *sb, const struct zl_run *run)
{
	char dur[32];

	if (!run->started_at)
		return;
	strbuf_addstr(sb, run->started_at);
	if (isfinite(run->duration_s)) {
		zl_report_duration(dur, run->duration_s);
		strbuf_addf(sb, ", %s", dur);
	}
}

static void shapes_text(struct strbuf *sb, const struct zl_run *run)
{
	double n = id_number(run, "shape_file.shapes_for_op");

	if (run->shape_mode)
		strbuf_addstr(sb, run->shape_mode);
	if (run->shape_sha256)
		strbuf_addf(sb, "%ssha256 %.12s", sb->len ? ", " : "", run->shape_sha256);
	if (isfinite(n))
		strbuf_addf(sb, ", %.0f shapes for the op", n);
}

static void noise_text(struct strbuf *sb, const struct zl_run *run)
{
	double nt = id_number(run, "timer.noise_target");
	double mt = id_number(run, "timer.max_time_per_shape_s");

	if (isfinite(nt))
		strbuf_addf(sb, "%.3g %%", nt * 100);
	if (isfinite(nt) && isfinite(mt))
		strbuf_addf(sb, ", at most %.3g s per shape", mt);
}

static void throttled_text(struct strbuf *sb, const struct zl_run *run)
{
	double d = id_number(run, "timer.dropped_throttled");

	if (isfinite(d))
		strbuf_addf(sb, "%.0f", d);
}

/* What tells two runs' timers apart: plan and timer used, not the counts. */
static void timer_key(struct strbuf *sb, const struct zl_run *run)
{
	const char *plan = id_string(run, "timer.plan"), *used = id_string(run, "timer.used");

	if (plan || used)
		strbuf_addf(sb, "plan %s, used %s", plan ? plan : "?", used ? used : "?");
}

static void device_key(struct strbuf *sb, const struct zl_run *run)
{
	if (run->device_name)
		strbuf_addstr(sb, run->device_name);
}

static void tuner_key(struct strbuf *sb, const struct zl_run *run)
{
	if (run->tuner_cache_mode)
		strbuf_addstr(sb, run->tuner_cache_mode);
}

static void autotune_key(struct strbuf *sb, const struct zl_run *run)
{
	if (run->autotune_mode)
		strbuf_addstr(sb, run->autotune_mode);
}

/*
 * A field of the caliber: its name, how its text is built from the run, and the
 * part of it that tells the runs of one batch apart (key; NULL: the text; its
 * device index, test node and tuner counts differ from op to op by design).
 */
static const struct cal_field {
	const char *name;
	void (*text)(struct strbuf *sb, const struct zl_run *run);
	const char *path;     /* when text is NULL: a string at this identity path */
	int per_run;          /* differs between any two runs (not a caliber difference) */
	void (*key)(struct strbuf *sb, const struct zl_run *run);
	int per_op;           /* differs between the ops of a batch by design */
} cal_fields[] = {
	{ "run", NULL, "run_id", 1, NULL, 1 },
	{ "status", status_text, NULL, 0, NULL, 1 },
	{ "backend", NULL, "backend", 0, NULL, 0 },
	{ "vendor", NULL, "vendor", 0, NULL, 0 },
	{ "devices", devices_text, NULL, 0, device_key, 0 },
	{ "host", NULL, "host", 0, NULL, 0 },
	{ "level", NULL, "level", 0, NULL, 0 },
	{ "shapes", shapes_text, NULL, 0, NULL, 1 },
	{ "test node", NULL, NULL, 0, NULL, 1 },
	{ "FlagGems mode", NULL, "flaggems_mode", 0, NULL, 0 },
	{ "timer", timer_text, NULL, 0, timer_key, 0 },
	{ "noise target", noise_text, NULL, 0, NULL, 0 },
	{ "SM clock", clock_text, NULL, 0, NULL, 1 },
	{ "throttled samples dropped", throttled_text, NULL, 0, NULL, 1 },
	{ "interpreter start", start_text, NULL, 0, NULL, 1 },
	{ "tuner cache", tuner_text, NULL, 0, tuner_key, 0 },
	{ "autotune", autotune_text, NULL, 0, autotune_key, 0 },
	{ "FlagGems commit", flaggems_text, NULL, 0, NULL, 0 },
	{ "torch", NULL, "vendor_guard.torch_version", 0, NULL, 0 },
	{ "Triton", NULL, "vendor_guard.triton_version", 0, NULL, 0 },
	{ "Python", NULL, "python.version", 0, NULL, 0 },
	{ "started", started_text, NULL, 1, NULL, 1 },
	{ "zlbench", NULL, "zlbench_version", 0, NULL, 0 },
};

static void cal_value(struct strbuf *v, const struct cal_field *f, const struct zl_run *run)
{
	strbuf_reset(v);
	if (f->text)
		f->text(v, run);
	else if (f->path)
		strbuf_addstr(v, id_string(run, f->path) ? id_string(run, f->path) : "");
	else if (run->test_node)
		strbuf_addstr(v, run->test_node);
}

static void spread_value(struct strbuf *v, const struct cal_field *f, const struct zl_run *run)
{
	if (!f->key) {
		cal_value(v, f, run);
		return;
	}
	strbuf_reset(v);
	f->key(v, run);
}

void zl_report_caliber(struct strbuf *sb, const struct zl_run *run)
{
	struct strbuf v = STRBUF_INIT;
	size_t i;

	zl_html_cal_begin(sb);
	for (i = 0; i < ZL_ARRAY_SIZE(cal_fields); i++) {
		cal_value(&v, &cal_fields[i], run);
		zl_html_cal(sb, cal_fields[i].name, v.len ? v.buf : NULL);
	}
	zl_html_cal_end(sb);
	strbuf_release(&v);
}

void zl_report_caliber_table(struct strbuf *sb, const struct zl_run *const *runs, const char *const *names, size_t n)
{
	struct strbuf v = STRBUF_INIT, first = STRBUF_INIT;
	size_t i, r;

	strbuf_addstr(sb, "<div class=\"scroll\"><table class=\"caltab\"><thead><tr><th>caliber</th>");
	for (r = 0; r < n; r++)
		zl_html_elem(sb, "th", NULL, names[r]);
	strbuf_addstr(sb, "</tr></thead>\n<tbody>\n");
	for (i = 0; i < ZL_ARRAY_SIZE(cal_fields); i++) {
		const struct cal_field *f = &cal_fields[i];
		int differs = 0;

		for (r = 0; r < n; r++) {
			cal_value(&v, f, runs[r]);
			if (!r)
				strbuf_addbuf(&first, &v);
			else if (strcmp(v.buf, first.buf))
				differs = 1;
		}
		strbuf_reset(&first);
		strbuf_addstr(sb, differs && !f->per_run ? "<tr class=\"diff\"><th>\xe2\x89\xa0 " : "<tr><th>");
		zl_html_escape(sb, f->name);
		strbuf_addstr(sb, "</th>");
		for (r = 0; r < n; r++) {
			cal_value(&v, f, runs[r]);
			if (v.len)
				zl_html_td(sb, v.buf, "wrap");
			else
				strbuf_addstr(sb, "<td class=\"nr\">" ZL_HTML_NOT_RECORDED "</td>");
		}
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</tbody></table></div>\n");
	strbuf_release(&v);
	strbuf_release(&first);
}

void zl_report_caliber_spread(const struct zl_run *const *runs, const char *const *names, size_t n,
			      struct strvec *out)
{
	struct strbuf v = STRBUF_INIT, line = STRBUF_INIT;
	struct strvec values = STRVEC_INIT;
	size_t i, r, k;

	for (i = 0; i < ZL_ARRAY_SIZE(cal_fields); i++) {
		const struct cal_field *f = &cal_fields[i];

		if (f->per_op)
			continue;
		strvec_clear(&values);
		for (r = 0; r < n; r++) {
			spread_value(&v, f, runs[r]);
			if (strvec_find(&values, v.len ? v.buf : ZL_HTML_NOT_RECORDED) < 0)
				strvec_push(&values, v.len ? v.buf : ZL_HTML_NOT_RECORDED);
		}
		if (values.nr < 2)
			continue;
		strbuf_reset(&line);
		strbuf_addf(&line, "%s: ", f->name);
		for (k = 0; k < values.nr; k++) {
			size_t count = 0, listed = 0;

			strbuf_addf(&line, "%s%s (", k ? "; " : "", values.v[k]);
			for (r = 0; r < n; r++) {
				spread_value(&v, f, runs[r]);
				if (strcmp(v.len ? v.buf : ZL_HTML_NOT_RECORDED, values.v[k]))
					continue;
				count++;
				if (listed < 6)
					strbuf_addf(&line, "%s%s", listed++ ? ", " : "", names[r]);
			}
			if (count > listed)
				strbuf_addf(&line, " and %zu more", count - listed);
			strbuf_addch(&line, ')');
		}
		strvec_push(out, line.buf);
	}
	strvec_clear(&values);
	strbuf_release(&v);
	strbuf_release(&line);
}

void zl_report_caliber_line(struct strbuf *sb, const struct zl_run *run)
{
	struct strbuf t = STRBUF_INIT, line = STRBUF_INIT;
	const char *torch = id_string(run, "vendor_guard.torch_version");
	const char *triton = id_string(run, "vendor_guard.triton_version");

	strbuf_addf(&line, "%s", run->run_id);
	if (run->status)
		strbuf_addf(&line, " \xc2\xb7 %s", run->status);
	if (run->device_name)
		strbuf_addf(&line, " \xc2\xb7 %s", run->device_name);
	timer_text(&t, run);
	strbuf_addf(&line, " \xc2\xb7 timer %s", t.len ? t.buf : ZL_HTML_NOT_RECORDED);
	strbuf_reset(&t);
	noise_text(&t, run);
	strbuf_addf(&line, " \xc2\xb7 noise target %s", t.len ? t.buf : ZL_HTML_NOT_RECORDED);
	strbuf_reset(&t);
	autotune_text(&t, run);
	if (t.len)
		strbuf_addf(&line, " \xc2\xb7 autotune %s", t.buf);
	if (run->flaggems_commit)
		strbuf_addf(&line, " \xc2\xb7 FlagGems %s", run->flaggems_commit);
	if (torch)
		strbuf_addf(&line, " \xc2\xb7 torch %s", torch);
	if (triton)
		strbuf_addf(&line, " \xc2\xb7 Triton %s", triton);
	zl_html_elem(sb, "p", "class=\"sub mono\"", line.buf);
	strbuf_addch(sb, '\n');
	strbuf_release(&t);
	strbuf_release(&line);
}

/* The fallback reasons the timer plugin listed (plugins/timer_summary.json), joined. */
static void fallback_reasons(const struct zl_run *run, struct strbuf *sb)
{
	struct strbuf text = STRBUF_INIT;
	char *path;
	cJSON *doc = NULL;
	const cJSON *it;

	if (!run->dir)
		return;
	path = zl_path_join(run->dir, "plugins/timer_summary.json");
	if (zl_is_file(path) && strbuf_read_file(&text, path) >= 0)
		doc = cJSON_ParseWithLength(text.buf, text.len);
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc, "fallback_reasons")) {
		if (!cJSON_IsString(it))
			continue;
		strbuf_addstr(sb, sb->len ? "; " : ": ");
		strbuf_addstr(sb, it->valuestring);
	}
	cJSON_Delete(doc);
	strbuf_release(&text);
	free(path);
}

static void warn_timer(const struct zl_run *run, struct strvec *out)
{
	double fb = id_number(run, "timer.fallbacks"), dropped = id_number(run, "timer.dropped_throttled");
	const char *src = id_string(run, "timer.clock_source");
	const cJSON *clk = zl_json_path(run->identity, "timer.clock_mhz");
	double mn = id_number(run, "timer.clock_mhz.min"), sup = id_number(run, "timer.clock_mhz.max_supported");

	if (isfinite(fb) && fb > 0) {
		struct strbuf why = STRBUF_INIT;

		fallback_reasons(run, &why);
		strvec_pushf(out, "timer fallbacks: %.0f %s not timed by the planned %s timer%s", fb,
			     fb == 1 ? "measurement was" : "measurements were", run->timer_plan ? run->timer_plan : "",
			     why.buf);
		strbuf_release(&why);
	}
	if (isfinite(dropped) && dropped > 0)
		strvec_pushf(out, "throttled samples: %.0f %s dropped because the SM clock was below "
			     "75 %% of its maximum", dropped, dropped == 1 ? "sample was" : "samples were");
	if (src && zl_starts_with(src, "unknown"))
		strvec_pushf(out, "unknown clocks: the SM clock was not read (%s), so throttling was not checked", src);
	else if (src && cJSON_IsNull(clk))
		strvec_pushf(out, "unknown clocks: no SM clock reading during the run (source %s)", src);
	if (isfinite(mn) && isfinite(sup) && sup > 0 && mn < 0.75 * sup)
		strvec_pushf(out, "throttled clock: the SM clock went down to %.0f MHz of %.0f", mn, sup);
}

static void warn_vendor(const struct zl_run *run, struct strvec *out)
{
	const cJSON *vendors = id_item(run, "foreign_vendor.vendors");
	const cJSON *modules = id_item(run, "foreign_vendor.modules");
	const cJSON *first = cJSON_GetArrayItem(modules, 0);
	struct strbuf names = STRBUF_INIT;
	const cJSON *it;

	if (cJSON_IsFalse(id_item(run, "vendor_guard.match")))
		strvec_pushf(out, "vendor mismatch: expected %s, FlagGems detected %s",
			     id_string(run, "vendor_guard.expected") ? id_string(run, "vendor_guard.expected") : "?",
			     id_string(run, "vendor_guard.detected") ? id_string(run, "vendor_guard.detected") : "?");
	cJSON_ArrayForEach(it, vendors)
		if (cJSON_IsString(it))
			strbuf_addf(&names, "%s%s", names.len ? ", " : "", it->valuestring);
	if (names.len) {
		const char *mod = zl_json_path_string(first, "module"), *by = zl_json_path_string(first, "first_test");

		int nmod = cJSON_GetArraySize(modules);

		strvec_pushf(out, "foreign vendor modules: %d %s of %s %s loaded (first %s, brought in by %s)", nmod,
			     nmod == 1 ? "module" : "modules", names.buf, nmod == 1 ? "was" : "were", mod ? mod : "?",
			     by ? by : "unknown");
	}
	strbuf_release(&names);
}

static void warn_tuner(const struct zl_run *run, struct strvec *out)
{
	const char *note = id_string(run, "tuner_cache.note");

	if (run->tuner_cache_mode && !strcmp(run->tuner_cache_mode, "shared") && run->winners_before > 0 &&
	    !(run->autotune_mode && !strcmp(run->autotune_mode, "replay")))
		strvec_pushf(out, "inherited tuner winners: the run started with %ld %s already in the shared "
			     "tuner cache, so its kernels may have reused earlier runs' tuning (--isolate-tuner-cache "
			     "or --replay-from for an A/B)", run->winners_before, run->winners_before == 1 ? "winner" : "winners");
	if (note)
		strvec_pushf(out, "tuner cache: %s", note);
}

static void warn_misc(const struct zl_run *run, struct strvec *out)
{
	const char *mode = id_string(run, "start.mode");
	double before = id_number(run, "start.ops_before");
	const char *how = id_string(run, "devices_how");
	const char *reason = id_string(run, "reason");

	if (run->status && strcmp(run->status, "passed"))
		strvec_pushf(out, "status %s%s%s", run->status, reason ? ": " : "", reason ? reason : "");
	if (mode && strcmp(mode, "fresh") && isfinite(before) && before > 0)
		strvec_pushf(out, "interpreter %s: this op ran in a Python process that had run %.0f %s before it",
			     mode, before, before == 1 ? "op" : "ops");
	else if (mode && strcmp(mode, "fresh"))
		strvec_pushf(out, "interpreter %s: this op was the first its Python process ran", mode);
	if (cJSON_IsFalse(id_item(run, "devices_verified")) && how && zl_starts_with(how, "not verified"))
		strvec_pushf(out, "devices %s", how);
	else if (cJSON_IsFalse(id_item(run, "devices_verified")))
		strvec_pushf(out, "devices not verified%s%s%s", how ? " (" : "", how ? how : "", how ? ")" : "");
	if (cJSON_IsTrue(id_item(run, "flaggems.dirty")))
		strvec_push(out, "FlagGems checkout has uncommitted changes: its commit does not name the code that ran");
}

void zl_report_run_warnings(const struct zl_run *run, struct strvec *out)
{
	size_t i;

	warn_misc(run, out);
	warn_timer(run, out);
	warn_vendor(run, out);
	warn_tuner(run, out);
	for (i = 0; i < run->notes.nr; i++)
		strvec_push(out, run->notes.v[i]);
}
