#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "zlbench/cachedir.h"
#include "zlbench/env.h"
#include "zlbench/fsutil.h"
#include "zlbench/tunercache.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

#define DB_PREFIX "TunedConfig_"
#define DB_SUFFIX ".db"
/* Shortest run of hex digits that is a hash segment rather than part of a kernel name. */
#define MIN_HASH_SEGMENT 12

void zl_tuner_stats_init(struct zl_tuner_stats *st)
{
	struct zl_tuner_stats blank = ZL_TUNER_STATS_INIT;

	*st = blank;
}

static void table_release(struct zl_tuner_table *t)
{
	free(t->db);
	free(t->name);
	free(t->kernel);
}

void zl_tuner_stats_release(struct zl_tuner_stats *st)
{
	size_t i;

	for (i = 0; i < st->nr; i++)
		table_release(&st->tables[i]);
	free(st->tables);
	strvec_clear(&st->notes);
	strvec_clear(&st->unread_dbs);
	zl_tuner_stats_init(st);
}

int zl_tuner_stats_incomplete(const struct zl_tuner_stats *st)
{
	return st->dir_unread || st->unread_dbs.nr > 0;
}

int zl_tuner_db_url_set(void)
{
	return zl_env_raw(ZL_ENV_FLAGGEMS_DB_URL) != NULL;
}

char *zl_tuner_default_cache_dir(void)
{
	return zl_cache_dir(ZL_CACHE_FLAGGEMS);
}

char *zl_tuner_config_dir(const char *cache_dir)
{
	return zl_path_join(cache_dir, "config_cache");
}

/* ---- table names ---- */

static int is_hex(int ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
}

enum zl_tuner_kind zl_tuner_kind_of_name(const char *table)
{
	static const char marker[] = "_benchmark_v";
	const char *p = table;

	while ((p = strstr(p, marker))) {
		const char *d = p + strlen(marker);
		const char *end = d;
		while (*end >= '0' && *end <= '9')
			end++;
		if (end > d && (*end == '\0' || *end == '-'))
			return ZL_TUNER_BENCHMARKS;
		p = d;
	}
	return ZL_TUNER_WINNERS;
}

/* The kernel's name: everything before the first "_<hex hash>" segment (or the "-<md5>" suffix). */
static char *kernel_of(const char *table)
{
	const char *p;

	for (p = table; *p; p++) {
		size_t n = 0;
		if (*p == '-')
			break;
		if (*p != '_' || p == table)
			continue;
		while (is_hex((unsigned char)p[1 + n]))
			n++;
		if (n >= MIN_HASH_SEGMENT && (p[1 + n] == '_' || p[1 + n] == '-' || !p[1 + n]))
			break;
	}
	return xstrndup(table, (size_t)(p - table));
}

/* ---- one database ---- */

/* A file: URI for path: every byte outside [A-Za-z0-9/._~-] percent-encoded. */
static char *ro_uri(const char *path)
{
	static const char safe[] = "/._~-";
	struct strbuf sb = STRBUF_INIT;
	const unsigned char *p;

	strbuf_addstr(&sb, "file:");
	for (p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr(safe, *p))
			strbuf_addch(&sb, *p);
		else
			strbuf_addf(&sb, "%%%02X", *p);
	}
	strbuf_addstr(&sb, "?mode=ro");
	return strbuf_detach(&sb, NULL);
}

struct db_read {
	sqlite3 *db;
	const char *path;
	int busy_ms;
	struct strbuf why;     /* set on the first failure */
	struct zl_tuner_table *tables;
	size_t nr, alloc;
};

static int db_fail(struct db_read *r, int rc)
{
	if (r->why.len)
		return -1;
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		strbuf_addf(&r->why, "%s (still locked after %d ms)", sqlite3_errstr(rc), r->busy_ms);
	else
		strbuf_addstr(&r->why, r->db ? sqlite3_errmsg(r->db) : sqlite3_errstr(rc));
	return -1;
}

static int exec_simple(struct db_read *r, const char *sql)
{
	int rc = sqlite3_exec(r->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : db_fail(r, rc);
}

/* Run a one-row, one-integer query (with an optional text parameter). */
static int query_long(struct db_read *r, const char *sql, const char *param, long *out)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(r->db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_fail(r, rc);
	if (param && (rc = sqlite3_bind_text(st, 1, param, -1, SQLITE_TRANSIENT)) != SQLITE_OK) {
		db_fail(r, rc);
		sqlite3_finalize(st);
		return -1;
	}
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		db_fail(r, rc);
		sqlite3_finalize(st);
		return -1;
	}
	*out = (long)sqlite3_column_int64(st, 0);
	rc = sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : db_fail(r, rc);
}

static int list_tables(struct db_read *r, struct strvec *names)
{
	static const char sql[] =
		"SELECT name FROM sqlite_master WHERE type = 'table' "
		"AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name";
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(r->db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_fail(r, rc);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *name = sqlite3_column_text(st, 0);
		if (name)
			strvec_push(names, (const char *)name);
	}
	if (rc != SQLITE_DONE) {
		db_fail(r, rc);
		sqlite3_finalize(st);
		return -1;
	}
	rc = sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : db_fail(r, rc);
}

static int count_table(struct db_read *r, const char *db_name, const char *name)
{
	struct strbuf sql = STRBUF_INIT;
	struct zl_tuner_table *t;
	enum zl_tuner_kind kind = zl_tuner_kind_of_name(name);
	long rows, has_p50 = 0;
	const char *p;
	int rc;

	/* Timed rows carry p50/p20/p80 whatever the table is called. */
	if (kind == ZL_TUNER_WINNERS &&
	    query_long(r, "SELECT count(*) FROM pragma_table_info(?1) WHERE name = 'p50'", name, &has_p50))
		return -1;
	if (has_p50)
		kind = ZL_TUNER_BENCHMARKS;
	strbuf_addstr(&sql, "SELECT count(*) FROM \"");
	for (p = name; *p; p++) {
		if (*p == '"')
			strbuf_addch(&sql, '"');
		strbuf_addch(&sql, *p);
	}
	strbuf_addch(&sql, '"');
	rc = query_long(r, sql.buf, NULL, &rows);
	strbuf_release(&sql);
	if (rc)
		return -1;
	ALLOC_GROW(r->tables, r->nr + 1, r->alloc);
	t = &r->tables[r->nr++];
	t->db = xstrdup(db_name);
	t->name = xstrdup(name);
	t->kernel = kernel_of(name);
	t->kind = kind;
	t->rows = rows;
	return 0;
}

static void add_note_for(struct zl_tuner_stats *st, const char *path, const char *why)
{
	strvec_pushf(&st->notes, "tuner db '%s' not counted: %s", path, why);
}

/* Count every table of the open database r->db in one read transaction (one snapshot). 1 when all were. */
static int count_tables(struct db_read *r, const char *base)
{
	struct strvec names = STRVEC_INIT;
	size_t i;
	int ok = 0;

	if (exec_simple(r, "BEGIN"))
		return 0;
	if (!list_tables(r, &names)) {
		for (i = 0; i < names.nr; i++)
			if (count_table(r, base, names.v[i]))
				break;
		ok = i == names.nr;
	}
	if (exec_simple(r, ok ? "COMMIT" : "ROLLBACK"))
		ok = 0;
	strvec_clear(&names);
	return ok;
}

/* Open db_path read-only and count it; 1 when every table was counted, else r->why says why not. */
static int read_db(struct db_read *r, const char *base)
{
	char *uri = ro_uri(r->path);
	int rc, ok = 0;

	rc = sqlite3_open_v2(uri, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	free(uri);
	if (rc != SQLITE_OK)
		db_fail(r, rc);
	else if ((rc = sqlite3_busy_timeout(r->db, r->busy_ms)) != SQLITE_OK)
		db_fail(r, rc);
	else
		ok = count_tables(r, base);
	if (r->db && (rc = sqlite3_close(r->db)) != SQLITE_OK && ok) {
		db_fail(r, rc);
		ok = 0;
	}
	return ok;
}

/* A database that is not a regular file there is not counted: gone, it holds nothing; else unknown. */
static int db_file_there(const char *db_path, const char *base, struct zl_tuner_stats *st)
{
	struct stat sb;

	if (stat(db_path, &sb)) {
		if (errno != ENOENT)
			strvec_push(&st->unread_dbs, base);
		add_note_for(st, db_path, strerror(errno));
		return 0;
	}
	if (!S_ISREG(sb.st_mode)) {
		strvec_push(&st->unread_dbs, base);
		add_note_for(st, db_path, "not a regular file");
		return 0;
	}
	return 1;
}

void zl_tuner_count_db(const char *db_path, int busy_ms, struct zl_tuner_stats *st)
{
	struct db_read r;
	const char *base = strrchr(db_path, '/');
	size_t i;

	base = base ? base + 1 : db_path;
	if (!db_file_there(db_path, base, st))
		return;
	memset(&r, 0, sizeof(r));
	strbuf_init(&r.why, 0);
	r.path = db_path;
	r.busy_ms = busy_ms < 0 ? ZL_TUNER_BUSY_MS : busy_ms;
	if (read_db(&r, base)) {
		ALLOC_GROW(st->tables, st->nr + r.nr, st->alloc);
		for (i = 0; i < r.nr; i++) {
			if (r.tables[i].kind == ZL_TUNER_WINNERS)
				st->winners += r.tables[i].rows;
			else
				st->benchmarked += r.tables[i].rows;
			st->tables[st->nr++] = r.tables[i];
		}
		st->dbs++;
	} else {
		strvec_push(&st->unread_dbs, base);
		add_note_for(st, db_path, r.why.len ? r.why.buf : "unknown sqlite error");
		for (i = 0; i < r.nr; i++)
			table_release(&r.tables[i]);
	}
	free(r.tables);
	strbuf_release(&r.why);
}

/* ---- a cache directory ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void zl_tuner_count_dir(const char *cache_dir, const char *vendor, int busy_ms,
			struct zl_tuner_stats *st)
{
	char *dir, *prefix;
	DIR *d;
	struct dirent *de;
	struct strvec found = STRVEC_INIT;
	size_t i;

	if (!cache_dir) {
		st->dir_unread = 1;
		strvec_push(&st->notes, "no tuner cache directory (FLAGGEMS_CACHE_DIR and HOME are unset)");
		return;
	}
	dir = zl_tuner_config_dir(cache_dir);
	prefix = vendor ? xstrfmt(DB_PREFIX "%s_triton_", vendor) : xstrdup(DB_PREFIX);
	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT) {
			strvec_pushf(&st->notes, "no tuner cache at '%s' (nothing tuned there yet)", dir);
		} else {
			st->dir_unread = 1;
			strvec_pushf(&st->notes, "cannot read tuner cache '%s': %s", dir, strerror(errno));
		}
		free(dir);
		free(prefix);
		return;
	}
	errno = 0;
	while ((de = readdir(d))) {
		if (zl_starts_with(de->d_name, prefix) && zl_ends_with(de->d_name, DB_SUFFIX))
			strvec_push(&found, de->d_name);
		errno = 0;
	}
	if (errno) {
		/* the listing stopped early: what was found is not all there is */
		st->dir_unread = 1;
		strvec_pushf(&st->notes, "cannot list tuner cache '%s': %s", dir, strerror(errno));
	}
	if (closedir(d))
		strvec_pushf(&st->notes, "cannot close tuner cache '%s': %s", dir, strerror(errno));
	if (found.nr)
		qsort(found.v, found.nr, sizeof(*found.v), cmp_str);
	else
		strvec_pushf(&st->notes, "no %s*%s in '%s'", prefix, DB_SUFFIX, dir);
	for (i = 0; i < found.nr; i++) {
		char *path = zl_path_join(dir, found.v[i]);
		zl_tuner_count_db(path, busy_ms, st);
		free(path);
	}
	strvec_clear(&found);
	free(dir);
	free(prefix);
}
