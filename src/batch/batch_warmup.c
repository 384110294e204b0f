/*
 * Warm-up sharding for zlbench batch: split an op's shapes into shard shape
 * files, and merge the shards' autotune records (plugins/README.md) into one
 * directory that the timed run replays with --replay-from.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "zlbench/batch.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/json.h"
#include "zlbench/shapes.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* The record format the autotune plugin writes (plugins/zl_autotune.py). */
#define RECORD_FORMAT "zlbench-autotune-record"
#define RECORD_VERSION 1
#define RECORDS_DIR "autotune_records"

/* A YAML double-quoted scalar: safe for any key or description. */
static void yaml_quoted(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			strbuf_addch(sb, '\\');
			strbuf_addch(sb, (char)c);
		} else if (c < 0x20 || c == 0x7f) {
			strbuf_addf(sb, "\\x%02x", c);
		} else {
			strbuf_addch(sb, (char)c);
		}
	}
	strbuf_addch(sb, '"');
}

/* A comment line must stay one line whatever the path holds. */
static void comment_text(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		strbuf_addch(sb, *s == '\n' || *s == '\r' ? '?' : *s);
}

static void render_shard(struct strbuf *out, const struct zl_shapes_entry *e, const char *op,
			 const char *shape_file, int shard, int k)
{
	const struct zl_yaml *node = e->node;
	size_t j;

	strbuf_addf(out, "# zlbench batch: warm-up shard %d of %d for operator '", shard + 1, k);
	comment_text(out, op);
	strbuf_addf(out, "': shapes %d, %d+%d, ... of entry '", shard + 1, shard + 1, k);
	comment_text(out, e->key);
	strbuf_addstr(out, "' in ");
	comment_text(out, shape_file);
	strbuf_addch(out, '\n');
	yaml_quoted(out, e->key);
	strbuf_addstr(out, ":\n  shapes:\n");
	for (j = (size_t)shard; j < e->shapes->nr; j += (size_t)k) {
		strbuf_addstr(out, "    - ");
		zl_yaml_flow(out, e->shapes->items[j]);
		strbuf_addch(out, '\n');
	}
	if (e->shape_desc) {
		strbuf_addstr(out, "  shape_desc: ");
		yaml_quoted(out, e->shape_desc);
		strbuf_addch(out, '\n');
	}
	/* other keys of the entry travel along: a benchmark's own set_shapes may read them */
	for (j = 0; node && node->kind == ZL_YAML_MAP && j < node->nr; j++) {
		if (!strcmp(node->keys[j], "shapes") || !strcmp(node->keys[j], "shape_desc"))
			continue;
		strbuf_addstr(out, "  ");
		yaml_quoted(out, node->keys[j]);
		strbuf_addstr(out, ": ");
		zl_yaml_flow(out, node->items[j]);
		strbuf_addch(out, '\n');
	}
}

int zl_batch_split_shapes(const char *shape_file, const char *op, const char *const *fallbacks,
			  int n, const char *out_dir, struct strvec *paths, long *counts,
			  char **key_out, struct strbuf *err)
{
	struct zl_shapes_doc *doc = NULL;
	struct zl_shapes_entry e;
	struct strbuf text = STRBUF_INIT;
	int k, i, rc = -1;

	*key_out = NULL;
	if (n < 1)
		return zl_error(err, "cannot split shapes into %d shards", n);
	if (zl_shapes_load(shape_file, &doc, err))
		return -1;
	if (zl_shapes_find(doc, op, fallbacks, &e)) {
		zl_error(err, "operator '%s' is not in shape file '%s' (nor any of its benchmark classes)",
			 op, shape_file);
		goto out;
	}
	if (!e.shapes || !e.shapes->nr) {
		zl_error(err, "entry '%s' of shape file '%s' has no shapes list", e.key, shape_file);
		goto out;
	}
	if (zl_mkdir_p(out_dir, err))
		goto out;
	k = (size_t)n < e.shapes->nr ? n : (int)e.shapes->nr;
	for (i = 0; i < k; i++) {
		char *path = xstrfmt("%s/shapes-%d.yaml", out_dir, i + 1);

		strbuf_reset(&text);
		render_shard(&text, &e, op, shape_file, i, k);
		if (zl_write_file_atomic(path, text.buf, text.len, err)) {
			free(path);
			goto out;
		}
		strvec_push(paths, path);
		free(path);
		counts[i] = (long)((e.shapes->nr - (size_t)i + (size_t)k - 1) / (size_t)k);
	}
	*key_out = xstrdup(e.key);
	rc = k;
out:
	zl_shapes_free(doc);
	strbuf_release(&text);
	return rc;
}

int zl_batch_count_shapes(const char *shape_file, const char *op, const char *const *fallbacks, char **key_out,
			  struct strbuf *err)
{
	struct zl_shapes_doc *doc = NULL;
	struct zl_shapes_entry e;
	int rc = -1;

	*key_out = NULL;
	if (zl_shapes_load(shape_file, &doc, err))
		return -1;
	if (zl_shapes_find(doc, op, fallbacks, &e))
		zl_error(err, "operator '%s' is not in shape file '%s' (nor any of its benchmark classes)", op, shape_file);
	else if (!e.shapes || !e.shapes->nr)
		zl_error(err, "entry '%s' of shape file '%s' has no shapes list", e.key, shape_file);
	else {
		*key_out = xstrdup(e.key);
		rc = e.shapes->nr > 1000000 ? 1000000 : (int)e.shapes->nr;
	}
	zl_shapes_free(doc);
	return rc;
}

long zl_batch_shard_kept(const char *run_dir, struct strbuf *err)
{
	char *path = zl_path_join(run_dir, "plugins/shard.json");
	struct strbuf text = STRBUF_INIT;
	cJSON *doc = NULL;
	const cJSON *b;
	long kept = 0, split = 0;

	if (zl_read_file(&text, path, NULL, ZL_CAP_DOC, err)) {
		kept = -1;
		goto out;
	}
	doc = cJSON_Parse(text.buf);
	if (!cJSON_IsObject(doc) || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "benchmarks"))) {
		zl_error(err, "'%s' is not the zl_shard plugin's report", path);
		kept = -1;
		goto out;
	}
	cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(doc, "benchmarks")) {
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(b, "kept");

		/* shapes_total null: the benchmark's shapes were not a list, so it ran them all */
		if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(b, "shapes_total")) || !cJSON_IsArray(k))
			continue;
		split++;
		kept += cJSON_GetArraySize(k);
	}
	if (!split) {
		zl_error(err, "the zl_shard plugin split no benchmark's shapes (%s)", path);
		kept = -1;
	}
out:
	cJSON_Delete(doc);
	strbuf_release(&text);
	free(path);
	return kept;
}

/* ---- merging records ------------------------------------------------------- */

void zl_merge_stats_init(struct zl_merge_stats *st)
{
	memset(st, 0, sizeof(*st));
	strvec_init(&st->conflict_keys);
}

void zl_merge_stats_release(struct zl_merge_stats *st)
{
	strvec_clear(&st->conflict_keys);
	zl_merge_stats_init(st);
}

struct merged_file {
	char *name;    /* file name under autotune_records/ */
	cJSON *doc;    /* the merged record document (owned) */
};

struct merged {
	struct merged_file *v;
	size_t nr, alloc;
};

static void merged_release(struct merged *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		free(m->v[i].name);
		cJSON_Delete(m->v[i].doc);
	}
	free(m->v);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The *.json files of dir, sorted by name. */
static int list_json(const char *dir, struct strvec *out, struct strbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return zl_error(err, "cannot read '%s': %s", dir, strerror(errno));
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && zl_ends_with(de->d_name, ".json"))
			strvec_push(out, de->d_name);
	closedir(d);
	qsort(out->v, out->nr, sizeof(*out->v), cmp_str);
	return 0;
}

static cJSON *find_entry(cJSON *entries, const char *key)
{
	cJSON *e;

	cJSON_ArrayForEach(e, entries) {
		const char *k = zl_json_path_string(e, "key");

		if (k && !strcmp(k, key))
			return e;
	}
	return NULL;
}

/* Two entries of one key chose the same config (what replay compares: all_kwargs). */
static int same_config(const cJSON *a, const cJSON *b)
{
	const cJSON *x = zl_json_path(a, "config.all_kwargs"), *y = zl_json_path(b, "config.all_kwargs");

	if (!x || !y)
		return !x && !y;
	return cJSON_Compare(x, y, 1);
}

/* doc is an autotune record of this format and version whose entries all have a key. */
static int check_record(const cJSON *doc, const char *path, struct strbuf *err)
{
	const char *format = zl_json_path_string(doc, "format");
	const char *kernel = zl_json_path_string(doc, "kernel");
	const cJSON *version = cJSON_GetObjectItemCaseSensitive(doc, "version");
	const cJSON *entries = cJSON_GetObjectItemCaseSensitive(doc, "entries");
	const cJSON *e;

	if (!format || strcmp(format, RECORD_FORMAT) || !kernel)
		return zl_error(err, "'%s' is not a zlbench autotune record", path);
	if (!cJSON_IsNumber(version) || version->valueint != RECORD_VERSION)
		return zl_error(err, "autotune record '%s' has version %s, expected %d", path,
				cJSON_IsNumber(version) ? "other" : "none", RECORD_VERSION);
	if (!cJSON_IsArray(entries))
		return zl_error(err, "autotune record '%s' has no entries list", path);
	cJSON_ArrayForEach(e, entries)
		if (!zl_json_path_string(e, "key"))
			return zl_error(err, "autotune record '%s' has an entry without a key", path);
	return 0;
}

/* The first shard's record of this name: a copy of it becomes the merged file. */
static int merge_first(struct merged *m, const char *name, const char *path, const cJSON *doc,
		       struct zl_merge_stats *st, struct strbuf *err)
{
	cJSON *copy = cJSON_Duplicate(doc, 1);
	struct merged_file *mf;

	if (!copy)
		return zl_error(err, "out of memory merging '%s'", path);
	ALLOC_GROW(m->v, m->nr + 1, m->alloc);
	mf = &m->v[m->nr++];
	mf->name = xstrdup(name);
	mf->doc = copy;
	st->kernels++;
	st->entries += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "entries"));
	return 0;
}

/* Fold one record document into m. */
static int merge_doc(struct merged *m, const char *name, const char *path, const cJSON *doc,
		     struct zl_merge_stats *st, struct strbuf *err)
{
	const char *kernel = zl_json_path_string(doc, "kernel");
	const cJSON *entries = cJSON_GetObjectItemCaseSensitive(doc, "entries");
	struct merged_file *mf = NULL;
	cJSON *into;
	const cJSON *e;
	size_t i;

	if (check_record(doc, path, err))
		return -1;
	for (i = 0; i < m->nr; i++)
		if (!strcmp(m->v[i].name, name))
			mf = &m->v[i];
	if (!mf)
		return merge_first(m, name, path, doc, st, err);
	if (strcmp(zl_json_path_string(mf->doc, "kernel"), kernel))
		return zl_error(err, "autotune record '%s' is for kernel '%s', but an earlier shard's '%s' is for '%s'",
				path, kernel, name, zl_json_path_string(mf->doc, "kernel"));
	into = cJSON_GetObjectItemCaseSensitive(mf->doc, "entries");
	cJSON_ArrayForEach(e, entries) {
		const char *key = zl_json_path_string(e, "key");
		cJSON *have = find_entry(into, key);

		if (!have) {
			cJSON *copy = cJSON_Duplicate(e, 1);

			if (zl_json_add_item(into, NULL, copy)) {
				return zl_error(err, "out of memory merging '%s'", path);
			}
			st->entries++;
		} else if (same_config(have, e)) {
			st->duplicates++;
		} else {
			/* the same key tuned differently by two shards: keep the first, say so */
			st->conflicts++;
			strvec_pushf(&st->conflict_keys, "%s %s", kernel, key);
		}
	}
	return 0;
}

static int write_merge_summary(const char *merged_dir, const struct strvec *run_dirs,
			       const struct zl_merge_stats *st, struct strbuf *err)
{
	cJSON *doc = cJSON_CreateObject();
	char *path = zl_path_join(merged_dir, "merge.json");
	int rc = -1;

	if (!doc ||
	    zl_json_add_item(doc, "shards", cJSON_CreateStringArray(run_dirs->v, (int)run_dirs->nr)) ||
	    zl_json_add_number(doc, "shards_with_records", (double)st->shards_with_records) ||
	    zl_json_add_number(doc, "files", (double)st->files) ||
	    zl_json_add_number(doc, "kernels", (double)st->kernels) ||
	    zl_json_add_number(doc, "entries", (double)st->entries) ||
	    zl_json_add_number(doc, "duplicates", (double)st->duplicates) ||
	    zl_json_add_number(doc, "conflicts", (double)st->conflicts) ||
	    zl_json_add_item(doc, "conflict_keys",
			     cJSON_CreateStringArray(st->conflict_keys.v, (int)st->conflict_keys.nr)))
		zl_error(err, "out of memory building '%s'", path);
	else
		rc = zl_json_write_atomic(path, doc, err);
	cJSON_Delete(doc);
	free(path);
	return rc;
}

int zl_batch_merge_records(const struct strvec *run_dirs, const char *merged_dir,
			   struct zl_merge_stats *st, struct strbuf *err)
{
	struct merged m = { NULL, 0, 0 };
	char *out_dir = zl_path_join(merged_dir, RECORDS_DIR);
	size_t i, j;
	int rc = -1;

	if (zl_mkdir_p(out_dir, err))
		goto out;
	for (i = 0; i < run_dirs->nr; i++) {
		char *dir = zl_path_join(run_dirs->v[i], RECORDS_DIR);
		struct strvec files = STRVEC_INIT;
		int bad = 0;

		if (!zl_is_dir(dir)) {
			free(dir);
			continue; /* no tuner ran in this shard */
		}
		st->shards_with_records++;
		bad = list_json(dir, &files, err);
		for (j = 0; !bad && j < files.nr; j++) {
			char *path = zl_path_join(dir, files.v[j]);
			struct strbuf text = STRBUF_INIT;
			cJSON *doc = NULL;

			if (zl_read_file(&text, path, "autotune record", ZL_CAP_DOC, err))
				bad = -1;
			else if (!(doc = cJSON_Parse(text.buf)) || !cJSON_IsObject(doc))
				bad = zl_error(err, "autotune record '%s' is not a JSON object", path);
			else
				bad = merge_doc(&m, files.v[j], path, doc, st, err);
			st->files += !bad;
			cJSON_Delete(doc);
			strbuf_release(&text);
			free(path);
		}
		strvec_clear(&files);
		free(dir);
		if (bad)
			goto out;
	}
	for (i = 0; i < m.nr; i++) {
		char *path = zl_path_join(out_dir, m.v[i].name);
		int bad = zl_json_write_atomic(path, m.v[i].doc, err);

		free(path);
		if (bad)
			goto out;
	}
	rc = write_merge_summary(merged_dir, run_dirs, st, err);
out:
	merged_release(&m);
	free(out_dir);
	return rc;
}

int zl_batch_runs_of(const char *batch_dir, const struct strvec *ops, int passed_only, struct strvec *runs,
		     size_t *passed, struct strbuf *err)
{
	struct zl_batch_rows rows = ZL_BATCH_ROWS_INIT;
	struct strbuf text = STRBUF_INIT;
	struct strvec seen = STRVEC_INIT;
	char *path = zl_path_join(batch_dir, ZL_BATCH_STATUS_FILE);
	size_t i, complete, npassed = 0;
	int rc = -1, pass;

	if (zl_read_file(&text, path, "batch status file", ZL_CAP_DOC, err) ||
	    zl_batch_rows_parse(text.buf, text.len, &rows, &complete, err))
		goto out;
	/* pass 0: the ops whose last row passed (their configs win a conflict); pass 1: the rest */
	for (pass = 0; pass < (passed_only ? 1 : 2); pass++) {
		strvec_clear(&seen);
		/* the ops listed in their order (the merge keeps the first op's config of a key), else the rows' */
		for (i = 0; i < (ops ? ops->nr : rows.nr); i++) {
			const char *op = ops ? ops->v[i] : rows.v[i].v[ZL_BCOL_OP];
			const struct zl_batch_row *last;
			char *run;
			int ok;

			if (!op || strvec_find(&seen, op) >= 0 || !(last = zl_batch_rows_last(&rows, op)))
				continue;
			strvec_push(&seen, op);
			ok = last->v[ZL_BCOL_STATUS] && !strcmp(last->v[ZL_BCOL_STATUS], "passed");
			if (ok != !pass || !last->v[ZL_BCOL_RUN_DIR] || !zl_path_is_inside(last->v[ZL_BCOL_RUN_DIR]))
				continue;
			run = zl_path_join(batch_dir, last->v[ZL_BCOL_RUN_DIR]);
			strvec_push(runs, run);
			free(run);
			npassed += ok;
		}
	}
	if (passed)
		*passed = npassed;
	rc = 0;
out:
	zl_batch_rows_release(&rows);
	strbuf_release(&text);
	strvec_clear(&seen);
	free(path);
	return rc;
}
