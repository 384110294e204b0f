/*
 * mthreads-gmi's default table. Each GPU is a block of three lines; its first
 * carries the index, name, bus id and memory:
 *
 *     mthreads-gmi:2.4.1           Driver Version:5.1.0-server
 *   ...
 *   0    MTT S5000            |00000000:18:00.0    |0%    0MiB(81920MiB)
 *        Physical      P0     |16x(16x)            |48C   YES
 *
 * The old (63-column) and new (69-column) layouts differ only in widths, and
 * real output pads the last cell with blanks, so cells are split at '|' and
 * trimmed rather than cut at columns. The process table after "Processes:"
 * also starts lines with numbers and is not read.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "backends/parsers.h"
#include "zlbench/error.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

#define DRIVER_KEY "Driver Version:"

/* "Driver Version:5.1.0-server" -> "5.1.0-server" (up to the next blank). */
static char *driver_version(const char *line)
{
	const char *p = strstr(line, DRIVER_KEY);
	size_t len;

	if (!p)
		return NULL;
	p += strlen(DRIVER_KEY);
	while (*p == ' ' || *p == '\t')
		p++;
	len = strcspn(p, " \t");
	return zl_field_dup(p, len);
}

/* "0MiB(81920MiB)" -> total, the size in brackets; -1 when absent. */
static long long total_memory(const char *cell)
{
	const char *open = strchr(cell, '(');
	const char *close = open ? strchr(open, ')') : NULL;
	long long mib;

	if (!close || zl_parse_size_mib(open + 1, (size_t)(close - open - 1), "MiB", &mib))
		return -1;
	return mib;
}

/* The first line of a GPU block: "<index> <name> | <bus id> | <util> <used>(<total>)". */
static int gpu_line(const char *line, const char *driver, struct zl_devlist *dl)
{
	struct strvec cells = STRVEC_INIT;
	const char *c0, *name;
	size_t digits;
	int index;
	char *n;
	struct zl_device *d;

	zl_split_keep(&cells, line, '|');
	if (cells.nr < 3) {
		strvec_clear(&cells);
		return 0;
	}
	c0 = cells.v[0];
	digits = strspn(c0, "0123456789");
	if (!digits || (c0[digits] && !isspace((unsigned char)c0[digits])) ||
	    zl_parse_index(c0, digits, &index) || zl_devlist_find(dl, index)) {
		strvec_clear(&cells);
		return 0;
	}
	name = c0 + digits;
	n = zl_field_dup(name, strlen(name));
	d = zl_devlist_add(dl, index, n, NULL, total_memory(cells.v[2]), driver);
	d->bus_id = zl_field_dup(cells.v[1], strlen(cells.v[1]));
	free(n);
	strvec_clear(&cells);
	return 1;
}

int zl_parse_mthreads_gmi(const char *output, struct zl_devlist *dl, struct strbuf *err)
{
	struct strbuf line = STRBUF_INIT;
	const char *pos = output;
	char *driver = NULL;
	int found = 0, ret = 0;

	while (zl_next_line(&pos, &line)) {
		if (!driver && strstr(line.buf, DRIVER_KEY)) {
			driver = driver_version(line.buf);
			continue;
		}
		strbuf_trim(&line);
		if (zl_starts_with(line.buf, "Processes:"))
			break;
		found += gpu_line(line.buf, driver, dl);
	}
	if (!found)
		ret = zl_parse_none(err, "mthreads-gmi", output);
	free(driver);
	strbuf_release(&line);
	return ret;
}
