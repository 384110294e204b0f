/*
 * npu-smi info: a table with two lines per chip,
 *
 *   | npu-smi 23.0.3                   Version: 23.0.3                         |
 *   ...
 *   | 12    910B2C              | OK            | 91.3        53        0    / 0     |
 *   | 0                         | 0000:D9:00.0  | 0           0    / 0  52675/ 65536 |
 *
 * The first names the NPU (its id and product), the second the chip (chip id,
 * bus id, usage/total memory pairs). An NPU can hold several chips (Atlas 310
 * cards hold four, A3 NPUs two), each a device of its own, and NPU ids need not
 * start at 0 (a container that sees NPUs 12-15). The device index is therefore
 * the chip's position in the table: the logical id the CANN runtime (and
 * ASCEND_RT_VISIBLE_DEVICES) counts from 0. The process table that follows
 * also has numeric rows and is not read.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "backends/parsers.h"
#include "zlbench/error.h"
#include "zlbench/strvec.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

#define VERSION_KEY "Version:"

/* "| npu-smi 23.0.3   Version: 23.0.3   |" -> "23.0.3" */
static char *driver_version(const char *line)
{
	const char *p = strstr(line, VERSION_KEY);

	if (!p)
		return NULL;
	p += strlen(VERSION_KEY);
	while (*p == ' ' || *p == '\t')
		p++;
	return zl_field_dup(p, strcspn(p, " \t|"));
}

/* The cells of a "| a | b | c |" row without the empty ones outside the outer bars. */
static void row_cells(const char *line, struct strvec *cells)
{
	const char *p = line;

	while (*p == ' ')
		p++;
	if (*p != '|')
		return;
	zl_split_keep(cells, p + 1, '|');
	if (cells->nr && !*cells->v[cells->nr - 1])
		strvec_pop(cells);
}

/* First cell "12    910B2C": a number, then (for the NPU line) a name. */
static int leading_number(const char *cell, int *n, const char **rest)
{
	size_t digits = strspn(cell, "0123456789");

	if (!digits || (cell[digits] && !isspace((unsigned char)cell[digits])))
		return -1;
	if (zl_parse_index(cell, digits, n))
		return -1;
	*rest = cell + digits;
	return 0;
}

/*
 * The chip's memory: the last non-zero total among its "used / total" pairs.
 * HBM is listed last and is what kernels use; DDR-only chips (Atlas 310) list
 * one pair; npu-smi writes big pairs without a blank ("52675/ 65536"), so the
 * pairs are found at '/' rather than by splitting at blanks.
 */
static long long chip_memory(const char *cell)
{
	const char *slash = cell;
	long long best = -1;

	while ((slash = strchr(slash, '/'))) {
		long long mib;
		size_t len;

		slash++;
		while (*slash == ' ')
			slash++;
		len = strspn(slash, "0123456789");
		if (len && !zl_parse_size_mib(slash, len, "MiB", &mib) && mib > 0)
			best = mib;
	}
	return best;
}

static int is_bus_id(const char *s)
{
	return strchr(s, ':') && strchr(s, '.');
}

int zl_parse_npu_smi_info(const char *output, struct zl_devlist *dl, struct strbuf *err)
{
	struct strbuf line = STRBUF_INIT;
	struct strvec npu = STRVEC_INIT;
	const char *pos = output;
	char *driver = NULL;
	int found = 0, ret = 0, next_index = (int)dl->nr;

	while (zl_next_line(&pos, &line)) {
		struct strvec cells = STRVEC_INIT;
		const char *rest;
		int n;

		if (!driver && strstr(line.buf, "npu-smi") && strstr(line.buf, VERSION_KEY)) {
			driver = driver_version(line.buf);
			continue;
		}
		if (strstr(line.buf, "Process id") || strstr(line.buf, "Process name"))
			break;
		row_cells(line.buf, &cells);
		if (cells.nr < 3 || leading_number(cells.v[0], &n, &rest)) {
			strvec_clear(&npu);
			strvec_clear(&cells);
			continue;
		}
		if (npu.nr && is_bus_id(cells.v[1])) {
			/* the chip line under an NPU line: one device */
			const char *name_start = npu.v[0] + strspn(npu.v[0], "0123456789");
			char *name = zl_field_dup(name_start, strlen(name_start));
			struct zl_device *d = zl_devlist_add(dl, next_index++, name, NULL,
							     chip_memory(cells.v[2]), driver);

			d->bus_id = zl_field_dup(cells.v[1], strlen(cells.v[1]));
			free(name);
			found++;
			strvec_clear(&npu);
		} else {
			strvec_clear(&npu);
			strvec_pushv(&npu, cells.v);
		}
		strvec_clear(&cells);
	}
	if (!found)
		ret = zl_parse_none(err, "npu-smi", output);
	free(driver);
	strvec_clear(&npu);
	strbuf_release(&line);
	return ret;
}
