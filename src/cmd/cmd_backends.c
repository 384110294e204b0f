/* zlbench backends: print the compiled-in backend table (text or JSON). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "zlbench/backend.h"
#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/json.h"
#include "zlbench/options.h"
#include "zlbench/schema.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

static int opt_json;

static const struct zl_option backends_options[] = {
	{ .type = ZL_OPT_FLAG, .long_name = "json", .value = &opt_json, .defval = 1,
	  .help = "print the table as one JSON document" },
	ZL_OPT_END_ROW
};

/* A NULL-terminated list joined with sep for the text table, or "-" when empty. */
static void join_list(struct strbuf *sb, const char *const *list, const char *sep)
{
	for (; list && *list; list++)
		strbuf_addf(sb, "%s%s", sb->len ? sep : "", *list);
	if (!sb->len)
		strbuf_addch(sb, '-');
}

static void caps_text(struct strbuf *sb, const struct zl_backend *b)
{
	const struct zl_capability_def *c;

	for (c = zl_capability_table; c->name; c++)
		if (zl_backend_has(b, c->bit))
			strbuf_addf(sb, "%s%s", sb->len ? "," : "", c->name);
	if (!sb->len)
		strbuf_addch(sb, '-');
}

static void tools_text(struct strbuf *sb, const struct zl_backend *b)
{
	strbuf_addstr(sb, b->query_tool ? b->query_tool : "-");
	if (b->alt_query_tool)
		strbuf_addf(sb, ", %s", b->alt_query_tool);
}

enum col { C_NAME, C_ALIASES, C_VENDOR, C_VIS, C_TOOLS, C_NODES, C_CAPS, C__COUNT };
static const char *const col_titles[C__COUNT] = {
	"NAME", "ALIASES", "VENDOR", "VISIBILITY", "QUERY TOOL", "DEVICE NODES", "CAPABILITIES",
};

static void row_cells(const struct zl_backend *b, struct strbuf cells[C__COUNT])
{
	strbuf_addstr(&cells[C_NAME], b->name);
	join_list(&cells[C_ALIASES], b->aliases, ", ");
	strbuf_addstr(&cells[C_VENDOR], b->vendor_name);
	strbuf_addstr(&cells[C_VIS], b->visibility_var);
	tools_text(&cells[C_TOOLS], b);
	if (b->dev_node_prefix)
		strbuf_addf(&cells[C_NODES], "/dev/%s<N>", b->dev_node_prefix);
	if (b->dev_node_probe)
		strbuf_addf(&cells[C_NODES], "%s/dev/%s", cells[C_NODES].len ? ", " : "",
			    b->dev_node_probe);
	if (!cells[C_NODES].len)
		strbuf_addch(&cells[C_NODES], '-');
	caps_text(&cells[C_CAPS], b);
}

/* Padded to its column, except the last, which ends the line. */
static void print_cell(FILE *out, const char *s, int c, const size_t width[C__COUNT])
{
	if (c + 1 < C__COUNT)
		fprintf(out, "%-*s  ", (int)width[c], s);
	else
		fprintf(out, "%s\n", s);
}

/* "<backend>: no <capability>: <why>" for every note of the table. */
static void print_notes(FILE *out)
{
	const struct zl_backend *b;
	const struct zl_capability_def *c;
	int first = 1;

	for (b = zl_backend_table; b->name; b++)
		for (c = zl_capability_table; c->name; c++) {
			const char *why = zl_backend_cap_note(b, c->bit);

			if (!why)
				continue;
			fprintf(out, "%s%s: no %s: %s\n", first ? "\n" : "", b->name, c->name, why);
			first = 0;
		}
}

static void print_text(FILE *out)
{
	size_t n = zl_backend_count(), i, width[C__COUNT];
	struct strbuf *cells = xcalloc(n * C__COUNT, sizeof(*cells));
	int c;

	for (c = 0; c < C__COUNT; c++)
		width[c] = strlen(col_titles[c]);
	for (i = 0; i < n; i++) {
		for (c = 0; c < C__COUNT; c++)
			strbuf_init(&cells[i * C__COUNT + c], 0);
		row_cells(&zl_backend_table[i], &cells[i * C__COUNT]);
		for (c = 0; c < C__COUNT; c++)
			if (cells[i * C__COUNT + c].len > width[c])
				width[c] = cells[i * C__COUNT + c].len;
	}
	for (c = 0; c < C__COUNT; c++)
		print_cell(out, col_titles[c], c, width);
	for (i = 0; i < n; i++)
		for (c = 0; c < C__COUNT; c++)
			print_cell(out, cells[i * C__COUNT + c].buf, c, width);
	print_notes(out);
	for (i = 0; i < n * C__COUNT; i++)
		strbuf_release(&cells[i]);
	free(cells);
}

/* Add a string array (NULL-terminated list) under key; -1 when cJSON runs out of memory. */
static int add_list(cJSON *obj, const char *key, const char *const *list)
{
	cJSON *arr = cJSON_AddArrayToObject(obj, key);

	if (!arr)
		return -1;
	for (; list && *list; list++)
		if (zl_json_add_item(arr, NULL, cJSON_CreateString(*list)))
			return -1;
	return 0;
}

static int add_caps(cJSON *obj, const struct zl_backend *b)
{
	cJSON *arr = cJSON_AddArrayToObject(obj, "capabilities");
	const struct zl_capability_def *c;

	if (!arr)
		return -1;
	for (c = zl_capability_table; c->name; c++)
		if (zl_backend_has(b, c->bit) && zl_json_add_item(arr, NULL, cJSON_CreateString(c->name)))
			return -1;
	return 0;
}

/* {capability: why} for the capabilities the row says it lacks. */
static int add_cap_notes(cJSON *obj, const struct zl_backend *b)
{
	cJSON *notes = cJSON_AddObjectToObject(obj, "capability_notes");
	const struct zl_capability_def *c;

	if (!notes)
		return -1;
	for (c = zl_capability_table; c->name; c++) {
		const char *why = zl_backend_cap_note(b, c->bit);

		if (why && !cJSON_AddStringToObject(notes, c->name, why))
			return -1;
	}
	return 0;
}

static cJSON *backend_json(const struct zl_backend *b)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	if (zl_json_add_string(o, "name", b->name) || add_list(o, "aliases", b->aliases) ||
	    zl_json_add_string(o, "vendor_name", b->vendor_name) ||
	    zl_json_add_string(o, "vendor_module", b->vendor_module) ||
	    zl_json_add_string(o, "visibility_var", b->visibility_var) ||
	    add_list(o, "extra_visibility_vars", b->extra_visibility_vars) ||
	    add_list(o, "slurm_sets", b->slurm_sets) ||
	    zl_json_add_string(o, "query_tool", b->query_tool) ||
	    add_list(o, "query_argv", b->query_argv) ||
	    zl_json_add_string(o, "alt_query_tool", b->alt_query_tool) ||
	    (b->alt_query_argv ? add_list(o, "alt_query_argv", b->alt_query_argv)
			       : zl_json_add_string(o, "alt_query_argv", NULL)) ||
	    zl_json_add_string(o, "dev_node_prefix", b->dev_node_prefix) ||
	    zl_json_add_string(o, "dev_node_probe", b->dev_node_probe) ||
	    add_caps(o, b) || add_cap_notes(o, b) ||
	    zl_json_add_string(o, "clock_source", zl_backend_clock_source(b))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static int print_json(FILE *out, struct strbuf *err)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *arr = root ? cJSON_AddArrayToObject(root, "backends") : NULL;
	const struct zl_backend *b;

	if (!arr || zl_json_add_schema(root, ZL_SCHEMA_BACKENDS))
		goto oom;
	for (b = zl_backend_table; b->name; b++)
		if (zl_json_add_item(arr, NULL, backend_json(b)))
			goto oom;
	if (zl_json_fprint(out, root, "backends --json"))
		goto oom;
	cJSON_Delete(root);
	return 0;
oom:
	cJSON_Delete(root);
	return zl_error(err, "out of memory while building the backends JSON");
}

static int cmd_backends(struct zl_cmd_ctx *ctx)
{
	struct strbuf err = STRBUF_INIT;
	int ret = ZL_EXIT_OK;

	(void)ctx;
	if (opt_json) {
		if (print_json(stdout, &err)) {
			zl_print_error("%s", err.buf);
			ret = ZL_EXIT_FAILED;
		}
	} else {
		print_text(stdout);
	}
	strbuf_release(&err);
	return ret;
}

const struct zl_command zl_cmd_backends = {
	.name = "backends",
	.fn = cmd_backends,
	.options = backends_options,
	.summary = "list the compiled-in backends",
	.usage = "[--json]",
	.description =
		"Lists the compiled-in backends: each one's aliases (accepted by --backend and\n"
		"ZL_BACKEND, case-insensitively), the FlagGems vendor_name it expects, the variable\n"
		"zlbench sets to pin devices, the tool that enumerates devices and the device nodes\n"
		"used when that tool is missing, and its capabilities (graph_capture: the graph\n"
		"timer can capture and replay kernels; kernel_profiler: torch's profiler reports device\n"
		"kernel timestamps, so the profiler timer can time there). Below the table, why a\n"
		"backend lacks a capability where its public code says so.\n",
	.notes =
		"Environment:\n"
		"  none\n"
		"\nExit status:\n"
		"  0  the table was printed\n"
		"  2  usage: unknown option or argument\n"
		"\nExamples:\n"
		"  zlbench backends\n"
		"  zlbench backends --json | python3 -c 'import json,sys; print([b[\"name\"] for b in "
		"json.load(sys.stdin)[\"backends\"]])'\n",
};
