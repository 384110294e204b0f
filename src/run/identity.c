#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "zlbench/child.h"
#include "zlbench/error.h"
#include "zlbench/fsutil.h"
#include "zlbench/identity.h"
#include "zlbench/json.h"
#include "zlbench/pyjson.h"
#include "zlbench/runload.h"
#include "zlbench/tunercache.h"
#include "zlbench/util.h"
#include "zlbench/worker.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

static const char *const secret_words[] = { "TOKEN", "SECRET", "PASSWORD", "KEY", NULL };
/* Every backend's runs record these; the backend adds its vendor's own (backends/table.c). */
/* and pytest's variables that change what it runs (not PYTEST_CURRENT_TEST, which only reports) */
static const char *const env_prefixes[] = { "ZL_", "FLAGGEMS_", "GEMS_", "TRITON_", "MLIR_", "LLVM_",
					    "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
					    NULL };

int zl_env_name_is_secret(const char *name)
{
	const char *const *w;
	char *upper = xstrdup(name), *p;
	int secret = 0;

	/* ZL_api_token is as secret as ZL_API_TOKEN */
	for (p = upper; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	for (w = secret_words; *w && !secret; w++)
		secret = strstr(upper, *w) != NULL;
	free(upper);
	return secret;
}

char *zl_redact_url_credentials(const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = text, *scheme;

	while ((scheme = strstr(p, "://"))) {
		const char *host = scheme + 3, *end = host, *at = NULL;

		/* the authority ends at the path, query or fragment */
		while (*end && !strchr("/?#", *end) && *end != ' ') {
			if (*end == '@')
				at = end;
			end++;
		}
		strbuf_add(&sb, p, (size_t)(host - p));
		if (at) {
			strbuf_addstr(&sb, "<redacted>");
			host = at;
		}
		strbuf_add(&sb, host, (size_t)(end - host));
		p = end;
	}
	strbuf_addstr(&sb, p);
	return strbuf_detach(&sb, NULL);
}

/* cJSON reports allocation failure by NULL; the whole document is then dropped. */
struct jb {
	int failed;
};

static cJSON *add(struct jb *jb, cJSON *obj, const char *key, cJSON *item)
{
	if (zl_json_add_item(obj, key, item)) {
		jb->failed = 1;
		return NULL;
	}
	return item;
}

static void add_str(struct jb *jb, cJSON *obj, const char *key, const char *v)
{
	add(jb, obj, key, v ? cJSON_CreateString(v) : cJSON_CreateNull());
}

static void add_num(struct jb *jb, cJSON *obj, const char *key, double v, int known)
{
	add(jb, obj, key, known ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

static void add_bool(struct jb *jb, cJSON *obj, const char *key, int v)
{
	add(jb, obj, key, cJSON_CreateBool(v));
}

/* An argv for the identity: user:password in any URL in it is redacted (--push URL). */
static cJSON *argv_json(const char *const *argv)
{
	struct strvec sv = STRVEC_INIT;
	cJSON *a;

	for (; argv && *argv; argv++) {
		char *shown = zl_redact_url_credentials(*argv);
		strvec_push(&sv, shown);
		free(shown);
	}
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

static cJSON *devices_json(struct jb *jb, const struct zl_settings *s, const struct zl_preflight *pf)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; a && i < s->devices.nr; i++) {
		cJSON *d = cJSON_CreateObject();
		const struct zl_device *dev = NULL;
		long idx = -1;

		if (!d || !cJSON_AddItemToArray(a, d)) {
			cJSON_Delete(d);
			jb->failed = 1;
			break;
		}
		if (!zl_parse_long(s->devices.v[i], &idx))
			dev = zl_devlist_find(&pf->devs, (int)idx);
		add_num(jb, d, "index", (double)idx, idx >= 0);
		add_str(jb, d, "name", dev ? dev->name : NULL);
		add_str(jb, d, "uuid", dev ? dev->uuid : NULL);
		add_num(jb, d, "memory_mib", dev ? (double)dev->memory_mib : 0, dev && dev->memory_mib >= 0);
		add_str(jb, d, "driver", dev ? dev->driver : NULL);
	}
	return a;
}

static int has_prefix_in(const char *s, const char *const *prefixes)
{
	for (; prefixes && *prefixes; prefixes++)
		if (zl_starts_with(s, *prefixes))
			return 1;
	return 0;
}

static cJSON *env_json(struct jb *jb, const struct strvec *child_env, const struct zl_backend *b)
{
	cJSON *o = cJSON_CreateObject();
	const char **envp = child_build_env(child_env);
	const char **e;

	for (e = envp; o && *e; e++) {
		const char *eq = strchr(*e, '=');
		char *name;

		if (!eq || !(has_prefix_in(*e, env_prefixes) || has_prefix_in(*e, b->env_prefixes)))
			continue;
		name = xstrndup(*e, (size_t)(eq - *e));
		if (zl_env_name_is_secret(name)) {
			add_str(jb, o, name, "<redacted>");
		} else {
			/* FLAGGEMS_DB_URL=postgresql://user:password@host/db */
			char *shown = zl_redact_url_credentials(eq + 1);
			add_str(jb, o, name, shown);
			free(shown);
		}
		free(name);
	}
	free(envp);
	return o;
}

/* Winners per tuner table, before and after the run (after: null while it runs). */
static cJSON *tuner_tables_json(struct jb *jb, const struct zl_run_facts *f)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; a && i < f->nr_tuner_tables; i++) {
		const struct zl_tuner_table_count *c = &f->tuner_tables[i];
		cJSON *row = cJSON_CreateObject();

		if (!row || !cJSON_AddItemToArray(a, row)) {
			cJSON_Delete(row);
			jb->failed = 1;
			break;
		}
		add_str(jb, row, "db", c->db);
		add_str(jb, row, "name", c->name);
		add_num(jb, row, "winners_before", (double)c->before, c->before >= 0);
		add_num(jb, row, "winners_after", (double)c->after, c->after >= 0);
	}
	return a;
}

/* The run id of the replay source, so compare can name the pair after the directories move. */
static cJSON *replay_run_id(const char *dir)
{
	char *path = zl_path_join(dir, "run_identity.json");
	struct strbuf text = STRBUF_INIT;
	cJSON *doc = NULL, *out = NULL;

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

/* A JSON object handed down by batch or a scheduler through the environment, or null. */
static cJSON *env_object(const char *name)
{
	const char *v = getenv(name);
	cJSON *doc;

	if (!v || !*v)
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

cJSON *zl_identity_build(const struct zl_run_ctx *c, struct strbuf *err)
{
	const struct zl_settings *s = c->s;
	const struct zl_preflight *pf = c->pf;
	const struct zl_plan *plan = &c->plan;
	const struct zl_run_facts *f = &c->f;
	struct jb jb = { 0 };
	cJSON *root = cJSON_CreateObject(), *o;
	char started[32], finished[32];
	const char *op = pf->nodes.op ? pf->nodes.op : pf->nodes.marker;
	int running = !strcmp(f->status, "running");

	if (!root) {
		zl_error(err, "out of memory building run_identity.json");
		return NULL;
	}
	zl_utc_iso8601(started, f->started_epoch);
	zl_utc_iso8601(finished, f->finished_epoch);

	add_num(&jb, root, "schema_version", ZL_IDENTITY_SCHEMA_VERSION, 1);
	add_str(&jb, root, "run_id", f->run_id);
	add_str(&jb, root, "zlbench_version", ZL_VERSION_STRING);
	add_str(&jb, root, "started_at", started);
	add_str(&jb, root, "finished_at", running ? NULL : finished);
	add_num(&jb, root, "duration_s", f->finished_epoch - f->started_epoch, !running);
	add_str(&jb, root, "host", f->host);
	add(&jb, root, "argv", argv_json(c->self_argv));
	add(&jb, root, "child_argv", argv_json(c->child_argv.v));
	add_str(&jb, root, "backend", s->backend->name);
	add_str(&jb, root, "backend_source", zl_source_name(s->v[ZL_SET_BACKEND].source));
	add_str(&jb, root, "vendor", s->backend->vendor_name);
	add(&jb, root, "devices", devices_json(&jb, s, pf));
	add_bool(&jb, root, "devices_verified", pf->devs.available);
	add_str(&jb, root, "devices_how", pf->devs.how);
	if ((o = add(&jb, root, "visibility", cJSON_CreateObject()))) {
		add_str(&jb, o, "variable", s->backend->visibility_var);
		add_str(&jb, o, "value", f->visibility_value);
	}
	add_str(&jb, root, "level", s->level);
	add_str(&jb, root, "level_source", zl_source_name(s->v[ZL_SET_LEVEL].source));
	add_str(&jb, root, "shape_mode", s->shape_mode_file ? "file" : "upstream");
	if ((o = add(&jb, root, "shape_file", cJSON_CreateObject()))) {
		add_str(&jb, o, "path", pf->shape_source);
		add_str(&jb, o, "sha256", pf->shape_sha256[0] ? pf->shape_sha256 : NULL);
		add_num(&jb, o, "shapes_for_op", (double)pf->shapes_for_op, pf->shapes_for_op >= 0);
	}
	add(&jb, root, "test_node", zl_json_strvec(&pf->nodes.nodes));
	add_str(&jb, root, "marker", pf->nodes.marker);
	add_str(&jb, root, "op", op);
	add_str(&jb, root, "flaggems_mode", "kernel");
	if ((o = add(&jb, root, "flaggems", cJSON_CreateObject()))) {
		char *demo = zl_demo_label(s->flaggems_dir);

		add_str(&jb, o, "dir", s->flaggems_dir);
		add_str(&jb, o, "commit", f->flaggems_commit);
		if (f->flaggems_dirty < 0)
			add(&jb, o, "dirty", cJSON_CreateNull());
		else
			add_bool(&jb, o, "dirty", f->flaggems_dirty);
		add_str(&jb, o, "demo", demo);
		free(demo);
	}
	if ((o = add(&jb, root, "python", cJSON_CreateObject()))) {
		add_str(&jb, o, "path", pf->python_path);
		add_str(&jb, o, "version", pf->python_version);
		add_str(&jb, o, "pytest", pf->pytest_version);
	}
	add(&jb, root, "plugins", zl_json_strvec(&plan->plugins));
	if ((o = add(&jb, root, "timer", cJSON_CreateObject()))) {
		cJSON *summary = plugin_json(c->run_dir, "timer_summary.json");
		static const char *const keys[] = { "used", "profiler", "graph", "direct", "fallbacks", "noise_target",
						    "max_time_per_shape_s", "clock_mhz", "clock_source",
						    "dropped_throttled", NULL };
		const char *const *k;

		add_str(&jb, o, "plan", plan->timer);
		for (k = keys; *k; k++) {
			cJSON *v = cJSON_IsObject(summary) ? cJSON_GetObjectItemCaseSensitive(summary, *k) : NULL;
			add(&jb, o, *k, v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
		}
		cJSON_Delete(summary);
	}
	add_num(&jb, root, "direct_repeat", (double)s->direct_repeat, 1);
	if ((o = add(&jb, root, "autotune", cJSON_CreateObject()))) {
		cJSON *summary = plugin_json(c->run_dir, "autotune_summary.json");
		/* kernels: the tuned ones, so compare can tell whether two runs share a tuner's winners */
		static const char *const keys[] = { "recorded", "pinned", "missed", "no_tuner", "kernels",
						    "replay_conflicts", NULL };
		const char *const *k;

		add_str(&jb, o, "mode", s->replay_from ? "replay" : s->autotune_records ? "record" : "off");
		add_str(&jb, o, "replay_from", s->replay_from);
		add(&jb, o, "replay_run_id", s->replay_from ? replay_run_id(s->replay_from) : cJSON_CreateNull());
		for (k = keys; *k; k++) {
			cJSON *v = cJSON_IsObject(summary) ? cJSON_GetObjectItemCaseSensitive(summary, *k) : NULL;
			add(&jb, o, *k, v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
		}
		cJSON_Delete(summary);
	}
	if ((o = add(&jb, root, "tuner_cache", cJSON_CreateObject()))) {
		add_str(&jb, o, "mode", s->isolate ? "isolated" : "shared");
		add_str(&jb, o, "path", f->flaggems_cache);
		add_num(&jb, o, "winners_before", (double)f->winners_before, f->winners_before >= 0);
		add_num(&jb, o, "winners_after", (double)f->winners_after, f->winners_after >= 0);
		add_num(&jb, o, "configs_before", (double)f->configs_before, f->configs_before >= 0);
		add_num(&jb, o, "configs_after", (double)f->configs_after, f->configs_after >= 0);
		add_str(&jb, o, "note", f->tuner_note);
		add_str(&jb, o, "note_before", f->tuner_note_before);
		add_str(&jb, o, "note_after", f->tuner_note_after);
		/* FLAGGEMS_DB_URL: the child's tuner database is not the one counted, or it was removed */
		add_str(&jb, o, "db_url", !getenv(ZL_TUNER_DB_URL_VAR) ? NULL : s->isolate ? "removed" : "not counted");
		add_bool(&jb, o, "removed", s->isolate && !running);
		add(&jb, o, "tables", tuner_tables_json(&jb, f));
	}
	if ((o = add(&jb, root, "triton_cache", cJSON_CreateObject()))) {
		add_str(&jb, o, "mode", s->isolate ? "isolated" : "shared");
		add_str(&jb, o, "path", f->triton_cache);
	}
	if ((o = add(&jb, root, "compile", cJSON_CreateObject()))) {
		add_num(&jb, o, "variants", (double)f->compile_variants, f->compile_variants >= 0);
		add_num(&jb, o, "convert_layout", (double)f->compile_convert_layout, f->compile_convert_layout >= 0);
		add_str(&jb, o, "note", f->compile_note);
	}
	add(&jb, root, "vendor_guard", plugin_json(c->run_dir, "vendor.json"));
	add(&jb, root, "foreign_vendor", plugin_json(c->run_dir, "foreign_vendor.json"));
	add(&jb, root, "scheduler", env_object("ZL_SCHEDULER"));
	add(&jb, root, "warmup", env_object("ZL_WARMUP"));
	add(&jb, root, "start", f->start ? cJSON_Duplicate(f->start, 1) : zl_worker_start_json(NULL, NULL));
	add(&jb, root, "env", env_json(&jb, &c->child_env, s->backend));
	add_str(&jb, root, "status", f->status);
	add_num(&jb, root, "exit_code", f->exit_code, !running && f->exit_code >= 0);
	add_num(&jb, root, "signal", f->signal, f->signal > 0);
	add_str(&jb, root, "reason", f->reason);

	if (jb.failed) {
		cJSON_Delete(root);
		zl_error(err, "out of memory building run_identity.json");
		return NULL;
	}
	return root;
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
