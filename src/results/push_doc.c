/* The push document of a run directory, and the run directories below a batch directory. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/json.h"
#include "zlbench/push.h"
#include "zlbench/push_doc.h"
#include "zlbench/pyjson.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* A batch directory nests run directories at most this deep. */
#define BATCH_SEARCH_DEPTH 3

/*
 * Read path into text as one compact line of strict JSON holding an object, its
 * numbers byte for byte as written (cJSON's re-print would round them). Returns
 * 0, 1 when the file is missing and optional, -1 on error. *parsed (when asked
 * for) gets the parsed object; the caller deletes it.
 */
static int read_json_object(const char *path, int optional, struct strbuf *text, cJSON **parsed,
			    struct strbuf *err)
{
	struct strbuf raw = STRBUF_INIT, why = STRBUF_INIT;
	size_t replaced;
	cJSON *j;

	if (zl_read_file(&raw, path, NULL, ZL_CAP_LARGE, err)) {
		int saved = errno;
		strbuf_release(&raw);
		if (optional && saved == ENOENT) {
			strbuf_reset(err);
			return 1;
		}
		return -1;
	}
	/* the text is sent as read: it must be one JSON value and nothing else (no NUL, no tail) */
	j = zl_json_parse_python(raw.buf, raw.len, text, &replaced, &why);
	strbuf_release(&raw);
	if (!j) {
		zl_error(err, "'%s' is %s", path, why.buf);
		strbuf_release(&why);
		return -1;
	}
	strbuf_release(&why);
	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		return zl_error(err, "'%s' does not hold a JSON object", path);
	}
	if (replaced)
		zl_print_warning("'%s': %zu NaN/Infinity value(s) sent as null (not valid JSON)",
				 path, replaced);
	/* JSON is UTF-8: a byte that is not goes as U+FFFD, or the collector refuses the document */
	strbuf_addbuf(&raw, text);
	strbuf_reset(text);
	replaced = zl_utf8_make_valid(text, raw.buf, raw.len);
	strbuf_release(&raw);
	if (replaced)
		zl_print_warning("'%s': %zu byte%s that %s not UTF-8 sent as U+FFFD", path, replaced,
				 replaced == 1 ? "" : "s", replaced == 1 ? "was" : "were");
	if (parsed)
		*parsed = j;
	else
		cJSON_Delete(j);
	return 0;
}

int zl_push_build_document(const char *run_dir, char **doc, char **name, struct strbuf *err)
{
	char *id_path = zl_path_join(run_dir, "run_identity.json");
	char *res_path = zl_path_join(run_dir, "results.json");
	struct strbuf identity = STRBUF_INIT, results = STRBUF_INIT, out = STRBUF_INIT;
	cJSON *parsed = NULL, *f;
	int rc = -1, have_results;

	*doc = NULL;
	*name = NULL;
	if (read_json_object(id_path, 0, &identity, &parsed, err))
		goto out;
	f = cJSON_GetObjectItemCaseSensitive(parsed, "run_id");
	*name = cJSON_IsString(f) && f->valuestring[0] ? xstrdup(f->valuestring) : zl_path_base_name(run_dir);
	f = cJSON_GetObjectItemCaseSensitive(parsed, "status");
	/* A running run's identity is a draft: pushing it would store a wrong record. */
	if (cJSON_IsString(f) && !strcmp(f->valuestring, "running")) {
		zl_error(err, "run '%s' is still running (status \"running\" in '%s'); not pushed",
			 *name, id_path);
		goto out;
	}
	have_results = read_json_object(res_path, 1, &results, NULL, err);
	if (have_results < 0)
		goto out;
	strbuf_addstr(&out, "{\"schema\":\"" ZL_PUSH_SCHEMA "\",\"identity\":");
	strbuf_addbuf(&out, &identity);
	strbuf_addstr(&out, ",\"results\":");
	strbuf_addstr(&out, have_results == 0 ? results.buf : "null");
	strbuf_addch(&out, '}');
	*doc = strbuf_detach(&out, NULL);
	rc = 0;
out:
	if (rc) {
		free(*name);
		*name = NULL;
	}
	cJSON_Delete(parsed);
	strbuf_release(&identity);
	strbuf_release(&results);
	strbuf_release(&out);
	free(id_path);
	free(res_path);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int zl_push_has_identity(const char *dir)
{
	char *p = zl_path_join(dir, "run_identity.json");
	int yes = zl_is_file(p);

	free(p);
	return yes;
}

/* Subdirectories of dir (not links, not hidden), sorted. */
static int list_subdirs(const char *dir, struct strvec *out, struct strbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct strvec names = STRVEC_INIT;
	size_t i;

	if (!d)
		return zl_error(err, "cannot read directory '%s': %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		struct stat st;
		char *p;

		if (de->d_name[0] == '.')
			continue;
		p = zl_path_join(dir, de->d_name);
		if (!lstat(p, &st) && S_ISDIR(st.st_mode))
			strvec_push(&names, p);
		free(p);
	}
	closedir(d);
	if (names.nr)
		qsort(names.v, names.nr, sizeof(*names.v), cmp_str);
	for (i = 0; i < names.nr; i++)
		strvec_push(out, names.v[i]);
	strvec_clear(&names);
	return 0;
}

/*
 * A batch's warm-up shard (warmup.role "shard"): a record run over a slice of the
 * shapes, whose figures the op's timed run supersedes. An unreadable identity is
 * not one: pushing it reports the damage.
 */
static int is_warmup_shard(const char *dir)
{
	char *path = zl_path_join(dir, "run_identity.json");
	struct strbuf text = STRBUF_INIT;
	cJSON *id = NULL;
	const char *role;
	int shard;

	if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL))
		id = cJSON_ParseWithLength(text.buf, text.len);
	role = id ? zl_json_path_string(id, "warmup.role") : NULL;
	shard = role && !strcmp(role, "shard");
	cJSON_Delete(id);
	strbuf_release(&text);
	free(path);
	return shard;
}

/* Run directories below dir, in name order; warm-up shards are counted in *skipped. */
int zl_push_find_runs(const char *dir, int depth, struct strvec *runs, size_t *skipped,
		      struct strbuf *err)
{
	struct strvec subs = STRVEC_INIT;
	size_t i;
	int rc = 0;

	if (list_subdirs(dir, &subs, err))
		return -1;
	for (i = 0; i < subs.nr && !rc; i++) {
		if (zl_push_has_identity(subs.v[i])) {
			if (is_warmup_shard(subs.v[i]))
				(*skipped)++;
			else
				strvec_push(runs, subs.v[i]);
		} else if (depth < BATCH_SEARCH_DEPTH) {
			rc = zl_push_find_runs(subs.v[i], depth + 1, runs, skipped, err);
		}
	}
	strvec_clear(&subs);
	return rc;
}
