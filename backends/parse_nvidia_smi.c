/*
 * nvidia-smi --query-gpu=ZL_NVSMI_QUERY_FIELDS --format=csv,noheader,nounits
 *
 *   0, NVIDIA H200, GPU-40eae92e-..., 00000000:00:06.0, 143771, 580.159.04
 *
 * A header line ("index, name, ..., memory.total [MiB], ...") remaps the columns
 * by name, so --format=csv with units parses too (without an index column, rows
 * count from 0). Lines without a comma, or without a number in the index column,
 * are the tool's messages and are skipped; a row that lacks columns is a
 * truncated output and fails.
 */
#include <stdlib.h>
#include <string.h>

#include "backends/parsers.h"
#include "zlbench/error.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

enum nv_field { NV_INDEX, NV_NAME, NV_UUID, NV_BUS, NV_MEMORY, NV_DRIVER, NV__COUNT };

static const char *const nv_field_names[NV__COUNT] = {
	[NV_INDEX] = "index",
	[NV_NAME] = "name",
	[NV_UUID] = "uuid",
	[NV_BUS] = "pci.bus_id",
	[NV_MEMORY] = "memory.total",
	[NV_DRIVER] = "driver_version",
};

/* Column of each field: the order of ZL_NVSMI_QUERY_FIELDS until a header says otherwise. */
static void default_columns(int col[NV__COUNT])
{
	struct strvec names = STRVEC_INIT;
	int f;

	strvec_split(&names, ZL_NVSMI_QUERY_FIELDS, ',');
	for (f = 0; f < NV__COUNT; f++)
		col[f] = (int)strvec_find(&names, nv_field_names[f]);
	strvec_clear(&names);
}

/* "memory.total [MiB]" -> "memory.total"; returns the field, or -1 when not ours. */
static int header_field(const char *cell)
{
	size_t len = strcspn(cell, " [");
	int f;

	for (f = 0; f < NV__COUNT; f++)
		if (strlen(nv_field_names[f]) == len && !strncmp(nv_field_names[f], cell, len))
			return f;
	return -1;
}

/* A header names fields; "index" need not come first (or at all: then rows count from 0). */
static int is_header(const struct strvec *cells)
{
	return cells->nr > 1 && header_field(cells->v[0]) >= 0;
}

static void read_header(const struct strvec *cells, int col[NV__COUNT])
{
	size_t i;
	int f;

	for (f = 0; f < NV__COUNT; f++)
		col[f] = -1;
	for (i = 0; i < cells->nr; i++) {
		f = header_field(cells->v[i]);
		if (f >= 0)
			col[f] = (int)i;
	}
}

static const char *cell(const struct strvec *cells, const int col[NV__COUNT], enum nv_field f)
{
	return col[f] >= 0 && (size_t)col[f] < cells->nr ? cells->v[col[f]] : NULL;
}

/* A cell's value, or NULL when the column is absent or the tool printed "[N/A]". */
static char *field(const struct strvec *cells, const int col[NV__COUNT], enum nv_field f)
{
	const char *c = cell(cells, col, f);

	return c ? zl_field_dup(c, strlen(c)) : NULL;
}

static void add_row(const struct strvec *cells, const int col[NV__COUNT], int index,
		    struct zl_devlist *dl)
{
	const char *mem = cell(cells, col, NV_MEMORY);
	long long mib = -1;
	char *name = field(cells, col, NV_NAME);
	char *uuid = field(cells, col, NV_UUID);
	char *driver = field(cells, col, NV_DRIVER);
	struct zl_device *d;

	/* nounits prints bare MiB; with units the cell says "143771 MiB" itself */
	if (mem && zl_parse_size_mib(mem, strlen(mem), "MiB", &mib))
		mib = -1;
	d = zl_devlist_add(dl, index, name, uuid, mib, driver);
	d->bus_id = field(cells, col, NV_BUS);
	free(name);
	free(uuid);
	free(driver);
}

/* How many cells a row needs to hold every column the header (or the default order) names. */
static size_t columns_needed(const int col[NV__COUNT])
{
	size_t need = 0;
	int f;

	for (f = 0; f < NV__COUNT; f++)
		if (col[f] >= 0 && (size_t)col[f] + 1 > need)
			need = (size_t)col[f] + 1;
	return need;
}

/* The CSV as read so far: its columns, the line number, the devices found. */
struct nv_csv {
	int col[NV__COUNT];
	int lineno;
	int found;
	struct zl_devlist *dl;
};

/* One line's cells: a header, a message (skipped) or a device; -1 with err when the output is not to be trusted. */
static int read_line(struct nv_csv *c, const struct strvec *cells, const char *line, struct strbuf *err)
{
	int index;

	if (is_header(cells)) {
		read_header(cells, c->col);
		if (c->col[NV_NAME] < 0 || c->col[NV_UUID] < 0)
			return zl_error(err, "nvidia-smi header line %d names neither name nor uuid", c->lineno);
		return 0;
	}
	/*
	 * A line without a comma is a message ("WARNING: infoROM is corrupted
	 * ...", "No devices were found"); so is one whose index is not a number.
	 */
	if (cells->nr < 2)
		return 0;
	if (c->col[NV_INDEX] < 0) {
		index = c->found;
	} else if (!cell(cells, c->col, NV_INDEX) ||
		   zl_parse_index(cell(cells, c->col, NV_INDEX), strlen(cell(cells, c->col, NV_INDEX)), &index)) {
		return 0;
	}
	if (cells->nr < columns_needed(c->col))
		return zl_error(err, "nvidia-smi line %d has %zu of %zu columns (truncated output?): '%s'",
				c->lineno, cells->nr, columns_needed(c->col), line);
	if (zl_devlist_find(c->dl, index))
		return zl_error(err, "nvidia-smi lists gpu %d twice (line %d)", index, c->lineno);
	add_row(cells, c->col, index, c->dl);
	c->found++;
	return 0;
}

int zl_parse_nvidia_smi_csv(const char *output, struct zl_devlist *dl, struct strbuf *err)
{
	struct nv_csv c = { .dl = dl };
	struct strbuf line = STRBUF_INIT;
	const char *pos = output;
	int ret = 0;

	default_columns(c.col);
	while (!ret && zl_next_line(&pos, &line)) {
		struct strvec cells = STRVEC_INIT;

		c.lineno++;
		zl_split_keep(&cells, line.buf, ',');
		ret = read_line(&c, &cells, line.buf, err);
		strvec_clear(&cells);
	}
	if (!ret && !c.found)
		ret = zl_parse_none(err, "nvidia-smi", output);
	strbuf_release(&line);
	return ret;
}
