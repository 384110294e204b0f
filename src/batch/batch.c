/*
 * zlbench batch: ops_status.csv, the operator list, the start order, batch.json
 * and the directory lock. The scheduler is batch_sched.c; warm-up sharding is
 * batch_warmup.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "zlbench/batch.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/history.h"
#include "zlbench/json.h"
#include "zlbench/redact.h"
#include "zlbench/resolve.h"
#include "zlbench/run.h"
#include "zlbench/table.h"
#include "zlbench/term.h"
#include "zlbench/units.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

const char *const zl_batch_columns[ZL_BCOL__COUNT] = {
	[ZL_BCOL_OP] = "op",
	[ZL_BCOL_STATUS] = "status",
	[ZL_BCOL_EXIT_CODE] = "exit_code",
	[ZL_BCOL_BACKEND] = "backend",
	[ZL_BCOL_DEVICE] = "device",
	[ZL_BCOL_TIMER] = "timer",
	[ZL_BCOL_LEVEL] = "level",
	[ZL_BCOL_TUNER_CACHE] = "tuner_cache",
	[ZL_BCOL_AUTOTUNE] = "autotune",
	[ZL_BCOL_DURATION_S] = "duration_s",
	[ZL_BCOL_STARTED_AT] = "started_at",
	[ZL_BCOL_FINISHED_AT] = "finished_at",
	[ZL_BCOL_RUN_DIR] = "run_dir",
	[ZL_BCOL_REASON] = "reason",
	[ZL_BCOL_ATTEMPT] = "attempt",
	[ZL_BCOL_WALL_S] = "wall_s",
	[ZL_BCOL_WARMUP_SHARDS] = "warmup_shards",
	[ZL_BCOL_WARMUP_DEVICES] = "warmup_devices",
	[ZL_BCOL_LOG] = "log",
	[ZL_BCOL_START] = "start",
	[ZL_BCOL_OPS_BEFORE] = "ops_before",
};

/* ---- rows ------------------------------------------------------------------- */

void zl_batch_row_init(struct zl_batch_row *r)
{
	memset(r, 0, sizeof(*r));
}

void zl_batch_row_release(struct zl_batch_row *r)
{
	size_t i;

	for (i = 0; i < ZL_BCOL__COUNT; i++)
		free(r->v[i]);
	zl_batch_row_init(r);
}

void zl_batch_row_set(struct zl_batch_row *r, enum zl_batch_col c, const char *value)
{
	char *copy = value ? xstrdup(value) : NULL;

	free(r->v[c]);
	r->v[c] = copy;
}

void zl_batch_row_setf(struct zl_batch_row *r, enum zl_batch_col c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xstrvfmt_set(&r->v[c], fmt, ap);
	va_end(ap);
}

void zl_batch_row_render(const struct zl_batch_row *r, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < ZL_BCOL__COUNT; i++)
		zl_csv_field(out, r ? r->v[i] : zl_batch_columns[i], i == 0);
	zl_csv_end_row(out);
}

void zl_batch_rows_release(struct zl_batch_rows *rows)
{
	size_t i;

	for (i = 0; i < rows->nr; i++)
		zl_batch_row_release(&rows->v[i]);
	free(rows->v);
	rows->v = NULL;
	rows->nr = rows->alloc = 0;
}

int zl_batch_rows_parse(const char *text, size_t len, struct zl_batch_rows *out,
			size_t *complete_len, struct strbuf *err)
{
	struct strvec fields = STRVEC_INIT;
	int map[64];
	size_t pos = 0, i, ncols;
	int r;

	*complete_len = 0;
	r = zl_csv_read_record(text, len, &pos, &fields);
	if (r <= 0) {
		strvec_clear(&fields);
		return 0; /* empty (or a header cut off): no rows yet */
	}
	ncols = fields.nr < ZL_ARRAY_SIZE(map) ? fields.nr : ZL_ARRAY_SIZE(map);
	for (i = 0; i < ncols; i++) {
		size_t c;

		map[i] = -1;
		for (c = 0; c < ZL_BCOL__COUNT; c++)
			if (!strcmp(fields.v[i], zl_batch_columns[c]))
				map[i] = (int)c;
	}
	if (strvec_find(&fields, "op") < 0 || strvec_find(&fields, "status") < 0) {
		strvec_clear(&fields);
		return zl_error(err, "the header of %s lacks the 'op' and 'status' columns", ZL_BATCH_STATUS_FILE);
	}
	*complete_len = pos;
	while ((r = zl_csv_read_record(text, len, &pos, &fields)) == 1) {
		struct zl_batch_row *row;

		*complete_len = pos;
		if (fields.nr == 1 && !*fields.v[0])
			continue; /* a blank line */
		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		row = &out->v[out->nr++];
		zl_batch_row_init(row);
		for (i = 0; i < fields.nr && i < ncols; i++)
			if (map[i] >= 0 && *fields.v[i])
				zl_batch_row_set(row, (enum zl_batch_col)map[i], fields.v[i]);
	}
	strvec_clear(&fields);
	return 0;
}

/*
 * Final statuses: everything that will not change by running the op again as it
 * was. Not preflight_failed: it says the environment was broken, and once it is
 * fixed --resume should run the op.
 */
static const char *const final_statuses[] = {
	ZL_STATUS_PASSED, ZL_STATUS_SKIPPED, ZL_STATUS_FAILED, ZL_STATUS_TIMEOUT, ZL_STATUS_CRASHED, NULL
};

int zl_batch_status_final(const char *status, int retry_failed)
{
	const char *const *s;

	if (!status)
		return 0;
	if (retry_failed)
		return !strcmp(status, ZL_STATUS_PASSED) || !strcmp(status, ZL_STATUS_SKIPPED);
	for (s = final_statuses; *s; s++)
		if (!strcmp(status, *s))
			return 1;
	return 0;
}

const struct zl_batch_row *zl_batch_rows_last(const struct zl_batch_rows *rows, const char *op)
{
	size_t i;

	for (i = rows->nr; i-- > 0;)
		if (rows->v[i].v[ZL_BCOL_OP] && !strcmp(rows->v[i].v[ZL_BCOL_OP], op))
			return &rows->v[i];
	return NULL;
}

/* ---- the status file ---------------------------------------------------------- */

int zl_batch_status_open(struct zl_batch_status *st, const char *batch_dir, struct zl_batch_rows *rows,
			 struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT, head = STRBUF_INIT;
	size_t complete = 0;
	int rc = -1;

	st->fd = -1;
	st->path = zl_path_join(batch_dir, ZL_BATCH_STATUS_FILE);
	st->fd = open(st->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (st->fd < 0) {
		zl_error(err, "cannot open '%s': %s", st->path, strerror(errno));
		goto out;
	}
	if (zl_check_regular_fd(st->fd, st->path, NULL, ZL_CAP_DOC, err))
		goto out;
	if (strbuf_read_fd(&text, st->fd) < 0) {
		zl_error(err, "cannot read '%s': %s", st->path, strerror(errno));
		goto out;
	}
	if (zl_batch_rows_parse(text.buf, text.len, rows, &complete, err)) {
		strbuf_reset(&head);
		strbuf_addstr(&head, err->buf);
		strbuf_reset(err);
		zl_error(err, "'%s': %s", st->path, head.buf);
		goto out;
	}
	if (complete < text.len && ftruncate(st->fd, (off_t)complete)) {
		zl_error(err, "cannot truncate the cut-off last row of '%s': %s", st->path, strerror(errno));
		goto out;
	}
	if (!complete) {
		/* a new file, or one whose header was cut off: start with the header */
		if (ftruncate(st->fd, 0)) {
			zl_error(err, "cannot truncate '%s': %s", st->path, strerror(errno));
			goto out;
		}
		zl_batch_row_render(NULL, &head);
		if (zl_write_all(st->fd, head.buf, head.len) || fsync(st->fd)) {
			zl_error(err, "cannot write '%s': %s", st->path, strerror(errno));
			goto out;
		}
	}
	rc = 0;
out:
	if (rc)
		zl_batch_status_close(st);
	strbuf_release(&text);
	strbuf_release(&head);
	return rc;
}

int zl_batch_status_append(struct zl_batch_status *st, const struct zl_batch_row *r, struct strbuf *err)
{
	struct strbuf line = STRBUF_INIT;
	int rc = 0;

	zl_batch_row_render(r, &line);
	/* one write() per row, then fsync: a killed batch loses no finished row */
	if (zl_write_all(st->fd, line.buf, line.len) || fsync(st->fd))
		rc = zl_error(err, "cannot append to '%s': %s", st->path, strerror(errno));
	strbuf_release(&line);
	return rc;
}

int zl_batch_status_rewrite(struct zl_batch_status *st, const struct zl_batch_rows *rows, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	size_t i;
	int fd, rc;

	zl_batch_row_render(NULL, &text);
	for (i = 0; i < rows->nr; i++)
		zl_batch_row_render(&rows->v[i], &text);
	rc = zl_write_file_atomic(st->path, text.buf, text.len, err);
	strbuf_release(&text);
	if (rc)
		return -1;
	/* the old descriptor holds the replaced file: appends go to the new one */
	fd = open(st->path, O_RDWR | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return zl_error(err, "cannot open '%s': %s", st->path, strerror(errno));
	if (st->fd >= 0)
		close(st->fd);
	st->fd = fd;
	return 0;
}

void zl_batch_status_close(struct zl_batch_status *st)
{
	if (st->fd >= 0)
		close(st->fd);
	st->fd = -1;
	free(st->path);
	st->path = NULL;
}

/* ---- identity -> row ----------------------------------------------------------- */

static void set_json_string(struct zl_batch_row *r, enum zl_batch_col c, const cJSON *root, const char *path)
{
	const char *s = zl_json_path_string(root, path);

	if (s)
		zl_batch_row_set(r, c, s);
}

static void set_json_number(struct zl_batch_row *r, enum zl_batch_col c, const cJSON *root,
			    const char *path, const char *fmt)
{
	const cJSON *n = zl_json_path(root, path);

	if (cJSON_IsNumber(n))
		zl_batch_row_setf(r, c, fmt, n->valuedouble);
}

int zl_batch_row_from_identity(struct zl_batch_row *r, const char *run_dir, struct strbuf *err)
{
	char *path = zl_path_join(run_dir, "run_identity.json");
	struct strbuf text = STRBUF_INIT;
	cJSON *doc = NULL;
	const char *reason;
	int rc = -1;

	if (zl_read_file(&text, path, NULL, ZL_CAP_DOC, err))
		goto out;
	doc = cJSON_Parse(text.buf);
	if (!cJSON_IsObject(doc)) {
		zl_error(err, "'%s' is not a JSON object", path);
		goto out;
	}
	set_json_string(r, ZL_BCOL_STATUS, doc, "status");
	set_json_number(r, ZL_BCOL_EXIT_CODE, doc, "exit_code", "%.0f");
	set_json_string(r, ZL_BCOL_BACKEND, doc, "backend");
	if (zl_json_path_string(doc, "timer.used"))
		set_json_string(r, ZL_BCOL_TIMER, doc, "timer.used");
	else
		set_json_string(r, ZL_BCOL_TIMER, doc, "timer.plan");
	set_json_string(r, ZL_BCOL_LEVEL, doc, "level");
	set_json_string(r, ZL_BCOL_TUNER_CACHE, doc, "tuner_cache.mode");
	set_json_string(r, ZL_BCOL_AUTOTUNE, doc, "autotune.mode");
	set_json_number(r, ZL_BCOL_DURATION_S, doc, "duration_s", "%.3f");
	set_json_string(r, ZL_BCOL_STARTED_AT, doc, "started_at");
	set_json_string(r, ZL_BCOL_FINISHED_AT, doc, "finished_at");
	/* an identity without "start" is a fresh child's (docs/worker.md) */
	if (zl_json_path_string(doc, "start.mode"))
		set_json_string(r, ZL_BCOL_START, doc, "start.mode");
	else
		zl_batch_row_set(r, ZL_BCOL_START, "fresh");
	if (cJSON_IsNumber(zl_json_path(doc, "start.ops_before")))
		set_json_number(r, ZL_BCOL_OPS_BEFORE, doc, "start.ops_before", "%.0f");
	else
		zl_batch_row_set(r, ZL_BCOL_OPS_BEFORE, "0");
	reason = zl_json_path_string(doc, "reason");
	if (reason) {
		/* one line: the first */
		const char *nl = strpbrk(reason, "\r\n");
		char *line = xstrndup(reason, nl ? (size_t)(nl - reason) : strlen(reason));

		zl_batch_row_set(r, ZL_BCOL_REASON, line);
		free(line);
	}
	rc = 0;
out:
	cJSON_Delete(doc);
	strbuf_release(&text);
	free(path);
	return rc;
}

/* The last of --isolate-tuner-cache / --shared-tuner-cache in the run settings wins. */
static int isolates_tuner_cache(const struct zl_batch_config *c)
{
	size_t i;
	int isolate = 0;

	for (i = 0; i < c->run_args.nr; i++) {
		if (!strcmp(c->run_args.v[i], "--isolate-tuner-cache"))
			isolate = 1;
		else if (!strcmp(c->run_args.v[i], "--shared-tuner-cache"))
			isolate = 0;
	}
	return isolate;
}

int zl_batch_uses_workers(const struct zl_batch_config *c)
{
	return c->start && !strcmp(c->start, "worker") && !zl_batch_is_slurm(c) && !isolates_tuner_cache(c);
}

const char *zl_batch_status_from_exit(int exit_code, int interrupted)
{
	if (exit_code == ZL_EXIT_OK)
		return ZL_STATUS_PASSED;
	if (interrupted)
		return ZL_STATUS_INTERRUPTED;
	if (exit_code == ZL_EXIT_PREFLIGHT)
		return ZL_STATUS_PREFLIGHT_FAILED;
	if (exit_code == ZL_EXIT_TIMEOUT)
		return ZL_STATUS_TIMEOUT;
	if (exit_code > ZL_EXIT_SIGNAL_BASE)
		return ZL_STATUS_CRASHED;
	return ZL_STATUS_FAILED;
}

/* ---- operators ------------------------------------------------------------------ */

void zl_batch_ops_add_list(struct strvec *ops, const char *list)
{
	strvec_split(ops, list, ',');
}

int zl_batch_ops_read_file(struct strvec *ops, const char *path, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	char *line, *next;

	if (zl_read_file(&text, path, "ops file", ZL_CAP_DOC, err)) {
		strbuf_release(&text);
		return -1;
	}
	for (line = text.buf; line && *line; line = next) {
		struct strbuf one = STRBUF_INIT;
		char *hash;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		strbuf_addstr(&one, line);
		strbuf_trim(&one);
		if (one.len)
			strvec_push(ops, one.buf);
		strbuf_release(&one);
	}
	strbuf_release(&text);
	return 0;
}

int zl_batch_ops_check(const struct strvec *ops, struct strbuf *err)
{
	size_t i, j;

	if (!ops->nr)
		return zl_error(err, "no operators: give --ops LIST or --ops-file FILE");
	for (i = 0; i < ops->nr; i++) {
		if (!zl_op_name_valid(ops->v[i]))
			return zl_error(err, "invalid operator name '%s': use letters, digits and '_'", ops->v[i]);
		for (j = 0; j < i; j++)
			if (!strcmp(ops->v[i], ops->v[j]))
				return zl_error(err, "operator '%s' is listed twice", ops->v[i]);
	}
	return 0;
}

void zl_batch_order(double *expect_s, size_t n, size_t *order)
{
	double known_sum = 0;
	size_t known = 0, i, j;

	for (i = 0; i < n; i++)
		if (expect_s[i] >= 0) {
			known_sum += expect_s[i];
			known++;
		}
	for (i = 0; i < n; i++) {
		if (expect_s[i] < 0)
			expect_s[i] = known ? known_sum / (double)known : 0;
		order[i] = i;
	}
	/* insertion sort: stable, and n is the number of operators */
	for (i = 1; i < n; i++) {
		size_t cur = order[i];

		for (j = i; j > 0 && expect_s[order[j - 1]] < expect_s[cur]; j--)
			order[j] = order[j - 1];
		order[j] = cur;
	}
}

char *zl_batch_attempt_name(const char *op, int attempt)
{
	(void)attempt; /* the attempt that runs always takes the canonical paths */
	return xstrdup(op);
}

char *zl_batch_archived_name(const char *op, int attempt)
{
	return xstrfmt("%s.attempt%d", op, attempt);
}

/* The canonical paths of op's latest attempt, relative to the batch directory ("%s": op). */
static const char *const canonical_paths[] = { "runs/%s", "logs/%s.log", "warmup/%s" };

static int exists_in(const char *dir, const char *fmt, const char *name)
{
	char *rel = xstrfmt(fmt, name);
	char *path = zl_path_join(dir, rel);
	int r = access(path, F_OK) == 0;

	free(rel);
	free(path);
	return r;
}

/* 1 when column c of r names the path fmt of name. */
static int names_path(const struct zl_batch_row *r, enum zl_batch_col c, const char *fmt, const char *name)
{
	char *want;
	int same;

	if (!r->v[c])
		return 0;
	want = xstrfmt(fmt, name);
	same = !strcmp(r->v[c], want);
	free(want);
	return same;
}

static int row_names_canonical(const struct zl_batch_row *r, const char *op)
{
	return r->v[ZL_BCOL_OP] && !strcmp(r->v[ZL_BCOL_OP], op) &&
	       (names_path(r, ZL_BCOL_RUN_DIR, "runs/%s", op) || names_path(r, ZL_BCOL_RUN_DIR, "warmup/%s", op) ||
		names_path(r, ZL_BCOL_LOG, "logs/%s.log", op));
}

void zl_batch_attempts_find(const char *batch_dir, const char *op, const struct zl_batch_rows *rows,
			    struct zl_batch_attempts *a)
{
	int top = 0, k;
	size_t i;

	int unmoved = 0; /* an attempt whose rows name its archived paths, not made yet: a cut archive */

	memset(a, 0, sizeof(*a));
	for (i = 0; i < rows->nr; i++) {
		const struct zl_batch_row *r = &rows->v[i];
		char *archived;
		int n;

		if (!r->v[ZL_BCOL_OP] || strcmp(r->v[ZL_BCOL_OP], op) || !r->v[ZL_BCOL_ATTEMPT])
			continue;
		n = atoi(r->v[ZL_BCOL_ATTEMPT]);
		if (n > top)
			top = n;
		if (row_names_canonical(r, op)) {
			a->canonical = n;
			a->canonical_has_row = 1;
		}
		archived = zl_batch_archived_name(op, n);
		if ((names_path(r, ZL_BCOL_RUN_DIR, "runs/%s", archived) &&
		     !exists_in(batch_dir, "runs/%s", archived)) ||
		    (names_path(r, ZL_BCOL_LOG, "logs/%s.log", archived) &&
		     !exists_in(batch_dir, "logs/%s.log", archived)))
			unmoved = n;
		free(archived);
	}
	/* archived attempts (and an older zlbench's "<op>.<k>") count, even without a row */
	for (k = 1; k <= top + 1; k++) {
		char *archived = zl_batch_archived_name(op, k), *legacy = xstrfmt("%s.%d", op, k);

		if (exists_in(batch_dir, "runs/%s", archived) || exists_in(batch_dir, "logs/%s.log", archived) ||
		    exists_in(batch_dir, "runs/%s", legacy) || exists_in(batch_dir, "logs/%s.log", legacy))
			top = k > top ? k : top;
		free(archived);
		free(legacy);
	}
	for (i = 0; i < ZL_ARRAY_SIZE(canonical_paths); i++)
		if (exists_in(batch_dir, canonical_paths[i], op) && !a->canonical)
			/* the rows were rewritten but the paths not moved yet; or it ran and no row names it */
			a->canonical = unmoved ? unmoved : ++top;
	if (a->canonical > top)
		top = a->canonical;
	/* an attempt that never started has no row and no paths: its number is used again */
	a->next = top + 1;
}

/* Rename rel_from to rel_to under dir when it exists. */
static int move_aside(const char *dir, const char *rel_from, const char *rel_to, struct strbuf *err)
{
	char *from = zl_path_join(dir, rel_from), *to = zl_path_join(dir, rel_to);
	int rc = 0;

	if (access(from, F_OK) == 0) {
		if (access(to, F_OK) == 0)
			rc = zl_error(err, "cannot keep the earlier attempt '%s' as '%s': that exists already", from, to);
		else if (rename(from, to))
			rc = zl_error(err, "cannot move the earlier attempt '%s' to '%s': %s", from, to, strerror(errno));
	}
	free(from);
	free(to);
	return rc;
}

/* The history database's rows of a moved run directory follow it (compare finds runs by id). */
static void history_follow(const char *old_abs, const char *new_abs)
{
	struct zl_history *h = NULL;
	struct strbuf err = STRBUF_INIT;
	char *path;

	if (zl_history_disabled())
		return;
	path = zl_history_default_path();
	if (path && zl_is_file(path) &&
	    (zl_history_open(path, &h, &err) || zl_history_move_run_dir(h, old_abs, new_abs, &err)))
		zl_print_warning("the history still names '%s' for the run now in '%s': %s", old_abs, new_abs, err.buf);
	zl_history_close(h);
	free(path);
	strbuf_release(&err);
}

/* Point the rows of the op's canonical attempt at its archived paths. 1 when a row changed. */
static int rows_to_archived(struct zl_batch_rows *rows, const char *op, const char *archived)
{
	int rewrite = 0;
	size_t i;

	for (i = 0; i < rows->nr; i++) {
		struct zl_batch_row *r = &rows->v[i];

		if (!row_names_canonical(r, op))
			continue;
		if (names_path(r, ZL_BCOL_RUN_DIR, "runs/%s", op))
			zl_batch_row_setf(r, ZL_BCOL_RUN_DIR, "runs/%s", archived);
		else if (names_path(r, ZL_BCOL_RUN_DIR, "warmup/%s", op))
			zl_batch_row_setf(r, ZL_BCOL_RUN_DIR, "warmup/%s", archived);
		if (names_path(r, ZL_BCOL_LOG, "logs/%s.log", op))
			zl_batch_row_setf(r, ZL_BCOL_LOG, "logs/%s.log", archived);
		rewrite = 1;
	}
	return rewrite;
}

/* The warm-up shards' logs, logs/<op>.warmup-<i>.log, to logs/<archived>.warmup-<i>.log. */
static int move_shard_logs(const char *batch_dir, const char *op, const char *archived, struct strbuf *err)
{
	char *logs = zl_path_join(batch_dir, "logs");
	struct strvec names = STRVEC_INIT;
	size_t i;
	int rc = 0;
	DIR *d;

	if ((d = opendir(logs))) {
		struct dirent *de;
		char *prefix = xstrfmt("%s.warmup-", op);

		while ((de = readdir(d)))
			if (zl_starts_with(de->d_name, prefix))
				strvec_push(&names, de->d_name);
		closedir(d);
		free(prefix);
	}
	for (i = 0; i < names.nr && !rc; i++) {
		char *from = xstrfmt("logs/%s", names.v[i]);
		char *to = xstrfmt("logs/%s%s", archived, names.v[i] + strlen(op));

		if (move_aside(batch_dir, from, to, err))
			rc = -1;
		free(from);
		free(to);
	}
	strvec_clear(&names);
	free(logs);
	return rc;
}

/* The attempt's log, its warm-up directory and its shards' logs to their archived names. */
static int move_logs_aside(const char *batch_dir, const char *op, const char *archived, struct strbuf *err)
{
	char *lf = xstrfmt("logs/%s.log", op), *lt = xstrfmt("logs/%s.log", archived);
	char *wf = xstrfmt("warmup/%s", op), *wt = xstrfmt("warmup/%s", archived);
	int bad = move_aside(batch_dir, lf, lt, err) || move_aside(batch_dir, wf, wt, err);

	free(lf);
	free(lt);
	free(wf);
	free(wt);
	if (bad)
		return -1;
	return move_shard_logs(batch_dir, op, archived, err);
}

/* The absolute path of the directory rel in dir, or NULL when it is not one. Caller frees. */
static char *dir_absolute(const char *dir, const char *rel)
{
	char *abs = zl_path_join(dir, rel), *path = NULL;

	if (zl_is_dir(abs))
		path = zl_absolute_path(abs);
	free(abs);
	return path;
}

int zl_batch_archive_canonical(const char *batch_dir, const char *op, int attempt, struct zl_batch_status *st,
			       struct zl_batch_rows *rows, struct strbuf *err)
{
	char *archived = zl_batch_archived_name(op, attempt);
	char *runs_from = xstrfmt("runs/%s", op), *runs_to = xstrfmt("runs/%s", archived);
	char *run_abs = NULL;
	int rc = -1;

	/* first the rows (atomically): a batch killed next finds the rows right and moves the paths again */
	if (rows_to_archived(rows, op, archived) && zl_batch_status_rewrite(st, rows, err))
		goto out;
	run_abs = dir_absolute(batch_dir, runs_from);
	if (move_aside(batch_dir, runs_from, runs_to, err) || move_logs_aside(batch_dir, op, archived, err))
		goto out;
	if (run_abs) {
		char *abs = zl_path_join(batch_dir, runs_to);
		char *now = zl_absolute_path(abs);

		history_follow(run_abs, now);
		free(now);
		free(abs);
	}
	rc = 0;
out:
	free(archived);
	free(runs_from);
	free(runs_to);
	free(run_abs);
	return rc;
}

/* ---- batch.json -------------------------------------------------------------------- */

void zl_batch_config_init(struct zl_batch_config *c)
{
	memset(c, 0, sizeof(*c));
	strvec_init(&c->devices);
	strvec_init(&c->ops);
	strvec_init(&c->exclude);
	strvec_init(&c->run_args);
	strvec_init(&c->passthrough);
	strvec_init(&c->warmup_ops);
	strvec_init(&c->argv);
}

void zl_batch_config_release(struct zl_batch_config *c)
{
	free(c->dir);
	free(c->created_at);
	free(c->backend);
	free(c->launcher);
	free(c->shape_file);
	free(c->start);
	free(c->flaggems_dir);
	free(c->level);
	free(c->replay_batch);
	strvec_clear(&c->devices);
	strvec_clear(&c->ops);
	strvec_clear(&c->exclude);
	strvec_clear(&c->run_args);
	strvec_clear(&c->passthrough);
	strvec_clear(&c->warmup_ops);
	strvec_clear(&c->argv);
	zl_batch_config_init(c);
}

int zl_batch_config_save(const struct zl_batch_config *c, struct strbuf *err)
{
	cJSON *doc = cJSON_CreateObject();
	char *path = zl_path_join(c->dir, ZL_BATCH_CONFIG_FILE);
	struct strvec argv = STRVEC_INIT;
	int bad, rc = -1;

	zl_redact_argv((const char *const *)c->argv.v, &argv); /* stored: no --push password, no token */
	bad = !doc ||
	      zl_json_add_string(doc, "schema", ZL_BATCH_SCHEMA) ||
	      zl_json_add_string(doc, "zlbench_version", ZL_VERSION_STRING) ||
	      zl_json_add_string(doc, "created_at", c->created_at) ||
	      zl_json_add_string(doc, "backend", c->backend) ||
	      zl_json_add_string(doc, "launcher", c->launcher ? c->launcher : "local") ||
	      zl_json_add_item(doc, "devices", zl_json_strvec(&c->devices)) ||
	      zl_json_add_item(doc, "ops", zl_json_strvec(&c->ops)) ||
	      zl_json_add_bool(doc, "ops_all", c->ops_all) ||
	      zl_json_add_item(doc, "exclude", zl_json_strvec(&c->exclude)) ||
	      zl_json_add_item(doc, "run_args", zl_json_strvec(&c->run_args)) ||
	      zl_json_add_item(doc, "passthrough", zl_json_strvec(&c->passthrough)) ||
	      zl_json_add_number(doc, "timeout_per_op_s", c->timeout_s > 0 ? c->timeout_s : NAN) ||
	      zl_json_add_number(doc, "warmup_devices", c->warmup_devices) ||
	      zl_json_add_item(doc, "warmup_ops", zl_json_strvec(&c->warmup_ops)) ||
	      zl_json_add_string(doc, "flaggems_dir", c->flaggems_dir) ||
	      zl_json_add_string(doc, "level", c->level) ||
	      zl_json_add_string(doc, "shape_mode", c->shape_mode_file ? "file" : "upstream") ||
	      zl_json_add_string(doc, "shape_file", c->shape_file) ||
	      zl_json_add_string(doc, "start", c->start ? c->start : "fresh") ||
	      zl_json_add_string(doc, "replay_batch", c->replay_batch) ||
	      zl_json_add_item(doc, "argv", zl_json_strvec(&argv)) ||
	      zl_json_add_item(doc, "sessions", cJSON_CreateArray());
	if (bad)
		zl_error(err, "out of memory building '%s'", path);
	else
		rc = zl_json_write_atomic(path, doc, err);
	cJSON_Delete(doc);
	strvec_clear(&argv);
	free(path);
	return rc;
}

/* A device as the batch names it: an index, as the settings resolver makes it. */
static int device_name_valid(const char *d)
{
	size_t n = strspn(d, "0123456789");

	return n > 0 && n <= 9 && !d[n];
}

/*
 * The names batch.json gives that become paths (runs/<op>, logs/<op>.log, a worker's
 * <device>.sock) are checked as the command line's are: a crafted batch.json naming
 * "../../x" must not make --resume move or write anything outside the batch.
 */
static int check_names(const struct zl_batch_config *c, const char *path, struct strbuf *err)
{
	size_t i;

	for (i = 0; i < c->ops.nr; i++)
		if (!zl_op_name_valid(c->ops.v[i]))
			return zl_error(err, "'%s' names the operator '%s': not an operator name (letters, digits "
				       "and '_'); refusing to use it", path, c->ops.v[i]);
	for (i = 0; i < c->warmup_ops.nr; i++)
		if (!zl_op_name_valid(c->warmup_ops.v[i]))
			return zl_error(err, "'%s' names the warm-up operator '%s': not an operator name (letters, "
				       "digits and '_'); refusing to use it", path, c->warmup_ops.v[i]);
	for (i = 0; i < c->devices.nr; i++)
		if (!device_name_valid(c->devices.v[i]))
			return zl_error(err, "'%s' names the device '%s': not a device index; refusing to use it", path,
				       c->devices.v[i]);
	return 0;
}

int zl_batch_config_load(struct zl_batch_config *c, const char *batch_dir, struct strbuf *err)
{
	char *path = zl_path_join(batch_dir, ZL_BATCH_CONFIG_FILE);
	char *hint = xstrfmt("is '%s' a batch directory?", batch_dir);
	cJSON *doc = zl_json_read_schema(path, ZL_BATCH_SCHEMA, hint, err);
	const cJSON *n;
	int rc = -1;

	if (!doc)
		goto out;
	c->dir = zl_absolute_path(batch_dir);
	c->created_at = zl_json_path_dup(doc, "created_at");
	c->backend = zl_json_path_dup(doc, "backend");
	c->launcher = zl_json_path_dup(doc, "launcher"); /* absent before --launcher existed: local */
	c->flaggems_dir = zl_json_path_dup(doc, "flaggems_dir");
	c->level = zl_json_path_dup(doc, "level");
	c->shape_file = zl_json_path_dup(doc, "shape_file");
	c->start = zl_json_path_dup(doc, "start"); /* absent before --start existed: fresh */
	c->replay_batch = zl_json_path_dup(doc, "replay_batch"); /* null or absent: none */
	c->shape_mode_file = zl_json_path_string(doc, "shape_mode") &&
			     !strcmp(zl_json_path_string(doc, "shape_mode"), "file");
	c->ops_all = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "ops_all")); /* absent before --ops all */
	n = cJSON_GetObjectItemCaseSensitive(doc, "timeout_per_op_s");
	c->timeout_s = cJSON_IsNumber(n) ? n->valuedouble : 0;
	n = cJSON_GetObjectItemCaseSensitive(doc, "warmup_devices");
	c->warmup_devices = cJSON_IsNumber(n) ? n->valueint : 0;
	if (!c->backend || !c->flaggems_dir ||
	    zl_json_to_strvec(cJSON_GetObjectItemCaseSensitive(doc, "devices"), &c->devices) ||
	    zl_json_to_strvec(cJSON_GetObjectItemCaseSensitive(doc, "ops"), &c->ops) ||
	    zl_json_to_strvec(cJSON_GetObjectItemCaseSensitive(doc, "run_args"), &c->run_args) ||
	    zl_json_to_strvec(cJSON_GetObjectItemCaseSensitive(doc, "passthrough"), &c->passthrough) ||
	    zl_json_to_strvec(cJSON_GetObjectItemCaseSensitive(doc, "warmup_ops"), &c->warmup_ops) ||
	    zl_json_to_strvec(cJSON_GetObjectItemCaseSensitive(doc, "argv"), &c->argv) ||
	    (cJSON_GetObjectItemCaseSensitive(doc, "exclude") &&
	     zl_json_to_strvec(cJSON_GetObjectItemCaseSensitive(doc, "exclude"), &c->exclude)) ||
	    (!c->devices.nr && !zl_batch_is_slurm(c)) || !c->ops.nr) {
		zl_error(err, "'%s' lacks backend, flaggems_dir, devices, ops or run_args", path);
		goto out;
	}
	if (check_names(c, path, err))
		goto out;
	rc = 0;
out:
	cJSON_Delete(doc);
	free(hint);
	free(path);
	return rc;
}

int zl_batch_config_add_session(const struct zl_batch_config *c, const char *const *argv,
				int resume, struct strbuf *err)
{
	char *path = zl_path_join(c->dir, ZL_BATCH_CONFIG_FILE);
	struct strbuf text = STRBUF_INIT;
	struct strvec args = STRVEC_INIT;
	cJSON *doc = NULL, *sessions, *s;
	char stamp[32];
	int rc = -1;

	if (zl_read_file(&text, path, NULL, ZL_CAP_DOC, err))
		goto out;
	doc = cJSON_Parse(text.buf);
	sessions = cJSON_GetObjectItemCaseSensitive(doc, "sessions");
	if (!cJSON_IsArray(sessions)) {
		zl_error(err, "'%s' has no sessions array", path);
		goto out;
	}
	zl_utc_iso8601(stamp, zl_now_epoch());
	zl_redact_argv(argv, &args); /* stored: a --push URL's password and tokens never are */
	s = cJSON_CreateObject();
	if (zl_json_add_item(sessions, NULL, s)) {
		zl_error(err, "out of memory updating '%s'", path);
		goto out;
	}
	/* s belongs to doc from here on */
	if (zl_json_add_string(s, "started_at", stamp) ||
	    zl_json_add_number(s, "pid", (double)getpid()) ||
	    zl_json_add_bool(s, "resume", resume) ||
	    zl_json_add_item(s, "argv", zl_json_strvec(&args))) {
		zl_error(err, "out of memory updating '%s'", path);
		goto out;
	}
	rc = zl_json_write_atomic(path, doc, err);
out:
	cJSON_Delete(doc);
	strvec_clear(&args);
	strbuf_release(&text);
	free(path);
	return rc;
}

/* ---- the lock ------------------------------------------------------------------- */

/* The pid written in the lock file by the batch that holds it, or 0. */
static long lock_owner(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	long pid = 0;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (zl_parse_long(buf, &pid))
		return 0;
	return pid;
}

int zl_batch_lock(const char *batch_dir, double wait_s, struct strbuf *err)
{
	char *path = zl_path_join(batch_dir, ZL_BATCH_LOCK_FILE);
	double deadline = zl_now_monotonic() + wait_s;
	char pid[32];
	int fd, said = 0, len;

	/* not O_CLOEXEC: the children inherit it and keep the lock until the last one exits */
	fd = open(path, O_RDWR | O_CREAT, 0644);
	if (fd < 0) {
		zl_error(err, "cannot open '%s': %s", path, strerror(errno));
		free(path);
		return -1;
	}
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		long owner;

		if (errno != EWOULDBLOCK && errno != EINTR) {
			zl_error(err, "cannot lock '%s': %s", path, strerror(errno));
			goto fail;
		}
		owner = lock_owner(fd);
		if (owner > 0 && owner != getpid() && !kill((pid_t)owner, 0)) {
			zl_error(err, "batch directory '%s' is in use by zlbench batch pid %ld", batch_dir, owner);
			goto fail;
		}
		if (zl_now_monotonic() >= deadline) {
			zl_error(err, "batch directory '%s' is still locked by processes of an earlier batch "
				 "(pid %ld) after %.0f s: end them, then resume", batch_dir, owner, wait_s);
			goto fail;
		}
		if (!said && zl_verbosity >= 0) {
			fprintf(stderr, "zlbench: waiting for the children of the earlier batch (pid %ld) to exit\n", owner);
			said = 1;
		}
		usleep(100 * 1000);
	}
	len = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)len, 0) != len) {
		zl_error(err, "cannot write '%s': %s", path, strerror(errno));
		goto fail;
	}
	free(path);
	return fd;
fail:
	close(fd);
	free(path);
	return -1;
}

int zl_batch_claim_dir(const char *batch_dir, struct strbuf *err)
{
	DIR *d;
	struct dirent *de;
	int fd, used = 0;

	if (zl_mkdir_p(batch_dir, err))
		return -1;
	fd = zl_batch_lock(batch_dir, 0, err);
	if (fd < 0)
		return -1;
	/* checked again under the lock: another new batch may have claimed it since the first look */
	d = opendir(batch_dir);
	if (!d) {
		zl_error(err, "cannot read batch directory '%s': %s", batch_dir, strerror(errno));
		close(fd);
		return -1;
	}
	while (!used && (de = readdir(d)))
		used = strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && strcmp(de->d_name, ZL_BATCH_LOCK_FILE);
	closedir(d);
	if (used) {
		zl_error(err, "batch directory '%s' exists and is not empty: continue it with --resume %s, or choose a "
			 "new --out", batch_dir, batch_dir);
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- shared by the launchers -------------------------------------------------------- */

int zl_batch_is_slurm(const struct zl_batch_config *c)
{
	return c->launcher && !strcmp(c->launcher, "slurm");
}

void zl_batch_rows_add(struct zl_batch_rows *rows, const struct zl_batch_row *r)
{
	struct zl_batch_row *kept;
	size_t i;

	ALLOC_GROW(rows->v, rows->nr + 1, rows->alloc);
	kept = &rows->v[rows->nr++];
	zl_batch_row_init(kept);
	for (i = 0; i < ZL_BCOL__COUNT; i++)
		zl_batch_row_set(kept, (enum zl_batch_col)i, r->v[i]);
}

void zl_batch_outcome_count(const struct zl_batch_config *c, const struct zl_batch_rows *rows,
			    struct zl_batch_outcome *out)
{
	static const struct {
		const char *status;
		size_t offset;
	} counters[] = {
		{ ZL_STATUS_PASSED, offsetof(struct zl_batch_outcome, passed) },
		{ ZL_STATUS_SKIPPED, offsetof(struct zl_batch_outcome, skipped) },
		{ ZL_STATUS_PREFLIGHT_FAILED, offsetof(struct zl_batch_outcome, preflight_failed) },
		{ ZL_STATUS_TIMEOUT, offsetof(struct zl_batch_outcome, timeout) },
		{ ZL_STATUS_CRASHED, offsetof(struct zl_batch_outcome, crashed) },
		{ ZL_STATUS_INTERRUPTED, offsetof(struct zl_batch_outcome, interrupted) },
	};
	size_t i, j;

	memset(out, 0, sizeof(*out));
	out->total = c->ops.nr;
	for (i = 0; i < c->ops.nr; i++) {
		const struct zl_batch_row *r = zl_batch_rows_last(rows, c->ops.v[i]);
		const char *st = r ? r->v[ZL_BCOL_STATUS] : NULL;
		size_t *counter = &out->failed; /* failed, or a status this table does not know */

		if (!st) {
			out->not_run++;
			continue;
		}
		for (j = 0; j < ZL_ARRAY_SIZE(counters); j++)
			if (!strcmp(st, counters[j].status))
				counter = (size_t *)((char *)out + counters[j].offset);
		(*counter)++;
	}
}

void zl_batch_fmt_seconds(struct strbuf *sb, double s)
{
	if (isnan(s))
		strbuf_addstr(sb, "unknown");
	else if (s < 59.95)
		strbuf_addf(sb, "%.1f s", s);
	else
		zl_fmt_duration(sb, s);
}

void zl_batch_display_finished(struct zl_progress *d, size_t done, size_t total,
			       const struct zl_batch_row *r)
{
	const char *st = r->v[ZL_BCOL_STATUS] ? r->v[ZL_BCOL_STATUS] : "?";
	int ok = !strcmp(st, ZL_STATUS_PASSED), skipped = !strcmp(st, ZL_STATUS_SKIPPED);
	struct strbuf line = STRBUF_INIT;

	if ((!d->live && !d->plain) || (ok && !d->plain))
		return;
	strbuf_addf(&line, "[%zu/%zu] %s: %s%s%s", done, total, r->v[ZL_BCOL_OP],
		    d->color ? zl_color_start(ok ? ZL_COLOR_GREEN : skipped ? ZL_COLOR_YELLOW : ZL_COLOR_RED) : "", st,
		    d->color ? ZL_COLOR_RESET : "");
	if (r->v[ZL_BCOL_EXIT_CODE] && !ok)
		strbuf_addf(&line, " (exit %s)", r->v[ZL_BCOL_EXIT_CODE]);
	strbuf_addf(&line, " on device %s after %.1f s", r->v[ZL_BCOL_DEVICE] ? r->v[ZL_BCOL_DEVICE] : "-",
		    r->v[ZL_BCOL_WALL_S] ? strtod(r->v[ZL_BCOL_WALL_S], NULL) : 0.0);
	if (r->v[ZL_BCOL_RUN_DIR])
		strbuf_addf(&line, ", %s", r->v[ZL_BCOL_RUN_DIR]);
	if (!ok && r->v[ZL_BCOL_REASON])
		strbuf_addf(&line, ": %s", r->v[ZL_BCOL_REASON]);
	zl_progress_clear(d);
	fprintf(stderr, "%s\n", line.buf);
	fflush(stderr);
	strbuf_release(&line);
}

/* ---- summary ---------------------------------------------------------------------- */

static enum zl_color status_color(const char *status)
{
	if (!status)
		return ZL_COLOR_NONE;
	if (!strcmp(status, ZL_STATUS_PASSED))
		return ZL_COLOR_GREEN;
	if (!strcmp(status, ZL_STATUS_INTERRUPTED) || !strcmp(status, ZL_STATUS_PREFLIGHT_FAILED) ||
	    !strcmp(status, ZL_STATUS_SKIPPED))
		return ZL_COLOR_YELLOW;
	return ZL_COLOR_RED;
}

/* Reasons named one a line after a batch; the CSV keeps every one. */
#define MAX_SKIP_REASONS 10

static void print_skips(const struct zl_batch_config *c, const struct zl_batch_rows *rows, size_t max, FILE *out)
{
	struct strvec reasons = STRVEC_INIT;
	struct strbuf *ops = xcalloc(c->ops.nr + 1, sizeof(*ops));
	size_t i, *n = xcalloc(c->ops.nr + 1, sizeof(*n));

	for (i = 0; i < c->ops.nr; i++) {
		const struct zl_batch_row *r = zl_batch_rows_last(rows, c->ops.v[i]);
		const char *why;
		long k;

		if (!r || !r->v[ZL_BCOL_STATUS] || strcmp(r->v[ZL_BCOL_STATUS], ZL_STATUS_SKIPPED))
			continue;
		why = r->v[ZL_BCOL_REASON] ? r->v[ZL_BCOL_REASON] : "no reason given";
		if ((k = strvec_find(&reasons, why)) < 0) {
			strvec_push(&reasons, why);
			k = (long)reasons.nr - 1;
			strbuf_init(&ops[k], 0);
		}
		strbuf_addf(&ops[k], "%s%s", n[k] ? ", " : "", c->ops.v[i]);
		n[k]++;
	}
	for (i = 0; i < reasons.nr; i++) {
		struct strbuf line = STRBUF_INIT;

		if (i < max) {
			strbuf_addf(&line, "skipped (%zu): %s: ", n[i], ops[i].buf);
			strbuf_add_printable(&line, reasons.v[i]);
			fprintf(out, "%s\n", line.buf);
		}
		strbuf_release(&line);
		strbuf_release(&ops[i]);
	}
	if (reasons.nr > max)
		fprintf(out, "... and %zu more reasons (ops_status.csv has them all)\n", reasons.nr - max);
	strvec_clear(&reasons);
	free(ops);
	free(n);
}

void zl_batch_print_skips(const struct zl_batch_config *c, FILE *out)
{
	struct zl_batch_rows rows = ZL_BATCH_ROWS_INIT;
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	char *path = zl_path_join(c->dir, ZL_BATCH_STATUS_FILE);
	size_t complete;

	if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL) &&
	    !zl_batch_rows_parse(text.buf, text.len, &rows, &complete, &err))
		print_skips(c, &rows, MAX_SKIP_REASONS, out);
	zl_batch_rows_release(&rows);
	strbuf_release(&text);
	strbuf_release(&err);
	free(path);
}

/* One line per device from workers/events.jsonl: how often a worker started, how long it took. */
static void print_workers(const struct zl_batch_config *c, FILE *out)
{
	char *path = zl_path_join(c->dir, "workers/events.jsonl");
	struct strbuf text = STRBUF_INIT, line = STRBUF_INIT;
	size_t d;

	if (strbuf_read_file(&text, path) <= 0)
		goto out;
	for (d = 0; d < c->devices.nr; d++) {
		const char *p = text.buf;
		long started = 0, ready = 0;

		strbuf_reset(&line);
		while (p && *p) {
			const char *nl = strchr(p, '\n');
			char *one = xstrndup(p, nl ? (size_t)(nl - p) : strlen(p));
			cJSON *ev = cJSON_Parse(one);
			const char *name = zl_json_path_string(ev, "event"), *dev = zl_json_path_string(ev, "device");

			if (name && dev && !strcmp(dev, c->devices.v[d])) {
				const cJSON *w = zl_json_path(ev, "wall_s");

				started += !strcmp(name, "started");
				if (!strcmp(name, "ready") && cJSON_IsNumber(w)) {
					strbuf_addf(&line, "%s%.1f s", ready ? ", " : "", w->valuedouble);
					ready++;
				}
			}
			cJSON_Delete(ev);
			free(one);
			p = nl ? nl + 1 : NULL;
		}
		if (started)
			fprintf(out, "worker on device %s: %ld started, %ld ready (start-up %s)\n", c->devices.v[d], started,
				ready, ready ? line.buf : "-");
	}
out:
	strbuf_release(&text);
	strbuf_release(&line);
	free(path);
}

void zl_batch_print_summary(const struct zl_batch_config *c, FILE *out, int use_color)
{
	struct zl_batch_rows rows = ZL_BATCH_ROWS_INIT;
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct zl_table t;
	char *path = zl_path_join(c->dir, ZL_BATCH_STATUS_FILE);
	static const char *const head[] = { "op", "status", "device", "attempt", "duration", "exit", "start",
					    "reason" };
	size_t i, complete;

	if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL))
		zl_batch_rows_parse(text.buf, text.len, &rows, &complete, &err);
	zl_table_init(&t, ZL_ARRAY_SIZE(head), 1ul << 4 | 1ul << 5);
	for (i = 0; i < ZL_ARRAY_SIZE(head); i++)
		zl_table_add(&t, head[i], ZL_COLOR_BOLD);
	for (i = 0; i < c->ops.nr; i++) {
		const struct zl_batch_row *r = zl_batch_rows_last(&rows, c->ops.v[i]);
		const char *st = r && r->v[ZL_BCOL_STATUS] ? r->v[ZL_BCOL_STATUS] : "not run";
		const char *reason = r && r->v[ZL_BCOL_REASON] ? r->v[ZL_BCOL_REASON] : "";

		zl_table_add(&t, c->ops.v[i], ZL_COLOR_NONE);
		zl_table_add(&t, st, r ? status_color(st) : ZL_COLOR_YELLOW);
		zl_table_add(&t, r && r->v[ZL_BCOL_DEVICE] ? r->v[ZL_BCOL_DEVICE] : "-", ZL_COLOR_NONE);
		zl_table_add(&t, r && r->v[ZL_BCOL_ATTEMPT] ? r->v[ZL_BCOL_ATTEMPT] : "-", ZL_COLOR_NONE);
		if (r && r->v[ZL_BCOL_DURATION_S])
			zl_table_addf(&t, ZL_COLOR_NONE, "%.1fs", strtod(r->v[ZL_BCOL_DURATION_S], NULL));
		else
			zl_table_add(&t, "-", ZL_COLOR_NONE);
		zl_table_add(&t, r && r->v[ZL_BCOL_EXIT_CODE] ? r->v[ZL_BCOL_EXIT_CODE] : "-", ZL_COLOR_NONE);
		/* "reused 3": the op ran in a worker after 3 others */
		if (r && r->v[ZL_BCOL_START] && !strcmp(r->v[ZL_BCOL_START], "reused"))
			zl_table_addf(&t, ZL_COLOR_NONE, "reused %s", r->v[ZL_BCOL_OPS_BEFORE] ? r->v[ZL_BCOL_OPS_BEFORE] : "?");
		else
			zl_table_add(&t, r && r->v[ZL_BCOL_START] ? r->v[ZL_BCOL_START] : "-", ZL_COLOR_NONE);
		/* keep the table readable: the CSV has the whole line */
		zl_table_addf(&t, ZL_COLOR_NONE, "%.72s%s", reason, strlen(reason) > 72 ? "…" : "");
	}
	fputc('\n', out);
	zl_table_print(&t, out, use_color);
	print_workers(c, out);
	zl_table_release(&t);
	zl_batch_rows_release(&rows);
	strbuf_release(&text);
	strbuf_release(&err);
	free(path);
}
