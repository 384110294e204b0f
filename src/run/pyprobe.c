#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "zlbench/child.h"
#include "zlbench/env.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/home.h"
#include "zlbench/pyprobe.h"
#include "zlbench/sha256.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

/* Importing, not only finding: a pytest whose __init__.py raises must fail preflight. */
static const char probe_script[] =
	"import sys, importlib.util as u\n"
	"s = u.find_spec('pytest')\n"
	"if s is None: sys.exit('ModuleNotFoundError: No module named pytest')\n"
	"import pytest\n"
	"try:\n from _pytest._version import version\nexcept Exception:\n version = getattr(pytest, '__version__', 'unknown')\n"
	"print(sys.version.split()[0]); print(version); print(getattr(pytest, '__file__', None) or s.origin or '')\n";

static const enum zl_env_id path_vars[] = { ZL_ENV_PYTHONPATH, ZL_ENV_PYTHONHOME, ZL_ENV_VIRTUAL_ENV };

void zl_pyprobe_release(struct zl_pyprobe *p)
{
	free(p->python_version);
	free(p->pytest_version);
	free(p->pytest_origin);
	p->python_version = p->pytest_version = p->pytest_origin = NULL;
	p->from_cache = 0;
}

static long long mtime_ns(const struct stat *st)
{
	return (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

/* The cache key, or NULL when the interpreter cannot be stat'ed. Caller frees. */
static char *cache_key(const char *python_path)
{
	char *real = zl_absolute_path(python_path);
	struct strbuf key = STRBUF_INIT;
	struct stat st;
	size_t i;

	if (stat(real, &st)) {
		free(real);
		return NULL;
	}
	strbuf_addf(&key, "%s|%llu|%lld|%lld", real, (unsigned long long)st.st_ino, (long long)st.st_size,
		    mtime_ns(&st));
	for (i = 0; i < sizeof(path_vars) / sizeof(path_vars[0]); i++)
		strbuf_addf(&key, "|%s=%s", zl_env_name(path_vars[i]),
			    zl_env_raw(path_vars[i]) ? zl_env_raw(path_vars[i]) : "");
	free(real);
	return strbuf_detach(&key, NULL);
}

static char *cache_path(const char *key)
{
	char hex[65], *home = zl_home_dir(), *path;

	if (!home)
		return NULL;
	zl_sha256_hex(key, strlen(key), hex);
	path = xstrfmt("%s/cache/pyprobe-%.16s.json", home, hex);
	free(home);
	return path;
}

static const char *jstring(const cJSON *o, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/*
 * 1 when a PYTHONPATH directory ahead of the cached pytest now holds another one:
 * the key has PYTHONPATH's text, not what its directories hold, and the import
 * would take the first.
 */
static int shadowed(const char *origin)
{
	static const char *const names[] = { "pytest/__init__.py", "pytest.py", NULL };
	const char *pp = zl_env(ZL_ENV_PYTHONPATH);
	char *copy, *p, *real_origin;
	int found = 0, reached = 0;

	if (!pp || !*pp)
		return 0;
	real_origin = realpath(origin, NULL);
	copy = xstrdup(pp);
	for (p = copy; p && !found && !reached;) {
		char *colon = strchr(p, ':');
		const char *const *n;

		if (colon)
			*colon = '\0';
		for (n = names; *n; n++) {
			char *cand = zl_path_join(*p ? p : ".", *n);
			char *real = realpath(cand, NULL);

			free(cand);
			if (!real)
				continue;
			if (real_origin && !strcmp(real, real_origin))
				reached = 1;
			else
				found = 1;
			free(real);
			break;
		}
		p = colon ? colon + 1 : NULL;
	}
	free(copy);
	free(real_origin);
	return found;
}

static int cache_read(const char *path, const char *key, struct zl_pyprobe *out)
{
	struct strbuf text = STRBUF_INIT;
	cJSON *doc = NULL;
	int hit = 0;

	if (path && !zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL) && (doc = cJSON_Parse(text.buf))) {
		const char *k = jstring(doc, "key"), *origin = jstring(doc, "pytest_origin");
		const char *om = jstring(doc, "origin_mtime_ns");
		struct stat st;
		char now[32];

		if (k && !strcmp(k, key) && origin && om && jstring(doc, "python_version") &&
		    jstring(doc, "pytest_version") && !stat(origin, &st) &&
		    snprintf(now, sizeof(now), "%lld", mtime_ns(&st)) > 0 && !strcmp(now, om) &&
		    !shadowed(origin)) {
			out->python_version = xstrdup(jstring(doc, "python_version"));
			out->pytest_version = xstrdup(jstring(doc, "pytest_version"));
			out->pytest_origin = xstrdup(origin);
			out->from_cache = 1;
			hit = 1;
		}
	}
	cJSON_Delete(doc);
	strbuf_release(&text);
	return hit;
}

/* A failed cache write only costs the next run a probe. */
static void cache_write(const char *path, const char *key, const struct zl_pyprobe *p)
{
	struct strbuf err = STRBUF_INIT;
	cJSON *doc = cJSON_CreateObject();
	char *dir = NULL, *slash, *text = NULL;
	struct stat st;
	char mtime[32];

	if (!path || !doc || !p->pytest_origin || stat(p->pytest_origin, &st))
		goto out;
	/* a string: a double holds ns since 1970 only to ~256 ns, and cJSON prints it to 15 digits */
	if (snprintf(mtime, sizeof(mtime), "%lld", mtime_ns(&st)) <= 0)
		goto out;
	if (!cJSON_AddStringToObject(doc, "key", key) ||
	    !cJSON_AddStringToObject(doc, "python_version", p->python_version) ||
	    !cJSON_AddStringToObject(doc, "pytest_version", p->pytest_version) ||
	    !cJSON_AddStringToObject(doc, "pytest_origin", p->pytest_origin) ||
	    !cJSON_AddStringToObject(doc, "origin_mtime_ns", mtime))
		goto out;
	dir = xstrdup(path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	text = cJSON_PrintUnformatted(doc);
	if (text && !zl_mkdir_p(dir, &err))
		zl_write_file_atomic(path, text, strlen(text), &err);
out:
	free(text);
	free(dir);
	cJSON_Delete(doc);
	strbuf_release(&err);
}

int zl_pyprobe(const char *python_path, struct zl_pyprobe *out, struct strbuf *err)
{
	const char *argv[] = { python_path, "-c", probe_script, NULL };
	struct strbuf text = STRBUF_INIT;
	char *key = cache_key(python_path), *path = key ? cache_path(key) : NULL;
	char *line[3] = { NULL, NULL, NULL }, *p;
	int code = 0, i, rc = -1;

	if (key && cache_read(path, key, out)) {
		rc = 0;
		goto done;
	}
	if (zl_capture(argv, NULL, 60, &text, &code, err))
		goto done;
	if (code) {
		strbuf_rtrim(&text);
		p = strrchr(text.buf, '\n');
		zl_error(err, "'%s' cannot import pytest (exit %d): %s", python_path, code, p ? p + 1 : text.buf);
		goto done;
	}
	for (i = 0, p = text.buf; i < 3 && p; i++) {
		char *nl = strchr(p, '\n');

		line[i] = p;
		if (nl)
			*nl = '\0';
		p = nl ? nl + 1 : NULL;
	}
	if (!line[1]) {
		zl_error(err, "'%s' answered the pytest probe with '%s'", python_path, text.buf);
		goto done;
	}
	out->python_version = xstrdup(line[0]);
	out->pytest_version = xstrdup(line[1]);
	out->pytest_origin = line[2] && *line[2] ? xstrdup(line[2]) : NULL;
	if (key)
		cache_write(path, key, out);
	rc = 0;
done:
	free(key);
	free(path);
	strbuf_release(&text);
	return rc;
}
