/* Helpers shared by the query-tool parsers: lines, fields, sizes. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "backends/parsers.h"
#include "zlbench/error.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

int zl_next_line(const char **pos, struct strbuf *line)
{
	const char *p = *pos, *nl;
	size_t len;

	if (!p || !*p)
		return 0;
	nl = strchr(p, '\n');
	len = nl ? (size_t)(nl - p) : strlen(p);
	strbuf_reset(line);
	strbuf_add(line, p, len);
	if (line->len && line->buf[line->len - 1] == '\r')
		strbuf_setlen(line, line->len - 1);
	*pos = nl ? nl + 1 : p + len;
	return 1;
}

/* How the tools print "no value": nvidia-smi brackets its own, rocm-smi and npu-smi do not. */
static const char *const unknown_spellings[] = {
	"N/A", "[N/A]", "NA", "[Not Supported]", "Not Supported", "[Unknown Error]",
	"Unknown", "-", "None",
};

static void trim_span(const char **s, size_t *len)
{
	while (*len && isspace((unsigned char)**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && isspace((unsigned char)(*s)[*len - 1]))
		(*len)--;
}

char *zl_field_dup(const char *s, size_t len)
{
	size_t i;

	if (!s)
		return NULL;
	trim_span(&s, &len);
	if (!len)
		return NULL;
	for (i = 0; i < ZL_ARRAY_SIZE(unknown_spellings); i++)
		if (strlen(unknown_spellings[i]) == len && !strncasecmp(unknown_spellings[i], s, len))
			return NULL;
	return xstrndup(s, len);
}

/* Units the tools print after sizes; npu-smi's "MB" and mthreads-gmi's "MiB" are both 2^20. */
static const struct { const char *unit; unsigned long long bytes; } size_units[] = {
	{ "B", 1ULL },
	{ "KiB", 1ULL << 10 }, { "KB", 1ULL << 10 },
	{ "MiB", 1ULL << 20 }, { "MB", 1ULL << 20 },
	{ "GiB", 1ULL << 30 }, { "GB", 1ULL << 30 },
	{ "TiB", 1ULL << 40 }, { "TB", 1ULL << 40 },
};

static int unit_bytes(const char *u, size_t len, unsigned long long *bytes)
{
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(size_units); i++)
		if (strlen(size_units[i].unit) == len && !strncasecmp(size_units[i].unit, u, len)) {
			*bytes = size_units[i].bytes;
			return 0;
		}
	return -1;
}

int zl_parse_size_mib(const char *s, size_t len, const char *unit, long long *mib)
{
	unsigned long long value = 0, bytes;
	size_t i = 0;

	if (!s)
		return -1;
	trim_span(&s, &len);
	if (!len || !isdigit((unsigned char)s[0]))
		return -1;
	for (; i < len && isdigit((unsigned char)s[i]); i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (value > (ULLONG_MAX - d) / 10)
			return -1;
		value = value * 10 + d;
	}
	/* a fractional part (some tools print "16.0 GiB") is dropped below the MiB */
	if (i < len && s[i] == '.')
		for (i++; i < len && isdigit((unsigned char)s[i]); i++)
			;
	while (i < len && isspace((unsigned char)s[i]))
		i++;
	if (i == len) {
		if (unit_bytes(unit, strlen(unit), &bytes))
			return -1;
	} else if (unit_bytes(s + i, len - i, &bytes)) {
		return -1;
	}
	if (bytes >= (1ULL << 20)) {
		unsigned long long per = bytes >> 20;

		if (value > (unsigned long long)LLONG_MAX / per)
			return -1;
		*mib = (long long)(value * per);
	} else {
		*mib = (long long)(value / ((1ULL << 20) / bytes));
	}
	return 0;
}

int zl_parse_index(const char *s, size_t len, int *out)
{
	long v = 0;
	size_t i;

	if (!s)
		return -1;
	trim_span(&s, &len);
	if (!len || len > 9)
		return -1;
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = (int)v;
	return 0;
}

void zl_split_keep(struct strvec *out, const char *line, char sep)
{
	const char *p = line;

	for (;;) {
		const char *end = strchr(p, sep);
		size_t len = end ? (size_t)(end - p) : strlen(p);
		struct strbuf f = STRBUF_INIT;

		strbuf_add(&f, p, len);
		strbuf_trim(&f);
		strvec_push(out, f.buf);
		strbuf_release(&f);
		if (!end)
			break;
		p = end + 1;
	}
}

int zl_parse_none(struct strbuf *err, const char *tool, const char *output)
{
	struct strbuf line = STRBUF_INIT;
	const char *pos = output;
	int r;

	while (zl_next_line(&pos, &line)) {
		strbuf_trim(&line);
		if (line.len)
			break;
	}
	if (line.len > 120) {
		strbuf_setlen(&line, 117);
		strbuf_addstr(&line, "...");
	}
	if (line.len)
		r = zl_error(err, "no devices in %s output (it begins '%s')", tool, line.buf);
	else
		r = zl_error(err, "no devices in %s output (it printed nothing)", tool);
	strbuf_release(&line);
	return r;
}
