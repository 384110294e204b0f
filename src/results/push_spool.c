/* Push's spool: payloads that could not be delivered, one file each, resent by a flush. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/home.h"
#include "zlbench/push.h"
#include "zlbench/push_doc.h"
#include "zlbench/push_spool.h"
#include "zlbench/push_transport.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* Spool files: a header line and the payload line (JSON Lines). */
#define ZL_SPOOL_SUFFIX ".jsonl"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The spool directory's path (not created). Caller frees; NULL when unknown. */
char *zl_spool_path(const struct zl_push_opts *o)
{
	char *home, *dir;

	if (o->spool_dir)
		return xstrdup(o->spool_dir);
	home = zl_home_dir();
	if (!home)
		return NULL;
	dir = zl_path_join(home, "spool");
	free(home);
	return dir;
}

static int spool_ensure(const struct zl_push_opts *o, char **out, struct strbuf *err)
{
	*out = NULL;
	if (!o->spool_dir) {
		if (zl_home_subdir_ensure("spool", out, err))
			return -1;
	} else {
		if (zl_mkdir_p(o->spool_dir, err))
			return -1;
		*out = xstrdup(o->spool_dir);
	}
	/* Payloads and URLs (which may carry user:password) are for this user only. */
	if (chmod(*out, 0700))
		zl_print_warning("cannot make spool '%s' private: %s", *out, strerror(errno));
	return 0;
}

/* A file-name-safe copy of a run name. */
static void add_safe_name(struct strbuf *sb, const char *name)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	size_t i;

	for (i = 0; name[i] && i < 80; i++)
		strbuf_addch(sb, strchr(ok, name[i]) ? name[i] : '_');
}

/*
 * Make a rename into dir survive a crash: the file's data is synced by the
 * atomic write, the directory entry only by syncing the directory.
 */
static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		zl_print_warning("cannot open spool '%s' to sync it: %s", dir, strerror(errno));
		return;
	}
	if (fsync(fd))
		zl_print_warning("cannot sync spool '%s': %s", dir, strerror(errno));
	if (close(fd))
		zl_print_warning("cannot close spool '%s': %s", dir, strerror(errno));
}

/*
 * Spool (url, doc) as two lines: {"schema":...,"url":...} and the document as sent,
 * so that resending it sends the same bytes. *path_out gets the file (caller frees).
 */
int zl_spool_write(const struct zl_push_opts *o, const char *url, const char *name,
		   const char *doc, char **path_out, struct strbuf *err)
{
	char *dir = NULL, *header = NULL, *shown;
	char stamp[32];
	struct strbuf file = STRBUF_INIT, text = STRBUF_INIT;
	cJSON *root = cJSON_CreateObject();
	time_t now = time(NULL);
	struct tm tm;
	int rc = -1;

	*path_out = NULL;
	/* the URL without its secrets (redact.h): a flush takes them from --url or ZL_PUSH_URL again */
	shown = zl_push_display_url(url);
	if (!root || !cJSON_AddStringToObject(root, "schema", ZL_SPOOL_SCHEMA) ||
	    !cJSON_AddStringToObject(root, "url", shown) ||
	    (strcmp(shown, url) && !cJSON_AddTrueToObject(root, "url_redacted")) ||
	    !(header = cJSON_PrintUnformatted(root))) {
		zl_error(err, "out of memory building the spool file for '%s'", name);
		goto out;
	}
	strbuf_addf(&text, "%s\n%s\n", header, doc);
	if (spool_ensure(o, &dir, err))
		goto out;
	if (!gmtime_r(&now, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm))
		stamp[0] = '\0';
	/* Time first so that names sort oldest first; pid and random bits keep them unique. */
	strbuf_addf(&file, "%s/%s-", dir, stamp);
	add_safe_name(&file, name);
	strbuf_addf(&file, "-%ld-%08x" ZL_SPOOL_SUFFIX, (long)getpid(), zl_random_u32());
	if (zl_write_file_atomic_mode(file.buf, text.buf, text.len, 0600, err))
		goto out;
	sync_dir(dir);
	*path_out = strbuf_detach(&file, NULL);
	rc = 0;
out:
	if (header)
		cJSON_free(header);
	cJSON_Delete(root);
	strbuf_release(&file);
	strbuf_release(&text);
	free(dir);
	free(shown);
	return rc;
}

/* The spool's payload files, sorted = oldest first. */
int zl_spool_files(const char *dir, struct strvec *out, struct strbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d) {
		if (errno == ENOENT)
			return 0;
		return zl_error(err, "cannot read spool directory '%s': %s", dir, strerror(errno));
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && zl_ends_with(de->d_name, ZL_SPOOL_SUFFIX))
			strvec_pushf(out, "%s/%s", dir, de->d_name);
	closedir(d);
	if (out->nr)
		qsort(out->v, out->nr, sizeof(*out->v), cmp_str);
	return 0;
}

void zl_spooled_release(struct zl_spooled *s)
{
	free(s->url);
	free(s->name);
	free(s->body);
	memset(s, 0, sizeof(*s));
}

int zl_spool_read(const char *path, struct zl_spooled *s, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	cJSON *header = NULL, *payload = NULL, *url, *schema, *run_id;
	char *nl;
	int rc = -1;

	memset(s, 0, sizeof(*s));
	if (zl_read_file(&sb, path, "spool file", ZL_CAP_LARGE, err)) {
		strbuf_release(&sb);
		return -1;
	}
	strbuf_rtrim(&sb);
	nl = strchr(sb.buf, '\n');
	if (nl) {
		header = cJSON_ParseWithLength(sb.buf, (size_t)(nl - sb.buf));
		payload = cJSON_Parse(nl + 1);
	}
	schema = cJSON_GetObjectItemCaseSensitive(header, "schema");
	url = cJSON_GetObjectItemCaseSensitive(header, "url");
	if (!cJSON_IsString(schema) || strcmp(schema->valuestring, ZL_SPOOL_SCHEMA) ||
	    !cJSON_IsString(url) || !cJSON_IsObject(payload)) {
		zl_error(err, "'%s' is not a zlbench spool file (a {\"schema\":\"%s\",\"url\":...} line, "
			 "then the JSON payload)", path, ZL_SPOOL_SCHEMA);
		goto out;
	}
	s->url = xstrdup(url->valuestring);
	s->url_redacted = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(header, "url_redacted"));
	s->body = xstrdup(nl + 1);
	run_id = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(payload, "identity"),
						  "run_id");
	s->name = cJSON_IsString(run_id) ? xstrdup(run_id->valuestring) : zl_path_base_name(path);
	rc = 0;
out:
	cJSON_Delete(header);
	cJSON_Delete(payload);
	strbuf_release(&sb);
	return rc;
}

long zl_push_spool_count(const struct zl_push_opts *o)
{
	struct strbuf err = STRBUF_INIT;
	struct strvec files = STRVEC_INIT;
	char *dir = zl_spool_path(o);
	long n = -1;

	if (dir && !zl_spool_files(dir, &files, &err))
		n = (long)files.nr;
	strvec_clear(&files);
	strbuf_release(&err);
	free(dir);
	return n;
}

int zl_push_list_spool(const struct zl_push_opts *o, FILE *out, size_t *count, struct strbuf *err)
{
	struct strvec files = STRVEC_INIT;
	char *dir = zl_spool_path(o);
	size_t i;

	*count = 0;
	if (!dir)
		return zl_error(err, "cannot locate the spool: set ZL_HOME or HOME");
	if (zl_spool_files(dir, &files, err)) {
		free(dir);
		return -1;
	}
	for (i = 0; i < files.nr; i++) {
		struct zl_spooled s;
		struct strbuf why = STRBUF_INIT;

		if (zl_spool_read(files.v[i], &s, &why)) {
			fprintf(out, "%s\tunreadable\t%s\n", files.v[i], why.buf);
		} else {
			char *shown = zl_push_display_url(s.url);
			fprintf(out, "%s\t%s\t%s\n", files.v[i], s.name, shown);
			free(shown);
		}
		zl_spooled_release(&s);
		strbuf_release(&why);
	}
	*count = files.nr;
	strvec_clear(&files);
	free(dir);
	return 0;
}
