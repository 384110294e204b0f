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

int zl_parse_nvidia_smi_csv(const char *output, struct zl_devlist *dl, struct strbuf *err)
{
	struct strbuf line = STRBUF_INIT;
	const char *pos = output;
	int col[NV__COUNT], lineno = 0, found = 0, ret = 0;

	default_columns(col);
	while (zl_next_line(&pos, &line)) {
		struct strvec cells = STRVEC_INIT;
		size_t need = 0;
		int f, index;

		lineno++;
		zl_split_keep(&cells, line.buf, ',');
		if (is_header(&cells)) {
			read_header(&cells, col);
			if (col[NV_NAME] < 0 || col[NV_UUID] < 0) {
				strvec_clear(&cells);
				ret = zl_error(err, "nvidia-smi header line %d names neither name nor uuid",
					       lineno);
				break;
			}
			strvec_clear(&cells);
			continue;
		}
		/*
		 * A line without a comma is a message ("WARNING: infoROM is corrupted
		 * ...", "No devices were found"); so is one whose index is not a number.
		 */
		if (cells.nr < 2) {
			strvec_clear(&cells);
			continue;
		}
		if (col[NV_INDEX] < 0) {
			index = found;
		} else if (!cell(&cells, col, NV_INDEX) ||
			   zl_parse_index(cell(&cells, col, NV_INDEX), strlen(cell(&cells, col, NV_INDEX)), &index)) {
			strvec_clear(&cells);
			continue;
		}
		for (f = 0; f < NV__COUNT; f++)
			if (col[f] >= 0 && (size_t)col[f] + 1 > need)
				need = (size_t)col[f] + 1;
		if (cells.nr < need) {
			ret = zl_error(err, "nvidia-smi line %d has %zu of %zu columns (truncated output?): '%s'",
				       lineno, cells.nr, need, line.buf);
			strvec_clear(&cells);
			break;
		}
		if (zl_devlist_find(dl, index)) {
			ret = zl_error(err, "nvidia-smi lists gpu %d twice (line %d)", index, lineno);
			strvec_clear(&cells);
			break;
		}
		add_row(&cells, col, index, dl);
		found++;
		strvec_clear(&cells);
	}
	if (!ret && !found)
		ret = zl_parse_none(err, "nvidia-smi", output);
	strbuf_release(&line);
	return ret;
}
