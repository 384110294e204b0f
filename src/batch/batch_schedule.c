/* <batch_dir>/schedule.jsonl: what ran where and when (batch_schedule.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "zlbench/batch_schedule.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/json.h"
#include "zlbench/runload.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

static int add_int(cJSON *o, const char *key, int v, int null_below)
{
	return v < null_below ? (cJSON_AddNullToObject(o, key) ? 0 : -1) : zl_json_add_number(o, key, v);
}

int zl_schedule_append(const char *batch_dir, const struct zl_sched_line *l, struct strbuf *err)
{
	char *path = zl_path_join(batch_dir, ZL_BATCH_SCHEDULE_FILE), *text = NULL;
	cJSON *o = cJSON_CreateObject();
	char started[32], finished[32];
	struct strbuf line = STRBUF_INIT;
	int fd = -1, rc = -1;

	zl_utc_iso8601(started, l->start_epoch);
	zl_utc_iso8601(finished, l->end_epoch);
	if (!o || zl_json_add_string(o, "op", l->op) || add_int(o, "attempt", l->attempt, 1) ||
	    zl_json_add_string(o, "role", l->role) || add_int(o, "shard", l->shard, 1) ||
	    zl_json_add_string(o, "device", l->device) || zl_json_add_string(o, "started_at", started) ||
	    zl_json_add_string(o, "finished_at", finished) ||
	    zl_json_add_number(o, "start_epoch", floor(l->start_epoch * 1000) / 1000) ||
	    zl_json_add_number(o, "end_epoch", floor(l->end_epoch * 1000) / 1000) ||
	    zl_json_add_number(o, "wall_s", floor((l->end_epoch - l->start_epoch) * 1000) / 1000) ||
	    zl_json_add_string(o, "status", l->status) || add_int(o, "exit_code", l->exit_code, 0) ||
	    zl_json_add_string(o, "run_dir", l->run_dir) || zl_json_add_string(o, "log", l->log) ||
	    !(text = cJSON_PrintUnformatted(o))) {
		zl_error(err, "cannot build a line of '%s': out of memory", path);
		goto out;
	}
	strbuf_addstr(&line, text);
	strbuf_addch(&line, '\n');
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || zl_write_all(fd, line.buf, line.len)) {
		zl_error(err, "cannot append to '%s': %s", path, strerror(errno));
		goto out;
	}
	if (close(fd)) {
		fd = -1;
		zl_error(err, "cannot append to '%s': %s", path, strerror(errno));
		goto out;
	}
	fd = -1;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	cJSON_free(text);
	cJSON_Delete(o);
	strbuf_release(&line);
	free(path);
	return rc;
}

void zl_schedule_init(struct zl_schedule *s)
{
	memset(s, 0, sizeof(*s));
}

void zl_schedule_release(struct zl_schedule *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		free(s->v[i].op);
		free(s->v[i].role);
		free(s->v[i].device);
		free(s->v[i].status);
		free(s->v[i].run_dir);
	}
	free(s->v);
	zl_schedule_init(s);
}

static int int_of(const cJSON *o, const char *key, int null_value)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	return zl_json_int(it, null_value);
}

static double number_of(const cJSON *o, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(it) ? it->valuedouble : NAN;
}

int zl_schedule_load(const char *batch_dir, struct zl_schedule *s, struct strbuf *err)
{
	char *path = zl_path_join(batch_dir, ZL_BATCH_SCHEDULE_FILE), *line, *next;
	struct strbuf text = STRBUF_INIT;
	int rc = 0;

	if (!zl_is_file(path)) {
		rc = access(path, F_OK) ? 1 : zl_error(err, "'%s' is not a regular file", path);
		goto out;
	}
	if (strbuf_read_file(&text, path) < 0) {
		rc = zl_error(err, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	for (line = text.buf; line && *line; line = next) {
		cJSON *o;
		struct zl_sched_entry *e;
		const char *op;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else if (*line)
			s->skipped++; /* no line end: cut off while written */
		if (!*line || !next)
			continue;
		o = cJSON_Parse(line);
		op = zl_json_path_string(o, "op");
		if (!cJSON_IsObject(o) || !op || !isfinite(number_of(o, "start_epoch")) ||
		    !isfinite(number_of(o, "end_epoch"))) {
			s->skipped++;
			cJSON_Delete(o);
			continue;
		}
		ALLOC_GROW(s->v, s->nr + 1, s->alloc);
		e = &s->v[s->nr++];
		memset(e, 0, sizeof(*e));
		e->op = xstrdup(op);
		e->role = zl_json_path_dup(o, "role");
		e->device = zl_json_path_dup(o, "device");
		e->status = zl_json_path_dup(o, "status");
		e->run_dir = zl_json_path_dup(o, "run_dir");
		e->attempt = int_of(o, "attempt", 1);
		e->shard = int_of(o, "shard", 0);
		e->exit_code = int_of(o, "exit_code", -1);
		e->start_epoch = number_of(o, "start_epoch");
		e->end_epoch = number_of(o, "end_epoch");
		cJSON_Delete(o);
	}
out:
	strbuf_release(&text);
	free(path);
	return rc;
}
