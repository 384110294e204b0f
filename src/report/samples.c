/*
 * The raw samples of a run (plugins/timer.jsonl's samples_ms, docs/timer.md),
 * keyed like runload.h's rows: (op, dtype, canonical shape, occurrence, side), repeats
 * of one key paired by the order of their lines.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "zlbench/fsutil.h"
#include "zlbench/report/parts.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

void zl_samples_init(struct zl_samples *s)
{
	memset(s, 0, sizeof(*s));
}

void zl_samples_release(struct zl_samples *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		free(s->v[i].key);
		free(s->v[i].v);
	}
	free(s->v);
	zl_strmap_clear(&s->index);
	zl_samples_init(s);
}

struct zl_samples_entry *zl_samples_add(struct zl_samples *s, const char *key)
{
	int added;
	size_t i = *zl_strmap_put(&s->index, key, s->nr, &added);
	struct zl_samples_entry *e;

	if (!added)
		return &s->v[i];
	ALLOC_GROW(s->v, s->nr + 1, s->alloc);
	e = &s->v[s->nr++];
	memset(e, 0, sizeof(*e));
	e->key = xstrdup(key);
	return e;
}

char *zl_samples_key(const char *op, const char *dtype, const char *shape, int occurrence, enum zl_side side)
{
	if (dtype && zl_starts_with(dtype, "torch."))
		dtype += strlen("torch.");
	return xstrfmt("%s\n%s\n%s\n%d\n%s", op ? op : "", dtype ? dtype : "", shape ? shape : "", occurrence,
		       zl_side_name(side));
}

static void add_line(struct zl_samples *s, const cJSON *rec, struct zl_strmap *seen)
{
	const char *op = zl_json_path_string(rec, "op"), *dtype = zl_json_path_string(rec, "dtype");
	const cJSON *samples = cJSON_GetObjectItemCaseSensitive(rec, "samples_ms"), *it;
	const cJSON *shape_item = cJSON_GetObjectItemCaseSensitive(rec, "shape");
	const char *stored = zl_json_path_string(rec, "samples_stored");
	struct zl_samples_entry *e;
	enum zl_side side;
	char *shape, *base, *key;
	size_t occ;

	if (!op || zl_side_parse(zl_json_path_string(rec, "side"), &side))
		return;
	shape = zl_json_shape_text(shape_item ? shape_item : cJSON_GetObjectItemCaseSensitive(rec, "shape_detail"));
	/* the occurrence counts every line of the key, with samples or not, as runload pairs them */
	base = zl_samples_key(op, dtype, shape, 0, side);
	occ = ++*zl_strmap_put(seen, base, 0, NULL);
	free(base);
	if (!cJSON_IsArray(samples) || !cJSON_GetArraySize(samples) || occ > INT_MAX) {
		free(shape);
		return;
	}
	key = zl_samples_key(op, dtype, shape, (int)occ, side);
	e = zl_samples_add(s, key);
	free(key);
	if (e->v) {
		/* one key twice (a crafted file): the first line's samples stand, as a scan found them */
		free(shape);
		return;
	}
	e->v = xcalloc((size_t)cJSON_GetArraySize(samples), sizeof(*e->v));
	e->subset = stored && !strcmp(stored, "subset");
	cJSON_ArrayForEach(it, samples)
		if (cJSON_IsNumber(it))
			e->v[e->n++] = it->valuedouble;
	free(shape);
}

void zl_samples_load(const char *run_dir, struct zl_samples *s)
{
	char *path = run_dir ? zl_path_join(run_dir, "plugins/timer.jsonl") : NULL;
	struct strbuf text = STRBUF_INIT;
	struct zl_strmap seen = ZL_STRMAP_INIT;
	char *line, *next;

	if (!path || !zl_is_file(path) || strbuf_read_file(&text, path) < 0)
		goto out;
	for (line = text.buf; line && *line; line = next) {
		cJSON *rec;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!*line)
			continue;
		rec = cJSON_Parse(line);
		if (cJSON_IsObject(rec)) {
			s->lines++;
			add_line(s, rec, &seen);
		}
		cJSON_Delete(rec);
	}
out:
	zl_strmap_clear(&seen);
	strbuf_release(&text);
	free(path);
}

const struct zl_samples_entry *zl_samples_find(const struct zl_samples *s, const char *op, const char *dtype,
					       const char *shape, int occurrence, enum zl_side side)
{
	char *key = zl_samples_key(op, dtype, shape, occurrence, side);
	const size_t *i = zl_strmap_get(&s->index, key);

	free(key);
	return i ? &s->v[*i] : NULL;
}
