/* `zlbench history`'s listing rendered, and its --since values (include/zlbench/history_list.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "zlbench/error.h"
#include "zlbench/history.h"
#include "zlbench/history_list.h"
#include "zlbench/json.h"
#include "zlbench/schema.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"
#include "zlbench/table.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

static int leap_year(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/*
 * YYYY-MM-DD[(T| )HH:MM[:SS]][Z] as the stored form YYYY-MM-DDTHH:MM:SSZ (what
 * identities hold, so that a text comparison is a time comparison), or NULL
 * when it is no such date or names a day or time that does not exist.
 */
static char *normalise_date(const char *s)
{
	static const char pattern[] = "dddd-dd-ddTdd:dd:dd";
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, mo, d, h = 0, mi = 0, sec = 0;
	size_t len = strlen(s), i;

	if (len && s[len - 1] == 'Z')
		len--;
	if (len != 10 && len != 16 && len != 19)
		return NULL;
	for (i = 0; i < len; i++) {
		if (pattern[i] == 'd' ? !isdigit((unsigned char)s[i]) :
		    s[i] != pattern[i] && !(i == 10 && s[i] == ' '))
			return NULL;
	}
	y = atoi(s);
	mo = atoi(s + 5);
	d = atoi(s + 8);
	if (len > 10) {
		h = atoi(s + 11);
		mi = atoi(s + 14);
	}
	if (len > 16)
		sec = atoi(s + 17);
	if (mo < 1 || mo > 12 || d < 1 || d > days[mo - 1] + (mo == 2 && leap_year(y)) ||
	    h > 23 || mi > 59 || sec > 59)
		return NULL;
	return xstrfmt("%.4d-%.2d-%.2dT%.2d:%.2d:%.2dZ", y, mo, d, h, mi, sec);
}

static const struct {
	char unit;
	double seconds;
} age_units[] = {
	{ 'h', 3600 },
	{ 'd', 86400 },
	{ 'w', 7 * 86400 },
};

/* --since: a date in the stored form; an age becomes the UTC time that long ago (history.h). */
char *zl_history_since_value(const char *s, struct strbuf *err)
{
	size_t len = strlen(s), i;
	char *date = normalise_date(s);

	if (date)
		return date;
	for (i = 0; len > 1 && i < ZL_ARRAY_SIZE(age_units); i++) {
		if (s[len - 1] == age_units[i].unit) {
			char *num = xstrndup(s, len - 1);
			long n;
			int bad = zl_parse_long(num, &n) || n < 0;
			char buf[32];

			free(num);
			if (bad)
				break;
			zl_utc_iso8601(buf, zl_now_epoch() - (double)n * age_units[i].seconds);
			return xstrdup(buf);
		}
	}
	zl_error(err, "invalid --since '%s': use an existing UTC date and time, "
		 "YYYY-MM-DD[THH:MM[:SS]], or an age like 12h, 7d, 2w", s);
	return NULL;
}

int zl_history_list_json(const struct zl_history_list *l, struct strbuf *sb, struct strbuf *err)
{
	cJSON *arr = cJSON_CreateArray();
	size_t i;
	int c;

	for (i = 0; arr && i < l->nr; i++) {
		const struct zl_history_entry *e = &l->v[i];
		cJSON *o = cJSON_CreateObject();

		if (zl_json_add_item(arr, NULL, o) || zl_json_add_schema(o, ZL_SCHEMA_HISTORY_RUN))
			goto oom;
		for (c = 0; c < ZL_HCOL__COUNT; c++) {
			const char *v = e->v[c];
			int bad;

			if (zl_history_columns[c].type == ZL_COL_TEXT || !v)
				bad = zl_json_add_string(o, zl_history_columns[c].name, v);
			else
				bad = zl_json_add_number(o, zl_history_columns[c].name, strtod(v, NULL));
			if (bad)
				goto oom;
		}
		if (zl_json_add_number(o, "results", (double)e->results) ||
		    zl_json_add_number(o, "speedup_geomean", e->speedup_geomean))
			goto oom;
	}
	if (!arr || zl_json_print(sb, arr, 1, "history --json"))
		goto oom;
	strbuf_addch(sb, '\n');
	cJSON_Delete(arr);
	return 0;
oom:
	cJSON_Delete(arr);
	return zl_error(err, "cannot build the json list: out of memory");
}

void zl_history_list_csv(const struct zl_history_list *l, struct strbuf *out)
{
	size_t i;
	int c;

	for (c = 0; c < ZL_HCOL__COUNT; c++)
		zl_csv_field(out, zl_history_columns[c].name, c == 0);
	zl_csv_field(out, "results", 0);
	zl_csv_field(out, "speedup_geomean", 0);
	zl_csv_end_row(out);
	for (i = 0; i < l->nr; i++) {
		const struct zl_history_entry *e = &l->v[i];
		char num[64];

		for (c = 0; c < ZL_HCOL__COUNT; c++)
			zl_csv_field(out, e->v[c], c == 0);
		snprintf(num, sizeof(num), "%ld", e->results);
		zl_csv_field(out, num, 0);
		if (isfinite(e->speedup_geomean))
			snprintf(num, sizeof(num), "%.10g", e->speedup_geomean);
		else
			num[0] = '\0';
		zl_csv_field(out, num, 0);
		zl_csv_end_row(out);
	}
}

/* "3 runs, newest first, from 'DB': 2 passed, 1 crashed" (and where --limit may have cut it). */
static void summary_line(const struct zl_history_list *l, const char *db_path, long limit, FILE *out)
{
	struct strvec seen = STRVEC_INIT;
	size_t *count = xcalloc(l->nr + 1, sizeof(*count)), i;

	for (i = 0; i < l->nr; i++) {
		const char *st = l->v[i].v[ZL_HCOL_STATUS] ? l->v[i].v[ZL_HCOL_STATUS] : "no status";
		long k = strvec_find(&seen, st);

		if (k < 0) {
			strvec_push(&seen, st);
			k = (long)seen.nr - 1;
		}
		count[k]++;
	}
	fprintf(out, "%zu run%s, newest first, from '%s'", l->nr, l->nr == 1 ? "" : "s", db_path);
	for (i = 0; i < seen.nr; i++)
		fprintf(out, "%s%zu %s", i ? ", " : ": ", count[i], seen.v[i]);
	if (limit > 0 && l->nr == (size_t)limit)
		fprintf(out, " (the newest %ld: --limit 0 lists all)", limit);
	fputc('\n', out);
	free(count);
	strvec_clear(&seen);
}

void zl_history_list_print_text(const struct zl_history_list *l, const char *db_path, long limit, size_t width,
				FILE *out)
{
	static const char *const head[] = { "run_id", "started_at", "backend", "device", "op",
					    "level", "status", "duration", "rows", "speedup" };
	static const enum zl_history_col cols[] = { ZL_HCOL_RUN_ID, ZL_HCOL_STARTED_AT,
		ZL_HCOL_BACKEND, ZL_HCOL_DEVICE_NAME, ZL_HCOL_OP, ZL_HCOL_LEVEL, ZL_HCOL_STATUS };
	/* the run id says when and on which backend: these go first on a narrow terminal */
	static const size_t drop[] = { 1, 5, 3, 2 };
	struct zl_table t;
	size_t i, c;

	if (!l->nr) {
		fprintf(out, "no runs in '%s'\n", db_path);
		return;
	}
	summary_line(l, db_path, limit, out);
	zl_table_init(&t, ZL_ARRAY_SIZE(head), (1ul << 7) | (1ul << 8) | (1ul << 9));
	for (c = 0; c < ZL_ARRAY_SIZE(head); c++)
		zl_table_add(&t, head[c], ZL_COLOR_NONE);
	for (i = 0; i < l->nr; i++) {
		const struct zl_history_entry *e = &l->v[i];
		const char *dur = e->v[ZL_HCOL_DURATION_S];

		for (c = 0; c < ZL_ARRAY_SIZE(cols); c++)
			zl_table_add(&t, e->v[cols[c]] ? e->v[cols[c]] : "-", ZL_COLOR_NONE);
		if (dur)
			zl_table_addf(&t, ZL_COLOR_NONE, "%.1fs", strtod(dur, NULL));
		else
			zl_table_add(&t, "-", ZL_COLOR_NONE);
		zl_table_addf(&t, ZL_COLOR_NONE, "%ld", e->results);
		if (isfinite(e->speedup_geomean))
			zl_table_addf(&t, ZL_COLOR_NONE, "%.3fx", e->speedup_geomean);
		else
			zl_table_add(&t, "-", ZL_COLOR_NONE);
	}
	if (width)
		zl_table_fit(&t, width, drop, ZL_ARRAY_SIZE(drop));
	zl_table_print(&t, out, 0);
	zl_table_release(&t);
}
