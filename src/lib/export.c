/* --json-out, --csv-out, --md-out: the exports written atomically (include/zlbench/export.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "zlbench/error.h"
#include "zlbench/export.h"
#include "zlbench/fsutil.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

static const char *const option_names[] = {
	[ZL_EXPORT_JSON] = "--json-out",
	[ZL_EXPORT_CSV] = "--csv-out",
	[ZL_EXPORT_MD] = "--md-out",
};

const char *zl_export_option(enum zl_export_format f)
{
	return (size_t)f < ZL_ARRAY_SIZE(option_names) ? option_names[f] : "?";
}

/* The directory path is in: "." for a bare name. The caller frees. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

int zl_exports_check(const struct zl_exports *e, struct strbuf *err)
{
	size_t f;

	for (f = 0; f < ZL_EXPORT__COUNT; f++) {
		const char *path = e->path[f];
		struct stat st;
		char *dir;
		int ok;

		if (!path)
			continue;
		if (!*path || path[strlen(path) - 1] == '/')
			return zl_error(err, "invalid value '%s' for %s: a file name", path, option_names[f]);
		if (!stat(path, &st)) {
			if (!S_ISREG(st.st_mode))
				return zl_error(err, "%s '%s' is not a regular file", option_names[f], path);
			continue;
		}
		if (errno != ENOENT)
			return zl_error(err, "%s '%s': %s", option_names[f], path, strerror(errno));
		dir = dir_of(path);
		ok = zl_is_dir(dir);
		if (!ok)
			zl_error(err, "%s '%s': no directory '%s'", option_names[f], path, dir);
		free(dir);
		if (!ok)
			return -1;
	}
	return 0;
}

int zl_exports_write(const struct zl_exports *e, zl_export_fn render, const void *data, struct strbuf *err)
{
	struct strbuf doc = STRBUF_INIT, why = STRBUF_INIT;
	size_t f;
	int ret = 0;

	for (f = 0; !ret && f < ZL_EXPORT__COUNT; f++) {
		if (!e->path[f])
			continue;
		strbuf_reset(&doc);
		strbuf_reset(&why);
		if (render((enum zl_export_format)f, data, &doc, &why) ||
		    zl_write_file_atomic(e->path[f], doc.buf, doc.len, &why))
			ret = zl_error(err, "%s: %s", option_names[f], why.buf);
	}
	strbuf_release(&doc);
	strbuf_release(&why);
	return ret;
}
