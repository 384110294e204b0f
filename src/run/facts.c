#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zlbench/cachedir.h"
#include "zlbench/cachesweep.h"
#include "zlbench/child.h"
#include "zlbench/error.h"
#include "zlbench/facts.h"
#include "zlbench/fsutil.h"
#include "zlbench/json.h"
#include "zlbench/resolve.h"
#include "zlbench/shapes.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

void zl_run_facts_init(struct zl_run_facts *f)
{
	memset(f, 0, sizeof(*f));
	strvec_init(&f->tuner_unread_before);
	f->flaggems_dirty = -1;
	f->winners_before = f->winners_after = -1;
	f->configs_before = f->configs_after = -1;
	f->compile_variants = f->compile_convert_layout = -1;
	f->exit_code = -1;
	f->status = "running";
}

void zl_run_facts_release(struct zl_run_facts *f)
{
	size_t i;

	zl_run_facts_cleanup(f);
	free(f->run_id);
	free(f->host);
	free(f->flaggems_commit);
	free(f->visibility_value);
	free(f->flaggems_cache);
	free(f->triton_cache);
	free(f->isolated_root);
	free(f->isolated_flaggems_cache);
	free(f->isolated_triton_cache);
	for (i = 0; i < f->nr_tuner_tables; i++) {
		free(f->tuner_tables[i].db);
		free(f->tuner_tables[i].name);
	}
	free(f->tuner_tables);
	free(f->tuner_note);
	free(f->tuner_note_before);
	free(f->tuner_note_after);
	strvec_clear(&f->tuner_unread_before);
	free(f->compile_note);
	free(f->reason);
	cJSON_Delete(f->start);
	zl_compile_facts_free(f->compile_snap);
	zl_run_facts_init(f);
}

void zl_run_facts_cleanup(struct zl_run_facts *f)
{
	struct strbuf err = STRBUF_INIT;

	if (f->isolated_root) {
		if (zl_remove_tree(f->isolated_root, &err))
			zl_print_warning("cannot remove the isolated caches: %s", err.buf);
		free(f->isolated_root);
		f->isolated_root = NULL;
	}
	strbuf_release(&err);
}

char *zl_demo_label(const char *flaggems_dir)
{
	char *path = zl_path_join(flaggems_dir, ".zlbench-demo");
	struct strbuf text = STRBUF_INIT;
	char *label = NULL;

	if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL)) {
		char *nl = strchr(text.buf, '\n');
		if (nl)
			*nl = '\0';
		label = xstrdup(text.buf);
	}
	strbuf_release(&text);
	free(path);
	return label;
}

/* 1 when s is a full hexadecimal object name (SHA-1 or SHA-256). */
static int is_object_name(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return (n == 40 || n == 64) && !s[n];
}

/*
 * The commit of <dotgit>/HEAD read from the files, for a machine without the git
 * program (the GPU images zlbench runs on may lack it): a detached HEAD, or the
 * branch it names as a loose ref or in packed-refs. NULL when none is found.
 */
static char *head_from_files(const char *dotgit)
{
	struct strbuf text = STRBUF_INIT;
	char *path = zl_path_join(dotgit, "HEAD"), *commit = NULL, *ref = NULL;

	if (zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL))
		goto out;
	strbuf_rtrim(&text);
	if (is_object_name(text.buf)) {
		commit = strbuf_detach(&text, NULL);
		goto out;
	}
	if (!zl_starts_with(text.buf, "ref: refs/"))
		goto out;
	ref = xstrdup(text.buf + strlen("ref: "));
	free(path);
	path = zl_path_join(dotgit, ref);
	strbuf_reset(&text);
	if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL)) {
		strbuf_rtrim(&text);
		if (is_object_name(text.buf))
			commit = strbuf_detach(&text, NULL);
		goto out;
	}
	/* packed-refs: "<name> <ref>" lines */
	free(path);
	path = zl_path_join(dotgit, "packed-refs");
	strbuf_reset(&text);
	if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL)) {
		char *line, *next;

		for (line = text.buf; line && *line && !commit; line = next) {
			char *sp;

			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			sp = strchr(line, ' ');
			if (sp && !strcmp(sp + 1, ref)) {
				*sp = '\0';
				if (is_object_name(line))
					commit = xstrdup(line);
			}
		}
	}
out:
	free(ref);
	free(path);
	strbuf_release(&text);
	return commit;
}

/* git facts, only when the FlagGems directory is the top of its own checkout */
static void git_facts(struct zl_run_facts *f, const char *dir)
{
	const char *top_argv[] = { "git", "-C", dir, "rev-parse", "--show-toplevel", "HEAD", NULL };
	const char *dirty_argv[] = { "git", "-C", dir, "status", "--porcelain", "--untracked-files=no", NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	int code = 0;
	char *real = zl_absolute_path(dir);
	char *dotgit = zl_path_join(real, ".git");

	/* only the top of a checkout is reported: no .git here, no git to start */
	if (access(dotgit, F_OK)) {
		free(dotgit);
		free(real);
		return;
	}
	if (zl_capture(top_argv, NULL, 10, &out, &code, &err)) {
		/* no git program: the commit from the files, whether it is dirty unknown */
		f->flaggems_commit = head_from_files(dotgit);
		free(dotgit);
		free(real);
		strbuf_release(&out);
		strbuf_release(&err);
		return;
	}
	free(dotgit);
	if (!code) {
		char *nl = strchr(out.buf, '\n');

		if (nl) {
			*nl = '\0';
			if (!strcmp(out.buf, real)) {
				char *commit = nl + 1, *end = strchr(commit, '\n');
				if (end)
					*end = '\0';
				f->flaggems_commit = xstrdup(commit);
				strbuf_reset(&out);
				if (!zl_capture(dirty_argv, NULL, 10, &out, &code, &err) && !code)
					f->flaggems_dirty = out.len > 0;
			}
		}
	}
	free(real);
	strbuf_release(&out);
	strbuf_release(&err);
}

static char *make_run_id(const struct zl_settings *s, const struct zl_preflight *pf, double now)
{
	char stamp[32];
	unsigned rnd = (unsigned)getpid() ^ (unsigned)((now - (double)(long)now) * 1e9);
	const char *op = pf->nodes.op ? pf->nodes.op : pf->nodes.marker ? pf->nodes.marker : "node";
	char *iso;

	zl_utc_iso8601(stamp, now);
	/* 2026-11-29T17:32:23Z -> 20261129-173223 */
	iso = xstrfmt("%.4s%.2s%.2s-%.2s%.2s%.2s-%s-%s-%06x", stamp, stamp + 5, stamp + 8, stamp + 11,
		      stamp + 14, stamp + 17, s->backend->name, op, rnd & 0xffffff);
	return iso;
}

int zl_run_facts_collect_before(struct zl_run_facts *f, const struct zl_settings *s,
				const struct zl_preflight *pf, struct strbuf *err)
{
	char host[256];
	struct strbuf vis = STRBUF_INIT;
	size_t i;

	f->started_epoch = f->finished_epoch = zl_now_epoch();
	f->run_id = make_run_id(s, pf, f->started_epoch);
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	f->host = xstrdup(host);
	for (i = 0; i < s->devices.nr; i++)
		strbuf_addf(&vis, "%s%s", i ? "," : "", s->devices.v[i]);
	f->visibility_value = strbuf_detach(&vis, NULL);
	git_facts(f, s->flaggems_dir);

	if (s->isolate) {
		const char *tmp = getenv("TMPDIR");

		if (zl_mkdtemp_in(tmp && *tmp ? tmp : "/tmp", ZL_CACHE_PREFIX, &f->isolated_root, err))
			return -1;
		/* so that the next run can sweep it if this one is killed outright */
		if (zl_cache_owner_write(f->isolated_root, 0, err))
			return -1;
		f->isolated_flaggems_cache = zl_path_join(f->isolated_root, "flaggems");
		f->isolated_triton_cache = zl_path_join(f->isolated_root, "triton");
		if (zl_mkdir_p(f->isolated_flaggems_cache, err) || zl_mkdir_p(f->isolated_triton_cache, err))
			return -1;
		f->flaggems_cache = xstrdup(f->isolated_flaggems_cache);
		f->triton_cache = xstrdup(f->isolated_triton_cache);
	} else {
		f->flaggems_cache = zl_cache_dir_for_run(ZL_CACHE_FLAGGEMS);
		f->triton_cache = zl_cache_dir_for_run(ZL_CACHE_TRITON);
	}
	zl_tuner_facts(f, s->backend->vendor_name, 0);
	if (!s->isolate)
		f->compile_snap = zl_compile_facts_snapshot(f->triton_cache);
	return 0;
}

void zl_run_facts_collect_after(struct zl_run_facts *f, const struct zl_settings *s,
				const struct zl_preflight *pf)
{
	(void)pf;
	zl_tuner_facts(f, s->backend->vendor_name, 1);
	if (!s->isolate && !f->compile_snap) {
		f->compile_variants = f->compile_convert_layout = -1;
		free(f->compile_note);
		f->compile_note = xstrfmt("the Triton cache '%s' could not be read at the start", f->triton_cache);
		return;
	}
	zl_compile_facts(f->triton_cache, s->isolate ? NULL : f->compile_snap, &f->compile_variants,
			 &f->compile_convert_layout, &f->compile_note);
}

/* "N" for a JSON number, "?" for anything else. */
static const char *count_text(const cJSON *o, const char *key, char buf[32])
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(v))
		return "?";
	snprintf(buf, 32, "%ld", (long)v->valuedouble);
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

	fprintf(out, "autotune:    %s: recorded %s, pinned %s, missed %s, no_tuner %s\n", mode ? mode : "?",
		count_text(a, "recorded", b1), count_text(a, "pinned", b2), count_text(a, "missed", b3),
		count_text(a, "no_tuner", b4));
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

int zl_shapes_archive_for_run(const struct zl_settings *s, const struct zl_preflight *pf,
			      struct strbuf *err)
{
	struct zl_shapes_doc *doc = NULL;
	struct zl_shapes_archive a;
	struct strvec classes = STRVEC_INIT;
	char *out = zl_path_join(pf->out_dir, "shapes.yaml");
	int rc;

	memset(&a, 0, sizeof(a));
	if (pf->shape_source && zl_is_file(pf->shape_source) && zl_shapes_load(pf->shape_source, &doc, err)) {
		free(out);
		return -1;
	}
	zl_benchmark_classes(s->flaggems_dir, &pf->nodes, &classes);
	a.op = pf->nodes.op ? pf->nodes.op : pf->nodes.marker ? pf->nodes.marker : "node";
	a.level = s->level;
	a.shape_mode = s->shape_mode_file ? "file" : "upstream";
	a.source_path = pf->shape_source;
	a.source_sha256 = pf->shape_sha256[0] ? pf->shape_sha256 : NULL;
	a.fallbacks = classes.nr ? classes.v : NULL;
	rc = zl_shapes_archive_write(out, doc, &a, err);
	zl_shapes_free(doc);
	strvec_clear(&classes);
	free(out);
	return rc;
}
