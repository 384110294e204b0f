/*
 * The raw samples of a run (plugins/timer.jsonl's samples_ms, docs/timer.md),
 * keyed like runload.h's rows: (op, dtype, canonical shape, occurrence, side), repeats
 * of one key paired by the order of their lines.
 */
#include <errno.h>
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
	zl_samples_init(s);
}

char *zl_samples_key(const char *op, const char *dtype, const char *shape, int occurrence, enum zl_side side)
{
	if (dtype && zl_starts_with(dtype, "torch."))
		dtype += strlen("torch.");
	return xstrfmt("%s\n%s\n%s\n%d\n%s", op ? op : "", dtype ? dtype : "", shape ? shape : "", occurrence,
		       zl_side_name(side));
}

static void add_line(struct zl_samples *s, const cJSON *rec, struct strvec *seen)
{
	const char *op = zl_json_path_string(rec, "op"), *dtype = zl_json_path_string(rec, "dtype");
	const cJSON *samples = cJSON_GetObjectItemCaseSensitive(rec, "samples_ms"), *it;
	const cJSON *shape_item = cJSON_GetObjectItemCaseSensitive(rec, "shape");
	const char *stored = zl_json_path_string(rec, "samples_stored");
	struct zl_samples_entry *e;
	enum zl_side side;
	char *shape, *base;
	long occ;
	size_t n = 0;

	if (!op || zl_side_parse(zl_json_path_string(rec, "side"), &side))
		return;
	shape = zl_json_shape_text(shape_item ? shape_item : cJSON_GetObjectItemCaseSensitive(rec, "shape_detail"));
	/* the occurrence counts every line of the key, with samples or not, as runload pairs them */
	base = zl_samples_key(op, dtype, shape, 0, side);
	strvec_push(seen, base);
	occ = 0;
	for (n = 0; n < seen->nr; n++)
		if (!strcmp(seen->v[n], base))
			occ++;
	free(base);
	if (!cJSON_IsArray(samples) || !cJSON_GetArraySize(samples)) {
		free(shape);
		return;
	}
	ALLOC_GROW(s->v, s->nr + 1, s->alloc);
	e = &s->v[s->nr++];
	memset(e, 0, sizeof(*e));
	e->key = zl_samples_key(op, dtype, shape, (int)occ, side);
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
	struct strvec seen = STRVEC_INIT;
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
	strvec_clear(&seen);
	strbuf_release(&text);
	free(path);
}

const struct zl_samples_entry *zl_samples_find(const struct zl_samples *s, const char *op, const char *dtype,
					       const char *shape, int occurrence, enum zl_side side)
{
	char *key = zl_samples_key(op, dtype, shape, occurrence, side);
	const struct zl_samples_entry *found = NULL;
	size_t i;

	for (i = 0; i < s->nr && !found; i++)
		if (!strcmp(s->v[i].key, key))
			found = &s->v[i];
	free(key);
	return found;
}
