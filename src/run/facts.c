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
#include "zlbench/runctx.h"
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

static char *make_run_id(const struct zl_run_ctx *c, double now)
{
	char stamp[32];
	unsigned rnd = (unsigned)getpid() ^ (unsigned)((now - (double)(long)now) * 1e9);
	const struct zl_nodes *n = &c->pf->nodes;
	const char *op = n->op ? n->op : n->marker ? n->marker : "node";
	char *iso;

	zl_utc_iso8601(stamp, now);
	/* 2026-11-29T17:32:23Z -> 20261129-173223 */
	iso = xstrfmt("%.4s%.2s%.2s-%.2s%.2s%.2s-%s-%s-%06x", stamp, stamp + 5, stamp + 8, stamp + 11,
		      stamp + 14, stamp + 17, c->s->backend->name, op, rnd & 0xffffff);
	return iso;
}

/* The isolated caches: a fresh directory with an owner file, FlagGems' and Triton's under it. */
static int make_isolated_caches(struct zl_run_facts *f, struct strbuf *err)
{
	if (zl_mkdtemp_in(zl_tmp_dir(), ZL_CACHE_PREFIX, &f->isolated_root, err))
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
	return 0;
}

int zl_run_facts_collect_before(struct zl_run_ctx *c, struct strbuf *err)
{
	const struct zl_settings *s = c->s;
	struct zl_run_facts *f = &c->f;
	char host[256];
	struct strbuf vis = STRBUF_INIT;
	size_t i;

	f->started_epoch = f->finished_epoch = zl_now_epoch();
	f->run_id = make_run_id(c, f->started_epoch);
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	f->host = xstrdup(host);
	for (i = 0; i < s->devices.nr; i++)
		strbuf_addf(&vis, "%s%s", i ? "," : "", s->devices.v[i]);
	f->visibility_value = strbuf_detach(&vis, NULL);
	git_facts(f, s->flaggems_dir);

	if (s->isolate) {
		if (make_isolated_caches(f, err))
			return -1;
	} else {
		f->flaggems_cache = zl_cache_dir_for_run(ZL_CACHE_FLAGGEMS);
		f->triton_cache = zl_cache_dir_for_run(ZL_CACHE_TRITON);
	}
	zl_tuner_facts(f, s->backend->vendor_name, 0);
	if (!s->isolate)
		f->compile_snap = zl_compile_facts_snapshot(f->triton_cache);
	return 0;
}

void zl_run_facts_collect_after(struct zl_run_ctx *c)
{
	const struct zl_settings *s = c->s;
	struct zl_run_facts *f = &c->f;

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

int zl_shapes_archive_for_run(const struct zl_run_ctx *c, struct strbuf *err)
{
	const struct zl_settings *s = c->s;
	const struct zl_preflight *pf = c->pf;
	struct zl_shapes_doc *doc = NULL;
	struct zl_shapes_archive a;
	struct strvec classes = STRVEC_INIT;
	char *out = zl_path_join(c->run_dir, "shapes.yaml");
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
