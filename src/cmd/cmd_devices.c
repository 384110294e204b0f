/* zlbench devices: enumerate one backend's devices and say how they were found. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "zlbench/backend.h"
#include "zlbench/cmd.h"
#include "zlbench/env.h"
#include "zlbench/error.h"
#include "zlbench/json.h"
#include "zlbench/options.h"
#include "zlbench/schema.h"
#include "zlbench/settings.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

static const char *opt_backend;
static enum zl_source backend_source;
static int opt_json;

static const struct zl_option devices_options[] = {
	{ .type = ZL_OPT_STRING, .long_name = "backend", .short_name = 'b', .value = &opt_backend, .argh = "B",
	  .help = "backend name or alias (default: auto-detect)", .env = "ZL_BACKEND", .source = &backend_source,
	  .values = ZL_VALUES_BACKEND },
	{ .type = ZL_OPT_FLAG, .long_name = "json", .value = &opt_json, .defval = 1, .help = "print one JSON document" },
	ZL_OPT_END_ROW
};

struct choice {
	const struct zl_backend *b;
	const char *source;     /* "flag", "env" or "auto" (as in run_identity.json) */
	struct strbuf why;      /* auto: what was found; flag/env: where the name came from */
};

/* The backend as the settings resolve it; a name that is no backend is said with the nearest one. */
static int choose_backend(struct choice *c, struct strbuf *err)
{
	struct zl_settings s;
	const struct zl_setting_value *v = &s.v[ZL_SET_BACKEND];
	int rc;

	zl_settings_init(&s);
	if (opt_backend && *opt_backend)
		zl_settings_set_from(&s, ZL_SET_BACKEND, opt_backend, backend_source);
	rc = zl_settings_resolve_backend(&s, err);
	if (rc && v->raw) {
		struct strbuf choices = STRBUF_INIT;
		struct strvec names = STRVEC_INIT;

		zl_backend_choices(&choices);
		zl_backend_names(&names);
		strbuf_reset(err);
		zl_error(err, "unknown backend '%s' from %s; choices: %s", v->raw, v->from, choices.buf);
		zl_did_you_mean(err, "", v->raw, &names);
		strvec_clear(&names);
		strbuf_release(&choices);
	} else if (!rc) {
		c->b = s.backend;
		c->source = zl_source_name(v->source);
		if (v->source == ZL_SRC_AUTO) {
			strbuf_addstr(&c->why, "auto-detected: ");
			zl_backend_present(c->b, &c->why);
		} else {
			strbuf_addf(&c->why, "from %s", v->from);
		}
	}
	zl_settings_release(&s);
	return rc;
}

/* The table's columns: each prints one device field, "-" when unknown. */
typedef void (*cell_fn)(struct strbuf *sb, const struct zl_device *d);

static void put(struct strbuf *sb, const char *s)
{
	if (s)
		strbuf_addstr(sb, s);
}
static void cell_index(struct strbuf *sb, const struct zl_device *d) { strbuf_addf(sb, "%d", d->index); }
static void cell_name(struct strbuf *sb, const struct zl_device *d) { put(sb, d->name); }
static void cell_memory(struct strbuf *sb, const struct zl_device *d)
{
	if (d->memory_mib >= 0)
		strbuf_addf(sb, "%lld MiB", d->memory_mib);
}
static void cell_uuid(struct strbuf *sb, const struct zl_device *d) { put(sb, d->uuid); }
static void cell_bus(struct strbuf *sb, const struct zl_device *d)
{
	/* the uuid column already shows the bus id when there was no uuid */
	if (!d->uuid || !d->bus_id || strcmp(d->uuid, d->bus_id))
		put(sb, d->bus_id);
}
static void cell_driver(struct strbuf *sb, const struct zl_device *d) { put(sb, d->driver); }
static void cell_node(struct strbuf *sb, const struct zl_device *d) { put(sb, d->node); }

static const struct { const char *title; cell_fn fn; } columns[] = {
	{ "INDEX", cell_index },
	{ "NAME", cell_name },
	{ "MEMORY", cell_memory },
	{ "UUID", cell_uuid },
	{ "BUS ID", cell_bus },
	{ "DRIVER", cell_driver },
	{ "NODE", cell_node },
};
#define NCOLS ZL_ARRAY_SIZE(columns)

/* Columns with a value for at least one device are shown; the others would be all "-". */
static void print_table(FILE *out, const struct zl_devlist *dl)
{
	struct strbuf *cells = xcalloc(dl->nr * NCOLS + 1, sizeof(*cells));
	size_t width[NCOLS], i, c, last = 0;
	int shown[NCOLS];

	for (c = 0; c < NCOLS; c++) {
		width[c] = strlen(columns[c].title);
		shown[c] = 0;
	}
	for (i = 0; i < dl->nr; i++)
		for (c = 0; c < NCOLS; c++) {
			struct strbuf *sb = &cells[i * NCOLS + c];

			strbuf_init(sb, 0);
			columns[c].fn(sb, &dl->v[i]);
			if (sb->len)
				shown[c] = 1;
			else
				strbuf_addch(sb, '-');
			if (sb->len > width[c])
				width[c] = sb->len;
		}
	for (c = 0; c < NCOLS; c++)
		if (shown[c])
			last = c;
	for (i = 0; i <= dl->nr; i++) {
		for (c = 0; c < NCOLS; c++) {
			const char *s = i ? cells[(i - 1) * NCOLS + c].buf : columns[c].title;

			if (!shown[c])
				continue;
			if (c == last)
				fprintf(out, "%s\n", s);
			else
				fprintf(out, "%-*s  ", (int)width[c], s);
		}
	}
	for (i = 0; i < dl->nr * NCOLS; i++)
		strbuf_release(&cells[i]);
	free(cells);
}

static void print_text(FILE *out, const struct choice *c, const struct zl_devlist *dl)
{
	const char *vis = zl_env_raw_by_name(c->b->visibility_var);

	fprintf(out, "backend: %s (%s)\n", c->b->name, c->why.buf);
	if (!dl->available) {
		fprintf(out, "devices: %s\n", dl->how);
		return;
	}
	fprintf(out, "devices: %zu, found by %s\n", dl->nr, dl->how);
	print_table(out, dl);
	if (vis)
		fprintf(out, "note: %s=%s is set here; the indices above count every device the host shows, not only the visible ones\n",
			c->b->visibility_var, vis);
}

static cJSON *devices_json(const struct choice *c, const struct zl_devlist *dl)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *vis, *arr;
	size_t i;

	if (!root)
		return NULL;
	if (zl_json_add_schema(root, ZL_SCHEMA_DEVICES) || zl_json_add_string(root, "backend", c->b->name) ||
	    zl_json_add_string(root, "backend_source", c->source) ||
	    zl_json_add_string(root, "backend_why", c->why.buf) ||
	    zl_json_add_string(root, "vendor", c->b->vendor_name) ||
	    !cJSON_AddBoolToObject(root, "verified", dl->available) ||
	    zl_json_add_string(root, "how", dl->how) ||
	    !cJSON_AddBoolToObject(root, "tool_failed", dl->tool_failed))
		goto fail;
	vis = cJSON_AddObjectToObject(root, "visibility");
	if (!vis || zl_json_add_string(vis, "variable", c->b->visibility_var) ||
	    zl_json_add_string(vis, "value", zl_env_raw_by_name(c->b->visibility_var)))
		goto fail;
	arr = cJSON_AddArrayToObject(root, "devices");
	if (!arr)
		goto fail;
	for (i = 0; i < dl->nr; i++)
		if (zl_json_add_item(arr, NULL, zl_device_to_json(&dl->v[i])))
			goto fail;
	return root;
fail:
	cJSON_Delete(root);
	return NULL;
}

static int print_json(FILE *out, const struct choice *c, const struct zl_devlist *dl,
		      struct strbuf *err)
{
	cJSON *root = devices_json(c, dl);
	int bad = !root || zl_json_fprint(out, root, "devices --json");

	cJSON_Delete(root);
	if (bad)
		return zl_error(err, "out of memory while building the devices JSON");
	return 0;
}

static int cmd_devices(struct zl_cmd_ctx *ctx)
{
	struct strbuf err = STRBUF_INIT;
	struct choice c = { NULL, NULL, STRBUF_INIT };
	struct zl_devlist dl = ZL_DEVLIST_INIT;
	int ret = ZL_EXIT_OK;

	(void)ctx;
	if (choose_backend(&c, &err)) {
		zl_print_error("%s", err.buf);
		ret = ZL_EXIT_USAGE;
		goto out;
	}
	zl_backend_enumerate(c.b, &dl);
	if (opt_json) {
		if (print_json(stdout, &c, &dl, &err)) {
			zl_print_error("%s", err.buf);
			ret = ZL_EXIT_FAILED;
		}
	} else {
		print_text(stdout, &c, &dl);
	}
out:
	zl_devlist_release(&dl);
	strbuf_release(&c.why);
	strbuf_release(&err);
	return ret;
}

const struct zl_command zl_cmd_devices = {
	.name = "devices",
	.fn = cmd_devices,
	.options = devices_options,
	.summary = "enumerate a backend's devices",
	.usage = "[--backend B] [--json]",
	.description =
		"Lists a backend's devices, found with the vendor's query tool (the QUERY TOOL\n"
		"column of 'zlbench backends'; run without a shell, for at most ZL_QUERY_TIMEOUT\n"
		"seconds). When the tool is missing or fails, the numbered device nodes under\n"
		"/dev are counted instead; when neither is there the devices are \"not verified\"\n"
		"and the reason is printed. Either way the output says how the list was made.\n"
		"Indices are what the backend's visibility variable takes.\n\n"
		"The backend comes from --backend, else ZL_BACKEND, else auto-detection: the one\n"
		"vendor whose query tool is on PATH or whose device nodes exist.\n",
	.notes =
		"Environment:\n"
		"  ZL_BACKEND        backend when --backend is not given\n"
		"  ZL_QUERY_TIMEOUT  seconds the query tool may take (default " ZL_STR(ZL_QUERY_TIMEOUT_DEFAULT) ")\n"
		"  ZL_DEV_ROOT       directory holding the device nodes (default /dev)\n"
		"  PATH              where the query tools are looked up\n"
		"\nExit status:\n"
		"  0  devices listed, or \"not verified\" with the reason\n"
		"  1  the JSON document could not be built\n"
		"  2  usage: unknown backend, no backend detected (or several), bad option\n"
		"\nExamples:\n"
		"  zlbench devices\n"
		"  zlbench devices --backend musa\n"
		"  ZL_BACKEND=npu zlbench devices --json\n",
};
