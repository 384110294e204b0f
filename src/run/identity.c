#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "zlbench/child.h"
#include "zlbench/env.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/identity.h"
#include "zlbench/json.h"
#include "zlbench/pyjson.h"
#include "zlbench/redact.h"
#include "zlbench/run.h"
#include "zlbench/runload.h"
#include "zlbench/tunercache.h"
#include "zlbench/util.h"
#include "zlbench/worker.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

/* Every backend's runs record these; the backend adds its vendor's own (backends/table.c). */
/* and pytest's variables that change what it runs (not PYTEST_CURRENT_TEST, which only reports) */
static const char *const env_prefixes[] = { "ZL_", "FLAGGEMS_", "GEMS_", "TRITON_", "MLIR_", "LLVM_",
					    "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
					    NULL };

/* An argv for the identity, redacted (redact.h: a --push URL's password, NAME=value of a secret NAME). */
static cJSON *argv_json(const char *const *argv)
{
	struct strvec sv = STRVEC_INIT;
	cJSON *a;

	zl_redact_argv(argv, &sv);
	a = zl_json_strvec(&sv);
	strvec_clear(&sv);
	return a;
}

/* A plugin's JSON file under <run>/plugins/, or JSON null. */
static cJSON *plugin_json(const char *run_dir, const char *name)
{
	char *path = xstrfmt("%s/plugins/%s", run_dir, name);
	struct strbuf text = STRBUF_INIT;
	cJSON *doc = NULL;

	/* the plugins write with json.dump: a NaN must not drop the whole file */
	if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL))
		doc = zl_json_parse_python(text.buf, text.len, NULL, NULL, NULL);
	strbuf_release(&text);
	free(path);
	return doc ? doc : cJSON_CreateNull();
}

static int running(const struct zl_run_ctx *c)
{
	return !strcmp(c->f.status, ZL_STATUS_RUNNING);
}

/* ISO 8601 UTC, or null when not known yet. */
static cJSON *utc_json(double epoch, int known)
{
	char stamp[32];

	if (!known)
		return cJSON_CreateNull();
	zl_utc_iso8601(stamp, epoch);
	return cJSON_CreateString(stamp);
}

static cJSON *number_json(double v, int known)
{
	return known ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static cJSON *device_json(const struct zl_run_ctx *c, const char *chosen)
{
	cJSON *d = cJSON_CreateObject();
	const struct zl_device *dev = NULL;
	long idx = -1;

	if (!zl_parse_long(chosen, &idx))
		dev = zl_devlist_find(&c->pf->devs, (int)idx);
	if (!d || zl_json_add_item(d, "index", number_json((double)idx, idx >= 0)) ||
	    zl_json_add_string(d, "name", dev ? dev->name : NULL) ||
	    zl_json_add_string(d, "uuid", dev ? dev->uuid : NULL) ||
	    zl_json_add_item(d, "memory_mib", number_json(dev ? (double)dev->memory_mib : 0,
							  dev && dev->memory_mib >= 0)) ||
	    zl_json_add_string(d, "driver", dev ? dev->driver : NULL)) {
		cJSON_Delete(d);
		return NULL;
	}
	return d;
}

/* The chosen devices, with what enumeration said of each (null where it said nothing). */
static cJSON *devices_json(const struct zl_run_ctx *c)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; a && i < c->s->devices.nr; i++)
		if (zl_json_add_item(a, NULL, device_json(c, c->s->devices.v[i]))) {
			cJSON_Delete(a);
			return NULL;
		}
	return a;
}

static cJSON *demo_json(const struct zl_run_ctx *c)
{
	char *demo = zl_demo_label(c->s->flaggems_dir);
	cJSON *v = demo ? cJSON_CreateString(demo) : cJSON_CreateNull();

	free(demo);
	return v;
}

static const char *autotune_mode(const struct zl_settings *s)
{
	return s->replay_from ? "replay" : s->autotune_records ? "record" : "off";
}

/* The run id of the replay source, so compare can name the pair after the directories move. */
static cJSON *replay_run_id(const char *dir)
{
	char *path;
	struct strbuf text = STRBUF_INIT;
	cJSON *doc = NULL, *out = NULL;

	if (!dir)
		return cJSON_CreateNull();
	path = zl_path_join(dir, "run_identity.json");
	if (!zl_read_file(&text, path, NULL, ZL_CAP_DOC, NULL) && (doc = cJSON_Parse(text.buf))) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(doc, "run_id");
		if (cJSON_IsString(id))
			out = cJSON_CreateString(id->valuestring);
	}
	cJSON_Delete(doc);
	strbuf_release(&text);
	free(path);
	return out ? out : cJSON_CreateNull();
}

/* FLAGGEMS_DB_URL set: the isolated run removed it from the child, a shared one did not count its database. */
static const char *db_url_note(const struct zl_settings *s)
{
	return !zl_tuner_db_url_set() ? NULL : s->isolate ? "removed" : "not counted";
}

/* Winners per tuner table, before and after the run (after: null while it runs). */
static cJSON *tuner_tables_json(const struct zl_run_facts *f)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; a && i < f->nr_tuner_tables; i++) {
		const struct zl_tuner_table_count *t = &f->tuner_tables[i];
		cJSON *row = cJSON_CreateObject();

		if (zl_json_add_item(a, NULL, row) || zl_json_add_string(row, "db", t->db) ||
		    zl_json_add_string(row, "name", t->name) ||
		    zl_json_add_item(row, "winners_before", number_json((double)t->before, t->before >= 0)) ||
		    zl_json_add_item(row, "winners_after", number_json((double)t->after, t->after >= 0))) {
			cJSON_Delete(a);
			return NULL;
		}
	}
	return a;
}

/* A JSON object handed down by batch or a scheduler through the environment, or null. */
static cJSON *env_object(enum zl_env_id var)
{
	const char *v = zl_env(var);
	cJSON *doc;

	if (!v)
		return cJSON_CreateNull();
	doc = cJSON_Parse(v);
	if (cJSON_IsObject(doc))
		return doc;
	cJSON_Delete(doc);
	doc = cJSON_CreateObject();
	if (doc && !cJSON_AddStringToObject(doc, "unparsed", v)) {
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

static int has_prefix_in(const char *s, const char *const *prefixes)
{
	for (; prefixes && *prefixes; prefixes++)
		if (zl_starts_with(s, *prefixes))
			return 1;
	return 0;
}

/* The child's environment as it recorded: the variables that change a run, secrets redacted. */
static cJSON *env_json(const struct strvec *child_env, const struct zl_backend *b)
{
	cJSON *o = cJSON_CreateObject();
	const char **envp = child_build_env(child_env);
	const char **e;
	int bad = !o;

	for (e = envp; !bad && *e; e++) {
		const char *eq = strchr(*e, '=');
		char *name, *shown;

		if (!eq || !(has_prefix_in(*e, env_prefixes) || has_prefix_in(*e, b->env_prefixes)))
			continue;
		name = xstrndup(*e, (size_t)(eq - *e));
		/* FLAGGEMS_DB_URL=postgresql://user:password@host/db */
		shown = zl_redact_env_value(name, eq + 1);
		bad = zl_json_add_string(o, name, shown);
		free(shown);
		free(name);
	}
	free(envp);
	if (bad) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* ---- the writer: one put_<kind> per kind of identity_fields.h ----------------------- */

struct writer {
	const struct zl_run_ctx *c;
	cJSON *root;
	cJSON *object;            /* the last OBJECT row's, which its members go into */
	const char *object_key;
	const char *plugin_file;  /* the plugin file PLUGIN rows read, and what it holds */
	cJSON *plugin_doc;
	int failed;               /* cJSON could not allocate: the whole document is dropped */
};

/* Attach item at key: a member of the current object, or of the root. */
static cJSON *put(struct writer *w, const char *key, cJSON *item)
{
	const char *dot = strchr(key, '.');
	cJSON *parent = w->root;

	if (dot) {
		size_t n = (size_t)(dot - key);

		/* an object's members follow its row; none when it could not be made */
		parent = w->object && !strncmp(key, w->object_key, n) && !w->object_key[n] ? w->object : NULL;
		key = dot + 1;
	}
	if (!parent) {
		cJSON_Delete(item);
		w->failed = 1;
		return NULL;
	}
	if (zl_json_add_item(parent, key, item)) {
		w->failed = 1;
		return NULL;
	}
	return item;
}

static void put_OBJECT(struct writer *w, const char *key, int unused)
{
	(void)unused;
	w->object = put(w, key, cJSON_CreateObject());
	w->object_key = key;
}

static void put_STR(struct writer *w, const char *key, const char *v)
{
	put(w, key, v ? cJSON_CreateString(v) : cJSON_CreateNull());
}

static void put_NUM(struct writer *w, const char *key, double v)
{
	put(w, key, cJSON_CreateNumber(v));
}

static void put_COUNT(struct writer *w, const char *key, long v)
{
	put(w, key, number_json((double)v, v >= 0));
}

static void put_BOOL(struct writer *w, const char *key, int v)
{
	put(w, key, cJSON_CreateBool(v));
}

static void put_MAYBE_BOOL(struct writer *w, const char *key, int v)
{
	put(w, key, v < 0 ? cJSON_CreateNull() : cJSON_CreateBool(v));
}

static void put_STRVEC(struct writer *w, const char *key, const struct strvec *sv)
{
	put(w, key, zl_json_strvec(sv));
}

static void put_JSON(struct writer *w, const char *key, cJSON *item)
{
	put(w, key, item);
}

/* The key of the same name in a plugin's file (read once for the rows that follow), or null. */
static void put_PLUGIN(struct writer *w, const char *key, const char *file)
{
	const char *leaf = strrchr(key, '.');
	const cJSON *v;

	if (!w->plugin_file || strcmp(w->plugin_file, file)) {
		cJSON_Delete(w->plugin_doc);
		w->plugin_doc = plugin_json(w->c->run_dir, file);
		w->plugin_file = file;
	}
	v = cJSON_IsObject(w->plugin_doc) ? cJSON_GetObjectItemCaseSensitive(w->plugin_doc, leaf ? leaf + 1 : key)
					  : NULL;
	put(w, key, v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
}

cJSON *zl_identity_build(const struct zl_run_ctx *c, struct strbuf *err)
{
	struct writer w = { c, cJSON_CreateObject(), NULL, NULL, NULL, NULL, 0 };

	if (!w.root) {
		zl_error(err, "out of memory building run_identity.json");
		return NULL;
	}
#define ZL_IDENTITY_FIELD(key, kind, value, record, member, column) put_##kind(&w, key, value);
#include "zlbench/identity_fields.h"
#undef ZL_IDENTITY_FIELD
	cJSON_Delete(w.plugin_doc);
	if (w.failed) {
		cJSON_Delete(w.root);
		zl_error(err, "out of memory building run_identity.json");
		return NULL;
	}
	return w.root;
}

int zl_identity_write(const struct zl_run_ctx *c, struct strbuf *err)
{
	cJSON *doc = zl_identity_build(c, err);
	char *path;
	int rc;

	if (!doc)
		return -1;
	path = zl_path_join(c->run_dir, "run_identity.json");
	rc = zl_json_write_atomic(path, doc, err);
	cJSON_Delete(doc);
	free(path);
	return rc;
}
