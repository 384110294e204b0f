#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/runload.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

static const char *const side_names[] = { [ZL_SIDE_TORCH] = "torch", [ZL_SIDE_GEMS] = "gems" };

static const struct {
	const char *name;
	enum zl_side side;
} side_aliases[] = {
	{ "torch", ZL_SIDE_TORCH },
	{ "base", ZL_SIDE_TORCH },
	{ "baseline", ZL_SIDE_TORCH },
	{ "gems", ZL_SIDE_GEMS },
	{ "flag_gems", ZL_SIDE_GEMS },
};

const char *zl_side_name(enum zl_side side)
{
	return side_names[side == ZL_SIDE_GEMS];
}

int zl_side_parse(const char *s, enum zl_side *out)
{
	size_t i;

	if (!s)
		return -1;
	for (i = 0; i < ZL_ARRAY_SIZE(side_aliases); i++)
		if (zl_strcaseeq(s, side_aliases[i].name)) {
			*out = side_aliases[i].side;
			return 0;
		}
	return -1;
}

void zl_run_init(struct zl_run *run)
{
	memset(run, 0, sizeof(*run));
	run->duration_s = NAN;
	run->exit_code = -1;
	run->winners_before = -1;
	strvec_init(&run->notes);
}

static void result_release(struct zl_result *r)
{
	free(r->op);
	free(r->dtype);
	free(r->shape);
	free(r->error_msg);
	free(r->timer);
}

/* The string fields of struct zl_run, filled from run_identity.json by this table. */
enum field_kind { FIELD_STRING, FIELD_JOINED, FIELD_DEVICE_NAMES };
static const struct identity_field {
	size_t offset;
	const char *path;
	enum field_kind kind;
} identity_fields[] = {
	{ offsetof(struct zl_run, run_id), "run_id", FIELD_STRING },
	{ offsetof(struct zl_run, started_at), "started_at", FIELD_STRING },
	{ offsetof(struct zl_run, finished_at), "finished_at", FIELD_STRING },
	{ offsetof(struct zl_run, backend), "backend", FIELD_STRING },
	{ offsetof(struct zl_run, vendor), "vendor", FIELD_STRING },
	{ offsetof(struct zl_run, device_name), "devices", FIELD_DEVICE_NAMES },
	{ offsetof(struct zl_run, level), "level", FIELD_STRING },
	{ offsetof(struct zl_run, shape_mode), "shape_mode", FIELD_STRING },
	{ offsetof(struct zl_run, shape_sha256), "shape_file.sha256", FIELD_STRING },
	{ offsetof(struct zl_run, test_node), "test_node", FIELD_JOINED },
	{ offsetof(struct zl_run, op), "op", FIELD_STRING },
	{ offsetof(struct zl_run, flaggems_mode), "flaggems_mode", FIELD_STRING },
	{ offsetof(struct zl_run, flaggems_commit), "flaggems.commit", FIELD_STRING },
	{ offsetof(struct zl_run, timer_plan), "timer.plan", FIELD_STRING },
	{ offsetof(struct zl_run, tuner_cache_mode), "tuner_cache.mode", FIELD_STRING },
	{ offsetof(struct zl_run, autotune_mode), "autotune.mode", FIELD_STRING },
	{ offsetof(struct zl_run, replay_from), "autotune.replay_from", FIELD_STRING },
	{ offsetof(struct zl_run, status), "status", FIELD_STRING },
	{ offsetof(struct zl_run, host), "host", FIELD_STRING },
};

static char **field_slot(struct zl_run *run, const struct identity_field *f)
{
	return (char **)((char *)run + f->offset);
}

void zl_run_release(struct zl_run *run)
{
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(identity_fields); i++)
		free(*field_slot(run, &identity_fields[i]));
	for (i = 0; i < run->nr_results; i++)
		result_release(&run->results[i]);
	free(run->results);
	free(run->dir);
	cJSON_Delete(run->identity);
	strvec_clear(&run->notes);
	zl_run_init(run);
}

const cJSON *zl_json_path(const cJSON *root, const char *path)
{
	const cJSON *cur = root;
	const char *p = path;

	while (cur && *p) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		char *key = xstrndup(p, len);

		cur = cJSON_IsObject(cur) ? cJSON_GetObjectItemCaseSensitive(cur, key) : NULL;
		free(key);
		p += len + (dot ? 1 : 0);
	}
	return cur;
}

const char *zl_json_path_string(const cJSON *root, const char *path)
{
	const cJSON *item = zl_json_path(root, path);

	return cJSON_IsString(item) ? item->valuestring : NULL;
}

char *zl_json_path_dup(const cJSON *root, const char *path)
{
	const char *s = zl_json_path_string(root, path);

	return s ? xstrdup(s) : NULL;
}

cJSON *zl_json_read_schema(const char *path, const char *schema, const char *hint, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	cJSON *doc = NULL;
	const char *got;

	if (zl_read_file(&text, path, NULL, ZL_CAP_DOC, err)) {
		if (hint)
			strbuf_addf(err, " (%s)", hint);
	} else if (!(doc = cJSON_ParseWithLength(text.buf, text.len)) || !cJSON_IsObject(doc) ||
		   !(got = zl_json_path_string(doc, "schema")) || strcmp(got, schema)) {
		zl_error(err, "'%s' is not a %s document", path, schema);
		cJSON_Delete(doc);
		doc = NULL;
	}
	strbuf_release(&text);
	return doc;
}

int zl_json_add_string(cJSON *obj, const char *key, const char *value)
{
	return (value ? cJSON_AddStringToObject(obj, key, value) : cJSON_AddNullToObject(obj, key))
	       ? 0 : -1;
}

int zl_json_add_number(cJSON *obj, const char *key, double value)
{
	return (isfinite(value) ? cJSON_AddNumberToObject(obj, key, value)
				: cJSON_AddNullToObject(obj, key)) ? 0 : -1;
}

int zl_json_add_bool(cJSON *obj, const char *key, int value)
{
	return cJSON_AddBoolToObject(obj, key, value ? 1 : 0) ? 0 : -1;
}

cJSON *zl_json_strvec(const struct strvec *sv)
{
	/* cJSON_CreateStringArray checks every allocation and frees what it built */
	return cJSON_CreateStringArray(sv->v, (int)sv->nr);
}

int zl_json_to_strvec(const cJSON *array, struct strvec *sv)
{
	const cJSON *it;

	if (!cJSON_IsArray(array))
		return -1;
	cJSON_ArrayForEach(it, array) {
		if (!cJSON_IsString(it))
			return -1;
		strvec_push(sv, it->valuestring);
	}
	return 0;
}

int zl_json_write_atomic(const char *path, const cJSON *doc, struct strbuf *err)
{
	char *text = cJSON_Print(doc);
	int rc;

	if (!text)
		return zl_error(err, "out of memory printing '%s'", path);
	rc = zl_write_file_atomic(path, text, strlen(text), err);
	free(text);
	return rc;
}

static double json_number(const cJSON *item)
{
	return cJSON_IsNumber(item) ? item->valuedouble : NAN;
}

static void add_json_string(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			strbuf_addf(sb, "\\%c", c);
		else if (c == '\n')
			strbuf_addstr(sb, "\\n");
		else if (c == '\t')
			strbuf_addstr(sb, "\\t");
		else if (c < 0x20)
			strbuf_addf(sb, "\\u%04x", c);
		else
			strbuf_addch(sb, c);
	}
	strbuf_addch(sb, '"');
}

/* Integers without a fraction, other numbers in the shortest form that reads back exactly. */
static void add_canonical_number(struct strbuf *sb, double d)
{
	char buf[64];
	int prec;

	if (!isfinite(d)) {
		strbuf_addstr(sb, "null");
		return;
	}
	if (d == floor(d) && fabs(d) < 9007199254740992.0) {
		strbuf_addf(sb, "%.0f", d);
		return;
	}
	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	strbuf_addstr(sb, buf);
}

void zl_json_canonical(struct strbuf *sb, const cJSON *item)
{
	const cJSON *child;
	const char *sep = "";

	if (!item || cJSON_IsNull(item) || cJSON_IsInvalid(item)) {
		strbuf_addstr(sb, "null");
	} else if (cJSON_IsBool(item)) {
		strbuf_addstr(sb, cJSON_IsTrue(item) ? "true" : "false");
	} else if (cJSON_IsNumber(item)) {
		add_canonical_number(sb, item->valuedouble);
	} else if (cJSON_IsString(item)) {
		add_json_string(sb, item->valuestring);
	} else if (cJSON_IsArray(item)) {
		strbuf_addch(sb, '[');
		cJSON_ArrayForEach(child, item) {
			strbuf_addstr(sb, sep);
			zl_json_canonical(sb, child);
			sep = ", ";
		}
		strbuf_addch(sb, ']');
	} else if (cJSON_IsObject(item)) {
		strbuf_addch(sb, '{');
		cJSON_ArrayForEach(child, item) {
			strbuf_addstr(sb, sep);
			add_json_string(sb, child->string ? child->string : "");
			strbuf_addstr(sb, ": ");
			zl_json_canonical(sb, child);
			sep = ", ";
		}
		strbuf_addch(sb, '}');
	} else {
		strbuf_addstr(sb, "null");
	}
}

/* A shape given as JSON text (a plugin may write it as a string) is re-rendered canonically. */
static char *canonical_shape(const cJSON *item)
{
	struct strbuf sb = STRBUF_INIT;

	if (cJSON_IsString(item)) {
		cJSON *parsed = cJSON_Parse(item->valuestring);
		if (parsed)
			zl_json_canonical(&sb, parsed);
		else
			strbuf_addstr(&sb, item->valuestring);
		cJSON_Delete(parsed);
	} else {
		zl_json_canonical(&sb, item);
	}
	return strbuf_detach(&sb, NULL);
}

static const char *dtype_key(const char *dtype)
{
	if (!dtype)
		return "";
	return zl_starts_with(dtype, "torch.") ? dtype + strlen("torch.") : dtype;
}

static int same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

static int key_equal(const struct zl_result *r, const char *op, const char *dtype,
		     const char *shape, enum zl_side side)
{
	return r->side == side && same_str(r->op, op) && same_str(r->shape, shape) &&
	       !strcmp(dtype_key(r->dtype), dtype_key(dtype));
}

static struct zl_result *find_row(const struct zl_run *run, const char *op, const char *dtype,
				  const char *shape, int occurrence, enum zl_side side)
{
	size_t i;

	for (i = 0; i < run->nr_results; i++) {
		struct zl_result *r = &run->results[i];
		if (r->occurrence == occurrence && key_equal(r, op, dtype, shape, side))
			return r;
	}
	return NULL;
}

const struct zl_result *zl_run_find(const struct zl_run *run, const char *op, const char *dtype,
				    const char *shape, int occurrence, enum zl_side side)
{
	return find_row(run, op, dtype, shape, occurrence, side);
}

static int next_occurrence(const struct zl_run *run, const char *op, const char *dtype,
			   const char *shape, enum zl_side side)
{
	size_t i;
	int n = 0;

	for (i = 0; i < run->nr_results; i++)
		if (key_equal(&run->results[i], op, dtype, shape, side))
			n++;
	return n + 1;
}

static void add_row(struct zl_run *run, const char *op, const char *dtype, const char *shape,
		    enum zl_side side, const cJSON *row)
{
	const char *err_msg = zl_json_path_string(row, "error_msg");
	struct zl_result *r;
	int occurrence = next_occurrence(run, op, dtype, shape, side);

	ALLOC_GROW(run->results, run->nr_results + 1, run->alloc_results);
	r = &run->results[run->nr_results++];
	memset(r, 0, sizeof(*r));
	r->op = xstrdup(op);
	r->dtype = xstrdup(dtype);
	r->shape = xstrdup(shape);
	r->occurrence = occurrence;
	r->side = side;
	r->latency_base_ms = json_number(cJSON_GetObjectItemCaseSensitive(row, "latency_base"));
	r->latency_ms = side == ZL_SIDE_TORCH ? r->latency_base_ms :
			json_number(cJSON_GetObjectItemCaseSensitive(row, "latency"));
	r->speedup = json_number(cJSON_GetObjectItemCaseSensitive(row, "speedup"));
	r->error_msg = err_msg ? xstrdup(err_msg) : NULL;
	r->samples = -1;
	r->median_ms = r->min_ms = r->max_ms = r->iqr_ms = NAN;
}

static void load_detail(struct zl_run *run, const char *op_key, const cJSON *detail,
			size_t *odd_rows)
{
	const char *op = zl_json_path_string(detail, "op_name");
	const char *dtype = zl_json_path_string(detail, "dtype");
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(detail, "result");
	const cJSON *row;

	if (!op)
		op = op_key;
	if (!cJSON_IsArray(rows)) {
		(*odd_rows)++;
		return;
	}
	cJSON_ArrayForEach(row, rows) {
		const cJSON *shape_item;
		char *shape;

		if (!cJSON_IsObject(row)) {
			(*odd_rows)++;
			continue;
		}
		shape_item = cJSON_GetObjectItemCaseSensitive(row, "shape_detail");
		if (!shape_item || cJSON_IsNull(shape_item))
			shape_item = cJSON_GetObjectItemCaseSensitive(row, "legacy_shape");
		shape = canonical_shape(shape_item);
		add_row(run, op, dtype ? dtype : "", shape, ZL_SIDE_TORCH, row);
		add_row(run, op, dtype ? dtype : "", shape, ZL_SIDE_GEMS, row);
		free(shape);
	}
}

static void load_results(struct zl_run *run)
{
	char *path = zl_path_join(run->dir, "results.json");
	struct strbuf text = STRBUF_INIT;
	cJSON *root = NULL;
	const cJSON *op_entry;
	struct strbuf err = STRBUF_INIT;
	size_t odd = 0, i, errors = 0, nulls = 0;

	if (zl_read_file(&text, path, NULL, ZL_CAP_LARGE, &err)) {
		if (errno == ENOENT)
			strvec_pushf(&run->notes, "no results.json: the run recorded no results");
		else
			strvec_push(&run->notes, err.buf);
		goto out;
	}
	root = cJSON_ParseWithLength(text.buf, text.len);
	if (!cJSON_IsObject(root)) {
		strvec_pushf(&run->notes, "cannot parse '%s': not a json object", path);
		goto out;
	}
	run->has_results = 1;
	cJSON_ArrayForEach(op_entry, root) {
		const cJSON *details = cJSON_GetObjectItemCaseSensitive(op_entry, "details");
		const cJSON *detail;

		if (!cJSON_IsArray(details)) {
			odd++;
			continue;
		}
		cJSON_ArrayForEach(detail, details)
			load_detail(run, op_entry->string, detail, &odd);
	}
	for (i = 0; i < run->nr_results; i++) {
		if (run->results[i].side != ZL_SIDE_GEMS)
			continue;
		if (run->results[i].error_msg)
			errors++;
		if (isnan(run->results[i].latency_ms) || isnan(run->results[i].latency_base_ms))
			nulls++;
	}
	if (odd)
		strvec_pushf(&run->notes, "results.json: %zu entries not in FlagGems' format were skipped", odd);
	if (errors)
		strvec_pushf(&run->notes, "results.json: %zu shapes carry an error_msg", errors);
	if (nulls)
		strvec_pushf(&run->notes, "results.json: %zu shapes have no latency", nulls);
out:
	cJSON_Delete(root);
	strbuf_release(&text);
	strbuf_release(&err);
	free(path);
}

/* The timer plugin's field names, with the spellings it may use. */
static const char *const timer_median_keys[] = { "median_ms", "median", NULL };
static const char *const timer_min_keys[] = { "min_ms", "min", NULL };
static const char *const timer_max_keys[] = { "max_ms", "max", NULL };
static const char *const timer_iqr_keys[] = { "iqr_ms", "iqr", NULL };
static const char *const timer_samples_keys[] = { "samples", "sample_count", "n_samples", "n", NULL };
static const char *const timer_used_keys[] = { "timer", "timer_used", "used", NULL };
static const char *const timer_shape_keys[] = { "shape", "shape_detail", NULL };

static const cJSON *first_item(const cJSON *obj, const char *const *keys)
{
	for (; *keys; keys++) {
		const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, *keys);
		if (it && !cJSON_IsNull(it))
			return it;
	}
	return NULL;
}

/* Occurrences among timer records are counted like results rows, so repeats pair in order. */
struct timer_seen {
	char *key;
	int count;
};

static int timer_occurrence(struct timer_seen **seen, size_t *nr, size_t *alloc, const char *key)
{
	size_t i;

	for (i = 0; i < *nr; i++)
		if (!strcmp((*seen)[i].key, key))
			return ++(*seen)[i].count;
	ALLOC_GROW(*seen, *nr + 1, *alloc);
	(*seen)[*nr].key = xstrdup(key);
	(*seen)[*nr].count = 1;
	(*nr)++;
	return 1;
}

/* 1 when matched, 0 when no results row has this key. */
static int attach_timer(struct zl_run *run, const cJSON *rec, struct timer_seen **seen,
			size_t *nr_seen, size_t *alloc_seen)
{
	const char *op = zl_json_path_string(rec, "op");
	const char *dtype = zl_json_path_string(rec, "dtype");
	const char *side_s = zl_json_path_string(rec, "side");
	const cJSON *samples = first_item(rec, timer_samples_keys);
	const cJSON *used = first_item(rec, timer_used_keys);
	struct strbuf key = STRBUF_INIT;
	struct zl_result *r;
	enum zl_side side;
	char *shape;
	int occ;

	if (!op || zl_side_parse(side_s, &side))
		return 0;
	shape = canonical_shape(first_item(rec, timer_shape_keys));
	strbuf_addf(&key, "%s\n%s\n%s\n%d", op, dtype_key(dtype), shape, (int)side);
	occ = timer_occurrence(seen, nr_seen, alloc_seen, key.buf);
	strbuf_release(&key);
	r = find_row(run, op, dtype, shape, occ, side);
	free(shape);
	if (!r)
		return 0;
	r->median_ms = json_number(first_item(rec, timer_median_keys));
	r->min_ms = json_number(first_item(rec, timer_min_keys));
	r->max_ms = json_number(first_item(rec, timer_max_keys));
	r->iqr_ms = json_number(first_item(rec, timer_iqr_keys));
	if (cJSON_IsNumber(samples))
		r->samples = (long)samples->valuedouble;
	else if (cJSON_IsArray(samples))
		r->samples = cJSON_GetArraySize(samples);
	free(r->timer);
	r->timer = cJSON_IsString(used) ? xstrdup(used->valuestring) : NULL;
	return 1;
}

static void load_timer(struct zl_run *run)
{
	char *path = zl_path_join(run->dir, "plugins/timer.jsonl");
	struct strbuf text = STRBUF_INIT;
	struct timer_seen *seen = NULL;
	size_t nr_seen = 0, alloc_seen = 0, lineno = 0, bad = 0, unmatched = 0, i;
	struct strbuf err = STRBUF_INIT;
	char *line, *next;

	if (zl_read_file(&text, path, NULL, ZL_CAP_LARGE, &err)) {
		if (errno != ENOENT)
			strvec_push(&run->notes, err.buf);
		goto out;
	}
	run->has_timer = 1;
	for (line = text.buf; line && *line; line = next) {
		cJSON *rec;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (!*line)
			continue;
		rec = cJSON_Parse(line);
		if (!cJSON_IsObject(rec))
			bad++;
		else if (!attach_timer(run, rec, &seen, &nr_seen, &alloc_seen))
			unmatched++;
		cJSON_Delete(rec);
	}
	if (bad)
		strvec_pushf(&run->notes, "plugins/timer.jsonl: %zu of %zu lines are not json objects",
			     bad, lineno);
	if (unmatched)
		strvec_pushf(&run->notes, "plugins/timer.jsonl: %zu measurements match no results row",
			     unmatched);
out:
	for (i = 0; i < nr_seen; i++)
		free(seen[i].key);
	free(seen);
	strbuf_release(&text);
	strbuf_release(&err);
	free(path);
}

static char *joined_strings(const cJSON *arr, const char *member, const char *sep, int distinct)
{
	struct strvec seen = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;
	const cJSON *it;

	if (cJSON_IsString(arr))
		return xstrdup(arr->valuestring);
	if (!cJSON_IsArray(arr))
		return NULL;
	cJSON_ArrayForEach(it, arr) {
		const cJSON *v = member ? cJSON_GetObjectItemCaseSensitive(it, member) : it;
		if (!cJSON_IsString(v) || (distinct && strvec_find(&seen, v->valuestring) >= 0))
			continue;
		strvec_push(&seen, v->valuestring);
		if (sb.len)
			strbuf_addstr(&sb, sep);
		strbuf_addstr(&sb, v->valuestring);
	}
	strvec_clear(&seen);
	if (!sb.len) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

static void load_identity_fields(struct zl_run *run)
{
	const cJSON *id = run->identity;
	size_t i;
	double d;

	for (i = 0; i < ZL_ARRAY_SIZE(identity_fields); i++) {
		const struct identity_field *f = &identity_fields[i];
		const cJSON *item = zl_json_path(id, f->path);
		char **slot = field_slot(run, f);

		switch (f->kind) {
		case FIELD_STRING:
			*slot = cJSON_IsString(item) ? xstrdup(item->valuestring) : NULL;
			break;
		case FIELD_JOINED:
			*slot = joined_strings(item, NULL, " ", 0);
			break;
		case FIELD_DEVICE_NAMES:
			*slot = joined_strings(item, "name", ", ", 1);
			break;
		}
	}
	run->duration_s = json_number(zl_json_path(id, "duration_s"));
	d = json_number(zl_json_path(id, "exit_code"));
	run->exit_code = isnan(d) ? -1 : (long)d;
	d = json_number(zl_json_path(id, "tuner_cache.winners_before"));
	run->winners_before = isnan(d) ? -1 : (long)d;
}

int zl_run_load(const char *dir, struct zl_run *run, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	char *path;

	if (!zl_is_dir(dir))
		return zl_error(err, "'%s' is not a run directory: no such directory", dir);
	run->dir = zl_absolute_path(dir);
	path = zl_path_join(run->dir, "run_identity.json");
	if (zl_read_file(&text, path, NULL, ZL_CAP_DOC, err)) {
		struct strbuf why = STRBUF_INIT;

		strbuf_addbuf(&why, err);
		zl_error(err, "'%s' is not a run directory: %s", dir, why.buf);
		strbuf_release(&why);
		goto fail;
	}
	run->identity = cJSON_ParseWithLength(text.buf, text.len);
	if (!cJSON_IsObject(run->identity)) {
		zl_error(err, "cannot parse '%s': not a json object", path);
		goto fail;
	}
	load_identity_fields(run);
	if (!run->run_id) {
		zl_error(err, "'%s' has no run_id", path);
		goto fail;
	}
	load_results(run);
	load_timer(run);
	strbuf_release(&text);
	free(path);
	return 0;
fail:
	strbuf_release(&text);
	free(path);
	zl_run_release(run);
	return -1;
}
