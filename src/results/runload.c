#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/jscan.h"
#include "zlbench/json.h"
#include "zlbench/pyjson.h"
#include "zlbench/runload.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

int zl_runload_whole_tree;

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
	free(r->samples_ms);
	free(r->estimator);
	free(r->kernels);
}

/* The fields of run_identity.json that struct zl_run keeps. */
static const struct zl_record_field record_fields[] = {
#define ZL_IDENTITY_FIELD(key, kind, value, record, member, column) \
	ZL_RECORD_IF_##record({ key, ZL_REC_##record, offsetof(struct zl_run, member) },)
#include "zlbench/identity_fields.h"
#undef ZL_IDENTITY_FIELD
};

static void *field_slot(struct zl_run *run, const struct zl_record_field *f)
{
	return (char *)run + f->offset;
}

void zl_run_release(struct zl_run *run)
{
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(record_fields); i++)
		if (record_fields[i].kind != ZL_REC_REAL && record_fields[i].kind != ZL_REC_LONG)
			free(*(char **)field_slot(run, &record_fields[i]));
	for (i = 0; i < run->nr_results; i++)
		result_release(&run->results[i]);
	free(run->results);
	free(run->index);
	free(run->dir);
	cJSON_Delete(run->identity);
	strvec_clear(&run->notes);
	zl_run_init(run);
}

static double json_number(const cJSON *item)
{
	return cJSON_IsNumber(item) ? item->valuedouble : NAN;
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

/*
 * Row keys are hashed (FNV-1a) into open-addressing tables of row numbers + 1: finding a row
 * by key, and counting repeats while loading, were scans of every row (300k rows: minutes).
 */
struct key {
	const char *op, *dtype, *shape;
	enum zl_side side;
	int occurrence;          /* 0: the key without its occurrence */
};

static uint64_t fnv_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
	return (h ^ 0xff) * UINT64_C(0x100000001b3); /* a separator no string holds */
}

static uint64_t key_hash(const struct key *k)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	h = fnv_str(h, k->op);
	h = fnv_str(h, dtype_key(k->dtype));
	h = fnv_str(h, k->shape);
	h = (h ^ (uint64_t)k->side) * UINT64_C(0x100000001b3);
	h = (h ^ (uint64_t)(unsigned)k->occurrence) * UINT64_C(0x100000001b3);
	/* FNV's low bits, which pick the slot, mix poorly: finish as MurmurHash3 does */
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	return h ^ (h >> 33);
}

static struct key row_key(const struct zl_result *r)
{
	struct key k = { r->op, r->dtype, r->shape, r->side, r->occurrence };

	return k;
}

static int row_has_key(const struct zl_result *r, const struct key *k)
{
	return (!k->occurrence || r->occurrence == k->occurrence) &&
	       key_equal(r, k->op, k->dtype, k->shape, k->side);
}

struct row_table {
	struct zl_row_slot *slot;
	size_t mask;             /* slots - 1 (a power of two minus one); 0 before the first insert */
	size_t nr;
};

/*
 * The slot holding the row with key k (of hash h), or the empty slot where it would go. The
 * stored hash spares a look at rows whose key differs (their strings are far apart in memory).
 */
static struct zl_row_slot *table_slot(const struct row_table *t, const struct zl_result *rows,
				      const struct key *k, uint64_t h)
{
	size_t i = (size_t)h & t->mask;

	while (t->slot[i].row && (t->slot[i].hash != h || !row_has_key(&rows[t->slot[i].row - 1], k)))
		i = (i + 1) & t->mask;
	return &t->slot[i];
}

/* Make room for one more row: at most half the slots in use. */
static void table_reserve(struct row_table *t)
{
	struct row_table bigger = { NULL, 0, 0 };
	size_t i;

	if (t->mask && 2 * (t->nr + 1) <= t->mask + 1)
		return;
	bigger.mask = t->mask ? 2 * t->mask + 1 : 63;
	bigger.slot = xcalloc(bigger.mask + 1, sizeof(*bigger.slot));
	for (i = 0; t->mask && i <= t->mask; i++) {
		size_t j = (size_t)t->slot[i].hash & bigger.mask;

		if (!t->slot[i].row)
			continue;
		/* the keys in t are distinct: the first empty slot is the place */
		while (bigger.slot[j].row)
			j = (j + 1) & bigger.mask;
		bigger.slot[j] = t->slot[i];
		bigger.nr++;
	}
	free(t->slot);
	*t = bigger;
}

void zl_run_index_rows(struct zl_run *run)
{
	struct row_table t = { NULL, 0, 0 };
	size_t i;

	free(run->index);
	for (i = 0; i < run->nr_results; i++) {
		struct key k = row_key(&run->results[i]);
		uint64_t h = key_hash(&k);
		struct zl_row_slot *slot;

		table_reserve(&t);
		slot = table_slot(&t, run->results, &k, h);
		if (!slot->row) {    /* the first row of a repeated key is the one found */
			slot->row = i + 1;
			slot->hash = h;
			t.nr++;
		}
	}
	run->index = t.slot;
	run->index_mask = t.mask;
	run->indexed = run->nr_results;
}

static struct zl_result *find_row(const struct zl_run *run, const char *op, const char *dtype,
				  const char *shape, int occurrence, enum zl_side side)
{
	struct key k = { op, dtype, shape, side, occurrence };
	size_t i;

	if (occurrence < 1)
		return NULL;
	if (run->index && run->indexed == run->nr_results) {
		struct row_table t = { run->index, run->index_mask, run->indexed };
		struct zl_row_slot *slot = table_slot(&t, run->results, &k, key_hash(&k));

		return slot->row ? &run->results[slot->row - 1] : NULL;
	}
	for (i = 0; i < run->nr_results; i++)
		if (row_has_key(&run->results[i], &k))
			return &run->results[i];
	return NULL;
}

const struct zl_result *zl_run_find(const struct zl_run *run, const char *op, const char *dtype,
				    const char *shape, int occurrence, enum zl_side side)
{
	return find_row(run, op, dtype, shape, occurrence, side);
}

/* The occurrence of a new row: one more than the last row of its key (last->slot holds it). */
static int next_occurrence(struct zl_run *run, struct row_table *last, const char *op, const char *dtype,
			   const char *shape, enum zl_side side)
{
	struct key k = { op, dtype, shape, side, 0 };
	uint64_t h = key_hash(&k);
	struct zl_row_slot *slot;
	int occurrence;

	table_reserve(last);
	slot = table_slot(last, run->results, &k, h);
	occurrence = slot->row ? run->results[slot->row - 1].occurrence + 1 : 1;
	if (!slot->row)
		last->nr++;
	slot->row = run->nr_results + 1; /* the row add_row appends next */
	slot->hash = h;
	return occurrence;
}

/* FlagGems' gbps and tflops as counts: GB/s x ms = 1e6 bytes, TFLOP/s x ms = 1e9 FLOPs. */
static void flaggems_counts(const cJSON *row, struct zl_result *r)
{
	double gems_ms = json_number(cJSON_GetObjectItemCaseSensitive(row, "latency"));
	double gbps = json_number(cJSON_GetObjectItemCaseSensitive(row, "gbps"));
	double gbps_base = json_number(cJSON_GetObjectItemCaseSensitive(row, "gbps_base"));
	double tflops = json_number(cJSON_GetObjectItemCaseSensitive(row, "tflops"));

	r->fg_bytes = r->fg_flops = NAN;
	if (gbps > 0 && gems_ms > 0)
		r->fg_bytes = gbps * gems_ms * 1e6;
	else if (gbps_base > 0 && r->latency_base_ms > 0)
		r->fg_bytes = gbps_base * r->latency_base_ms * 1e6;
	if (tflops > 0 && gems_ms > 0)
		r->fg_flops = tflops * gems_ms * 1e9;
}

static void add_row(struct zl_run *run, struct row_table *last, const char *op, const char *dtype,
		    const char *shape, enum zl_side side, const cJSON *row)
{
	const char *err_msg = zl_json_path_string(row, "error_msg");
	struct zl_result *r;
	int occurrence = next_occurrence(run, last, op, dtype, shape, side);

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
	r->samples_total = -1;
	r->estimate_ms = r->noise_rel = r->clock_mhz = NAN;
	r->host_bound = r->no_device_work = -1;
	flaggems_counts(row, r);
}

static void load_detail(struct zl_run *run, struct row_table *last, const char *op_key, const cJSON *detail,
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
		shape = zl_json_shape_text(shape_item);
		add_row(run, last, op, dtype ? dtype : "", shape, ZL_SIDE_TORCH, row);
		add_row(run, last, op, dtype ? dtype : "", shape, ZL_SIDE_GEMS, row);
		free(shape);
	}
}

/* The rows of one results.json row object (text[0..len)), as load_detail's loop body does. */
static int load_row_text(struct zl_run *run, struct row_table *last, const char *op, const char *dtype,
			 const char *text, size_t len, size_t *odd)
{
	cJSON *row = zl_json_parse_python(text, len, NULL, NULL, NULL);
	const cJSON *shape_item;
	char *shape;

	if (!row)
		return -1;
	if (!cJSON_IsObject(row)) {
		(*odd)++;
		cJSON_Delete(row);
		return 0;
	}
	shape_item = cJSON_GetObjectItemCaseSensitive(row, "shape_detail");
	if (!shape_item || cJSON_IsNull(shape_item))
		shape_item = cJSON_GetObjectItemCaseSensitive(row, "legacy_shape");
	shape = zl_json_shape_text(shape_item);
	add_row(run, last, op, dtype, shape, ZL_SIDE_TORCH, row);
	add_row(run, last, op, dtype, shape, ZL_SIDE_GEMS, row);
	free(shape);
	cJSON_Delete(row);
	return 0;
}

/* A string value's text (decoded) into out, or 0 when the value there is no string; s is past it. */
static int scan_string_value(struct zl_jscan *s, struct strbuf *out)
{
	const char *start;
	cJSON *v;
	int is = 0;

	zl_jscan_peek(s);
	start = s->p;
	if (zl_jscan_value(s))
		return -1;
	v = zl_json_parse_python(start, (size_t)(s->p - start), NULL, NULL, NULL);
	strbuf_reset(out);
	if (cJSON_IsString(v)) {
		strbuf_addstr(out, v->valuestring);
		is = 1;
	}
	cJSON_Delete(v);
	return is;
}

/* One entry of an op's "details": op_name, dtype and its "result" rows, as load_detail reads it. */
static int scan_detail(struct zl_run *run, struct row_table *last, const char *op_key, struct zl_jscan *s,
		       size_t *odd)
{
	struct strbuf key = STRBUF_INIT, op = STRBUF_INIT, dtype = STRBUF_INIT;
	const char *result = NULL, *result_end = NULL;
	int first = 1, have_op = 0, have_dtype = 0, seen_op = 0, seen_dtype = 0, rc = -1;

	if (zl_jscan_peek(s) != '{') {
		(*odd)++;
		rc = zl_jscan_value(s);
		goto out;
	}
	zl_jscan_open(s, '{');
	/* the first member of each name counts, as cJSON_GetObjectItemCaseSensitive finds it */
	while (zl_jscan_more(s, &first)) {
		if (zl_jscan_key(s, &key))
			goto out;
		if (!seen_op && !strcmp(key.buf, "op_name")) {
			seen_op = 1;
			if ((have_op = scan_string_value(s, &op)) < 0)
				goto out;
		} else if (!seen_dtype && !strcmp(key.buf, "dtype")) {
			seen_dtype = 1;
			if ((have_dtype = scan_string_value(s, &dtype)) < 0)
				goto out;
		} else if (!result && !strcmp(key.buf, "result")) {
			zl_jscan_peek(s);
			result = s->p;
			if (zl_jscan_value(s))
				goto out;
			result_end = s->p;
		} else if (zl_jscan_value(s)) {
			goto out;
		}
	}
	if (!result || *result != '[') {
		(*odd)++;
	} else {
		struct zl_jscan rows;
		int first_row = 1;

		zl_jscan_init(&rows, result, (size_t)(result_end - result));
		zl_jscan_open(&rows, '[');
		while (zl_jscan_more(&rows, &first_row)) {
			const char *start;

			zl_jscan_peek(&rows);
			start = rows.p;
			if (zl_jscan_value(&rows) ||
			    load_row_text(run, last, have_op ? op.buf : op_key, have_dtype ? dtype.buf : "", start,
					  (size_t)(rows.p - start), odd))
				goto out;
		}
	}
	rc = 0;
out:
	strbuf_release(&key);
	strbuf_release(&op);
	strbuf_release(&dtype);
	return rc;
}

/*
 * results.json walked without its whole tree (jscan.h): each row parsed alone and
 * freed, so that loading weighs the text and the rows, not a tree of ~4 times the
 * text as well. -1 when the text is not one JSON value as jscan checks it, before any
 * row is added (the caller then reads it whole and says why).
 */
static int scan_results(struct zl_run *run, struct row_table *last, const char *text, size_t len, size_t *odd,
			size_t *nonfinite)
{
	struct strbuf key = STRBUF_INIT, op_key = STRBUF_INIT;
	struct zl_jscan s;
	int first = 1, rc = -1;

	zl_jscan_init(&s, text, len);
	if (zl_jscan_value(&s) || zl_jscan_peek(&s) || s.p != s.end)
		goto out;
	*nonfinite = s.nonfinite;
	zl_jscan_init(&s, text, len);
	if (zl_jscan_peek(&s) != '{')
		goto out;
	run->has_results = 1;
	zl_jscan_open(&s, '{');
	while (zl_jscan_more(&s, &first)) {
		int first_member = 1, found = 0;

		if (zl_jscan_key(&s, &op_key))
			goto out;
		if (zl_jscan_peek(&s) != '{') {
			(*odd)++;
			if (zl_jscan_value(&s))
				goto out;
			continue;
		}
		zl_jscan_open(&s, '{');
		while (zl_jscan_more(&s, &first_member)) {
			int first_detail = 1;

			if (zl_jscan_key(&s, &key))
				goto out;
			if (found || strcmp(key.buf, "details")) {
				if (zl_jscan_value(&s))
					goto out;
				continue;
			}
			found = 1;
			if (zl_jscan_peek(&s) != '[') {
				(*odd)++;
				if (zl_jscan_value(&s))
					goto out;
				continue;
			}
			zl_jscan_open(&s, '[');
			while (zl_jscan_more(&s, &first_detail))
				if (scan_detail(run, last, op_key.buf, &s, odd))
					goto out;
		}
		if (!found)
			(*odd)++;
	}
	rc = 0;
out:
	strbuf_release(&key);
	strbuf_release(&op_key);
	return rc;
}

/* last: filled with the last row of each key (without occurrence), for load_timer. */
static void load_results(struct zl_run *run, struct row_table *last)
{
	char *path = zl_path_join(run->dir, "results.json");
	struct strbuf text = STRBUF_INIT, why = STRBUF_INIT;
	cJSON *root = NULL;
	const cJSON *op_entry;
	struct strbuf err = STRBUF_INIT;
	size_t odd = 0, i, errors = 0, nulls = 0, nonfinite = 0;

	if (zl_read_file(&text, path, NULL, ZL_CAP_LARGE, &err)) {
		if (errno == ENOENT)
			strvec_pushf(&run->notes, "no results.json: the run recorded no results");
		else
			strvec_push(&run->notes, err.buf);
		goto out;
	}
	if (zl_runload_whole_tree || scan_results(run, last, text.buf, text.len, &odd, &nonfinite)) {
		/* what the scan refused (or a test asks for): the whole tree, which says why it fails */
		for (i = 0; i < run->nr_results; i++)
			result_release(&run->results[i]);
		run->nr_results = 0;
		run->has_results = 0;
		free(last->slot);
		last->slot = NULL;
		last->mask = last->nr = 0;
		odd = nonfinite = 0;
		/* FlagGems writes with json.dump: a NaN or Infinity is a missing value, not an unreadable file */
		root = zl_json_parse_python(text.buf, text.len, NULL, &nonfinite, &why);
		strbuf_release(&text);
		if (!cJSON_IsObject(root)) {
			strvec_pushf(&run->notes, "cannot parse '%s': %s", path, root ? "not a json object" : why.buf);
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
				load_detail(run, last, op_entry->string, detail, &odd);
		}
	}
	strbuf_release(&text);
	zl_run_index_rows(run);
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
	if (nonfinite)
		strvec_pushf(&run->notes, "results.json: %zu NaN/Infinity numbers read as missing values",
			     nonfinite);
out:
	cJSON_Delete(root);
	strbuf_release(&text);
	strbuf_release(&why);
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

/*
 * Occurrences among timer records are counted like results rows, so repeats pair in order:
 * seen[] counts the records of a key at the row that stands for the key in last (the last
 * row of the key). A key that no row has needs no count: it matches nothing.
 */
static int timer_occurrence(const struct zl_run *run, const struct row_table *last, int *seen,
			    const char *op, const char *dtype, const char *shape, enum zl_side side)
{
	struct key k = { op, dtype, shape, side, 0 };
	struct zl_row_slot *slot;

	if (!last->slot)
		return 0;
	slot = table_slot(last, run->results, &k, key_hash(&k));
	return slot->row ? ++seen[slot->row - 1] : 0;
}

/* timer.jsonl's kernels (an array of names) as one string, or NULL when it is none. Caller frees. */
static char *kernel_signature(const cJSON *kernels)
{
	struct strbuf sb = STRBUF_INIT;
	const cJSON *k;

	if (!cJSON_IsArray(kernels) || !cJSON_GetArraySize(kernels))
		return NULL;
	cJSON_ArrayForEach(k, kernels) {
		if (!cJSON_IsString(k)) {
			strbuf_release(&sb);
			return NULL;
		}
		strbuf_addf(&sb, "%s%s", sb.len ? " + " : "", k->valuestring);
	}
	return strbuf_detach(&sb, NULL);
}

/* samples_ms into r (replacing what it had); returns how many entries were not positive numbers. */
static size_t attach_samples(struct zl_result *r, const cJSON *rec)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(rec, "samples_ms");
	const cJSON *it;
	size_t bad = 0, n;

	free(r->samples_ms);
	r->samples_ms = NULL;
	r->nr_samples_ms = 0;
	if (!cJSON_IsArray(arr) || !(n = (size_t)cJSON_GetArraySize(arr)))
		return 0;
	r->samples_ms = xcalloc(n, sizeof(*r->samples_ms));
	cJSON_ArrayForEach(it, arr) {
		if (cJSON_IsNumber(it) && isfinite(it->valuedouble) && it->valuedouble > 0)
			r->samples_ms[r->nr_samples_ms++] = it->valuedouble;
		else
			bad++;
	}
	if (!r->nr_samples_ms) {
		free(r->samples_ms);
		r->samples_ms = NULL;
	}
	return bad;
}

/* 1 when matched, 0 when no results row has this key. */
static int attach_timer(struct zl_run *run, const cJSON *rec, const struct row_table *last, int *seen,
			size_t *bad_samples)
{
	const char *op = zl_json_path_string(rec, "op");
	const char *dtype = zl_json_path_string(rec, "dtype");
	const char *side_s = zl_json_path_string(rec, "side");
	const cJSON *samples = first_item(rec, timer_samples_keys);
	const cJSON *used = first_item(rec, timer_used_keys);
	const cJSON *total;
	struct zl_result *r;
	enum zl_side side;
	char *shape;
	int occ;

	if (!op || zl_side_parse(side_s, &side))
		return 0;
	shape = zl_json_shape_text(first_item(rec, timer_shape_keys));
	occ = timer_occurrence(run, last, seen, op, dtype, shape, side);
	r = find_row(run, op, dtype, shape, occ, side);
	free(shape);
	if (!r)
		return 0;
	r->median_ms = json_number(first_item(rec, timer_median_keys));
	r->min_ms = json_number(first_item(rec, timer_min_keys));
	r->max_ms = json_number(first_item(rec, timer_max_keys));
	r->iqr_ms = json_number(first_item(rec, timer_iqr_keys));
	if (cJSON_IsNumber(samples))
		r->samples = zl_json_long(samples, r->samples);
	else if (cJSON_IsArray(samples))
		r->samples = cJSON_GetArraySize(samples);
	free(r->timer);
	r->timer = cJSON_IsString(used) ? xstrdup(used->valuestring) : NULL;
	*bad_samples += attach_samples(r, rec);
	run->rows_with_samples += r->samples_ms != NULL;
	total = cJSON_GetObjectItemCaseSensitive(rec, "samples_total");
	r->samples_total = zl_json_long(total, -1);
	r->samples_subset = same_str(zl_json_path_string(rec, "samples_stored"), "subset");
	r->estimate_ms = json_number(cJSON_GetObjectItemCaseSensitive(rec, "estimate_ms"));
	r->noise_rel = json_number(cJSON_GetObjectItemCaseSensitive(rec, "noise_rel"));
	r->clock_mhz = json_number(zl_json_path(rec, "clock_mhz.median"));
	free(r->estimator);
	r->estimator = zl_json_path_dup(rec, "estimator");
	free(r->kernels);
	r->kernels = kernel_signature(cJSON_GetObjectItemCaseSensitive(rec, "kernels"));
	r->host_bound = zl_json_tristate(cJSON_GetObjectItemCaseSensitive(rec, "host_bound"));
	r->no_device_work = zl_json_tristate(cJSON_GetObjectItemCaseSensitive(rec, "no_device_work"));
	return 1;
}

static void load_timer(struct zl_run *run, const struct row_table *last)
{
	char *path = zl_path_join(run->dir, "plugins/timer.jsonl");
	struct strbuf text = STRBUF_INIT;
	int *seen = xcalloc(run->nr_results + 1, sizeof(*seen));
	size_t lineno = 0, bad = 0, unmatched = 0, bad_samples = 0;
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
		rec = zl_json_parse_python(line, strlen(line), NULL, NULL, NULL);
		if (!cJSON_IsObject(rec))
			bad++;
		else if (!attach_timer(run, rec, last, seen, &bad_samples))
			unmatched++;
		cJSON_Delete(rec);
	}
	if (bad)
		strvec_pushf(&run->notes, "plugins/timer.jsonl: %zu of %zu lines are not json objects",
			     bad, lineno);
	run->timer_unmatched = unmatched;
	if (unmatched)
		strvec_pushf(&run->notes, ZL_NOTE_TIMER_UNMATCHED, unmatched);
	if (bad_samples)
		strvec_pushf(&run->notes, "plugins/timer.jsonl: %zu entries of samples_ms are not positive "
			     "numbers and were skipped", bad_samples);
out:
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

void zl_run_load_field(struct zl_run *run, const struct zl_record_field *f)
{
	const cJSON *item = zl_json_path(run->identity, f->key);
	void *slot = field_slot(run, f);
	double d;

	switch (f->kind) {
	case ZL_REC_STRING:
		*(char **)slot = cJSON_IsString(item) ? xstrdup(item->valuestring) : NULL;
		break;
	case ZL_REC_JOINED:
		*(char **)slot = joined_strings(item, NULL, " ", 0);
		break;
	case ZL_REC_DEVICE_NAMES:
		*(char **)slot = joined_strings(item, "name", ", ", 1);
		break;
	case ZL_REC_REAL:
		*(double *)slot = json_number(item);
		break;
	case ZL_REC_LONG:
		d = json_number(item);
		*(long *)slot = isnan(d) ? -1 : (long)d;
		break;
	}
}

static void load_identity_fields(struct zl_run *run)
{
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(record_fields); i++)
		zl_run_load_field(run, &record_fields[i]);
}

int zl_run_load_with_identity(const char *dir, cJSON *identity, struct zl_run *run, struct strbuf *err)
{
	if (zl_dir_problem(dir)) {
		cJSON_Delete(identity);
		return zl_error(err, "'%s' is not a run directory: it %s", dir, zl_dir_problem(dir));
	}
	run->dir = zl_absolute_path(dir);
	run->identity = identity;
	if (!cJSON_IsObject(run->identity)) {
		zl_run_release(run);
		return zl_error(err, "the identity of '%s' is not a json object", dir);
	}
	load_identity_fields(run);
	if (!run->run_id) {
		zl_run_release(run);
		return zl_error(err, "the identity of '%s' has no run_id", dir);
	}
	{
		struct row_table last = { NULL, 0, 0 };

		load_results(run, &last);
		load_timer(run, &last);
		free(last.slot);
	}
	return 0;
}

int zl_run_load(const char *dir, struct zl_run *run, struct strbuf *err)
{
	struct row_table last = { NULL, 0, 0 };
	struct strbuf text = STRBUF_INIT;
	char *path;

	if (zl_dir_problem(dir))
		return zl_error(err, "'%s' is not a run directory: it %s", dir, zl_dir_problem(dir));
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
	load_results(run, &last);
	load_timer(run, &last);
	free(last.slot);
	strbuf_release(&text);
	free(path);
	return 0;
fail:
	strbuf_release(&text);
	free(path);
	zl_run_release(run);
	return -1;
}
